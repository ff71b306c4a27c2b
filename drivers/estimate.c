/*
 * estimate.c - node power estimated from CPU utilisation: the fallback.
 *
 * No hardware: the linear model of the Damaris energy study,
 *     P = P_idle + (P_max - P_idle) * u,
 * where u is the node's CPU utilisation over the last interval, from the
 * aggregate "cpu" line of /proc/stat (user + nice + system + irq + softirq
 * + steal over all fields).  The driver integrates P itself and reports a
 * cumulative energy in microjoules, so it is a counter meter: its figures
 * are exact for the model, and the model is only a model.  Every figure it
 * contributes is labelled "estimated" in the report and the summary.
 *
 * Parameters: idle=W and max=W (defaults PMON_ESTIMATE_IDLE_W and
 * PMON_ESTIMATE_MAX_W, else 100 W and 300 W), stat=PATH (default
 * $PMON_PROC_ROOT/stat).  The counter is 64-bit microjoules: no wrap.
 * No stale limit (m->stale_s stays 0): the model integrates over the
 * clock at each reading, so there is no device to freeze.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"
#include "driver.h"
#include "env.h"
#include "log.h"

#define DEFAULT_IDLE_W 100.0
#define DEFAULT_MAX_W 300.0
#define MAX_WATTS 1e6

struct est_priv {
  char path[PATH_MAX];
  int fd;
  double idle_w, max_w;
  int primed;            /* a first reading exists */
  double t;              /* time of the last reading, s */
  unsigned long long busy, total; /* jiffies at the last reading */
  double util;           /* the last utilisation, 0..1 */
  double energy_j;       /* integral of the model since open */
};

static void stat_path(const struct pmon_spec *spec, char *buf, size_t size)
{
  const char *p = pmon__spec_get(spec, "stat");

  if (p != NULL)
    snprintf(buf, size, "%s", p);
  else
    snprintf(buf, size, "%s/stat", pmon__proc_root());
}

static int read_stat(struct est_priv *ep, unsigned long long *busy,
                     unsigned long long *total)
{
  char buf[512];
  ssize_t n;

  do
    n = pread(ep->fd, buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return pmon__fail(PMON_EIO, "estimate: %s: read: %s", ep->path,
                      strerror(errno));
  buf[n] = '\0';
  if (pmon__proc_stat_cpu(buf, busy, total) != 0)
    return pmon__fail(PMON_EFORMAT,
                      "estimate: %s: no \"cpu\" line with at least 4 fields",
                      ep->path);
  return 0;
}

static double now_s(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The number of watts in variable VAR into *OUT, left alone when unset. */
static int env_watts(const char *var, double *out)
{
  const char *e = getenv(var);
  char *end;
  double v;

  if (e == NULL || *e == '\0')
    return 0;
  v = strtod(e, &end);
  if (*end != '\0' || !(v >= 0 && v <= MAX_WATTS))
    return pmon__fail(PMON_ECONFIG, "%s=%s: not a power in watts", var, e);
  *out = v;
  return 0;
}

/* Where the value of KEY came from: the specification's KEY=, the
 * environment's VAR, or pmon's default. */
static const char *origin(const struct pmon_spec *spec, const char *key,
                          const char *var)
{
  const char *e = getenv(var);

  if (pmon__spec_get(spec, key) != NULL)
    return "the meter's specification";
  if (e != NULL && *e != '\0')
    return var;
  return "pmon's default, a two-socket server's";
}

static int est_defaults(const struct pmon_spec *spec, double *idle,
                        double *max)
{
  double di = DEFAULT_IDLE_W, dm = DEFAULT_MAX_W;
  int rc;

  /* The environment gives the defaults; the specification overrides. */
  if ((rc = env_watts(PMON_ENV_IDLE_W, &di)) != 0 ||
      (rc = env_watts(PMON_ENV_MAX_W, &dm)) != 0 ||
      (rc = pmon__spec_double(spec, "idle", di, 0, MAX_WATTS, idle)) != 0 ||
      (rc = pmon__spec_double(spec, "max", dm, 0, MAX_WATTS, max)) != 0)
    return rc;
  if (*max < *idle)
    return pmon__fail(PMON_ECONFIG,
                      "estimate: max=%g W is below idle=%g W", *max, *idle);
  return 0;
}

static int est_open(struct pmon_meter *m)
{
  static const char *const keys[] = {"idle", "max", "stat", NULL};
  struct est_priv *ep = m->priv;
  int rc;

  if ((rc = pmon__spec_check_keys(&m->spec, keys)) != 0 ||
      (rc = est_defaults(&m->spec, &ep->idle_w, &ep->max_w)) != 0)
    return rc;
  stat_path(&m->spec, ep->path, sizeof ep->path);
  ep->fd = open(ep->path, O_RDONLY | O_CLOEXEC);
  if (ep->fd < 0)
    return pmon__fail(PMON_ENOMETER, "estimate: %s: cannot open: %s",
                      ep->path, strerror(errno));
  pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1e-6, 0);
  {
    /* What the model assumed, where the report and pmon-meters show it. */
    const char *oi = origin(&m->spec, "idle", PMON_ENV_IDLE_W);
    const char *om = origin(&m->spec, "max", PMON_ENV_MAX_W);

    if (strcmp(oi, om) == 0)
      snprintf(m->note, sizeof m->note, "a model, not a meter: %g W idle "
               "to %g W busy (%s), linear in the CPU use of every process "
               "on the node, other users' included (%.60s)", ep->idle_w,
               ep->max_w, oi, ep->path);
    else
      snprintf(m->note, sizeof m->note, "a model, not a meter: %g W idle "
               "(%s) to %g W busy (%s), linear in the CPU use of every "
               "process on the node, other users' included (%.60s)",
               ep->idle_w, oi, ep->max_w, om, ep->path);
  }
  return 0;
}

static int est_probe(const struct pmon_spec *spec)
{
  char path[PATH_MAX];

  stat_path(spec, path, sizeof path);
  if (access(path, R_OK) != 0)
    return pmon__fail(PMON_ENOMETER, "estimate: %s: %s", path,
                      strerror(errno));
  return 0;
}

static int est_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct est_priv *ep = m->priv;
  unsigned long long busy, total;
  double t;
  int rc;

  if ((rc = read_stat(ep, &busy, &total)) != 0)
    return rc;
  t = now_s();
  if (ep->primed) {
    double dt = t - ep->t;

    if (total > ep->total && busy >= ep->busy)
      ep->util = (double)(busy - ep->busy) / (double)(total - ep->total);
    if (ep->util > 1)
      ep->util = 1;
    /* Within one clock tick the jiffies do not move: keep the last u. */
    ep->energy_j += (ep->idle_w + (ep->max_w - ep->idle_w) * ep->util) * dt;
  }
  ep->primed = 1;
  ep->t = t;
  ep->busy = busy;
  ep->total = total;
  r->raw[0] = (uint64_t)(ep->energy_j * 1e6 + 0.5);
  return 0;
}

static void est_close(struct pmon_meter *m)
{
  struct est_priv *ep = m->priv;

  close(ep->fd);
}

const struct pmon_driver pmon__driver_estimate = {
  .name = "estimate",
  .description = "node power estimated from CPU utilisation (a model)",
  .flags = PMON_DRV_COUNTER | PMON_DRV_ESTIMATED,
  .priv_size = sizeof(struct est_priv),
  .interval_s = 0.2,
  .probe = est_probe,
  .open = est_open,
  .read = est_read,
  .close = est_close,
};

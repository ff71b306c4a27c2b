/*
 * metrics.c - live figures for Prometheus (pmon-metrics(7)): with
 * PMON_METRICS_DIR, each node leader writes DIR/pmon-JOB-NODE.prom, the
 * node's figures in the text exposition format (base/expo.c), every
 * PMON_METRICS_INTERVAL seconds (10 by default), at SIGTERM, and at
 * finalize with pmon_job_running 0.  node_exporter's textfile collector
 * reads such a directory; each file is written whole into a new file
 * beside it and renamed over it, so that a scrape sees the previous
 * version or the next.
 *
 * The writing is done on the leader's writer thread (lib/spool.c), from
 * the same node record as the spool's, which that thread makes anyway:
 * nothing is added to the ranks' calls.  The ranks publish their regions
 * and I/O for that thread at the smaller of the spool's and the metrics'
 * intervals (pmon__g.pub_interval_s).
 *
 * Regions are bounded: at most PMON_METRICS_REGIONS (32) named series per
 * node, the rest summed as "(other)".  A region named once stays named
 * (the largest by energy are named first), so that every series, the
 * "(other)" one included, only grows, as a counter must.
 *
 * The final file stays for the site's clean-up, unless PMON_METRICS_KEEP
 * gives seconds: the leader then removes, at its start and at its end,
 * the files of ended jobs (pmon_job_running 0) of its own user in DIR
 * that are older than that; 0 removes this job's file at finalize.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "beside.h"
#include "core.h"
#include "env.h"
#include "expo.h"
#include "rtab.h"

#define METRICS_DEFAULT_S 10.0
#define METRICS_MIN_S 0.1
#define METRICS_MAX_S 86400.0
#define REGIONS_DEFAULT 32
#define REGIONS_MAX 10000

static struct {
  double interval_s; /* 0: no metrics */
  long regions;      /* named regions at most */
  double keep_s;     /* < 0: left for the site */
  char dir[PATH_MAX];
  char path[PATH_MAX];
  int on;            /* started, and the path is ours to write */
  int written;
  char **named;      /* the regions named so far */
  size_t nnamed;
  double last_e;     /* the node's energy and time at the last write */
  uint64_t last_ns;
} mt = {.keep_s = -1};

/* A number from VAR, within [LO, HI]; DEF when unset or empty. */
static int number(const char *var, double lo, double hi, double def,
                  double *out)
{
  const char *v = getenv(var);
  char *end;

  *out = def;
  if (v == NULL || *v == '\0')
    return 0;
  errno = 0;
  *out = strtod(v, &end);
  if (errno != 0 || end == v || *end != '\0' || !(*out >= lo && *out <= hi))
    return pmon__fail(PMON_ECONFIG, "%s=%s: not a number from %g to %g",
                      var, v, lo, hi);
  return 0;
}

int pmon__metrics_config(void)
{
  struct pmon_state *g = &pmon__g;
  const char *dir = getenv(PMON_ENV_METRICS_DIR);
  double regions, s = g->spool_interval_s;
  int rc;

  mt.interval_s = 0;
  mt.dir[0] = '\0';
  if (dir != NULL && *dir != '\0') {
    if (snprintf(mt.dir, sizeof mt.dir, "%s", dir) >= (int)sizeof mt.dir)
      return pmon__fail(PMON_ECONFIG, "%s: path too long",
                        PMON_ENV_METRICS_DIR);
    if ((rc = number(PMON_ENV_METRICS_INTERVAL, METRICS_MIN_S, METRICS_MAX_S,
                     METRICS_DEFAULT_S, &mt.interval_s)) != 0 ||
        (rc = number(PMON_ENV_METRICS_REGIONS, 0, REGIONS_MAX,
                     REGIONS_DEFAULT, &regions)) != 0 ||
        (rc = number(PMON_ENV_METRICS_KEEP, 0, METRICS_MAX_S, -1,
                     &mt.keep_s)) != 0)
      return rc;
    mt.regions = (long)regions;
  }
  /* The ranks publish for the spool and the metrics: at the shorter. */
  g->pub_interval_s = s > 0 && (mt.interval_s <= 0 || s < mt.interval_s)
                        ? s
                        : mt.interval_s;
  return 0;
}

double pmon__metrics_interval(void)
{
  return mt.on ? mt.interval_s : 0;
}

/* A name fit for a file: '/' and control characters as '_', and a
 * leading '.' too. */
static void clean(char *s)
{
  for (char *p = s; *p; p++)
    if (*p == '/' || (unsigned char)*p < 0x20 || (p == s && *p == '.'))
      *p = '_';
}

/* Whether the file NAME in DIRFD is an ended job's, ours, older than the
 * keeping time: removed then. */
static void sweep_one(int dirfd, const char *name, time_t now)
{
  struct stat st;
  char buf[4096];
  ssize_t n;
  int fd;

  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (double)(now - st.st_mtime) < mt.keep_s)
    return;
  if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
    return;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return;
  buf[n] = '\0';
  /* pmon_job_running comes first in the file (base/expo.c). */
  {
    char *p = strstr(buf, "\npmon_job_running{");

    if (p != NULL && (p = strchr(p, '}')) != NULL &&
        strncmp(p, "} 0\n", 4) == 0)
      unlinkat(dirfd, name, 0);
  }
}

/* The ended jobs' files older than PMON_METRICS_KEEP. */
static void sweep(void)
{
  DIR *d;
  struct dirent *e;
  time_t now = time(NULL);

  if (mt.keep_s < 0 || (d = opendir(mt.dir)) == NULL)
    return;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);

    if (strncmp(e->d_name, "pmon-", 5) == 0 && len > 5 &&
        strcmp(e->d_name + len - 5, ".prom") == 0)
      sweep_one(dirfd(d), e->d_name, now);
  }
  closedir(d);
}

/* What another user holds at the job's name (ST, from lstat(): a file,
 * a link, a FIFO) is told in an event and one line naming its owner.
 * Where the directory is sticky (mode 1777, as node_exporter's textfile
 * directory often is) and neither it nor the entry is this user's, the
 * job's file cannot be renamed over the entry: 0, the job goes on
 * without metrics.  Else 1: the first write replaces it. */
static int held(const struct stat *st)
{
  struct stat d;
  int stuck = geteuid() != 0 && stat(mt.dir, &d) == 0 &&
              (d.st_mode & S_ISVTX) && d.st_uid != geteuid();
  const char *what = S_ISLNK(st->st_mode)   ? "a symbolic link"
                     : S_ISREG(st->st_mode) ? "a file"
                                            : "not a file";

  pmon__event(pmon__now_ns(), -1, "metrics_error",
              "%s: %s of uid %u's holds the job's name: %s", mt.path, what,
              (unsigned)st->st_uid,
              stuck ? "the job goes on without metrics (the directory is "
                      "sticky)"
                    : "it is replaced");
  pmon__say("%s: %s: %s of uid %u's holds the job's name: %s; a directory "
            "only the job's user or group may write keeps its name "
            "(pmon-metrics(7))", PMON_ENV_METRICS_DIR, mt.path, what,
            (unsigned)st->st_uid,
            stuck ? "the job goes on without metrics" : "it is replaced");
  return !stuck;
}

void pmon__metrics_start(void)
{
  struct pmon_state *g = &pmon__g;
  char job[200], node[300];
  const char *why = NULL;
  struct stat st;

  if (!g->leader || mt.interval_s <= 0)
    return;
  snprintf(job, sizeof job, "%.199s", g->jobid);
  snprintf(node, sizeof node, "%.299s", *g->node_name ? g->node_name : "node");
  clean(job);
  clean(node);
  if (stat(mt.dir, &st) != 0)
    why = strerror(errno);
  else if (!S_ISDIR(st.st_mode))
    why = "not a directory";
  if (why != NULL) {
    pmon__event(pmon__now_ns(), -1, "metrics_error",
                "%s=%s: %s: the job goes on without metrics",
                PMON_ENV_METRICS_DIR, mt.dir, why);
    return;
  }
  if ((size_t)snprintf(mt.path, sizeof mt.path, "%s/pmon-%s-%s.prom", mt.dir,
                       job, node) >= sizeof mt.path) {
    pmon__event(pmon__now_ns(), -1, "metrics_error",
                "%s: path too long: the job goes on without metrics", mt.dir);
    return;
  }
  if (lstat(mt.path, &st) == 0 && st.st_uid != geteuid() && !held(&st))
    return;
  sweep();
  mt.on = 1;
  mt.last_ns = 0;
}

/* Whether NAME is among the named regions. */
static int named(const char *name)
{
  for (size_t i = 0; i < mt.nnamed; i++)
    if (strcmp(mt.named[i], name) == 0)
      return 1;
  return 0;
}

/* Largest energy first, unknown last. */
static int by_energy(const void *a, const void *b)
{
  double x = (*(struct pmon_rrec *const *)a)->energy_j;
  double y = (*(struct pmon_rrec *const *)b)->energy_j;

  if (isnan(x) || isnan(y))
    return isnan(x) - isnan(y);
  return x > y ? -1 : x < y;
}

/* The node's regions from TAB, bounded (the top comment), into R (room
 * for mt.regions + 1); their count. */
static size_t regions(const struct pmon_rtab *tab, struct pmon_expo_region *r)
{
  struct pmon_rrec **sorted = tab != NULL ? pmon__rtab_sorted(tab) : NULL;
  struct pmon_expo_region other = {PMON_EXPO_OTHER, 0, 0};
  size_t n = 0, rest = 0;

  if (sorted == NULL)
    return 0;
  /* Name the largest not yet named while there is room; the series
   * then go in order of first use. */
  if (mt.nnamed < (size_t)mt.regions)
    qsort(sorted, tab->n, sizeof *sorted, by_energy);
  for (size_t i = 0; i < tab->n && mt.nnamed < (size_t)mt.regions; i++) {
    char **more, *copy;

    /* "(other)" is the series of the rest: a region of that name is
     * counted there, not given a second series of the same labels. */
    if (named(sorted[i]->name) ||
        strcmp(sorted[i]->name, PMON_EXPO_OTHER) == 0)
      continue;
    if ((more = realloc(mt.named, (mt.nnamed + 1) * sizeof *more)) == NULL)
      break;
    mt.named = more;
    if ((copy = strdup(sorted[i]->name)) == NULL)
      break;
    mt.named[mt.nnamed++] = copy;
  }
  free(sorted);
  if ((sorted = pmon__rtab_sorted(tab)) == NULL)
    return 0;
  for (size_t i = 0; i < tab->n; i++) {
    const struct pmon_rrec *x = sorted[i];

    if (named(x->name) && n < (size_t)mt.regions) {
      r[n++] = (struct pmon_expo_region){x->name, x->energy_j, x->time_s};
      continue;
    }
    rest++;
    if (!isnan(x->energy_j))
      other.energy_j += x->energy_j;
    other.seconds += x->time_s;
  }
  free(sorted);
  /* Once a region has been left out, "(other)" stays, at 0 or more. */
  if (rest > 0 || mt.nnamed >= (size_t)mt.regions)
    r[n++] = other;
  return n;
}

static double num(json_t *o, const char *key)
{
  json_t *v = json_object_get(o, key);

  return json_is_number(v) ? json_number_value(v) : NAN;
}

int pmon__metrics_write(const json_t *rec, const struct pmon_rtab *tab,
                        int running)
{
  struct pmon_state *g = &pmon__g;
  json_t *r = (json_t *)rec, *io, *comm, *cov;
  struct pmon_expo_node n = {0};
  struct pmon_expo_region *reg;
  struct pmon_expo_meter *met = NULL;
  char tmp[PATH_MAX + 16], *text = NULL;
  size_t len = 0;
  uint64_t t;
  FILE *f;
  int fd, ok;
  double whole = 1; /* what undoes a shared node's share */

  if (!mt.on || rec == NULL)
    return -1;
  if ((reg = calloc((size_t)mt.regions + 1, sizeof *reg)) == NULL)
    return -1;
  n.job = g->jobid;
  n.node = g->node_name;
  n.covers = json_string_value(json_object_get(r, "covers"));
  n.running = running;
  n.estimated = json_is_true(json_object_get(r, "estimated"));
  n.energy_j = num(r, "energy_j");
  n.energy_err_j = num(r, "energy_err_j");
  /* The metrics are what the node's meters saw, as they were while it
   * ran: a shared node's final record, the job's share of it (pmon(7),
   * Shared nodes), is taken back to the node's, so that the counters
   * never fall at the end. */
  if (json_is_number(json_object_get(r, "node_energy_j"))) {
    double s = num(r, "share");

    n.energy_j = num(r, "node_energy_j");
    n.energy_err_j = num(r, "node_energy_err_j");
    whole = s > 0 ? 1 / s : 1;
  }
  /* The power over the last interval: from the last write, or from the
   * start at the first. */
  t = (uint64_t)json_integer_value(
    json_array_get(json_object_get(r, "monotonic_ns"), 1));
  n.power_w = num(r, "power_w") * whole;
  if (mt.last_ns > 0 && t > mt.last_ns && !isnan(n.energy_j) &&
      !isnan(mt.last_e))
    n.power_w = (n.energy_j - mt.last_e) / ((double)(t - mt.last_ns) * 1e-9);
  io = json_object_get(r, "io");
  n.io_read_bytes = num(io, "bytes_read");
  n.io_written_bytes = num(io, "bytes_written");
  n.io_energy_j = num(io, "energy_j") * whole;
  /* The node's bytes so far while it runs, from its ranks' rows. */
  comm = json_object_get(r, "comm");
  n.comm_bytes = num(comm, "bytes");
  if (isnan(n.comm_bytes))
    n.comm_bytes = num(json_object_get(r, "comm_so_far"), "bytes");
  cov = json_object_get(r, "coverage");
  if (json_array_size(cov) > 0 &&
      (met = calloc(json_array_size(cov), sizeof *met)) != NULL) {
    for (size_t i = 0; i < json_array_size(cov); i++) {
      json_t *c = json_array_get(cov, i);
      const char *name = json_string_value(json_object_get(c, "meter"));

      if (name == NULL)
        continue;
      met[n.nmeters].name = name;
      met[n.nmeters++].stale = json_is_number(json_object_get(c, "stale_at_s"));
    }
  }
  n.meters = met;
  n.regions = reg;
  n.nregions = regions(tab, reg);
  for (size_t i = 0; i < n.nregions; i++)
    reg[i].energy_j *= whole;

  /* Made in memory, then written whole beside the file and renamed. */
  f = open_memstream(&text, &len);
  ok = f != NULL && pmon__expo_write(f, &n, 1) == 0;
  ok = f != NULL && fclose(f) == 0 && ok;
  free(reg);
  free(met);
  if (ok && (fd = pmon__create_beside(mt.path, 0644, tmp, sizeof tmp)) >= 0) {
    /* node_exporter runs as its own user: the file is for all to read,
     * whatever the umask (it holds what the report holds), and never
     * writable by another, from its making on. */
    ok = fchmod(fd, 0644) == 0 && pmon__write_all(fd, text, len) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, mt.path) != 0) {
      unlink(tmp);
      ok = 0;
    }
  } else
    ok = 0;
  free(text);
  if (!ok)
    return -1;
  mt.written = 1;
  mt.last_e = n.energy_j;
  mt.last_ns = t;
  return 0;
}

void pmon__metrics_done(int discard)
{
  if (mt.on) {
    if ((discard || mt.keep_s == 0) && mt.written)
      unlink(mt.path);
    sweep();
  }
  for (size_t i = 0; i < mt.nnamed; i++)
    free(mt.named[i]);
  free(mt.named);
  mt.named = NULL;
  mt.nnamed = 0;
  mt.on = mt.written = 0;
}

/*
 * pm_counters.c - Cray XC and HPE Cray EX node power counters.
 *
 * Hardware: the /sys/cray/pm_counters files that the node controller
 * publishes about ten times a second (XC30, XC40, EX).  Written against the
 * published formats and test data, see research notes section 1; it runs
 * against fixture trees in tests.
 *
 * Units: energy files are whole joules, "598732067 J" (XC) or
 * "100 J 1734094386462336 us" (EX, with a time stamp in microseconds),
 * possibly padded with NULs.  Counters are 64-bit and do not wrap; they
 * restart from zero when the controller restarts, which the `startup` file
 * announces by changing.  `generation` changes when a power cap changes.
 *
 * Reads are consistent: `freshness` is read before and after the energy
 * files and the read is retried, up to TRIES times, until both agree.  The
 * files are read five times per publication period and a reading whose
 * freshness has not moved is marked stale, so each new value is stamped
 * half-way between the reading that first saw it and the one before
 * (lib/meter.c): at most a tenth of the period off.
 * A controller that stops publishing (freshness, or without it every
 * counter, standing still for ten publication periods) is frozen for the
 * core: that time is not counted.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmon.h"
#include "driver.h"
#include "log.h"

#define DEFAULT_DIR "/cray/pm_counters" /* below the sysfs root */
#define TRIES 10                        /* consistent-read attempts */
#define BUF_SIZE 128                    /* the files hold < 64 bytes */
#define STALE_PERIODS 10 /* publications missed before the core calls the
                            controller frozen (m->stale_s) */
#define STALE_MIN_S 1.0  /* ... and at least this long without freshness */

/* The energy files, in channel order: file, channel, domain, flags. */
static const struct {
  const char *file;
  const char *channel;
  enum pmon_domain domain;
  unsigned flags;
  int required;
} energy_files[] = {
  {"energy", "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1},
  {"cpu_energy", "cpu", PMON_DOM_CPU, 0, 0},
  {"memory_energy", "memory", PMON_DOM_MEMORY, 0, 0},
  {"accel_energy", "accel", PMON_DOM_ACCEL, 0, 0},
  {"accel0_energy", "accel0", PMON_DOM_ACCEL, 0, 0},
  {"accel1_energy", "accel1", PMON_DOM_ACCEL, 0, 0},
  {"accel2_energy", "accel2", PMON_DOM_ACCEL, 0, 0},
  {"accel3_energy", "accel3", PMON_DOM_ACCEL, 0, 0},
};
#define NFILES (sizeof energy_files / sizeof energy_files[0])

typedef ssize_t pread_fn(int fd, void *buf, size_t len, off_t off);

struct pm_priv {
  char dir[PATH_MAX];
  int fd[NFILES];    /* by channel index */
  const char *file[NFILES];
  int fd_freshness;  /* -1 when absent */
  int fd_startup;
  int fd_generation;
  int fd_power_cap;
  uint64_t startup;
  uint64_t generation;
  uint64_t freshness; /* of the previous consistent reading */
  int primed;
  unsigned long torn; /* reads that needed a retry */
  pread_fn *pread;    /* pread(2); a seam for tests */
};

/*
 * Parse one counter file: a decimal integer, then " UNIT" when UNIT is not
 * NULL, then optionally " <integer> us", then an optional newline, then
 * nothing but NULs.  0 and *OUT set, or PMON_EFORMAT.
 */
static int parse_counter(const char *buf, size_t len, const char *unit,
                         uint64_t *out)
{
  const char *p = buf, *end = buf + len;
  uint64_t v = 0;

  while (end > p && end[-1] == '\0')
    end--;
  if (p == end || *p < '0' || *p > '9')
    return PMON_EFORMAT;
  for (; p < end && *p >= '0' && *p <= '9'; p++) {
    unsigned d = (unsigned)(*p - '0');

    if (v > (UINT64_MAX - d) / 10)
      return PMON_EFORMAT;
    v = v * 10 + d;
  }
  if (unit != NULL) {
    size_t ulen = strlen(unit);

    if (end - p < (ptrdiff_t)(ulen + 1) || *p != ' ' ||
        memcmp(p + 1, unit, ulen) != 0)
      return PMON_EFORMAT;
    p += ulen + 1;
  }
  if (p < end && *p == ' ') { /* EX: " <integer> us" */
    const char *q = ++p;

    while (p < end && *p >= '0' && *p <= '9')
      p++;
    if (p == q || end - p < 3 || memcmp(p, " us", 3) != 0)
      return PMON_EFORMAT;
    p += 3;
  }
  if (p < end && *p == '\n')
    p++;
  if (p != end)
    return PMON_EFORMAT;
  *out = v;
  return 0;
}

static int read_file(struct pm_priv *pp, int fd, const char *file,
                     const char *unit, uint64_t *out)
{
  char buf[BUF_SIZE];
  ssize_t n;

  do
    n = pp->pread(fd, buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return pmon__fail(PMON_EIO, "pm_counters: %s/%s: read: %s", pp->dir, file,
                      strerror(errno));
  buf[n] = '\0';
  if (parse_counter(buf, (size_t)n, unit, out) != 0) {
    buf[strcspn(buf, "\n")] = '\0';
    return pmon__fail(PMON_EFORMAT,
                      "pm_counters: %s/%s: malformed content \"%.40s\": "
                      "expected \"<integer>%s%s\"",
                      pp->dir, file, buf, unit != NULL ? " " : "",
                      unit != NULL ? unit : "");
  }
  return 0;
}

static int open_file(const char *dir, const char *file)
{
  char path[PATH_MAX + 32];

  snprintf(path, sizeof path, "%s/%s", dir, file);
  return open(path, O_RDONLY | O_CLOEXEC);
}

static void dir_of(const struct pmon_spec *spec, char *dir, size_t size)
{
  if (spec->path[0] != '\0')
    snprintf(dir, size, "%s", spec->path);
  else
    snprintf(dir, size, "%s%s", pmon__sysfs_root(), DEFAULT_DIR);
}

static int pm_probe(const struct pmon_spec *spec)
{
  char dir[PATH_MAX];
  struct pm_priv pp = {.pread = pread};
  uint64_t v;
  int fd, rc;

  dir_of(spec, dir, sizeof dir);
  snprintf(pp.dir, sizeof pp.dir, "%s", dir);
  fd = open_file(dir, "energy");
  if (fd < 0)
    return pmon__fail(PMON_ENOMETER, "pm_counters: %s/energy: %s", dir,
                      strerror(errno));
  rc = read_file(&pp, fd, "energy", "J", &v);
  close(fd);
  return rc;
}

static void pm_close(struct pmon_meter *m)
{
  struct pm_priv *pp = m->priv;
  int *fds[] = {&pp->fd_freshness, &pp->fd_startup, &pp->fd_generation,
                &pp->fd_power_cap};

  for (int i = 0; i < m->nch; i++)
    if (pp->fd[i] >= 0)
      close(pp->fd[i]);
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
    if (*fds[i] >= 0)
      close(*fds[i]);
}

/* Read an optional control file into *OUT; 0 leaves *OUT when absent. */
static int read_control(struct pm_priv *pp, int fd, const char *file,
                        uint64_t *out)
{
  return fd < 0 ? 0 : read_file(pp, fd, file, NULL, out);
}

static int pm_open(struct pmon_meter *m)
{
  static const char *const keys[] = {NULL};
  struct pm_priv *pp = m->priv;
  uint64_t hz = 0, v;
  int rc;

  if ((rc = pmon__spec_check_keys(&m->spec, keys)) != 0)
    return rc;
  pp->pread = pread;
  pp->fd_freshness = pp->fd_startup = pp->fd_generation = -1;
  pp->fd_power_cap = -1;
  dir_of(&m->spec, pp->dir, sizeof pp->dir);
  for (size_t i = 0; i < NFILES; i++) {
    int fd = open_file(pp->dir, energy_files[i].file);

    if (fd < 0) {
      if (energy_files[i].required || errno != ENOENT) {
        int e = errno;

        for (int k = 0; k < m->nch; k++)
          close(pp->fd[k]);
        return pmon__fail(e == ENOENT ? PMON_ENOMETER : PMON_EIO,
                          "pm_counters: %s/%s: cannot open: %s", pp->dir,
                          energy_files[i].file, strerror(e));
      }
      continue;
    }
    int c = pmon__meter_add_channel(m, energy_files[i].channel,
                                    energy_files[i].domain,
                                    energy_files[i].flags, 1.0, 0);
    pp->fd[c] = fd;
    pp->file[c] = energy_files[i].file;
  }
  pp->fd_freshness = open_file(pp->dir, "freshness");
  pp->fd_startup = open_file(pp->dir, "startup");
  pp->fd_generation = open_file(pp->dir, "generation");
  pp->fd_power_cap = open_file(pp->dir, "power_cap");
  rc = read_control(pp, pp->fd_startup, "startup", &pp->startup);
  if (rc == 0)
    rc = read_control(pp, pp->fd_generation, "generation", &pp->generation);
  if (rc == 0) {
    int fd = open_file(pp->dir, "raw_scan_hz");

    if (fd >= 0) {
      rc = read_file(pp, fd, "raw_scan_hz", NULL, &hz);
      close(fd);
    }
  }
  /* Check that every energy file parses now rather than at the first
   * sample. */
  for (int i = 0; rc == 0 && i < m->nch; i++)
    rc = read_file(pp, pp->fd[i], pp->file[i], "J", &v);
  if (rc != 0) {
    pm_close(m);
    return rc;
  }
  /* Read five times per publication (default 10 Hz), so that a new value
   * is time-stamped within a tenth of the publication period.  The pace
   * is the core's only when the controller states it. */
  if (hz > 0 && hz <= 1000) {
    m->interval_s = 1.0 / (double)hz;
    m->pace_s = m->interval_s;
  }
  /* Frozen: ten publications missed.  With freshness that is all it
   * takes; without it, the counters are whole joules that a node moves
   * by tens at least each second, so they are given a second at least. */
  m->stale_s = STALE_PERIODS * m->interval_s;
  if (pp->fd_freshness < 0 && m->stale_s < STALE_MIN_S)
    m->stale_s = STALE_MIN_S;
  if (pp->fd_freshness >= 0)
    m->interval_s /= 5;
  return 0;
}

static int pm_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct pm_priv *pp = m->priv;
  uint64_t before = 0, after = 0, v;
  int rc, tries;

  for (tries = 0; tries < TRIES; tries++) {
    if ((rc = read_control(pp, pp->fd_freshness, "freshness", &before)) != 0)
      return rc;
    for (int i = 0; i < m->nch; i++)
      if ((rc = read_file(pp, pp->fd[i], pp->file[i], "J", &r->raw[i])) != 0)
        return rc;
    if ((rc = read_control(pp, pp->fd_freshness, "freshness", &after)) != 0)
      return rc;
    if (before == after)
      break;
    pp->torn++;
  }
  if (tries == TRIES)
    return pmon__fail(PMON_EAGAIN,
                      "pm_counters: %s/freshness: changed during %d reads in "
                      "a row",
                      pp->dir, TRIES);
  if (pp->fd_freshness >= 0) {
    r->stale = pp->primed && after == pp->freshness;
    pp->freshness = after;
    pp->primed = 1;
  }

  v = pp->startup;
  if ((rc = read_control(pp, pp->fd_startup, "startup", &v)) != 0)
    return rc;
  if (v != pp->startup) {
    r->events |= PMON_EV_RESET;
    snprintf(r->detail, sizeof r->detail,
             "startup %llu -> %llu: the node controller restarted and its "
             "counters were reset",
             (unsigned long long)pp->startup, (unsigned long long)v);
    pp->startup = v;
  }
  v = pp->generation;
  if ((rc = read_control(pp, pp->fd_generation, "generation", &v)) != 0)
    return rc;
  if (v != pp->generation) {
    uint64_t cap = 0;
    size_t n = strlen(r->detail);
    char what[48] = "power cap unknown";

    r->events |= PMON_EV_POWER_CAP;
    if (pp->fd_power_cap < 0)
      pp->fd_power_cap = open_file(pp->dir, "power_cap");
    if (pp->fd_power_cap >= 0 &&
        read_file(pp, pp->fd_power_cap, "power_cap", "W", &cap) == 0)
      snprintf(what, sizeof what, "power cap now %llu W%s",
               (unsigned long long)cap, cap == 0 ? " (none)" : "");
    snprintf(r->detail + n, sizeof r->detail - n,
             "%sgeneration %llu -> %llu: %s", n > 0 ? "; " : "",
             (unsigned long long)pp->generation, (unsigned long long)v,
             what);
    pp->generation = v;
  }
  return 0;
}

const struct pmon_driver pmon__driver_pm_counters = {
  .name = "pm_counters",
  .description = "Cray XC / HPE Cray EX node energy counters (pm_counters)",
  .flags = PMON_DRV_COUNTER,
  .priv_size = sizeof(struct pm_priv),
  .interval_s = 0.1,
  .probe = pm_probe,
  .open = pm_open,
  .read = pm_read,
  .close = pm_close,
};

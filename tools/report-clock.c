/*
 * report-clock.c - the advice "io-clock" of pmon-report advise: a lower
 * CPU clock during the I/O phases (PMON_IO_FREQ), predicted from the
 * node's clock calibration (pmon-meters --calibrate-clock), and checked
 * on a later run (pmon-report(1), ADVISE).
 *
 * The prediction, for each node with I/O phases (their time T, energy E,
 * and the node's CPU use in them u, from its timeline):
 *
 *   P(f) = (1 - u) W(f) + u C(f)
 *
 * W and C being the calibration's waiting and computing power at limit f
 * (straight lines between its points), f0 the limit the phases ran under
 * (PMON_IO_FREQ's when the run had one, else the calibration's
 * limit_found_mhz, the limit jobs run under) and L a lower point.  The
 * phases' waits are assumed not to depend on the clock; what the CPUs do
 * in them (u T) takes f0/L... as long, by the calibration's speed:
 *
 *   dt = u T (s(f0) / s(L) - 1),  saving = T (P(f0) - P(L)) - dt P(L)
 *
 * Its bar: T times the calibration's bars at f0 and L, added (they are
 * the same meter's), and, where u is unknown, W and C mixed half and half
 * with half their difference added.  The nodes' savings and bars add up;
 * the time is the longest node's.  L is the point that saves most, and
 * only a saving larger than its bar makes an item.
 *
 * The check: applied when the later run's PMON_IO_FREQ is L; realized is
 * the earlier run's I/O energy less the later one's for the same bytes,
 * with both bars added; held when it is within both bars of the
 * prediction.  A miss says whether the phases' time per byte grew (the
 * assumption of waits that do not depend on the clock failed) or the
 * power in them was not the calibration's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "report.h"

#define CAL_MAX (1 << 20) /* bytes a calibration may hold */

#define complain(status, ...) \
  report_say(status, "pmon-report: advise", __VA_ARGS__)

/* The points of C around F MHz into *LO and *HI: the nearest at or below
 * it and at or above it (one of them alone beyond the points). */
static void around(const struct report_clockcal *c, double f,
                   const struct report_clockpoint **lo,
                   const struct report_clockpoint **hi)
{
  *lo = *hi = NULL;
  for (size_t i = 0; i < c->n; i++) {
    const struct report_clockpoint *p = &c->pt[i];

    if (p->mhz <= f && (*lo == NULL || p->mhz > (*lo)->mhz))
      *lo = p;
    if (p->mhz >= f && (*hi == NULL || p->mhz < (*hi)->mhz))
      *hi = p;
  }
}

/* The share of the way from LO to HI that F MHz lies at (0 when one). */
static double part(const struct report_clockpoint *lo,
                   const struct report_clockpoint *hi, double f)
{
  return hi->mhz > lo->mhz ? (f - lo->mhz) / (hi->mhz - lo->mhz) : 0;
}

/* A probe's power and bar at F MHz, on the line between the points
 * around it (the nearest point beyond them): COMPUTE or waiting. */
static void at(const struct report_clockcal *c, double f, int compute,
               double *w, double *err)
{
  const struct report_clockpoint *lo, *hi;
  double a;

  around(c, f, &lo, &hi);
  if (lo == NULL)
    lo = hi;
  if (hi == NULL)
    hi = lo;
  a = part(lo, hi, f);
  if (compute) {
    *w = lo->compute_w + a * (hi->compute_w - lo->compute_w);
    *err = lo->compute_err_w + a * (hi->compute_err_w - lo->compute_err_w);
  } else {
    *w = lo->wait_w + a * (hi->wait_w - lo->wait_w);
    *err = lo->wait_err_w + a * (hi->wait_err_w - lo->wait_err_w);
  }
}

/* The computing threads' speed at F MHz, NAN beyond the points. */
static double speed_at(const struct report_clockcal *c, double f)
{
  const struct report_clockpoint *lo, *hi;

  around(c, f, &lo, &hi);
  if (lo == NULL || hi == NULL)
    return NAN;
  return lo->speed + part(lo, hi, f) * (hi->speed - lo->speed);
}

/* Node N's CPU use in its I/O phases, 0 to 1, from its timeline: the
 * slices' cpu_util weighted by their time inside the phases; NAN when
 * unknown. */
static double io_cpu_use(const struct node *n)
{
  const struct timeline *t = &n->tl;
  double sum = 0, w = 0;

  if (!t->present || !isfinite(t->step_s))
    return NAN;
  for (size_t i = 0; i < t->n; i++) {
    double a = isfinite(t->t_s[i]) ? t->t_s[i] : (double)i * t->step_s;
    double b = a + t->step_s;

    for (size_t k = 0; k < t->nphases; k++) {
      double lo = fmax(a, t->phases[k].start_s);
      double hi = fmin(b, t->phases[k].end_s);

      if (hi > lo) {
        if (!isfinite(t->cpu_util[i]))
          return NAN;
        sum += t->cpu_util[i] * (hi - lo);
        w += hi - lo;
      }
    }
  }
  return w > 0 ? sum / w : NAN;
}

/* The run's limit during its phases: PMON_IO_FREQ's, or the limit found
 * at calibration. */
static double base_mhz(const struct report *r, const struct report_clockcal *c)
{
  return isfinite(r->io.freq_policy.requested_mhz)
           ? r->io.freq_policy.requested_mhz
           : c->found_mhz;
}

/* The saving of limit L in R: *SAVE, *ERR, the time *DT; the CPU use of
 * the nodes (-1: unknown on some) into *U, the phases' time into *T. */
static int saving_at(const struct report *r, const struct report_clockcal *c,
                     double l, double *save, double *err, double *dt,
                     double *u_min, double *t_all)
{
  double f0 = base_mhz(r, c), s0 = speed_at(c, f0), sl = speed_at(c, l);
  int any = 0;

  *save = *err = *dt = *t_all = 0;
  *u_min = 1;
  for (size_t i = 0; i < r->nnodes; i++) {
    const struct node *n = &r->nodes[i];
    double t = n->io.phase_time_s, u = io_cpu_use(n);
    double w0, we0, c0, ce0, wl, wel, cl, cel, dp, e, pl, x;

    if (!(t > 0) || !isfinite(n->io.energy_j))
      continue;
    at(c, f0, 0, &w0, &we0);
    at(c, f0, 1, &c0, &ce0);
    at(c, l, 0, &wl, &wel);
    at(c, l, 1, &cl, &cel);
    if (isfinite(u)) {
      dp = (1 - u) * (w0 - wl) + u * (c0 - cl);
      e = (1 - u) * (we0 + wel) + u * (ce0 + cel);
      pl = (1 - u) * wl + u * cl;
      *u_min = fmin(*u_min, u);
    } else {
      dp = ((w0 - wl) + (c0 - cl)) / 2;
      e = (we0 + wel + ce0 + cel) / 2 + fabs((w0 - wl) - (c0 - cl)) / 2;
      pl = (wl + cl) / 2;
      u = 1; /* the time: as if the CPUs computed all along */
      *u_min = -1;
    }
    x = isfinite(s0) && isfinite(sl) && sl > 0 ? u * t * (s0 / sl - 1) : 0;
    *save += t * dp - x * pl;
    *err += t * e;
    *dt = fmax(*dt, x);
    *t_all += t;
    any = 1;
  }
  return any && isfinite(*save) && isfinite(*err) ? 0 : -1;
}

int report_clock_item(const struct report *r,
                      const struct report_clockcal *c, const char *est,
                      struct report_advice *it)
{
  double f0, best = NAN, save = 0, err = 0, dt = 0, u = 0, t = 0;

  if (c == NULL || !r->has_io)
    return -1;
  f0 = base_mhz(r, c);
  for (size_t i = 0; i < c->n; i++) {
    double s, e, d, uu, tt;

    if (!(c->pt[i].mhz < f0 - 0.5) ||
        saving_at(r, c, c->pt[i].mhz, &s, &e, &d, &uu, &tt) != 0)
      continue;
    if (isnan(best) || s > save) {
      best = c->pt[i].mhz;
      save = s, err = e, dt = d, u = uu, t = tt;
    }
  }
  if (isnan(best) || !(save > err))
    return -1;
  memset(it, 0, sizeof *it);
  it->kind = "io-clock";
  it->saving_j = save;
  it->saving_err_j = err;
  it->time_change_s = dt;
  it->time_change_err_s = NAN;
  it->big_min = best; /* the limit, for the check */
  snprintf(it->key, sizeof it->key, "PMON_IO_FREQ");
  snprintf(it->what, sizeof it->what,
           "%.3g s of I/O phases (summed over the nodes) ran at a limit of "
           "%.0f MHz, %.4g J", t, f0,
           isfinite(r->io.energy_j) ? r->io.energy_j : NAN);
  snprintf(it->setting, sizeof it->setting, "PMON_IO_FREQ=%.0f", best);
  snprintf(it->assumes, sizeof it->assumes,
           "the phases' waits take as long at %.0f MHz; the node's power "
           "there is the calibration's (%s, node %s, %s), waiting and "
           "computing mixed by the CPU use in the phases (%s); the phases "
           "ran under %.0f MHz (%s)%s",
           best, c->path, c->node ? c->node : "-", c->date ? c->date : "-",
           u < 0 ? "unknown: half and half, the difference in the bar"
                 : "from the timeline",
           f0,
           isfinite(r->io.freq_policy.requested_mhz)
             ? "PMON_IO_FREQ"
             : "the limit found at calibration",
           est);
  return 0;
}

/* The I/O bytes of R, and its I/O energy, bar and phases' time. */
static void io_of(const struct report *r, double *bytes, double *e,
                  double *err, double *t)
{
  *bytes = r->io.bytes_read + r->io.bytes_written;
  *e = r->io.energy_j;
  *err = r->io.energy_err_j;
  *t = r->io.phase_time_s;
}

void report_clock_check(const struct report *before,
                        const struct report *after,
                        const struct report_advice *it, int *applied,
                        int *held, double *realized, double *realized_err,
                        char *why, size_t size)
{
  double bb, eb, errb, tb, ba, ea, erra, ta, k;

  *applied = *held = 0;
  *realized = *realized_err = NAN;
  io_of(before, &bb, &eb, &errb, &tb);
  io_of(after, &ba, &ea, &erra, &ta);
  if (!after->has_io || !(ba > 0) || !isfinite(ea)) {
    snprintf(why, size, "the later report has no I/O energy");
    return;
  }
  *applied = fabs(after->io.freq_policy.requested_mhz - it->big_min) < 0.5;
  if (!*applied) {
    snprintf(why, size, "the later run's PMON_IO_FREQ: %s",
             isfinite(after->io.freq_policy.requested_mhz) ? "another limit"
                                                           : "not set");
    return;
  }
  k = bb / ba; /* the later run's figures for the earlier run's bytes */
  *realized = eb - ea * k;
  *realized_err = errb + erra * k;
  *held = fabs(*realized - it->saving_j) <= it->saving_err_j + *realized_err;
  if (*held)
    snprintf(why, size, "PMON_IO_FREQ=%.0f: the I/O phases took %.3g s "
             "after, %.3g s before, for the same bytes", it->big_min,
             ta * k, tb);
  else if (ta * k > 1.1 * tb)
    snprintf(why, size, "missed by %.3g J beyond both bars: the I/O phases "
             "took %.3g s after, %.3g s before, for the same bytes: the "
             "assumption that their waits take as long at %.0f MHz failed",
             fabs(*realized - it->saving_j) - it->saving_err_j -
               *realized_err,
             ta * k, tb, it->big_min);
  else
    snprintf(why, size, "missed by %.3g J beyond both bars: the node drew "
             "%.4g W in the I/O phases after, %.4g W before: the "
             "calibration's power at %.0f MHz does not hold for this job",
             fabs(*realized - it->saving_j) - it->saving_err_j -
               *realized_err,
             ta > 0 ? ea / ta : NAN, tb > 0 ? eb / tb : NAN, it->big_min);
}

/* ---- The calibration file --------------------------------------------- */

static int bad(const char *path, const char *what)
{
  return complain(-1, "%s: %s", path, what);
}

static int number(json_t *o, const char *key, double *v)
{
  json_t *x = json_object_get(o, key);

  if (json_is_null(x)) {
    *v = NAN;
    return 0;
  }
  if (!json_is_number(x))
    return -1;
  *v = json_number_value(x);
  return 0;
}

/* The text of the calibration at PATH, opened so that nothing planted
 * there is followed (O_NOFOLLOW), blocks (O_NONBLOCK) or is believed (a
 * regular file of root's or the caller's, not writable by group or
 * others, of at most CAL_MAX bytes), into *TEXT (*LEN bytes, freed by the
 * caller).  0, or -1 after one line that quotes nothing of the file. */
static int read_safe(const char *path, char **text, size_t *len)
{
  struct stat st;
  ssize_t got = 0;
  size_t n = 0;
  char *buf;
  int fd;

  fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return complain(-1, "%s: %s", path,
                    errno == ELOOP ? "a symbolic link: refused"
                                   : strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return complain(-1, "%s: not a regular file: refused", path);
  }
  if (st.st_uid != 0 && st.st_uid != geteuid()) {
    close(fd);
    return complain(-1, "%s: uid %u's, not root's or this user's: not "
                    "believed", path, (unsigned)st.st_uid);
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    close(fd);
    return complain(-1, "%s: writable by others (mode %04o): not believed",
                    path, (unsigned)(st.st_mode & 07777));
  }
  if (st.st_size > CAL_MAX) {
    close(fd);
    return complain(-1, "%s: %lld bytes, more than a calibration's %d: "
                    "refused", path, (long long)st.st_size, CAL_MAX);
  }
  buf = report_xcalloc(CAL_MAX + 1, 1);
  while (n < CAL_MAX && (got = read(fd, buf + n, CAL_MAX - n)) > 0)
    n += (size_t)got;
  close(fd);
  if (got < 0) {
    free(buf);
    return complain(-1, "%s: cannot read: %s", path, strerror(errno));
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return 0;
}

int report_clockcal_load(const char *path, struct report_clockcal *c)
{
  json_error_t e;
  json_t *pts;
  const char *fmt;
  char *text = NULL;
  size_t len = 0;

  memset(c, 0, sizeof *c);
  if (read_safe(path, &text, &len) != 0)
    return -1;
  c->path = strcpy(report_xcalloc(strlen(path) + 1, 1), path);
  c->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  explicit_bzero(text, len); /* another's file: nothing of it kept */
  free(text);
  /* Where, never what: the text may be anything, a secret included. */
  if (c->root == NULL)
    return complain(-1, "%s: not a clock calibration: not JSON (line %d, "
                    "column %d)", path, e.line, e.column);
  fmt = json_string_value(json_object_get(c->root, "format"));
  if (fmt == NULL || strcmp(fmt, "pmon-clock-calibration") != 0 ||
      json_integer_value(json_object_get(c->root, "version")) != 1) {
    report_clockcal_free(c);
    return bad(path, "not a clock calibration of version 1 (format "
                     "pmon-clock-calibration, pmon-meters --calibrate-clock)");
  }
  c->node = json_string_value(json_object_get(c->root, "node"));
  c->date = json_string_value(json_object_get(c->root, "date"));
  pts = json_object_get(c->root, "points");
  if (number(c->root, "limit_found_mhz", &c->found_mhz) != 0 ||
      !(c->found_mhz > 0) || !json_is_array(pts) ||
      json_array_size(pts) < 2 ||
      json_array_size(pts) > sizeof c->pt / sizeof c->pt[0]) {
    report_clockcal_free(c);
    return bad(path, "limit_found_mhz and 2 to 16 points are needed");
  }
  for (size_t i = 0; i < json_array_size(pts); i++) {
    json_t *p = json_array_get(pts, i);
    struct report_clockpoint *q = &c->pt[c->n];

    if (!json_is_object(p) || number(p, "limit_mhz", &q->mhz) != 0 ||
        number(p, "wait_w", &q->wait_w) != 0 ||
        number(p, "wait_err_w", &q->wait_err_w) != 0 ||
        number(p, "compute_w", &q->compute_w) != 0 ||
        number(p, "compute_err_w", &q->compute_err_w) != 0 ||
        number(p, "speed", &q->speed) != 0 || !(q->mhz > 0) ||
        !isfinite(q->wait_w) || !isfinite(q->compute_w) ||
        !(q->wait_err_w >= 0) || !(q->compute_err_w >= 0)) {
      char what[96];

      snprintf(what, sizeof what, "points[%zu]: limit_mhz, the powers and "
               "their bars must be numbers", i);
      report_clockcal_free(c);
      return bad(path, what);
    }
    c->n++;
  }
  return 0;
}

void report_clockcal_free(struct report_clockcal *c)
{
  json_decref(c->root);
  free((char *)c->path);
  c->path = NULL;
  c->root = NULL;
  c->n = 0;
}

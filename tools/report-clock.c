/*
 * report-clock.c - the advice "io-clock" of pmon-report advise: a lower
 * CPU clock during the I/O phases (PMON_IO_FREQ), predicted from the
 * node's clock calibration (pmon-meters --calibrate-clock), and checked
 * on a later run (pmon-report(1), ADVISE).
 *
 * The prediction is of what the policy does: it caps the CPUs the job's
 * ranks run on, k of the node's N (capped_cpus()), each I/O phase whole.
 * For each node with I/O phases (their time T, energy E, and the node's
 * CPU use in them u, from its timeline; m = u N / k, at most 1, the use
 * of the k CPUs that the calibration's compute probe ran on alone):
 *
 *   P(f) = (1 - m) W(f, k) + m C(f, k)
 *
 * W and C being the calibration's waiting and computing power at limit f
 * with k CPUs capped: at each point, piecewise linear in k through none
 * capped (the point as found), the part it measured and all, the bar
 * adding the distance from the line to the nearer end (at_point());
 * between points, straight lines in f.  f0 is the limit the phases ran
 * under (PMON_IO_FREQ's when the run had one, else the calibration's
 * limit_found_mhz, the limit jobs run under) and L a lower point.  The
 * phases' waits are assumed not to depend on the clock; what the CPUs do
 * in them (m T) takes f0/L... as long, by the calibration's speed:
 *
 *   dt = m T (s(f0) / s(L) - 1),  saving = T (P(f0) - P(L)) - dt P(L)
 *
 * Its bar: T times the calibration's bars at f0 and L, added (they are
 * the same meter's), and, where u is unknown, W and C mixed half and half
 * with half their difference added; and the workload's spread: the later
 * run's n phases take as long as this run's give or take sqrt(2 n) sd,
 * sd one phase's standard deviation (phase_sd()), 1.96 of those at P(L)
 * (with fewer than 3 phases, SPREAD_FLOOR of their energy at L).  The
 * nodes' savings and bars add up; the time is the longest node's.  L is
 * the point that saves most, and only a saving larger than its bar makes
 * an item.
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

/* The point of C as found: its highest limit, where no CPU is capped. */
static const struct report_clockpoint *found_point(
  const struct report_clockcal *c)
{
  const struct report_clockpoint *p = &c->pt[0];

  for (size_t i = 1; i < c->n; i++)
    if (c->pt[i].mhz > p->mhz)
      p = &c->pt[i];
  return p;
}

/* A probe's power and bar at point P with K of the calibration's CPUs
 * capped at its limit (K NAN, or K at least its CPUs: all of them):
 * piecewise linear in K through none capped (the point as found), the
 * part measured and all; between two of them the bar adds the distance
 * from the line to the nearer end (the tent that holds a curve bent
 * either way).  COMPUTE or waiting. */
static void at_point(const struct report_clockcal *c,
                     const struct report_clockpoint *p, int compute, double k,
                     double *w, double *err)
{
  const struct report_clockpoint *f = found_point(c);
  double kx[3], y[3], ye[3], a;
  int n = 0, i;

  *w = compute ? p->compute_w : p->wait_w;
  *err = compute ? p->compute_err_w : p->wait_err_w;
  if (!(k < c->cpus) || p == f || p->mhz >= c->found_mhz - 0.5)
    return;
  kx[n] = 0;
  y[n] = compute ? f->compute_w : f->wait_w;
  ye[n++] = compute ? f->compute_err_w : f->wait_err_w;
  if (c->part_cpus > 0 && c->part_cpus < c->cpus &&
      isfinite(compute ? p->part_compute_w : p->part_wait_w)) {
    kx[n] = c->part_cpus;
    y[n] = compute ? p->part_compute_w : p->part_wait_w;
    ye[n++] = compute ? p->part_compute_err_w : p->part_wait_err_w;
  }
  kx[n] = c->cpus;
  y[n] = *w;
  ye[n++] = *err;
  for (i = 0; i < n - 2 && k > kx[i + 1]; i++)
    ;
  a = (k - kx[i]) / (kx[i + 1] - kx[i]);
  a = a < 0 ? 0 : a > 1 ? 1 : a;
  *w = y[i] + a * (y[i + 1] - y[i]);
  *err = ye[i] + a * (ye[i + 1] - ye[i]) +
         fmin(a, 1 - a) * fabs(y[i + 1] - y[i]);
}

/* A probe's power and bar at F MHz with K CPUs capped (at_point()), on
 * the line between the points around F (the nearest point beyond them):
 * COMPUTE or waiting. */
static void at(const struct report_clockcal *c, double f, int compute,
               double k, double *w, double *err)
{
  const struct report_clockpoint *lo, *hi;
  double a, wl, el, wh, eh;

  around(c, f, &lo, &hi);
  if (lo == NULL)
    lo = hi;
  if (hi == NULL)
    hi = lo;
  a = part(lo, hi, f);
  at_point(c, lo, compute, k, &wl, &el);
  at_point(c, hi, compute, k, &wh, &eh);
  *w = wl + a * (wh - wl);
  *err = el + a * (eh - el);
}

/* The CPUs that PMON_IO_FREQ caps on node N: those it capped, or the
 * ranks' (the union of their affinity: cpu_freq's, else sharing's);
 * NAN when unknown. */
static double capped_cpus(const struct node *n)
{
  if (n->io.freq_policy.cpus > 0)
    return n->io.freq_policy.cpus;
  if (n->cpu_freq.cpus > 0)
    return n->cpu_freq.cpus;
  if (n->sharing.job_cpus > 0)
    return n->sharing.job_cpus;
  return NAN;
}

/* The spread of node N's I/O phases' times, as the standard deviation of
 * one phase's (those of the timeline, each scaled to the mean bytes);
 * *NPH the phases it is from: NAN when fewer than 3. */
static double phase_sd(const struct node *n, double *nph)
{
  const struct timeline *t = &n->tl;
  double sb = 0, sum = 0, sum2 = 0, m = 0;
  size_t k = 0;

  for (size_t i = 0; i < t->nphases; i++)
    if (t->phases[i].bytes > 0 && t->phases[i].end_s > t->phases[i].start_s) {
      sb += t->phases[i].bytes;
      k++;
    }
  *nph = (double)k;
  if (k < 3)
    return NAN;
  sb /= (double)k;
  for (size_t i = 0; i < t->nphases; i++)
    if (t->phases[i].bytes > 0 && t->phases[i].end_s > t->phases[i].start_s) {
      double d = (t->phases[i].end_s - t->phases[i].start_s) * sb /
                 t->phases[i].bytes;

      sum += d;
      sum2 += d * d;
    }
  m = sum / (double)k;
  return sqrt(fmax(0, (sum2 - (double)k * m * m) / (double)(k - 1)));
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

/* A limit's prediction over the nodes: the saving, its bar (and of that
 * the workload's spread), the time, and what it rests on. */
struct clk {
  double save, err, spread, dt;
  double u_min;      /* the least CPU use in the phases; -1: unknown */
  double t_all;      /* the phases' time, summed */
  double k_lo, k_hi; /* the CPUs capped a node, least and most */
  int k_unknown;     /* on some node unknown: all taken */
  double few;        /* the phases of a node with too few to know their
                        spread (NAN: none) */
  double e_l;        /* the phases' energy at L, summed */
};

/* With fewer than 3 phases a node's phases' spread is unknown: its bar
 * is then this share of the phases' energy at the lower limit. */
#define SPREAD_FLOOR 0.10

/* The saving of limit L in R into *P; 0, or -1 when no node has I/O
 * phases with energy. */
static int saving_at(const struct report *r, const struct report_clockcal *c,
                     double l, struct clk *p)
{
  double f0 = base_mhz(r, c), s0 = speed_at(c, f0), sl = speed_at(c, l);
  int any = 0;

  memset(p, 0, sizeof *p);
  p->u_min = 1;
  p->k_lo = INFINITY;
  p->k_hi = -INFINITY;
  p->few = NAN;
  for (size_t i = 0; i < r->nnodes; i++) {
    const struct node *n = &r->nodes[i];
    double t = n->io.phase_time_s, u = io_cpu_use(n), k = capped_cpus(n);
    double w0, we0, c0, ce0, wl, wel, cl, cel, dp, e, pl, x, m, sd, nph;

    if (!(t > 0) || !isfinite(n->io.energy_j))
      continue;
    if (isnan(k)) {
      k = c->cpus; /* unknown: all */
      p->k_unknown = 1;
    }
    p->k_lo = fmin(p->k_lo, k);
    p->k_hi = fmax(p->k_hi, k);
    at(c, f0, 0, k, &w0, &we0);
    at(c, f0, 1, k, &c0, &ce0);
    at(c, l, 0, k, &wl, &wel);
    at(c, l, 1, k, &cl, &cel);
    /* The compute probe ran on the capped CPUs alone: what they do is
     * the node's use over their part of it. */
    m = isfinite(u) && k > 0 && k < c->cpus ? fmin(1, u * c->cpus / k) : u;
    if (isfinite(m)) {
      dp = (1 - m) * (w0 - wl) + m * (c0 - cl);
      e = (1 - m) * (we0 + wel) + m * (ce0 + cel);
      pl = (1 - m) * wl + m * cl;
      p->u_min = p->u_min < 0 ? -1 : fmin(p->u_min, u);
    } else {
      dp = ((w0 - wl) + (c0 - cl)) / 2;
      e = (we0 + wel + ce0 + cel) / 2 + fabs((w0 - wl) - (c0 - cl)) / 2;
      pl = (wl + cl) / 2;
      m = 1; /* the time: as if the CPUs computed all along */
      p->u_min = -1;
    }
    x = isfinite(s0) && isfinite(sl) && sl > 0 ? m * t * (s0 / sl - 1) : 0;
    /* The workload's spread: the later run's phases are new draws of
     * this run's, each of sd about its mean; the phases' time it will
     * take differs from this run's by sqrt(2 n) sd (1.96 of them). */
    sd = phase_sd(n, &nph);
    if (isfinite(sd))
      p->spread += 1.96 * sqrt(2 * fmax(n->io.phases, nph)) * sd * pl;
    else {
      p->spread += SPREAD_FLOOR * t * pl;
      p->few = isnan(p->few) ? nph : fmin(p->few, nph);
    }
    p->save += t * dp - x * pl;
    p->e_l += t * pl;
    p->err += t * e;
    p->dt = fmax(p->dt, x);
    p->t_all += t;
    any = 1;
  }
  return any && isfinite(p->save) && isfinite(p->err) ? 0 : -1;
}

/* The I/O phases' time per byte of R, summed over its nodes; NAN when
 * it has none. */
static double time_per_byte(const struct report *r)
{
  double t = 0, b = r->io.bytes_read + r->io.bytes_written;

  for (size_t i = 0; i < r->nnodes; i++)
    if (r->nodes[i].io.phase_time_s > 0)
      t += r->nodes[i].io.phase_time_s;
  return t > 0 && b > 0 ? t / b : NAN;
}

/* The runs' spread: the phases' time per byte in R and the K earlier
 * runs of PAST that have one, its relative standard deviation into *SD
 * (NAN below 3 runs); how many runs. */
static size_t runs_spread(const struct report *r, const struct report *past,
                          size_t npast, double *sd)
{
  double v[65], m = 0;
  size_t k = 0;

  *sd = NAN;
  if (isfinite(v[0] = time_per_byte(r)))
    k++;
  for (size_t i = 0; i < npast && k < 65; i++)
    if (isfinite(v[k] = time_per_byte(&past[i])))
      k++;
  if (k < 3)
    return k;
  for (size_t i = 0; i < k; i++)
    m += v[i] / (double)k;
  *sd = m > 0 ? report_sd(v, k) / m : NAN;
  return k;
}

int report_clock_item(const struct report *r,
                      const struct report_clockcal *c,
                      const struct report *past, size_t npast,
                      const char *est, struct report_advice *it)
{
  double f0, best = NAN, rsd = NAN, between = NAN;
  struct clk b = {0}, q;
  char cpus[160], spread[200], hist[160] = "";
  size_t k = 0;

  if (c == NULL || !r->has_io)
    return -1;
  f0 = base_mhz(r, c);
  for (size_t i = 0; i < c->n; i++) {
    if (!(c->pt[i].mhz < f0 - 0.5) || saving_at(r, c, c->pt[i].mhz, &q) != 0)
      continue;
    if (isnan(best) || q.save > b.save) {
      best = c->pt[i].mhz;
      b = q;
    }
  }
  if (isnan(best))
    return -1;
  /* The earlier runs: the phases' time per byte from run to run, which
   * a busy host moves more than the phases within a run tell; the later
   * run's phases give or take sqrt(1 + 1/K) of its sd over K runs.  The
   * larger of the two spreads counts. */
  if (npast > 0) {
    k = runs_spread(r, past, npast, &rsd);
    if (isfinite(rsd)) {
      between = 1.96 * rsd * sqrt(1 + 1.0 / (double)k) * b.e_l;
      snprintf(hist, sizeof hist, "; from %zu runs, their phases' time "
               "per byte's spread (%.3g J), the larger counted", k, between);
    } else
      snprintf(hist, sizeof hist, "; %zu run%s with I/O phases: too few to "
               "know the runs' spread", k, k == 1 ? "" : "s");
  }
  b.err += isfinite(between) && between > b.spread ? between : b.spread;
  if (!(b.save > b.err))
    return -1;
  memset(it, 0, sizeof *it);
  it->kind = "io-clock";
  it->saving_j = b.save;
  it->saving_err_j = b.err;
  it->time_change_s = b.dt;
  it->time_change_err_s = NAN;
  it->big_min = best; /* the limit, for the check */
  snprintf(it->key, sizeof it->key, "PMON_IO_FREQ");
  snprintf(it->what, sizeof it->what,
           "%.3g s of I/O phases (summed over the nodes) ran at a limit of "
           "%.0f MHz, %.4g J", b.t_all, f0,
           isfinite(r->io.energy_j) ? r->io.energy_j : NAN);
  snprintf(it->setting, sizeof it->setting, "PMON_IO_FREQ=%.0f", best);
  if (!(b.k_lo < c->cpus))
    snprintf(cpus, sizeof cpus, "all CPUs of a node capped%s",
             b.k_unknown ? " (the ranks' CPUs unknown)" : "");
  else
    snprintf(cpus, sizeof cpus, "the ranks' %.0f%s of %.0f CPUs capped "
             "(%s)", b.k_lo, b.k_hi > b.k_lo ? " or more" : "", c->cpus,
             c->part_cpus > 0 ? "between none, the calibration's part and "
                                "all capped"
                              : "between none and all capped: recalibrate "
                                "with --part for a narrower bar");
  if (isnan(b.few))
    snprintf(spread, sizeof spread, "the phases' own spread (%.3g J)",
             b.spread);
  else
    snprintf(spread, sizeof spread, "%.0f %% of the phases' energy (%.3g J): "
             "%.0f phases are too few to know their spread",
             100 * SPREAD_FLOOR, b.spread, b.few);
  snprintf(it->assumes, sizeof it->assumes,
           "the phases' waits take as long at %.0f MHz; the policy caps "
           "each phase whole, from its first call to PMON_IO_GAP after its "
           "last (that gap outside the phases: not counted); the node's "
           "power there is the calibration's (%s, node %s, %s) with %s, "
           "waiting and computing mixed by the CPU use in the phases (%s); "
           "the phases ran under %.0f MHz (%s); the bar adds %s%s%s",
           best, c->path, c->node ? c->node : "-", c->date ? c->date : "-",
           cpus,
           b.u_min < 0 ? "unknown: half and half, the difference in the bar"
                       : "from the timeline",
           f0,
           isfinite(r->io.freq_policy.requested_mhz)
             ? "PMON_IO_FREQ"
             : "the limit found at calibration",
           spread, hist, est);
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

/* The number at KEY of O into *V: NAN when absent or null; 0, or -1
 * when it is something else or negative. */
static int optional(json_t *o, const char *key, double *v)
{
  if (json_object_get(o, key) == NULL) {
    *v = NAN;
    return 0;
  }
  return number(o, key, v) == 0 && !(*v < 0) ? 0 : -1;
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
  if (optional(c->root, "cpus", &c->cpus) != 0 ||
      optional(c->root, "part_cpus", &c->part_cpus) != 0) {
    report_clockcal_free(c);
    return bad(path, "cpus and part_cpus must be numbers of CPUs");
  }
  if (number(c->root, "limit_found_mhz", &c->found_mhz) != 0 ||
      !(c->found_mhz > 0) || !json_is_array(pts) ||
      json_array_size(pts) < 2 ||
      json_array_size(pts) > sizeof c->pt / sizeof c->pt[0]) {
    report_clockcal_free(c);
    return bad(path, "limit_found_mhz and 2 to 16 points are needed");
  }
  for (size_t i = 0; i < json_array_size(pts); i++) {
    json_t *p = json_array_get(pts, i), *part = json_object_get(p, "part");
    struct report_clockpoint *q = &c->pt[c->n];
    double pc = NAN;

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
    q->part_wait_w = q->part_wait_err_w = NAN;
    q->part_compute_w = q->part_compute_err_w = NAN;
    if (part != NULL &&
        (!json_is_object(part) || number(part, "cpus", &pc) != 0 ||
         pc != c->part_cpus || optional(part, "wait_w", &q->part_wait_w) ||
         optional(part, "wait_err_w", &q->part_wait_err_w) ||
         optional(part, "compute_w", &q->part_compute_w) ||
         optional(part, "compute_err_w", &q->part_compute_err_w) ||
         isfinite(q->part_wait_w) != isfinite(q->part_wait_err_w) ||
         isfinite(q->part_compute_w) != isfinite(q->part_compute_err_w))) {
      char what[128];

      snprintf(what, sizeof what, "points[%zu].part: cpus (part_cpus), the "
               "powers and their bars must be numbers", i);
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

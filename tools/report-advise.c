/*
 * report-advise.c - "pmon-report advise": what would have cost less,
 * from one report's own figures, each with its bar and what it assumes
 * (pmon-report(1), ADVISE).
 *
 * An item is made only where the report holds the figures it needs, and
 * only when its saving is larger than its bar (the data supports it);
 * nothing is invented: a figure the report lacks is null, and an
 * estimated report says so in every item.  The kinds made here:
 *
 *   comm-message-size  per MPI call, the bytes moved in size bins whose
 *                      joules per byte exceed those of the call's largest
 *                      bin, as if moved at the largest bin's J/B;
 *   io-access-size     the same for MPI-IO reads and writes (io.sizes);
 *   wait               the energy spent in MPI calls that only wait
 *                      (barriers, the Wait family): the bound that a
 *                      run whose ranks arrived together would save;
 *   io-clock           with a clock calibration (--calibration), a
 *                      lower CPU clock during the I/O phases
 *                      (report-clock.c);
 *   io-approach        with an energy model (--model, pmon-report model
 *                      calibrate), the I/O approach that the model
 *                      predicts costs least, when it is not the run's
 *                      (report-model.c's model_advise).
 *
 * A bin's saving is BYTES x (J/B of the bin - J/B of the largest bin).
 * Its bar adds, linearly (the bins' errors share the node's meter, so
 * they may lean one way), each small bin's own energy bar and the
 * largest bin's J/B bar times the bytes moved at it, and the workload's
 * spread (spread()): the later run makes the largest bin's calls anew,
 * and repeats the others, whose times vary as they varied in this run.
 * The time change is the same sum with seconds per byte, without a bar
 * (the time of a call is counted, not measured against a meter).
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core.h" /* pmon__site_calibration() */
#include "report.h"
#include "report-model.h"

#define ITEMS_MAX 64

static const char usage[] =
  "usage: pmon-report advise [--json] [--calibration FILE] [--model FILE]\n"
  "                          [--history EARLIER]... REPORT\n"
  "       pmon-report advise --check [--json] [--calibration FILE] "
  "[--model FILE]\n"
  "                          [--history EARLIER]... BEFORE AFTER "
  "[BEFORE AFTER]...\n"
  "What would have cost less in the job of REPORT, from its own figures:\n"
  "a ranked list of changes, each with its predicted saving in joules and\n"
  "its bar, the predicted change of time, and what it assumes.\n"
  "With --check, each item of BEFORE's advice checked on the later run\n"
  "AFTER: whether it was applied, the saving realized with its bar, and\n"
  "whether the prediction held; given several pairs, each, and the hit\n"
  "rate over them.\n"
  "  -j, --json   print the advice, or the checks, as JSON\n"
  "      --check  check BEFORE's advice on AFTER\n"
  "  -C, --calibration FILE\n"
  "               the node's clock calibration (pmon-meters\n"
  "               --calibrate-clock): advice on the clock during I/O\n"
  "  -m, --model FILE\n"
  "               the application's energy model (pmon-report model\n"
  "               calibrate): advice on the I/O approach\n"  "      --history EARLIER\n"
  "               an earlier run of the same program (again for more):\n"
  "               the bars count the runs' spread too\n"
  "  -h, --help   print this help\n"
  "Exit status: 0 (also when there is no advice; with --check, when every\n"
  "applied item held), 3 when an applied item's prediction missed, 1 when\n"
  "a report, the calibration or the model cannot be read, 2 on bad usage.\n"
  "See pmon-report(1), ADVISE.\n";

#define complain(status, ...) \
  report_say(status, "pmon-report: advise", __VA_ARGS__)

/* One bin of a call or an I/O operation, as the savings need it: with
 * its calls and the spread of their times (NAN when unknown). */
struct bin {
  double size_min, size_max, bytes, energy_j, energy_err_j, time_s;
  double calls, call_sd_s;
};

/* A bin's calls' spread is known from this many of them on: below, or
 * where the report has none, its bar is this share of its energy. */
#define SPREAD_CALLS 5
#define SPREAD_FLOOR 0.10

/* The runs' spread is known from this many runs on (this one counted). */
#define SPREAD_RUNS 3

/* Earlier runs of the same program (--history), for the run-to-run
 * spread of what an item assumes stays fixed. */
struct hist {
  const struct report *r;
  size_t n;
};


/* The variance of the energy of N new calls like those of bin B (of
 * whose C calls the mean is taken: the mean's own variance too, unless
 * C is 0), into *VAR; or, when B's spread is unknown, the floor's share
 * of that energy into *FIXED.  0, or 1 when the floor was taken. */
static int spread(const struct bin *b, double n, double c, double *var,
                  double *fixed)
{
  double p = b->time_s > 0 ? b->energy_j / b->time_s : NAN;

  if (!(b->calls >= SPREAD_CALLS) || !isfinite(b->call_sd_s) ||
      !isfinite(p)) {
    *fixed += SPREAD_FLOOR * n * (b->calls > 0 ? b->energy_j / b->calls : 0);
    return 1;
  }
  *var += p * p * b->call_sd_s * b->call_sd_s * (n + (c > 0 ? n * n / c : 0));
  return 0;
}

static int usable(const struct bin *b)
{
  return b->bytes > 0 && isfinite(b->energy_j) && b->energy_j >= 0;
}

/* The saving of moving the bytes of the bins of B (N of them, by size)
 * below the largest usable one at that one's J/B, into IT; 0 when there
 * is one (OP is the call or operation, UNIT what moves), -1 when none. */
static int size_item(struct report_advice *it, const char *kind,
                     const char *op, const char *unit, const struct bin *b,
                     size_t n, const struct hist *h, const char *key,
                     const char *est)
{
  const struct bin *big = NULL;
  double save = 0, err = 0, dt = 0, moved = 0, jpb, jpb_err, spb;
  double var = 0, fixed = 0, m, within, between = NAN, runs[65];
  int time_known = 1, few = 0;
  size_t k = 0;
  char hist[200] = "";

  for (size_t i = 0; i < n; i++)
    if (usable(&b[i]) && (big == NULL || b[i].size_min > big->size_min))
      big = &b[i];
  if (big == NULL)
    return -1;
  jpb = big->energy_j / big->bytes;
  jpb_err = isfinite(big->energy_err_j) ? big->energy_err_j / big->bytes
                                        : NAN;
  spb = big->time_s / big->bytes;
  for (size_t i = 0; i < n; i++) {
    const struct bin *s = &b[i];

    if (!usable(s) || s->size_max >= big->size_min ||
        s->energy_j / s->bytes <= jpb)
      continue;
    save += s->energy_j - s->bytes * jpb;
    err += (isfinite(s->energy_err_j) ? s->energy_err_j : NAN) +
           s->bytes * jpb_err;
    if (isfinite(s->time_s) && isfinite(spb))
      dt -= s->time_s - s->bytes * spb;
    else
      time_known = 0;
    moved += s->bytes;
  }
  /* The workload's spread: the later run's calls are new draws of this
   * run's.  The large bin's M calls then (its own and those that move
   * the small bins' bytes) at the mean of its C calls now: M + M^2/C of
   * its calls' variance; each bin that stays, its own calls' again. */
  m = big->calls + (big->bytes > 0 ? moved * big->calls / big->bytes : 0);
  few |= spread(big, m, big->calls, &var, &fixed);
  for (size_t i = 0; i < n; i++) {
    const struct bin *s = &b[i];

    if (s != big && usable(s) &&
        (s->size_max >= big->size_min || s->energy_j / s->bytes <= jpb))
      few |= spread(s, s->calls, 0, &var, &fixed);
  }
  within = 1.96 * sqrt(var) + fixed;
  /* The earlier runs: the largest bin's J/B from run to run, which a
   * busy host moves more than its calls' spread tells; the later run's
   * bytes at it, give or take sqrt(1 + 1/K) of its sd over K runs.  The
   * larger of the two spreads counts (the runs' holds the calls'). */
  if (h != NULL && h->n > 0) {
    runs[k++] = jpb;
    for (size_t i = 0; i < h->n && k < 65; i++) {
      double e = NAN, bytes = 0;

      for (size_t j = 0; j < (strcmp(kind, "io-access-size") == 0
                                ? h->r[i].io.nsizes
                                : h->r[i].comm.nrows); j++) {
        const char *kk;
        double mn, ej, bj;

        if (strcmp(kind, "io-access-size") == 0) {
          kk = h->r[i].io.sizes[j].op;
          mn = h->r[i].io.sizes[j].size_min;
          ej = h->r[i].io.sizes[j].energy_j;
          bj = h->r[i].io.sizes[j].bytes;
        } else {
          kk = h->r[i].comm.rows[j].call;
          mn = h->r[i].comm.rows[j].size_min;
          ej = h->r[i].comm.rows[j].energy_j;
          bj = h->r[i].comm.rows[j].bytes;
        }
        if (kk != NULL && strcmp(kk, key) == 0 && mn == big->size_min)
          e = ej, bytes = bj;
      }
      if (isfinite(e) && bytes > 0)
        runs[k++] = e / bytes;
    }
    if (k >= SPREAD_RUNS) {
      between = 1.96 * report_sd(runs, k) * (big->bytes + moved) *
                sqrt(1 + 1.0 / (double)k);
      snprintf(hist, sizeof hist, "; from %zu runs, their J/B's spread "
               "(%.3g J), the larger counted", k, between);
    } else
      snprintf(hist, sizeof hist, "; %zu run%s with the bin: too few to "
               "know the runs' spread", k, k == 1 ? "" : "s");
  }
  err += isfinite(between) && between > within ? between : within;
  /* Supported only when the saving is larger than its bar (or, where
   * the bar is unknown, as an estimate's, above 0: said so). */
  if (moved == 0 || !(isnan(err) ? save > 0 : save > err))
    return -1;
  it->kind = kind;
  it->big_min = big->size_min;
  it->saving_j = save;
  it->saving_err_j = err;
  it->time_change_s = time_known ? dt : NAN;
  it->time_change_err_s = NAN;
  snprintf(it->what, sizeof it->what,
           "%s: %.6g bytes in %s below %.0f bytes cost %.3g J/B, "
           "%.3g times the %.0f-%.0f byte ones",
           op, moved, unit, big->size_min, (save + moved * jpb) / moved,
           (save + moved * jpb) / moved / jpb, big->size_min, big->size_max);
  snprintf(it->setting, sizeof it->setting,
           "%s: move the same data in %s of %.0f bytes or more "
           "(aggregate the small ones)", op, unit, big->size_min);
  snprintf(it->assumes, sizeof it->assumes,
           "the small %s' bytes cost what the %.0f-%.0f byte ones cost "
           "per byte in this run (%.3g J/B, %.3g s/B); the bar adds the "
           "bins' energy bars and the spread of their %s' times (%.3g J)%s%s%s",
           unit, big->size_min, big->size_max, jpb, spb, unit, within,
           few ? ", 10 % of a bin's energy where its calls are too few "
                 "or their spread unknown"
               : "",
           hist, est);
  return 0;
}

/* The comm-message-size items, one per call, into IT; how many. */
static size_t comm_items(const struct report *r, struct report_advice *it,
                         size_t max, const struct hist *h, const char *est)
{
  size_t n = 0;

  for (size_t i = 0; i < r->comm.nrows && n < max;) {
    const char *call = r->comm.rows[i].call;
    struct bin b[64];
    size_t k = 0, j = i;

    for (; j < r->comm.nrows && call != NULL && r->comm.rows[j].call != NULL &&
           strcmp(r->comm.rows[j].call, call) == 0; j++) {
      const struct commrow *c = &r->comm.rows[j];

      if (k < 64)
        b[k++] = (struct bin){c->size_min, c->size_max, c->bytes,
                              c->energy_j, c->energy_err_j, c->time_s,
                              c->calls, c->call_sd_s};
    }
    if (j == i)
      j = i + 1;
    if (call != NULL && size_item(&it[n], "comm-message-size", call,
                                  "messages", b, k, h, call, est) == 0) {
      snprintf(it[n].key, sizeof it[n].key, "%s", call);
      n++;
    }
    i = j;
  }
  return n;
}

/* The io-access-size items, one per operation (read, write), into IT. */
static size_t io_items(const struct report *r, struct report_advice *it,
                       size_t max, const struct hist *h, const char *est)
{
  static const char *const ops[] = {"read", "write"};
  size_t n = 0;

  for (size_t o = 0; o < 2 && n < max; o++) {
    struct bin b[64];
    size_t k = 0;

    for (size_t i = 0; i < r->io.nsizes && k < 64; i++) {
      const struct iosize *s = &r->io.sizes[i];
      /* A bin's bar: its share of the job's I/O energy bar. */
      double err = r->io.energy_j > 0 && isfinite(r->io.energy_err_j)
                     ? r->io.energy_err_j * s->energy_j / r->io.energy_j
                     : NAN;

      if (s->op != NULL && strcmp(s->op, ops[o]) == 0)
        b[k++] = (struct bin){s->size_min, s->size_max, s->bytes,
                              s->energy_j, err, s->time_s, s->calls,
                              s->call_sd_s};
    }
    if (size_item(&it[n], "io-access-size",
                  o == 0 ? "MPI-IO reads" : "MPI-IO writes", "accesses", b, k,
                  h, ops[o], est) == 0) {
      snprintf(it[n].key, sizeof it[n].key, "%s", ops[o]);
      n++;
    }
  }
  return n;
}

/* The calls that only wait, and their energy E, its bar ERR, their time
 * T and names NAMES (of SIZE bytes) in R. */
static void wait_sum(const struct report *r, double *e, double *err,
                     double *t, char *names, size_t size)
{
  static const char *const waits[] = {"MPI_Barrier", "MPI_Ibarrier",
                                      "MPI_Wait", "MPI_Waitall",
                                      "MPI_Waitany", "MPI_Waitsome", NULL};

  *e = *err = *t = 0;
  names[0] = '\0';
  for (size_t i = 0; r->has_comm && i < r->comm.nrows; i++) {
    const struct commrow *c = &r->comm.rows[i];
    int w = 0;

    for (int k = 0; waits[k] != NULL && c->call != NULL; k++)
      w |= strcmp(c->call, waits[k]) == 0;
    if (!w || !isfinite(c->energy_j))
      continue;
    *e += c->energy_j;
    *err += isfinite(c->energy_err_j) ? c->energy_err_j : NAN;
    *t += c->time_s;
    if (strstr(names, c->call) == NULL &&
        strlen(names) + strlen(c->call) + 3 < size)
      snprintf(names + strlen(names), size - strlen(names), "%s%s",
               names[0] ? ", " : "", c->call);
  }
}

/* The wait item: the energy in calls that only wait. */
static size_t wait_items(const struct report *r, struct report_advice *it,
                         const char *est)
{
  double e, err, t;
  char names[160];

  wait_sum(r, &e, &err, &t, names, sizeof names);
  if (!(isnan(err) ? e > 0 : e > err))
    return 0;
  memset(it, 0, sizeof *it);
  it->kind = "wait";
  it->saving_j = e;
  it->saving_err_j = err;
  it->time_change_s = NAN; /* the ranks' waits overlap: no run time */
  it->time_change_err_s = NAN;
  snprintf(it->what, sizeof it->what,
           "%.3g s summed over the ranks in %s, which only wait", t, names);
  snprintf(it->setting, sizeof it->setting,
           "balance the work between the ranks (or overlap it with the "
           "communication) so that they wait less");
  snprintf(it->assumes, sizeof it->assumes,
           "an upper bound: a run whose ranks arrived together would not "
           "spend this energy in those calls; the node's power while "
           "waiting is counted, not what it would be otherwise%s", est);
  return 1;
}

/* The io-approach item of R (FILE) under the model at MODEL into IT: the
 * alternative that saves most beyond its bar.  0; -1 when there is none
 * (a run the model cannot weigh gets a line that says why); -2 after one
 * line when the model or the run cannot be read. */
static int approach_item(const struct report *r, const char *file,
                         const char *model, struct report_advice *it)
{
  struct model_advice a;
  const struct model_alt *best = NULL;
  double save = 0, err = 0;

  if (model_advise(r, file, model, &a) != 0)
    return -2;
  if (a.n == 0) {
    complain(0, "--model %s: no io-approach item: %s", model,
             a.why[0] ? a.why : "no other approach could be predicted");
    return -1;
  }
  for (size_t i = 0; i < a.n; i++) {
    const struct model_alt *x = &a.alt[i];
    double s = a.e_j - x->e_j;
    double e = (isfinite(a.e_err_j) ? a.e_err_j * fabs(1 - x->e_j / a.e_j)
                                    : NAN) + x->e_j * x->rel;

    if ((isnan(e) ? s > 0 : s > e) && (best == NULL || s > save)) {
      best = x;
      save = s;
      err = e;
    }
  }
  if (best == NULL)
    return -1;
  memset(it, 0, sizeof *it);
  it->kind = "io-approach";
  it->saving_j = save;
  it->saving_err_j = err;
  it->time_change_s = best->t_s - a.t_s;
  it->time_change_err_s = NAN;
  snprintf(it->key, sizeof it->key, "%s", best->name);
  snprintf(it->what, sizeof it->what,
           "%s%.60s ran the I/O approach %.39s on %g node%s of %g cores: "
           "%.4g J measured; the model predicts %.4g J for %.39s",
           a.region[0] ? "region " : "the job", a.region, a.own, a.nodes,
           a.nodes == 1 ? "" : "s", a.cores, a.e_j, best->e_j, best->name);
  snprintf(it->setting, sizeof it->setting,
           "run with the I/O approach %s, tagged approach=%s (PMON_TAGS) so "
           "that --check finds it", best->name, best->name);
  snprintf(it->assumes, sizeof it->assumes,
           "the model %.120s (pmon-model(7)) holds for %.39s as it does "
           "for %.39s: it predicted %.4g J for %.39s, and its error there "
           "is scaled out; the bar adds the measured energy's bar and 1.96 "
           "standard errors of the calibrated mean power, not the model's "
           "own error for %.39s (pmon-report model validate on runs of "
           "it)%s",
           model, best->name, a.own, a.e_pred_j, a.own, best->name,
           a.estimated ? "; the model's or the run's energy is ESTIMATED, "
                         "and so is this saving"
                       : "");
  return 0;
}

static int by_saving(const void *a, const void *b);

/* Every item of R, the largest saving first, into IT (ITEMS_MAX of
 * them); how many.  CAL: the calibration given, or NULL for the one that
 * the site file (PMON_SITE_FILE, pmon-site(5)) names now for the first of
 * R's nodes it names one for: never a path from the report, which
 * anyone may have written (a file that cannot be used gets its one line,
 * and no io-clock item). */
static size_t advise(const struct report *r,
                     const struct report_clockcal *cal, const char *model,
                     const char *file, const struct hist *h,
                     struct report_advice *it, int *bad)
{
  const char *est = r->estimated > 0
                      ? "; the report's energy is ESTIMATED by a model, "
                        "not measured, and so is this saving"
                      : "";
  struct report_clockcal site;
  int from_site = 0;
  size_t n = 0;

  for (size_t i = 0; cal == NULL && i < r->nnodes; i++) {
    char p[PATH_MAX];

    if (r->nodes[i].name == NULL ||
        pmon__site_calibration(r->nodes[i].name, p, sizeof p) != 0)
      break; /* a site file that cannot be read names none */
    if (*p != '\0') {
      if (report_clockcal_load(p, &site) == 0) {
        cal = &site;
        from_site = 1;
      }
      break;
    }
  }

  if (r->has_comm)
    n += comm_items(r, it + n, ITEMS_MAX / 2 - n, h, est);
  if (r->has_io)
    n += io_items(r, it + n, 2, h, est);
  n += wait_items(r, it + n, est);
  if (cal != NULL &&
      report_clock_item(r, cal, h != NULL ? h->r : NULL, h != NULL ? h->n : 0,
                        est, it + n) == 0)
    n++;
  if (model != NULL) {
    int rc = approach_item(r, file, model, it + n);

    n += rc == 0;
    if (rc == -2 && bad != NULL)
      *bad = 1;
  }
  if (from_site)
    report_clockcal_free(&site);
  qsort(it, n, sizeof it[0], by_saving);
  return n;
}

size_t report_advice(const struct report *r, struct report_advice *out,
                     size_t max)
{
  struct report_advice it[ITEMS_MAX];
  size_t n = advise(r, NULL, NULL, NULL, NULL, it, NULL);

  if (n > max)
    n = max;
  memcpy(out, it, n * sizeof it[0]);
  return n;
}

/* The figures of item IT's call or operation in R: the energy E of all
 * its bins and its bar ERR, the bytes of all and of those below the
 * item's large bin (SMALL).  0, or -1 when R has none of it. */
static int key_sum(const struct report *r, const struct report_advice *it,
                   double *e, double *err, double *bytes, double *small)
{
  int comm = strcmp(it->kind, "comm-message-size") == 0, any = 0;
  size_t n = comm ? (r->has_comm ? r->comm.nrows : 0)
                  : (r->has_io ? r->io.nsizes : 0);

  *e = *err = *bytes = *small = 0;
  for (size_t i = 0; i < n; i++) {
    const char *k = comm ? r->comm.rows[i].call : r->io.sizes[i].op;
    double be, berr, bb, bmax;

    if (k == NULL || strcmp(k, it->key) != 0)
      continue;
    if (comm) {
      be = r->comm.rows[i].energy_j;
      berr = r->comm.rows[i].energy_err_j;
      bb = r->comm.rows[i].bytes;
      bmax = r->comm.rows[i].size_max;
    } else {
      be = r->io.sizes[i].energy_j;
      berr = r->io.energy_j > 0 ? r->io.energy_err_j * be / r->io.energy_j
                                : NAN;
      bb = r->io.sizes[i].bytes;
      bmax = r->io.sizes[i].size_max;
    }
    *e += be;
    *err += berr;
    *bytes += bb;
    if (bmax < it->big_min)
      *small += bb;
    any = 1;
  }
  return any && isfinite(*e) ? 0 : -1;
}

/* A check of BEFORE's item IT against AFTER. */
struct check {
  const struct report_advice *it;
  int applied, held;
  double realized_j, realized_err_j;
  char why[320];
};

static void check_item(const struct report *before,
                       const struct report *after, const char *model,
                       const char *bfile, const char *afile,
                       const struct report_advice *it, struct check *c)
{
  double eb, errb, bb, sb, ea, erra, ba, sa;
  double tol;

  memset(c, 0, sizeof *c);
  c->it = it;
  c->realized_j = c->realized_err_j = NAN;
  if (strcmp(it->kind, "io-clock") == 0) {
    report_clock_check(before, after, it, &c->applied, &c->held,
                       &c->realized_j, &c->realized_err_j, c->why,
                       sizeof c->why);
    return;
  }
  if (strcmp(it->kind, "io-approach") == 0) {
    struct model_advice b, a;

    if (model_measure(before, bfile, model, &b) != 0 ||
        model_measure(after, afile, model, &a) != 0) {
      snprintf(c->why, sizeof c->why, "the model cannot read the runs");
      return;
    }
    /* Applied: the later run's tag names the approach, on as many nodes
     * of as many cores. */
    c->applied = strcmp(a.own, it->key) == 0 && a.nodes == b.nodes &&
                 a.cores == b.cores;
    if (!c->applied) {
      snprintf(c->why, sizeof c->why, "the later run: approach %s on %g "
               "nodes of %g cores, advised %s on %g of %g",
               a.own[0] ? a.own : "(no tag)", a.nodes, a.cores, it->key,
               b.nodes, b.cores);
      return;
    }
    c->realized_j = b.e_j - a.e_j;
    c->realized_err_j = b.e_err_j + a.e_err_j;
    tol = it->saving_err_j + c->realized_err_j;
    c->held = fabs(c->realized_j - it->saving_j) <= tol;
    if (c->held)
      snprintf(c->why, sizeof c->why, "%s: %.4g J measured after, %.4g J "
               "before", it->key, a.e_j, b.e_j);
    else
      snprintf(c->why, sizeof c->why,
               "%s: missed by %.3g J beyond both bars: the assumption that "
               "the model holds for %s as for %s failed (%.4g J measured "
               "after, %.4g J predicted): validate it on runs of %s",
               it->key, fabs(c->realized_j - it->saving_j) - tol, it->key,
               b.own, a.e_j, b.e_j - it->saving_j, it->key);
    return;
  }
  if (strcmp(it->kind, "wait") == 0) {
    double tb, ta;
    char nb[160], na[160];

    wait_sum(before, &eb, &errb, &tb, nb, sizeof nb);
    wait_sum(after, &ea, &erra, &ta, na, sizeof na);
    /* Applied: the ranks waited half as long or less. */
    c->applied = ta <= 0.5 * tb;
    c->realized_j = eb - ea;
    c->realized_err_j = errb + erra;
    tol = it->saving_err_j + c->realized_err_j;
    /* An upper bound: held unless more was saved than it allows. */
    c->held = !(c->realized_j > it->saving_j + tol);
    snprintf(c->why, sizeof c->why,
             "the waits took %.3g s after, %.3g s before", ta, tb);
    return;
  }
  if (key_sum(before, it, &eb, &errb, &bb, &sb) != 0 ||
      key_sum(after, it, &ea, &erra, &ba, &sa) != 0 || ba <= 0) {
    snprintf(c->why, sizeof c->why, "%s: not in the later report", it->key);
    return;
  }
  /* Applied: at most a tenth of the small bytes are left. */
  c->applied = sa <= 0.1 * sb;
  /* The later run's energy scaled to the earlier run's bytes. */
  c->realized_j = eb - ea * bb / ba;
  c->realized_err_j = errb + erra * bb / ba;
  tol = it->saving_err_j + c->realized_err_j;
  c->held = fabs(c->realized_j - it->saving_j) <= tol;
  if (!c->applied)
    snprintf(c->why, sizeof c->why, "%s: %.3g of %.3g bytes still below "
             "%.0f bytes (%.3g before; applied leaves a tenth or less)",
             it->key, sa, ba, it->big_min, sb);
  else if (c->held)
    snprintf(c->why, sizeof c->why, "%s: %.3g of %.3g bytes below %.0f "
             "bytes left", it->key, sa, ba, it->big_min);
  else
    snprintf(c->why, sizeof c->why,
             "%s: missed by %.3g J beyond both bars: the assumption that the "
             "bytes cost %.3g J/B, as the large ones did before, failed "
             "(%.3g J/B for all of them after)", it->key,
             fabs(c->realized_j - it->saving_j) - tol,
             eb > 0 && bb > 0 ? (eb - it->saving_j) / bb : NAN,
             ea / ba);
}

static int by_saving(const void *a, const void *b)
{
  const struct report_advice *x = a, *y = b;

  return (x->saving_j < y->saving_j) - (x->saving_j > y->saving_j);
}

static json_t *num_or_null(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

/* Prints {"KEY": ARRAY} (which it takes) on standard output; 0, or -1. */
static int dump_as(json_t *array, const char *key)
{
  json_t *root = json_pack("{s:o}", key, array);
  int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9));

  putchar('\n');
  json_decref(root);
  return rc;
}

static int print_json(const struct report_advice *it, size_t n)
{
  json_t *items = json_array();

  for (size_t i = 0; i < n; i++)
    json_array_append_new(
      items, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s}", "kind",
                       it[i].kind, "what", it[i].what, "setting",
                       it[i].setting, "saving_j", num_or_null(it[i].saving_j),
                       "saving_err_j", num_or_null(it[i].saving_err_j),
                       "time_change_s", num_or_null(it[i].time_change_s),
                       "time_change_err_s",
                       num_or_null(it[i].time_change_err_s), "assumes",
                       it[i].assumes));
  return dump_as(items, "items");
}

static void print_text(const struct report *r, const struct report_advice *it,
                       size_t n)
{
  printf("advice for job %s: %zu item%s%s\n",
         r->job.id ? report_tty(r->job.id) : "-", n, n == 1 ? "" : "s",
         n > 1 ? ", the largest saving first" : "");
  if (n == 0)
    printf("  none: no change that this report's figures support (see "
           "pmon-report(1), ADVISE)\n");
  for (size_t i = 0; i < n; i++) {
    printf("%2zu. %s\n    seen:    %s\n    change:  %s\n", i + 1, it[i].kind,
           report_tty(it[i].what), report_tty(it[i].setting));
    if (isfinite(it[i].saving_err_j))
      printf("    saving:  %.4g %s %.2g J", it[i].saving_j, report_pm(),
             it[i].saving_err_j);
    else
      printf("    saving:  %.4g J, bar unknown", it[i].saving_j);
    if (r->energy_j > 0)
      printf(" (%.2g %% of the job's)", 100 * it[i].saving_j / r->energy_j);
    if (isfinite(it[i].time_change_s))
      printf(", time %+.3g s (no bar)", it[i].time_change_s);
    else
      printf(", time: not predicted");
    printf("\n    assumes: %s\n", report_tty(it[i].assumes));
  }
}

/* The checks of pair PAIR (from 0), C (N of them), appended to CHECKS. */
static void checks_json(json_t *checks, size_t pair, const struct check *c,
                        size_t n)
{
  for (size_t i = 0; i < n; i++)
    json_array_append_new(
      checks,
      json_pack("{s:I, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:s}", "pair",
                (json_int_t)pair, "kind", c[i].it->kind, "setting",
                c[i].it->setting, "applied", c[i].applied, "predicted_j",
                num_or_null(c[i].it->saving_j), "predicted_err_j",
                num_or_null(c[i].it->saving_err_j), "realized_j",
                num_or_null(c[i].realized_j), "realized_err_j",
                num_or_null(c[i].realized_err_j), "held",
                c[i].applied ? json_boolean(c[i].held) : json_null(), "why",
                c[i].why));
}

static void print_checks_text(const struct report *b, const struct report *a,
                              const struct check *c, size_t n)
{
  printf("advice for job %s checked on job %s: %zu item%s\n",
         b->job.id ? report_tty(b->job.id) : "-",
         a->job.id ? report_tty(a->job.id) : "-", n, n == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++) {
    printf("%2zu. %s: %s\n", i + 1, c[i].it->kind,
           !c[i].applied ? "not applied"
           : c[i].held   ? "applied, the prediction held"
                         : "applied, the prediction MISSED");
    printf("    predicted %.4g %s %.2g J, realized ", c[i].it->saving_j,
           report_pm(), c[i].it->saving_err_j);
    if (isfinite(c[i].realized_j))
      printf("%.4g %s %.2g J\n", c[i].realized_j, report_pm(),
             c[i].realized_err_j);
    else
      printf("unknown\n");
    printf("    %s\n", report_tty(c[i].why));
  }
}

/* The applied items and those that held, over the pairs checked. */
struct tally {
  size_t applied, held;
};

/* One pair of advise --check: BEFORE's advice on AFTER, printed (text)
 * or appended to CHECKS (JSON, pair PAIR), counted into *T.  0 when
 * every applied item held, 3 when one missed, 1 when a report cannot
 * be read.  CAL: the calibration, or NULL. */
static int check(const char *bpath, const char *apath,
                 const struct report_clockcal *cal, const char *model,
                 const struct hist *h, json_t *checks, size_t pair,
                 struct tally *t)
{
  struct report_advice it[ITEMS_MAX];
  struct check c[ITEMS_MAX];
  struct report b, a;
  size_t n;
  int missed = 0, bad = 0;

  if (report_open(bpath, strcmp(bpath, "-") ? bpath : "(standard input)",
                  &b) != 0)
    return 1;
  if (report_open(apath, strcmp(apath, "-") ? apath : "(standard input)",
                  &a) != 0) {
    report_free(&b);
    return 1;
  }
  n = advise(&b, cal, model, bpath, h, it, &bad);
  for (size_t i = 0; i < n; i++) {
    check_item(&b, &a, model, bpath, apath, &it[i], &c[i]);
    missed |= c[i].applied && !c[i].held;
    t->applied += c[i].applied != 0;
    t->held += c[i].applied && c[i].held;
  }
  if (checks != NULL)
    checks_json(checks, pair, c, n);
  else
    print_checks_text(&b, &a, c, n);
  report_tty_release();
  report_free(&a);
  report_free(&b);
  return bad ? 1 : missed ? 3 : 0;
}

/* advise --check BEFORE AFTER [BEFORE AFTER]...: each pair checked, and,
 * over them, the hit rate (the applied items that held).  The exit
 * status: 1 when a report cannot be read, else 3 when an applied item
 * missed, else 0. */
static int check_pairs(char **paths, size_t npairs,
                       const struct report_clockcal *cal, const char *model,
                       const struct hist *h, int json)
{
  json_t *checks = json ? json_array() : NULL;
  struct tally t = {0, 0};
  int rc = 0;

  for (size_t p = 0; p < npairs; p++) {
    int r;

    if (!json && p > 0)
      putchar('\n');
    r = check(paths[2 * p], paths[2 * p + 1], cal, model, h, checks, p, &t);
    rc = r == 1 || rc == 1 ? 1 : r == 3 ? 3 : rc;
  }
  if (json) {
    json_t *root = json_pack(
      "{s:o, s:I, s:I, s:I, s:o}", "checks", checks, "pairs",
      (json_int_t)npairs, "applied", (json_int_t)t.applied, "held",
      (json_int_t)t.held, "hit_rate",
      num_or_null(t.applied > 0 ? (double)t.held / (double)t.applied : NAN));

    if (root == NULL ||
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) !=
          0)
      rc = 1;
    putchar('\n');
    json_decref(root);
  } else if (npairs > 1) {
    printf("\nover %zu pairs: %zu of %zu applied items held", npairs, t.held,
           t.applied);
    if (t.applied > 0)
      printf(" (hit rate %.0f %%)", 100.0 * (double)t.held /
                                      (double)t.applied);
    putchar('\n');
  }
  return fflush(stdout) != 0 ? 1 : rc;
}

#define HISTORY_MAX 64

int report_advise(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"json", no_argument, NULL, 'j'}, {"check", no_argument, NULL, 'c'},
    {"calibration", required_argument, NULL, 'C'},
    {"model", required_argument, NULL, 'm'},
    {"history", required_argument, NULL, 'H'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  struct report_clockcal cal;
  const char *calpath = NULL, *model = NULL, *hpath[HISTORY_MAX];
  struct report_advice it[ITEMS_MAX];
  struct report r, *past = NULL;
  struct hist h = {NULL, 0};
  const char *name;
  int c, json = 0, checking = 0, rc = 0, bad = 0;
  size_t n, nh = 0;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":jhC:m:", longopts, NULL)) != -1) {
    switch (c) {
    case 'j': json = 1; break;
    case 'c': checking = 1; break;
    case 'C': calpath = optarg; break;
    case 'm': model = optarg; break;
    case 'H':
      if (nh == HISTORY_MAX)
        return complain(2, "--history %s: at most %d earlier runs", optarg,
                        HISTORY_MAX);
      hpath[nh++] = optarg;
      break;
    case 'h': fputs(usage, stdout); return 0;
    case ':':
      return complain(2, "%s: option needs an argument", argv[optind - 1]);
    default:
      return complain(2, "%s: invalid option", argv[optind - 1]);
    }
  }
  if (checking ? argc - optind < 2 || (argc - optind) % 2 != 0
               : argc - optind != 1) {
    fputs(usage, stderr);
    return 2;
  }
  if (calpath != NULL && report_clockcal_load(calpath, &cal) != 0)
    return 1;
  /* The earlier runs, each read as a report is. */
  past = report_xcalloc(nh > 0 ? nh : 1, sizeof *past);
  for (; h.n < nh; h.n++)
    if (report_open(hpath[h.n], strcmp(hpath[h.n], "-") ? hpath[h.n]
                                                         : "(standard input)",
                    &past[h.n]) != 0) {
      rc = 1;
      goto out;
    }
  h.r = past;
  if (checking) {
    rc = check_pairs(argv + optind, (size_t)(argc - optind) / 2,
                     calpath ? &cal : NULL, model, &h, json);
    goto out;
  }
  name = strcmp(argv[optind], "-") ? argv[optind] : "(standard input)";
  if (report_open(argv[optind], name, &r) != 0) {
    rc = 1;
    goto out;
  }
  n = advise(&r, calpath ? &cal : NULL, model, argv[optind], &h, it, &bad);
  if (json)
    rc = print_json(it, n) != 0;
  else
    print_text(&r, it, n);
  report_tty_release();
  report_free(&r);
  rc = rc || bad || fflush(stdout) != 0 ? 1 : 0;
out:
  for (size_t i = 0; i < h.n; i++)
    report_free(&past[i]);
  free(past);
  if (calpath != NULL)
    report_clockcal_free(&cal);
  return rc;
}

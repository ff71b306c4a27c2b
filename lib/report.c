/*
 * report.c - node records, the job report, the summary.
 *
 * At finalize every rank sends its I/O records to its node leader, which
 * builds the node's record; the leaders send their records to rank 0,
 * which writes the report (docs/report-format.md, pmon-report(5)) and
 * prints the summary.  Both steps are binomial trees (lib/node.c): log2
 * steps, and memory at rank 0 in proportion to the nodes, not the ranks.
 * Regions travel up the same trees as tables of records merged at every
 * step (lib/rtab.c), so that neither ranks nor nodes multiply them.
 *
 * The rules of docs/report-format.md, here in code: a node's energy is its
 * total meter's from init to finalize; a region's energy on a node is the
 * one measured by the lowest local rank that entered it (lib/rtab.c);
 * over the job, counts add up, times take the maximum, energies add up
 * over nodes.
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

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "beside.h"
#include "rtab.h"

#define REPORT_FORMAT_VERSION 3

static json_t *number_or_null(double v, int valid)
{
  return valid && isfinite(v) ? json_real(v) : json_null();
}

static json_t *meters_json(void)
{
  struct pmon_state *g = &pmon__g;
  json_t *arr = json_array();

  for (int i = 0; i < g->nmeters; i++) {
    const struct pmon_meter *m = &g->ms[i].m;
    json_t *chs = json_array(), *o;

    for (int c = 0; c < m->nch; c++) {
      json_t *ch = json_pack("{s:s, s:s, s:b}", "name", m->ch[c].name,
                             "domain", pmon__domain_name(m->ch[c].domain),
                             "total", (g->total_mask[i] >> c) & 1);

      if (m->ch[c].overlaps[0] != '\0')
        json_object_set_new(ch, "overlaps", json_string(m->ch[c].overlaps));
      json_array_append_new(chs, ch);
    }
    o = json_pack("{s:s, s:s, s:s, s:b, s:f, s:o}", "driver", m->drv->name,
                  "spec", m->spec.text, "kind",
                  (m->flags & PMON_DRV_COUNTER) ? "counter" : "sampled",
                  "estimated", g->ms[i].estimated, "interval_s",
                  m->interval_s, "channels", chs);
    if (m->window_s > 0) /* each value its window's energy (driver.h) */
      json_object_set_new(o, "window_s", json_real(m->window_s));
    if (m->source[0] != '\0')
      json_object_set_new(o, "source", json_string(m->source));
    if (m->note[0] != '\0')
      json_object_set_new(o, "note", json_string(m->note));
    /* The stated accuracy, +-(rel x reading + watts); null: not stated. */
    json_object_set_new(o, "accuracy",
                        m->accuracy_from != NULL
                          ? json_pack("{s:f, s:f, s:s}", "rel",
                                      m->accuracy_rel, "watts", m->accuracy_w,
                                      "from", m->accuracy_from)
                          : json_null());
    json_array_append_new(arr, o);
  }
  return arr;
}

/* Per meter, how much of the run it measured (core.h): the time its
 * energy covers, the gaps left out, and when it was lost if it ended the
 * run failing. */
static double run_s(const struct pmon_mstate *ms, uint64_t t_end)
{
  const struct pmon_state *g = &pmon__g;
  uint64_t end = ms->prev_ns > t_end ? ms->prev_ns : t_end;

  return (double)(end - g->t_init_ns) * 1e-9;
}

static int sample_at(int i, uint64_t t, struct pmon_tl_sample *out,
                     double *bar);

/* Meter I's measured time and the run's, up to T_END, in seconds: at
 * finalize (FINAL) the run ends at T_END, between two readings, and what
 * the meter measured is cut there as its energy is (sample_at()); the
 * reading after it, which finalize waited for, covers time after the
 * run.  Else up to its last reading. */
static void covered_at(int i, uint64_t t_end, int final, double *covered,
                       double *run)
{
  const struct pmon_mstate *ms = &pmon__g.ms[i];
  struct pmon_tl_sample cut;
  double bar;

  if (final && t_end > pmon__g.t_init_ns &&
      sample_at(i, t_end, &cut, &bar) == 0) {
    *covered = (double)cut.covered_ns * 1e-9;
    *run = (double)(t_end - pmon__g.t_init_ns) * 1e-9;
    return;
  }
  *covered = (double)ms->covered_ns * 1e-9;
  *run = run_s(ms, t_end);
}

static json_t *coverage_json(uint64_t t_end, int final)
{
  struct pmon_state *g = &pmon__g;
  json_t *arr = json_array(), *o;

  for (int i = 0; i < g->nmeters; i++) {
    const struct pmon_mstate *ms = &g->ms[i];
    double covered, run;

    covered_at(i, t_end, final, &covered, &run);

    json_array_append_new(
      arr, json_pack("{s:s, s:b, s:f, s:o, s:I, s:I, s:I, s:I, s:o}", "meter",
                     ms->m.spec.text, "total", g->total_mask[i] != 0,
                     "covered_s", covered, "fraction",
                     number_or_null(covered / run, run > 0), "gaps",
                     (json_int_t)ms->gaps, "readings", (json_int_t)ms->nread,
                     "failed_reads", (json_int_t)ms->nfail, "rejected",
                     (json_int_t)ms->rejected, "lost_at_s",
                     ms->lost_ns != 0
                       ? json_real(((double)ms->lost_ns -
                                    (double)g->t_init_ns) * 1e-9)
                       : json_null()));
    o = json_array_get(arr, json_array_size(arr) - 1);
    if (ms->wrap_ns != 0)
      json_object_set_new(o, "wrap_unknown",
                          json_integer((json_int_t)ms->ambiguous));
    /* Reads taken again for being slow (lib/meter.c, sample_one()). */
    json_object_set_new(o, "slow_reads",
                        json_integer((json_int_t)ms->retried));
    /* Frozen spans: the device published no new value for longer than its
     * limit (stale_s); when it froze, if it ended the run so. */
    json_object_set_new(o, "stale", json_integer((json_int_t)ms->stale));
    json_object_set_new(
      o, "stale_at_s",
      number_or_null(((double)ms->fresh_ns - (double)g->t_init_ns) * 1e-9,
                     ms->frozen));
    json_object_set_new(o, "stale_limit_s",
                        number_or_null(ms->m.stale_s, ms->m.stale_s > 0));
  }
  return arr;
}

static json_t *events_json(void)
{
  struct pmon_state *g = &pmon__g;
  json_t *arr = json_array();

  for (int i = 0; i < g->nevents; i++) {
    const struct pmon_event *ev = &g->events[i];

    json_array_append_new(
      arr, json_pack("{s:f, s:s, s:s, s:s}", "t_s",
                     ((double)ev->t_ns - (double)g->t_init_ns) * 1e-9,
                     "meter",
                     ev->meter >= 0 ? g->ms[ev->meter].m.spec.text : "",
                     "type", ev->type, "detail", ev->detail));
  }
  if (g->events_dropped > 0)
    json_array_append_new(
      arr, json_pack("{s:f, s:s, s:s, s:s}", "t_s", 0.0, "meter", "", "type",
                     "dropped",
                     "detail", "further events were not kept"));
  return arr;
}

/*
 * How the node total was formed, in words, into BUF: which channels of
 * which meters, and which were left out and why.
 */
static void total_how(char *buf, size_t size)
{
  struct pmon_state *g = &pmon__g;
  size_t len = 0;
  int out = 0;

  buf[0] = '\0';
  for (int i = 0; i < g->nmeters && len < size; i++) {
    const struct pmon_meter *m = &g->ms[i].m;
    int k = 0;

    if (g->total_mask[i] == 0)
      continue;
    snprintf(buf + len, size - len, "%s%.200s (", len > 0 ? " + " : "",
             m->spec.text);
    len += strlen(buf + len);
    for (int c = 0; c < m->nch && len < size; c++)
      if (g->total_mask[i] & (1u << c)) {
        snprintf(buf + len, size - len, "%s%s", k++ > 0 ? " + " : "",
                 m->ch[c].name);
        len += strlen(buf + len);
      }
    snprintf(buf + len, size - len, ")");
    len += strlen(buf + len);
  }
  for (int i = 0; i < g->nmeters && len < size; i++)
    if (g->ms[i].m.nch > 0 && g->total_mask[i] == 0)
      out++;
  if (out > 0 && len < size)
    snprintf(buf + len, size - len,
             "; %d other meter%s left out: %s the same part of the node",
             out, out == 1 ? "" : "s", out == 1 ? "it measures" : "they measure");
}

/*
 * Meter I's values at T, into *OUT: interpolated between the last sample
 * before T and the first at or after it, as a region's end is (the
 * finalize reading comes after T); *BAR gets that end's error bar from
 * the interpolation, the range of the power over the intervals around it
 * times a quarter of their spacing, and the resolution; OUT->err[2] the
 * larger of the two readings' stamp errors.  -1 when the ring has no
 * sample on each side.
 */
static int sample_at(int i, uint64_t t, struct pmon_tl_sample *out,
                     double *bar)
{
  const struct pmon_shared *sh = pmon__g.sh;
  const struct pmon_tl *tl = &sh->tl[i];
  uint64_t seq = pmon__tl_seq(tl), k;
  struct pmon_tl_sample a, b, x;
  double w, lo = INFINITY, hi = -INFINITY, p;

  if (seq < 2 || pmon__tl_get(tl, seq - 1, &b) != 0 || b.t_ns < t)
    return -1;
  for (k = seq - 1; k > 0; k--) {
    if (pmon__tl_get(tl, k - 1, &a) != 0)
      return -1;
    if (a.t_ns < t)
      break;
    b = a;
  }
  if (k == 0 || b.t_ns <= a.t_ns)
    return -1;
  w = (double)(t - a.t_ns) / (double)(b.t_ns - a.t_ns);
  *out = b;
  out->t_ns = t;
  for (int c = 0; c < PMON_CH_MAX; c++)
    out->e[c] = a.e[c] + (b.e[c] - a.e[c]) * w;
  for (int j = 0; j < 2; j++)
    out->err[j] = a.err[j] + (b.err[j] - a.err[j]) * w;
  out->err[2] = a.err[2] > b.err[2] ? a.err[2] : b.err[2];
  out->covered_ns = a.covered_ns + (uint64_t)((double)(b.covered_ns -
                                                       a.covered_ns) * w);
  /* The powers around: k-1..k (a to b), and the intervals on each side. */
  p = pmon__tl_power(i, a.e, a.t_ns, b.e, b.t_ns);
  lo = hi = isnan(p) ? 0 : p;
  if (k >= 2 && pmon__tl_get(tl, k - 2, &x) == 0 &&
      !isnan(p = pmon__tl_power(i, x.e, x.t_ns, a.e, a.t_ns))) {
    lo = p < lo ? p : lo;
    hi = p > hi ? p : hi;
  }
  if (k + 1 < seq && pmon__tl_get(tl, k + 1, &x) == 0 &&
      !isnan(p = pmon__tl_power(i, b.e, b.t_ns, x.e, x.t_ns))) {
    lo = p < lo ? p : lo;
    hi = p > hi ? p : hi;
  }
  *bar = pmon__cut_bar(lo, hi, (double)(b.t_ns - a.t_ns) * 1e-9,
                       sh->res_j[i]);
  return 0;
}

/*
 * The power at one end of meter I's run, for the error of that end's
 * stamp (pmon__end_power()): MEAN, the run's, against the meter's power
 * over the two intervals next to the end, its first samples (FIRST) or
 * its last; from the history (the node's total) when the ring no longer
 * holds the first samples.
 */
static double end_power(int i, int first, double mean)
{
  const struct pmon_tl *tl = &pmon__g.sh->tl[i];
  uint64_t seq = pmon__tl_seq(tl), k0;
  struct pmon_tl_sample s[3];
  double p[2];
  size_t np = 0;
  int n = 0;

  if (first && seq > PMON_RING) {
    const struct pmon_state *g = &pmon__g;

    for (size_t k = 1; k < 3 && k < g->hist.n; k++)
      p[np++] = pmon__hist_power(&g->hist, k - 1, k);
    return pmon__end_power(mean, p, np);
  }
  k0 = first || seq < 3 ? 0 : seq - 3;
  for (uint64_t k = k0; k < seq && n < 3; k++)
    if (pmon__tl_get(tl, k, &s[n]) == 0)
      n++;
  for (int j = 1; j < n; j++)
    p[np++] = pmon__tl_power(i, s[j - 1].e, s[j - 1].t_ns, s[j].e, s[j].t_ns);
  return pmon__end_power(mean, p, np);
}

/* The energies in O (a node's "io" or "comm", and what they hold) as the
 * job's share F +- F_ERR of them: energy_j and power_w times F, each
 * energy_err_j with the share's bar (pmon__share_apply()), the ratios
 * per joule or per watt with them. */
static void share_json(json_t *o, double f, double f_err)
{
  static const char *const times[] = {"power_w", "j_per_byte"};
  static const char *const per[] = {"mb_per_j", "mb_per_s_per_w"};
  const char *key;
  json_t *v, *e = json_object_get(o, "energy_j");
  size_t i;

  if (json_is_array(o))
    json_array_foreach(o, i, v) share_json(v, f, f_err);
  if (!json_is_object(o))
    return;
  if (json_is_number(e)) {
    double x = json_number_value(e), b = NAN;

    if (json_is_number(json_object_get(o, "energy_err_j")))
      b = json_number_value(json_object_get(o, "energy_err_j"));
    if (json_is_number(json_object_get(o, "energy_err_max_j")))
      json_object_set_new(
        o, "energy_err_max_j",
        json_real(pmon__share_max(
          f, f_err, x, json_number_value(json_object_get(o, "energy_err_max_j")))));
    pmon__share_apply(f, f_err, &x, &b);
    json_object_set_new(o, "energy_j", json_real(x));
    if (isfinite(b))
      json_object_set_new(o, "energy_err_j", json_real(b));
  }
  for (i = 0; i < 2; i++) {
    if (json_is_number(v = json_object_get(o, times[i])))
      json_object_set_new(o, times[i], json_real(json_number_value(v) * f));
    if (json_is_number(v = json_object_get(o, per[i])))
      json_object_set_new(o, per[i], f > 0 ? json_real(json_number_value(v) / f)
                                           : json_null());
  }
  json_object_foreach(o, key, v)
    if (json_is_object(v) || json_is_array(v))
      share_json(v, f, f_err);
}

/* Each total meter's start term of the node's bar (its first stamp's
 * error at the power then, J), as the last record had it: the spool's
 * handler adds it to the terms it computes (pmon__bar_terms()). */
static double start_j[PMON_METER_MAX];

double pmon__bar_start_j(int i)
{
  return i >= 0 && i < PMON_METER_MAX ? start_j[i] : NAN;
}

void pmon__bar_terms(int i, const struct pmon_tl_sample *last, double em,
                     double covered_s, double start, double *lin,
                     double *bound, double *sq)
{
  const struct pmon_shared *sh = pmon__g.sh;
  double end_w = NAN;

  if (last->t_ns > sh->t_init_ns)
    end_w = end_power(i, 0,
                      fabs(em) / ((double)(last->t_ns - sh->t_init_ns) * 1e-9));
  pmon__run_terms(sh->res_j[i], sh->acc_rel[i], sh->acc_w[i], em, covered_s,
                  start, end_w, last->err, lin, bound, sq);
}

/* What node_record_at() sums over the node's meters as of T_END: the
 * channels' energies, the total's energy and its bar's terms (lin,
 * bound, sq: pmon__run_terms()), what it spans and how much of that was
 * measured. */
struct node_sum {
  json_t *chans;            /* each channel's energy, J */
  double energy;            /* the total's, J */
  double wall;              /* the span of the total's samples, s */
  double cover;             /* the least measured fraction, -1: none */
  double lin, bound, sq;    /* the total's bar terms */
  int has;                  /* every part of the total has a sample */
  int est;                  /* a part of the total is an estimate */
  unsigned long samples;    /* readings of every meter */
  uint64_t t_last;          /* the total meter's last sample */
  char from[PMON_METER_MAX * (PMON_SPEC_MAX + 3)]; /* the total's specs */
};

/* Meter I's part of the node's bar, its energy EM in the total up to its
 * sample LAST (END_BAR: the cut's bar at finalize, else NAN).  The run's
 * ends are readings (stamped where they were taken): its error bar is
 * the resolution of one difference, the readings' stated accuracy and,
 * for a sampled meter, its trapezoids. */
static void meter_bar(int i, const struct pmon_tl_sample *last, double em,
                      double end_bar, struct node_sum *s)
{
  struct pmon_state *g = &pmon__g;
  const struct pmon_shared *sh = g->sh;
  struct pmon_tl_sample s0;
  double h0 = g->hist.n > 0 ? g->hist.p[0].err[2] : 0;

  /* Its ends: each reading's stamp (how far it may be from the instant
   * its value held) at the power around it: the first's, and the last's
   * or the larger of the two the end is cut between.  The start's stamp
   * is not off as the later ones are (init reads until a new value
   * comes, at shorter intervals than the poller, which may keep step
   * with the meter's publications), so the two do not cancel as a
   * region's ends do: each counts at its power, not at the power's
   * change. */
  if (pmon__tl_get(&sh->tl[i], 0, &s0) == 0)
    h0 = s0.err[2];
  start_j[i] = 0;
  if (last->t_ns > sh->t_init_ns)
    start_j[i] =
      end_power(i, 1,
                fabs(em) / ((double)(last->t_ns - sh->t_init_ns) * 1e-9)) *
      h0;
  pmon__bar_terms(i, last, em, (double)g->ms[i].covered_ns * 1e-9,
                  start_j[i], &s->lin, &s->bound, &s->sq);
  if (!isnan(end_bar))
    s->lin += end_bar;
}

/* Meter I's part of S as of T_END (FINAL: at finalize, where the run
 * ends between two of its readings). */
static void meter_sum(int i, uint64_t t_end, int final, struct node_sum *s)
{
  struct pmon_state *g = &pmon__g;
  const struct pmon_shared *sh = g->sh;
  const struct pmon_meter *m = &g->ms[i].m;
  uint64_t seq = pmon__tl_seq(&sh->tl[i]);
  struct pmon_tl_sample first, last, cut;
  double em = 0, end_bar = NAN;

  s->samples += g->ms[i].nread;
  if (g->total_mask[i] != 0) {
    double c, r, f;

    covered_at(i, t_end, final, &c, &r);
    f = r > 0 ? c / r : -1;
    s->est |= g->ms[i].estimated;
    if (f >= 0 && (s->cover < 0 || f < s->cover))
      s->cover = f;
    snprintf(s->from + strlen(s->from), sizeof s->from - strlen(s->from),
             "%s%s", s->from[0] != '\0' ? " + " : "", m->spec.text);
  }
  if (seq == 0 || pmon__tl_get(&sh->tl[i], seq - 1, &last) != 0) {
    if (g->total_mask[i] != 0)
      s->has = 0; /* a part of the total without a sample: no total */
    return;
  }
  /* At finalize the run ends at T_END, between two readings. */
  if (final && sample_at(i, t_end, &cut, &end_bar) == 0)
    last = cut;
  for (int c = 0; c < m->nch; c++) {
    char key[PMON_CH_NAME_MAX + 40];

    snprintf(key, sizeof key, "%s", m->ch[c].name);
    if (json_object_get(s->chans, key) != NULL)
      snprintf(key, sizeof key, "%s@%s", m->ch[c].name, m->drv->name);
    json_object_set_new(s->chans, key, json_real(last.e[c]));
    if (g->total_mask[i] & (1u << c))
      em += last.e[c];
  }
  s->energy += em;
  if (g->total_mask[i] != 0)
    meter_bar(i, &last, em, end_bar, s);
  if (i == g->total_meter) {
    s->t_last = last.t_ns;
    /* Energy and time over the same span: first to last sample. */
    if (pmon__tl_get(&sh->tl[i], 0, &first) == 0 && last.t_ns > first.t_ns)
      s->wall = (double)(last.t_ns - first.t_ns) * 1e-9;
    else if (seq > PMON_RING)
      s->wall = (double)(last.t_ns - sh->t_init_ns) * 1e-9;
  }
}

/* The figures of REC that say what the node ran at and with whom, and
 * its communication: the clock limits, the sharing, the site's clock
 * calibration (FINAL), the calls (FINAL with RANKS; shared by SPLIT's
 * factor SF +- SF_ERR), or those so far for the spool. */
static void node_context(json_t *rec, json_t *ranks, int final, int split,
                         double sf, double sf_err)
{
  struct pmon_state *g = &pmon__g;
  const char *why = pmon__cpufreq_why();

  json_object_set_new(rec, "cpu_freq", pmon__cpufreq_json());
  json_object_set_new(rec, "cpu_freq_why",
                      why != NULL ? json_string(why) : json_null());
  /* Whether the job had the node alone: its CPU time beside the node's,
   * its CPUs beside the node's. */
  json_object_set_new(rec, "sharing", pmon__share_json());
  /* The node's clock calibration that the site file names, for
   * pmon-report advise (null when none; a site file that does not parse
   * was refused at init). */
  if (final) {
    char cal[4096];

    if (pmon__site_calibration(g->node_name, cal, sizeof cal) != 0)
      cal[0] = '\0';
    json_object_set_new(rec, "clock_calibration",
                        cal[0] != '\0' ? json_string(cal) : json_null());
  }
  /* The spool's snapshot has no communication figures but the node's
   * calls and bytes so far. */
  json_object_set_new(rec, "comm", final && ranks != NULL
                                     ? pmon__comm_node(ranks)
                                     : json_null());
  if (split == 1)
    share_json(json_object_get(rec, "comm"), sf, sf_err);
  if (!final)
    json_object_set_new(rec, "comm_so_far", pmon__comm_so_far());
}

/* The figures of REC over the node's time as of T_END, from S: the span
 * of its energy, the coverage, the timeline (its regions REGIONS and,
 * with RANKS, the I/O phases; scaled by SF +- SF_ERR on a shared node,
 * SPLIT 1), the least measured fraction. */
static void node_time(json_t *rec, const struct node_sum *s, json_t *ranks,
                      const struct pmon_rtab *regions, uint64_t t_end,
                      int final, int split, double sf, double sf_err)
{
  struct pmon_state *g = &pmon__g;
  int tm = g->total_meter;

  /* The span of the node's energy: from the total's first sample (init's
   * reading, or the poller's first when init's failed) to its last. */
  json_object_set_new(
    rec, "monotonic_ns",
    json_pack("[I, I]",
              (json_int_t)(tm >= 0 && g->ms[tm].origin_ns > g->t_init_ns
                             ? g->ms[tm].origin_ns
                             : g->t_init_ns),
              (json_int_t)s->t_last));
  json_object_set_new(rec, "coverage", coverage_json(t_end, final));
  /* The timeline travels as text, a fifth of its size as JSON values,
   * and write_doc() writes it in place. */
  if (g->timeline > 0) {
    const uint64_t(*ph)[3] = NULL;
    int nph = ranks != NULL ? pmon__io_node_phases(&ph) : 0;
    char *tl = pmon__timeline_text(g->timeline, regions, ph, nph,
                                   split == 1 ? sf : 1,
                                   split == 1 ? sf_err : 0);

    json_object_set_new(rec, "timeline",
                        tl != NULL ? json_string(tl) : json_null());
    free(tl);
  } else {
    json_object_set_new(rec, "timeline", json_null());
  }
  json_object_set_new(rec, "energy_coverage",
                      number_or_null(s->cover, s->has && s->cover >= 0));
}

/*
 * The node's record as of T_END, with the ranks' I/O records in RANKS and
 * the node's regions in REGIONS: at finalize (FINAL), or for the spool
 * while the job runs (what the ranks last published, and the figures up
 * to the latest samples).  The spool's caller holds g->lock, so that the
 * events and the history hold still; the meters' counts it reads
 * (readings, measured time) may be a reading behind.
 */
static json_t *node_record_at(json_t *ranks, const struct pmon_rtab *regions,
                              uint64_t t_end, int final)
{
  struct pmon_state *g = &pmon__g;
  struct node_sum s;
  double bar, bmax, node_e, node_bar, node_max, sf = 1, sf_err = 0;
  int tm = g->total_meter, split;
  char covers[64], how[1024];
  json_t *io, *io_files, *rec;

  memset(&s, 0, sizeof s);
  s.chans = json_object();
  s.wall = (double)(t_end - g->t_init_ns) * 1e-9;
  s.cover = -1;
  s.has = tm >= 0;
  s.t_last = t_end;
  for (int i = 0; i < g->nmeters; i++)
    meter_sum(i, t_end, final, &s);
  pmon__covers_text(g->covers, covers, sizeof covers);
  total_how(how, sizeof how);
  bar = pmon__err_combine(s.lin, s.bound, s.sq);
  bmax = pmon__err_max(s.lin, s.bound);
  node_e = s.energy;
  node_bar = bar;
  node_max = bmax;
  /* At finalize, on a shared node, the job's share of its energy. */
  split = final ? pmon__share_factor(&sf, &sf_err) : 0;
  if (split == 1) {
    bmax = pmon__share_max(sf, sf_err, s.energy, bmax);
    pmon__share_apply(sf, sf_err, &s.energy, &bar);
  }
  if (ranks != NULL) {
    io = pmon__io_node(ranks, &io_files, final);
    if (final && json_is_object(io))
      json_object_set_new(io, "freq_policy", pmon__iofreq_node_json());
  } else {
    io = json_null();
    io_files = NULL;
  }
  rec = json_pack(
    "{s:s, s:i, s:i, s:o, s:f, s:o, s:b, s:o, s:o, s:o, s:o, s:I, s:o, s:o, "
    "s:o}",
    "name", g->node_name, "ranks", g->local_size, "leader_rank", g->rank,
    "energy_j", number_or_null(s.energy, s.has), "wall_s", s.wall,
    "power_w", number_or_null(s.energy / s.wall, s.has && s.wall > 0),
    "estimated", s.est, "total_from",
    tm >= 0 ? json_string(s.from) : json_null(), "covers",
    tm >= 0 ? json_string(covers) : json_null(), "total_how",
    tm >= 0 ? json_string(how) : json_null(), "channels", s.chans,
    "samples", (json_int_t)s.samples, "events", events_json(), "meters",
    meters_json(), "io", io);
  if (rec == NULL) {
    json_decref(io_files);
    return NULL;
  }
  /* An estimate's error is its model's: unknown (NAN, from its meter's
   * terms) unless the site states it. */
  json_object_set_new(rec, "energy_err_j",
                      number_or_null(bar, s.has && isfinite(bar)));
  json_object_set_new(rec, "energy_err_max_j",
                      number_or_null(bmax, s.has && isfinite(bar)));
  /* What the meters saw, and the job's share of it (1 alone, null when
   * not known); the I/O's and communication's energies as the node's. */
  if (final) {
    json_object_set_new(rec, "node_energy_j", number_or_null(node_e, s.has));
    json_object_set_new(rec, "node_energy_err_j",
                        number_or_null(node_bar, s.has && isfinite(node_bar)));
    json_object_set_new(rec, "node_energy_err_max_j",
                        number_or_null(node_max, s.has && isfinite(node_bar)));
    json_object_set_new(rec, "share",
                        split >= 0 ? json_real(sf) : json_null());
  }
  if (split == 1)
    share_json(io, sf, sf_err);
  node_context(rec, ranks, final, split, sf, sf_err);
  node_time(rec, &s, ranks, regions, t_end, final, split, sf, sf_err);
  if (io_files != NULL)
    json_object_set_new(rec, "io_files", io_files);
  return rec;
}

json_t *pmon__node_record(json_t *ranks, const struct pmon_rtab *regions)
{
  return node_record_at(ranks, regions,
                        pmon__g.t_end_ns ? pmon__g.t_end_ns
                                         : pmon__g.t_fin_ns,
                        1);
}

json_t *pmon__node_snapshot(uint64_t now, json_t *io_ranks,
                            const struct pmon_rtab *regions)
{
  return node_record_at(io_ranks, regions, now, 0);
}

/* min, max, mean, population stddev of the numbers in V (N of them). */
static json_t *stats_json(const double *v, int n)
{
  double min = INFINITY, max = -INFINITY, sum = 0, sq = 0, mean;

  if (n == 0)
    return json_pack("{s:n, s:n, s:n, s:n}", "min", "max", "mean", "stddev");
  for (int i = 0; i < n; i++) {
    min = v[i] < min ? v[i] : min;
    max = v[i] > max ? v[i] : max;
    sum += v[i];
  }
  mean = sum / n;
  for (int i = 0; i < n; i++)
    sq += (v[i] - mean) * (v[i] - mean);
  return json_pack("{s:f, s:f, s:f, s:f}", "min", min, "max", max, "mean",
                   mean, "stddev", sqrt(sq / n));
}

static void iso_time(const struct timespec *ts, char *buf, size_t size)
{
  struct tm tm;

  gmtime_r(&ts->tv_sec, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *job_meters(json_t *nodes)
{
  json_t *seen = json_object(), *out = json_array(), *node;
  size_t i;

  json_array_foreach(nodes, i, node) {
    json_t *m;
    size_t k;

    json_array_foreach(json_object_get(node, "meters"), k, m) {
      const char *spec = json_string_value(json_object_get(m, "spec"));

      if (spec != NULL && json_object_get(seen, spec) == NULL) {
        json_object_set_new(seen, spec, json_true());
        json_array_append(out, m);
      }
    }
  }
  json_decref(seen);
  return out;
}

/* What the job's total covers: the nodes' "covers" when they agree,
 * "mixed" when they do not, null when no node has a total. */
static json_t *job_covers(json_t *nodes)
{
  const char *seen = NULL;
  json_t *node;
  size_t i;

  json_array_foreach(nodes, i, node) {
    const char *c = json_string_value(json_object_get(node, "covers"));

    if (c == NULL || !json_is_number(json_object_get(node, "energy_j")))
      continue;
    if (seen != NULL && strcmp(seen, c) != 0)
      return json_string("mixed");
    seen = c;
  }
  return seen != NULL ? json_string(seen) : json_null();
}

/* job.label and job.tags from PMON_LABEL and PMON_TAGS (checked at
 * init: key=value pairs separated by commas). */
void pmon__label_tags(json_t *job)
{
  const char *t = pmon__g.tags;
  json_t *tags = json_object();

  json_object_set_new(job, "label", pmon__g.label[0] != '\0'
                                      ? json_string(pmon__g.label)
                                      : json_null());
  while (tags != NULL && *t != '\0') {
    size_t klen = strcspn(t, "="), vlen = strcspn(t + klen + 1, ",");
    char key[PMON_TAG_KEY_MAX + 1];

    snprintf(key, sizeof key, "%.*s", (int)klen, t);
    json_object_set_new(tags, key, json_stringn(t + klen + 1, vlen));
    t += klen + 1 + vlen;
    t += *t == ',';
  }
  json_object_set_new(job, "tags", tags != NULL ? tags : json_object());
}

/* The report path: PMON_OUTPUT, a file in it when it is a directory, or
 * pmon-<jobid>.json. */
void pmon__output_path(char *buf, size_t size)
{
  const char *o = getenv(PMON_ENV_OUTPUT);
  struct stat st;

  if (o != NULL && *o != '\0' &&
      !(stat(o, &st) == 0 && S_ISDIR(st.st_mode)))
    snprintf(buf, size, "%s", o);
  else
    snprintf(buf, size, "%s%spmon-%s.json", o != NULL && *o ? o : "",
             o != NULL && *o && o[strlen(o) - 1] != '/' ? "/" : "",
             pmon__g.jobid);
}

/* What the report file holds: DOC, then its last key, "regions", written
 * from REGIONS one record at a time, so that a job of many regions never
 * holds them all as JSON at once.  NODES names the regions' nodes. */
struct report_doc {
  json_t *doc;
  struct pmon_rrec **regions;
  size_t nregions;
  json_t *nodes;
};

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

/* Write S to F with DEPTH more spaces after each newline, as if the
 * value it holds were nested that deep; nonzero when it all went. */
static int put_indented(const char *s, int depth, FILE *f)
{
  const char *nl;

  for (; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
    if (fwrite(s, 1, (size_t)(nl - s) + 1, f) != (size_t)(nl - s) + 1 ||
        fprintf(f, "%*s", depth, "") < 0)
      return 0;
  return fputs(s, f) >= 0;
}

/* The JSON text of object O without its closing brace (and the newline
 * before it); NULL without memory. */
static char *dump_open(json_t *o)
{
  char *s = json_dumps(o, DUMP_FLAGS);
  size_t len = s != NULL ? strlen(s) : 0;

  if (len < 2 || s[len - 1] != '}') {
    free(s);
    return NULL;
  }
  s[len - (s[len - 2] == '\n' ? 2 : 1)] = '\0';
  return s;
}

/* Write node record NODE to F at the depth of an element of "nodes", its
 * timeline (text, pmon__node_record()) as its last key; nonzero when it
 * all went. */
static int write_node(json_t *node, FILE *f)
{
  json_t *tl = json_object_get(node, "timeline"), *c = json_copy(node);
  char *s;
  int ok;

  if (c == NULL)
    return 0;
  if (json_is_string(tl))
    json_object_del(c, "timeline");
  s = dump_open(c);
  json_decref(c);
  ok = s != NULL && put_indented(s, 2, f);
  if (ok && json_is_string(tl))
    ok = fputs(",\n   \"timeline\": ", f) >= 0 &&
         put_indented(json_string_value(tl), 2, f);
  free(s);
  return ok && fputs("\n  }", f) >= 0;
}

/* Write D to F as one JSON document; nonzero when it all went. */
static int write_doc(const struct report_doc *d, FILE *f)
{
  char *s = dump_open(d->doc);
  size_t nn = json_array_size(d->nodes);
  int ok;

  /* The document without its closing brace, then the nodes and the
   * regions. */
  ok = s != NULL && fputs(s, f) >= 0 && fputs(",\n \"nodes\": [", f) >= 0;
  free(s);
  for (size_t i = 0; ok && i < nn; i++)
    ok = fputs(i > 0 ? ",\n  " : "\n  ", f) >= 0 &&
         write_node(json_array_get(d->nodes, i), f);
  ok = ok && fputs(nn > 0 ? "\n ],\n \"regions\": [" : "],\n \"regions\": [",
                   f) >= 0;
  for (size_t i = 0; ok && i < d->nregions; i++) {
    json_t *r = pmon__rtab_rec_json(d->regions[i], d->nodes);

    s = r != NULL ? json_dumps(r, DUMP_FLAGS) : NULL;
    ok = s != NULL && fputs(i > 0 ? ",\n  " : "\n  ", f) >= 0 &&
         put_indented(s, 2, f);
    free(s);
    json_decref(r);
  }
  return ok && fputs(d->nregions > 0 ? "\n ]\n}\n" : "]\n}\n", f) >= 0;
}

/* Write D to F, flushed to disk when SYNC, and close F.  Nonzero when
 * everything worked. */
static int dump(const struct report_doc *d, FILE *f, int sync)
{
  int ok = write_doc(d, f);

  if (sync)
    ok &= fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok &= fclose(f) == 0;
  return ok;
}

/* Whether the report is written into what PATH names rather than replacing
 * PATH: a descriptor open for writing into it, -1 to replace PATH, or -2
 * with the error recorded.
 *
 * A report replaces PATH: it is written to a new file beside it and renamed
 * over it, so that a link at PATH is replaced and never written through.
 * It is written into what PATH names only where that cannot be replaced
 * and the user chose it:
 *  - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: this process's
 *    descriptor N, as bash and gawk read these names, at its offset even
 *    when it is a regular file (stdout redirected to a file: that file is
 *    neither truncated nor replaced, and /dev/stdout is never renamed over);
 *  - a device or FIFO at PATH, or at the end of a link at PATH, when what
 *    is at PATH belongs to this user or root, a stricter form of the
 *    kernel's fs.protected_symlinks rule: a link or FIFO that another user
 *    planted in a shared directory (pointing to a disk, or to hold the job
 *    up) is never followed, while /dev/null, a terminal, the user's own
 *    FIFO or link to one are written as before.  The object opened must not
 *    be a regular file, so a link changed after the check is not written
 *    through either. */
static int open_in_place(const char *path)
{
  const char *n = NULL;
  char *end;
  long fd = -1;
  struct stat ls, st;
  int f;

  if (strcmp(path, "/dev/stdout") == 0)
    fd = STDOUT_FILENO;
  else if (strcmp(path, "/dev/stderr") == 0)
    fd = STDERR_FILENO;
  else if (strncmp(path, "/dev/fd/", 8) == 0)
    n = path + 8;
  else if (strncmp(path, "/proc/self/fd/", 14) == 0)
    n = path + 14;
  if (n != NULL && *n >= '0' && *n <= '9') {
    errno = 0;
    fd = strtol(n, &end, 10);
    if (*end != '\0' || errno != 0 || fd > INT_MAX)
      fd = -1;
  }
  if (fd >= 0) {
    if (fd == STDOUT_FILENO)
      fflush(stdout); /* the program's lines before the report */
    if ((f = fcntl((int)fd, F_DUPFD_CLOEXEC, 0)) < 0) {
      pmon__fail(PMON_EOUTPUT, "report: %s: descriptor %ld: %s", path, fd,
                 strerror(errno));
      return -2;
    }
    return f;
  }
  if (lstat(path, &ls) != 0 || S_ISREG(ls.st_mode) ||
      (ls.st_uid != geteuid() && ls.st_uid != 0) ||
      (S_ISLNK(ls.st_mode) && (stat(path, &st) != 0 || S_ISREG(st.st_mode))))
    return -1;
  if ((f = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0) {
    pmon__fail(PMON_EOUTPUT, "report: %s: cannot open: %s", path,
               strerror(errno));
    return -2;
  }
  if (fstat(f, &st) != 0 || S_ISREG(st.st_mode)) {
    close(f);
    pmon__fail(PMON_EOUTPUT,
               "report: %s: changed while it was opened: not written", path);
    return -2;
  }
  return f;
}

static int write_atomically(const struct report_doc *doc, const char *path)
{
  char tmp[PATH_MAX + 32];
  FILE *f;
  int fd, ok;

  if ((fd = open_in_place(path)) == -2)
    return PMON_EOUTPUT;
  if (fd >= 0) {
    if ((f = fdopen(fd, "w")) == NULL) {
      int e = errno;

      close(fd);
      return pmon__fail(PMON_EOUTPUT, "report: %s: cannot open: %s", path,
                        strerror(e));
    }
    errno = 0;
    if (dump(doc, f, 0))
      return 0;
    return pmon__fail(PMON_EOUTPUT, "report: %s: cannot write: %s", path,
                      strerror(errno ? errno : EIO));
  }
  if ((fd = pmon__create_beside(path, 0666, tmp, sizeof tmp)) < 0)
    return pmon__fail(PMON_EOUTPUT, "report: %s: cannot create %s.tmp.*: %s",
                      path, path, strerror(errno));
  if ((f = fdopen(fd, "w")) == NULL) {
    int e = errno;

    close(fd);
    unlink(tmp);
    return pmon__fail(PMON_EOUTPUT, "report: %s: cannot create: %s", tmp,
                      strerror(e));
  }
  ok = dump(doc, f, 1);
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;

    unlink(tmp);
    return pmon__fail(PMON_EOUTPUT, "report: %s: cannot write: %s", path,
                      strerror(e));
  }
  return 0;
}

/*
 * The report where the one asked for could not be written: a new file
 * $TMPDIR/pmon-JOBID-XXXXXX.json (/tmp without TMPDIR), created with
 * O_EXCL, so that nothing in a shared directory is overwritten or
 * followed.  Its name into NAME (the directory's, when it fails); 0, or
 * PMON_EOUTPUT recorded.
 */
static int write_fallback(const struct report_doc *doc, char *name,
                          size_t size)
{
  const char *dir = getenv("TMPDIR");
  const char *id = json_string_value(
      json_object_get(json_object_get(doc->doc, "job"), "id"));
  char before[PATH_MAX];
  FILE *f;
  int fd;

  if (dir == NULL || dir[0] != '/' || strlen(dir) > 1024)
    dir = "/tmp";
  snprintf(name, size, "%s", dir);
  snprintf(before, sizeof before, "%s/pmon-%.64s-", dir, id ? id : "job");
  for (char *p = before + strlen(dir) + 1; *p; p++)
    if (*p == '/' || (unsigned char)*p < 0x20)
      *p = '_'; /* the id as a file name */
  /* 0600: in a shared directory, the job's details are the user's. */
  if ((fd = pmon__create_new(before, ".json", 0600, name, size)) < 0) {
    int e = errno;

    snprintf(name, size, "%s", dir);
    return pmon__fail(PMON_EOUTPUT, "%s", strerror(e));
  }
  if ((f = fdopen(fd, "w")) == NULL) {
    int e = errno;

    close(fd);
    unlink(name);
    return pmon__fail(PMON_EOUTPUT, "%s", strerror(e));
  }
  errno = 0;
  if (!dump(doc, f, 1)) {
    int e = errno;

    unlink(name);
    return pmon__fail(PMON_EOUTPUT, "%s", strerror(e ? e : EIO));
  }
  return 0;
}

static void human_energy(double j, char *buf, size_t size)
{
  if (fabs(j) >= 1e6)
    snprintf(buf, size, "%.3f MJ", j / 1e6);
  else if (fabs(j) >= 1e3)
    snprintf(buf, size, "%.3f kJ", j / 1e3);
  else
    snprintf(buf, size, "%.2f J", j);
}

static void human_bytes(double b, char *buf, size_t size)
{
  if (b >= 1e9)
    snprintf(buf, size, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    snprintf(buf, size, "%.2f MB", b / 1e6);
  else if (b >= 1e3)
    snprintf(buf, size, "%.2f kB", b / 1e3);
  else
    snprintf(buf, size, "%.0f B", b);
}

/* One line for the job's MPI-IO, when it was intercepted and the job made
 * an MPI-IO call: a job without one needs no line (the report says so). */
static void io_summary(json_t *io)
{
  int est = json_is_true(json_object_get(io, "estimated"));
  json_t *e = json_object_get(io, "energy_j");
  char r[32], w[32], j[32], rates[96] = "";
  long long nph;

  if (!json_is_object(io) || json_integer_value(json_object_get(io, "ops")) <= 0)
    return;
  human_bytes((double)json_integer_value(json_object_get(io, "bytes_read")),
              r, sizeof r);
  human_bytes(
    (double)json_integer_value(json_object_get(io, "bytes_written")), w,
    sizeof w);
  if (json_is_number(e)) {
    human_energy(json_number_value(e), j, sizeof j);
    if (json_is_number(json_object_get(io, "mb_per_j")) &&
        json_is_number(json_object_get(io, "mb_per_s_per_w")))
      snprintf(rates, sizeof rates, ", %.4g MB/J, %.4g MB/s/W",
               json_number_value(json_object_get(io, "mb_per_j")),
               json_number_value(json_object_get(io, "mb_per_s_per_w")));
  } else {
    snprintf(j, sizeof j, "energy not measured");
  }
  nph = (long long)json_integer_value(json_object_get(io, "phases"));
  pmon__say("io: %s read, %s written, %lld calls, %.3f s (slowest rank); "
            "%s%s in %lld phase%s of %.3f s%s",
            r, w, (long long)json_integer_value(json_object_get(io, "ops")),
            json_real_value(json_object_get(io, "time_s")), j,
            est && json_is_number(e) ? " (estimated)" : "", nph,
            nph == 1 ? "" : "s",
            json_real_value(json_object_get(io, "phase_time_s")), rates);
}

/* What a meter left out, into BUF: "2 gaps, 1 frozen span", "" for
 * nothing.  FROZEN counts the frozen spans to name there. */
static void stale_spans(long long gaps, long long frozen, char *buf,
                        size_t size)
{
  snprintf(buf, size, "%s", "");
  if (gaps > 0)
    snprintf(buf, size, "%lld gap%s", gaps, gaps == 1 ? "" : "s");
  if (frozen > 0)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%lld frozen span%s",
             gaps > 0 ? ", " : "", frozen, frozen == 1 ? "" : "s");
}

/* One line per meter that was lost, left gaps or froze, at most 8, after
 * one per meter that could not be opened, at most 4: what failed and,
 * where the driver knows it, what would fix it. */
static void coverage_summary(json_t *nodes)
{
  json_t *node, *c;
  size_t i, k;
  int said = 0, more = 0;

  json_array_foreach(nodes, i, node) {
    json_array_foreach(json_object_get(node, "events"), k, c) {
      if (strcmp(json_string_value(json_object_get(c, "type")),
                 "open_error") != 0)
        continue;
      if (said++ < 4)
        pmon__say("node %s: meter not used: %s",
                  json_string_value(json_object_get(node, "name")),
                  json_string_value(json_object_get(c, "detail")));
      else
        more++;
    }
  }
  if (more > 0)
    pmon__say("... %d more meters not used, in the report's events", more);
  said = more = 0;

  json_array_foreach(nodes, i, node) {
    json_array_foreach(json_object_get(node, "coverage"), k, c) {
      json_t *lost = json_object_get(c, "lost_at_s");
      json_t *stale_at = json_object_get(c, "stale_at_s");
      long long gaps = json_integer_value(json_object_get(c, "gaps"));
      long long stale = json_integer_value(json_object_get(c, "stale"));
      double f = json_real_value(json_object_get(c, "fraction"));
      char spans[64];

      if (!json_is_number(lost) && gaps == 0 && stale == 0)
        continue;
      if (said == 8) {
        more++;
        continue;
      }
      said++;
      /* The span it ended the run frozen in has a line of its own. */
      stale_spans(gaps,
                  stale - (json_is_number(stale_at) && !json_is_number(lost)),
                  spans, sizeof spans);
      if (json_is_number(lost))
        pmon__say("node %s: meter %s lost at %.1f s%s%s; it measured "
                  "%.0f %% of the run",
                  json_string_value(json_object_get(node, "name")),
                  json_string_value(json_object_get(c, "meter")),
                  json_number_value(lost), spans[0] != '\0' ? ", " : "",
                  spans, 100 * f);
      else if (json_is_number(stale_at))
        pmon__say("node %s: meter %s stale since %.1f s (no new value for "
                  "more than %.1f s)%s%s; it measured %.0f %% of the run",
                  json_string_value(json_object_get(node, "name")),
                  json_string_value(json_object_get(c, "meter")),
                  json_number_value(stale_at),
                  json_real_value(json_object_get(c, "stale_limit_s")),
                  spans[0] != '\0' ? ", before that " : "", spans, 100 * f);
      else
        pmon__say("node %s: meter %s: %s; it measured %.0f %% of the run",
                  json_string_value(json_object_get(node, "name")),
                  json_string_value(json_object_get(c, "meter")), spans,
                  100 * f);
    }
  }
  if (more > 0)
    pmon__say("... %d more meters with gaps in the report", more);
}

/* Energy J and its error bar ERR (NAN: none) into BUF, "424.10 +- 3.20
 * J".  The summary is plain ASCII: it goes to the job's log. */
static void energy_err_text(double j, double err, char *buf, size_t size)
{
  double unit = fabs(j) >= 1e6 ? 1e6 : fabs(j) >= 1e3 ? 1e3 : 1;
  const char *name = unit == 1e6 ? "MJ" : unit == 1e3 ? "kJ" : "J";
  int digits = unit > 1 ? 3 : 2;

  if (!isfinite(err))
    human_energy(j, buf, size);
  else
    snprintf(buf, size, "%.*f +- %.*f %s", digits, j / unit, digits,
             err / unit, name);
}

/* What made the shared nodes shared (nodes[].sharing.evidence), in
 * words: "another pmon job, Slurm", into BUF. */
static void shared_why(json_t *nodes, char *buf, size_t size)
{
  static const char *const kinds[][2] = {
    {"slurm", "Slurm"}, {"pmon", "another pmon job"},
    {"user", "another user's processes"}, {"gpu", "another's process on a GPU"}};
  size_t i, j, k = 0;
  json_t *nd, *ev;

  buf[0] = '\0';
  for (size_t c = 0; c < sizeof kinds / sizeof kinds[0]; c++) {
    int seen = 0;

    json_array_foreach(nodes, i, nd) {
      json_t *sh = json_object_get(nd, "sharing");

      if (!json_is_true(json_object_get(sh, "shared")))
        continue;
      json_array_foreach(json_object_get(sh, "evidence"), j, ev) {
        const char *kind = json_string_value(json_object_get(ev, "kind"));

        seen |= kind != NULL && strcmp(kind, kinds[c][0]) == 0;
      }
    }
    if (seen && k + strlen(kinds[c][1]) + 3 < size)
      k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? ", " : "",
                            kinds[c][1]);
  }
}

/* What the summary says of shared nodes (nodes[].sharing), into BUF:
 * " (this job's share of its shared node, 49 +- 1 %, beside another pmon
 * job)", " (this job's share of 3 shared nodes, beside Slurm)", or where
 * a share is not known " (2 nodes shared, their energy not this job's
 * alone)"; "" when none was (each node held whole). */
static void shared_scope(json_t *nodes, char *buf, size_t size)
{
  size_t i, n = 0, split = 0;
  double f = NAN, f_err = NAN;
  char why[128], beside[144] = "";
  json_t *nd;

  json_array_foreach(nodes, i, nd) {
    json_t *sh = json_object_get(nd, "sharing");

    if (!json_is_true(json_object_get(sh, "shared")))
      continue;
    n++;
    if (json_is_number(json_object_get(nd, "share"))) {
      split++;
      f = json_number_value(json_object_get(nd, "share"));
      f_err = json_is_number(json_object_get(sh, "share_err"))
                ? json_number_value(json_object_get(sh, "share_err"))
                : NAN;
    }
  }
  shared_why(nodes, why, sizeof why);
  if (why[0] != '\0')
    snprintf(beside, sizeof beside, ", beside %s", why);
  if (n == 0)
    snprintf(buf, size, "%s", "");
  else if (split < n)
    snprintf(buf, size,
             " (%zu node%s shared, %s energy not this job's alone%s)", n,
             n == 1 ? "" : "s", n == 1 ? "its" : "their", beside);
  else if (n == 1 && json_array_size(nodes) == 1 && isfinite(f_err))
    snprintf(buf, size,
             " (this job's share of its shared node, %.0f +- %.0f %%%s)",
             100 * f, 100 * f_err, beside);
  else
    snprintf(buf, size, " (this job's share of %zu shared node%s%s)", n,
             n == 1 ? "" : "s", beside);
}

static void summary(const struct report_doc *rd, const char *path,
                    int written, const char *spool)
{
  json_t *doc = rd->doc;
  json_t *job = json_object_get(doc, "job"), *e = json_object_get(doc, "energy_j");
  json_t *st = json_object_get(json_object_get(doc, "stats"), "node_energy_j");
  int est = json_is_true(json_object_get(doc, "estimated"));
  const char *covers = json_string_value(json_object_get(doc, "covers"));
  double wall = json_real_value(json_object_get(job, "wall_s"));
  char scope[384] = "";
  int ranks = (int)json_integer_value(json_object_get(job, "ranks"));
  int nodes = (int)json_integer_value(json_object_get(job, "nodes"));
  char a[32], b[32], c[32], d[32];
  json_int_t folded;
  size_t i;

  /* A total of parts of the nodes (RAPL: processors and memory) is never
   * passed off as the nodes' energy. */
  if (covers != NULL && strcmp(covers, "node") != 0)
    snprintf(scope, sizeof scope, " (%s only, not the whole node%s)",
             strcmp(covers, "mixed") == 0 ? "parts of some nodes" : covers,
             nodes == 1 ? "" : "s");
  shared_scope(rd->nodes, scope + strlen(scope), sizeof scope - strlen(scope));
  if (json_is_number(e)) {
    json_t *err = json_object_get(doc, "energy_err_j");

    energy_err_text(json_number_value(e),
                    json_is_number(err) ? json_number_value(err) : NAN, a,
                    sizeof a);
    pmon__say("job %s: %d rank%s on %d node%s, %.2f s, %s, %.1f W%s%s",
              json_string_value(json_object_get(job, "id")), ranks,
              ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", wall, a,
              json_real_value(json_object_get(doc, "power_w")),
              est ? " (ESTIMATED from CPU use, not measured)" : "", scope);
  } else {
    pmon__say("job %s: %d rank%s on %d node%s, %.2f s, energy not measured "
              "(no usable meter)",
              json_string_value(json_object_get(job, "id")), ranks,
              ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", wall);
  }
  if (json_is_number(json_object_get(st, "mean")) &&
      json_integer_value(json_object_get(job, "nodes")) > 1) {
    human_energy(json_real_value(json_object_get(st, "min")), a, sizeof a);
    human_energy(json_real_value(json_object_get(st, "max")), b, sizeof b);
    human_energy(json_real_value(json_object_get(st, "mean")), c, sizeof c);
    human_energy(json_real_value(json_object_get(st, "stddev")), d, sizeof d);
    pmon__say("node energy: min %s, max %s, mean %s, stddev %s", a, b, c, d);
  }
  for (i = 0; i < rd->nregions; i++) {
    const struct pmon_rrec *r = rd->regions[i];
    char part[96] = "";

    if (i == 8) {
      pmon__say("... %zu more regions in the report", rd->nregions - i);
      break;
    }
    if (isfinite(r->energy_j)) {
      energy_err_text(r->energy_j, r->energy_err_j, a, sizeof a);
    } else
      snprintf(a, sizeof a, "energy not measured");
    /* Energy that covers only part of the region says so. */
    if (isfinite(r->energy_j) && isfinite(r->coverage) &&
        r->coverage < PMON_COVERAGE_FULL)
      snprintf(part, sizeof part, ", measured over %.0f%% of its time",
               100 * r->coverage);
    /* A figure fitted over the region's repetitions says so. */
    if (isfinite(r->energy_j) && r->fitted > 0)
      snprintf(part + strlen(part), sizeof part - strlen(part), ", %s",
               r->fitted >= r->nodes - r->no_energy
                 ? "fitted over its repetitions"
                 : "fitted on some nodes");
    pmon__say("region %s: %llu pairs, %.3f s, %s%s%s", r->name,
              (unsigned long long)r->count, r->time_s, a,
              est && isfinite(r->energy_j) ? " (estimated)" : "", part);
  }
  /* Names folded where rank 0 did not say it when it happened. */
  folded = json_integer_value(json_object_get(job, "region_names_folded"));
  if (folded > 0 && !pmon__regions_said_folding())
    pmon__say("regions: %lld region name%s beyond %s (%lld per process) "
              "counted as \"(other)\"",
              (long long)folded, folded == 1 ? "" : "s", PMON_ENV_MAX_REGIONS,
              (long long)json_integer_value(
                json_object_get(job, "region_names_limit")));
  io_summary(json_object_get(doc, "io"));
  coverage_summary(rd->nodes);
  if (written)
    pmon__say("report: %s", path);
  else if (spool != NULL)
    pmon__say("report: not written; pmon-report rebuild %s makes it from "
              "the spool", spool);
  else
    pmon__say("report: not written");
}

/* The job's region names: the limit, how many were folded into
 * "(other)", and records lost on the way, if any. */
static void region_names(json_t *job, const struct pmon_rtab *t)
{
  json_object_set_new(job, "region_names_limit",
                      json_integer((json_int_t)pmon__regions_limit()));
  json_object_set_new(job, "region_names_folded",
                      json_integer((json_int_t)t->folded));
  json_object_set_new(job, "region_names_folded_exact",
                      json_boolean(!t->folded_lower));
  if (t->lost > 0)
    json_object_set_new(job, "region_records_lost",
                        json_integer((json_int_t)t->lost));
}

/* The job's document from its nodes' records NODES, but its regions
 * (written from their records: write_doc()); NULL when out of memory,
 * said as pmon__fail() says. */
static json_t *job_doc(json_t *nodes)
{
  struct pmon_state *g = &pmon__g;
  size_t n = json_array_size(nodes), i;
  double *ev = calloc(n + 1, sizeof *ev), *pv = calloc(n + 1, sizeof *pv);
  double total = 0, wall = 0, err = 0, emax = 0;
  int ne = 0, est = 0, err_known = 1;
  char start[32], end[32];
  const char *req;
  json_t *node, *doc, *meters, *io;

  if (ev == NULL || pv == NULL) {
    free(ev);
    free(pv);
    pmon__fail(PMON_ENOMEM, "report: out of memory");
    return NULL;
  }
  json_array_foreach(nodes, i, node) {
    json_t *e = json_object_get(node, "energy_j");
    double w = json_real_value(json_object_get(node, "wall_s"));

    wall = w > wall ? w : wall;
    est |= json_is_true(json_object_get(node, "estimated"));
    if (json_is_number(e)) {
      ev[ne] = json_number_value(e);
      pv[ne] = w > 0 ? ev[ne] / w : 0;
      total += ev[ne++];
      /* Nodes' meters are separate devices: their bars add, a bound. */
      if (json_is_number(json_object_get(node, "energy_err_j")))
        err += json_number_value(json_object_get(node, "energy_err_j"));
      else
        err_known = 0;
      if (json_is_number(json_object_get(node, "energy_err_max_j")))
        emax += json_number_value(json_object_get(node, "energy_err_max_j"));
      else
        emax = NAN;
    }
  }
  iso_time(&g->wall_start, start, sizeof start);
  iso_time(&g->wall_end, end, sizeof end);
  meters = job_meters(nodes);
  io = pmon__io_job(nodes);
  for (size_t k = 0; k < json_array_size(nodes); k++)
    json_object_del(json_array_get(nodes, k), "meters");
  doc = json_pack(
    "{s:{s:s, s:i}, s:s, s:{s:s, s:s, s:i, s:i, s:f, s:s, s:s, s:b}, s:o, "
    "s:o, s:b, s:o, s:{s:o, s:o}, s:o}",
    "format", "name", "pmon", "version", REPORT_FORMAT_VERSION,
    "pmon_version", PMON_VERSION_STRING, "job", "id", g->jobid, "id_source",
    g->jobid_source, "ranks", g->size, "nodes", (int)n, "wall_s", wall,
    "start", start, "end", end, "mpi", g->mpi, "energy_j",
    number_or_null(total, ne > 0), "power_w",
    number_or_null(total / wall, ne > 0 && wall > 0), "estimated", est,
    "meters", meters, "stats", "node_energy_j",
    stats_json(ev, ne), "node_power_w", stats_json(pv, ne), "io", io);
  free(ev);
  free(pv);
  if (doc == NULL) {
    pmon__fail(PMON_ENOMEM, "report: cannot build the document");
    return NULL;
  }
  json_object_set_new(doc, "energy_err_j",
                      number_or_null(err, ne > 0 && err_known));
  json_object_set_new(doc, "energy_err_max_j",
                      number_or_null(emax, ne > 0 && err_known &&
                                             isfinite(emax)));
  json_object_set_new(doc, "comm", pmon__comm_job(nodes));
  if (json_is_object(io))
    json_object_set_new(io, "freq_policy", pmon__iofreq_job(nodes));
  json_object_set_new(doc, "covers", job_covers(nodes));
  req = getenv(PMON_ENV_SLURM_CPU_FREQ_REQ);
  json_object_set_new(json_object_get(doc, "job"), "cpu_freq_req",
                      req != NULL && *req != '\0' ? json_string(req)
                                                  : json_null());
  return doc;
}

/* Write document RD to PATH, or where write_fallback() finds room: said
 * once, with where it went instead, so that the figures of a whole job
 * are not lost to a full disk or a read-only directory (the reason cut
 * short, never the name of the file it went to).  PATH becomes where it
 * went; *SAVED whether it went anywhere.  Returns write_atomically()'s
 * status to PATH. */
static int save(const struct report_doc *rd, char *path, size_t size,
                int *saved)
{
  char why[512], other[PATH_MAX];
  int rc = write_atomically(rd, path);

  *saved = rc == 0;
  if (rc == 0)
    return 0;
  snprintf(why, sizeof why, "%s", pmon_errmsg() + strlen("pmon: "));
  if (write_fallback(rd, other, sizeof other) == 0) {
    pmon__say("%.160s; written to %s instead", why, other);
    snprintf(path, size, "%s", other);
    *saved = 1;
  } else {
    pmon__say("%.200s; nor to %.100s: %s", why, other,
              pmon_errmsg() + strlen("pmon: "));
  }
  pmon__fail(PMON_EOUTPUT, "%s", why);
  return rc;
}

int pmon__report(json_t *nodes, const struct pmon_rtab *regions,
                 const char *spool)
{
  struct report_doc rd;
  char path[PATH_MAX];
  int rc, saved;
  json_t *doc = job_doc(nodes);

  if (doc == NULL)
    return PMON_ENOMEM;
  region_names(json_object_get(doc, "job"), regions);
  pmon__label_tags(json_object_get(doc, "job"));
  /* The regions go last, written from their records (write_doc()). */
  rd.doc = doc;
  rd.nodes = nodes;
  rd.nregions = regions->n;
  if ((rd.regions = pmon__rtab_sorted(regions)) == NULL && regions->n > 0) {
    rd.nregions = 0;
    pmon__say("report: out of memory: the report lacks its regions");
  }
  pmon__output_path(path, sizeof path);
  rc = save(&rd, path, sizeof path, &saved);
  if (!pmon__g.quiet)
    summary(&rd, path, saved, spool);
  free(rd.regions);
  json_decref(doc);
  return rc;
}

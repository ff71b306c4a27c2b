/*
 * report.c - node records, the job report, the summary.
 *
 * At finalize every rank sends its regions to its node leader, which
 * merges them into the node's record; the leaders send their records to
 * rank 0, which writes the report (docs/report-format.md, pmon-report(5))
 * and prints the summary.  Both steps are binomial trees (lib/node.c): log2
 * steps, and memory at rank 0 in proportion to the nodes, not the ranks.
 *
 * The rules of docs/report-format.md, here in code: a node's energy is its
 * total meter's from init to finalize; a region's energy on a node is the
 * one measured by the lowest local rank that entered it; over the job,
 * counts add up, times take the maximum, energies add up over nodes.
 */
#include "config.h"

#include <errno.h>
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

#define REPORT_FORMAT_VERSION 1

static const char *const domain_names[] = {"node",  "cpu",   "memory",
                                           "accel", "other", "module"};

static json_t *number_or_null(double v, int valid)
{
  return valid && isfinite(v) ? json_real(v) : json_null();
}

/* Add R's pairs and unclosed regions to O's; O's time is the longer. */
static void merge_counts(json_t *o, json_t *r, double t)
{
  static const char *const keys[] = {"count", "unclosed"};

  for (int k = 0; k < 2; k++)
    json_object_set_new(
      o, keys[k],
      json_integer(json_integer_value(json_object_get(o, keys[k])) +
                   json_integer_value(json_object_get(r, keys[k]))));
  if (t > json_real_value(json_object_get(o, "time_s")))
    json_object_set_new(o, "time_s", json_real(t));
}

/* O[KEY] += V, where a missing or null O[KEY] counts as 0. */
static void add_number(json_t *o, const char *key, double v)
{
  json_t *sum = json_object_get(o, key);

  json_object_set_new(
    o, key, json_real(v + (json_is_number(sum) ? json_number_value(sum) : 0)));
}

/* Index of channel C of meter M in a rank's flattened "e" array. */
static int flat_index(int m, int c)
{
  int k = 0;

  for (int i = 0; i < m; i++)
    k += pmon__g.sh->nch[i];
  return k + c;
}

/* The node total of a flattened energy array E; 0 when it has none. */
static int node_total(json_t *e, double *out)
{
  const struct pmon_shared *sh = pmon__g.sh;

  *out = 0;
  if (sh->total_meter < 0 || !json_is_array(e))
    return 0;
  for (int i = 0; i < sh->nmeters; i++)
    for (int c = 0; c < sh->nch[i]; c++)
      if (sh->total_mask[i] & (1u << c))
        *out += json_real_value(json_array_get(e, (size_t)flat_index(i, c)));
  return 1;
}

/* The least of COVER[i] (per meter, a rank's "cover") over the meters in
 * the node total; -1 when there is none. */
static double total_cover(json_t *cover)
{
  const struct pmon_shared *sh = pmon__g.sh;
  double least = -1;

  for (int i = 0; i < sh->nmeters; i++) {
    json_t *v = json_array_get(cover, (size_t)i);

    if (sh->total_mask[i] != 0 && json_is_number(v) &&
        (least < 0 || json_number_value(v) < least))
      least = json_number_value(v);
  }
  return least;
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
                             "domain", domain_names[m->ch[c].domain],
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
    if (m->source[0] != '\0')
      json_object_set_new(o, "source", json_string(m->source));
    if (m->note[0] != '\0')
      json_object_set_new(o, "note", json_string(m->note));
    json_array_append_new(arr, o);
  }
  return arr;
}

/* Per meter, how much of the run it measured (core.h): the time its
 * energy covers, the gaps left out, and when it was lost if it ended the
 * run failing. */
static double run_s(const struct pmon_mstate *ms)
{
  const struct pmon_state *g = &pmon__g;
  uint64_t end = ms->prev_ns > g->t_fin_ns ? ms->prev_ns : g->t_fin_ns;

  return (double)(end - g->t_init_ns) * 1e-9;
}

static json_t *coverage_json(void)
{
  struct pmon_state *g = &pmon__g;
  json_t *arr = json_array(), *o;

  for (int i = 0; i < g->nmeters; i++) {
    const struct pmon_mstate *ms = &g->ms[i];
    double covered = (double)ms->covered_ns * 1e-9, run = run_s(ms);

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
 * Merge the node's ranks (RANKS: [{rank, local, regions}] in local rank
 * order) into the node's region list.
 */
static json_t *merge_node_regions(json_t *ranks)
{
  json_t *byname = json_object(), *out = json_array(), *rk;
  size_t i;

  json_array_foreach(ranks, i, rk) {
    json_t *regions = json_object_get(rk, "regions"), *r;
    json_int_t wr = json_integer_value(json_object_get(rk, "rank"));
    size_t k;

    json_array_foreach(regions, k, r) {
      const char *name = json_string_value(json_object_get(r, "name"));
      json_t *o = name != NULL ? json_object_get(byname, name) : NULL;
      double t = json_real_value(json_object_get(r, "time_s"));
      double f = json_real_value(json_object_get(r, "first_s"));
      double ej;
      int has;

      if (name == NULL)
        continue;
      if (o == NULL) {
        double cov = total_cover(json_object_get(r, "cover"));

        has = node_total(json_object_get(r, "e"), &ej) &&
              json_integer_value(json_object_get(r, "unresolved")) == 0;
        /* Power over the measuring rank's own time in the region. */
        o = json_pack("{s:s, s:O, s:f, s:o, s:o, s:o, s:I, s:O, s:f}",
                      "name", name, "count", json_object_get(r, "count"),
                      "time_s", t, "energy_j", number_or_null(ej, has),
                      "power_w", number_or_null(ej / t, has && t > 0),
                      "coverage", number_or_null(cov, has && cov >= 0),
                      "rank", wr, "unclosed", json_object_get(r, "unclosed"),
                      "first_s", f);
        json_object_set_new(byname, name, o);
        json_array_append(out, o);
        continue;
      }
      merge_counts(o, r, t);
      if (f < json_real_value(json_object_get(o, "first_s")))
        json_object_set_new(o, "first_s", json_real(f));
    }
  }
  json_decref(byname);
  return out;
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

json_t *pmon__node_record(json_t *ranks)
{
  struct pmon_state *g = &pmon__g;
  const struct pmon_shared *sh = g->sh;
  json_t *chans = json_object();
  double energy = 0, wall = (double)(g->t_fin_ns - g->t_init_ns) * 1e-9;
  double cover = -1;
  int has = g->total_meter >= 0, tm = g->total_meter, est = 0;
  unsigned long samples = 0;
  uint64_t t_last = g->t_fin_ns;
  char covers[64], how[1024], from[PMON_METER_MAX * (PMON_SPEC_MAX + 3)] = "";
  json_t *io, *io_files, *rec;

  for (int i = 0; i < g->nmeters; i++) {
    struct pmon_tl_sample first, last;
    uint64_t seq = pmon__tl_seq(&sh->tl[i]);
    const struct pmon_meter *m = &g->ms[i].m;

    samples += g->ms[i].nread;
    if (g->total_mask[i] != 0) {
      double r = run_s(&g->ms[i]);
      double f = r > 0 ? (double)g->ms[i].covered_ns * 1e-9 / r : -1;

      est |= g->ms[i].estimated;
      if (f >= 0 && (cover < 0 || f < cover))
        cover = f;
      snprintf(from + strlen(from), sizeof from - strlen(from), "%s%s",
               from[0] != '\0' ? " + " : "", m->spec.text);
    }
    if (seq == 0 || pmon__tl_get(&sh->tl[i], seq - 1, &last) != 0) {
      if (g->total_mask[i] != 0)
        has = 0; /* a part of the total without a sample: no total */
      continue;
    }
    for (int c = 0; c < m->nch; c++) {
      char key[PMON_CH_NAME_MAX + 40];

      snprintf(key, sizeof key, "%s", m->ch[c].name);
      if (json_object_get(chans, key) != NULL)
        snprintf(key, sizeof key, "%s@%s", m->ch[c].name, m->drv->name);
      json_object_set_new(chans, key, json_real(last.e[c]));
      if (g->total_mask[i] & (1u << c))
        energy += last.e[c];
    }
    if (i == tm) {
      t_last = last.t_ns;
      /* Energy and time over the same span: first to last sample. */
      if (pmon__tl_get(&sh->tl[i], 0, &first) == 0 && last.t_ns > first.t_ns)
        wall = (double)(last.t_ns - first.t_ns) * 1e-9;
      else if (seq > PMON_RING)
        wall = (double)(last.t_ns - sh->t_init_ns) * 1e-9;
    }
  }
  pmon__covers_text(g->covers, covers, sizeof covers);
  total_how(how, sizeof how);
  io = pmon__io_node(ranks, &io_files);
  rec = json_pack(
    "{s:s, s:i, s:i, s:o, s:f, s:o, s:b, s:o, s:o, s:o, s:o, s:I, s:o, s:o, "
    "s:o, s:o}",
    "name", g->node_name, "ranks", g->local_size, "leader_rank", g->rank,
    "energy_j", number_or_null(energy, has), "wall_s", wall, "power_w",
    number_or_null(energy / wall, has && wall > 0), "estimated", est,
    "total_from", tm >= 0 ? json_string(from) : json_null(), "covers",
    tm >= 0 ? json_string(covers) : json_null(), "total_how",
    tm >= 0 ? json_string(how) : json_null(), "channels", chans, "samples",
    (json_int_t)samples, "events", events_json(), "meters", meters_json(),
    "regions", merge_node_regions(ranks), "io", io);
  if (rec != NULL)
    json_object_set_new(rec, "monotonic_ns",
                        json_pack("[I, I]", (json_int_t)g->t_init_ns,
                                  (json_int_t)t_last));
  if (rec != NULL) {
    json_object_set_new(rec, "coverage", coverage_json());
    if (g->trace > 0)
      json_object_set_new(rec, "trace", pmon__hist_trace(g->trace));
    json_object_set_new(rec, "energy_coverage",
                        number_or_null(cover, has && cover >= 0));
  }
  if (rec != NULL && io_files != NULL)
    json_object_set_new(rec, "io_files", io_files);
  else
    json_decref(io_files);
  return rec;
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

/* Move the nodes' region lists into job-level regions. */
static json_t *job_regions(json_t *nodes)
{
  json_t *byname = json_object(), *out = json_array(), *node;
  size_t i;

  json_array_foreach(nodes, i, node) {
    json_t *regions = json_object_get(node, "regions"), *r;
    const char *nn = json_string_value(json_object_get(node, "name"));
    size_t k;

    json_array_foreach(regions, k, r) {
      const char *name = json_string_value(json_object_get(r, "name"));
      json_t *o = json_object_get(byname, name), *e = json_object_get(r, "energy_j");
      double t = json_real_value(json_object_get(r, "time_s"));

      if (o == NULL) {
        o = json_pack("{s:s, s:I, s:f, s:n, s:n, s:n, s:I, s:f, s:i, s:[]}",
                      "name", name, "count", (json_int_t)0, "time_s", 0.0,
                      "energy_j", "power_w", "coverage", "unclosed",
                      (json_int_t)0,
                      "first_s",
                      json_real_value(json_object_get(r, "first_s")),
                      "nodes_without_energy", 0, "nodes");
        json_object_set_new(byname, name, o);
        json_array_append(out, o);
      }
      merge_counts(o, r, t);
      if (json_is_number(e)) {
        json_t *p = json_object_get(r, "power_w");
        json_t *cv = json_object_get(r, "coverage");
        json_t *least = json_object_get(o, "coverage");

        add_number(o, "energy_j", json_number_value(e));
        if (json_is_number(p))
          add_number(o, "power_w", json_number_value(p));
        /* The job's region is as well measured as its worst node. */
        if (json_is_number(cv) &&
            (!json_is_number(least) ||
             json_number_value(cv) < json_number_value(least)))
          json_object_set(o, "coverage", cv);
      } else {
        json_object_set_new(
          o, "nodes_without_energy",
          json_integer(json_integer_value(
                         json_object_get(o, "nodes_without_energy")) + 1));
      }
      json_array_append_new(
        json_object_get(o, "nodes"),
        json_pack("{s:s, s:O, s:O, s:O, s:O, s:O, s:O}", "name", nn,
                  "count", json_object_get(r, "count"), "time_s",
                  json_object_get(r, "time_s"), "energy_j", e, "power_w",
                  json_object_get(r, "power_w"), "coverage",
                  json_object_get(r, "coverage"), "rank",
                  json_object_get(r, "rank")));
    }
    json_object_del(node, "regions");
  }
  /* First use order (a stable insertion sort: few regions). */
  for (size_t a = 1; a < json_array_size(out); a++)
    for (size_t b = a; b > 0; b--) {
      json_t *x = json_array_get(out, b - 1), *y = json_array_get(out, b);

      if (json_real_value(json_object_get(x, "first_s")) <=
          json_real_value(json_object_get(y, "first_s")))
        break;
      json_incref(x);
      json_array_set(out, b - 1, y);
      json_array_set_new(out, b, x);
    }
  json_decref(byname);
  return out;
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

/* The report path: PMON_OUTPUT, a file in it when it is a directory, or
 * pmon-<jobid>.json. */
static void output_path(char *buf, size_t size)
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

/* Write DOC and a newline to F, flushed to disk when SYNC, and close F.
 * Nonzero when everything worked. */
static int dump(json_t *doc, FILE *f, int sync)
{
  int ok = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
                                JSON_REAL_PRECISION(12)) == 0;

  ok &= fputc('\n', f) != EOF;
  if (sync)
    ok &= fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok &= fclose(f) == 0;
  return ok;
}

static int write_atomically(json_t *doc, const char *path)
{
  char tmp[PATH_MAX + 32];
  struct stat st;
  FILE *f;
  int ok;

  /* Not a regular file (/dev/stdout, a pipe): write to it as it is. */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if ((f = fopen(path, "w")) == NULL)
      return pmon__fail(PMON_EOUTPUT, "report: %s: cannot open: %s", path,
                        strerror(errno));
    return dump(doc, f, 0) ? 0
                           : pmon__fail(PMON_EOUTPUT,
                                        "report: %s: cannot write", path);
  }
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  if ((f = fopen(tmp, "w")) == NULL)
    return pmon__fail(PMON_EOUTPUT, "report: %s: cannot create: %s", tmp,
                      strerror(errno));
  ok = dump(doc, f, 1);
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;

    unlink(tmp);
    return pmon__fail(PMON_EOUTPUT, "report: %s: cannot write: %s", path,
                      strerror(e));
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

/* One line for the job's MPI-IO, when it was intercepted. */
static void io_summary(json_t *io)
{
  int est = json_is_true(json_object_get(io, "estimated"));
  json_t *e = json_object_get(io, "energy_j");
  char r[32], w[32], j[32], rates[96] = "";
  long long nph;

  if (!json_is_object(io))
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

static void summary(json_t *doc, const char *path, int written)
{
  json_t *job = json_object_get(doc, "job"), *e = json_object_get(doc, "energy_j");
  json_t *st = json_object_get(json_object_get(doc, "stats"), "node_energy_j");
  int est = json_is_true(json_object_get(doc, "estimated"));
  const char *covers = json_string_value(json_object_get(doc, "covers"));
  double wall = json_real_value(json_object_get(job, "wall_s"));
  char scope[96] = "";
  int ranks = (int)json_integer_value(json_object_get(job, "ranks"));
  int nodes = (int)json_integer_value(json_object_get(job, "nodes"));
  char a[32], b[32], c[32], d[32];
  json_t *r;
  size_t i;

  /* A total of parts of the nodes (RAPL: processors and memory) is never
   * passed off as the nodes' energy. */
  if (covers != NULL && strcmp(covers, "node") != 0)
    snprintf(scope, sizeof scope, " (%s only, not the whole node%s)",
             strcmp(covers, "mixed") == 0 ? "parts of some nodes" : covers,
             nodes == 1 ? "" : "s");
  if (json_is_number(e)) {
    human_energy(json_number_value(e), a, sizeof a);
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
  json_array_foreach(json_object_get(doc, "regions"), i, r) {
    json_t *re = json_object_get(r, "energy_j");
    json_t *rc = json_object_get(r, "coverage");
    char part[64] = "";

    if (i == 8) {
      pmon__say("... %zu more regions in the report",
                json_array_size(json_object_get(doc, "regions")) - i);
      break;
    }
    if (json_is_number(re))
      human_energy(json_number_value(re), a, sizeof a);
    else
      snprintf(a, sizeof a, "energy not measured");
    /* Energy that covers only part of the region says so. */
    if (json_is_number(re) && json_is_number(rc) &&
        json_number_value(rc) < PMON_COVERAGE_FULL)
      snprintf(part, sizeof part, ", measured over %.0f%% of its time",
               100 * json_number_value(rc));
    pmon__say("region %s: %lld pairs, %.3f s, %s%s%s",
              json_string_value(json_object_get(r, "name")),
              (long long)json_integer_value(json_object_get(r, "count")),
              json_real_value(json_object_get(r, "time_s")), a,
              est && json_is_number(re) ? " (estimated)" : "", part);
  }
  io_summary(json_object_get(doc, "io"));
  coverage_summary(json_object_get(doc, "nodes"));
  if (written)
    pmon__say("report: %s", path);
}

int pmon__report(json_t *nodes)
{
  struct pmon_state *g = &pmon__g;
  size_t n = json_array_size(nodes), i;
  double *ev = calloc(n + 1, sizeof *ev), *pv = calloc(n + 1, sizeof *pv);
  double total = 0, wall = 0;
  int ne = 0, est = 0, rc;
  char start[32], end[32], path[PATH_MAX];
  json_t *node, *doc, *regions, *meters, *io;

  if (ev == NULL || pv == NULL) {
    free(ev);
    free(pv);
    return pmon__fail(PMON_ENOMEM, "report: out of memory");
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
    }
  }
  iso_time(&g->wall_start, start, sizeof start);
  iso_time(&g->wall_end, end, sizeof end);
  meters = job_meters(nodes);
  regions = job_regions(nodes);
  io = pmon__io_job(nodes);
  for (size_t k = 0; k < json_array_size(nodes); k++)
    json_object_del(json_array_get(nodes, k), "meters");
  doc = json_pack(
    "{s:{s:s, s:i}, s:s, s:{s:s, s:s, s:i, s:i, s:f, s:s, s:s, s:b}, s:o, "
    "s:o, s:b, s:o, s:O, s:{s:o, s:o}, s:o, s:o}",
    "format", "name", "pmon", "version", REPORT_FORMAT_VERSION,
    "pmon_version", PMON_VERSION_STRING, "job", "id", g->jobid, "id_source",
    g->jobid_source, "ranks", g->size, "nodes", (int)n, "wall_s", wall,
    "start", start, "end", end, "mpi", g->mpi, "energy_j",
    number_or_null(total, ne > 0), "power_w",
    number_or_null(total / wall, ne > 0 && wall > 0), "estimated", est,
    "meters", meters, "nodes", nodes, "stats", "node_energy_j",
    stats_json(ev, ne), "node_power_w", stats_json(pv, ne), "regions",
    regions, "io", io);
  free(ev);
  free(pv);
  if (doc == NULL)
    return pmon__fail(PMON_ENOMEM, "report: cannot build the document");
  json_object_set_new(doc, "covers", job_covers(nodes));
  output_path(path, sizeof path);
  rc = write_atomically(doc, path);
  if (rc != 0)
    pmon__say("%s", pmon_errmsg() + strlen("pmon: "));
  if (!g->quiet)
    summary(doc, path, rc == 0);
  json_decref(doc);
  return rc;
}

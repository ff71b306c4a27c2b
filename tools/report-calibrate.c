/*
 * report-calibrate.c - pmon-report model calibrate: the model of
 * pmon-model(7) from runs of the application without I/O.
 *
 * The runs give T_base and the tabulated s_cores and s_nodes through the
 * reference point (the most cores per node, at the fewest nodes run with
 * them); their nodes' power, or that of --busy runs, P_max; --idle runs,
 * or a straight line fitted to the timelines' power against CPU use,
 * P_idle; each per node, then their mean and spread over the nodes.  The
 * model file is JSON, written whole or not at all.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report-model.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* The least spread of CPU use over a node's timeline slices from which
 * its power is fitted on it, to find P_idle without --idle runs. */
#define FIT_SPREAD 0.5

/* ---- Calibration ------------------------------------------------------- */

/* What calibration learns of one node: its power in the busy runs and in
 * the idle ones (sums and counts), and the sums of a least-squares fit of
 * its timelines' power on their CPU use. */
struct nodepow {
  char *name;
  double busy, idle;
  size_t nbusy, nidle;
  double n, su, sp, suu, sup, umin, umax;
};

struct nodeset {
  struct nodepow *v;
  size_t n, cap;
  int idle; /* Which sum node_add() adds to. */
};

static struct nodepow *node_find(struct nodeset *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i].name, name) == 0)
      return &s->v[i];
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->v = model_xrealloc(s->v, s->cap * sizeof *s->v);
  }
  memset(&s->v[s->n], 0, sizeof s->v[s->n]);
  s->v[s->n].name = model_xrealloc(NULL, strlen(name) + 1);
  strcpy(s->v[s->n].name, name);
  s->v[s->n].umin = INFINITY;
  s->v[s->n].umax = -INFINITY;
  return &s->v[s->n++];
}

static void node_add(void *arg, const char *name, double w) {
  struct nodeset *s = arg;
  struct nodepow *p = node_find(s, name);
  if (s->idle) {
    p->idle += w;
    p->nidle++;
  } else {
    p->busy += w;
    p->nbusy++;
  }
}

/* Adds the slices of r's timelines that have both a power and a CPU use
 * to the fit of their nodes. */
static void fit_add(struct nodeset *s, const struct report *r) {
  for (size_t k = 0; k < r->nnodes; k++) {
    const struct timeline *tl = &r->nodes[k].tl;
    struct nodepow *p;
    if (!tl->present || r->nodes[k].name == NULL)
      continue;
    p = node_find(s, r->nodes[k].name);
    for (size_t i = 0; i < tl->n; i++) {
      double u = tl->cpu_util[i], w = tl->power_w[i];
      if (!isfinite(u) || !isfinite(w))
        continue;
      p->n++;
      p->su += u;
      p->sp += w;
      p->suu += u * u;
      p->sup += u * w;
      p->umin = u < p->umin ? u : p->umin;
      p->umax = u > p->umax ? u : p->umax;
    }
  }
}

/* The spread over the nodes of value(node), for the nodes that have one
 * (value NAN: none). */
static void spread_of(const struct nodeset *s, double (*value)(
                        const struct nodepow *), const char *from,
                      struct spread *out) {
  double sum = 0, ss = 0;
  memset(out, 0, sizeof *out);
  out->mean = out->sd = out->min = out->max = NAN;
  out->from = from;
  for (size_t i = 0; i < s->n; i++) {
    double v = value(&s->v[i]);
    if (isnan(v))
      continue;
    out->min = out->n == 0 || v < out->min ? v : out->min;
    out->max = out->n == 0 || v > out->max ? v : out->max;
    sum += v;
    out->n++;
  }
  if (out->n == 0)
    return;
  out->mean = sum / (double)out->n;
  for (size_t i = 0; i < s->n; i++) {
    double v = value(&s->v[i]);
    if (!isnan(v))
      ss += (v - out->mean) * (v - out->mean);
  }
  out->sd = out->n > 1 ? sqrt(ss / (double)(out->n - 1)) : NAN;
}

static double busy_of(const struct nodepow *p) {
  return p->nbusy ? p->busy / (double)p->nbusy : NAN;
}

static double idle_of(const struct nodepow *p) {
  return p->nidle ? p->idle / (double)p->nidle : NAN;
}

/* The power at no CPU use of the fit of p's timelines, when their CPU use
 * spreads over FIT_SPREAD at least. */
static double fit_idle_of(const struct nodepow *p) {
  double det = p->n * p->suu - p->su * p->su, b, a;
  if (p->n < 3 || p->umax - p->umin < FIT_SPREAD || det <= 0)
    return NAN;
  b = (p->n * p->sup - p->su * p->sp) / det;
  a = (p->sp - b * p->su) / p->n;
  /* A line that does not rise with CPU use, or reaches no CPU use at or
   * below 0 W, says nothing about an idle node. */
  return b > 0 && a > 0 ? a : NAN;
}

/* The mean time of the samples at (nodes, cores), their sample standard
 * deviation and count; 0 runs when there is none. */
static struct point mean_at(const struct sample *x, size_t n, double nodes,
                            double cores, double k) {
  struct point p = {k, NAN, NAN, NAN, 0};
  double sum = 0, ss = 0;
  for (size_t i = 0; i < n; i++)
    if (x[i].nodes == nodes && x[i].cores == cores) {
      sum += x[i].time_s;
      p.runs++;
    }
  if (p.runs == 0)
    return p;
  p.time_s = sum / (double)p.runs;
  for (size_t i = 0; i < n; i++)
    if (x[i].nodes == nodes && x[i].cores == cores)
      ss += (x[i].time_s - p.time_s) * (x[i].time_s - p.time_s);
  p.sd_s = p.runs > 1 ? sqrt(ss / (double)(p.runs - 1)) : NAN;
  return p;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The distinct values of field (0: nodes, 1: cores) of the samples that
 * have other == want in the other field, sorted; their count. */
static size_t distinct(const struct sample *x, size_t n, int field,
                       double want, double *out) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    double v = field ? x[i].cores : x[i].nodes;
    double o = field ? x[i].nodes : x[i].cores;
    size_t j;
    if (o != want)
      continue;
    for (j = 0; j < m && out[j] != v; j++)
      ;
    if (j == m)
      out[m++] = v;
  }
  qsort(out, m, sizeof *out, by_value);
  return m;
}

static json_t *spread_json(const struct spread *s) {
  if (s->n == 0)
    return json_null();
  return json_pack("{s:f,s:o,s:f,s:f,s:I,s:s}", "mean", s->mean, "stddev",
                   isnan(s->sd) ? json_null() : json_real(s->sd), "min",
                   s->min, "max", s->max, "nodes", (json_int_t)s->n, "from",
                   s->from);
}

static json_t *points_json(const struct point *p, size_t n, const char *k) {
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(
      a, json_pack("{s:f,s:f,s:f,s:o,s:I}", k, p[i].k, "s", p[i].s,
                   "time_s", p[i].time_s, "stddev_s",
                   isnan(p[i].sd_s) ? json_null() : json_real(p[i].sd_s),
                   "runs", (json_int_t)p[i].runs));
  return a;
}

static int same_covers(const char *c, const char *file, char **covers,
                       const char **covers_file);

/* The options of "model calibrate". */
struct calib_opts {
  const char *region, *out;
  char **idle, **busy; /* --idle and --busy reports, in argv. */
  size_t nidle, nbusy;
};

/* Adds the nodes' power of the runs at paths to nodes, as idle or busy
 * power: over the region when the run has it, else over the run.  Returns
 * 0, or 1 when a run could not be read (after its error line). */
static int read_power_runs(struct nodeset *nodes, char **paths, size_t n,
                           int idle, const char *region, struct model *m,
                           char **covers, const char **covers_file) {
  int status = 0;
  nodes->idle = idle;
  for (size_t i = 0; i < n; i++) {
    struct report r;
    const char *reg = region;
    if (report_open(paths[i], paths[i], &r)) {
      status = 1;
      continue;
    }
    if (reg != NULL && model_named(json_object_get(r.root, "regions"), reg) == NULL)
      reg = NULL;
    if (!same_covers(r.covers, paths[i], covers, covers_file))
      status = 1;
    else if (model_node_powers(&r, reg, node_add, nodes) != 0)
      status = model_complain(1, "%s: region %s does not list its nodes (more "
                        "entered it than PMON_REGION_NODES): their power is "
                        "unknown", paths[i], reg);
    m->estimated |= r.estimated > 0;
    report_free(&r);
  }
  return status;
}

/* Whether the energy of the run file covers what *covers (of the file
 * *covers_file) does, the first known becoming *covers; one line when
 * not. */
static int same_covers(const char *c, const char *file, char **covers,
                       const char **covers_file) {
  if (c == NULL)
    return 1;
  if (*covers == NULL) {
    *covers = model_xrealloc(NULL, strlen(c) + 1);
    strcpy(*covers, c);
    *covers_file = file;
    return 1;
  }
  if (strcmp(c, *covers) == 0)
    return 1;
  model_complain(0, "%s: its energy covers %s, that of %s %s: not the same "
           "quantity", file, c, *covers_file, *covers);
  return 0;
}

/* The table of s at the distinct values of one field of the samples whose
 * other field is fixed (cores: field 1 at nodes == fixed; nodes: field 0
 * at cores == fixed), relative to the time t_base. */
static struct point *table_of(const struct sample *x, size_t n, int field,
                              double fixed, double t_base, size_t *count) {
  double *k = report_xcalloc(n, sizeof *k);
  struct point *p;
  size_t m = distinct(x, n, field, fixed, k);

  p = report_xcalloc(m, sizeof *p);
  for (size_t i = 0; i < m; i++) {
    p[i] = field ? mean_at(x, n, fixed, k[i], k[i])
                 : mean_at(x, n, k[i], fixed, k[i]);
    p[i].s = p[i].time_s / t_base;
  }
  free(k);
  *count = m;
  return p;
}

/* Writes the model m calibrated from the samples x to path. */
static int write_model(const char *path, const struct model *m,
                       const struct sample *x, size_t n,
                       const struct nodeset *nodes) {
  json_t *doc, *runs = json_array(), *pn = json_array();
  struct report_out ro;
  FILE *out;
  int rc;

  for (size_t i = 0; i < n; i++)
    json_array_append_new(
      runs, json_pack("{s:s,s:f,s:f,s:f,s:b}", "file", x[i].file, "nodes",
                      x[i].nodes, "cores", x[i].cores, "time_s",
                      x[i].time_s, "used",
                      x[i].nodes == m->ref_nodes ||
                        x[i].cores == m->ref_cores));
  for (size_t i = 0; i < nodes->n; i++) {
    double b = busy_of(&nodes->v[i]);
    double d = m->p_idle.from && strstr(m->p_idle.from, "fit")
                 ? fit_idle_of(&nodes->v[i]) : idle_of(&nodes->v[i]);
    json_array_append_new(
      pn, json_pack("{s:s,s:o,s:o}", "name", nodes->v[i].name, "p_idle_w",
                    isnan(d) ? json_null() : json_real(d), "p_max_w",
                    isnan(b) ? json_null() : json_real(b)));
  }
  doc = json_pack(
    "{s:i,s:s,s:s,s:o,s:f,s:f,s:f,s:o,s:o,s:o,s:o,s:b,s:o,s:o}",
    "pmon_model", MODEL_FORMAT, "written_by", "pmon-report model calibrate",
    "pmon_version", PACKAGE_VERSION, "region",
    m->region ? json_string(m->region) : json_null(), "t_base_s",
    m->t_base, "ref_nodes", m->ref_nodes, "ref_cores", m->ref_cores,
    "s_cores", points_json(m->sc, m->nsc, "cores"), "s_nodes",
    points_json(m->sn, m->nsn, "nodes"), "p_idle_w",
    spread_json(&m->p_idle), "p_max_w", spread_json(&m->p_max),
    "estimated", m->estimated, "node_power", pn, "runs", runs);
  if (doc != NULL)
    json_object_set_new(doc, "covers", m->covers ? json_string(m->covers)
                                                 : json_null());
  if (doc == NULL)
    return model_complain(1, "%s: cannot form the model (a name that is not "
                    "UTF-8?)", path);
  if ((out = report_out_open(&ro, path)) == NULL) {
    json_decref(doc);
    return 1;
  }
  rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
  putc('\n', out);
  json_decref(doc);
  return report_out_close(&ro, rc == 0) ? 1 : 0;
}

static int calibrate(const struct calib_opts *o, char **paths, size_t n) {
  struct sample *x = report_xcalloc(n, sizeof *x);
  struct nodeset nodes = {0};
  struct model m = {0};
  const char *covers_file = NULL;
  size_t unused = 0;
  int status = 0;
  char from[96];

  for (size_t i = 0; i < n && status == 0; i++) {
    struct report r;
    if (report_open(paths[i], paths[i], &r)) {
      status = 1;
      break;
    }
    if (model_take_sample(&r, paths[i], o->region, NULL, &x[i]))
      status = 1;
    else if (x[i].has_approach && x[i].a.kind != A_NONE)
      status = model_complain(1, "%s: tag approach=%s: a calibration run is one "
                        "without I/O (approach=none, or no approach tag)",
                        paths[i], x[i].a.name);
    else if (!same_covers(x[i].covers, paths[i], &m.covers, &covers_file))
      status = 1;
    else if (x[i].no_power && o->nbusy == 0)
      status = model_complain(1, "%s: region %s does not list its nodes (more "
                        "entered it than PMON_REGION_NODES): their power is "
                        "unknown", paths[i], o->region);
    else
      fit_add(&nodes, &r);
    m.estimated |= x[i].estimated;
    report_free(&r);
  }
  if (status != 0)
    goto done;

  /* The reference point, and the tables through it. */
  m.ref_cores = 0;
  for (size_t i = 0; i < n; i++)
    m.ref_cores = x[i].cores > m.ref_cores ? x[i].cores : m.ref_cores;
  m.ref_nodes = INFINITY;
  for (size_t i = 0; i < n; i++)
    if (x[i].cores == m.ref_cores && x[i].nodes < m.ref_nodes)
      m.ref_nodes = x[i].nodes;
  m.t_base = mean_at(x, n, m.ref_nodes, m.ref_cores, 0).time_s;
  m.sc = table_of(x, n, 1, m.ref_nodes, m.t_base, &m.nsc);
  m.sn = table_of(x, n, 0, m.ref_cores, m.t_base, &m.nsn);
  m.region = (char *)o->region;
  for (size_t i = 0; i < n; i++)
    unused += x[i].nodes != m.ref_nodes && x[i].cores != m.ref_cores;

  /* The powers. */
  if (o->nbusy > 0) {
    status |= read_power_runs(&nodes, o->busy, o->nbusy, 0, o->region, &m,
                              &m.covers, &covers_file);
    spread_of(&nodes, busy_of, "the busy runs (--busy)", &m.p_max);
  } else {
    nodes.idle = 0;
    for (size_t i = 0; i < n; i++)
      if (x[i].cores == m.ref_cores)
        for (size_t j = 0; j < x[i].npw; j++)
          node_add(&nodes, x[i].pw[j].name, x[i].pw[j].w);
    snprintf(from, sizeof from, "the runs at %g cores per node",
             m.ref_cores);
    spread_of(&nodes, busy_of, from, &m.p_max);
  }
  if (o->nidle > 0) {
    status |= read_power_runs(&nodes, o->idle, o->nidle, 1, o->region, &m,
                              &m.covers, &covers_file);
    spread_of(&nodes, idle_of, "the idle runs (--idle)", &m.p_idle);
  } else {
    spread_of(&nodes, fit_idle_of,
              "a fit of the timelines' power on their CPU use", &m.p_idle);
  }
  if (status != 0)
    goto done;
  if (m.p_max.n == 0) {
    status = model_complain(1, "no node power in the runs at %g cores per node: "
                      "no P_max", m.ref_cores);
    goto done;
  }
  if (!(m.p_max.mean > 0)) {
    status = model_complain(1, "P_max %.1f W: not a power to model", m.p_max.mean);
    goto done;
  }
  /* predict and validate refuse such a model on load: none is written. */
  if (m.p_idle.n > 0 && m.p_idle.mean >= m.p_max.mean) {
    status = model_complain(1, "P_idle %.1f W, from %s, is not below P_max "
                            "%.1f W, from %s: no model written", m.p_idle.mean,
                            m.p_idle.from ? m.p_idle.from : "idle",
                            m.p_max.mean, m.p_max.from ? m.p_max.from : "busy");
    goto done;
  }
  if ((status = write_model(o->out, &m, x, n, &nodes)) == 0) {
    FILE *say = strcmp(o->out, "-") == 0 ? stderr : stdout;
    model_print(say, &m, o->out);
    if (unused > 0)
      fprintf(say, "note: %zu run%s off the reference row (%g node%s) and "
              "column (%g cores per node) not used\n", unused,
              unused == 1 ? "" : "s", m.ref_nodes, m.ref_nodes == 1 ? "" : "s",
              m.ref_cores);
    if (m.p_idle.n == 0)
      fprintf(say, "note: P_idle unknown: the timelines' CPU use spreads "
              "over less than %.0f %% (or gives no idle power); give idle "
              "runs with --idle to predict dn\n", FIT_SPREAD * 100);
  }
done:
  for (size_t i = 0; i < nodes.n; i++)
    free(nodes.v[i].name);
  free(nodes.v);
  for (size_t i = 0; i < n; i++)
    model_sample_free(&x[i]);
  free(x);
  free(m.sc);
  free(m.sn);
  free(m.covers);
  return status;
}

/* ---- The command line -------------------------------------------------- */

const char *const model_calibrate_usage =
  "usage: " PROG " model calibrate [--region NAME] [--idle REPORT]... "
  "[--busy REPORT]... -o MODEL REPORT...\n";

int model_calibrate(int argc, char **argv) {
  static const struct option longopts[] = {
    {"region", required_argument, NULL, 'r'},
    {"idle", required_argument, NULL, 'i'},
    {"busy", required_argument, NULL, 'b'},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  struct calib_opts o = {0};
  int c, status;

  o.idle = report_xcalloc((size_t)argc, sizeof *o.idle);
  o.busy = report_xcalloc((size_t)argc, sizeof *o.busy);
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'r': o.region = optarg; break;
    case 'i': o.idle[o.nidle++] = optarg; break;
    case 'b': o.busy[o.nbusy++] = optarg; break;
    case 'o': o.out = optarg; break;
    case 'h': fputs(model_calibrate_usage, stdout); status = 0; goto out;
    case ':':
      status = model_complain(2, "%s: option needs an argument", argv[optind - 1]);
      goto out;
    default:
      status = model_complain(2, "%s: invalid option", model_bad_option(argv));
      goto out;
    }
  }
  if (o.out == NULL || *o.out == '\0' || optind == argc) {
    status = model_complain(2, "calibrate: %s (" PROG " model --help)",
                      optind == argc
                        ? "give the REPORTs of runs without I/O"
                        : "-o MODEL names the model file to write");
    goto out;
  }
  status = calibrate(&o, argv + optind, (size_t)(argc - optind));
out:
  free(o.idle);
  free(o.busy);
  return status;
}

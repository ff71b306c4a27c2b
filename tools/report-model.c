/*
 * report-model.c - pmon-report model: the energy model of the Damaris
 * study, E = N x T_sim x P_sim on N nodes, to predict which I/O approach
 * costs least
 * (pmon-report(1), MODEL; the equations and their limits: pmon-model(7)).
 *
 *   model calibrate   runs of the application without I/O at several node
 *                     and core counts give T_base and the tabulated
 *                     scalability s_cores(c) and s_nodes(n); their nodes'
 *                     power (or that of --busy runs) gives P_max, --idle
 *                     runs (or a fit of the timelines' power on their CPU
 *                     use) P_idle; written as a model file (JSON).
 *   model predict     T_sim, P_sim and E of approaches on N nodes of C
 *                     cores, best first.
 *   model validate    predicted against measured energy for runs whose
 *                     approach is in their tags, as the study's Table 3.
 *
 * For N nodes of C cores, each approach runs its computation on cn nodes
 * of cc cores:
 *   T_sim = T_base * s_nodes(cn) * s_cores(cc)  (+ T_io for tp)
 *   none    cn = N, cc = C,     P_sim = P_max
 *   tp      cn = N, cc = C,     P_sim = (T_comp P_max + T_io P_io) / T_sim
 *   dc:K    cn = N, cc = C - K, P_sim = P_max
 *   dn:S:D  cn = N S / (S + D), dn = N - cn, cc = C,
 *           P_sim = (cn P_max + dn (P_idle + P_max) / 2) / N
 *   E = N * T_sim * P_sim, the job's energy over all its nodes.
 * s_cores and s_nodes are 1 at the reference point (the most cores per
 * node, the fewest nodes at that count) and tabulated at the calibrated
 * points; between two points they follow the power law through both (a
 * straight line on log-log axes, exact for T proportional to k^-a), and
 * outside them nothing is predicted.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report-model.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define CMD PROG ": model"



/* Below this share of its time measured, a run's energy is partial, as
 * pmon-report compare marks it. */
#define COVERED 0.995





/* One prediction: T_sim, its computing part, P_sim, E (NAN when it was
 * refused, and why in why). */
struct prediction {
  double t, t_comp, p, e;
  double cn, cc; /* The computing nodes and cores per node. */
  char why[200];
};

/* ---- Small pieces ------------------------------------------------------ */


void *model_xrealloc(void *p, size_t n) {
  if ((p = realloc(p, n ? n : 1)) == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return p;
}

/* The option getopt_long() just refused, for its message. */
const char *model_bad_option(char **argv) {
  static char buf[3] = "-?";
  if (optopt == 0 || strncmp(argv[optind - 1], "--", 2) == 0)
    return argv[optind - 1];
  buf[1] = (char)optopt;
  return buf;
}

/* Parses a whole number 1 to max from s (all of it); -1 when it is not. */
static long whole(const char *s, long max) {
  char *end;
  long v;
  if (s == NULL || *s < '0' || *s > '9')
    return -1;
  errno = 0;
  v = strtol(s, &end, 10);
  return errno || *end || v < 1 || v > max ? -1 : v;
}

/* Parses a finite number >= 0 from s (all of it); -1 when it is not. */
static double nonneg(const char *s) {
  char *end;
  double v;
  if (s == NULL || *s == '\0')
    return -1;
  errno = 0;
  v = strtod(s, &end);
  return errno || *end || !isfinite(v) || v < 0 ? -1 : v;
}

/* Parses an approach: "none", "tp", "dc:K" or "dn:S:D" ("dn:S" is
 * dn:S:1).  Returns 0, or -1 with why filled. */
static int parse_approach(const char *s, struct approach *a, char *why,
                          size_t size) {
  char buf[40], *p, *q;
  long max = 1000000;

  memset(a, 0, sizeof *a);
  if (strlen(s) >= sizeof buf) {
    snprintf(why, size, "too long");
    return -1;
  }
  strcpy(buf, s);
  if (strcmp(buf, "none") == 0 || strcmp(buf, "tp") == 0) {
    a->kind = buf[0] == 'n' ? A_NONE : A_TP;
  } else if (strncmp(buf, "dc:", 3) == 0) {
    a->kind = A_DC;
    if ((a->k = whole(buf + 3, max)) < 0) {
      snprintf(why, size, "dc:K wants K, the dedicated cores per node, a "
                          "whole number from 1");
      return -1;
    }
  } else if (strncmp(buf, "dn:", 3) == 0) {
    a->kind = A_DN;
    p = buf + 3;
    q = strchr(p, ':');
    if (q != NULL)
      *q++ = '\0';
    a->s = whole(p, max);
    a->d = q ? whole(q, max) : 1;
    if (a->s < 0 || a->d < 0) {
      snprintf(why, size, "dn:S:D wants S compute nodes per D dedicated "
                          "nodes, whole numbers from 1");
      return -1;
    }
  } else {
    snprintf(why, size, "not an approach: none, tp, dc:K or dn:S:D");
    return -1;
  }
  if (a->kind == A_DC)
    snprintf(a->name, sizeof a->name, "dc:%ld", a->k);
  else if (a->kind == A_DN)
    snprintf(a->name, sizeof a->name, "dn:%ld:%ld", a->s, a->d);
  else
    snprintf(a->name, sizeof a->name, "%s", buf);
  return 0;
}

/* ---- The equations ----------------------------------------------------- */

/* s at k from the table p (n points, k increasing): the value at a point,
 * the power law through the two points around k between them.  Returns 0,
 * or -1 when k lies outside the points. */
static int scale_at(const struct point *p, size_t n, double k, double *s) {
  for (size_t i = 0; i < n; i++) {
    if (k == p[i].k) {
      *s = p[i].s;
      return 0;
    }
    if (i + 1 < n && k > p[i].k && k < p[i + 1].k) {
      double a = log(p[i + 1].s / p[i].s) / log(p[i + 1].k / p[i].k);
      *s = p[i].s * pow(k / p[i].k, a);
      return 0;
    }
  }
  return -1;
}

/* "4" or "4 to 24": the span of the points of p, for a refusal. */
static const char *span_text(char buf[64], const struct point *p, size_t n) {
  if (n == 1)
    snprintf(buf, 64, "%g only", p[0].k);
  else
    snprintf(buf, 64, "%g to %g", p[0].k, p[n - 1].k);
  return buf;
}

/* What a prediction assumes beyond the model: for tp, the I/O time (NAN:
 * not known) and the node power meanwhile (NAN: P_max); for dc and dn,
 * the share of its time a dedicated core or node is busy (NAN: the
 * study's assumptions, 1 for a dedicated core and 0.5 for a node). */
struct knobs {
  double io_time, io_w, busy;
  int from_run; /* validate: io_time is the run's own */
};

/* Predicts approach a on nodes of cores each, with the knobs k.  Fills
 * *out; returns 0, or -1 with out->why. */
static int predict(const struct model *m, const struct approach *a,
                   double nodes, double cores, const struct knobs *k,
                   struct prediction *out) {
  double sn, sc, cn = nodes, cc = cores, pmax = m->p_max.mean;
  double pidle = m->p_idle.mean, io_time = k->io_time;
  char span[64];

  memset(out, 0, sizeof *out);
  out->t = out->t_comp = out->p = out->e = NAN;
  if (a->kind == A_DC) {
    if (a->k >= cores) {
      snprintf(out->why, sizeof out->why, "%ld dedicated cores leave none "
               "of the %g cores per node to compute", a->k, cores);
      return -1;
    }
    cc = cores - (double)a->k;
  } else if (a->kind == A_DN) {
    double group = (double)(a->s + a->d);
    if (fmod(nodes, group) != 0) {
      snprintf(out->why, sizeof out->why, "%g nodes do not form groups of "
               "%ld compute and %ld dedicated nodes", nodes, a->s, a->d);
      return -1;
    }
    cn = nodes / group * (double)a->s;
  } else if (a->kind == A_TP && isnan(io_time)) {
    snprintf(out->why, sizeof out->why, "time partitioning needs its I/O "
             "time (%s): the time its ranks wait for the file system is not "
             "the application's to predict",
             k->from_run ? "the run has no tag io_time, no --io-region and no "
                           "MPI-IO phases" : "--io-time S");
    return -1;
  }
  if (m->p_idle.n == 0 &&
      (a->kind == A_DN || (a->kind == A_DC && !isnan(k->busy)))) {
    snprintf(out->why, sizeof out->why, "P_idle is not in the model "
             "(calibrate it with --idle REPORT)");
    return -1;
  }
  out->cn = cn;
  out->cc = cc;
  if (scale_at(m->sn, m->nsn, cn, &sn)) {
    snprintf(out->why, sizeof out->why, "%g computing nodes is outside the "
             "calibrated points (nodes %s)", cn, span_text(span, m->sn,
                                                           m->nsn));
    return -1;
  }
  if (scale_at(m->sc, m->nsc, cc, &sc)) {
    snprintf(out->why, sizeof out->why, "%g computing cores per node is "
             "outside the calibrated points (cores per node %s)", cc,
             span_text(span, m->sc, m->nsc));
    return -1;
  }
  out->t_comp = m->t_base * sn * sc;
  out->t = out->t_comp;
  out->p = pmax;
  if (a->kind == A_TP) {
    double pio = isnan(k->io_w) ? pmax : k->io_w;
    out->t = out->t_comp + io_time;
    out->p = out->t > 0 ? (out->t_comp * pmax + io_time * pio) / out->t
                        : pmax;
  } else if (a->kind == A_DN) {
    double dn = nodes - cn;
    if (isnan(k->busy)) /* The study's: busy half of the time. */
      out->p = (cn * pmax + dn * (pidle + pmax) / 2) / nodes;
    else
      out->p = (cn * pmax + dn * (pidle + (pmax - pidle) * k->busy)) / nodes;
  } else if (a->kind == A_DC && !isnan(k->busy)) {
    /* Power linear in the busy cores: cc at P_max, K busy k->busy. */
    out->p = pidle + (pmax - pidle) * (cc + (double)a->k * k->busy) / cores;
  }
  out->e = nodes * out->t * out->p;
  return 0;
}

/* ---- Reading runs ------------------------------------------------------ */



/* The element of array whose "name" is name; NULL when none. */
json_t *model_named(json_t *array, const char *name) {
  size_t i;
  json_t *e;
  json_array_foreach(array, i, e) {
    const char *s = json_string_value(json_object_get(e, "name"));
    if (s != NULL && strcmp(s, name) == 0)
      return e;
  }
  return NULL;
}

double model_num(json_t *v) {
  return json_is_number(v) ? json_number_value(v) : NAN;
}


/* Adds node name's power w to the sample arg. */
static void sample_power(void *arg, const char *name, double w) {
  struct sample *x = arg;
  x->pw = model_xrealloc(x->pw, (x->npw + 1) * sizeof *x->pw);
  x->pw[x->npw].name = model_xrealloc(NULL, strlen(name) + 1);
  strcpy(x->pw[x->npw].name, name);
  x->pw[x->npw++].w = w;
}

/* The time and energy of r, of its region model_named region when not NULL, and
 * its nodes, cores per node, approach, I/O time (io_region: the region
 * whose time is its I/O time, when the tags do not say) and nodes' power.
 * Returns 0, or -1 after one error line naming the file; x is then to be
 * released with model_sample_free() all the same. */
int model_take_sample(const struct report *r, const char *file,
                       const char *region, const char *io_region,
                       struct sample *x) {
  const char *tag;
  char why[160];

  memset(x, 0, sizeof *x);
  x->file = file;
  x->nodes = r->job.nodes;
  x->io_time_s = NAN;
  if (!(x->nodes >= 1))
    return model_complain(-1, "%s: job.nodes: no node", file);
  if ((tag = report_tag(r, "cores")) != NULL) {
    long c = whole(tag, 1000000);
    if (c < 0)
      return model_complain(-1, "%s: tag cores=%s: not a whole number of cores "
                      "per node", file, tag);
    x->cores = (double)c;
  } else {
    x->cores = r->job.ranks / x->nodes;
    if (x->cores != floor(x->cores) || x->cores < 1)
      return model_complain(-1, "%s: %g ranks do not share out evenly over %g "
                      "nodes: give the cores per node as the tag cores=C "
                      "(PMON_TAGS)", file, r->job.ranks, x->nodes);
  }
  if ((tag = report_tag(r, "approach")) != NULL) {
    if (parse_approach(tag, &x->a, why, sizeof why))
      return model_complain(-1, "%s: tag approach=%s: %s", file, tag, why);
    x->has_approach = 1;
  }
  if (region != NULL) {
    json_t *g = model_named(json_object_get(r->root, "regions"), region);
    if (g == NULL)
      return model_complain(-1, "%s: region %s: not in the report", file, region);
    x->time_s = model_num(json_object_get(g, "time_s"));
    x->energy_j = model_num(json_object_get(g, "energy_j"));
    x->energy_err_j = model_num(json_object_get(g, "energy_err_j"));
  } else {
    x->time_s = r->job.wall_s;
    x->energy_j = r->energy_j;
    x->energy_err_j = r->energy_err_j;
  }
  if (!(x->time_s > 0))
    return model_complain(-1, "%s: %s%s: no time to calibrate on", file,
                    region ? "region " : "the job", region ? region : "");
  if ((tag = report_tag(r, "io_time")) != NULL) {
    if ((x->io_time_s = nonneg(tag)) < 0)
      return model_complain(-1, "%s: tag io_time=%s: not a time in seconds", file,
                      tag);
  } else if (io_region != NULL) {
    json_t *g = model_named(json_object_get(r->root, "regions"), io_region);
    x->io_time_s = g ? model_num(json_object_get(g, "time_s")) : NAN;
  } else if (r->has_io) {
    x->io_time_s = !isnan(r->io.phase_time_s) ? r->io.phase_time_s
                                              : r->io.time_s;
  }
  x->estimated = r->estimated > 0;
  if (r->covers != NULL) {
    x->covers = model_xrealloc(NULL, strlen(r->covers) + 1);
    strcpy(x->covers, r->covers);
  }
  x->no_power = model_node_powers(r, region, sample_power, x) != 0;
  /* A measured energy that misses nodes or time is not the job's. */
  if (region != NULL) {
    json_t *g = model_named(json_object_get(r->root, "regions"), region);
    double cov = model_num(json_object_get(g, "coverage"));
    double without = model_num(json_object_get(g, "nodes_without_energy"));
    if (without > 0)
      snprintf(x->partial, sizeof x->partial, "%g of its nodes have no "
               "energy for region %s", without, region);
    else if (cov < COVERED)
      snprintf(x->partial, sizeof x->partial, "region %s was measured over "
               "%.1f %% of its time", region, 100 * cov);
  } else {
    for (size_t k = 0; k < r->nnodes && !x->partial[0]; k++)
      if (isnan(r->nodes[k].energy_j))
        snprintf(x->partial, sizeof x->partial, "node %s has no energy",
                 r->nodes[k].name ? r->nodes[k].name : "?");
      else if (r->nodes[k].energy_coverage < COVERED)
        snprintf(x->partial, sizeof x->partial, "node %s was measured over "
                 "%.1f %% of its time", r->nodes[k].name ? r->nodes[k].name
                 : "?", 100 * r->nodes[k].energy_coverage);
  }
  return 0;
}

void model_sample_free(struct sample *x) {
  for (size_t i = 0; i < x->npw; i++)
    free(x->pw[i].name);
  free(x->pw);
  free(x->covers);
  memset(x, 0, sizeof *x);
}

/* The power of each node of r over its region region (or its run): name
 * and watts, through fn.  Nodes without a figure are left out.  Returns
 * 0, or -1 when the region does not list its nodes (more of them entered
 * it than PMON_REGION_NODES). */
int model_node_powers(const struct report *r, const char *region,
                       void (*fn)(void *, const char *, double), void *arg) {
  if (region != NULL) {
    json_t *g = model_named(json_object_get(r->root, "regions"), region);
    json_t *list = json_object_get(g, "nodes"), *e;
    size_t i;
    if (!json_is_array(list))
      return -1;
    json_array_foreach(list, i, e) {
      double w = model_num(json_object_get(e, "power_w"));
      const char *name = json_string_value(json_object_get(e, "name"));
      if (name != NULL && isfinite(w))
        fn(arg, name, w);
    }
    return 0;
  }
  for (size_t k = 0; k < r->nnodes; k++)
    if (r->nodes[k].name != NULL && isfinite(r->nodes[k].power_w))
      fn(arg, r->nodes[k].name, r->nodes[k].power_w);
  return 0;
}

/* Prints the spread s of a power model_named name for people. */
static void print_spread(FILE *out, const char *name, const struct spread *s) {
  if (s->n == 0) {
    fprintf(out, "%-8s unknown (calibrate with --idle REPORT)\n", name);
    return;
  }
  fprintf(out, "%-8s %.1f W per node", name, s->mean);
  if (s->n > 1 && isfinite(s->sd) && isfinite(s->min) && isfinite(s->max))
    fprintf(out, " (stddev %.1f W, %.1f to %.1f W over %zu nodes)", s->sd,
            s->min, s->max, s->n);
  else if (s->n == 1)
    fprintf(out, " (1 node)");
  fprintf(out, ", from %s\n", s->from);
}


/* Prints the model m for people, with its source file name. */
void model_print(FILE *out, const struct model *m, const char *name) {
  fprintf(out, "model %s%s\n", name,
          m->estimated ? " (its power is ESTIMATED by a model, not "
                         "measured)" : "");
  fprintf(out, "T_base   %.3f s", m->t_base);
  if (m->ref_nodes >= 1 && m->ref_cores >= 1) /* false for NAN */
    fprintf(out, " at %g node%s of %g cores", m->ref_nodes,
            m->ref_nodes == 1 ? "" : "s", m->ref_cores);
  fprintf(out, ", %s%s\n", m->region ? "region " : "the whole run",
          m->region ? m->region : "");
  fprintf(out, "s_cores ");
  for (size_t i = 0; i < m->nsc; i++)
    fprintf(out, " %g:%.4g", m->sc[i].k, m->sc[i].s);
  fprintf(out, "   (cores per node: s)\ns_nodes ");
  for (size_t i = 0; i < m->nsn; i++)
    fprintf(out, " %g:%.4g", m->sn[i].k, m->sn[i].s);
  fprintf(out, "   (nodes: s)\n");
  print_spread(out, "P_idle", &m->p_idle);
  print_spread(out, "P_max", &m->p_max);
}

/* ---- Reading a model back ---------------------------------------------- */

static int by_k(const void *a, const void *b) {
  double x = ((const struct point *)a)->k, y = ((const struct point *)b)->k;
  return (x > y) - (x < y);
}

/* Reads the table key of doc, whose points name k with kname. */
static int read_points(const char *path, json_t *doc, const char *key,
                       const char *kname, struct point **out, size_t *n) {
  json_t *a = json_object_get(doc, key), *e;
  size_t i;

  if (!json_is_array(a) || json_array_size(a) == 0)
    return model_complain(1, "%s: %s: not a list of points", path, key);
  *n = json_array_size(a);
  *out = report_xcalloc(*n, sizeof **out);
  json_array_foreach(a, i, e) {
    double k = model_num(json_object_get(e, kname)), s = model_num(json_object_get(e, "s"));
    if (!(k >= 1) || !isfinite(k) || !(s > 0) || !isfinite(s))
      return model_complain(1, "%s: %s[%zu]: wants %s >= 1 and s > 0", path, key,
                      i, kname);
    (*out)[i] = (struct point){k, s, NAN, NAN, 0};
  }
  qsort(*out, *n, sizeof **out, by_k);
  for (i = 1; i < *n; i++)
    if ((*out)[i].k == (*out)[i - 1].k)
      return model_complain(1, "%s: %s: two points at %s %g", path, key, kname,
                      (*out)[i].k);
  return 0;
}

static int read_spread(const char *path, json_t *doc, const char *key,
                       int required, struct spread *s) {
  json_t *v = json_object_get(doc, key);
  memset(s, 0, sizeof *s);
  s->mean = s->sd = s->min = s->max = NAN;
  if ((v == NULL || json_is_null(v)) && !required)
    return 0;
  s->mean = model_num(json_object_get(v, "mean"));
  if (!json_is_object(v) || !(s->mean > 0) || !isfinite(s->mean))
    return model_complain(1, "%s: %s.mean: not a power in watts", path, key);
  s->sd = model_num(json_object_get(v, "stddev"));
  s->min = model_num(json_object_get(v, "min"));
  s->max = model_num(json_object_get(v, "max"));
  s->n = json_is_integer(json_object_get(v, "nodes"))
           ? (size_t)json_integer_value(json_object_get(v, "nodes")) : 1;
  s->n = s->n ? s->n : 1;
  s->from = json_string_value(json_object_get(v, "from"));
  s->from = s->from ? s->from : "the model file";
  return 0;
}

/* Loads the model file at path into m (released with model_free()).
 * Returns 0, or 1 after one error line. */
static int model_load(const char *path, struct model *m) {
  json_error_t err;
  json_t *v;

  memset(m, 0, sizeof *m);
  m->root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
  if (m->root == NULL)
    return model_complain(1, "%s: invalid JSON at %d:%d: %s", path, err.line,
                    err.column, err.text);
  v = json_object_get(m->root, "pmon_model");
  if (!json_is_integer(v))
    return model_complain(1, "%s: pmon_model: missing: not a model file (pmon-"
                    "report model calibrate writes them)", path);
  if (json_integer_value(v) != MODEL_FORMAT)
    return model_complain(1, "%s: pmon_model: version %lld: this pmon-report "
                    "reads version %d", path,
                    (long long)json_integer_value(v), MODEL_FORMAT);
  m->t_base = model_num(json_object_get(m->root, "t_base_s"));
  if (!(m->t_base > 0) || !isfinite(m->t_base))
    return model_complain(1, "%s: t_base_s: not a time in seconds", path);
  m->ref_nodes = model_num(json_object_get(m->root, "ref_nodes"));
  m->ref_cores = model_num(json_object_get(m->root, "ref_cores"));
  if (read_points(path, m->root, "s_cores", "cores", &m->sc, &m->nsc) ||
      read_points(path, m->root, "s_nodes", "nodes", &m->sn, &m->nsn) ||
      read_spread(path, m->root, "p_max_w", 1, &m->p_max) ||
      read_spread(path, m->root, "p_idle_w", 0, &m->p_idle))
    return 1;
  if (m->p_idle.n > 0 && m->p_idle.mean >= m->p_max.mean)
    return model_complain(1, "%s: p_idle_w.mean %g W: not below p_max_w.mean %g W",
                    path, m->p_idle.mean, m->p_max.mean);
  m->covers = (char *)json_string_value(json_object_get(m->root, "covers"));
  v = json_object_get(m->root, "region");
  if (v != NULL && !json_is_null(v) && !json_is_string(v))
    return model_complain(1, "%s: region: not a region name", path);
  m->region = (char *)json_string_value(v);
  m->estimated = json_is_true(json_object_get(m->root, "estimated"));
  return 0;
}

static void model_free(struct model *m) {
  free(m->sc);
  free(m->sn);
  json_decref(m->root);
  memset(m, 0, sizeof *m);
}

/* ---- predict ----------------------------------------------------------- */

/* Formats v with prec decimals for a table; "-" for NAN. */
static const char *fix(char buf[CELL_MAX], double v, int prec) {
  if (isnan(v))
    return "-";
  snprintf(buf, CELL_MAX, "%.*f", prec, v);
  return buf;
}

/* Formats v exactly enough for CSV; "" for NAN. */
static const char *full(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return "";
  snprintf(buf, CELL_MAX, "%.15g", v);
  return buf;
}

/* Parses --dedicated-busy: a share from 0 to 1 into *busy.  Returns 0, or
 * -1 after its error line. */
static int busy_arg(const char *s, double *busy) {
  double v = nonneg(s);
  if (v < 0 || v > 1)
    return model_complain(-1, "--dedicated-busy %s: not a share of time from 0 "
                    "to 1", s);
  *busy = v;
  return 0;
}

/* Says what the power of dedicated cores and nodes is taken to be. */
static void print_busy(FILE *out, double busy) {
  if (isnan(busy))
    fprintf(out, "dedicated: a core at P_max, a node at (P_idle + P_max) "
                 "/ 2 (the study's)\n");
  else
    fprintf(out, "dedicated: cores and nodes busy %.3g of the time, power "
                 "linear in busy cores (--dedicated-busy)\n", busy);
}

struct predicted {
  struct approach a;
  struct prediction p;
};

static int by_energy(const void *a, const void *b) {
  double x = ((const struct predicted *)a)->p.e;
  double y = ((const struct predicted *)b)->p.e;
  if (isnan(x) || isnan(y))
    return isnan(x) - isnan(y);
  return (x > y) - (x < y);
}

/* Adds the approaches of the comma-separated list s to *v; -1 after an
 * error line for one that is not. */
static int add_approaches(const char *s, struct predicted **v, size_t *n) {
  char *copy = model_xrealloc(NULL, strlen(s) + 1), *tok, *save = NULL;
  char why[160];
  int rc = 0;

  strcpy(copy, s);
  for (tok = strtok_r(copy, ",", &save); tok && rc == 0;
       tok = strtok_r(NULL, ",", &save)) {
    *v = model_xrealloc(*v, (*n + 1) * sizeof **v);
    memset(&(*v)[*n], 0, sizeof **v);
    if (parse_approach(tok, &(*v)[*n].a, why, sizeof why))
      rc = model_complain(-1, "--approach %s: %s", tok, why);
    else
      (*n)++;
  }
  if (*n == 0 && rc == 0)
    rc = model_complain(-1, "--approach: no approach given");
  free(copy);
  return rc;
}

const char *const model_predict_usage =
  "usage: " PROG " model predict MODEL --nodes N --cores C "
  "--approach A[,A...] [--io-time S] [--io-power W] [--dedicated-busy F] "
  "[--csv]\n";

int model_predict(int argc, char **argv) {
  static const struct option longopts[] = {
    {"nodes", required_argument, NULL, 'n'},
    {"cores", required_argument, NULL, 'c'},
    {"approach", required_argument, NULL, 'a'},
    {"io-time", required_argument, NULL, 't'},
    {"io-power", required_argument, NULL, 'w'},
    {"dedicated-busy", required_argument, NULL, 'B'},
    {"csv", no_argument, NULL, 'C'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  long nodes = -1, cores = -1;
  struct knobs k = {NAN, NAN, NAN, 0};
  struct predicted *v = NULL;
  size_t n = 0, ok = 0;
  struct model m;
  int c, csv = 0, status;
  char b[7][CELL_MAX];

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'n':
      if ((nodes = whole(optarg, 100000000)) < 0)
        return model_complain(2, "--nodes %s: not a whole number of nodes",
                        optarg);
      break;
    case 'c':
      if ((cores = whole(optarg, 100000000)) < 0)
        return model_complain(2, "--cores %s: not a whole number of cores per "
                        "node", optarg);
      break;
    case 'a':
      if (add_approaches(optarg, &v, &n)) {
        free(v);
        return 2;
      }
      break;
    case 't':
      if ((k.io_time = nonneg(optarg)) < 0)
        return model_complain(2, "--io-time %s: not a time in seconds", optarg);
      break;
    case 'w':
      if ((k.io_w = nonneg(optarg)) < 0)
        return model_complain(2, "--io-power %s: not a power in watts", optarg);
      break;
    case 'B':
      if (busy_arg(optarg, &k.busy))
        return 2;
      break;
    case 'C': csv = 1; break;
    case 'h': fputs(model_predict_usage, stdout); free(v); return 0;
    case ':':
      free(v);
      return model_complain(2, "%s: option needs an argument", argv[optind - 1]);
    default:
      free(v);
      return model_complain(2, "%s: invalid option", model_bad_option(argv));
    }
  }
  if (optind != argc - 1 || nodes < 0 || cores < 0 || n == 0) {
    free(v);
    return model_complain(2, "predict: %s (" PROG " model --help)",
                    optind != argc - 1
                    ? "give one MODEL file"
                    : "--nodes, --cores and --approach are required");
  }
  if (model_load(argv[optind], &m)) {
    model_free(&m);
    free(v);
    return 1;
  }
  status = 0;
  for (size_t i = 0; i < n; i++) {
    if (predict(&m, &v[i].a, (double)nodes, (double)cores, &k, &v[i].p))
      status = model_complain(1, "predict: %s: %s", v[i].a.name, v[i].p.why);
    else
      ok++;
  }
  qsort(v, n, sizeof *v, by_energy);
  if (csv)
    printf("rank,approach,nodes,cores,computing_nodes,computing_cores,"
           "t_sim_s,t_io_s,p_sim_w,energy_j,estimated,refused\n");
  else {
    model_print(stdout, &m, argv[optind]);
    printf("\n%ld node%s of %ld cores%s\n", nodes, nodes == 1 ? "" : "s",
           cores, m.estimated ? "; every energy ESTIMATED" : "");
    print_busy(stdout, k.busy);
    printf("%-4s %-10s %7s %7s %10s %9s %12s\n", "rank", "approach",
           "c.nodes", "c.cores", "T_sim s", "P_sim W", "E kJ");
  }
  for (size_t i = 0; i < n; i++) {
    const struct prediction *p = &v[i].p;
    double tio = v[i].a.kind == A_TP && !isnan(p->t) ? k.io_time : NAN;
    if (csv) {
      printf("%s,%s,%ld,%ld,%s,%s,%s,%s,%s,%s,%s,",
             isnan(p->e) ? "" : (snprintf(b[6], CELL_MAX, "%zu", i + 1), b[6]),
             v[i].a.name, nodes, cores, full(b[0], isnan(p->e) ? NAN : p->cn),
             full(b[1], isnan(p->e) ? NAN : p->cc), full(b[2], p->t),
             full(b[3], tio), full(b[4], p->p), full(b[5], p->e),
             m.estimated ? "true" : "false");
      report_csv_field(stdout, isnan(p->e) ? p->why : NULL);
      putchar('\n');
    } else if (isnan(p->e)) {
      printf("%-4s %-10s refused: %s\n", "-", v[i].a.name, p->why);
    } else {
      printf("%-4zu %-10s %7g %7g %10s %9s %12s\n", i + 1, v[i].a.name,
             p->cn, p->cc, fix(b[0], p->t, 3), fix(b[1], p->p, 1),
             fix(b[2], p->e / 1000, 3));
    }
  }
  if (!csv && ok > 1)
    printf("best: %s\n", v[0].a.name);
  model_free(&m);
  free(v);
  return ok == 0 ? 1 : status;
}

/* ---- validate ---------------------------------------------------------- */

/* A run validated: its sample, its prediction and the difference of the
 * predicted energy from the measured one, in percent. */
struct checked {
  struct sample x;
  char *name; /* Its label, else its file's base name. */
  struct prediction p;
  double diff;
};

/* Of the runs at one size (nodes, cores), the approach whose mean
 * measured (measured != 0) or predicted energy is least; NULL when fewer
 * than two approaches have a figure. */
static const struct checked *best_of(const struct checked *v, size_t n,
                                     double nodes, double cores,
                                     int measured, double *e_out) {
  const struct checked *best = NULL;
  double best_e = INFINITY;
  size_t kinds = 0;

  for (size_t i = 0; i < n; i++) {
    double sum = 0;
    size_t cnt = 0, j;
    if (v[i].x.nodes != nodes || v[i].x.cores != cores || isnan(v[i].p.e))
      continue;
    for (j = 0; j < i; j++) /* Its approach's first run only. */
      if (v[j].x.nodes == nodes && v[j].x.cores == cores &&
          !isnan(v[j].p.e) && strcmp(v[j].x.a.name, v[i].x.a.name) == 0)
        break;
    if (j < i)
      continue;
    kinds++;
    for (j = i; j < n; j++)
      if (v[j].x.nodes == nodes && v[j].x.cores == cores &&
          !isnan(v[j].p.e) && strcmp(v[j].x.a.name, v[i].x.a.name) == 0) {
        sum += measured ? v[j].x.energy_j : v[j].p.e;
        cnt++;
      }
    if (sum / (double)cnt < best_e) {
      best_e = sum / (double)cnt;
      best = &v[i];
    }
  }
  *e_out = best_e;
  return kinds > 1 ? best : NULL;
}

const char *const model_validate_usage =
  "usage: " PROG " model validate [--region NAME] [--io-region NAME] "
  "[--dedicated-busy F] [--csv] MODEL REPORT...\n";

int model_validate(int argc, char **argv) {
  static const struct option longopts[] = {
    {"region", required_argument, NULL, 'r'},
    {"io-region", required_argument, NULL, 'i'},
    {"dedicated-busy", required_argument, NULL, 'B'},
    {"csv", no_argument, NULL, 'C'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  const char *region = NULL, *io_region = NULL;
  struct knobs k = {NAN, NAN, NAN, 1};
  struct checked *v;
  double acc = 0, worst = INFINITY;
  size_t n, ok = 0;
  struct model m;
  int c, csv = 0, status = 0;
  char b[8][CELL_MAX];

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'r': region = optarg; break;
    case 'i': io_region = optarg; break;
    case 'B':
      if (busy_arg(optarg, &k.busy))
        return 2;
      break;
    case 'C': csv = 1; break;
    case 'h': fputs(model_validate_usage, stdout); return 0;
    case ':':
      return model_complain(2, "%s: option needs an argument", argv[optind - 1]);
    default:
      return model_complain(2, "%s: invalid option", model_bad_option(argv));
    }
  }
  if (argc - optind < 2) {
    return model_complain(2, "validate: give a MODEL file and the REPORTs of "
                    "measured runs (" PROG " model --help)");
  }
  if (model_load(argv[optind], &m)) {
    model_free(&m);
    return 1;
  }
  /* The time that counts is the model's unless asked otherwise. */
  region = region ? region : m.region;
  n = (size_t)(argc - optind - 1);
  v = report_xcalloc(n, sizeof *v);
  for (size_t i = 0; i < n; i++) {
    const char *path = argv[optind + 1 + (int)i], *base;
    struct report r;
    v[i].p.e = v[i].diff = NAN;
    if (report_open(path, path, &r)) {
      status = 1;
      continue;
    }
    base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    base = r.job.label && *r.job.label ? r.job.label : base;
    v[i].name = model_xrealloc(NULL, strlen(base) + 1);
    strcpy(v[i].name, base);
    for (char *p = v[i].name; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f)
        *p = '?';
    if (model_take_sample(&r, path, region, io_region, &v[i].x)) {
      status = 1;
      v[i].x.file = NULL; /* Named on stderr; no row. */
    } else if (!(v[i].x.energy_j > 0)) {
      snprintf(v[i].p.why, sizeof v[i].p.why, "no measured energy");
    } else if (v[i].x.partial[0]) {
      snprintf(v[i].p.why, sizeof v[i].p.why, "not compared: %s",
               v[i].x.partial);
    } else if (m.covers && v[i].x.covers &&
               strcmp(m.covers, v[i].x.covers) != 0) {
      snprintf(v[i].p.why, sizeof v[i].p.why, "not compared: its energy "
               "covers %s, the model's %s", v[i].x.covers, m.covers);
    } else {
      k.io_time = v[i].x.io_time_s; /* The run's own, for tp. */
      if (predict(&m, &v[i].x.a, v[i].x.nodes, v[i].x.cores, &k,
                  &v[i].p) == 0) {
        double a = 100 - fabs(v[i].diff =
                                (v[i].p.e - v[i].x.energy_j) /
                                v[i].x.energy_j * 100);
        acc += a;
        worst = a < worst ? a : worst;
        ok++;
      }
    }
    if (!v[i].x.has_approach && v[i].x.file != NULL)
      snprintf(v[i].x.a.name, sizeof v[i].x.a.name, "none");
    report_free(&r);
  }

  if (csv)
    printf("run,file,approach,nodes,cores,predicted_j,measured_j,"
           "difference_pct,accuracy_pct,predicted_s,measured_s,estimated,"
           "refused,measured_err_j\n");
  else {
    model_print(stdout, &m, argv[optind]);
    print_busy(stdout, k.busy);
    printf("\n%-16s %-9s %5s %5s %11s %11s %7s %8s %8s %9s %9s\n", "run",
           "approach", "nodes", "cores", "pred. kJ", "meas. kJ", "+- %",
           "diff %", "accur. %", "pred. s", "meas. s");
  }
  for (size_t i = 0; i < n; i++) {
    const struct checked *w = &v[i];
    if (w->x.file == NULL)
      continue;
    if (csv) {
      report_csv_field(stdout, w->name);
      putchar(',');
      report_csv_field(stdout, w->x.file);
      printf(",%s,%g,%g,%s,%s,%s,%s,%s,%s,%s,", w->x.a.name, w->x.nodes,
             w->x.cores, full(b[0], w->p.e), full(b[1], w->x.energy_j),
             full(b[2], w->diff),
             full(b[3], isnan(w->diff) ? NAN : 100 - fabs(w->diff)),
             full(b[4], w->p.t), full(b[5], w->x.time_s),
             w->x.estimated || m.estimated ? "true" : "false");
      report_csv_field(stdout, isnan(w->p.e) ? w->p.why : NULL);
      printf(",%s\n", full(b[6], w->x.energy_err_j));
    } else if (isnan(w->p.e)) {
      printf("%-16.16s %-9s %5g %5g not predicted: %s\n", w->name,
             w->x.a.name, w->x.nodes, w->x.cores, w->p.why);
    } else {
      if (isnan(w->x.energy_err_j))
        snprintf(b[4], sizeof b[4], "?");
      else
        snprintf(b[4], sizeof b[4], "%.1f",
                 100 * w->x.energy_err_j / w->x.energy_j);
      printf("%-16.16s %-9s %5g %5g %11s %11s %7s %+8.1f %8.1f %9s %9s\n",
             w->name, w->x.a.name, w->x.nodes, w->x.cores,
             fix(b[0], w->p.e / 1000, 3), fix(b[1], w->x.energy_j / 1000, 3),
             b[4], w->diff, 100 - fabs(w->diff), fix(b[2], w->p.t, 2),
             fix(b[3], w->x.time_s, 2));
    }
  }
  if (!csv && ok > 0) {
    printf("\n+- %%: the measured energy's error bar, in %% of it: a "
           "difference within it\nis not the model's to answer for "
           "(? : a report written before error bars)\n");
    printf("\naverage accuracy %.1f %% over %zu run%s (worst %.1f %%)%s\n",
           acc / (double)ok, ok, ok == 1 ? "" : "s", worst,
           m.estimated ? "; the model's power is ESTIMATED" : "");
    /* The best approach at each size, measured and predicted. */
    for (size_t i = 0; i < n; i++) {
      const struct checked *bm, *bp;
      double em, ep;
      size_t j;
      if (isnan(v[i].p.e))
        continue;
      for (j = 0; j < i; j++)
        if (!isnan(v[j].p.e) && v[j].x.nodes == v[i].x.nodes &&
            v[j].x.cores == v[i].x.cores)
          break;
      if (j < i)
        continue;
      bm = best_of(v, n, v[i].x.nodes, v[i].x.cores, 1, &em);
      bp = best_of(v, n, v[i].x.nodes, v[i].x.cores, 0, &ep);
      if (bm == NULL || bp == NULL)
        continue;
      printf("best at %g node%s of %g cores: measured %s (%.3f kJ), "
             "predicted %s (%.3f kJ): %s\n", v[i].x.nodes,
             v[i].x.nodes == 1 ? "" : "s", v[i].x.cores, bm->x.a.name,
             em / 1000, bp->x.a.name, ep / 1000,
             strcmp(bm->x.a.name, bp->x.a.name) == 0
               ? "the model picks the same approach"
               : "the model picks ANOTHER approach");
    }
  }
  for (size_t i = 0; i < n; i++) {
    model_sample_free(&v[i].x);
    free(v[i].name);
  }
  free(v);
  model_free(&m);
  if (ok == 0 && status == 0)
    status = model_complain(1, "validate: no run could be predicted");
  return status;
}

/* ---- advise's io-approach ---------------------------------------------- */

/* The approaches weighed against a run's own on NODES nodes of CORES
 * cores: tp, dc:1 and dc:2 (where cores are left to compute), dn:S:1 for
 * every group of S + 1 nodes (up to 16) that divides NODES. */
static size_t candidates(double nodes, double cores, struct approach *a,
                         size_t max) {
  size_t n = 0;
  char why[80];

  if (n < max && parse_approach("tp", &a[n], why, sizeof why) == 0)
    n++;
  for (long k = 1; k <= 2 && n < max; k++)
    if ((double)k < cores) {
      char s[16];
      snprintf(s, sizeof s, "dc:%ld", k);
      if (parse_approach(s, &a[n], why, sizeof why) == 0)
        n++;
    }
  for (long g = 2; g <= 16 && n < max; g++)
    if ((double)g <= nodes && fmod(nodes, (double)g) == 0) {
      char s[24];
      snprintf(s, sizeof s, "dn:%ld:1", g - 1);
      if (parse_approach(s, &a[n], why, sizeof why) == 0)
        n++;
    }
  return n;
}

/* The relative standard error of a calibrated mean power (0 unknown). */
static double mean_se(const struct spread *s) {
  return s->n > 0 && s->sd > 0 && s->mean > 0
           ? s->sd / s->mean / sqrt((double)s->n) : 0;
}

int model_advise(const struct report *r, const char *file, const char *path,
                 struct model_advice *out) {
  struct approach cand[24];
  struct knobs k = {NAN, NAN, NAN, 1};
  struct prediction own;
  struct sample x;
  struct model m;
  size_t nc;

  memset(out, 0, sizeof *out);
  if (model_load(path, &m)) {
    model_free(&m);
    return -1;
  }
  if (model_take_sample(r, file, m.region, NULL, &x) != 0) {
    model_sample_free(&x);
    model_free(&m);
    return -1;
  }
  snprintf(out->region, sizeof out->region, "%s",
           m.region ? m.region : "");
  out->estimated = m.estimated || x.estimated;
  if (!x.has_approach)
    snprintf(out->why, sizeof out->why, "the report has no tag approach= "
             "(PMON_TAGS): its own I/O approach is not known");
  else if (!(x.energy_j > 0))
    snprintf(out->why, sizeof out->why, "no measured energy");
  else if (x.partial[0])
    snprintf(out->why, sizeof out->why, "%s", x.partial);
  else if (m.covers && x.covers && strcmp(m.covers, x.covers) != 0)
    snprintf(out->why, sizeof out->why, "its energy covers %s, the model's "
             "%s", x.covers, m.covers);
  if (out->why[0])
    goto done;
  k.io_time = x.io_time_s;
  if (predict(&m, &x.a, x.nodes, x.cores, &k, &own) != 0 || !(own.e > 0)) {
    snprintf(out->why, sizeof out->why, "its own approach %s: %s",
             x.a.name, own.why);
    goto done;
  }
  snprintf(out->own, sizeof out->own, "%s", x.a.name);
  out->nodes = x.nodes;
  out->cores = x.cores;
  out->e_j = x.energy_j;
  out->e_err_j = x.energy_err_j;
  out->t_s = x.time_s;
  out->e_pred_j = own.e;
  out->io_time_s = x.io_time_s;
  nc = candidates(x.nodes, x.cores, cand, sizeof cand / sizeof cand[0]);
  for (size_t i = 0; i < nc && out->n < MODEL_ALTS; i++) {
    struct model_alt *a = &out->alt[out->n];
    struct prediction p;
    double se = mean_se(&m.p_max);

    if (strcmp(cand[i].name, x.a.name) == 0 ||
        predict(&m, &cand[i], x.nodes, x.cores, &k, &p) != 0 || !(p.t > 0))
      continue;
    if (cand[i].kind == A_DN || x.a.kind == A_DN)
      se = sqrt(se * se + mean_se(&m.p_idle) * mean_se(&m.p_idle));
    snprintf(a->name, sizeof a->name, "%s", cand[i].name);
    /* The model's error on the run's own approach scaled out. */
    a->e_j = x.energy_j * p.e / own.e;
    a->t_s = x.time_s * p.t / own.t;
    a->rel = 1.96 * se;
    out->n++;
  }
done:
  model_sample_free(&x);
  model_free(&m);
  return 0;
}

int model_measure(const struct report *r, const char *file, const char *path,
                  struct model_advice *out) {
  struct sample x;
  struct model m;
  int rc = 0;

  memset(out, 0, sizeof *out);
  if (model_load(path, &m)) {
    model_free(&m);
    return -1;
  }
  if (model_take_sample(r, file, m.region, NULL, &x) != 0)
    rc = -1;
  else {
    snprintf(out->own, sizeof out->own, "%s",
             x.has_approach ? x.a.name : "");
    out->nodes = x.nodes;
    out->cores = x.cores;
    out->e_j = x.energy_j;
    out->e_err_j = x.energy_err_j;
    out->t_s = x.time_s;
  }
  model_sample_free(&x);
  model_free(&m);
  return rc;
}

/*
 * report-model.h - what the files of "pmon-report model" share: the model,
 * a run as the model reads it, and the pieces both use.  report-model.c
 * holds the equations, predict, validate and the reading of runs and
 * models; report-calibrate.c makes a model from runs with them.
 * pmon-report.c dispatches the three: calibrate stands on the model,
 * never the other way.
 */
#ifndef PMON_REPORT_MODEL_H
#define PMON_REPORT_MODEL_H

#include <stdio.h>

#include <jansson.h>

#include "report.h"

/* The model file's format version. */
#define MODEL_FORMAT 1

/* A tabulated scalability function: s at k (cores per node, or nodes),
 * k increasing; runs and sd_s describe the time measured there. */
struct point {
  double k, s, time_s, sd_s;
  size_t runs;
};

/* A power over the nodes: the mean, the sample standard deviation (NAN
 * below two nodes), the least and the largest, of n nodes' own means. */
struct spread {
  double mean, sd, min, max;
  size_t n;
  const char *from; /* Where it comes from, in words. */
};

/* A model, as calibrated or read back. */
struct model {
  double t_base, ref_nodes, ref_cores;
  struct point *sc, *sn; /* s_cores, s_nodes */
  size_t nsc, nsn;
  struct spread p_idle, p_max; /* p_idle.n is 0 when it is unknown. */
  int estimated;
  char *region; /* The region whose time and energy count; NULL: the job. */
  char *covers; /* What its energy covers (calibrated: owned); NULL. */
  json_t *root; /* The document read back; NULL when calibrated. */
};

/* An I/O approach: none, tp, dc:K or dn:S:D. */
enum kind { A_NONE, A_TP, A_DC, A_DN };
struct approach {
  enum kind kind;
  long k, s, d;
  char name[40];
};

/* What a run gives the model. */
struct sample {
  const char *file;
  double nodes, cores; /* cores: ranks per node. */
  double time_s, energy_j;
  double energy_err_j; /* energy_j's error bar; NAN when unknown. */
  double io_time_s; /* NAN when unknown. */
  struct approach a;
  int has_approach;
  int estimated;
  int no_power;       /* Its region lists no nodes: their power unknown. */
  char partial[160];  /* Why its energy misses nodes or time; "" if not. */
  char *covers;       /* What its energy covers; owned, NULL if unknown. */
  struct nodew *pw;   /* Its nodes' power over the time that counts. */
  size_t npw;
};

/* A node's name (owned) and power. */
struct nodew {
  char *name;
  double w;
};

/* Prints "pmon-report: model: MSG" as one line; returns status. */
#define model_complain(status, ...)                                          \
  report_say(status, PROG ": model", __VA_ARGS__)

/* realloc() that ends the program when memory is exhausted. */
void *model_xrealloc(void *p, size_t n);

/* The option getopt_long() just refused, for its message. */
const char *model_bad_option(char **argv);

/* The element of array whose "name" is name; NULL when none. */
json_t *model_named(json_t *array, const char *name);

/* The number v holds; NAN when it is not one. */
double model_num(json_t *v);

/* The time and energy of r, of its region named region when not NULL, and
 * its nodes, cores per node, approach, I/O time (io_region: the region
 * whose time is its I/O time, when the tags do not say) and nodes' power.
 * Returns 0, or -1 after one error line naming the file; x is then to be
 * released with model_sample_free() all the same. */
int model_take_sample(const struct report *r, const char *file,
                      const char *region, const char *io_region,
                      struct sample *x);
void model_sample_free(struct sample *x);

/* The power of each node of r over its region region (or its run): name
 * and watts, through fn.  Nodes without a figure are left out.  Returns
 * 0, or -1 when the region does not list its nodes (more of them entered
 * it than PMON_REGION_NODES). */
int model_node_powers(const struct report *r, const char *region,
                      void (*fn)(void *, const char *, double), void *arg);

/* Prints the model m for people, with its source file name. */
void model_print(FILE *out, const struct model *m, const char *name);

/* advise's io-approach (report-advise.c): a run under a model, and what
 * the other approaches would have cost it.  Each alternative's energy
 * and time are the run's measured ones times the model's prediction for
 * the alternative over its prediction for the run's own approach (the
 * model's error on the run's own approach scaled out); rel is the
 * relative bar of that ratio from the calibration: 1.96 standard errors
 * of the mean P_max (and P_idle where a dedicated node is involved). */
#define MODEL_ALTS 24
struct model_alt {
  char name[40];
  double e_j, t_s, rel;
};
struct model_advice {
  char own[40];          /* the run's approach (its tag); "" unknown */
  char region[128];      /* the model's region; "" the job */
  char why[280];         /* why there is no alternative; "" */
  double nodes, cores, e_j, e_err_j, t_s; /* the run, measured */
  double e_pred_j;       /* the model's prediction for its own approach */
  double io_time_s;      /* its I/O time (tp's), NAN unknown */
  int estimated;         /* the model's or the run's energy estimated */
  size_t n;
  struct model_alt alt[MODEL_ALTS];
};

/* R (FILE) under the model at PATH into *OUT: its own figures and the
 * alternatives that the model can predict (OUT->n; none, with OUT->why,
 * when the run has no approach tag, no whole measured energy, or its own
 * approach cannot be predicted).  0, or -1 after one line when the model
 * or the run cannot be read. */
int model_advise(const struct report *r, const char *file, const char *path,
                 struct model_advice *out);
/* R's approach, nodes, cores and measured figures as the model at PATH
 * reads them (its region), into OUT (n = 0); 0, or -1 after one line. */
int model_measure(const struct report *r, const char *file, const char *path,
                  struct model_advice *out);

/* "pmon-report model calibrate" (report-calibrate.c), "model predict"
 * and "model validate" (report-model.c): argv[0] is the subcommand; the
 * exit status: 0 when done, 1 when a file could not be read or written or
 * an approach could not be predicted, 2 on a usage error.  The usage
 * texts are those of --help. */
int model_calibrate(int argc, char **argv);
int model_predict(int argc, char **argv);
int model_validate(int argc, char **argv);
extern const char *const model_calibrate_usage;
extern const char *const model_predict_usage;
extern const char *const model_validate_usage;

#endif /* PMON_REPORT_MODEL_H */

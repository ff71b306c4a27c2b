/*
 * report-compare.c - pmon-report compare: several runs side by side
 * (pmon-report(1), COMPARE).
 *
 * Each report is read, its figures taken (the job's, each region's, the
 * MPI-IO ones) and released before the next one is read, so that a sweep
 * of many large reports needs the memory of one.  The figures form a
 * table: one row per figure, one column per run or, with --by, per group
 * of the runs that share the value of a tag (job.tags), whose cell holds
 * the mean, the sample standard deviation and the count of its runs.
 * Every figure is also given as a ratio to the baseline column's.  The
 * table is printed as text, as CSV in long form (one row per column and
 * figure), as a JSON document, or as a web page in the style of the job
 * page (report-html.c).
 *
 * Runs whose energy covers different parts (the reports' "covers") are
 * refused unless --force.  A figure is marked when an estimated meter
 * gave it (E), when its meters measured less than 99.5 % of its time (C),
 * and, forced, when it covers other parts than the baseline's (X).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "tty.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define CMD PROG ": compare"

/* The regions the page lists, the first used; the other outputs list
 * every one. */
#define PAGE_REGIONS 50

/* Below this share of its time measured, a figure is marked C, as the
 * text output notes a region (report-text.c). */
#define COVERED 0.995

/* The marks of a figure, as bits; bit i prints as mark_letters[i]. */
enum { M_EST = 1, M_COV = 2, M_COVERS = 4 };
static const char mark_letters[] = "ECX";
static const char *const mark_words[] = {
  "estimated by a model (the estimate meter), not measured",
  "its meters measured less than 99.5 % of its time: it covers that "
  "share only",
  "its energy covers other parts than the baseline's (compared with "
  "--force): not comparable",
};

/* Which marks a figure can carry: those of the job's energy (the job's
 * estimate, the nodes' coverage), of the I/O energy (the I/O's estimate,
 * the nodes' coverage), of a region's energy (the job's estimate, the
 * region's coverage), or none. */
enum energy { EN_NONE, EN_JOB, EN_IO, EN_REGION };

/* How a figure is written for people: prec decimals (FMT_FIX, a count
 * when prec is 0), or prec significant digits (FMT_SIG). */
enum fmt { FMT_FIX, FMT_SIG };

struct figure {
  const char *key; /* Its name in every output. */
  enum fmt fmt;
  int prec;
  enum energy energy;
};

enum {
  F_WALL, F_ENERGY, F_POWER, F_NODES, F_RANKS, F_NODE_MEAN, F_NODE_SD,
  F_IO_BYTES, F_IO_TIME, F_IO_ENERGY, F_IO_MB_S, F_IO_MB_J, F_IO_MB_S_W,
  F_IO_J_B, F_REG_COUNT, F_REG_TIME, F_REG_ENERGY, NFIG
};
#define NJOB F_IO_BYTES    /* The job's figures come first... */
#define NFIXED F_REG_COUNT /* ...then its I/O's: one of each per run. */
#define NREGFIG (NFIG - NFIXED) /* And these per region. */

static const struct figure figures[NFIG] = {
  [F_WALL] = {"wall_s", FMT_FIX, 3, EN_NONE},
  [F_ENERGY] = {"energy_j", FMT_FIX, 1, EN_JOB},
  [F_POWER] = {"power_w", FMT_FIX, 1, EN_JOB},
  [F_NODES] = {"nodes", FMT_FIX, 0, EN_NONE},
  [F_RANKS] = {"ranks", FMT_FIX, 0, EN_NONE},
  [F_NODE_MEAN] = {"node_energy_mean_j", FMT_FIX, 1, EN_JOB},
  [F_NODE_SD] = {"node_energy_stddev_j", FMT_FIX, 1, EN_JOB},
  [F_IO_BYTES] = {"io_bytes", FMT_FIX, 0, EN_NONE},
  [F_IO_TIME] = {"io_time_s", FMT_FIX, 3, EN_NONE},
  [F_IO_ENERGY] = {"io_energy_j", FMT_FIX, 1, EN_IO},
  [F_IO_MB_S] = {"io_mb_per_s", FMT_SIG, 4, EN_NONE},
  [F_IO_MB_J] = {"io_mb_per_j", FMT_SIG, 4, EN_IO},
  [F_IO_MB_S_W] = {"io_mb_per_s_per_w", FMT_SIG, 4, EN_IO},
  [F_IO_J_B] = {"io_j_per_byte", FMT_SIG, 4, EN_IO},
  [F_REG_COUNT] = {"region_count", FMT_FIX, 0, EN_NONE},
  [F_REG_TIME] = {"region_time_s", FMT_FIX, 3, EN_NONE},
  [F_REG_ENERGY] = {"region_energy_j", FMT_FIX, 1, EN_REGION},
};

/* One figure of one run: NAN when the run has none; its error bar (NAN:
 * unknown, or a figure without one); its M_* marks. */
struct cell {
  double v, err;
  unsigned marks;
};

/* What is kept of a report once its figures are taken. */
struct run {
  const char *path;  /* As given; "-" is standard input. */
  const char *shown; /* path, or "(standard input)". */
  char *name;        /* The column's name: the label, else the base name. */
  char *covers, *job_id, *group; /* Owned; NULL when absent. */
  int estimated;
  struct cell fixed[NFIXED];
  size_t column; /* Its column: its own, or its group's. */
};

/* The union of the runs' region names, in order of first use, found by a
 * hash table; figure j of region k in run i is
 * cells[(k * NREGFIG + j) * nruns + i]. */
struct regions {
  char **names;
  size_t n, cap;
  size_t *slots; /* hcap slots: 0 when empty, else a name's index + 1. */
  size_t hcap;   /* A power of two, at least twice n. */
  struct cell *cells;
};

/* A row of the table: a figure, and for a region's figure its index. */
struct row {
  int fig;
  size_t region;
};

/* A cell of the table: a run's figure, or the mean, sample standard
 * deviation (NAN for fewer than two) and count of a group's runs that
 * have the figure; the ratio of v to the baseline column's; the marks of
 * the runs it is formed from.  ERR is the half-width of v's interval: a
 * run's error bar, or for a group the 95 % Student-t interval of its
 * mean plus the mean of its runs' bars (NAN when a bar is unknown); SIG
 * says whether v differs from the baseline's by more than the two
 * half-widths (1), not (0), or cannot say (-1; the baseline itself). */
struct agg {
  double v, sd, n, ratio, err;
  int sig;
  unsigned marks;
};

enum output { OUT_TEXT, OUT_CSV, OUT_JSON, OUT_HTML };

struct compare {
  const char *baseline, *by, *page; /* The options; NULL when not given. */
  int force;
  enum output output;
  struct run *runs;
  size_t nruns;
  struct regions reg;
  int any_io;
  const struct run *ref; /* The run whose "covers" the others must match. */
  size_t ncols, base;    /* Columns, and the baseline's. */
  char **colname;
  size_t *colruns;       /* Runs per column. */
  struct row *rows;
  size_t nrows;
  struct agg *agg;       /* nrows * ncols, row by row. */
  unsigned marks;        /* Every mark the table holds. */
  int any_err, any_sig;  /* A figure has an error bar; a difference was
                            judged: the text shows them only then. */
};

/* ---- Small pieces ------------------------------------------------------ */

/* The group of a run for --by=cpu_freq when it has no such tag: the
 * frequency its job asked for (job.cpu_freq_req), else the mean clock of
 * its nodes' CPUs to 100 MHz ("2400 MHz"); NULL when neither is known. */
static const char *cpu_freq_key(const struct report *r, char *buf,
                                size_t size) {
  double sum = 0;
  size_t n = 0;

  if (r->job.cpu_freq_req != NULL)
    return r->job.cpu_freq_req;
  for (size_t i = 0; i < r->nnodes; i++)
    if (!isnan(r->nodes[i].cpu_freq.mean_mhz)) {
      sum += r->nodes[i].cpu_freq.mean_mhz;
      n++;
    }
  if (n == 0)
    return NULL;
  snprintf(buf, size, "%.0f MHz", 100 * round(sum / (double)n / 100));
  return buf;
}

/* A copy of s (NULL for NULL) escaped for a terminal (base/tty.h), so that
 * a name from a report cannot break a line or a table, nor reach the
 * terminal as a control sequence.  Names are compared in that form, and
 * written so in every output of compare, CSV and JSON included. */
static char *clean_copy(const char *s) {
  char *d;
  if (s == NULL)
    return NULL;
  if ((d = pmon__tty_dup(s)) == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return d;
}

/* Opens a stream that writes to memory (*buf, *len); dies of a failure,
 * as report_xcalloc() does. */
static FILE *mem_open(char **buf, size_t *len) {
  FILE *mem = open_memstream(buf, len);
  if (mem == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return mem;
}

/* Prints "pmon-report: compare: MSG" as one line; returns status. */
#define complain(status, ...) report_say(status, CMD, __VA_ARGS__)

/* Formats v with 15 significant digits, as the CSV tables of a report
 * (report-text.c): a figure copied from a report prints as it was
 * written; NULL when v is NAN. */
static const char *full(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return NULL;
  snprintf(buf, CELL_MAX, "%.15g", v);
  return buf;
}

/* Formats v of figure f for people; NULL when it is NAN.  A count whose
 * mean is not whole gets two decimals. */
static const char *people(char buf[CELL_MAX], int f, double v) {
  const struct figure *fg = &figures[f];
  if (isnan(v))
    return NULL;
  if (fg->fmt == FMT_SIG)
    snprintf(buf, CELL_MAX, "%.*g", fg->prec, v);
  else if (fg->prec == 0 && v != floor(v))
    snprintf(buf, CELL_MAX, "%.2f", v);
  else
    snprintf(buf, CELL_MAX, "%.*f", fg->prec, v);
  return buf;
}

/* Formats a ratio with three decimals, or three significant digits when
 * that would hide it; NULL when it is NAN. */
static const char *ratio_text(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return NULL;
  if (v == 0 || (fabs(v) >= 0.001 && fabs(v) < 1000))
    snprintf(buf, CELL_MAX, "%.3f", v);
  else
    snprintf(buf, CELL_MAX, "%.3g", v);
  return buf;
}

/* The letters of marks ("EC"), "" for none. */
static const char *mark_text(char buf[8], unsigned marks) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof mark_letters - 1; i++)
    if (marks & (1u << i))
      buf[n++] = mark_letters[i];
  buf[n] = '\0';
  return buf;
}

/* The row's label for people: the figure's key, or "region NAME: FIG". */
static char *row_label(const struct compare *c, const struct row *w) {
  const char *key = figures[w->fig].key;
  size_t len;
  char *s;

  if (w->fig < NFIXED)
    return clean_copy(key);
  key += strlen("region_");
  len = strlen(c->reg.names[w->region]) + strlen(key) + 16;
  s = report_xcalloc(len, 1);
  snprintf(s, len, "region %s: %s", c->reg.names[w->region], key);
  return s;
}

/* ---- Reading the runs -------------------------------------------------- */

/* FNV-1a. */
static size_t hash(const char *s) {
  uint64_t h = 14695981039346656037u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211u;
  return (size_t)h;
}

/* Puts index k + 1 at the free slot of name k. */
static void place(struct regions *g, size_t k) {
  size_t i = hash(g->names[k]) & (g->hcap - 1);
  while (g->slots[i] != 0)
    i = (i + 1) & (g->hcap - 1);
  g->slots[i] = k + 1;
}

/* The index of the region name in g, added (its figures NAN) when new. */
static size_t region_index(struct regions *g, const char *name,
                           size_t nruns) {
  size_t i, per = NREGFIG * nruns;

  if (g->hcap > 0) {
    for (i = hash(name) & (g->hcap - 1); g->slots[i] != 0;
         i = (i + 1) & (g->hcap - 1))
      if (strcmp(g->names[g->slots[i] - 1], name) == 0)
        return g->slots[i] - 1;
  }
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    char **names = realloc(g->names, cap * sizeof *names);
    struct cell *cells;
    if (names == NULL ||
        (g->names = names,
         cells = realloc(g->cells, cap * per * sizeof *cells)) == NULL) {
      fputs(PROG ": out of memory\n", stderr);
      exit(1);
    }
    g->cells = cells;
    g->cap = cap;
  }
  for (i = 0; i < per; i++)
    g->cells[g->n * per + i] = (struct cell){NAN, NAN, 0};
  g->names[g->n] = clean_copy(name);
  if (2 * (g->n + 1) > g->hcap) {
    free(g->slots);
    g->hcap = g->hcap ? 2 * g->hcap : 64;
    g->slots = report_xcalloc(g->hcap, sizeof *g->slots);
    for (size_t k = 0; k < g->n; k++)
      place(g, k);
  }
  place(g, g->n);
  return g->n++;
}

/* The cell of figure f of run i in row w. */
static struct cell *cell_of(const struct compare *c, const struct row *w,
                            size_t i) {
  if (w->fig < NFIXED)
    return &c->runs[i].fixed[w->fig];
  return &c->reg.cells[(w->region * NREGFIG + (size_t)(w->fig - NFIXED)) *
                           c->nruns + i];
}

/* Stores v with its error bar err and marks (none when v is NAN). */
static void put_err(struct cell *x, double v, double err, unsigned marks) {
  x->v = v;
  x->err = isnan(v) ? NAN : err;
  x->marks = isnan(v) ? 0 : marks;
}

static void put(struct cell *x, double v, unsigned marks) {
  put_err(x, v, NAN, marks);
}

/* The error bar of a figure F = k x E (or k / E) from E's bar: the same
 * share of F. */
static double share_err(double f, double e, double err) {
  return e != 0 ? fabs(f) * err / fabs(e) : NAN;
}

/* The marks that figure f of a run can carry, from those of its job's
 * energy, of its I/O energy and, for a region's energy, of the region. */
static unsigned marks_for(int f, unsigned job, unsigned io, unsigned region) {
  switch (figures[f].energy) {
  case EN_JOB: return job;
  case EN_IO: return io;
  case EN_REGION: return region;
  default: return 0;
  }
}

/* Reads run i and takes its figures.  Returns 0, or -1 after its error
 * line. */
static int load_run(struct compare *c, size_t i) {
  struct run *u = &c->runs[i];
  unsigned job = 0, io = 0, cov = 0;
  const char *base;
  struct report r;
  double moved;
  char freq[64];

  if (report_open(u->path, u->shown, &r))
    return -1;
  base = strrchr(u->shown, '/') && strrchr(u->shown, '/')[1]
             ? strrchr(u->shown, '/') + 1 : u->shown;
  u->name = clean_copy(r.job.label && *r.job.label ? r.job.label : base);
  u->covers = clean_copy(r.covers);
  u->job_id = clean_copy(r.job.id);
  u->estimated = r.estimated > 0;
  if (c->by != NULL)
    u->group = clean_copy(report_tag(&r, c->by) ? report_tag(&r, c->by)
                          : strcmp(c->by, "cpu_freq") == 0
                            ? cpu_freq_key(&r, freq, sizeof freq)
                            : NULL);
  for (size_t k = 0; k < r.nnodes; k++)
    cov |= r.nodes[k].energy_coverage < COVERED; /* false for NAN */
  job = (r.estimated > 0 ? M_EST : 0) | (cov ? M_COV : 0);
  io = (r.io.estimated > 0 ? M_EST : 0) | (cov ? M_COV : 0);

  moved = isnan(r.io.bytes_read) && isnan(r.io.bytes_written) ? NAN
          : (isnan(r.io.bytes_read) ? 0 : r.io.bytes_read) +
            (isnan(r.io.bytes_written) ? 0 : r.io.bytes_written);
  {
    const double v[NFIXED] = {
      [F_WALL] = r.job.wall_s,          [F_ENERGY] = r.energy_j,
      [F_POWER] = r.power_w,            [F_NODES] = r.job.nodes,
      [F_RANKS] = r.job.ranks,          [F_NODE_MEAN] = r.stats[0].mean,
      [F_NODE_SD] = r.stats[0].stddev,  [F_IO_BYTES] = moved,
      [F_IO_TIME] = r.io.time_s,        [F_IO_ENERGY] = r.io.energy_j,
      [F_IO_MB_S] = r.io.mb_per_s,      [F_IO_MB_J] = r.io.mb_per_j,
      [F_IO_MB_S_W] = r.io.mb_per_s_per_w, [F_IO_J_B] = r.io.j_per_byte,
    };
    double ej = r.energy_err_j, ei = r.io.energy_err_j;
    const double err[NFIXED] = {
      [F_WALL] = NAN, [F_ENERGY] = ej,
      [F_POWER] = share_err(r.power_w, r.energy_j, ej),
      [F_NODES] = NAN, [F_RANKS] = NAN, [F_NODE_MEAN] = NAN,
      [F_NODE_SD] = NAN, [F_IO_BYTES] = NAN, [F_IO_TIME] = NAN,
      [F_IO_ENERGY] = ei, [F_IO_MB_S] = NAN,
      [F_IO_MB_J] = share_err(r.io.mb_per_j, r.io.energy_j, ei),
      [F_IO_MB_S_W] = share_err(r.io.mb_per_s_per_w, r.io.energy_j, ei),
      [F_IO_J_B] = share_err(r.io.j_per_byte, r.io.energy_j, ei),
    };
    for (int f = 0; f < NFIXED; f++)
      put_err(&u->fixed[f], v[f], err[f], marks_for(f, job, io, 0));
  }
  c->any_io |= r.has_io;

  for (size_t k = 0; k < r.nregions; k++) {
    const struct region *g = &r.regions[k];
    size_t x = region_index(&c->reg, g->name ? g->name : "-", c->nruns);
    struct row w = {F_REG_COUNT, x};
    unsigned m = (r.estimated > 0 ? M_EST : 0) |
                 (g->coverage < COVERED ? M_COV : 0);
    put(cell_of(c, &w, i), g->count, 0);
    w.fig = F_REG_TIME;
    put(cell_of(c, &w, i), g->time_s, 0);
    w.fig = F_REG_ENERGY;
    put_err(cell_of(c, &w, i), g->energy_j, g->energy_err_j, m);
  }
  report_free(&r);
  return 0;
}

/* ---- The columns, the baseline, the table ------------------------------ */

/* One column per run, named after it; runs of one name are told apart by
 * their place on the command line, "NAME#2". */
static void columns_of_runs(struct compare *c) {
  c->ncols = c->nruns;
  c->colname = report_xcalloc(c->ncols, sizeof *c->colname);
  c->colruns = report_xcalloc(c->ncols, sizeof *c->colruns);
  for (size_t i = 0; i < c->nruns; i++) {
    int twin = 0;
    for (size_t j = 0; j < c->nruns && !twin; j++)
      twin = j != i && strcmp(c->runs[i].name, c->runs[j].name) == 0;
    if (twin) {
      size_t len = strlen(c->runs[i].name) + 24;
      c->colname[i] = report_xcalloc(len, 1);
      snprintf(c->colname[i], len, "%s#%zu", c->runs[i].name, i + 1);
    } else
      c->colname[i] = clean_copy(c->runs[i].name);
    c->runs[i].column = i;
    c->colruns[i] = 1;
  }
}

/* One column per value of the tag, in order of first use; the runs
 * without the tag form the group "(none)". */
static void columns_of_groups(struct compare *c) {
  c->colname = report_xcalloc(c->nruns, sizeof *c->colname);
  c->colruns = report_xcalloc(c->nruns, sizeof *c->colruns);
  for (size_t i = 0; i < c->nruns; i++) {
    const char *g = c->runs[i].group ? c->runs[i].group : "(none)";
    size_t k = 0;
    while (k < c->ncols && strcmp(c->colname[k], g) != 0)
      k++;
    if (k == c->ncols)
      c->colname[c->ncols++] = clean_copy(g);
    c->runs[i].column = k;
    c->colruns[k]++;
  }
}

/* Sets c->base from --baseline: a number picks the N-th column, anything
 * else the column of that name.  Returns 0, or the usage status. */
static int pick_baseline(struct compare *c) {
  const char *b = c->baseline, *what = c->by ? "group" : "run";
  char *end;
  unsigned long n;

  c->base = 0;
  if (b == NULL)
    return 0;
  if (*b >= '0' && *b <= '9') {
    errno = 0;
    n = strtoul(b, &end, 10);
    if (*end == '\0') {
      if (errno != 0 || n < 1 || n > c->ncols)
        return complain(2, "--baseline %s: out of range: %zu %s%s, "
                        "numbered from 1", b, c->ncols, what,
                        c->ncols == 1 ? "" : "s");
      c->base = n - 1;
      return 0;
    }
  }
  for (size_t k = 0; k < c->ncols; k++)
    if (strcmp(c->colname[k], b) == 0) {
      c->base = k;
      return 0;
    }
  /* Say which names there are: the first few. */
  {
    char *list = NULL;
    size_t len = 0, k;
    FILE *mem = mem_open(&list, &len);
    int status;
    for (k = 0; k < c->ncols && k < 8; k++)
      fprintf(mem, "%s%s", k ? ", " : "", c->colname[k]);
    if (k < c->ncols)
      fprintf(mem, " and %zu more", c->ncols - k);
    fclose(mem);
    status = complain(2, "--baseline %s: no %s of that name (the %ss: %s)",
                      b, what, what, list ? list : "");
    free(list);
    return status;
  }
}

/* Checks that the runs' energy covers the same parts as the reference run,
 * the first of the baseline column that says (else the first that says);
 * a report that does not say (written before "covers") matches any.
 * Refuses the first that differs, unless --force: then marks its energy
 * figures X.  Returns 0, or 1 after the error line. */
static int check_covers(struct compare *c) {
  for (size_t i = 0; i < c->nruns && c->ref == NULL; i++)
    if (c->runs[i].column == c->base && c->runs[i].covers != NULL)
      c->ref = &c->runs[i];
  for (size_t i = 0; i < c->nruns && c->ref == NULL; i++)
    if (c->runs[i].covers != NULL)
      c->ref = &c->runs[i];
  for (size_t i = 0; i < c->nruns && c->ref != NULL; i++) {
    struct run *u = &c->runs[i];
    if (u->covers == NULL || strcmp(u->covers, c->ref->covers) == 0)
      continue;
    if (!c->force)
      return complain(1, "%s covers \"%s\" but %s covers \"%s\": not "
                      "comparable (--force compares them anyway)",
                      c->ref->shown, c->ref->covers, u->shown, u->covers);
    for (size_t w = 0; w < c->nrows; w++)
      if (figures[c->rows[w].fig].energy != EN_NONE) {
        struct cell *x = cell_of(c, &c->rows[w], i);
        x->marks |= isnan(x->v) ? 0 : M_COVERS;
      }
  }
  return 0;
}

/* Lists the rows: the job's figures, each region's, and the I/O's when a
 * run has I/O figures. */
static void list_rows(struct compare *c) {
  size_t n = 0;
  c->nrows = NJOB + NREGFIG * c->reg.n + (c->any_io ? NFIXED - NJOB : 0);
  c->rows = report_xcalloc(c->nrows, sizeof *c->rows);
  for (int f = 0; f < NJOB; f++)
    c->rows[n++] = (struct row){f, 0};
  for (size_t k = 0; k < c->reg.n; k++)
    for (int f = NFIXED; f < NFIG; f++)
      c->rows[n++] = (struct row){f, k};
  for (int f = NJOB; c->any_io && f < NFIXED; f++)
    c->rows[n++] = (struct row){f, 0};
}

/* The 97.5 % quantile of Student's t with DF degrees of freedom: the
 * table to 30, then 1.96 + 2.5 / DF (within 0.002 of the exact). */
static double t95(double df) {
  static const double t[31] = {
    NAN,   12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
    2.228, 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
    2.086, 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
    2.042};

  if (df < 1)
    return NAN;
  return df <= 30 ? t[(int)df] : 1.96 + 2.5 / df;
}

/* Fills the table: each column's figure from its runs that have it, and
 * its ratio to the baseline's. */
static void aggregate(struct compare *c) {
  c->agg = report_xcalloc(c->nrows * c->ncols, sizeof *c->agg);
  for (size_t w = 0; w < c->nrows; w++) {
    struct agg *a = &c->agg[w * c->ncols];
    for (size_t k = 0; k < c->ncols; k++) {
      double sum = 0, n = 0, ss = 0, mean, bars = 0, sd;
      unsigned marks = 0;
      for (size_t i = 0; i < c->nruns; i++) {
        const struct cell *x = cell_of(c, &c->rows[w], i);
        if (c->runs[i].column != k || isnan(x->v))
          continue;
        sum += x->v;
        bars += x->err; /* NAN once a bar is unknown */
        n++;
        marks |= x->marks;
      }
      mean = n > 0 ? sum / n : NAN;
      for (size_t i = 0; i < c->nruns && n > 1; i++) {
        const struct cell *x = cell_of(c, &c->rows[w], i);
        if (c->runs[i].column == k && !isnan(x->v))
          ss += (x->v - mean) * (x->v - mean);
      }
      sd = n > 1 ? sqrt(ss / (n - 1)) : NAN;
      a[k] = (struct agg){mean, sd, n, NAN,
                          n > 1 ? t95(n - 1) * sd / sqrt(n) + bars / n
                                : n == 1 ? bars : NAN,
                          -1, marks};
      c->marks |= marks;
    }
    for (size_t k = 0; k < c->ncols; k++) {
      double b = a[c->base].v, q = a[k].v / b;
      if (!isnan(a[k].v) && isfinite(b) && b != 0 && isfinite(q))
        a[k].ratio = q;
      if (k != c->base && isfinite(a[k].err) && isfinite(a[c->base].err) &&
          !isnan(a[k].v) && !isnan(b))
        a[k].sig = fabs(a[k].v - b) > a[k].err + a[c->base].err;
      c->any_err |= isfinite(a[k].err);
      c->any_sig |= a[k].sig >= 0;
    }
  }
}

/* ---- Text -------------------------------------------------------------- */

/* A table of strings for people, filled row by row; NULL prints "-". */
struct grid {
  size_t ncols, n, cap;
  char **cell;
  const unsigned char *left; /* Per column: left-aligned when not 0. */
};

static void grid_add(struct grid *g, const char *s) {
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 64;
    g->cell = realloc(g->cell, g->cap * sizeof *g->cell);
    if (g->cell == NULL) {
      fputs(PROG ": out of memory\n", stderr);
      exit(1);
    }
  }
  g->cell[g->n++] = clean_copy(s ? s : "-");
}

/* Prints g: columns two spaces apart, aligned, no trailing blanks; then
 * releases its cells. */
static void grid_print(FILE *out, struct grid *g) {
  size_t *w = report_xcalloc(g->ncols, sizeof *w);
  for (size_t i = 0; i < g->n; i++) {
    size_t k = i % g->ncols, cw = report_text_width(g->cell[i]);
    w[k] = cw > w[k] ? cw : w[k];
  }
  for (size_t i = 0; i < g->n; i += g->ncols) {
    char *line = NULL;
    size_t len = 0;
    FILE *mem = mem_open(&line, &len);
    for (size_t k = 0; k < g->ncols && i + k < g->n; k++) {
      const char *s = g->cell[i + k];
      int fill = (int)(w[k] - report_text_width(s));
      if (g->left[k])
        fprintf(mem, "%s%s%*s", k ? "  " : "", s, fill, "");
      else
        fprintf(mem, "%s%*s%s", k ? "  " : "", fill, "", s);
    }
    fclose(mem);
    while (len > 0 && line[len - 1] == ' ')
      line[--len] = '\0';
    fprintf(out, "%s\n", line);
    free(line);
  }
  for (size_t i = 0; i < g->n; i++)
    free(g->cell[i]);
  free(g->cell);
  free(w);
  g->cell = NULL;
  g->n = g->cap = 0;
}

/* The runs, or the groups, compared: a small table above the figures. */
static void print_columns(FILE *out, const struct compare *c) {
  static const unsigned char left[] = {1, 1, 1, 1};
  static const unsigned char left_g[] = {1, 0, 1};
  struct grid g = {c->by ? 3 : 4, 0, 0, NULL, c->by ? left_g : left};
  char buf[CELL_MAX];

  if (c->by)
    fprintf(out, "by:         tag '%s', %zu run%s in %zu group%s\n", c->by,
            c->nruns, c->nruns == 1 ? "" : "s", c->ncols,
            c->ncols == 1 ? "" : "s");
  fprintf(out, "baseline:   %s\n", c->colname[c->base]);
  if (c->ref != NULL)
    fprintf(out, "covers:     %s%s\n", c->ref->covers,
            (c->marks & M_COVERS) ? " (the baseline's; others differ, "
                                    "compared with --force)" : "");
  putc('\n', out);
  if (c->by) {
    grid_add(&g, "group");
    grid_add(&g, "n");
    grid_add(&g, "runs");
    for (size_t k = 0; k < c->ncols; k++) {
      char *list = NULL;
      size_t len = 0, shown = 0;
      FILE *mem = mem_open(&list, &len);
      for (size_t i = 0; i < c->nruns; i++)
        if (c->runs[i].column == k)
          fprintf(mem, "%s%s", shown++ ? ", " : "", c->runs[i].name);
      fclose(mem);
      grid_add(&g, c->colname[k]);
      snprintf(buf, sizeof buf, "%zu", c->colruns[k]);
      grid_add(&g, buf);
      grid_add(&g, list);
      free(list);
    }
  } else {
    grid_add(&g, "run");
    grid_add(&g, "file");
    grid_add(&g, "job");
    grid_add(&g, "covers");
    for (size_t i = 0; i < c->nruns; i++) {
      grid_add(&g, c->colname[i]);
      grid_add(&g, c->runs[i].shown);
      grid_add(&g, c->runs[i].job_id);
      grid_add(&g, c->runs[i].covers);
    }
  }
  grid_print(out, &g);
}

/* Prints the table as text: a column of labels, then per run its figure
 * and ratio or, with --by, per group its mean, standard deviation, count
 * and ratio; the marks after a figure, padded so that the digits of a
 * column line up; then what the marks mean. */
static void print_text(FILE *out, struct compare *c) {
  size_t per = c->by ? 4 : 2;
  size_t ncols = 1 + per * c->ncols + (c->any_sig ? c->ncols - 1 : 0);
  unsigned char *left = report_xcalloc(ncols, 1);
  size_t *mw = report_xcalloc(c->ncols, sizeof *mw);
  struct grid g = {ncols, 0, 0, NULL, left};
  char buf[CELL_MAX], mk[8], cellbuf[CELL_MAX + 8];

  print_columns(out, c);
  putc('\n', out);
  left[0] = 1;
  for (size_t w = 0; w < c->nrows; w++)
    for (size_t k = 0; k < c->ncols; k++) {
      size_t m = strlen(mark_text(mk, c->agg[w * c->ncols + k].marks));
      m += m > 0; /* the star */
      mw[k] = m > mw[k] ? m : mw[k];
    }
  grid_add(&g, "figure");
  for (size_t k = 0; k < c->ncols; k++) {
    grid_add(&g, c->colname[k]);
    if (c->by) {
      grid_add(&g, "sd");
      grid_add(&g, "n");
    }
    grid_add(&g, "ratio");
    if (k != c->base && c->any_sig)
      grid_add(&g, "difference");
  }
  for (size_t w = 0; w < c->nrows; w++) {
    char *label = row_label(c, &c->rows[w]);
    int f = c->rows[w].fig;
    grid_add(&g, label);
    free(label);
    for (size_t k = 0; k < c->ncols; k++) {
      const struct agg *a = &c->agg[w * c->ncols + k];
      const char *v = people(buf, f, a->v);
      char errbuf[CELL_MAX + 8] = "";

      mark_text(mk, a->marks);
      if (v != NULL && isfinite(a->err)) {
        char e[CELL_MAX];

        snprintf(errbuf, sizeof errbuf, " %s %s", report_pm(),
                 people(e, f, a->err));
      }
      snprintf(cellbuf, sizeof cellbuf, "%s%s%s%s%*s", v ? v : "-", errbuf,
               *mk ? "*" : "", mk,
               (int)(mw[k] - strlen(mk) - (*mk != 0)), "");
      grid_add(&g, cellbuf);
      if (c->by) {
        grid_add(&g, people(buf, f, a->sd));
        snprintf(buf, sizeof buf, "%.0f", a->n);
        grid_add(&g, buf);
      }
      grid_add(&g, ratio_text(buf, a->ratio));
      if (k != c->base && c->any_sig)
        grid_add(&g, a->sig > 0    ? "significant"
                     : a->sig == 0 ? "not significant"
                                   : "");
    }
  }
  grid_print(out, &g);
  if (c->by)
    fputs("\nnote: per group, the mean of its runs that have the figure, "
          "their sample\nstandard deviation (n - 1; - for one run), how "
          "many they are, and the mean's\nratio to the baseline group's\n",
          out);
  else
    fputs("\nnote: ratio: the figure divided by the baseline's\n", out);
  if (c->any_err)
    fprintf(out, "note: %s: the error bar (with --by: the mean's 95 %% "
            "Student-t interval plus\nthe mean of the bars); a difference "
            "is significant when larger than the\ntwo figures' %s added\n",
            report_pm(), report_pm());
  for (size_t i = 0; i < sizeof mark_letters - 1; i++)
    if (c->marks & (1u << i))
      fprintf(out, "*%c: %s\n", mark_letters[i], mark_words[i]);
  free(left);
  free(mw);
}

/* ---- CSV --------------------------------------------------------------- */

/* Prints s as one CSV field, quoted as RFC 4180 asks when it holds a
 * comma, a double quote or a line break; NULL is an empty field. */
static void csv_field(FILE *out, const char *s, int last) {
  report_csv_field(out, s);
  putc(last ? '\n' : ',', out);
}

/* Prints the table in long form: a heading, then one row per figure and
 * column (the columns of a figure together), the figures with 15
 * significant digits; the standard deviation and the count only with
 * --by. */
static void print_csv(FILE *out, const struct compare *c) {
  char buf[CELL_MAX], mk[8];

  fprintf(out,
          "%s,figure,region,value,ratio,stddev,count,flags,err,significant\n",
          c->by ? "group" : "run");
  for (size_t w = 0; w < c->nrows; w++) {
    const struct row *r = &c->rows[w];
    for (size_t k = 0; k < c->ncols; k++) {
      const struct agg *a = &c->agg[w * c->ncols + k];
      csv_field(out, c->colname[k], 0);
      csv_field(out, figures[r->fig].key, 0);
      csv_field(out, r->fig >= NFIXED ? c->reg.names[r->region] : NULL, 0);
      csv_field(out, full(buf, a->v), 0);
      csv_field(out, full(buf, a->ratio), 0);
      csv_field(out, c->by ? full(buf, a->sd) : NULL, 0);
      snprintf(buf, sizeof buf, "%.0f", a->n);
      csv_field(out, c->by ? buf : NULL, 0);
      csv_field(out, mark_text(mk, a->marks), 0);
      csv_field(out, full(buf, a->err), 0);
      csv_field(out, a->sig < 0 ? NULL : a->sig ? "true" : "false", 1);
    }
  }
}

/* ---- JSON -------------------------------------------------------------- */

/* Dies of a NULL from jansson: it only fails for want of memory. */
static json_t *need(json_t *v) {
  if (v == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return v;
}

/* v as a JSON number (an integer when it is whole), or null for NAN. */
static json_t *number(double v) {
  if (!isfinite(v))
    return json_null();
  if (v == floor(v) && fabs(v) < 9007199254740992.0)
    return need(json_integer((json_int_t)v));
  return need(json_real(v));
}

static json_t *string_or_null(const char *s) {
  return s ? need(json_string(s)) : json_null();
}

/* The columns: each run, or each group with its runs. */
static json_t *json_columns(const struct compare *c) {
  json_t *cols = need(json_array());
  for (size_t k = 0; k < c->ncols; k++) {
    json_t *o = need(json_object());
    json_object_set_new(o, "name", need(json_string(c->colname[k])));
    json_object_set_new(o, "baseline", json_boolean(k == c->base));
    if (c->by) {
      json_t *runs = need(json_array());
      json_object_set_new(o, "count", number((double)c->colruns[k]));
      for (size_t i = 0; i < c->nruns; i++) {
        const struct run *u = &c->runs[i];
        json_t *r;
        if (u->column != k)
          continue;
        r = need(json_object());
        json_object_set_new(r, "name", need(json_string(u->name)));
        json_object_set_new(r, "file", need(json_string(u->shown)));
        json_object_set_new(r, "job", string_or_null(u->job_id));
        json_object_set_new(r, "covers", string_or_null(u->covers));
        json_object_set_new(r, "estimated", json_boolean(u->estimated));
        json_array_append_new(runs, r);
      }
      json_object_set_new(o, "runs", runs);
    } else {
      const struct run *u = &c->runs[k];
      json_object_set_new(o, "file", need(json_string(u->shown)));
      json_object_set_new(o, "job", string_or_null(u->job_id));
      json_object_set_new(o, "covers", string_or_null(u->covers));
      json_object_set_new(o, "estimated", json_boolean(u->estimated));
    }
    json_array_append_new(cols, o);
  }
  return cols;
}

/* Prints the comparison as one JSON document. */
static int print_json(FILE *out, const struct compare *c) {
  json_t *doc = need(json_object()), *figs = need(json_array());
  json_t *fmt = need(json_object()), *marks = need(json_object());
  char mk[8], *s;

  json_object_set_new(fmt, "name", need(json_string("pmon-compare")));
  json_object_set_new(fmt, "version", need(json_integer(1)));
  json_object_set_new(doc, "format", fmt);
  json_object_set_new(doc, "by", string_or_null(c->by));
  json_object_set_new(doc, "baseline", need(json_string(c->colname[c->base])));
  json_object_set_new(doc, "covers",
                      string_or_null(c->ref ? c->ref->covers : NULL));
  json_object_set_new(doc, "forced", json_boolean(c->marks & M_COVERS));
  for (size_t i = 0; i < sizeof mark_letters - 1; i++) {
    char key[2] = {mark_letters[i], '\0'};
    json_object_set_new(marks, key, need(json_string(mark_words[i])));
  }
  json_object_set_new(doc, "marks", marks);
  json_object_set_new(doc, "columns", json_columns(c));
  for (size_t w = 0; w < c->nrows; w++) {
    const struct row *r = &c->rows[w];
    json_t *o = need(json_object()), *vals = need(json_array());
    json_object_set_new(o, "figure", need(json_string(figures[r->fig].key)));
    json_object_set_new(o, "region", string_or_null(
                        r->fig >= NFIXED ? c->reg.names[r->region] : NULL));
    for (size_t k = 0; k < c->ncols; k++) {
      const struct agg *a = &c->agg[w * c->ncols + k];
      json_t *v = need(json_object());
      json_object_set_new(v, "value", number(a->v));
      if (c->by) {
        json_object_set_new(v, "stddev", number(a->sd));
        json_object_set_new(v, "count", number(a->n));
      }
      json_object_set_new(v, "ratio", number(a->ratio));
      json_object_set_new(v, "err", number(a->err));
      json_object_set_new(v, "significant",
                          a->sig < 0 ? json_null() : json_boolean(a->sig));
      json_object_set_new(v, "flags",
                          need(json_string(mark_text(mk, a->marks))));
      json_array_append_new(vals, v);
    }
    json_object_set_new(o, "values", vals);
    json_array_append_new(figs, o);
  }
  json_object_set_new(doc, "figures", figs);
  s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                          JSON_REAL_PRECISION(15));
  json_decref(doc);
  if (s == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  fprintf(out, "%s\n", s);
  free(s);
  return 0;
}

/* ---- HTML -------------------------------------------------------------- */

/* Writes s escaped; "-" for NULL. */
static void esc(FILE *out, const char *s) {
  report_xml_text(out, s ? s : "-", 0);
}

/* A badge per mark, titled with what it means. */
static void badges(FILE *out, unsigned marks) {
  for (size_t i = 0; i < sizeof mark_letters - 1; i++)
    if (marks & (1u << i))
      fprintf(out, "<span class=\"est\" title=\"%s\">%c</span>",
              mark_words[i], mark_letters[i]);
}

/* A right-aligned cell: s (formatted here, never text from a report) or
 * an en dash, and the badges of marks. */
static void num_cell(FILE *out, const char *s, unsigned marks) {
  fputs("<td class=\"n\">", out);
  fputs(s ? s : "\xE2\x80\x93", out);
  badges(out, marks);
  fputs("</td>", out);
}

/* The runs, or the groups with their runs, as a table. */
static void page_columns(FILE *out, const struct compare *c) {
  fprintf(out, "<h3>%s<small>%zu run%s", c->by ? "Groups" : "Runs",
          c->nruns, c->nruns == 1 ? "" : "s");
  if (c->by) {
    fprintf(out, " in %zu group%s by the tag <code>", c->ncols,
            c->ncols == 1 ? "" : "s");
    esc(out, c->by);
    fputs("</code>", out);
  }
  fputs("</small></h3>\n<table class=\"runs\"><thead><tr>", out);
  if (c->by)
    fputs("<th>group</th><th class=\"n\">n</th><th>runs</th>", out);
  else
    fputs("<th>run</th><th>file</th><th>job</th><th>covers</th>", out);
  fputs("</tr></thead><tbody>\n", out);
  for (size_t k = 0; k < c->ncols; k++) {
    fputs("<tr><td class=\"name\">", out);
    esc(out, c->colname[k]);
    if (k == c->base)
      fputs(" <span class=\"muted\">(baseline)</span>", out);
    fputs("</td>", out);
    if (c->by) {
      size_t shown = 0;
      fprintf(out, "<td class=\"n\">%zu</td><td class=\"name\">",
              c->colruns[k]);
      for (size_t i = 0; i < c->nruns; i++)
        if (c->runs[i].column == k) {
          fputs(shown++ ? ", " : "", out);
          esc(out, c->runs[i].name);
        }
      fputs("</td>", out);
    } else {
      fputs("<td class=\"name mono\">", out);
      esc(out, c->runs[k].shown);
      fputs("</td><td>", out);
      esc(out, c->runs[k].job_id);
      fputs("</td><td>", out);
      esc(out, c->runs[k].covers);
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table>\n", out);
}

/* A row of the figures' table that opens a part of it. */
static void page_part(FILE *out, const struct compare *c, const char *name) {
  fprintf(out, "<tr><th colspan=\"%zu\">%s</th></tr>\n",
          1 + (c->by ? 4 : 2) * c->ncols, name);
}

/* The figures: per column its figure (or mean, sd, n) and ratio. */
static void page_figures(FILE *out, const struct compare *c) {
  size_t regions = 0;
  char buf[CELL_MAX];

  fputs("<h3>Figures<small>", out);
  fputs(c->by ? "per group, the mean of its runs, their sample standard "
                "deviation (n&#8202;&#8722;&#8202;1) and number, and the "
                "mean's ratio to the baseline's"
              : "per run, the figure and its ratio to the baseline's", out);
  fputs("</small></h3>\n<div class=\"wide\"><table class=\"compare\">"
        "<thead><tr><th>figure</th>", out);
  for (size_t k = 0; k < c->ncols; k++) {
    fprintf(out, "<th class=\"n\" colspan=\"%d\">", c->by ? 4 : 2);
    esc(out, c->colname[k]);
    fputs("</th>", out);
  }
  fputs("</tr><tr><th></th>", out);
  for (size_t k = 0; k < c->ncols; k++)
    fputs(c->by ? "<th class=\"n\">mean</th><th class=\"n\">sd</th>"
                  "<th class=\"n\">n</th><th class=\"n\">ratio</th>"
                : "<th class=\"n\">value</th><th class=\"n\">ratio</th>",
          out);
  fputs("</tr></thead><tbody>\n", out);
  page_part(out, c, "job");
  for (size_t w = 0; w < c->nrows; w++) {
    const struct row *r = &c->rows[w];
    if (r->fig >= NFIXED) {
      if (r->fig == F_REG_COUNT && regions++ == 0)
        page_part(out, c, "regions");
      if (regions > PAGE_REGIONS)
        continue;
    } else if (r->fig == F_IO_BYTES)
      page_part(out, c, "MPI-IO");
    fputs("<tr><td class=\"name\">", out);
    if (r->fig >= NFIXED) {
      esc(out, c->reg.names[r->region]);
      fputs(" <span class=\"muted\">", out);
      esc(out, figures[r->fig].key + strlen("region_"));
      fputs("</span>", out);
    } else
      esc(out, figures[r->fig].key);
    fputs("</td>", out);
    for (size_t k = 0; k < c->ncols; k++) {
      const struct agg *a = &c->agg[w * c->ncols + k];
      char cell[3 * CELL_MAX], e[CELL_MAX];
      const char *v = people(buf, r->fig, a->v);

      if (v != NULL && isfinite(a->err))
        snprintf(cell, sizeof cell, "%s \u00b1 %s", v,
                 people(e, r->fig, a->err));
      else
        snprintf(cell, sizeof cell, "%s", v ? v : "");
      num_cell(out, v ? cell : NULL, a->marks);
      if (c->by) {
        num_cell(out, people(buf, r->fig, a->sd), 0);
        snprintf(buf, sizeof buf, "%.0f", a->n);
        num_cell(out, buf, 0);
      }
      /* Whether it differs from the baseline's by more than the bars. */
      if (ratio_text(buf, a->ratio) != NULL && a->sig >= 0) {
        snprintf(cell, sizeof cell, "%s <span class=\"muted\">%s</span>",
                 buf, a->sig ? "significant" : "not significant");
        num_cell(out, cell, 0);
      } else
        num_cell(out, ratio_text(buf, a->ratio), 0);
    }
    fputs("</tr>\n", out);
    if (r->fig == F_REG_ENERGY && regions == PAGE_REGIONS &&
        c->reg.n > PAGE_REGIONS)
      fprintf(out, "<tr class=\"more\"><td colspan=\"%zu\">%zu more "
              "regions (pmon-report compare --csv)</td></tr>\n",
              1 + (c->by ? 4 : 2) * c->ncols, c->reg.n - PAGE_REGIONS);
  }
  fputs("</tbody></table></div>\n", out);
}

/* Writes the comparison as one self-contained page, in the style of the
 * job page and as well-formed XML, to c->page; the exit status. */
static int write_page(struct compare *c) {
  struct report_out o;
  FILE *out = report_out_open(&o, c->page);

  if (out == NULL)
    return 1;
  fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
        "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
        "'none'; style-src 'unsafe-inline'\"/>\n"
        "<meta name=\"viewport\" content=\"width=device-width, "
        "initial-scale=1\"/>\n<meta name=\"generator\" content=\"" PROG " "
        PACKAGE_VERSION "\"/>\n", out);
  fprintf(out, "<title>pmon: %zu runs compared</title>\n<style>\n%s"
          "table.compare td.n{padding-left:4px}\n"
          "table.compare td.name{overflow-wrap:break-word}\n"
          "div.wide{overflow-x:auto}\n"
          "table.compare tbody th{text-align:left;padding-top:14px}\n"
          "</style>\n</head>\n<body>\n<main>\n<header class=\"page\"><h1>"
          "pmon comparison</h1><p>%zu run%s, ratios to ", c->nruns,
          report_html_style, c->nruns, c->nruns == 1 ? "" : "s");
  esc(out, c->colname[c->base]);
  fputs(", drawn by " PROG " " PACKAGE_VERSION " from the reports that "
        "pmon wrote</p></header>\n", out);
  if (c->ref != NULL) {
    fputs("<p class=\"note\">Energy of ", out);
    esc(out, strcmp(c->ref->covers, "node") == 0 ? "whole nodes"
                                                 : c->ref->covers);
    fputs((c->marks & M_COVERS) ? " in the baseline; some runs cover other "
          "parts (compared with --force).</p>\n" : ".</p>\n", out);
  }
  page_columns(out, c);
  page_figures(out, c);
  for (size_t i = 0; i < sizeof mark_letters - 1; i++)
    if (c->marks & (1u << i)) {
      fputs("<p class=\"note\">", out);
      badges(out, 1u << i);
      fprintf(out, " %s</p>\n", mark_words[i]);
    }
  fputs("<footer>Energy in joules (J), power in watts (W), time in seconds "
        "(s), 1 MB = 10<sup>6</sup> bytes. A dash is a figure that was not "
        "measured. The reports' format: pmon-report(5).</footer>\n"
        "</main>\n</body>\n</html>\n", out);
  return report_out_close(&o, 1) ? 1 : 0;
}

/* ---- Command line ------------------------------------------------------ */

static void usage(FILE *out) {
  fputs("Usage: " PROG " compare [OPTION]... FILE FILE...\n"
        "  or:  " PROG " compare --by=TAG [OPTION]... FILE...\n"
        "Compare the energy reports FILE... of several runs side by side:\n"
        "wall time, energy, power, nodes, ranks, the nodes' energy, each\n"
        "region's count, time and energy, and the MPI-IO figures, each\n"
        "also as a ratio to the baseline's.  A run is named by its label\n"
        "(pmon-run --label), else by its file's name.\n"
        "\n"
        "      --baseline=RUN   the run (with --by: the group) the ratios\n"
        "                       are to: its number, from 1, or its name\n"
        "                       (default: the first)\n"
        "      --by=TAG         one column per value of the tag TAG\n"
        "                       (pmon-run --tag): the mean, the sample\n"
        "                       standard deviation and the count of its runs;\n"
        "                       cpu_freq, when no run has that tag, groups\n"
        "                       by the requested or the measured CPU clock\n"
        "      --force          compare runs whose energy covers different\n"
        "                       parts (whole nodes, cpu+memory...), marked\n"
        "  -c, --csv            print CSV, one row per run and figure\n"
        "  -j, --json           print one JSON document\n"
        "  -H, --html=PAGE      write a web page to PAGE (- for standard\n"
        "                       output)\n"
        "  -h, --help           print this help and exit\n"
        "\n"
        "Marks: *E estimated by a model, *C measured over less than 99.5 %\n"
        "of its time, *X covers other parts than the baseline (--force).\n"
        "Exit status: 0 when compared, 1 when a FILE could not be read or\n"
        "the runs are not comparable, 2 on a usage error.  See\n"
        "pmon-report(1).\n",
        out);
}

/* Parses the options into *c.  Returns -1 to go on with the files from
 * optind, or the exit status to end with now. */
static int parse_args(int argc, char **argv, struct compare *c) {
  enum { O_BASELINE = 256, O_BY, O_FORCE };
  static const struct option longopts[] = {
    {"baseline", required_argument, NULL, O_BASELINE},
    {"by", required_argument, NULL, O_BY},
    {"force", no_argument, NULL, O_FORCE},
    {"csv", no_argument, NULL, 'c'},
    {"json", no_argument, NULL, 'j'},
    {"html", required_argument, NULL, 'H'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
  };
  int opt, formats = 0, files;

  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":cjH:h", longopts, NULL)) != -1) {
    switch (opt) {
    case O_BASELINE: c->baseline = optarg; break;
    case O_BY: c->by = optarg; break;
    case O_FORCE: c->force = 1; break;
    case 'c': c->output = OUT_CSV; formats++; break;
    case 'j': c->output = OUT_JSON; formats++; break;
    case 'H': c->output = OUT_HTML; c->page = optarg; formats++; break;
    case 'h': usage(stdout); return 0;
    case ':':
      return complain(2, "%s: option needs an argument (" PROG
                      " compare --help)", argv[optind - 1]);
    default:
      if (optopt == 0 || strncmp(argv[optind - 1], "--", 2) == 0)
        return complain(2, "%s: invalid option (" PROG " compare --help)",
                        argv[optind - 1]);
      return complain(2, "-%c: invalid option (" PROG " compare --help)",
                      optopt);
    }
  }
  files = argc - optind;
  if (formats > 1)
    return complain(2, "--csv, --json and --html: choose one output "
                    "format");
  if (c->page != NULL && *c->page == '\0')
    return complain(2, "--html: the output file name is empty");
  if (c->by != NULL && *c->by == '\0')
    return complain(2, "--by: the tag name is empty");
  if (c->by == NULL && files < 2)
    return complain(2, "give two reports or more (%d given), or one or "
                    "more with --by=TAG", files);
  if (files < 1)
    return complain(2, "--by=%s: give one report or more", c->by);
  return -1;
}

/* Releases what c holds. */
static void release(struct compare *c) {
  for (size_t i = 0; i < c->nruns; i++) {
    free(c->runs[i].name);
    free(c->runs[i].covers);
    free(c->runs[i].job_id);
    free(c->runs[i].group);
  }
  for (size_t k = 0; k < c->reg.n; k++)
    free(c->reg.names[k]);
  for (size_t k = 0; c->colname != NULL && k < c->ncols; k++)
    free(c->colname[k]);
  free(c->runs);
  free(c->reg.names);
  free(c->reg.slots);
  free(c->reg.cells);
  free(c->colname);
  free(c->colruns);
  free(c->rows);
  free(c->agg);
}

int report_compare(int argc, char **argv) {
  struct compare c = {0};
  int status = parse_args(argc, argv, &c);

  if (status >= 0)
    return status;
  c.nruns = (size_t)(argc - optind);
  c.runs = report_xcalloc(c.nruns, sizeof *c.runs);
  /* Every file is read, so that each bad one is named; then none is
   * compared, for a comparison with a run missing would mislead. */
  status = 0;
  for (size_t i = 0; i < c.nruns; i++) {
    c.runs[i].path = argv[optind + (int)i];
    c.runs[i].shown = strcmp(c.runs[i].path, "-") ? c.runs[i].path
                                                  : "(standard input)";
    if (load_run(&c, i))
      status = 1;
  }
  if (status == 0) {
    if (c.by)
      columns_of_groups(&c);
    else
      columns_of_runs(&c);
    list_rows(&c);
    if ((status = pick_baseline(&c)) == 0 &&
        (status = check_covers(&c)) == 0) {
      aggregate(&c);
      if (c.output == OUT_HTML)
        status = write_page(&c);
      else if (c.output == OUT_CSV)
        print_csv(stdout, &c);
      else if (c.output == OUT_JSON)
        print_json(stdout, &c);
      else
        print_text(stdout, &c);
    }
  }
  release(&c);
  if (fflush(stdout) != 0 || ferror(stdout))
    return complain(1, "standard output: write error: %s", strerror(errno));
  return status;
}

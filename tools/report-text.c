/*
 * report-text.c - a pmon report as text tables for people, and as CSV
 * tables for spreadsheets and scripts (pmon-report(1), the default output
 * and --csv).
 *
 * Both are printed from one description of each table: its columns, the
 * member of the row struct each shows, and how a figure is formatted in
 * each form.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* A column shows one member of a row struct: a string (C_STR), a figure
 * (C_NUM) rounded to prec decimals in text and given in full in CSV, the
 * same with prec significant digits in scientific notation (C_SCI), a
 * percentage (C_PCT), a number of bytes (C_MB) given in MB (10^6 bytes) in
 * text and in bytes in CSV, an int boolean (C_BOOL, -1 when absent), or
 * an energy's error bar (C_ERR: the member is energy_err_j, just after
 * energy_j; in text "?" when unknown, and marked "!" when more than
 * ERR_LARGE of its energy). */
enum cell { C_STR, C_NUM, C_SCI, C_PCT, C_MB, C_BOOL, C_ERR };

#define ERR_LARGE 0.1

_Static_assert(offsetof(struct node, energy_err_j) ==
                 offsetof(struct node, energy_j) + sizeof(double) &&
               offsetof(struct region, energy_err_j) ==
                 offsetof(struct region, energy_j) + sizeof(double) &&
               offsetof(struct nodeio, energy_err_j) ==
                 offsetof(struct nodeio, energy_j) + sizeof(double) &&
               offsetof(struct io, energy_err_j) ==
                 offsetof(struct io, energy_j) + sizeof(double) &&
               offsetof(struct comm, energy_err_j) ==
                 offsetof(struct comm, energy_j) + sizeof(double) &&
               offsetof(struct commrow, energy_err_j) ==
                 offsetof(struct commrow, energy_j) + sizeof(double),
               "C_ERR reads the energy just before its error bar");

struct column {
  const char *text, *csv; /* Headings; NULL leaves it out of that format. */
  enum cell cell;
  int prec;
  size_t off;
};

#define COL(text, csv, type, member, cell, prec)                             \
  {text, csv, cell, prec, offsetof(type, member)}

static const struct column node_cols[] = {
  COL("node", "node", struct node, name, C_STR, 0),
  COL("ranks", "ranks", struct node, ranks, C_NUM, 0),
  COL("energy_j", "energy_j", struct node, energy_j, C_NUM, 1),
  COL("+-", NULL, struct node, energy_err_j, C_ERR, 1),
  COL("wall_s", "wall_s", struct node, wall_s, C_NUM, 3),
  COL("power_w", "power_w", struct node, power_w, C_NUM, 1),
  COL("covers", "covers", struct node, covers, C_STR, 0),
  COL("total_from", "total_from", struct node, total_from, C_STR, 0),
  COL("events", "events", struct node, nevents, C_NUM, 0),
  COL(NULL, "energy_err_j", struct node, energy_err_j, C_ERR, 0),
  COL(NULL, "estimated", struct node, estimated, C_BOOL, 0),
};

static const struct column region_cols[] = {
  COL("region", "region", struct region, name, C_STR, 0),
  COL("count", "count", struct region, count, C_NUM, 0),
  COL("time_s", "time_s", struct region, time_s, C_NUM, 3),
  COL("energy_j", "energy_j", struct region, energy_j, C_NUM, 1),
  COL("+-", NULL, struct region, energy_err_j, C_ERR, 1),
  COL("power_w", "power_w", struct region, power_w, C_NUM, 1),
  COL("share", "share_pct", struct region, share, C_PCT, 1),
  COL(NULL, "coverage", struct region, coverage, C_NUM, 3),
  COL(NULL, "energy_err_j", struct region, energy_err_j, C_ERR, 0),
  COL(NULL, "energy_method", struct region, energy_method, C_STR, 0),
};

static const struct column event_cols[] = {
  COL("node", "node", struct event, node, C_STR, 0),
  COL("t_s", "t_s", struct event, t_s, C_NUM, 3),
  COL("meter", "meter", struct event, meter, C_STR, 0),
  COL("event", "type", struct event, type, C_STR, 0),
  COL("detail", "detail", struct event, detail, C_STR, 0),
};

/* The I/O of each node; the call counts and the gap only in CSV. */
static const struct column nodeio_cols[] = {
  COL("node", "node", struct node, name, C_STR, 0),
  COL("read_mb", "bytes_read", struct node, io.bytes_read, C_MB, 3),
  COL("written_mb", "bytes_written", struct node, io.bytes_written, C_MB, 3),
  COL(NULL, "reads", struct node, io.reads, C_NUM, 0),
  COL(NULL, "writes", struct node, io.writes, C_NUM, 0),
  COL(NULL, "meta_ops", struct node, io.meta_ops, C_NUM, 0),
  COL("ops", "ops", struct node, io.ops, C_NUM, 0),
  COL("errors", "errors", struct node, io.errors, C_NUM, 0),
  COL("time_s", "time_s", struct node, io.time_s, C_NUM, 3),
  COL("phases", "phases", struct node, io.phases, C_NUM, 0),
  COL("phase_s", "phase_time_s", struct node, io.phase_time_s, C_NUM, 3),
  COL("energy_j", "energy_j", struct node, io.energy_j, C_NUM, 1),
  COL("+-", NULL, struct node, io.energy_err_j, C_ERR, 1),
  COL("power_w", "power_w", struct node, io.power_w, C_NUM, 1),
  COL(NULL, "gap_s", struct node, io.gap_s, C_NUM, 3),
  COL(NULL, "energy_err_j", struct node, io.energy_err_j, C_ERR, 0),
};

/* The job's I/O as one CSV row; the text prints it as lines instead. */
static const struct column io_cols[] = {
  COL(NULL, "gap_s", struct io, gap_s, C_NUM, 0),
  COL(NULL, "bytes_read", struct io, bytes_read, C_NUM, 0),
  COL(NULL, "bytes_written", struct io, bytes_written, C_NUM, 0),
  COL(NULL, "reads", struct io, reads, C_NUM, 0),
  COL(NULL, "writes", struct io, writes, C_NUM, 0),
  COL(NULL, "meta_ops", struct io, meta_ops, C_NUM, 0),
  COL(NULL, "ops", struct io, ops, C_NUM, 0),
  COL(NULL, "errors", struct io, errors, C_NUM, 0),
  COL(NULL, "time_s", struct io, time_s, C_NUM, 0),
  COL(NULL, "phases", struct io, phases, C_NUM, 0),
  COL(NULL, "phase_time_s", struct io, phase_time_s, C_NUM, 0),
  COL(NULL, "energy_j", struct io, energy_j, C_NUM, 0),
  COL(NULL, "power_w", struct io, power_w, C_NUM, 0),
  COL(NULL, "mb_per_s", struct io, mb_per_s, C_NUM, 0),
  COL(NULL, "mb_per_j", struct io, mb_per_j, C_NUM, 0),
  COL(NULL, "mb_per_s_per_w", struct io, mb_per_s_per_w, C_NUM, 0),
  COL(NULL, "j_per_byte", struct io, j_per_byte, C_NUM, 0),
  COL(NULL, "estimated", struct io, estimated, C_BOOL, 0),
  COL(NULL, "nodes_without_energy", struct io, nodes_without_energy, C_NUM,
      0),
  COL(NULL, "files_omitted", struct io, files_omitted, C_NUM, 0),
  COL(NULL, "energy_err_j", struct io, energy_err_j, C_ERR, 0),
};

/* The files of the job's I/O; the call counts only in CSV. */
static const struct column iofile_cols[] = {
  COL("file", "file", struct iofile, name, C_STR, 0),
  COL("read_mb", "bytes_read", struct iofile, bytes_read, C_MB, 3),
  COL("written_mb", "bytes_written", struct iofile, bytes_written, C_MB, 3),
  COL(NULL, "reads", struct iofile, reads, C_NUM, 0),
  COL(NULL, "writes", struct iofile, writes, C_NUM, 0),
  COL(NULL, "meta_ops", struct iofile, meta_ops, C_NUM, 0),
  COL("ops", "ops", struct iofile, ops, C_NUM, 0),
  COL("time_s", "time_s", struct iofile, time_s, C_NUM, 3),
  COL("ranks", "ranks", struct iofile, ranks, C_NUM, 0),
};

/* The job's MPI-IO data calls by size. */
static const struct column iosize_cols[] = {
  COL("op", "op", struct iosize, op, C_STR, 0),
  COL("bytes/call", NULL, struct iosize, size, C_STR, 0),
  COL(NULL, "size_min", struct iosize, size_min, C_NUM, 0),
  COL(NULL, "size_max", struct iosize, size_max, C_NUM, 0),
  COL("calls", "calls", struct iosize, calls, C_NUM, 0),
  COL("mb", "bytes", struct iosize, bytes, C_MB, 3),
  COL("time_s", "time_s", struct iosize, time_s, C_NUM, 3),
  COL("energy_j", "energy_j", struct iosize, energy_j, C_NUM, 1),
  COL("mb_per_j", "mb_per_j", struct iosize, mb_per_j, C_NUM, 3),
};

/* The job's communication calls, per call and size bin. */
static const struct column commrow_cols[] = {
  COL("call", "call", struct commrow, call, C_STR, 0),
  COL("bytes/call", NULL, struct commrow, size, C_STR, 0),
  COL(NULL, "size_min", struct commrow, size_min, C_NUM, 0),
  COL(NULL, "size_max", struct commrow, size_max, C_NUM, 0),
  COL("calls", "calls", struct commrow, calls, C_NUM, 0),
  COL("mb", "bytes", struct commrow, bytes, C_MB, 3),
  COL("time_s", "time_s", struct commrow, time_s, C_NUM, 4),
  COL("energy_j", "energy_j", struct commrow, energy_j, C_NUM, 3),
  COL("+-", NULL, struct commrow, energy_err_j, C_ERR, 3),
  COL("s/B", "s_per_byte", struct commrow, s_per_byte, C_SCI, 3),
  COL("J/B", "j_per_byte", struct commrow, j_per_byte, C_SCI, 3),
  COL(NULL, "energy_err_j", struct commrow, energy_err_j, C_ERR, 0),
};

/* The job's communication as one CSV row; the text prints it as lines. */
static const struct column comm_cols[] = {
  COL(NULL, "calls", struct comm, calls, C_NUM, 0),
  COL(NULL, "bytes", struct comm, bytes, C_NUM, 0),
  COL(NULL, "time_s", struct comm, time_s, C_NUM, 0),
  COL(NULL, "energy_j", struct comm, energy_j, C_NUM, 0),
  COL(NULL, "s_per_byte", struct comm, s_per_byte, C_NUM, 0),
  COL(NULL, "j_per_byte", struct comm, j_per_byte, C_NUM, 0),
  COL(NULL, "estimated", struct comm, estimated, C_BOOL, 0),
  COL(NULL, "nodes_without_energy", struct comm, nodes_without_energy, C_NUM,
      0),
  COL(NULL, "energy_err_j", struct comm, energy_err_j, C_ERR, 0),
};

/* A node's timeline in a few figures: one row of the text output. */
struct tlsum {
  const char *node;
  double slices, dt_s, unmeasured, peak_w, peak_at_s, cpu, io_phases;
  double regions;
};

static const struct column tlsum_cols[] = {
  COL("node", NULL, struct tlsum, node, C_STR, 0),
  COL("slices", NULL, struct tlsum, slices, C_NUM, 0),
  COL("dt_s", NULL, struct tlsum, dt_s, C_NUM, 3),
  COL("unmeasured", NULL, struct tlsum, unmeasured, C_NUM, 0),
  COL("peak_w", NULL, struct tlsum, peak_w, C_NUM, 1),
  COL("peak_at_s", NULL, struct tlsum, peak_at_s, C_NUM, 3),
  COL("cpu_util", NULL, struct tlsum, cpu, C_PCT, 1),
  COL("io_phases", NULL, struct tlsum, io_phases, C_NUM, 0),
  COL("regions", NULL, struct tlsum, regions, C_NUM, 0),
};

/* One slice of a node's timeline: one row of the CSV output. */
struct tlslice {
  const char *node;
  double t_s, power_w, energy_j, energy_err_j, cpu_util, cpu_mhz;
};

static const struct column tlslice_cols[] = {
  COL(NULL, "node", struct tlslice, node, C_STR, 0),
  COL(NULL, "t_s", struct tlslice, t_s, C_NUM, 0),
  COL(NULL, "power_w", struct tlslice, power_w, C_NUM, 0),
  COL(NULL, "energy_j", struct tlslice, energy_j, C_NUM, 0),
  COL(NULL, "cpu_util", struct tlslice, cpu_util, C_NUM, 0),
  COL(NULL, "cpu_mhz", struct tlslice, cpu_mhz, C_NUM, 0),
  COL(NULL, "energy_err_j", struct tlslice, energy_err_j, C_ERR, 0),
};

/* The clock of each node's CPUs: the CSV table cpu_freq. */
static const struct column cpufreq_cols[] = {
  COL(NULL, "node", struct node, name, C_STR, 0),
  COL(NULL, "mean_mhz", struct node, cpu_freq.mean_mhz, C_NUM, 0),
  COL(NULL, "min_mhz", struct node, cpu_freq.min_mhz, C_NUM, 0),
  COL(NULL, "max_mhz", struct node, cpu_freq.max_mhz, C_NUM, 0),
  COL(NULL, "governor", struct node, cpu_freq.governor, C_STR, 0),
  COL(NULL, "cpus", struct node, cpu_freq.cpus, C_NUM, 0),
  COL(NULL, "why_none", struct node, cpu_freq_why, C_STR, 0),
};

static const struct column stat_cols[] = {
  COL("per node", "stat", struct nodestat, label, C_STR, 0),
  COL("min", "min", struct nodestat, min, C_NUM, 1),
  COL("max", "max", struct nodestat, max, C_NUM, 1),
  COL("mean", "mean", struct nodestat, mean, C_NUM, 1),
  COL("stddev", "stddev", struct nodestat, stddev, C_NUM, 1),
};

/* The job in one row: its energy with its bar, wall time and power (the
 * one number a user wants), and what they cover.  energy_err_j follows
 * energy_j (C_ERR). */
struct jobrow {
  const char *id, *start, *end, *covers;
  double ranks, nodes, wall_s, energy_j, energy_err_j, power_w;
  int estimated, complete;
};

_Static_assert(offsetof(struct jobrow, energy_err_j) ==
                 offsetof(struct jobrow, energy_j) + sizeof(double),
               "C_ERR reads the energy just before its error bar");

static const struct column job_cols[] = {
  COL(NULL, "job", struct jobrow, id, C_STR, 0),
  COL(NULL, "ranks", struct jobrow, ranks, C_NUM, 0),
  COL(NULL, "nodes", struct jobrow, nodes, C_NUM, 0),
  COL(NULL, "start", struct jobrow, start, C_STR, 0),
  COL(NULL, "end", struct jobrow, end, C_STR, 0),
  COL(NULL, "wall_s", struct jobrow, wall_s, C_NUM, 3),
  COL(NULL, "energy_j", struct jobrow, energy_j, C_NUM, 1),
  COL(NULL, "energy_err_j", struct jobrow, energy_err_j, C_ERR, 0),
  COL(NULL, "power_w", struct jobrow, power_w, C_NUM, 1),
  COL(NULL, "estimated", struct jobrow, estimated, C_BOOL, 0),
  COL(NULL, "covers", struct jobrow, covers, C_STR, 0),
  COL(NULL, "complete", struct jobrow, complete, C_BOOL, 0),
};

static struct jobrow job_row(const struct report *r) {
  /* complete: false only for a report rebuilt from a spool. */
  struct jobrow j = {r->job.id,     r->job.start, r->job.end,
                     r->covers,     r->job.ranks, r->job.nodes,
                     r->job.wall_s, r->energy_j,  r->energy_err_j,
                     r->power_w,    r->estimated, r->complete != 0};
  return j;
}

/* Returns the text of column c of row, written into buf or borrowed from
 * the report (a string escaped for a terminal, report_tty(), in text and
 * in CSV alike); NULL when the figure or string is null or absent. */
static const char *cell_text(const struct column *c, const void *row, int csv,
                             char buf[CELL_MAX]) {
  const char *p = (const char *)row + c->off;
  double v;

  if (c->cell == C_STR)
    return report_tty(*(const char *const *)(const void *)p);
  if (c->cell == C_BOOL) {
    int b = *(const int *)(const void *)p;
    return b < 0 ? NULL : b ? "true" : "false";
  }
  v = *(const double *)(const void *)p;
  if (c->cell == C_ERR) {
    double e = *(const double *)(const void *)(p - sizeof(double));

    if (isnan(e) || (csv && isnan(v)))
      return NULL;
    if (isnan(v))
      return "?";
    if (csv)
      snprintf(buf, CELL_MAX, "%.15g", v);
    else
      snprintf(buf, CELL_MAX, "%.*f%s", c->prec, v,
               v > ERR_LARGE * fabs(e) ? "!" : "");
    return buf;
  }
  if (isnan(v))
    return NULL;
  if (c->cell == C_PCT)
    snprintf(buf, CELL_MAX, csv ? "%.*f" : "%.*f%%", csv ? 2 : c->prec, v);
  else if (csv)
    snprintf(buf, CELL_MAX, "%.15g", v);
  else if (c->cell == C_MB)
    snprintf(buf, CELL_MAX, "%.*f", c->prec, v / 1e6);
  else if (c->cell == C_SCI)
    snprintf(buf, CELL_MAX, "%.*e", c->prec > 0 ? c->prec - 1 : 0, v);
  else
    snprintf(buf, CELL_MAX, "%.*f", c->prec, v);
  return buf;
}

/* Returns the heading (row 0) or the text of cell (row, c) of the table of
 * size-sz rows at rows, as cell_text() does. */
static const char *table_cell(const struct column *c, const void *rows,
                              size_t sz, size_t row, int csv,
                              char buf[CELL_MAX]) {
  if (row == 0)
    return csv ? c->csv : c->text;
  return cell_text(c, (const char *)rows + (row - 1) * sz, csv, buf);
}

size_t report_text_width(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

size_t report_text_cut(const char *s, size_t n, size_t cols) {
  size_t cut, chars = 0;
  for (cut = 0; cut < n; cut++)
    if (((unsigned char)s[cut] & 0xC0) != 0x80 && chars++ == cols)
      break;
  return cut;
}

/*
 * Prints nrows rows of size sz at rows, a heading row first, with the
 * columns that have a heading in this format.  As text (csv_title NULL):
 * columns two spaces apart, figures right-aligned, "-" for a missing
 * figure, no trailing blanks.  As CSV: a "# csv_title" line, then the rows;
 * an empty field is a missing figure.
 */
static void print_table(FILE *out, const char *csv_title,
                        const struct column *all, size_t nall,
                        const void *rows, size_t sz, size_t nrows) {
  struct column cols[MAX_COLS];
  size_t width[MAX_COLS] = {0}, ncols = 0;
  char buf[CELL_MAX];
  int csv = csv_title != NULL;

  for (size_t c = 0; c < nall && ncols < MAX_COLS; c++)
    if ((csv ? all[c].csv : all[c].text) != NULL)
      cols[ncols++] = all[c];
  for (size_t r = 0; r <= nrows && !csv; r++) {
    for (size_t c = 0; c < ncols; c++) {
      const char *s = table_cell(&cols[c], rows, sz, r, 0, buf);
      size_t w = report_text_width(s ? s : "-");
      width[c] = w > width[c] ? w : width[c];
    }
  }
  if (csv)
    fprintf(out, "# %s\n", csv_title);
  for (size_t r = 0; r <= nrows; r++) {
    for (size_t c = 0; c < ncols; c++) {
      const char *s = table_cell(&cols[c], rows, sz, r, csv, buf);
      int left = cols[c].cell == C_STR;
      int fill = csv ? 0 : (int)(width[c] - report_text_width(s ? s : "-"));
      if (csv) {
        fputs(c > 0 ? "," : "", out);
        report_csv_field(out, s);
        continue;
      }
      fprintf(out, "%s%*s%s", c > 0 ? "  " : "", left ? 0 : fill, "",
              s ? s : "-");
      if (left && c + 1 < ncols)
        fprintf(out, "%*s", fill, "");
    }
    putc('\n', out);
  }
}

#define TEXT_TABLE(out, cols, rows, n)                                       \
  print_table(out, NULL, cols, COUNT_OF(cols), rows, sizeof *(rows), n)
#define CSV_TABLE(out, title, cols, rows, n)                                 \
  print_table(out, title, cols, COUNT_OF(cols), rows, sizeof *(rows), n)

/* ---- Text output ------------------------------------------------------- */

int report_by_energy(const void *a, const void *b) {
  const struct region *x = a, *y = b;
  if (isnan(x->energy_j) != isnan(y->energy_j))
    return isnan(x->energy_j) ? 1 : -1;
  if (!isnan(x->energy_j) && x->energy_j != y->energy_j)
    return x->energy_j > y->energy_j ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Prints v in unit with decimals decimals and, when it is 1000 or more,
 * again with the SI prefix that leaves 1 to 999 before the point:
 * "358247.0 J (358.2 kJ)", "8388608 B (8.389 MB)". */
/* Prints V (at least 1000) with the SI prefix that brings it under 1000,
 * "1.139 kJ". */
static void print_scaled_only(FILE *out, double v, const char *unit) {
  static const char prefixes[] = "kMGTPE";
  double mag = v < 0 ? -v : v, scaled = v;
  size_t p = 0; /* How many prefixes up: 1 is k. */

  while (mag >= 1000 && p < sizeof prefixes - 1) {
    mag /= 1000;
    scaled /= 1000;
    p++;
  }
  fprintf(out, "%.*f %c%s", mag >= 100 ? 1 : mag >= 10 ? 2 : 3, scaled,
          prefixes[p - 1], unit);
}

static void print_scaled(FILE *out, double v, int decimals,
                         const char *unit) {
  double mag = v < 0 ? -v : v, scaled = v;

  if (isnan(v)) {
    fputs("-", out);
    return;
  }
  fprintf(out, "%.*f %s", decimals, v, unit);
  if (mag >= 1000) {
    fputs(" (", out);
    print_scaled_only(out, scaled, unit);
    fputs(")", out);
  }
}

const char *report_pm(void) {
  static const char *pm;

  if (pm == NULL) {
    const char *set = setlocale(LC_CTYPE, "");
    pm = set != NULL && strcmp(nl_langinfo(CODESET), "UTF-8") == 0 ? "\u00b1"
                                                                   : "+-";
  }
  return pm;
}

/* Prints energy V with its error bar ERR (NAN: unknown, "+-?" as for a
 * report written before the bars; not printed when V is NAN), as
 * print_scaled(). */
static void print_energy(FILE *out, double v, double err) {
  if (isnan(v)) {
    fputs("-", out);
    return;
  }
  if (isnan(err))
    fprintf(out, "%.1f %s? J", v, report_pm());
  else
    fprintf(out, "%.1f %s %.1f J", v, report_pm(), err);
  if (fabs(v) >= 1000) {
    fputs(" (", out);
    print_scaled_only(out, v, "J");
    fputs(")", out);
  }
  if (!isnan(err) && err > ERR_LARGE * fabs(v))
    fputs(" !", out);
}

static void print_duration(FILE *out, double s);

/* The job's energy, wall time and power in one line; an estimate says so
 * in words, and that it has no bar. */
static void print_total(FILE *out, const struct report *r) {
  fprintf(out, "%-12s", "total:");
  if (isnan(r->energy_j))
    fputs("energy not measured", out);
  else if (isnan(r->energy_err_j))
    fprintf(out, "%.1f J", r->energy_j);
  else
    fprintf(out, "%.1f %s %.1f J", r->energy_j, report_pm(), r->energy_err_j);
  fputs(" in ", out);
  print_duration(out, r->job.wall_s);
  if (!isnan(r->power_w))
    fprintf(out, ", %.1f W", r->power_w);
  if (r->estimated > 0)
    fputs(" (ESTIMATED, no error bar)", out);
  else if (!isnan(r->energy_j) && isnan(r->energy_err_j))
    fputs(" (no error bar in this report)", out);
  putc('\n', out);
}

/* Prints a figure V made from energy E (a power, a rate per joule) with
 * the same share of error as E's bar ERR: "259.2 +- 0.3 W"; as
 * print_scaled() when the bar is unknown. */
static void print_derived(FILE *out, double v, double e, double err,
                          const char *unit) {
  if (isnan(v) || isnan(err) || !(fabs(e) > 0)) {
    print_scaled(out, v, 1, unit);
    return;
  }
  fprintf(out, "%.1f %s %.1f %s", v, report_pm(), fabs(v) * err / fabs(e),
          unit);
}

/* Prints seconds, and hours, minutes and seconds when they help (not for
 * a time beyond any job's, which a damaged report may hold). */
static void print_duration(FILE *out, double s) {
  long long t = s >= 0 && s < 1e12 ? (long long)(s + 0.5) : 0;
  if (isnan(s))
    fputs("-", out);
  else
    fprintf(out, "%.3f s", s);
  if (t >= 3600)
    fprintf(out, " (%lldh%02lldm%02llds)", t / 3600, t / 60 % 60, t % 60);
  else if (t >= 60)
    fprintf(out, " (%lldm%02llds)", t / 60, t % 60);
}

/* Prints one "label:     value" line of the summary; a NULL s prints "-". */
static void print_line(FILE *out, const char *label, const char *s,
                       const char *suffix) {
  fprintf(out, "%-12s%s%s\n", label, s ? s : "-", suffix);
}

/* Formats the count v into buf; NULL when it is NAN. */
static const char *count_text(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return NULL;
  snprintf(buf, CELL_MAX, "%.0f", v);
  return buf;
}

/* Formats the ratio v into buf with three significant digits, or with one
 * decimal from 1000 up; NULL when it is NAN. */
static const char *ratio_text(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return NULL;
  if (fabs(v) >= 1000)
    snprintf(buf, CELL_MAX, "%.1f", v);
  else
    snprintf(buf, CELL_MAX, "%.3g", v);
  return buf;
}

/* The text to print for the string s: "-" when it is NULL, a missing figure
 * (count_text() and ratio_text() give NULL for one). */
#define OR_DASH(s) ((s) ? (s) : "-")

/* Prints the line that says the figures are estimates, naming the meters
 * that estimated them and, when only some nodes are estimated, how many. */
static void print_estimated(FILE *out, const struct report *r) {
  size_t est = 0, named = 0;
  for (size_t i = 0; i < r->nnodes; i++)
    est += r->nodes[i].estimated > 0;
  fputs("note: figures ", out);
  if (est > 0 && est < r->nnodes)
    fprintf(out, "of %zu of %zu nodes ", est, r->nnodes);
  fputs("are ESTIMATED by a model", out);
  for (size_t i = 0; i < r->nmeters; i++) {
    const struct meter *m = &r->meters[i];
    const char *id = m->spec ? m->spec : m->driver;
    if (m->estimated > 0 && id != NULL)
      fprintf(out, "%s'%s'", named++ ? ", " : " (meter ", report_tty(id));
  }
  fputs(named ? "), not measured:\n" : ", not measured:\n", out);
  fputs("      no error bars ('?' in the +- columns): the model states no "
        "accuracy\n      (pmon-driver-estimate(7))\n", out);
}

/* Prints "meter:  SPEC (KIND, every N s): CHANNEL (total), CHANNEL". */
static void print_meter(FILE *out, const struct report *r, size_t i) {
  const struct meter *m = &r->meters[i];
  const char *id = m->spec ? m->spec : m->driver;
  size_t n = 0;

  fprintf(out, "%-12s%s", "meter:", id ? report_tty(id) : "-");
  if (m->kind || !isnan(m->interval_s)) {
    fprintf(out, " (%s", m->kind ? report_tty(m->kind) : "");
    if (!isnan(m->interval_s))
      fprintf(out, "%severy %g s", m->kind ? ", " : "", m->interval_s);
    putc(')', out);
  }
  for (size_t c = 0; c < r->nchannels; c++) {
    const struct channel *ch = &r->channels[c];
    if (ch->meter == i)
      fprintf(out, "%s%s%s", n++ ? ", " : ": ",
              ch->name ? report_tty(ch->name) : "-",
              ch->total > 0 ? " (total)" : "");
  }
  putc('\n', out);
}

/* Whether a node of r has its CPUs' clock. */
static int has_cpu_freq(const struct report *r) {
  for (size_t i = 0; i < r->nnodes; i++)
    if (!isnan(r->nodes[i].cpu_freq.mean_mhz))
      return 1;
  return 0;
}

/* Prints "cpu clock:  1600 MHz mean (1200 to 2000), governor powersave;
 * requested ..." over the nodes that have it, when one has; the mean is
 * the nodes' means averaged. */
static void print_cpu_clock(FILE *out, const struct report *r) {
  double sum = 0, lo = NAN, hi = NAN;
  const char *gov = NULL;
  size_t n = 0;

  for (size_t i = 0; i < r->nnodes; i++) {
    const struct cpufreq *f = &r->nodes[i].cpu_freq;
    if (isnan(f->mean_mhz))
      continue;
    sum += f->mean_mhz;
    lo = n == 0 || f->min_mhz < lo ? f->min_mhz : lo;
    hi = n == 0 || f->max_mhz > hi ? f->max_mhz : hi;
    if (f->governor != NULL)
      gov = gov == NULL || strcmp(gov, f->governor) == 0 ? f->governor
                                                         : "mixed";
    n++;
  }
  if (n == 0 && r->job.cpu_freq_req == NULL)
    return;
  fprintf(out, "%-12s", "cpu clock:");
  if (n > 0)
    fprintf(out, "%.0f MHz mean (%.0f to %.0f)%s%s", sum / (double)n, lo, hi,
            gov ? ", governor " : "", gov ? report_tty(gov) : "");
  else
    fputs("not read", out);
  if (n > 0 && n < r->nnodes)
    fprintf(out, ", on %zu of %zu nodes", n, r->nnodes);
  if (r->job.cpu_freq_req != NULL)
    fprintf(out, "; requested %s (SLURM_CPU_FREQ_REQ)",
            report_tty(r->job.cpu_freq_req));
  putc('\n', out);
}

/* Prints one note when a node was shared (nodes[].sharing.shared): its
 * energy is all that its meters saw, not this job's share of it; then,
 * for each shared node with a share (at most a few), the job's share by
 * its model and what it comes to. */
size_t report_shared_nodes(const struct report *r) {
  size_t n = 0;

  for (size_t i = 0; i < r->nnodes; i++)
    n += r->nodes[i].sharing.shared > 0;
  return n;
}

size_t report_shares_applied(const struct report *r) {
  size_t n = 0;

  for (size_t i = 0; i < r->nnodes; i++)
    n += r->nodes[i].sharing.shared > 0 &&
         isfinite(r->nodes[i].node_energy_j) && isfinite(r->nodes[i].share);
  return n;
}

double report_share_part(const struct node *nd, double *err) {
  const struct sharing *sh = &nd->sharing;
  double a, b;

  *err = NAN;
  if (!isfinite(nd->energy_j) || !isfinite(sh->share))
    return NAN;
  if (isfinite(nd->node_energy_j)) { /* the figures are the share */
    *err = nd->energy_err_j;
    return nd->energy_j;
  }
  a = nd->energy_err_j * sh->share;
  b = nd->energy_j * sh->share_err;
  if (isfinite(a) && isfinite(b))
    *err = sqrt(a * a + b * b);
  return nd->energy_j * sh->share;
}

static void print_shared(FILE *out, const struct report *r) {
  size_t n = report_shared_nodes(r), shown = 0;

  if (n == 0)
    return;
  if (report_shares_applied(r) == n)
    fprintf(out, "note: %zu of %zu node%s shared with other work "
                 "(nodes[].sharing): every energy is this job's share of "
                 "%s\n",
            n, r->nnodes, r->nnodes == 1 ? "" : "s", n == 1 ? "it" : "theirs");
  else
    fprintf(out, "note: %zu of %zu node%s shared with other work "
                 "(nodes[].sharing): energy_j is all %s used, not this "
                 "job's alone\n",
            n, r->nnodes, r->nnodes == 1 ? "" : "s",
            n == 1 ? "it" : "they");
  for (size_t i = 0; i < r->nnodes && shown < 4; i++) {
    const struct node *nd = &r->nodes[i];
    const struct sharing *sh = &nd->sharing;
    char e[CELL_MAX];
    double err, part = report_share_part(nd, &err);

    if (sh->shared <= 0 || !isfinite(sh->share))
      continue;
    shown++;
    int done = isfinite(nd->node_energy_j);
    double all = done ? nd->node_energy_j : nd->energy_j;

    if (isfinite(part) && isfinite(err))
      snprintf(e, sizeof e, "%.1f %s %.1f J of %s %.1f J", part,
               report_pm(), err, done ? "the node's" : "its", all);
    else if (isfinite(part))
      snprintf(e, sizeof e, "%.1f %s? J of %s %.1f J", part, report_pm(),
               done ? "the node's" : "its", all);
    else
      snprintf(e, sizeof e, "its energy not known");
    fprintf(out, "note: %s: this job's share by %s, %.0f %s %.0f %%: %s%s\n",
            nd->name, sh->share_model != NULL ? sh->share_model : "?",
            100 * sh->share, report_pm(),
            isfinite(sh->share_err) ? 100 * sh->share_err : NAN, e,
            done ? "" : " (not applied to the figures: a report from before "
                        "the split)");
  }
}

static void print_summary(FILE *out, const struct report *r) {
  char buf[CELL_MAX];

  fprintf(out, "%-12s%s", "job:", r->job.id ? report_tty(r->job.id) : "-");
  fprintf(out, r->job.id_source ? " (%s)\n" : "%s\n",
          r->job.id_source ? report_tty(r->job.id_source) : "");
  print_total(out, r);
  print_line(out, "ranks:", count_text(buf, r->job.ranks),
             r->job.mpi == 0 ? " (without MPI)" : "");
  print_line(out, "nodes:", count_text(buf, r->job.nodes), "");
  print_line(out, "start:", report_tty(r->job.start), "");
  print_line(out, "end:", report_tty(r->job.end), "");
  fprintf(out, "%-12s", "wall time:");
  print_duration(out, r->job.wall_s);
  fprintf(out, "\n%-12s", "energy:");
  if (r->estimated > 0 && isnan(r->energy_err_j) && !isnan(r->energy_j)) {
    fprintf(out, "%.1f J", r->energy_j);
    if (fabs(r->energy_j) >= 1000) {
      fputs(" (", out);
      print_scaled_only(out, r->energy_j, "J");
      fputs(")", out);
    }
    fputs(", ESTIMATED: no error bar", out);
  } else
    print_energy(out, r->energy_j, r->energy_err_j);
  fprintf(out, "\n%-12s", "power:");
  print_derived(out, r->power_w, r->energy_j, r->energy_err_j, "W");
  fputs(isnan(r->power_w) ? "\n" : " average\n", out);
  if (r->covers != NULL)
    fprintf(out, "%-12s%s%s\n", "covers:", report_tty(r->covers),
            strcmp(r->covers, "node") == 0 ? " (whole nodes)"
                                           : " only, not the whole nodes");
  if (r->estimated > 0)
    print_estimated(out, r);
  print_shared(out, r);
  if (r->job.region_names_folded > 0)
    fprintf(out, "%-12s%.0f names beyond %.0f per process (PMON_MAX_REGIONS) "
                 "counted as \"(other)\"\n",
            "regions:", r->job.region_names_folded,
            r->job.region_names_limit);
  print_cpu_clock(out, r);
  for (size_t i = 0; i < r->nmeters; i++)
    print_meter(out, r, i);
  fprintf(out, "%-12sversion %lld, written by pmon %s\n\n", "format:",
          r->version,
          r->pmon_version ? report_tty(r->pmon_version) : "-");
  TEXT_TABLE(out, stat_cols, r->stats, 2);
}

/* Prints the job's I/O: its totals as "io ...:" lines, then the I/O of each
 * node and the busiest files as tables, and how many files were left out.
 * Bytes are given with SI prefixes (1 MB = 10^6 bytes). */
static void print_io(FILE *out, const struct report *r) {
  const struct io *io = &r->io;
  char a[CELL_MAX], b[CELL_MAX], c[CELL_MAX], d[CELL_MAX], e[CELL_MAX];

  fprintf(out, "%-12s", "io read:");
  print_scaled(out, io->bytes_read, 0, "B");
  fprintf(out, "\n%-12s", "io written:");
  print_scaled(out, io->bytes_written, 0, "B");
  fprintf(out, "\n%-12s%s (%s reads, %s writes, %s metadata), %s error%s\n",
          "io ops:", OR_DASH(count_text(a, io->ops)),
          OR_DASH(count_text(b, io->reads)), OR_DASH(count_text(c, io->writes)),
          OR_DASH(count_text(d, io->meta_ops)),
          OR_DASH(count_text(e, io->errors)), io->errors == 1 ? "" : "s");
  fprintf(out, "%-12s", "io time:");
  print_duration(out, io->time_s);
  fputs(isnan(io->time_s) ? "\n" : " on the slowest rank\n", out);
  fprintf(out, "%-12s%s, ", "io phases:", OR_DASH(count_text(a, io->phases)));
  print_duration(out, io->phase_time_s);
  fputs(isnan(io->phase_time_s) ? "" : " on the longest node", out);
  if (!isnan(io->gap_s))
    fprintf(out, " (gap %g s)", io->gap_s);
  fprintf(out, "\n%-12s", "io energy:");
  print_energy(out, io->energy_j, io->energy_err_j);
  fputs(io->estimated > 0 && !isnan(io->energy_j) ? " ESTIMATED" : "", out);
  if (io->nodes_without_energy > 0)
    fprintf(out, ", %.0f node%s without a figure", io->nodes_without_energy,
            io->nodes_without_energy == 1 ? "" : "s");
  fprintf(out, "\n%-12s", "io power:");
  print_derived(out, io->power_w, io->energy_j, io->energy_err_j, "W");
  fputs(isnan(io->power_w) ? "\n" : " during the phases\n", out);
  fprintf(out, "%-12s%s MB/s, %s MB/s/W\n", "io rate:",
          OR_DASH(ratio_text(a, io->mb_per_s)),
          OR_DASH(ratio_text(b, io->mb_per_s_per_w)));
  fprintf(out, "%-12s%s MB/J, %s J/B", "io cost:",
          OR_DASH(ratio_text(a, io->mb_per_j)),
          OR_DASH(ratio_text(b, io->j_per_byte)));
  if (!isnan(io->mb_per_j) && !isnan(io->energy_err_j) &&
      fabs(io->energy_j) > 0)
    fprintf(out, " (%s %.1f %%)", report_pm(),
            100 * io->energy_err_j / fabs(io->energy_j));
  putc('\n', out);
  if (r->nnodes > 0) {
    putc('\n', out);
    TEXT_TABLE(out, nodeio_cols, r->nodes, r->nnodes);
  }
  if (io->nfiles > 0) {
    putc('\n', out);
    TEXT_TABLE(out, iofile_cols, io->files, io->nfiles);
  }
  if (io->files_omitted > 0)
    fprintf(out, "(%.0f more file%s)\n", io->files_omitted,
            io->files_omitted == 1 ? "" : "s");
  if (io->nsizes > 0) {
    putc('\n', out);
    TEXT_TABLE(out, iosize_cols, io->sizes, io->nsizes);
  }
}

/* Prints the job's communication calls: the totals as "comm ...:" lines,
 * then a row per call and size bin. */
static void print_comm(FILE *out, const struct report *r) {
  const struct comm *c = &r->comm;
  char a[CELL_MAX], b[CELL_MAX];

  fprintf(out, "%-13s%s calls, ", "comm:", OR_DASH(count_text(a, c->calls)));
  print_scaled(out, c->bytes, 0, "B");
  fputs(" through the ranks' buffers\n", out);
  fprintf(out, "%-13s", "comm time:");
  print_duration(out, c->time_s);
  fputs(isnan(c->time_s) ? "\n" : " inside the calls, summed over ranks\n",
        out);
  fprintf(out, "%-13s", "comm energy:");
  print_energy(out, c->energy_j, c->energy_err_j);
  fputs(c->estimated > 0 && !isnan(c->energy_j) ? " ESTIMATED" : "", out);
  if (c->nodes_without_energy > 0)
    fprintf(out, ", %.0f node%s without a figure", c->nodes_without_energy,
            c->nodes_without_energy == 1 ? "" : "s");
  fputs(isnan(c->energy_j) ? "\n" : " (each rank's share of its node's)\n",
        out);
  fprintf(out, "%-13s%s s/B, %s J/B\n", "comm cost:",
          OR_DASH(ratio_text(a, c->s_per_byte)),
          OR_DASH(ratio_text(b, c->j_per_byte)));
  if (c->nrows > 0) {
    putc('\n', out);
    TEXT_TABLE(out, commrow_cols, c->rows, c->nrows);
  }
}

const char *report_no_comm_reason(const struct report *r) {
  if (r->job.mpi == 0)
    return "the job did not use MPI";
  if (r->complete == 0)
    return "a report rebuilt from the spool has none";
  return "the job ran without libpmon-mpiio.so, or with PMON_COMM=0";
}

/* Why r has no MPI-IO figures: the job did not use MPI, or (nearly always
 * otherwise) its ranks ran without the library that records the calls. */
const char *report_no_io_reason(const struct report *r) {
  return r->job.mpi == 0
             ? "the job did not use MPI"
             : "the job ran without libpmon-mpiio.so, which records them";
}

/* Prints, in place of the I/O section, that r has none and why.  Said only
 * when --section asked for io: a report without I/O is common, and the
 * full output need not say so. */
static void print_no_io(FILE *out, const struct report *r) {
  fprintf(out, "%-12s%s\n", "io:", "no MPI-IO calls recorded");
  fprintf(out, "note: %s", report_no_io_reason(r));
  fputs(r->job.mpi == 0 ? "\n"
                        : ": run it\nunder pmon-run(1) or with "
                          "LD_PRELOAD=libpmon-mpiio.so (pmon-mpiio(7))\n",
        out);
}

/* Fills *row with the figures of node n's timeline: its slices and their
 * width, the slices without a power figure, the highest power and when it
 * began, the mean CPU use in percent, the I/O phases (listed or not) and
 * the regions; all NAN when it has none. */
static void sum_timeline(const struct node *n, struct tlsum *row) {
  const struct timeline *t = &n->tl;
  double cpu = 0, ncpu = 0;

  row->node = n->name;
  row->slices = row->dt_s = row->unmeasured = row->peak_w = NAN;
  row->peak_at_s = row->cpu = row->io_phases = row->regions = NAN;
  if (!t->present)
    return;
  row->slices = (double)t->n;
  row->dt_s = t->dt_s;
  row->unmeasured = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (isnan(t->power_w[i]))
      row->unmeasured++;
    else if (isnan(row->peak_w) || t->power_w[i] > row->peak_w) {
      row->peak_w = t->power_w[i];
      row->peak_at_s = t->t_s[i];
    }
    if (!isnan(t->cpu_util[i])) {
      cpu += t->cpu_util[i];
      ncpu++;
    }
  }
  row->cpu = ncpu > 0 ? 100 * cpu / ncpu : NAN;
  row->io_phases = (double)t->nphases +
                   (isnan(t->between_count) ? 0 : t->between_count);
  row->regions = (double)t->nregions +
                 (isnan(t->regions_omitted) ? 0 : t->regions_omitted);
}

/* Prints the timeline section: a row of figures per node, and a note for
 * the nodes without a timeline, or one line when no node has one. */
static void print_timeline(FILE *out, const struct report *r) {
  struct tlsum *rows = report_xcalloc(r->nnodes, sizeof *rows);
  const char *why = NULL;
  size_t without = 0;
  char buf[96];

  if (r->timelines == 0) {
    fprintf(out, "%-12s%s\n", "timeline:", report_no_timeline(r, NULL, buf));
    free(rows);
    return;
  }
  for (size_t i = 0; i < r->nnodes; i++) {
    sum_timeline(&r->nodes[i], &rows[i]);
    if (r->nodes[i].tl.n == 0 && without++ == 0)
      why = report_no_timeline(r, &r->nodes[i], buf);
  }
  TEXT_TABLE(out, tlsum_cols, rows, r->nnodes);
  if (without > 0)
    fprintf(out, "note: %zu node%s without a timeline: timeline %s\n",
            without, without == 1 ? "" : "s", why);
  free(rows);
}

/* Prints the CSV table of the slices of every node's timeline. */
static void print_slices(FILE *out, const struct report *r) {
  char buf[CELL_MAX];

  /* The heading, then the rows one by one: a table of every slice of
   * every node can be large, and is not held in memory. */
  CSV_TABLE(out, "timeline", tlslice_cols, (const struct tlslice *)NULL, 0);
  for (size_t i = 0; i < r->nnodes; i++) {
    const struct timeline *t = &r->nodes[i].tl;
    const char *name = report_tty(r->nodes[i].name); /* once a node */
    for (size_t j = 0; j < t->n; j++) {
      struct tlslice row = {name, t->t_s[j],
                            t->power_w[j],  t->energy_j[j],
                            t->energy_err_j[j], t->cpu_util[j],
                            t->cpu_mhz[j]};
      for (size_t c = 0; c < COUNT_OF(tlslice_cols); c++) {
        fputs(c > 0 ? "," : "", out);
        report_csv_field(out, cell_text(&tlslice_cols[c], &row, 1, buf));
      }
      putc('\n', out);
    }
  }
}

/* Prints the selected sections of r as text, a blank line between them.
 * The estimate note is printed even when the summary is not; ASKED holds
 * the sections that --section named. */
/* For a report rebuilt from a spool (pmon-report rebuild): what it lacks,
 * before anything else. */
static void print_incomplete(FILE *out, const struct report *r) {
  json_t *rb = json_object_get(r->root, "rebuilt");
  json_t *miss = json_object_get(r->root, "nodes_missing"), *m;
  const char *what = json_string_value(json_object_get(rb, "not_recovered"));
  json_t *known = json_object_get(rb, "known_until_s");
  size_t i, n = json_array_size(miss), named = 0;

  fputs("INCOMPLETE: the job did not reach pmon_finalize: rebuilt from its "
        "spool", out);
  if (json_is_number(known))
    fprintf(out, ", measured up to %.1f s", json_number_value(known));
  fprintf(out, "\n%-12snot recovered: %s\n", "",
          what ? report_tty(what) : "(not said)");
  if (n == 0)
    return;
  fprintf(out, "%-12s%zu node%s missing, kept out of the sums:", "", n,
          n == 1 ? "" : "s");
  json_array_foreach(miss, i, m) {
    const char *s = json_string_value(m);
    if (s == NULL || named == 8)
      continue;
    fprintf(out, " %s", report_tty(s));
    named++;
  }
  fputs(named < n ? " ...\n" : "\n", out);
}

/* The regions whose energy was fitted over the meter's intervals (its
 * energy_method "fit", or "mixed": on some nodes), in REG's order, named
 * in one note; none when every region's was interpolated. */
static void print_fitted(FILE *out, const struct region *reg, size_t n)
{
  const char *sep = "note: energy_j fitted over the meter's intervals, not "
                    "interpolated at the boundaries, for ";
  int any = 0;

  for (size_t i = 0; i < n; i++) {
    const char *m = reg[i].energy_method;

    if (m == NULL || (strcmp(m, "fit") != 0 && strcmp(m, "mixed") != 0))
      continue;
    fprintf(out, "%s%s%s", sep, reg[i].name ? report_tty(reg[i].name) : "-",
            strcmp(m, "mixed") == 0 ? " (on some nodes)" : "");
    sep = ", ";
    any = 1;
  }
  if (any)
    fputs(" (energy_method; pmon(7), Short regions)\n", out);
}

/* Whether R's region table would look wrong to a reader who multiplies
 * or adds: a region whose time x power is off its energy by more than
 * 1 %, or region times that add up to more than the wall time. */
static int regions_look_odd(const struct report *r) {
  double sum = 0;

  for (size_t i = 0; i < r->nregions; i++) {
    const struct region *g = &r->regions[i];

    if (isfinite(g->time_s))
      sum += g->time_s;
    if (isfinite(g->energy_j) && isfinite(g->power_w) &&
        isfinite(g->time_s) &&
        fabs(g->time_s * g->power_w - g->energy_j) > 0.01 * fabs(g->energy_j))
      return 1;
  }
  return isfinite(r->job.wall_s) && sum > r->job.wall_s * 1.001;
}

void report_text(FILE *out, const struct report *r, unsigned sections,
                 unsigned asked) {
  const char *gap = "";

  if (r->complete == 0) {
    print_incomplete(out, r);
    gap = "\n";
  }
  if (r->estimated > 0 && !(sections & SEC_SUMMARY)) {
    print_estimated(out, r);
    gap = "\n";
  }
  if (sections & SEC_SUMMARY) {
    fputs(gap, out);
    print_summary(out, r);
    gap = "\n";
  }
  if (sections & SEC_NODES) {
    fputs(gap, out);
    TEXT_TABLE(out, node_cols, r->nodes, r->nnodes);
    gap = "\n";
  }
  if ((sections & SEC_EVENTS) && r->nevents > 0) {
    fputs(gap, out);
    TEXT_TABLE(out, event_cols, r->events, r->nevents);
    gap = "\n";
  }
  if ((sections & SEC_REGIONS) && r->nregions == 0 && (asked & SEC_REGIONS)) {
    fputs(gap, out);
    fputs("regions:    none marked (pmon_region_begin(3))\n", out);
    gap = "\n";
  }
  if ((sections & SEC_REGIONS) && r->nregions > 0) {
    struct region *sorted = report_xcalloc(r->nregions, sizeof *sorted);
    if (r->nregions > 0)
      memcpy(sorted, r->regions, r->nregions * sizeof *sorted);
    qsort(sorted, r->nregions, sizeof *sorted, report_by_energy);
    fputs(gap, out);
    TEXT_TABLE(out, region_cols, sorted, r->nregions);
    for (size_t i = 0; i < r->nregions; i++)
      if (sorted[i].unclosed > 0)
        fprintf(out, "note: region '%s' was still open %s %.0f time(s) "
                "and was closed there\n",
                sorted[i].name ? report_tty(sorted[i].name) : "-",
                r->complete == 0 ? "when the job was last known"
                                 : "at finalize",
                sorted[i].unclosed);
    for (size_t i = 0; i < r->nregions; i++)
      if (sorted[i].energy_err_j > ERR_LARGE * fabs(sorted[i].energy_j)) {
        fprintf(out, "note: !: an error bar wider than %.0f%% of its energy "
                "(a short region on a slow meter, or a wide stated "
                "accuracy): see pmon-report(1), ERROR BARS\n",
                100 * ERR_LARGE);
        break;
      }
    if (regions_look_odd(r))
      fputs("note: time_s is a region's longest rank's; energy_j each "
            "node's over the time\n      of the rank that measured it there, "
            "and power_w that energy over that\n      time: time_s x power_w "
            "need not be energy_j, and the regions of several\n      ranks, "
            "or nested, can add up to more than the wall time (pmon(7),\n"
            "      Regions)\n", out);
    print_fitted(out, sorted, r->nregions);
    for (size_t i = 0; i < r->nregions; i++)
      if (sorted[i].coverage < 0.995) /* false for NAN */
        fprintf(out, "note: region '%s' was measured over %.0f%% of its "
                "time: its energy covers that share only\n",
                sorted[i].name ? report_tty(sorted[i].name) : "-",
                100 * sorted[i].coverage);
    free(sorted);
    gap = "\n";
  }
  if ((sections & SEC_IO) && r->has_io) {
    fputs(gap, out);
    print_io(out, r);
  } else if (asked & SEC_IO) {
    fputs(gap, out);
    print_no_io(out, r);
    gap = "\n";
  }
  if ((sections & SEC_COMM) && r->has_comm) {
    fputs(gap, out);
    print_comm(out, r);
    gap = "\n";
  } else if (asked & SEC_COMM) {
    fputs(gap, out);
    fprintf(out, "%-13s%s\nnote: %s\n", "comm:",
            "no communication calls recorded", report_no_comm_reason(r));
    gap = "\n";
  }
  /* Like the I/O, a report without timelines (format 1 and 2) says so
   * only when asked. */
  if ((sections & SEC_TIMELINE) && (r->timelines > 0 ||
                                    (asked & SEC_TIMELINE))) {
    fputs(gap, out);
    print_timeline(out, r);
  }
}

/* Prints the job (the summary's one row), nodes, regions (in file
 * order), events, when the report has I/O figures the io, io_nodes and
 * io_files blocks, and when it has timelines the timeline block, that
 * sections selects. */
void report_csv(FILE *out, const struct report *r, unsigned sections) {
  if (sections & SEC_SUMMARY) {
    struct jobrow j = job_row(r);

    CSV_TABLE(out, "job", job_cols, &j, 1);
  }
  if (sections & SEC_NODES)
    CSV_TABLE(out, "nodes", node_cols, r->nodes, r->nnodes);
  if (sections & SEC_REGIONS)
    CSV_TABLE(out, "regions", region_cols, r->regions, r->nregions);
  if (sections & SEC_EVENTS)
    CSV_TABLE(out, "events", event_cols, r->events, r->nevents);
  if ((sections & SEC_IO) && r->has_io) {
    CSV_TABLE(out, "io", io_cols, &r->io, 1);
    CSV_TABLE(out, "io_nodes", nodeio_cols, r->nodes, r->nnodes);
    CSV_TABLE(out, "io_files", iofile_cols, r->io.files, r->io.nfiles);
    if (r->io.nsizes > 0) /* none in reports written before io.sizes */
      CSV_TABLE(out, "io_sizes", iosize_cols, r->io.sizes, r->io.nsizes);
  }
  if ((sections & SEC_COMM) && r->has_comm) {
    CSV_TABLE(out, "comm", comm_cols, &r->comm, 1);
    CSV_TABLE(out, "comm_calls", commrow_cols, r->comm.rows, r->comm.nrows);
  }
  if ((sections & SEC_NODES) && has_cpu_freq(r))
    CSV_TABLE(out, "cpu_freq", cpufreq_cols, r->nodes, r->nnodes);
  if ((sections & SEC_TIMELINE) && r->timelines > 0)
    print_slices(out, r);
}

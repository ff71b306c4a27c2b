/*
 * expo.c - the Prometheus text exposition of pmon's figures (expo.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"

/* A label value: backslash, double quote and line feed escaped as the
 * format requires; bytes that do not make UTF-8 written as U+FFFD (the
 * format's values are UTF-8, and a scraper refuses the file otherwise). */
static void put_value(FILE *f, const char *s)
{
  const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");

  while (*p != '\0') {
    unsigned c = *p;
    int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                           : (c & 0xf8) == 0xf0 ? 4 : 0;
    int ok = len > 0;

    for (int i = 1; ok && i < len; i++)
      ok = (p[i] & 0xc0) == 0x80;
    /* Overlong forms, surrogates and code points past U+10FFFF. */
    if (ok && len == 2)
      ok = c >= 0xc2;
    else if (ok && len == 3)
      ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
    else if (ok && len == 4)
      ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90) &&
           c <= 0xf4;
    if (!ok) {
      fputs("\xef\xbf\xbd", f);
      p++;
      continue;
    }
    if (c == '\\')
      fputs("\\\\", f);
    else if (c == '"')
      fputs("\\\"", f);
    else if (c == '\n')
      fputs("\\n", f);
    else
      fwrite(p, 1, (size_t)len, f);
    p += len;
  }
}

/* The significant digits of a figure: those a report keeps
 * (JSON_REAL_PRECISION(12), lib/report.c), so that a live file and
 * pmon-report metrics on the report print a figure alike. */
#define DIGITS_MAX 12

/* V with the fewest digits that read back as V, at most DIGITS_MAX
 * ("299.9903", not the "299.99029999999999" of %.17g; "200.002680636",
 * not a live double's "200.00268063592856"), a whole number below 1e15
 * in full ("52428800", not "5.24288e+07"). */
static void put_number(FILE *f, double v)
{
  char buf[40];

  if (v == floor(v) && fabs(v) < 1e15) { /* counts and bytes in full */
    fprintf(f, "%.0f", v);
    return;
  }
  for (int digits = 6; digits <= DIGITS_MAX; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (digits == DIGITS_MAX || strtod(buf, NULL) == v || v != v)
      break;
  }
  fputs(buf, f);
}

/* A sample: NAME{job="..",node=".."[,KEY=".."]} VALUE. */
static void sample(FILE *f, const char *name, const struct pmon_expo_node *n,
                   const char *key, const char *value, double v)
{
  fprintf(f, "%s{job=\"", name);
  put_value(f, n->job);
  fputs("\",node=\"", f);
  put_value(f, n->node);
  if (key != NULL) {
    fprintf(f, "\",%s=\"", key);
    put_value(f, value);
  }
  fputs("\"} ", f);
  put_number(f, v);
  fputc('\n', f);
}

static void family(FILE *f, const char *name, const char *type,
                   const char *help)
{
  fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Whether any of the N nodes has a known value at OFFSET (a double in
 * struct pmon_expo_node): a family with no sample is left out whole. */
static int any(const struct pmon_expo_node *nodes, size_t n, size_t offset)
{
  for (size_t i = 0; i < n; i++)
    if (!isnan(*(const double *)((const char *)&nodes[i] + offset)))
      return 1;
  return 0;
}

/* One family of a double field at OFFSET of each node, its LABEL (KEY,
 * VALUE) if KEY is not NULL. */
static void scalar(FILE *f, const struct pmon_expo_node *nodes, size_t n,
                   const char *name, const char *type, const char *help,
                   size_t offset)
{
  if (!any(nodes, n, offset))
    return;
  family(f, name, type, help);
  for (size_t i = 0; i < n; i++) {
    double v = *(const double *)((const char *)&nodes[i] + offset);

    if (!isnan(v))
      sample(f, name, &nodes[i], NULL, NULL, v);
  }
}

int pmon__expo_write(FILE *f, const struct pmon_expo_node *nodes, size_t n)
{
  int has;

  family(f, "pmon_job_running", "gauge",
         "1 while the job runs, 0 once it has ended on the node.");
  for (size_t i = 0; i < n; i++)
    sample(f, "pmon_job_running", &nodes[i], NULL, NULL, nodes[i].running);

  if (any(nodes, n, offsetof(struct pmon_expo_node, energy_j))) {
    family(f, "pmon_node_energy_joules_total", "counter",
           "Energy of the node since the job started on it, in joules; "
           "covers says which part of the node the meters measure.");
    for (size_t i = 0; i < n; i++)
      if (!isnan(nodes[i].energy_j))
        sample(f, "pmon_node_energy_joules_total", &nodes[i], "covers",
               nodes[i].covers, nodes[i].energy_j);
    family(f, "pmon_node_energy_estimated", "gauge",
           "1 when the node's energy is an estimate (a model), not measured.");
    for (size_t i = 0; i < n; i++)
      if (!isnan(nodes[i].energy_j))
        sample(f, "pmon_node_energy_estimated", &nodes[i], NULL, NULL,
               nodes[i].estimated != 0);
  }
  scalar(f, nodes, n, "pmon_node_energy_error_joules", "gauge",
         "Half-width of the interval that holds the node's true energy, in "
         "joules.", offsetof(struct pmon_expo_node, energy_err_j));
  scalar(f, nodes, n, "pmon_node_power_watts", "gauge",
         "Mean power of the node over the last interval, in watts.",
         offsetof(struct pmon_expo_node, power_w));

  has = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < nodes[i].nregions; k++)
      has |= !isnan(nodes[i].regions[k].energy_j);
  if (has) {
    family(f, "pmon_region_energy_joules_total", "counter",
           "Energy of the node while its measuring rank was in the region, "
           "in joules.");
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < nodes[i].nregions; k++)
        if (!isnan(nodes[i].regions[k].energy_j))
          sample(f, "pmon_region_energy_joules_total", &nodes[i], "region",
                 nodes[i].regions[k].name, nodes[i].regions[k].energy_j);
  }
  has = 0;
  for (size_t i = 0; i < n; i++)
    has |= nodes[i].nregions > 0;
  if (has) {
    family(f, "pmon_region_seconds_total", "counter",
           "Time the node's measuring rank spent in the region, in seconds.");
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < nodes[i].nregions; k++)
        if (!isnan(nodes[i].regions[k].seconds))
          sample(f, "pmon_region_seconds_total", &nodes[i], "region",
                 nodes[i].regions[k].name, nodes[i].regions[k].seconds);
  }

  if (any(nodes, n, offsetof(struct pmon_expo_node, io_read_bytes)) ||
      any(nodes, n, offsetof(struct pmon_expo_node, io_written_bytes))) {
    family(f, "pmon_io_bytes_total", "counter",
           "Bytes the node's ranks read or wrote with MPI-IO.");
    for (size_t i = 0; i < n; i++) {
      if (!isnan(nodes[i].io_read_bytes))
        sample(f, "pmon_io_bytes_total", &nodes[i], "op", "read",
               nodes[i].io_read_bytes);
      if (!isnan(nodes[i].io_written_bytes))
        sample(f, "pmon_io_bytes_total", &nodes[i], "op", "write",
               nodes[i].io_written_bytes);
    }
  }
  scalar(f, nodes, n, "pmon_io_energy_joules_total", "counter",
         "Energy of the node during its MPI-IO phases, in joules.",
         offsetof(struct pmon_expo_node, io_energy_j));
  scalar(f, nodes, n, "pmon_comm_bytes_total", "counter",
         "Bytes the node's ranks passed to MPI communication calls.",
         offsetof(struct pmon_expo_node, comm_bytes));

  has = 0;
  for (size_t i = 0; i < n; i++)
    has |= nodes[i].nmeters > 0;
  if (has) {
    family(f, "pmon_meter_stale", "gauge",
           "1 while the meter brings no new value for longer than its limit.");
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < nodes[i].nmeters; k++)
        sample(f, "pmon_meter_stale", &nodes[i], "meter",
               nodes[i].meters[k].name, nodes[i].meters[k].stale != 0);
  }
  return ferror(f) ? -1 : 0;
}

static int by_energy(const void *a, const void *b)
{
  double x = ((const struct pmon_expo_region *)a)->energy_j;
  double y = ((const struct pmon_expo_region *)b)->energy_j;

  if (isnan(x) || isnan(y))
    return isnan(x) - isnan(y);
  return x > y ? -1 : x < y;
}

/* R into OTHER's sums. */
static void add(struct pmon_expo_region *other, const struct pmon_expo_region *r)
{
  if (!isnan(r->energy_j))
    other->energy_j += r->energy_j;
  if (!isnan(r->seconds))
    other->seconds += r->seconds;
}

size_t pmon__expo_bound(struct pmon_expo_region *r, size_t n, size_t max)
{
  struct pmon_expo_region other = {PMON_EXPO_OTHER, 0, 0};
  size_t m = 0;
  int has = 0;

  /* A region that a program named "(other)" goes into that series: two
   * series of one name and labels would make the file unreadable. */
  for (size_t i = 0; i < n; i++) {
    if (strcmp(r[i].name, PMON_EXPO_OTHER) == 0) {
      add(&other, &r[i]);
      has = 1;
    } else
      r[m++] = r[i];
  }
  if (m > max) {
    qsort(r, m, sizeof *r, by_energy);
    for (size_t i = max; i < m; i++)
      add(&other, &r[i]);
    m = max;
    has = 1;
  }
  if (has)
    r[m++] = other;
  return m;
}

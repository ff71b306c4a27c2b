/*
 * report-rebuild.c - pmon-report rebuild: the report of a job that ended
 * before pmon_finalize(), made from the spool its node leaders kept
 * (lib/spool.c; pmon-report(1), REBUILD; pmon(7), "When the job is
 * killed").
 *
 * Each NODE.spool file of the directory holds one node's record as of its
 * last writing, and the job's identity.  The report made from them is of
 * the usual format (report format 3), so that every view of pmon-report
 * reads it, with:
 *   "complete": false, and per node "known_until_s", the instant up to
 *   which it was measured;
 *   "nodes_missing": the nodes of the job whose spool is missing or
 *   unreadable (by name when the spool of the job's first node lists the
 *   names, else as many null), kept out of the sums and the statistics;
 *   "rebuilt": where from, and what a spool does not hold (the MPI-IO
 *   figures: "io" is null), and the regions that did not fit in their
 *   rank's slot;
 *   "regions": merged over the nodes as pmon_finalize() merges them,
 *   from what each node's ranks had last published (at most one spool
 *   interval old), regions still open closed at the node's known instant
 *   and counted as unclosed.
 * A spool file that cannot be read (truncated, corrupted, another job's)
 * is named in one line on stderr and left out; the others still make the
 * report.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "report.h"

#define CMD PROG ": rebuild"
#define SPOOL_VERSION 1
#define SPOOL_MAX_BYTES (256L << 20) /* larger is not a spool of ours */
#define SPOOL_MAX_S 1e9              /* seconds: over 30 years is damage */

/* Prints "pmon-report: rebuild: MSG" as one line; returns status. */
#define complain(status, ...) report_say(status, CMD, __VA_ARGS__)

/* A spool file read: its document, and its node's place in the job. */
struct spool {
  json_t *doc;
  long long index;
};

/* The job id of the spool s. */
static const char *spool_id(const struct spool *s) {
  return json_string_value(json_object_get(json_object_get(s->doc, "job"),
                                           "id"));
}

/* The node name of the spool s. */
static json_t *node_name(const struct spool *s) {
  return json_object_get(json_object_get(s->doc, "node"), "name");
}

static int by_index(const void *a, const void *b) {
  long long x = ((const struct spool *)a)->index;
  long long y = ((const struct spool *)b)->index;
  return (x > y) - (x < y);
}

/* v is a number from 0 to SPOOL_MAX_S. */
static int is_span(json_t *v)
{
  return json_is_number(v) && json_number_value(v) >= 0 &&
         json_number_value(v) <= SPOOL_MAX_S;
}

/* a + b for the counts of spools, held at the ends of the integer's range
 * rather than overflowing (a damaged spool may hold any figure). */
static json_int_t add(json_int_t a, json_int_t b)
{
  if (b > 0 && a > LLONG_MAX - b)
    return LLONG_MAX;
  if (b < 0 && a < LLONG_MIN - b)
    return LLONG_MIN;
  return a + b;
}

/* A reader's message without its "bad report: " (the file is named). */
static const char *plain(const char *why)
{
  return strncmp(why, "bad report: ", 12) == 0 ? why + 12 : why;
}

/* Set when a rebuilt report failed the reader's check, and so was not
 * written: what read_spool() lets through should never come to that (the
 * fuzzing harness, which includes this file, watches it). */
static int refused;

/* Reads and checks the spool at path into *s: a regular file (a link, a
 * FIFO or a device is not followed), of a size a spool can have, whose
 * job and node hold what the report is made of.  Returns 0; 1 when it was
 * read with a damaged part left out; or -1 after one line naming the
 * file. */
static int read_spool(const char *path, struct spool *s)
{
  json_error_t err;
  json_t *doc, *v, *node, *job;
  struct stat st;
  char why[320];
  int damaged = 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    return complain(-1, "%s: cannot open: %s: left out", path,
                    strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size > SPOOL_MAX_BYTES) {
    close(fd);
    return complain(-1, "%s: not a regular file of at most %ld MiB: left "
                    "out", path, SPOOL_MAX_BYTES >> 20);
  }
  doc = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err);
  close(fd);
  if (doc == NULL) {
    for (char *p = err.text; *p; p++) /* it may quote the bad byte */
      if ((unsigned char)*p < 0x20 || *p == 0x7f)
        *p = '?';
    return complain(-1, "%s: invalid JSON at %d:%d: %s: left out", path,
                    err.line, err.column, err.text);
  }
  v = json_object_get(doc, "pmon_spool");
  job = json_object_get(doc, "job");
  node = json_object_get(doc, "node");
  if (!json_is_integer(v) || json_integer_value(v) != SPOOL_VERSION ||
      !json_is_object(job) || !json_is_object(node) ||
      !json_is_string(json_object_get(job, "id")) ||
      !json_is_string(json_object_get(job, "id_source")) ||
      !json_is_string(json_object_get(job, "start")) ||
      !json_is_boolean(json_object_get(job, "mpi")) ||
      !json_is_integer(json_object_get(job, "ranks")) ||
      json_integer_value(json_object_get(job, "ranks")) < 1 ||
      !json_is_integer(json_object_get(job, "nodes")) ||
      json_integer_value(json_object_get(job, "nodes")) < 1 ||
      !json_is_integer(json_object_get(job, "node_index")) ||
      json_integer_value(json_object_get(job, "node_index")) < 0 ||
      !json_is_string(json_object_get(node, "name")) ||
      !is_span(json_object_get(node, "wall_s")) ||
      !is_span(json_object_get(doc, "known_until_s"))) {
    json_decref(doc);
    return complain(-1, "%s: not a pmon spool of version %d (pmon_spool, "
                    "job, node, known_until_s): left out", path,
                    SPOOL_VERSION);
  }
  /* The job's record (the first spool's makes the report's) and the
   * node's must be ones that pmon-report reads: a damaged
   * timeline is left out (the node's figures stay), other damage leaves
   * the spool out.  The timeline travels as text, as between the ranks. */
  if (report_check_job(job, why, sizeof why) != 0) {
    json_decref(doc);
    return complain(-1, "%s: damaged: %s: left out", path, plain(why));
  }
  v = json_object_get(node, "timeline");
  if (json_is_string(v)) {
    json_t *parsed = json_loads(json_string_value(v), 0, NULL);

    if (parsed == NULL) {
      complain(0, "%s: damaged timeline: not JSON: the node is kept "
               "without it", path);
      damaged = 1;
    }
    json_object_set_new(node, "timeline", parsed ? parsed : json_null());
  }
  if (report_check_node(node, why, sizeof why) != 0) {
    json_t *tl = json_object_get(node, "timeline");
    int fixed = 0;

    /* Without its timeline the record may be sound: then only the
     * timeline goes; else the damage is elsewhere, and the spool goes. */
    if (tl != NULL && !json_is_null(tl)) {
      json_object_set_new(node, "timeline", json_null());
      if (report_check_node(node, NULL, 0) == 0) {
        complain(0, "%s: damaged timeline: %s: the node is kept without "
                 "it", path, plain(why));
        damaged = fixed = 1;
      } else {
        report_check_node(node, why, sizeof why);
      }
    }
    if (!fixed) {
      json_decref(doc);
      return complain(-1, "%s: damaged: %s: left out", path, plain(why));
    }
  }
  s->doc = doc;
  s->index = json_integer_value(json_object_get(job, "node_index"));
  return damaged;
}

/* min, max, mean and population standard deviation of v[0..n). */
static json_t *stats(const double *v, size_t n) {
  double min = INFINITY, max = -INFINITY, sum = 0, sq = 0, mean;
  if (n == 0)
    return json_pack("{s:n,s:n,s:n,s:n}", "min", "max", "mean", "stddev");
  for (size_t i = 0; i < n; i++) {
    min = v[i] < min ? v[i] : min;
    max = v[i] > max ? v[i] : max;
    sum += v[i];
  }
  mean = sum / (double)n;
  for (size_t i = 0; i < n; i++)
    sq += (v[i] - mean) * (v[i] - mean);
  return json_pack("{s:f,s:f,s:f,s:f}", "min", min, "max", max, "mean",
                   mean, "stddev", sqrt(sq / (double)n));
}

/* start (ISO 8601, UTC) plus s seconds, into buf; "" when start is not
 * one. */
static const char *later(char buf[32], const char *start, double s) {
  struct tm tm;
  time_t t;
  memset(&tm, 0, sizeof tm);
  buf[0] = '\0';
  if (start == NULL || !(s >= 0 && s <= SPOOL_MAX_S) ||
      sscanf(start, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon,
             &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return buf;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  t = timegm(&tm) + (time_t)floor(s);
  gmtime_r(&t, &tm);
  strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/* One node's figures for a region, from its spool. */
struct rnode {
  size_t node; /* in the report's nodes */
  const char *name;
  json_t *rec;
  double time, energy; /* energy NAN: not measured */
};

/* A number of rec, or NAN when it is null; -1 when it is neither a number
 * from 0 to SPOOL_MAX_S nor null. */
/* REC's energy_err_j into ERR[0] and its energy_err_max_j into ERR[1],
 * the nodes' bars and bounds added (bounds); NAN from then on when REC
 * has none (a spool written before error bars, or before bounds). */
static void add_err(double err[2], json_t *rec)
{
  json_t *v = json_object_get(rec, "energy_err_j");
  json_t *m = json_object_get(rec, "energy_err_max_j");

  err[0] += json_is_number(v) ? json_number_value(v) : NAN;
  err[1] += json_is_number(m) ? json_number_value(m) : NAN;
}

/* ERR's bound as the figure's energy_err_max_j of O: null when not known
 * or MEASURED false. */
static void set_max(json_t *o, const double err[2], int measured)
{
  json_object_set_new(o, "energy_err_max_j", measured && isfinite(err[1])
                                               ? json_real(err[1])
                                               : json_null());
}

static int num_or_nan(json_t *rec, const char *key, double *v)
{
  json_t *x = json_object_get(rec, key);

  if (json_is_null(x)) {
    *v = NAN;
    return 0;
  }
  if (!json_is_number(x))
    return -1;
  *v = json_number_value(x);
  return *v >= 0 && *v <= 1e12 ? 0 : -1;
}

/* Whether rec is a region record of a spool (lib/regpub.c). */
static int region_ok(json_t *rec)
{
  double t, e, p, c, f;

  return json_is_object(rec) &&
         json_is_string(json_object_get(rec, "name")) &&
         json_is_integer(json_object_get(rec, "rank")) &&
         json_integer_value(json_object_get(rec, "rank")) >= 0 &&
         json_is_integer(json_object_get(rec, "count")) &&
         json_integer_value(json_object_get(rec, "count")) >= 0 &&
         json_is_integer(json_object_get(rec, "unclosed")) &&
         json_integer_value(json_object_get(rec, "unclosed")) >= 0 &&
         num_or_nan(rec, "time_s", &t) == 0 && !isnan(t) &&
         num_or_nan(rec, "energy_j", &e) == 0 &&
         num_or_nan(rec, "power_w", &p) == 0 &&
         num_or_nan(rec, "coverage", &c) == 0 && !(c > 1) &&
         json_is_number(json_object_get(rec, "first_s")) &&
         (f = json_number_value(json_object_get(rec, "first_s")),
          f >= -SPOOL_MAX_S && f <= SPOOL_MAX_S);
}

/* {"min", "max", "mean", "stddev", "min_node", "max_node"} of the energy
 * (else the time) of the n nodes r that have one. */
static json_t *node_stat(const struct rnode *r, size_t n, int energy)
{
  double *v = report_xcalloc(n ? n : 1, sizeof *v);
  size_t k = 0, imin = 0, imax = 0;
  json_t *o;

  for (size_t i = 0; i < n; i++) {
    double x = energy ? r[i].energy : r[i].time;
    if (isnan(x))
      continue;
    if (k == 0 || x < v[imin])
      imin = k;
    if (k == 0 || x > v[imax])
      imax = k;
    v[k++] = x;
  }
  o = stats(v, k);
  free(v);
  if (k == 0) {
    json_object_set_new(o, "min_node", json_null());
    json_object_set_new(o, "max_node", json_null());
    return o;
  }
  /* imin and imax count among the nodes with the figure. */
  for (size_t i = 0, j = 0; i < n; i++) {
    double x = energy ? r[i].energy : r[i].time;
    if (isnan(x))
      continue;
    if (j == imin)
      json_object_set_new(o, "min_node", json_string(r[i].name));
    if (j == imax)
      json_object_set_new(o, "max_node", json_string(r[i].name));
    j++;
  }
  return o;
}

static int by_first(const void *a, const void *b)
{
  json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
  double fx = json_number_value(json_object_get(x, "first_s"));
  double fy = json_number_value(json_object_get(y, "first_s"));

  if (fx != fy)
    return (fx > fy) - (fx < fy);
  return strcmp(json_string_value(json_object_get(x, "name")),
                json_string_value(json_object_get(y, "name")));
}

/* The job's regions from the node records of the n spools v (in the
 * order of nodes): merged by name as pmon_finalize() merges them (pairs
 * and unclosed add up, time the longest, energy and power summed over
 * the nodes that measured them, coverage the least), in order of first
 * use.  A spool whose regions are not well formed gives one line and
 * none of them, and counts in *bad. */
static json_t *job_regions(struct spool *v, size_t n, json_t *nodes,
                           size_t *left_out, size_t *bad) {
  json_t *byname = json_object(), *out = json_array(), *rec, *list;
  json_int_t max = json_integer_value(
    json_object_get(json_object_get(v[0].doc, "job"), "region_nodes"));
  size_t nrec, i, k, j;
  const char *key;
  json_t **sorted;

  if (!json_is_integer(json_object_get(json_object_get(v[0].doc, "job"),
                                       "region_nodes")))
    max = 32; /* PMON_REGION_NODES' default */
  *left_out = 0;
  for (i = 0; i < n; i++) {
    json_t *regs = json_object_get(v[i].doc, "regions");
    json_t *lo = json_object_get(v[i].doc, "regions_left_out");
    const char *file = json_string_value(json_object_get(v[i].doc, "file"));

    if (regs == NULL)
      continue;
    if (json_is_integer(lo) && json_integer_value(lo) > 0)
      *left_out += (size_t)json_integer_value(lo);
    for (k = 0; json_is_array(regs) && k < json_array_size(regs); k++)
      if (!region_ok(json_array_get(regs, k)))
        break;
    if (!json_is_array(regs) || k < json_array_size(regs)) {
      complain(0, "%s: its regions are not well formed (record %zu): "
               "left out", file, k);
      (*bad)++;
      continue;
    }
    json_array_foreach(regs, k, rec) {
      const char *name = json_string_value(json_object_get(rec, "name"));
      json_t *per = json_object_get(byname, name);

      if (per == NULL) {
        per = json_array();
        json_object_set_new(byname, name, per);
      }
      json_array_append_new(per, json_pack("[I,O]", (json_int_t)i, rec));
    }
  }
  sorted = report_xcalloc(json_object_size(byname) + 1, sizeof *sorted);
  nrec = 0;
  json_object_foreach(byname, key, list) {
    size_t m = json_array_size(list), without = 0;
    struct rnode *r = report_xcalloc(m, sizeof *r);
    double energy = 0, power = 0, cover = INFINITY, time = 0, first = INFINITY;
    double err[2] = {0, 0};
    json_int_t count = 0, unclosed = 0;
    int measured = 0;
    size_t fitted = 0;
    json_t *o, *nl;

    for (j = 0; j < m; j++) {
      json_t *pair = json_array_get(list, j);
      double e, p, c;
      r[j].node = (size_t)json_integer_value(json_array_get(pair, 0));
      r[j].rec = rec = json_array_get(pair, 1);
      r[j].name = json_string_value(
        json_object_get(json_array_get(nodes, r[j].node), "name"));
      num_or_nan(rec, "time_s", &r[j].time);
      num_or_nan(rec, "energy_j", &e);
      num_or_nan(rec, "power_w", &p);
      num_or_nan(rec, "coverage", &c);
      r[j].energy = e;
      fitted += !isnan(e) &&
                json_is_string(json_object_get(rec, "energy_method")) &&
                strcmp(json_string_value(json_object_get(rec, "energy_method")),
                       "fit") == 0;
      count = add(count, json_integer_value(json_object_get(rec, "count")));
      unclosed =
        add(unclosed, json_integer_value(json_object_get(rec, "unclosed")));
      time = r[j].time > time ? r[j].time : time;
      if (json_number_value(json_object_get(rec, "first_s")) < first)
        first = json_number_value(json_object_get(rec, "first_s"));
      if (isnan(e)) {
        without++;
        continue;
      }
      measured = 1;
      energy += e;
      add_err(err, rec);
      power += isnan(p) ? 0 : p;
      if (!isnan(c) && c < cover)
        cover = c;
    }
    o = json_pack("{s:s, s:I, s:f, s:o, s:o, s:o, s:I, s:f, s:I, "
                  "s:{s:I, s:o, s:o}}",
                  "name", key, "count", count, "time_s", time, "energy_j",
                  measured ? json_real(energy) : json_null(), "power_w",
                  measured ? json_real(power) : json_null(), "coverage",
                  measured && isfinite(cover) ? json_real(cover) : json_null(),
                  "unclosed", unclosed, "first_s", first,
                  "nodes_without_energy", (json_int_t)without, "node_stats",
                  "nodes", (json_int_t)m, "energy_j", node_stat(r, m, 1),
                  "time_s", node_stat(r, m, 0));
    if (o != NULL) {
      json_object_set_new(o, "energy_err_j", measured && isfinite(err[0])
                                               ? json_real(err[0])
                                               : json_null());
      set_max(o, err, measured);
      /* A node's figure fitted over its intervals says so in its spool
       * (lib/regpub.c); the job's is the fit's when every measured
       * node's is. */
      json_object_set_new(o, "energy_method",
                          json_string(!measured         ? "none"
                                      : fitted == 0     ? "interpolation"
                                      : fitted + without == m ? "fit"
                                                        : "mixed"));
    }
    if (o != NULL && (json_int_t)m <= max) {
      nl = json_array();
      for (j = 0; j < m; j++)
        json_array_append_new(
          nl, json_pack("{s:s?, s:O, s:O, s:O, s:O?, s:O?, s:O, s:O, s:O}", "name",
                        r[j].name, "count", json_object_get(r[j].rec, "count"),
                        "time_s", json_object_get(r[j].rec, "time_s"),
                        "energy_j", json_object_get(r[j].rec, "energy_j"),
                        "energy_err_j",
                        json_object_get(r[j].rec, "energy_err_j"),
                        "energy_err_max_j",
                        json_object_get(r[j].rec, "energy_err_max_j"),
                        "power_w", json_object_get(r[j].rec, "power_w"),
                        "coverage", json_object_get(r[j].rec, "coverage"),
                        "rank", json_object_get(r[j].rec, "rank")));
      json_object_set_new(o, "nodes", nl);
    }
    free(r);
    if (o != NULL)
      sorted[nrec++] = o;
  }
  qsort(sorted, nrec, sizeof *sorted, by_first);
  for (i = 0; i < nrec; i++)
    json_array_append_new(out, sorted[i]);
  free(sorted);
  json_decref(byname);
  return out;
}

/* MPI-IO: the job's figures from the nodes' (lib/io.c, pmon__io_job(),
 * does the same at finalize). */
static const char *const io_counts[] = {"bytes_read", "bytes_written",
                                        "reads",      "writes",
                                        "meta_ops",   "ops",
                                        "errors"};
#define IO_NCOUNTS (sizeof io_counts / sizeof io_counts[0])

static json_int_t iget(json_t *o, const char *key) {
  return json_integer_value(json_object_get(o, key));
}

static double rget(json_t *o, const char *key) {
  return json_number_value(json_object_get(o, key));
}

static double ratio(double a, double b) {
  return b > 0 && isfinite(a) && isfinite(b) ? a / b : NAN;
}

static json_t *num(double v) {
  return isfinite(v) ? json_real(v) : json_null();
}

static int busiest(const void *a, const void *b) {
  json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
  json_int_t bx = add(iget(x, "bytes_read"), iget(x, "bytes_written"));
  json_int_t by = add(iget(y, "bytes_read"), iget(y, "bytes_written"));
  if (bx != by)
    return bx < by ? 1 : -1;
  if (iget(x, "ops") != iget(y, "ops"))
    return iget(x, "ops") < iget(y, "ops") ? 1 : -1;
  return strcmp(json_string_value(json_object_get(x, "name")),
                json_string_value(json_object_get(y, "name")));
}

/* The files of the spools' node records ("io_files") merged by name (counts and ranks
 * add up, time the longest), the busiest max of them; *omitted the rest. */
static json_t *io_files(struct spool *v, size_t n, json_int_t max,
                        json_int_t *omitted) {
  json_t *byname = json_object(), *out = json_array(), *f, *o, **all;
  const char *key;
  size_t i, k, nall;

  for (i = 0; i < n; i++)
    json_array_foreach(json_object_get(json_object_get(v[i].doc, "node"),
                                       "io_files"), k, f) {
      const char *name = json_string_value(json_object_get(f, "name"));
      if (name == NULL)
        continue;
      if ((o = json_object_get(byname, name)) == NULL) {
        o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I}",
                      "name", name, "bytes_read", (json_int_t)0,
                      "bytes_written", (json_int_t)0, "reads", (json_int_t)0,
                      "writes", (json_int_t)0, "meta_ops", (json_int_t)0,
                      "ops", (json_int_t)0, "time_s", 0.0, "ranks",
                      (json_int_t)0);
        json_object_set_new(byname, name, o);
      }
      for (size_t c = 0; c < IO_NCOUNTS; c++)
        if (json_object_get(o, io_counts[c]) != NULL)
          json_object_set_new(o, io_counts[c],
                              json_integer(add(iget(o, io_counts[c]),
                                               iget(f, io_counts[c]))));
      if (rget(f, "time_s") > rget(o, "time_s"))
        json_object_set_new(o, "time_s", json_real(rget(f, "time_s")));
      json_object_set_new(o, "ranks",
                          json_integer(add(iget(o, "ranks"), iget(f, "ranks"))));
    }
  nall = json_object_size(byname);
  all = report_xcalloc(nall + 1, sizeof *all);
  i = 0;
  json_object_foreach(byname, key, o)
    all[i++] = o;
  qsort(all, nall, sizeof *all, busiest);
  for (i = 0; i < nall && (json_int_t)i < max; i++)
    json_array_append(out, all[i]);
  *omitted = (json_int_t)(nall - json_array_size(out));
  free(all);
  json_decref(byname);
  return out;
}

/* The job's "io" from the node records (null when none counted I/O), as
 * the report's: rates per joule only when every node measured its I/O
 * energy. */
static json_t *job_io(struct spool *v, size_t n, json_t *nodes) {
  json_int_t counts[IO_NCOUNTS] = {0}, phases = 0, no_energy = 0, omitted;
  json_int_t node_omitted = 0, max;
  double time_s = 0, ptime = 0, energy = 0, power = 0, gap_s = 0, mb, emb;
  double err[2] = {0, 0};
  double epw;
  int any = 0, measured = 0, est = 0;
  json_t *node, *o, *job0 = json_object_get(v[0].doc, "job");
  size_t i;

  json_array_foreach(nodes, i, node) {
    json_t *r = json_object_get(node, "io");
    if (!json_is_object(r))
      continue;
    any = 1;
    for (size_t c = 0; c < IO_NCOUNTS; c++)
      counts[c] = add(counts[c], iget(r, io_counts[c]));
    time_s = rget(r, "time_s") > time_s ? rget(r, "time_s") : time_s;
    ptime = rget(r, "phase_time_s") > ptime ? rget(r, "phase_time_s") : ptime;
    gap_s = rget(r, "gap_s") > gap_s ? rget(r, "gap_s") : gap_s;
    phases = add(phases, iget(r, "phases"));
    node_omitted = add(node_omitted, iget(r, "files_omitted"));
    json_object_del(r, "files_omitted");
    if (json_is_number(json_object_get(r, "energy_j"))) {
      measured = 1;
      energy += rget(r, "energy_j");
      add_err(err, r);
      if (json_is_number(json_object_get(r, "power_w")))
        power += rget(r, "power_w");
      est |= json_is_true(json_object_get(node, "estimated"));
    } else {
      no_energy++;
    }
  }
  if (!any)
    return json_null();
  if (!measured)
    energy = power = NAN;
  emb = no_energy > 0 ? NAN : energy;
  epw = no_energy > 0 ? NAN : power;
  mb = (double)(counts[0] + counts[1]) / 1e6;
  o = json_pack("{s:f}", "gap_s", gap_s);
  for (size_t c = 0; c < IO_NCOUNTS; c++)
    json_object_set_new(o, io_counts[c], json_integer(counts[c]));
  max = json_is_integer(json_object_get(job0, "io_files"))
          ? iget(job0, "io_files") : 32; /* PMON_IO_FILES' default */
  json_object_set_new(o, "time_s", json_real(time_s));
  json_object_set_new(o, "phases", json_integer(phases));
  json_object_set_new(o, "phase_time_s", json_real(ptime));
  json_object_set_new(o, "energy_j", num(energy));
  json_object_set_new(o, "energy_err_j", num(measured ? err[0] : NAN));
  set_max(o, err, measured);
  json_object_set_new(o, "power_w", num(power));
  json_object_set_new(o, "mb_per_s", num(ratio(mb, time_s)));
  json_object_set_new(o, "mb_per_j", num(ratio(mb, emb)));
  json_object_set_new(o, "mb_per_s_per_w", num(ratio(ratio(mb, time_s), epw)));
  json_object_set_new(o, "j_per_byte", num(ratio(emb, mb * 1e6)));
  json_object_set_new(o, "estimated", json_boolean(est));
  json_object_set_new(o, "nodes_without_energy", json_integer(no_energy));
  json_object_set_new(o, "files", io_files(v, n, max, &omitted));
  json_object_set_new(o, "files_omitted", json_integer(add(omitted, node_omitted)));
  return o;
}

/* The report made from the n spools v (sorted by node), dir the
 * directory; NULL when it cannot be formed.  *bad counts the spools of
 * which a part was left out. */
static json_t *assemble(struct spool *v, size_t n, const char *dir,
                        size_t *bad) {
  json_t *job0 = json_object_get(v[0].doc, "job"), *nodes = json_array();
  json_t *meters = json_array(), *seen = json_object(), *doc, *missing;
  json_t *names = json_object_get(job0, "node_names"), *covers = NULL;
  json_t *regions;
  size_t left_out;
  double *ev = report_xcalloc(n, sizeof *ev), *pv = report_xcalloc(n, sizeof *pv);
  double total = 0, wall = 0, known = INFINITY, err[2] = {0, 0};
  size_t ne = 0;
  int est = 0, mixed = 0;
  char end[32];

  for (size_t i = 0; i < n; i++) {
    json_t *rec = json_deep_copy(json_object_get(v[i].doc, "node"));
    json_t *e, *m;
    double w = json_number_value(json_object_get(rec, "wall_s"));
    double k = json_number_value(json_object_get(v[i].doc, "known_until_s"));
    size_t j;

    if (!json_is_object(json_object_get(rec, "io")))
      json_object_set_new(rec, "io", json_null());
    json_object_del(rec, "io_files"); /* into the job's (job_io()) */
    json_object_set_new(rec, "known_until_s", json_real(k));
    json_array_foreach(json_object_get(rec, "meters"), j, m) {
      const char *spec = json_string_value(json_object_get(m, "spec"));
      if (spec != NULL && json_object_get(seen, spec) == NULL) {
        json_object_set_new(seen, spec, json_true());
        json_array_append(meters, m);
      }
    }
    json_object_del(rec, "meters");
    wall = w > wall ? w : wall;
    known = k < known ? k : known;
    est |= json_is_true(json_object_get(rec, "estimated"));
    e = json_object_get(rec, "energy_j");
    if (json_is_number(e)) {
      ev[ne] = json_number_value(e);
      pv[ne] = w > 0 ? ev[ne] / w : 0;
      total += ev[ne++];
      add_err(err, rec);
    }
    if (covers == NULL)
      covers = json_object_get(rec, "covers");
    else if (!json_equal(covers, json_object_get(rec, "covers")))
      mixed = 1;
    json_array_append_new(nodes, rec);
  }
  json_decref(seen);

  /* The nodes whose spool is not here: by name where known. */
  missing = json_array();
  if (json_is_array(names)) {
    size_t j;
    json_t *nm;
    json_array_foreach(names, j, nm) {
      size_t i;
      for (i = 0; i < n; i++)
        if (json_equal(nm, json_object_get(json_object_get(v[i].doc, "node"),
                                           "name")))
          break;
      if (i == n)
        json_array_append(missing, nm);
    }
  } else {
    json_int_t want = json_integer_value(json_object_get(job0, "nodes"));
    for (json_int_t j = (json_int_t)n; j < want; j++)
      json_array_append_new(missing, json_null());
  }

  doc = json_pack(
    "{s:{s:s,s:i}, s:s, s:b, s:{s:O,s:O,s:O,s:O,s:f,s:O,s:s,s:O}, s:o, s:o, "
    "s:b, s:o, s:{s:o,s:o}, s:n}",
    "format", "name", "pmon", "version", FORMAT_VERSION, "pmon_version",
    PACKAGE_VERSION, "complete", 0, "job", "id",
    json_object_get(job0, "id"), "id_source",
    json_object_get(job0, "id_source"), "ranks",
    json_object_get(job0, "ranks"), "nodes", json_object_get(job0, "nodes"),
    "wall_s", wall, "start", json_object_get(job0, "start"), "end",
    later(end, json_string_value(json_object_get(job0, "start")), wall),
    "mpi", json_object_get(job0, "mpi"), "energy_j",
    ne > 0 ? json_real(total) : json_null(), "power_w",
    ne > 0 && wall > 0 ? json_real(total / wall) : json_null(), "estimated",
    est, "meters", meters, "stats", "node_energy_j", stats(ev, ne),
    "node_power_w", stats(pv, ne), "io");
  free(ev);
  free(pv);
  if (doc == NULL) {
    json_decref(nodes);
    json_decref(missing);
    return NULL;
  }
  if (json_object_get(job0, "label") != NULL)
    json_object_set(json_object_get(doc, "job"), "label",
                    json_object_get(job0, "label"));
  if (json_object_get(job0, "tags") != NULL)
    json_object_set(json_object_get(doc, "job"), "tags",
                    json_object_get(job0, "tags"));
  if (mixed)
    json_object_set_new(doc, "covers", json_string("mixed"));
  else
    json_object_set(doc, "covers", covers ? covers : json_null());
  json_object_set_new(doc, "energy_err_j",
                      ne > 0 && isfinite(err[0]) ? json_real(err[0]) : json_null());
  set_max(doc, err, ne > 0);
  json_object_set_new(doc, "nodes_missing", missing);
  json_object_set_new(
    doc, "rebuilt",
    json_pack("{s:s,s:I,s:f,s:o,s:s}", "from", dir, "spools", (json_int_t)n,
              "known_until_s", isfinite(known) ? known : 0.0,
              "spool_interval_s",
              json_is_number(json_object_get(job0, "interval_s"))
                ? json_deep_copy(json_object_get(job0, "interval_s"))
                : json_null(),
              "not_recovered",
              "each rank's regions and MPI-IO calls since it last "
              "published them, at most one spool interval before"));
  json_object_set_new(doc, "io", job_io(v, n, nodes));
  json_object_set_new(doc, "nodes", nodes);
  regions = job_regions(v, n, nodes, &left_out, bad);
  json_object_set_new(json_object_get(doc, "rebuilt"), "regions_left_out",
                      json_integer((json_int_t)left_out));
  json_object_set_new(doc, "regions", regions);
  return doc;
}

static const char *const usage =
  "usage: " PROG " rebuild [-o REPORT] SPOOLDIR\n";

int report_rebuild(int argc, char **argv) {
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  const char *out = NULL, *dir, *id = NULL;
  struct spool *v = NULL;
  size_t n = 0, cap = 0, bad = 0;
  struct report_out ro;
  char path[PATH_MAX], def[PATH_MAX];
  struct dirent *d;
  json_t *doc;
  DIR *dp;
  int c, status = 0, rc;
  FILE *fp;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'h': fputs(usage, stdout); return 0;
    case ':':
      return complain(2, "%s: option needs an argument", argv[optind - 1]);
    default:
      return complain(2, "%s: invalid option", argv[optind - 1]);
    }
  }
  if (optind != argc - 1)
    return complain(2, "give one SPOOLDIR (%s rebuild --help)", PROG);
  dir = argv[optind];
  if ((dp = opendir(dir)) == NULL)
    return complain(1, "%s: cannot open: %s", dir, strerror(errno));
  while ((d = readdir(dp)) != NULL) {
    size_t len = strlen(d->d_name);
    struct spool s;
    if (len < 7 || strcmp(d->d_name + len - 6, ".spool") != 0 ||
        d->d_name[0] == '.')
      continue;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, d->d_name) >=
        sizeof path)
      continue;
    if ((rc = read_spool(path, &s)) != 0)
      bad++;
    if (rc < 0)
      continue;
    json_object_set_new(s.doc, "file", json_string(path));
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      if ((v = realloc(v, cap * sizeof *v)) == NULL) {
        fputs(PROG ": out of memory\n", stderr);
        exit(1);
      }
    }
    v[n++] = s;
  }
  closedir(dp);
  if (n == 0) {
    free(v);
    return complain(1, "%s: no spool file (NODE.spool) could be read%s", dir,
                    bad ? "" : ": the job kept none, or its report was "
                               "written and the spool removed");
  }
  qsort(v, n, sizeof *v, by_index);
  /* The job is the one most spools belong to (the first node's on a tie):
   * a spool of another job, or one whose id was damaged, is left out. */
  {
    size_t best = 0, most = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
      size_t same = 0;
      for (size_t j = 0; j < n; j++)
        same += strcmp(spool_id(&v[i]), spool_id(&v[j])) == 0;
      if (same > most) {
        most = same;
        best = i;
      }
    }
    id = spool_id(&v[best]);
    for (size_t i = 0; i < n; i++) {
      const char *file = json_string_value(json_object_get(v[i].doc, "file"));
      size_t j;

      if (strcmp(spool_id(&v[i]), id) != 0) {
        complain(0, "%s: of job %s, not %s: left out", file,
                 spool_id(&v[i]), id);
      } else {
        /* One spool per node: a copy is not a second node. */
        for (j = 0; j < kept; j++)
          if (json_equal(node_name(&v[j]), node_name(&v[i])))
            break;
        if (j == kept) {
          v[kept++] = v[i];
          continue;
        }
        complain(0, "%s: node %s again (%s): left out", file,
                 json_string_value(node_name(&v[i])),
                 json_string_value(json_object_get(v[j].doc, "file")));
      }
      json_decref(v[i].doc);
      bad++;
    }
    n = kept;
  }
  if (out == NULL) {
    /* The id as a file name: no directory, no control character. */
    snprintf(def, sizeof def, "pmon-%.200s.rebuilt.json", spool_id(&v[0]));
    for (char *p = def; *p; p++)
      if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
        *p = '_';
    out = def;
  }
  doc = assemble(v, n, dir, &bad);
  for (size_t i = 0; i < n; i++)
    json_decref(v[i].doc);
  free(v);
  if (doc == NULL)
    return complain(1, "%s: cannot form the report", dir);
  /* Never a report that pmon-report would refuse. */
  if (report_check(doc, path, sizeof path) != 0) {
    refused = 1;
    json_decref(doc);
    return complain(1, "%s: the rebuilt report does not read back (%s): "
                    "not written", dir, path);
  }
  if ((fp = report_out_open(&ro, out)) == NULL) {
    json_decref(doc);
    return 1;
  }
  rc = json_dumpf(doc, fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
                             JSON_REAL_PRECISION(12));
  putc('\n', fp);
  json_decref(doc);
  if (report_out_close(&ro, rc == 0) != 0)
    return 1;
  if (strcmp(out, "-") != 0)
    printf("rebuilt %s: %zu node%s from %s%s\n", out, n, n == 1 ? "" : "s",
           dir, bad ? " (some spools left out or damaged)" : "");
  return status || bad ? 1 : 0;
}

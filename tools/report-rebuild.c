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
 *   "rebuilt": where from, and what a spool does not hold (the regions
 *   and the MPI-IO figures: "regions" is empty and "io" null).
 * A spool file that cannot be read (truncated, corrupted, another job's)
 * is named in one line on stderr and left out; the others still make the
 * report.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
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

/* Reads and checks the spool at path into *s: a regular file (a link, a
 * FIFO or a device is not followed), of a size a spool can have, whose
 * job and node hold what the report is made of.  Returns 0, or -1 after
 * one line naming the file. */
static int read_spool(const char *path, struct spool *s)
{
  json_error_t err;
  json_t *doc, *v, *node, *job;
  struct stat st;
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
  s->doc = doc;
  s->index = json_integer_value(json_object_get(job, "node_index"));
  return 0;
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

/* The report made from the n spools v (sorted by node), dir the
 * directory; NULL when it cannot be formed. */
static json_t *assemble(struct spool *v, size_t n, const char *dir) {
  json_t *job0 = json_object_get(v[0].doc, "job"), *nodes = json_array();
  json_t *meters = json_array(), *seen = json_object(), *doc, *missing;
  json_t *names = json_object_get(job0, "node_names"), *covers = NULL;
  double *ev = report_xcalloc(n, sizeof *ev), *pv = report_xcalloc(n, sizeof *pv);
  double total = 0, wall = 0, known = INFINITY;
  size_t ne = 0;
  int est = 0, mixed = 0;
  char end[32];

  for (size_t i = 0; i < n; i++) {
    json_t *rec = json_deep_copy(json_object_get(v[i].doc, "node"));
    json_t *tl = json_object_get(rec, "timeline"), *e, *m;
    double w = json_number_value(json_object_get(rec, "wall_s"));
    double k = json_number_value(json_object_get(v[i].doc, "known_until_s"));
    size_t j;

    /* The timeline travels as text, as between the ranks. */
    if (json_is_string(tl)) {
      json_t *parsed = json_loads(json_string_value(tl), 0, NULL);
      json_object_set_new(rec, "timeline", parsed ? parsed : json_null());
    }
    json_object_set_new(rec, "io", json_null());
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
  json_object_set_new(doc, "nodes_missing", missing);
  json_object_set_new(
    doc, "rebuilt",
    json_pack("{s:s,s:I,s:f,s:o,s:s}", "from", dir, "spools", (json_int_t)n,
              "known_until_s", isfinite(known) ? known : 0.0,
              "spool_interval_s",
              json_is_number(json_object_get(job0, "interval_s"))
                ? json_deep_copy(json_object_get(job0, "interval_s"))
                : json_null(),
              "not_recovered", "regions and MPI-IO figures"));
  json_object_set_new(doc, "nodes", nodes);
  json_object_set_new(doc, "regions", json_array());
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
    if (read_spool(path, &s) != 0) {
      bad++;
      continue;
    }
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
  doc = assemble(v, n, dir);
  for (size_t i = 0; i < n; i++)
    json_decref(v[i].doc);
  free(v);
  if (doc == NULL)
    return complain(1, "%s: cannot form the report", dir);
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
           dir, bad ? " (some spools left out)" : "");
  return status || bad ? 1 : 0;
}

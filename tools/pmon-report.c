/*
 * pmon-report - print the energy reports that pmon jobs write.
 *
 * Reads one or more report files (JSON, described in pmon-report(5) and
 * docs/report-format.md) and prints each one as text tables for people, as
 * CSV tables, or as normalised JSON.  A file is loaded and checked
 * completely before anything is printed for it, so a bad file gives exactly
 * one line on stderr, "pmon-report: FILE: <what>: <why>", and nothing on
 * stdout; the other files are still processed.
 *
 * Exit status: 0 when every file was read, 1 when one was not (or stdout
 * could not be written), 2 on a usage error.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define PROG "pmon-report"

/* The newest report format version this reader knows.  Every older version
 * is read; newer ones are refused (pmon-report(5), "Versions"). */
#define FORMAT_VERSION 3

/* Room for one formatted table cell, and the most columns of a table. */
#define CELL_MAX 64
#define MAX_COLS 24

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#ifdef __GNUC__
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

enum output { OUT_TEXT, OUT_CSV, OUT_JSON };

/* Sections of the text and CSV output, as bits of options.sections: bit i
 * is section_names[i]. */
enum {
  SEC_SUMMARY = 1, SEC_NODES = 2, SEC_REGIONS = 4, SEC_EVENTS = 8, SEC_IO = 16
};
#define SEC_ALL (SEC_SUMMARY | SEC_NODES | SEC_REGIONS | SEC_EVENTS | SEC_IO)

static const char *const section_names[] = {"summary", "nodes", "regions",
                                            "events", "io"};

/* The command line, once parsed: the program's only settings. */
struct options {
  enum output output;
  unsigned sections; /* SEC_* bits. */
  unsigned asked;    /* The SEC_* bits that --section named. */
};

/*
 * A report as read.  Strings point into root and live as long as it does.
 * A figure that is null or absent in the file is NAN here, a string NULL,
 * a boolean -1 (absent), 0 or 1.  Integers are kept as doubles, which hold
 * them exactly up to 2^53, so that one formatter serves every figure.
 */
struct job {
  const char *id, *id_source, *start, *end;
  double ranks, nodes, wall_s;
  int mpi;
  double region_names_limit, region_names_folded; /* NAN before version 2 */
};

struct meter {
  const char *driver, *spec, *kind;
  int estimated;
  double interval_s;
};

struct channel {
  const char *name;
  int total;
  size_t meter; /* Index in report.meters. */
};

struct event {
  const char *node; /* The name of the node it happened on. */
  double t_s;
  const char *meter, *type, *detail;
};

/* The MPI-IO figures of one node (its "io" key); all NAN when it has none. */
struct nodeio {
  double bytes_read, bytes_written, reads, writes, meta_ops, ops, errors;
  double time_s, phases, phase_time_s, energy_j, power_w, gap_s;
};

struct node {
  const char *name, *total_from, *covers;
  double ranks, energy_j, wall_s, power_w;
  int estimated;
  double nevents;
  struct nodeio io;
};

struct region {
  const char *name;
  double count, time_s, energy_j, power_w, unclosed;
  double coverage; /* Share of its time measured, 0 to 1; NAN if absent. */
  double share;  /* Percent of the job's energy, NAN when unknown. */
  size_t index;  /* Position in the file, to keep sorting stable. */
};

/* One element of io.files: the calls on one file over the whole job. */
struct iofile {
  const char *name;
  double bytes_read, bytes_written, reads, writes, meta_ops, ops, time_s;
  double ranks;
};

/* The job's MPI-IO figures (the top-level "io" key). */
struct io {
  double gap_s, bytes_read, bytes_written, reads, writes, meta_ops, ops;
  double errors, time_s, phases, phase_time_s, energy_j, power_w;
  double mb_per_s, mb_per_j, mb_per_s_per_w, j_per_byte;
  int estimated;
  double nodes_without_energy, files_omitted;
  struct iofile *files;
  size_t nfiles;
};

struct nodestat {
  const char *label;
  double min, max, mean, stddev;
};

struct report {
  json_t *root;
  long long version;
  const char *pmon_version;
  struct job job;
  double energy_j, power_w;
  int estimated;
  const char *covers; /* What the energy covers: "node", "cpu+memory"... */
  struct meter *meters;
  struct channel *channels;
  struct node *nodes;
  struct event *events;
  struct region *regions;
  size_t nmeters, nchannels, nnodes, nevents, nregions;
  struct nodestat stats[2]; /* Node energy, node power. */
  int has_io;               /* Whether the job or a node has an io key. */
  struct io io;             /* All NAN when the job has no io key. */
};

/* Where a check failed: "<what>: <why>", filled by the failing check. */
struct reader {
  char err[320];
};

/* Allocates zeroed memory for n elements of size sz (n may be 0); ends the
 * program when memory is exhausted. */
static void *xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz);
  if (p == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return p;
}

/* Prints "pmon-report: NAME: MSG" on stderr, after whatever stdout holds so
 * that the two streams stay in order on one terminal. */
static void file_error(const char *name, const char *msg) {
  fflush(stdout);
  fprintf(stderr, PROG ": %s: %s\n", name, msg);
}

/* ---- Reading and checking a report ------------------------------------ */

/* Records the message of a failed check and returns -1. */
PRINTF_LIKE(2, 3)
static int fail(struct reader *rd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rd->err, sizeof rd->err, fmt, ap);
  va_end(ap);
  return -1;
}

/* Records "bad report: WHERE.KEY: expected WANT, found GOT" and returns -1.
 * An empty KEY names WHERE itself.  GOT is described, never quoted, so that
 * the message stays one line. */
static int wrong(struct reader *rd, const char *where, const char *key,
                 const char *want, const json_t *got) {
  static const char *const names[] = {
    [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
    [JSON_STRING] = "a string",  [JSON_INTEGER] = "a number",
    [JSON_REAL] = "a number",    [JSON_TRUE] = "true",
    [JSON_FALSE] = "false",      [JSON_NULL] = "null",
  };
  char found[48];
  if (json_is_integer(got))
    snprintf(found, sizeof found, "%" JSON_INTEGER_FORMAT,
             json_integer_value(got));
  else if (json_is_real(got))
    snprintf(found, sizeof found, "%g", json_real_value(got));
  else
    snprintf(found, sizeof found, "%s",
             got ? names[json_typeof(got)] : "nothing");
  return fail(rd, "bad report: %s%s%s: expected %s, found %s", where,
              *where && *key ? "." : "", key, want, found);
}

/* Returns the value of key in obj, or NULL when obj is NULL or the key is
 * absent or null: to this reader, absent and null mean the same. */
static json_t *lookup(json_t *obj, const char *key) {
  json_t *v = obj ? json_object_get(obj, key) : NULL;
  return json_is_null(v) ? NULL : v;
}

/* Stores in *out the object or array (type) at key of obj, NULL when absent,
 * or fails when it has another type. */
static int get_child(struct reader *rd, json_t *obj, const char *where,
                     const char *key, json_type type, json_t **out) {
  *out = lookup(obj, key);
  if (*out != NULL && json_typeof(*out) != type)
    return wrong(rd, where, key,
                 type == JSON_OBJECT ? "an object" : "an array", *out);
  return 0;
}

/* The scalar keys of each record: what type each must have and where in
 * the C struct its value goes. */
enum kind { K_NUM, K_COUNT, K_STR, K_BOOL };

struct field {
  const char *key;
  enum kind kind;
  size_t off;
};

#define FIELD(type, member, kind) {#member, kind, offsetof(type, member)}

static const struct field top_fields[] = {
  FIELD(struct report, pmon_version, K_STR),
  FIELD(struct report, energy_j, K_NUM),
  FIELD(struct report, power_w, K_NUM),
  FIELD(struct report, estimated, K_BOOL),
  FIELD(struct report, covers, K_STR),
};

static const struct field job_fields[] = {
  FIELD(struct job, id, K_STR),         FIELD(struct job, id_source, K_STR),
  FIELD(struct job, ranks, K_COUNT),    FIELD(struct job, nodes, K_COUNT),
  FIELD(struct job, wall_s, K_NUM),     FIELD(struct job, start, K_STR),
  FIELD(struct job, end, K_STR),        FIELD(struct job, mpi, K_BOOL),
  FIELD(struct job, region_names_limit, K_COUNT),
  FIELD(struct job, region_names_folded, K_COUNT),
};

static const struct field meter_fields[] = {
  FIELD(struct meter, driver, K_STR),   FIELD(struct meter, spec, K_STR),
  FIELD(struct meter, kind, K_STR),     FIELD(struct meter, estimated, K_BOOL),
  FIELD(struct meter, interval_s, K_NUM),
};

static const struct field channel_fields[] = {
  FIELD(struct channel, name, K_STR),
  FIELD(struct channel, total, K_BOOL),
};

static const struct field node_fields[] = {
  FIELD(struct node, name, K_STR),      FIELD(struct node, ranks, K_COUNT),
  FIELD(struct node, energy_j, K_NUM),  FIELD(struct node, wall_s, K_NUM),
  FIELD(struct node, power_w, K_NUM),   FIELD(struct node, estimated, K_BOOL),
  FIELD(struct node, total_from, K_STR), FIELD(struct node, covers, K_STR),
};

static const struct field event_fields[] = {
  FIELD(struct event, t_s, K_NUM),      FIELD(struct event, meter, K_STR),
  FIELD(struct event, type, K_STR),     FIELD(struct event, detail, K_STR),
};

static const struct field region_fields[] = {
  FIELD(struct region, name, K_STR),    FIELD(struct region, count, K_COUNT),
  FIELD(struct region, time_s, K_NUM),  FIELD(struct region, energy_j, K_NUM),
  FIELD(struct region, power_w, K_NUM), FIELD(struct region, unclosed, K_COUNT),
  FIELD(struct region, coverage, K_NUM),
};

static const struct field io_fields[] = {
  FIELD(struct io, gap_s, K_NUM),       FIELD(struct io, bytes_read, K_COUNT),
  FIELD(struct io, bytes_written, K_COUNT),
  FIELD(struct io, reads, K_COUNT),     FIELD(struct io, writes, K_COUNT),
  FIELD(struct io, meta_ops, K_COUNT),  FIELD(struct io, ops, K_COUNT),
  FIELD(struct io, errors, K_COUNT),    FIELD(struct io, time_s, K_NUM),
  FIELD(struct io, phases, K_COUNT),    FIELD(struct io, phase_time_s, K_NUM),
  FIELD(struct io, energy_j, K_NUM),    FIELD(struct io, power_w, K_NUM),
  FIELD(struct io, mb_per_s, K_NUM),    FIELD(struct io, mb_per_j, K_NUM),
  FIELD(struct io, mb_per_s_per_w, K_NUM),
  FIELD(struct io, j_per_byte, K_NUM),  FIELD(struct io, estimated, K_BOOL),
  FIELD(struct io, nodes_without_energy, K_COUNT),
  FIELD(struct io, files_omitted, K_COUNT),
};

static const struct field iofile_fields[] = {
  FIELD(struct iofile, name, K_STR),
  FIELD(struct iofile, bytes_read, K_COUNT),
  FIELD(struct iofile, bytes_written, K_COUNT),
  FIELD(struct iofile, reads, K_COUNT), FIELD(struct iofile, writes, K_COUNT),
  FIELD(struct iofile, meta_ops, K_COUNT),
  FIELD(struct iofile, ops, K_COUNT),   FIELD(struct iofile, time_s, K_NUM),
  FIELD(struct iofile, ranks, K_COUNT),
};

static const struct field nodeio_fields[] = {
  FIELD(struct nodeio, bytes_read, K_COUNT),
  FIELD(struct nodeio, bytes_written, K_COUNT),
  FIELD(struct nodeio, reads, K_COUNT), FIELD(struct nodeio, writes, K_COUNT),
  FIELD(struct nodeio, meta_ops, K_COUNT),
  FIELD(struct nodeio, ops, K_COUNT),   FIELD(struct nodeio, errors, K_COUNT),
  FIELD(struct nodeio, time_s, K_NUM),  FIELD(struct nodeio, phases, K_COUNT),
  FIELD(struct nodeio, phase_time_s, K_NUM),
  FIELD(struct nodeio, energy_j, K_NUM),
  FIELD(struct nodeio, power_w, K_NUM), FIELD(struct nodeio, gap_s, K_NUM),
};

static const struct field stat_fields[] = {
  FIELD(struct nodestat, min, K_NUM),   FIELD(struct nodestat, max, K_NUM),
  FIELD(struct nodestat, mean, K_NUM),  FIELD(struct nodestat, stddev, K_NUM),
};

#define LOAD_FIELDS(rd, obj, where, fields, dst)                             \
  load_fields(rd, obj, where, fields, COUNT_OF(fields), dst)

/* Checks the n fields of obj (whose path is where, "" at the top; NULL
 * when absent) and stores their values into the struct at dst. */
static int load_fields(struct reader *rd, json_t *obj, const char *where,
                       const struct field *f, size_t n, void *dst) {
  for (; n-- > 0; f++) {
    json_t *v = lookup(obj, f->key);
    char *p = (char *)dst + f->off;
    switch (f->kind) {
    case K_STR:
      if (v != NULL && !json_is_string(v))
        return wrong(rd, where, f->key, "a string", v);
      *(const char **)(void *)p = json_string_value(v);
      break;
    case K_BOOL:
      if (v != NULL && !json_is_boolean(v))
        return wrong(rd, where, f->key, "true or false", v);
      *(int *)(void *)p = v ? json_is_true(v) : -1;
      break;
    case K_COUNT:
      if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < 0))
        return wrong(rd, where, f->key, "a non-negative integer", v);
      /* fall through */
    case K_NUM:
      if (v != NULL && !json_is_number(v))
        return wrong(rd, where, f->key, "a number or null", v);
      *(double *)(void *)p = v ? json_number_value(v) : NAN;
      break;
    }
  }
  return 0;
}

/* Loads each element of arr (whose path is name) into element i of the
 * array of size-sz structs at base.  Elements must be objects. */
static int load_list(struct reader *rd, json_t *arr, const char *name,
                     const struct field *f, size_t nf, void *base, size_t sz) {
  char where[96];
  for (size_t i = 0; i < json_array_size(arr); i++) {
    json_t *o = json_array_get(arr, i);
    snprintf(where, sizeof where, "%s[%zu]", name, i);
    if (!json_is_object(o))
      return wrong(rd, where, "", "an object", o);
    if (load_fields(rd, o, where, f, nf, (char *)base + i * sz))
      return -1;
  }
  return 0;
}

#define LOAD_LIST(rd, arr, name, fields, base)                               \
  load_list(rd, arr, name, fields, COUNT_OF(fields), base, sizeof *(base))

/* The total length of the arrays key of the objects of arr, for sizing. */
static size_t count_inner(json_t *arr, const char *key) {
  size_t n = 0;
  for (size_t i = 0; i < json_array_size(arr); i++)
    n += json_array_size(json_object_get(json_array_get(arr, i), key));
  return n;
}

/* Stores in *inner the array key of object i of arr (whose path is name),
 * NULL when absent, and the inner array's path in path. */
static int get_inner(struct reader *rd, json_t *arr, const char *name,
                     size_t i, const char *key, char path[96],
                     json_t **inner) {
  char where[64];
  snprintf(where, sizeof where, "%s[%zu]", name, i);
  snprintf(path, 96, "%s.%s", where, key);
  return get_child(rd, json_array_get(arr, i), where, key, JSON_ARRAY, inner);
}

/* Checks that root is a pmon report of a version this reader knows. */
static int check_format(struct reader *rd, json_t *root, long long *version) {
  json_t *format = json_object_get(root, "format");
  json_t *name = json_object_get(format, "name");
  json_t *v = json_object_get(format, "version");

  if (!json_is_object(root))
    return fail(rd, "not a pmon report: the document is not a JSON object");
  if (!json_is_string(name) || strcmp(json_string_value(name), "pmon") != 0)
    return fail(rd, "not a pmon report: format.name is not \"pmon\"");
  if (!json_is_integer(v) || json_integer_value(v) < 1)
    return wrong(rd, "format", "version", "a positive integer", v);
  *version = json_integer_value(v);
  if (*version > FORMAT_VERSION)
    return fail(rd, "unsupported format version: %lld is newer than %d, the "
                "newest this pmon-report reads", *version, FORMAT_VERSION);
  return 0;
}

/* Checks the MPI-IO figures, the top-level "io" key and the "io" key of each
 * node, and fills r->io and the io of r->nodes.  Either may be absent or
 * null (an older report, or a job without interception): its figures are
 * then NAN, and r->has_io stays 0 when all of them are. */
static int load_io(struct reader *rd, struct report *r, json_t *nodes) {
  json_t *io, *files, *nio;
  char where[48], path[48];

  if (get_child(rd, r->root, "", "io", JSON_OBJECT, &io) ||
      LOAD_FIELDS(rd, io, "io", io_fields, &r->io) ||
      get_child(rd, io, "io", "files", JSON_ARRAY, &files))
    return -1;
  r->has_io = io != NULL;
  r->io.nfiles = json_array_size(files);
  r->io.files = xcalloc(r->io.nfiles, sizeof *r->io.files);
  if (LOAD_LIST(rd, files, "io.files", iofile_fields, r->io.files))
    return -1;
  for (size_t i = 0; i < r->nnodes; i++) {
    snprintf(where, sizeof where, "nodes[%zu]", i);
    snprintf(path, sizeof path, "nodes[%zu].io", i);
    if (get_child(rd, json_array_get(nodes, i), where, "io", JSON_OBJECT,
                  &nio) ||
        LOAD_FIELDS(rd, nio, path, nodeio_fields, &r->nodes[i].io))
      return -1;
    r->has_io |= nio != NULL;
  }
  return 0;
}

/* Checks the document of r->root and fills the rest of r from it. */
static int load_report(struct reader *rd, struct report *r) {
  static const char *const stat_keys[2] = {"node_energy_j", "node_power_w"};
  json_t *job, *meters, *nodes, *regions, *stats, *s, *arr;
  char where[48], path[96];

  if (check_format(rd, r->root, &r->version) ||
      LOAD_FIELDS(rd, r->root, "", top_fields, r) ||
      get_child(rd, r->root, "", "job", JSON_OBJECT, &job) ||
      LOAD_FIELDS(rd, job, "job", job_fields, &r->job) ||
      get_child(rd, r->root, "", "meters", JSON_ARRAY, &meters) ||
      get_child(rd, r->root, "", "nodes", JSON_ARRAY, &nodes) ||
      get_child(rd, r->root, "", "regions", JSON_ARRAY, &regions) ||
      get_child(rd, r->root, "", "stats", JSON_OBJECT, &stats))
    return -1;

  r->nmeters = json_array_size(meters);
  r->meters = xcalloc(r->nmeters, sizeof *r->meters);
  r->channels = xcalloc(count_inner(meters, "channels"), sizeof *r->channels);
  if (LOAD_LIST(rd, meters, "meters", meter_fields, r->meters))
    return -1;
  for (size_t i = 0; i < r->nmeters; i++) {
    struct channel *ch = &r->channels[r->nchannels];
    if (get_inner(rd, meters, "meters", i, "channels", path, &arr) ||
        LOAD_LIST(rd, arr, path, channel_fields, ch))
      return -1;
    for (size_t j = 0; j < json_array_size(arr); j++)
      ch[j].meter = i;
    r->nchannels += json_array_size(arr);
  }

  r->nnodes = json_array_size(nodes);
  r->nodes = xcalloc(r->nnodes, sizeof *r->nodes);
  r->events = xcalloc(count_inner(nodes, "events"), sizeof *r->events);
  if (LOAD_LIST(rd, nodes, "nodes", node_fields, r->nodes))
    return -1;
  for (size_t i = 0; i < r->nnodes; i++) {
    struct event *ev = &r->events[r->nevents];
    if (get_inner(rd, nodes, "nodes", i, "events", path, &arr) ||
        LOAD_LIST(rd, arr, path, event_fields, ev))
      return -1;
    for (size_t j = 0; j < json_array_size(arr); j++)
      ev[j].node = r->nodes[i].name;
    r->nodes[i].nevents = (double)json_array_size(arr);
    r->nevents += json_array_size(arr);
    if (r->nodes[i].estimated > 0)
      r->estimated = 1; /* Say so even if the writer forgot to. */
  }

  r->nregions = json_array_size(regions);
  r->regions = xcalloc(r->nregions, sizeof *r->regions);
  if (LOAD_LIST(rd, regions, "regions", region_fields, r->regions))
    return -1;
  for (size_t i = 0; i < r->nregions; i++) {
    struct region *g = &r->regions[i];
    g->index = i;
    g->share = r->energy_j > 0 ? 100 * g->energy_j / r->energy_j : NAN;
  }

  for (size_t i = 0; i < 2; i++) {
    r->stats[i].label = stat_keys[i] + strlen("node_");
    snprintf(where, sizeof where, "stats.%s", stat_keys[i]);
    if (get_child(rd, stats, "stats", stat_keys[i], JSON_OBJECT, &s) ||
        LOAD_FIELDS(rd, s, where, stat_fields, &r->stats[i]))
      return -1;
  }
  return load_io(rd, r, nodes);
}

static void report_free(struct report *r) {
  json_decref(r->root);
  free(r->meters);
  free(r->channels);
  free(r->nodes);
  free(r->events);
  free(r->regions);
  free(r->io.files);
  memset(r, 0, sizeof *r);
}

/* Loads and checks the report at path ("-" is standard input; shown as
 * name) into *r, which the caller then releases with report_free().
 * Returns 0, or -1 after printing one error line; *r then holds nothing. */
static int report_open(const char *path, const char *name, struct report *r) {
  FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  struct reader rd = {{0}};
  json_error_t jerr;
  int err;

  memset(r, 0, sizeof *r);
  if (fp == NULL) {
    fail(&rd, "cannot open: %s", strerror(errno));
  } else {
    errno = 0;
    r->root = json_loadf(fp, 0, &jerr);
    err = ferror(fp) ? (errno ? errno : EIO) : 0;
    if (fp != stdin)
      fclose(fp);
    if (err)
      fail(&rd, "cannot read: %s", strerror(err));
    else if (r->root == NULL)
      fail(&rd, "invalid JSON at %d:%d: %s", jerr.line, jerr.column,
           jerr.text);
  }
  if (rd.err[0] || load_report(&rd, r)) {
    file_error(name, rd.err);
    report_free(r);
    return -1;
  }
  return 0;
}

/* ---- Tables, as text or CSV ------------------------------------------- */

/* A column shows one member of a row struct: a string (C_STR), a figure
 * (C_NUM) rounded to prec decimals in text and given in full in CSV, a
 * percentage (C_PCT), a number of bytes (C_MB) given in MB (10^6 bytes) in
 * text and in bytes in CSV, or an int boolean (C_BOOL, -1 when absent). */
enum cell { C_STR, C_NUM, C_PCT, C_MB, C_BOOL };

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
  COL("wall_s", "wall_s", struct node, wall_s, C_NUM, 3),
  COL("power_w", "power_w", struct node, power_w, C_NUM, 1),
  COL("covers", "covers", struct node, covers, C_STR, 0),
  COL("total_from", "total_from", struct node, total_from, C_STR, 0),
  COL("events", "events", struct node, nevents, C_NUM, 0),
};

static const struct column region_cols[] = {
  COL("region", "region", struct region, name, C_STR, 0),
  COL("count", "count", struct region, count, C_NUM, 0),
  COL("time_s", "time_s", struct region, time_s, C_NUM, 3),
  COL("energy_j", "energy_j", struct region, energy_j, C_NUM, 1),
  COL("power_w", "power_w", struct region, power_w, C_NUM, 1),
  COL("share", "share_pct", struct region, share, C_PCT, 1),
  COL(NULL, "coverage", struct region, coverage, C_NUM, 3),
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
  COL("power_w", "power_w", struct node, io.power_w, C_NUM, 1),
  COL(NULL, "gap_s", struct node, io.gap_s, C_NUM, 3),
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

static const struct column stat_cols[] = {
  COL("per node", "stat", struct nodestat, label, C_STR, 0),
  COL("min", "min", struct nodestat, min, C_NUM, 1),
  COL("max", "max", struct nodestat, max, C_NUM, 1),
  COL("mean", "mean", struct nodestat, mean, C_NUM, 1),
  COL("stddev", "stddev", struct nodestat, stddev, C_NUM, 1),
};

/* Returns the text of column c of row, written into buf or borrowed from
 * the report; NULL when the figure or string is null or absent. */
static const char *cell_text(const struct column *c, const void *row, int csv,
                             char buf[CELL_MAX]) {
  const char *p = (const char *)row + c->off;
  double v;

  if (c->cell == C_STR)
    return *(const char *const *)(const void *)p;
  if (c->cell == C_BOOL) {
    int b = *(const int *)(const void *)p;
    return b < 0 ? NULL : b ? "true" : "false";
  }
  v = *(const double *)(const void *)p;
  if (isnan(v))
    return NULL;
  if (c->cell == C_PCT)
    snprintf(buf, CELL_MAX, csv ? "%.*f" : "%.*f%%", csv ? 2 : c->prec, v);
  else if (csv)
    snprintf(buf, CELL_MAX, "%.15g", v);
  else if (c->cell == C_MB)
    snprintf(buf, CELL_MAX, "%.*f", c->prec, v / 1e6);
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

/* The number of characters of a UTF-8 string, for aligning columns. */
static size_t text_width(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* Prints s as one CSV field, quoted as RFC 4180 asks when it holds a
 * comma, a double quote or a line break; NULL is an empty field. */
static void csv_field(FILE *out, const char *s) {
  if (s == NULL || strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s ? s : "", out);
    return;
  }
  putc('"', out);
  for (; *s; s++) {
    if (*s == '"')
      putc('"', out);
    putc(*s, out);
  }
  putc('"', out);
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
      size_t w = text_width(s ? s : "-");
      width[c] = w > width[c] ? w : width[c];
    }
  }
  if (csv)
    fprintf(out, "# %s\n", csv_title);
  for (size_t r = 0; r <= nrows; r++) {
    for (size_t c = 0; c < ncols; c++) {
      const char *s = table_cell(&cols[c], rows, sz, r, csv, buf);
      int left = cols[c].cell == C_STR;
      int fill = csv ? 0 : (int)(width[c] - text_width(s ? s : "-"));
      if (csv) {
        fputs(c > 0 ? "," : "", out);
        csv_field(out, s);
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

/* Orders regions by energy, largest first, those without a figure last,
 * ties in file order. */
static int by_energy(const void *a, const void *b) {
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
static void print_scaled(FILE *out, double v, int decimals,
                         const char *unit) {
  static const char prefixes[] = "kMGTPE";
  double mag = v < 0 ? -v : v, scaled = v;
  size_t p = 0; /* How many prefixes up: 1 is k. */

  if (isnan(v)) {
    fputs("-", out);
    return;
  }
  fprintf(out, "%.*f %s", decimals, v, unit);
  while (mag >= 1000 && p < sizeof prefixes - 1) {
    mag /= 1000;
    scaled /= 1000;
    p++;
  }
  if (p > 0)
    fprintf(out, " (%.*f %c%s)", mag >= 100 ? 1 : mag >= 10 ? 2 : 3, scaled,
            prefixes[p - 1], unit);
}

/* Prints seconds, and hours, minutes and seconds when they help. */
static void print_duration(FILE *out, double s) {
  long long t = isnan(s) ? 0 : (long long)(s + 0.5);
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
      fprintf(out, "%s'%s'", named++ ? ", " : " (meter ", id);
  }
  fputs(named ? "), not measured\n" : ", not measured\n", out);
}

/* Prints "meter:  SPEC (KIND, every N s): CHANNEL (total), CHANNEL". */
static void print_meter(FILE *out, const struct report *r, size_t i) {
  const struct meter *m = &r->meters[i];
  const char *id = m->spec ? m->spec : m->driver;
  size_t n = 0;

  fprintf(out, "%-12s%s", "meter:", id ? id : "-");
  if (m->kind || !isnan(m->interval_s)) {
    fprintf(out, " (%s", m->kind ? m->kind : "");
    if (!isnan(m->interval_s))
      fprintf(out, "%severy %g s", m->kind ? ", " : "", m->interval_s);
    putc(')', out);
  }
  for (size_t c = 0; c < r->nchannels; c++) {
    const struct channel *ch = &r->channels[c];
    if (ch->meter == i)
      fprintf(out, "%s%s%s", n++ ? ", " : ": ", ch->name ? ch->name : "-",
              ch->total > 0 ? " (total)" : "");
  }
  putc('\n', out);
}

static void print_summary(FILE *out, const struct report *r) {
  char buf[CELL_MAX];

  fprintf(out, "%-12s%s", "job:", r->job.id ? r->job.id : "-");
  fprintf(out, r->job.id_source ? " (%s)\n" : "%s\n",
          r->job.id_source ? r->job.id_source : "");
  print_line(out, "ranks:", count_text(buf, r->job.ranks),
             r->job.mpi == 0 ? " (without MPI)" : "");
  print_line(out, "nodes:", count_text(buf, r->job.nodes), "");
  print_line(out, "start:", r->job.start, "");
  print_line(out, "end:", r->job.end, "");
  fprintf(out, "%-12s", "wall time:");
  print_duration(out, r->job.wall_s);
  fprintf(out, "\n%-12s", "energy:");
  print_scaled(out, r->energy_j, 1, "J");
  fprintf(out, "\n%-12s", "power:");
  print_scaled(out, r->power_w, 1, "W");
  fputs(isnan(r->power_w) ? "\n" : " average\n", out);
  if (r->covers != NULL)
    fprintf(out, "%-12s%s%s\n", "covers:", r->covers,
            strcmp(r->covers, "node") == 0 ? " (whole nodes)"
                                           : " only, not the whole nodes");
  if (r->estimated > 0)
    print_estimated(out, r);
  if (r->job.region_names_folded > 0)
    fprintf(out, "%-12s%.0f names beyond %.0f per process (PMON_MAX_REGIONS) "
                 "counted as \"(other)\"\n",
            "regions:", r->job.region_names_folded,
            r->job.region_names_limit);
  for (size_t i = 0; i < r->nmeters; i++)
    print_meter(out, r, i);
  fprintf(out, "%-12sversion %lld, written by pmon %s\n\n", "format:",
          r->version, r->pmon_version ? r->pmon_version : "-");
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
  print_scaled(out, io->energy_j, 1, "J");
  fputs(io->estimated > 0 && !isnan(io->energy_j) ? " ESTIMATED" : "", out);
  if (io->nodes_without_energy > 0)
    fprintf(out, ", %.0f node%s without a figure", io->nodes_without_energy,
            io->nodes_without_energy == 1 ? "" : "s");
  fprintf(out, "\n%-12s", "io power:");
  print_scaled(out, io->power_w, 1, "W");
  fputs(isnan(io->power_w) ? "\n" : " during the phases\n", out);
  fprintf(out, "%-12s%s MB/s, %s MB/s/W\n", "io rate:",
          OR_DASH(ratio_text(a, io->mb_per_s)),
          OR_DASH(ratio_text(b, io->mb_per_s_per_w)));
  fprintf(out, "%-12s%s MB/J, %s J/B\n", "io cost:",
          OR_DASH(ratio_text(a, io->mb_per_j)),
          OR_DASH(ratio_text(b, io->j_per_byte)));
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
}

/* Why r has no MPI-IO figures: the job did not use MPI, or (nearly always
 * otherwise) its ranks ran without the library that records the calls. */
static const char *no_io_reason(const struct report *r) {
  return r->job.mpi == 0
             ? "the job did not use MPI"
             : "the job ran without libpmon-mpiio.so, which records them";
}

/* Prints, in place of the I/O section, that r has none and why.  Said only
 * when --section asked for io: a report without I/O is common, and the
 * full output need not say so. */
static void print_no_io(FILE *out, const struct report *r) {
  fprintf(out, "%-12s%s\n", "io:", "no MPI-IO calls recorded");
  fprintf(out, "note: %s", no_io_reason(r));
  fputs(r->job.mpi == 0 ? "\n"
                        : ": run it\nunder pmon-run(1) or with "
                          "LD_PRELOAD=libpmon-mpiio.so (pmon-mpiio(7))\n",
        out);
}

/* Prints the selected sections of r as text, a blank line between them.
 * The estimate note is printed even when the summary is not; ASKED holds
 * the sections that --section named. */
static void print_text(FILE *out, const struct report *r, unsigned sections,
                       unsigned asked) {
  const char *gap = "";

  if (r->estimated > 0 && !(sections & SEC_SUMMARY)) {
    print_estimated(out, r);
    gap = "\n";
  }
  if (sections & SEC_SUMMARY) {
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
  if (sections & SEC_REGIONS) {
    struct region *sorted = xcalloc(r->nregions, sizeof *sorted);
    if (r->nregions > 0)
      memcpy(sorted, r->regions, r->nregions * sizeof *sorted);
    qsort(sorted, r->nregions, sizeof *sorted, by_energy);
    fputs(gap, out);
    TEXT_TABLE(out, region_cols, sorted, r->nregions);
    for (size_t i = 0; i < r->nregions; i++)
      if (sorted[i].unclosed > 0)
        fprintf(out, "note: region '%s' was still open at finalize %.0f "
                "time(s) and was closed there\n",
                sorted[i].name ? sorted[i].name : "-", sorted[i].unclosed);
    for (size_t i = 0; i < r->nregions; i++)
      if (sorted[i].coverage < 0.995) /* false for NAN */
        fprintf(out, "note: region '%s' was measured over %.0f%% of its "
                "time: its energy covers that share only\n",
                sorted[i].name ? sorted[i].name : "-",
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
  }
}

/* Prints the nodes, regions (in file order), events and, when the report
 * has I/O figures, io, io_nodes and io_files blocks that sections selects;
 * the summary has no CSV form. */
static void print_csv(FILE *out, const struct report *r, unsigned sections) {
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
  }
}

/* ---- JSON output ------------------------------------------------------- */

/* The fewest significant digits, 15 to 17, that print d back exactly. */
static int digits_needed(double d) {
  char buf[40];
  for (int p = 15; p < 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, d);
    if (strtod(buf, NULL) == d)
      return p;
  }
  return 17;
}

/* The fewest digits that print every real number in v back exactly, so
 * that --json changes no value yet shows 612.4, not 612.39999999999998,
 * when the writer used 15 digits or fewer. */
static int real_precision(json_t *v) {
  int p = json_is_real(v) ? digits_needed(json_real_value(v)) : 15, q;
  const char *key;
  json_t *e;
  size_t i;

  if (json_is_array(v)) {
    json_array_foreach(v, i, e) {
      q = real_precision(e);
      p = q > p ? q : p;
    }
  } else if (json_is_object(v)) {
    json_object_foreach(v, key, e) {
      q = real_precision(e);
      p = q > p ? q : p;
    }
  }
  return p;
}

/* Prints r's document with two-space indentation, keys in file order. */
static int print_json(FILE *out, const struct report *r, const char *name) {
  size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                 JSON_REAL_PRECISION(real_precision(r->root));
  char *s = json_dumps(r->root, flags);
  if (s == NULL) {
    file_error(name, "cannot print JSON: out of memory");
    return -1;
  }
  fprintf(out, "%s\n", s);
  free(s);
  return 0;
}

/* ---- Command line ------------------------------------------------------ */

static void usage(FILE *out) {
  fputs("Usage: " PROG " [OPTION]... FILE...\n"
        "Print the energy reports FILE... that pmon jobs wrote, as text\n"
        "tables, CSV or JSON.  A FILE of - is standard input.\n"
        "\n"
        "  -c, --csv            print CSV tables: nodes, regions, events,\n"
        "                       io, io_nodes, io_files\n"
        "  -j, --json           print each report as indented JSON\n"
        "  -s, --section=LIST   print only the sections in LIST, a comma-\n"
        "                       separated list of summary, nodes, regions,\n"
        "                       events, io (default: all)\n"
        "  -h, --help           print this help and exit\n"
        "  -V, --version        print the version and exit\n"
        "\n"
        "Exit status: 0 when every FILE was read, 1 when one was not,\n"
        "2 on a usage error.  See pmon-report(1) and pmon-report(5).\n",
        out);
}

/* Prints a usage error and returns the usage exit status, 2. */
PRINTF_LIKE(1, 2)
static int usage_error(const char *fmt, ...) {
  va_list ap;
  fputs(PROG ": ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry '" PROG " --help' for more information.\n", stderr);
  return 2;
}

/* Parses LIST, a comma-separated list of section names, into *out.
 * Returns 0, or the usage exit status. */
static int parse_sections(const char *list, unsigned *out) {
  const char *p = list;
  *out = 0;
  for (;;) {
    size_t len = strcspn(p, ","), i = 0;
    while (i < COUNT_OF(section_names) &&
           (strlen(section_names[i]) != len ||
            strncmp(section_names[i], p, len) != 0))
      i++;
    if (i == COUNT_OF(section_names))
      return usage_error("--section: unknown section '%.*s' (choose from "
                         "summary, nodes, regions, events, io)", (int)len, p);
    *out |= 1u << i;
    if (p[len] == '\0')
      return 0;
    p += len + 1;
  }
}

/* Parses argv into *opt.  Returns -1 to go on with the files from optind,
 * or the exit status to end with now. */
static int parse_args(int argc, char **argv, struct options *opt) {
  static const struct option longopts[] = {
    {"csv", no_argument, NULL, 'c'},
    {"json", no_argument, NULL, 'j'},
    {"section", required_argument, NULL, 's'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
  };
  int c, csv = 0, json = 0;

  opterr = 0; /* Our messages name the program, not argv[0]. */
  while ((c = getopt_long(argc, argv, ":cjs:hV", longopts, NULL)) != -1) {
    switch (c) {
    case 'c': csv = 1; break;
    case 'j': json = 1; break;
    case 's':
      if (parse_sections(optarg, &opt->sections))
        return 2;
      opt->asked = opt->sections;
      break;
    case 'h': usage(stdout); return 0;
    case 'V':
      printf(PROG " (pmon) %s\nreads report format versions 1 to %d\n",
             PACKAGE_VERSION, FORMAT_VERSION);
      return 0;
    case ':':
      return usage_error("%s: option needs an argument", argv[optind - 1]);
    default:
      if (optopt == 0 || strncmp(argv[optind - 1], "--", 2) == 0)
        return usage_error("%s: invalid option", argv[optind - 1]);
      return usage_error("-%c: invalid option", optopt);
    }
  }
  if (csv && json)
    return usage_error("--csv and --json: choose one output format");
  opt->output = csv ? OUT_CSV : json ? OUT_JSON : OUT_TEXT;
  if (optind == argc)
    return usage_error("no report file given");
  return -1;
}

int main(int argc, char **argv) {
  struct options opt = {OUT_TEXT, SEC_ALL, 0};
  int status = parse_args(argc, argv, &opt), many;
  size_t shown = 0;

  if (status >= 0)
    return status;
  status = 0;
  many = argc - optind > 1;
  for (int i = optind; i < argc; i++) {
    const char *name = strcmp(argv[i], "-") ? argv[i] : "(standard input)";
    struct report r;
    if (report_open(argv[i], name, &r)) {
      status = 1;
      continue;
    }
    if (many && opt.output == OUT_TEXT)
      printf("%s== %s ==\n", shown ? "\n" : "", name);
    else if (many && opt.output == OUT_CSV)
      printf("# file %s\n", name);
    if (opt.output == OUT_JSON)
      status |= print_json(stdout, &r, name) ? 1 : 0;
    else if (opt.output == OUT_CSV) {
      print_csv(stdout, &r, opt.sections);
      /* The tables stay machine-readable; the reason goes beside them. */
      if ((opt.asked & SEC_IO) && !r.has_io)
        fprintf(stderr, PROG ": %s: no MPI-IO calls recorded: %s%s\n", name,
                no_io_reason(&r),
                r.job.mpi == 0 ? "" : " (pmon-run(1), pmon-mpiio(7))");
    } else
      print_text(stdout, &r, opt.sections, opt.asked);
    shown++;
    report_free(&r);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROG ": standard output: write error: %s\n",
            strerror(errno));
    return 1;
  }
  return status;
}

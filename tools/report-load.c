/*
 * report-load.c - reading and checking a pmon report for pmon-report(1).
 *
 * A report is loaded with jansson and checked completely, key by key
 * against tables of the scalar keys each record has, before anything is
 * printed for it: a bad file gives exactly one message that names the key
 * and what was wrong with it, "bad report: nodes[1].energy_j: expected a
 * number or null, found a string".  A key that is absent reads as null.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "report.h"
#include "tty.h"

/* Where a check failed: "<what>: <why>", filled by the failing check. */
struct reader {
  char err[320];
};

void *report_xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz);
  if (p == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return p;
}

double report_sd(const double *v, size_t n) {
  double m = 0, q = 0;

  if (n < 2)
    return NAN;
  for (size_t i = 0; i < n; i++)
    m += v[i] / (double)n;
  for (size_t i = 0; i < n; i++)
    q += (v[i] - m) * (v[i] - m);
  return sqrt(q / (double)(n - 1));
}

/* The copies report_tty() made, until report_tty_release(). */
static struct {
  char **v;
  size_t n, cap;
} ttys;

const char *report_tty(const char *s) {
  char *d;

  if (s == NULL || pmon__tty_safe(s))
    return s;
  if (ttys.n == ttys.cap) {
    ttys.cap = ttys.cap ? 2 * ttys.cap : 16;
    ttys.v = realloc(ttys.v, ttys.cap * sizeof *ttys.v);
  }
  if (ttys.v == NULL || (d = pmon__tty_dup(s)) == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    exit(1);
  }
  return ttys.v[ttys.n++] = d;
}

void report_tty_release(void) {
  for (size_t i = 0; i < ttys.n; i++)
    free(ttys.v[i]);
  free(ttys.v);
  memset(&ttys, 0, sizeof ttys);
}

/* "WHO: " and the line FMT makes, escaped for a terminal, on stderr. */
static void say(const char *who, const char *fmt, va_list ap) {
  char small[512], *line = small, *tty;
  va_list again;
  int n;

  va_copy(again, ap);
  if ((n = vsnprintf(small, sizeof small, fmt, ap)) < 0)
    small[0] = '\0';
  if (n >= (int)sizeof small && (line = malloc((size_t)n + 1)) != NULL)
    vsnprintf(line, (size_t)n + 1, fmt, again);
  va_end(again);
  tty = pmon__tty_dup(line ? line : small);
  fflush(stdout);
  fprintf(stderr, "%s: %s\n", who, tty ? tty : "(out of memory)");
  free(tty);
  if (line != small)
    free(line);
}

int report_say(int status, const char *who, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(who, fmt, ap);
  va_end(ap);
  return status;
}

void report_file_error(const char *name, const char *msg) {
  report_say(0, PROG, "%s: %s", name, msg);
}

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
  FIELD(struct report, energy_err_j, K_NUM),
  FIELD(struct report, power_w, K_NUM),
  FIELD(struct report, estimated, K_BOOL),
  FIELD(struct report, complete, K_BOOL),
  FIELD(struct report, covers, K_STR),
};

static const struct field job_fields[] = {
  FIELD(struct job, id, K_STR),         FIELD(struct job, id_source, K_STR),
  FIELD(struct job, ranks, K_COUNT),    FIELD(struct job, nodes, K_COUNT),
  FIELD(struct job, wall_s, K_NUM),     FIELD(struct job, start, K_STR),
  FIELD(struct job, end, K_STR),        FIELD(struct job, mpi, K_BOOL),
  FIELD(struct job, label, K_STR),
  FIELD(struct job, region_names_limit, K_COUNT),
  FIELD(struct job, region_names_folded, K_COUNT),
  FIELD(struct job, cpu_freq_req, K_STR),
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
  FIELD(struct node, energy_err_j, K_NUM),
  FIELD(struct node, power_w, K_NUM),   FIELD(struct node, estimated, K_BOOL),
  FIELD(struct node, total_from, K_STR), FIELD(struct node, covers, K_STR),
  FIELD(struct node, total_how, K_STR),
  FIELD(struct node, energy_coverage, K_NUM),
  FIELD(struct node, cpu_freq_why, K_STR),
  FIELD(struct node, clock_calibration, K_STR),
  FIELD(struct node, node_energy_j, K_NUM),
  FIELD(struct node, node_energy_err_j, K_NUM),
  FIELD(struct node, share, K_NUM),
};

static const struct field cpufreq_fields[] = {
  FIELD(struct cpufreq, mean_mhz, K_NUM), FIELD(struct cpufreq, min_mhz, K_NUM),
  FIELD(struct cpufreq, max_mhz, K_NUM), FIELD(struct cpufreq, cpus, K_COUNT),
  FIELD(struct cpufreq, governor, K_STR),
};

static const struct field sharing_fields[] = {
  FIELD(struct sharing, span_s, K_NUM),
  FIELD(struct sharing, job_cpu_s, K_NUM),
  FIELD(struct sharing, node_cpu_s, K_NUM),
  FIELD(struct sharing, others_cpu_s, K_NUM),
  FIELD(struct sharing, job_cpus, K_COUNT),
  FIELD(struct sharing, node_cpus, K_COUNT),
  FIELD(struct sharing, source, K_STR),
  FIELD(struct sharing, cpus_from, K_STR),
  FIELD(struct sharing, share, K_NUM),
  FIELD(struct sharing, share_err, K_NUM),
  FIELD(struct sharing, share_model, K_STR),
  FIELD(struct sharing, shared, K_BOOL),
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
  FIELD(struct region, energy_err_j, K_NUM),
  FIELD(struct region, energy_method, K_STR),
};

static const struct field iofreq_fields[] = {
  FIELD(struct iofreq, requested_mhz, K_NUM),
  FIELD(struct iofreq, switches, K_COUNT),
  FIELD(struct iofreq, capped_s, K_NUM),
  FIELD(struct iofreq, cpus, K_COUNT),
  FIELD(struct iofreq, uncapped_phases, K_COUNT),
};

static const struct field io_fields[] = {
  FIELD(struct io, gap_s, K_NUM),       FIELD(struct io, bytes_read, K_COUNT),
  FIELD(struct io, bytes_written, K_COUNT),
  FIELD(struct io, reads, K_COUNT),     FIELD(struct io, writes, K_COUNT),
  FIELD(struct io, meta_ops, K_COUNT),  FIELD(struct io, ops, K_COUNT),
  FIELD(struct io, errors, K_COUNT),    FIELD(struct io, time_s, K_NUM),
  FIELD(struct io, phases, K_COUNT),    FIELD(struct io, phase_time_s, K_NUM),
  FIELD(struct io, energy_j, K_NUM),    FIELD(struct io, power_w, K_NUM),
  FIELD(struct io, energy_err_j, K_NUM),
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

static const struct field iosize_fields[] = {
  FIELD(struct iosize, op, K_STR),
  FIELD(struct iosize, size_min, K_COUNT),
  FIELD(struct iosize, size_max, K_COUNT),
  FIELD(struct iosize, calls, K_COUNT), FIELD(struct iosize, bytes, K_COUNT),
  FIELD(struct iosize, time_s, K_NUM),  FIELD(struct iosize, energy_j, K_NUM),
  FIELD(struct iosize, mb_per_j, K_NUM),
  FIELD(struct iosize, energy_err_j, K_NUM),
  FIELD(struct iosize, call_sd_s, K_NUM),
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
  FIELD(struct nodeio, energy_err_j, K_NUM),
  FIELD(struct nodeio, power_w, K_NUM), FIELD(struct nodeio, gap_s, K_NUM),
};

static const struct field comm_fields[] = {
  FIELD(struct comm, calls, K_COUNT),   FIELD(struct comm, bytes, K_COUNT),
  FIELD(struct comm, time_s, K_NUM),    FIELD(struct comm, energy_j, K_NUM),
  FIELD(struct comm, energy_err_j, K_NUM),
  FIELD(struct comm, s_per_byte, K_NUM),
  FIELD(struct comm, j_per_byte, K_NUM),
  FIELD(struct comm, estimated, K_BOOL),
  FIELD(struct comm, nodes_without_energy, K_COUNT),
};

static const struct field commrow_fields[] = {
  FIELD(struct commrow, call, K_STR),
  FIELD(struct commrow, size_min, K_COUNT),
  FIELD(struct commrow, size_max, K_COUNT),
  FIELD(struct commrow, calls, K_COUNT),
  FIELD(struct commrow, bytes, K_COUNT),
  FIELD(struct commrow, time_s, K_NUM),
  FIELD(struct commrow, energy_j, K_NUM),
  FIELD(struct commrow, energy_err_j, K_NUM),
  FIELD(struct commrow, call_sd_s, K_NUM),
  FIELD(struct commrow, s_per_byte, K_NUM),
  FIELD(struct commrow, j_per_byte, K_NUM),
};

static const struct field timeline_fields[] = {
  FIELD(struct timeline, dt_s, K_NUM),
  FIELD(struct timeline, regions_omitted, K_COUNT),
};

static const struct field between_fields[] = {
  FIELD(struct tlphase, start_s, K_NUM), FIELD(struct tlphase, end_s, K_NUM),
  FIELD(struct tlphase, bytes, K_COUNT),
};

static const struct field tlregion_fields[] = {
  FIELD(struct tlregion, name, K_STR),  FIELD(struct tlregion, rank, K_COUNT),
  FIELD(struct tlregion, count, K_COUNT),
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

void report_size_text(char *buf, size_t size, double n) {
  static const char *const prefix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  size_t k = 0;
  while (n >= 1024 && k + 1 < COUNT_OF(prefix)) {
    n /= 1024;
    k++;
  }
  snprintf(buf, size, "%.0f%s", n, prefix[k]);
}

/* The size bin [lo, hi] as text into buf, "[64Ki,128Ki)" (from lo up
 * to, not including, hi + 1: each edge in one bin), or "0" for a bin of
 * one size; -1 after recording why when it is not a bin (where[i] is its
 * path). */
static int bin_text(struct reader *rd, const char *where, size_t i, double lo,
                    double hi, char *buf, size_t size) {
  char a[12], b[12];
  if (isnan(lo) || isnan(hi) || lo > hi)
    return fail(rd, "bad report: %s[%zu]: size_min is missing or above "
                "size_max", where, i);
  report_size_text(a, sizeof a, lo);
  report_size_text(b, sizeof b, hi + 1);
  if (hi <= lo)
    snprintf(buf, size, "%s", a);
  else
    snprintf(buf, size, "[%s,%s)", a, b);
  return 0;
}

/* Node i's io record. */
static int load_node_io(struct reader *rd, struct report *r, json_t *nodes,
                        size_t i) {
  char where[48], path[48], fpath[64];
  json_t *nio, *freq;

  snprintf(where, sizeof where, "nodes[%zu]", i);
  snprintf(path, sizeof path, "nodes[%zu].io", i);
  snprintf(fpath, sizeof fpath, "nodes[%zu].io.freq_policy", i);
  if (get_child(rd, json_array_get(nodes, i), where, "io", JSON_OBJECT,
                &nio) ||
      LOAD_FIELDS(rd, nio, path, nodeio_fields, &r->nodes[i].io) ||
      get_child(rd, nio, path, "freq_policy", JSON_OBJECT, &freq) ||
      LOAD_FIELDS(rd, freq, fpath, iofreq_fields, &r->nodes[i].io.freq_policy))
    return -1;
  r->has_io |= nio != NULL;
  return 0;
}

/* Checks the MPI-IO figures, the top-level "io" key and the "io" key of each
 * node, and fills r->io and the io of r->nodes.  Either may be absent or
 * null (an older report, or a job without interception): its figures are
 * then NAN, and r->has_io stays 0 when all of them are. */
static int load_io(struct reader *rd, struct report *r, json_t *nodes) {
  json_t *io, *files, *sizes, *freq;

  if (get_child(rd, r->root, "", "io", JSON_OBJECT, &io) ||
      LOAD_FIELDS(rd, io, "io", io_fields, &r->io) ||
      get_child(rd, io, "io", "files", JSON_ARRAY, &files) ||
      get_child(rd, io, "io", "sizes", JSON_ARRAY, &sizes) ||
      get_child(rd, io, "io", "freq_policy", JSON_OBJECT, &freq) ||
      LOAD_FIELDS(rd, freq, "io.freq_policy", iofreq_fields,
                  &r->io.freq_policy))
    return -1;
  r->has_io = io != NULL;
  r->io.nfiles = json_array_size(files);
  r->io.files = report_xcalloc(r->io.nfiles, sizeof *r->io.files);
  if (LOAD_LIST(rd, files, "io.files", iofile_fields, r->io.files))
    return -1;
  r->io.nsizes = json_array_size(sizes);
  r->io.sizes = report_xcalloc(r->io.nsizes, sizeof *r->io.sizes);
  if (LOAD_LIST(rd, sizes, "io.sizes", iosize_fields, r->io.sizes))
    return -1;
  for (size_t i = 0; i < r->io.nsizes; i++) {
    struct iosize *z = &r->io.sizes[i];
    if (bin_text(rd, "io.sizes", i, z->size_min, z->size_max, z->size_buf,
                 sizeof z->size_buf))
      return -1;
    z->size = z->size_buf;
  }
  for (size_t i = 0; i < r->nnodes; i++)
    if (load_node_io(rd, r, nodes, i))
      return -1;
  return 0;
}

/* Checks a comm object (where is its path) and its calls_by, into *c,
 * whose rows the caller frees.  Absent or null: c stays as it is. */
static int load_comm_at(struct reader *rd, json_t *obj, const char *where,
                        const char *key, struct comm *c, int *has) {
  char path[64];
  json_t *comm, *rows;

  snprintf(path, sizeof path, "%s%s%s", where, *where ? "." : "", key);
  if (get_child(rd, obj, where, key, JSON_OBJECT, &comm) ||
      LOAD_FIELDS(rd, comm, path, comm_fields, c) ||
      get_child(rd, comm, path, "calls_by", JSON_ARRAY, &rows))
    return -1;
  *has = comm != NULL;
  c->nrows = json_array_size(rows);
  c->rows = report_xcalloc(c->nrows, sizeof *c->rows);
  strncat(path, ".calls_by", sizeof path - strlen(path) - 1);
  if (LOAD_LIST(rd, rows, path, commrow_fields, c->rows))
    return -1;
  for (size_t i = 0; i < c->nrows; i++) {
    struct commrow *w = &c->rows[i];
    if (bin_text(rd, path, i, w->size_min, w->size_max, w->size_buf,
                 sizeof w->size_buf))
      return -1;
    w->size = w->size_buf;
  }
  return 0;
}

/* The job's communication calls into r->comm, and each node's checked. */
static int load_comm(struct reader *rd, struct report *r, json_t *nodes) {
  char where[32];
  int has;

  if (load_comm_at(rd, r->root, "", "comm", &r->comm, &r->has_comm))
    return -1;
  for (size_t i = 0; i < json_array_size(nodes); i++) {
    struct comm c;
    int rc;
    memset(&c, 0, sizeof c);
    snprintf(where, sizeof where, "nodes[%zu]", i);
    rc = load_comm_at(rd, json_array_get(nodes, i), where, "comm", &c, &has);
    free(c.rows);
    if (rc)
      return -1;
  }
  return 0;
}

/* ---- Timelines (format 3) ---------------------------------------------- */

/* Stores in out[i] the n elements of the array key of tl (a number, or NAN
 * for null); all NAN when the array is absent.  where is tl's path. */
static int load_slices(struct reader *rd, json_t *tl, const char *where,
                       const char *key, size_t n, double *out) {
  char path[96];
  json_t *arr, *v;

  if (get_child(rd, tl, where, key, JSON_ARRAY, &arr))
    return -1;
  snprintf(path, sizeof path, "%s.%s", where, key);
  if (arr != NULL && json_array_size(arr) != n)
    return fail(rd, "bad report: %s: expected %zu elements (slices), found "
                "%zu", path, n, json_array_size(arr));
  for (size_t i = 0; i < n; i++) {
    v = json_array_get(arr, i); /* NULL when arr is */
    if (v != NULL && !json_is_null(v) && !json_is_number(v)) {
      snprintf(path, sizeof path, "%s.%s[%zu]", where, key, i);
      return wrong(rd, path, "", "a number or null", v);
    }
    out[i] = json_is_number(v) ? json_number_value(v) : NAN;
  }
  return 0;
}

/* Stores into out the [begin_s, end_s] pair at key of obj (whose path is
 * where): two numbers, or NAN twice when it is null or absent. */
static int load_span(struct reader *rd, json_t *obj, const char *where,
                     const char *key, double out[2]) {
  json_t *a = lookup(obj, key), *b, *e;

  out[0] = out[1] = NAN;
  if (a == NULL)
    return 0;
  b = json_array_get(a, 0);
  e = json_array_get(a, 1);
  if (!json_is_array(a) || json_array_size(a) != 2 || !json_is_number(b) ||
      !json_is_number(e))
    return wrong(rd, where, key, "[begin_s, end_s]", a);
  out[0] = json_number_value(b);
  out[1] = json_number_value(e);
  return 0;
}

/* Checks the I/O phases of timeline tl (whose path is where) and stores
 * them into t. */
static int load_phases(struct reader *rd, json_t *tl, const char *where,
                       struct timeline *t) {
  char path[96];
  json_t *arr, *ph, *between;

  if (get_child(rd, tl, where, "io_phases", JSON_ARRAY, &arr) ||
      get_child(rd, tl, where, "io_phases_between", JSON_OBJECT, &between))
    return -1;
  t->nphases = json_array_size(arr);
  t->phases = report_xcalloc(t->nphases, sizeof *t->phases);
  for (size_t i = 0; i < t->nphases; i++) {
    json_t *a, *b, *n;
    ph = json_array_get(arr, i);
    a = json_array_get(ph, 0);
    b = json_array_get(ph, 1);
    n = json_array_get(ph, 2);
    snprintf(path, sizeof path, "%s.io_phases[%zu]", where, i);
    if (!json_is_array(ph) || json_array_size(ph) != 3 ||
        !json_is_number(a) || !json_is_number(b) ||
        !(json_is_null(n) ||
          (json_is_integer(n) && json_integer_value(n) >= 0)))
      return wrong(rd, path, "", "[start_s, end_s, bytes]", ph);
    t->phases[i].start_s = json_number_value(a);
    t->phases[i].end_s = json_number_value(b);
    t->phases[i].bytes = json_is_null(n) ? NAN : json_number_value(n);
  }
  snprintf(path, sizeof path, "%s.io_phases_between", where);
  t->between_count = NAN;
  if (LOAD_FIELDS(rd, between, path, between_fields, &t->between))
    return -1;
  if (between != NULL) {
    json_t *c = lookup(between, "count");
    if (!json_is_integer(c) || json_integer_value(c) < 0)
      return wrong(rd, path, "count", "a non-negative integer", c);
    t->between_count = json_number_value(c);
  }
  return 0;
}

/* Checks the region spans of timeline tl (whose path is where) and stores
 * them into t. */
static int load_spans(struct reader *rd, json_t *tl, const char *where,
                      struct timeline *t) {
  char path[96], item[128];
  json_t *arr;

  if (get_child(rd, tl, where, "regions", JSON_ARRAY, &arr))
    return -1;
  snprintf(path, sizeof path, "%s.regions", where);
  t->nregions = json_array_size(arr);
  t->regions = report_xcalloc(t->nregions, sizeof *t->regions);
  if (LOAD_LIST(rd, arr, path, tlregion_fields, t->regions))
    return -1;
  for (size_t i = 0; i < t->nregions; i++) {
    json_t *o = json_array_get(arr, i);
    snprintf(item, sizeof item, "%s[%zu]", path, i);
    if (load_span(rd, o, item, "first", t->regions[i].first) ||
        load_span(rd, o, item, "last", t->regions[i].last))
      return -1;
  }
  return 0;
}

/* The width of a slice of t to draw with: dt_s as written or, when it is
 * null, the distance of the first two starts, or the node's wall time
 * over the slices. */
static double slice_step(const struct timeline *t, double wall_s) {
  if (t->dt_s > 0)
    return t->dt_s;
  if (t->n > 1 && t->t_s[1] > t->t_s[0])
    return t->t_s[1] - t->t_s[0];
  if (t->n > 0 && wall_s > 0)
    return wall_s / (double)t->n;
  return NAN;
}

/* Checks nodes[i].timeline and fills r->nodes[i].tl.  A timeline that is
 * null or absent (format 1 and 2, PMON_TIMELINE=0) is not an error. */
static int load_timeline(struct reader *rd, struct report *r, json_t *nodes,
                         size_t i) {
  struct timeline *t = &r->nodes[i].tl;
  char where[64];
  json_t *tl, *v;

  snprintf(where, sizeof where, "nodes[%zu]", i);
  if (get_child(rd, json_array_get(nodes, i), where, "timeline", JSON_OBJECT,
                &tl))
    return -1;
  t->dt_s = t->step_s = t->between_count = t->regions_omitted = NAN;
  if (tl == NULL)
    return 0;
  snprintf(where, sizeof where, "nodes[%zu].timeline", i);
  t->present = 1;
  if (LOAD_FIELDS(rd, tl, where, timeline_fields, t))
    return -1;
  /* The slices are as many as t_s has; "slices" must agree. */
  if ((v = lookup(tl, "slices")) != NULL &&
      (!json_is_integer(v) || json_integer_value(v) < 0))
    return wrong(rd, where, "slices", "a non-negative integer", v);
  if (get_child(rd, tl, where, "t_s", JSON_ARRAY, &v))
    return -1;
  t->n = json_array_size(v);
  if ((v = lookup(tl, "slices")) != NULL &&
      (json_int_t)t->n != json_integer_value(v))
    return fail(rd, "bad report: %s.t_s: expected %" JSON_INTEGER_FORMAT
                " elements (slices), found %zu", where,
                json_integer_value(v), t->n);
  t->t_s = report_xcalloc(6 * t->n, sizeof *t->t_s);
  t->power_w = t->t_s + t->n;
  t->energy_j = t->power_w + t->n;
  t->cpu_util = t->energy_j + t->n;
  t->cpu_mhz = t->cpu_util + t->n;
  t->energy_err_j = t->cpu_mhz + t->n;
  if (load_slices(rd, tl, where, "t_s", t->n, t->t_s) ||
      load_slices(rd, tl, where, "power_w", t->n, t->power_w) ||
      load_slices(rd, tl, where, "energy_j", t->n, t->energy_j) ||
      load_slices(rd, tl, where, "cpu_util", t->n, t->cpu_util) ||
      load_slices(rd, tl, where, "cpu_mhz", t->n, t->cpu_mhz) ||
      load_slices(rd, tl, where, "energy_err_j", t->n, t->energy_err_j) ||
      load_phases(rd, tl, where, t) || load_spans(rd, tl, where, t))
    return -1;
  t->step_s = slice_step(t, r->nodes[i].wall_s);
  r->timelines += t->n > 0;
  return 0;
}

const char *report_no_timeline(const struct report *r, const struct node *n,
                               char buf[96]) {
  if (n == NULL && r->timelines > 0)
    return NULL;
  if (n == NULL && r->nnodes == 0)
    return "missing (the report has no nodes)";
  if (n == NULL) /* Say why for the first node: nearly always all agree. */
    n = &r->nodes[0];
  if (n->tl.n > 0)
    return NULL;
  if (n->tl.present)
    return "empty (the node measured nothing)";
  if (r->version < 3) {
    snprintf(buf, 96, "missing (report format %lld, written before "
             "timelines)", r->version);
    return buf;
  }
  return "missing (the job ran with PMON_TIMELINE=0)";
}

/* Checks job.tags, an object whose values are strings (absent or null in
 * reports written before it), and stores it in r->job.tags. */
static int load_tags(struct reader *rd, struct report *r, json_t *job) {
  const char *key;
  json_t *v;

  if (get_child(rd, job, "job", "tags", JSON_OBJECT, &r->job.tags))
    return -1;
  json_object_foreach(r->job.tags, key, v) {
    if (json_is_string(v))
      continue;
    /* A key is named unless it would break the message's one line. */
    for (const char *p = key; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7F)
        return wrong(rd, "job", "tags", "an object of strings", v);
    return wrong(rd, "job.tags", key, "a string", v);
  }
  return 0;
}

const char *report_tag(const struct report *r, const char *key) {
  return json_string_value(json_object_get(r->job.tags, key));
}

/* Node i's events (into r->events, which has room) and timeline; its
 * scalar keys were loaded with the list of nodes. */
static int load_node(struct reader *rd, struct report *r, json_t *nodes,
                     size_t i) {
  struct event *ev = &r->events[r->nevents];
  char path[96], where[48];
  json_t *arr, *cf;

  snprintf(where, sizeof where, "nodes[%zu]", i);
  snprintf(path, sizeof path, "nodes[%zu].cpu_freq", i);
  if (get_child(rd, json_array_get(nodes, i), where, "cpu_freq", JSON_OBJECT,
                &cf) ||
      LOAD_FIELDS(rd, cf, path, cpufreq_fields, &r->nodes[i].cpu_freq))
    return -1;
  snprintf(path, sizeof path, "nodes[%zu].sharing", i);
  if (get_child(rd, json_array_get(nodes, i), where, "sharing", JSON_OBJECT,
                &cf) ||
      LOAD_FIELDS(rd, cf, path, sharing_fields, &r->nodes[i].sharing))
    return -1;
  if (get_inner(rd, nodes, "nodes", i, "events", path, &arr) ||
      LOAD_LIST(rd, arr, path, event_fields, ev))
    return -1;
  for (size_t j = 0; j < json_array_size(arr); j++) {
    ev[j].node = r->nodes[i].name;
    ev[j].node_index = i;
  }
  r->nodes[i].nevents = (double)json_array_size(arr);
  r->nevents += json_array_size(arr);
  if (r->nodes[i].estimated > 0)
    r->estimated = 1; /* Say so even if the writer forgot to. */
  return load_timeline(rd, r, nodes, i);
}

/* The list of meters and their channels, into r (which has none yet). */
static int load_meters(struct reader *rd, struct report *r, json_t *meters) {
  char path[96];
  json_t *arr;

  r->nmeters = json_array_size(meters);
  r->meters = report_xcalloc(r->nmeters, sizeof *r->meters);
  r->channels =
    report_xcalloc(count_inner(meters, "channels"), sizeof *r->channels);
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
  return 0;
}

/* Checks the document of r->root and fills the rest of r from it. */
static int load_report(struct reader *rd, struct report *r) {
  static const char *const stat_keys[2] = {"node_energy_j", "node_power_w"};
  json_t *job, *meters, *nodes, *regions, *stats, *s;
  char where[48];

  if (check_format(rd, r->root, &r->version) ||
      LOAD_FIELDS(rd, r->root, "", top_fields, r) ||
      get_child(rd, r->root, "", "job", JSON_OBJECT, &job) ||
      LOAD_FIELDS(rd, job, "job", job_fields, &r->job) ||
      load_tags(rd, r, job) ||
      get_child(rd, r->root, "", "meters", JSON_ARRAY, &meters) ||
      get_child(rd, r->root, "", "nodes", JSON_ARRAY, &nodes) ||
      get_child(rd, r->root, "", "regions", JSON_ARRAY, &regions) ||
      get_child(rd, r->root, "", "stats", JSON_OBJECT, &stats))
    return -1;

  if (load_meters(rd, r, meters))
    return -1;

  r->nnodes = json_array_size(nodes);
  r->nodes = report_xcalloc(r->nnodes, sizeof *r->nodes);
  r->events = report_xcalloc(count_inner(nodes, "events"), sizeof *r->events);
  if (LOAD_LIST(rd, nodes, "nodes", node_fields, r->nodes))
    return -1;
  for (size_t i = 0; i < r->nnodes; i++)
    if (load_node(rd, r, nodes, i))
      return -1;

  r->nregions = json_array_size(regions);
  r->regions = report_xcalloc(r->nregions, sizeof *r->regions);
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
  return load_io(rd, r, nodes) || load_comm(rd, r, nodes) ? -1 : 0;
}

void report_free(struct report *r) {
  for (size_t i = 0; r->nodes != NULL && i < r->nnodes; i++) {
    free(r->nodes[i].tl.t_s);
    free(r->nodes[i].tl.phases);
    free(r->nodes[i].tl.regions);
  }
  json_decref(r->root);
  free(r->meters);
  free(r->channels);
  free(r->nodes);
  free(r->events);
  free(r->regions);
  free(r->io.files);
  free(r->io.sizes);
  free(r->comm.rows);
  memset(r, 0, sizeof *r);
}

int report_check_node(json_t *node, char *why, size_t size) {
  struct reader rd = {{0}};
  struct report r;
  json_t *nodes = json_array(), *meters, *files;
  int rc;

  memset(&r, 0, sizeof r);
  json_array_append(nodes, node);
  r.nnodes = 1;
  r.nodes = report_xcalloc(1, sizeof *r.nodes);
  r.events = report_xcalloc(count_inner(nodes, "events"), sizeof *r.events);
  rc = LOAD_LIST(&rd, nodes, "nodes", node_fields, r.nodes) ||
       load_node(&rd, &r, nodes, 0) || load_node_io(&rd, &r, nodes, 0) ||
       get_child(&rd, node, "nodes[0]", "meters", JSON_ARRAY, &meters) ||
       load_meters(&rd, &r, meters) ||
       get_child(&rd, node, "nodes[0]", "io_files", JSON_ARRAY, &files);
  if (rc == 0) {
    /* A spool's files of the node, which make the report's io.files. */
    r.io.nfiles = json_array_size(files);
    r.io.files = report_xcalloc(r.io.nfiles, sizeof *r.io.files);
    rc = LOAD_LIST(&rd, files, "nodes[0].io_files", iofile_fields,
                   r.io.files);
  }
  if (rc == 0)
    rc = load_comm(&rd, &r, nodes);
  json_decref(nodes);
  report_free(&r);
  if (why != NULL)
    snprintf(why, size, "%s", rc ? rd.err : "");
  return rc ? -1 : 0;
}

int report_check_job(json_t *job, char *why, size_t size) {
  struct reader rd = {{0}};
  struct report r;
  int rc;

  memset(&r, 0, sizeof r);
  rc = LOAD_FIELDS(&rd, job, "job", job_fields, &r.job) ||
       load_tags(&rd, &r, job);
  if (why != NULL)
    snprintf(why, size, "%s", rc ? rd.err : "");
  return rc ? -1 : 0;
}

int report_check(json_t *root, char *why, size_t size) {
  struct reader rd = {{0}};
  struct report r;
  int rc;

  memset(&r, 0, sizeof r);
  r.root = json_incref(root);
  rc = load_report(&rd, &r);
  report_free(&r);
  snprintf(why, size, "%s", rc ? rd.err : "");
  return rc ? -1 : 0;
}

/* Reads the report from FP (closed unless it is stdin) into *r, as
 * report_open() does; FP NULL is a failed open, errno telling why. */
static int read_report(FILE *fp, const char *name, struct report *r) {
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
    report_file_error(name, rd.err);
    report_free(r);
    return -1;
  }
  return 0;
}

int report_open(const char *path, const char *name, struct report *r) {
  return read_report(strcmp(path, "-") == 0 ? stdin : fopen(path, "rb"),
                     name, r);
}

int report_open_fd(int fd, const char *name, struct report *r) {
  FILE *fp = fdopen(fd, "rb");

  if (fp == NULL) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return read_report(fp, name, r);
}


/*
 * report-replay.c - pmon-report replay: the report of one node made again
 * from the trace its job recorded (PMON_RECORD; docs/trace-format.md),
 * by the library's own code on the trace's instants: no clock is read.
 *
 * The files of one node are given: the leader's (its meters, every try
 * of every reading, init's and finalize's waits) and each rank's (its
 * region calls, its finalize).  The leader's meter lines are taken in
 * order, each reading folded as the poller folded it
 * (pmon__meter_tries()); after each, every rank's region calls whose
 * sample counts ("seq") the timeline has reached are taken, as the call
 * saw the timeline then (pmon__region_replay()).  At the end each rank's
 * regions are resolved and made a table, the tables merged as the node's
 * ranks merge theirs, and the node record and the report made as
 * pmon_finalize() makes them (pmon__node_record(), pmon__report()).
 *
 * The ranks' MPI-IO and communication figures are made of their
 * "record" lines (each rank's I/O phases and call slots, as the leader
 * gathered them: pmon__io_node(), pmon__comm_node()), when every rank's
 * file has one.  The shared-node split is the one the job's leader traced
 * ("share": its share, its bar and its "sharing"), applied as the job
 * applied it.  Not replayed, and so not in the report: the CPU times and
 * clocks of the timeline.
 *
 * A line that cannot be taken stops the replay with one line on stderr,
 * "pmon-report: replay: FILE:LINE: what: why", and exit status 1.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "rtab.h"
#include "report.h"

#define CMD PROG ": replay"
#define RANKS_MAX 4096
#define TIDS_MAX 4096
#define LINE_MAX_BYTES (1 << 20)

/* One stream of a file's lines: the leader's meter lines, or a rank's
 * own. */
struct src {
  const char *path;
  FILE *f;
  long line;   /* the number of the line in hand */
  json_t *cur; /* the line in hand; NULL at the end */
  int meters;  /* 1: the meter lines; 0: the rank's */
};

struct rank {
  int rank;
  struct src s;
  struct pmon_thread *threads; /* its threads' regions (g->threads) */
  int nthreads;
  void *tid[TIDS_MAX];
  int finalized;
  json_t *record; /* its "record" line: {rank, local, io, comm}, or NULL */
};

static char *buf;
static size_t bufsize;

static int bad(const struct src *s, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int bad(const struct src *s, const char *fmt, ...)
{
  char msg[512];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return report_say(1, CMD, "%s:%ld: %s", s->path, s->line, msg);
}

/* Whether line O belongs to the meters' stream. */
static int meter_line(json_t *o)
{
  return json_object_get(o, "meter") != NULL ||
         json_object_get(o, "read") != NULL ||
         json_object_get(o, "wait") != NULL ||
         json_object_get(o, "waited") != NULL ||
         json_object_get(o, "sample") != NULL ||
         json_object_get(o, "node_end") != NULL;
}

/* The next line of S's stream into s->cur (NULL at the end): 0, or 1
 * after saying what is wrong. */
static int next(struct src *s)
{
  json_error_t je;
  ssize_t n;

  json_decref(s->cur);
  s->cur = NULL;
  while ((n = getline(&buf, &bufsize, s->f)) >= 0) {
    json_t *o;

    s->line++;
    if (n == 0 || (n == 1 && buf[0] == '\n'))
      continue;
    if (n > LINE_MAX_BYTES)
      return bad(s, "a line of %zd bytes: not a trace's", n);
    if ((o = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &je)) == NULL)
      return bad(s, "not JSON: %s (column %d)", je.text, je.column);
    if (!json_is_object(o)) {
      json_decref(o);
      return bad(s, "not a JSON object");
    }
    if (json_object_get(o, "pmtrace") != NULL) {
      json_decref(o);
      return bad(s, "a second header");
    }
    if (meter_line(o) == s->meters) {
      s->cur = o;
      return 0;
    }
    json_decref(o);
  }
  if (ferror(s->f))
    return bad(s, "cannot read: %s", strerror(errno));
  return 0;
}

/* An integer member KEY of O from LO to HI into *V: 0, or -1. */
static int get_int(json_t *o, const char *key, json_int_t lo, json_int_t hi,
                   json_int_t *v)
{
  json_t *x = json_object_get(o, key);

  if (!json_is_integer(x) || json_integer_value(x) < lo ||
      json_integer_value(x) > hi)
    return -1;
  *v = json_integer_value(x);
  return 0;
}

static int get_num(json_t *o, const char *key, double *v)
{
  json_t *x = json_object_get(o, key);

  if (x == NULL)
    return 1;
  if (!json_is_number(x) || !isfinite(json_number_value(x)))
    return -1;
  *v = json_number_value(x);
  return 0;
}

/* The sample counts of a region line into SEQ: 0, or -1. */
static int get_seq(json_t *o, uint64_t *seq)
{
  json_t *a = json_object_get(o, "seq"), *x;
  size_t k;

  if (!json_is_array(a) || json_array_size(a) != (size_t)pmon__g.nmeters)
    return -1;
  json_array_foreach(a, k, x) {
    if (!json_is_integer(x) || json_integer_value(x) < 0)
      return -1;
    seq[k] = (uint64_t)json_integer_value(x);
  }
  return 0;
}

/* ---- The meters ---------------------------------------------------- */

/* A sample line O: the job published that sample, stamped so; the
 * replay, folding the same readings, must have published the same.  A
 * difference is the arithmetic's (or a trace not of this version's). */
static int sample(const struct src *s, json_t *o)
{
  const struct pmon_state *g = &pmon__g;
  json_int_t i, k, at;
  double err;
  struct pmon_tl_sample x;

  if (get_int(o, "sample", 0, g->nmeters - 1, &i) != 0 ||
      get_int(o, "seq", 0, INT64_MAX, &k) != 0 ||
      get_int(o, "at", 0, INT64_MAX, &at) != 0 ||
      get_num(o, "err_s", &err) != 0)
    return bad(s, "sample: a meter, seq, at and err_s expected");
  if (pmon__tl_seq(&g->sh->tl[i]) <= (uint64_t)k ||
      pmon__tl_get(&g->sh->tl[i], (uint64_t)k, &x) != 0)
    return bad(s, "sample: the job published sample %lld of meter %lld, "
               "the replay did not",
               (long long)k, (long long)i);
  if (x.t_ns != (uint64_t)at || fabs(x.err[2] - err) > 1e-9 * fabs(err))
    return bad(s, "sample: the job stamped sample %lld of meter %lld at "
               "%lld +- %.9g s, the replay at %llu +- %.9g s",
               (long long)k, (long long)i, (long long)at, err,
               (unsigned long long)x.t_ns, x.err[2]);
  return 0;
}

static struct pmon_driver drivers[PMON_METER_MAX];
static char driver_names[PMON_METER_MAX][64];
static const char *const froms[] = {"driver", "specification", "device"};

static int channel(struct src *s, struct pmon_meter *m, json_t *c, int k)
{
  struct pmon_channel *ch = &m->ch[k];
  json_t *name = json_object_get(c, "name");
  json_t *dom = json_object_get(c, "domain");
  json_int_t range = 0;
  int d;

  if (!json_is_string(name) || !json_is_string(dom) ||
      (d = pmon__domain_parse(json_string_value(dom))) < 0)
    return bad(s, "channel %d: a name and a domain (node, cpu, memory, "
               "accel, other, module) expected", k);
  if (get_num(c, "scale", &ch->scale) != 0 || !(ch->scale > 0))
    return bad(s, "channel %d: scale: a number above 0 expected", k);
  if (json_object_get(c, "range") != NULL &&
      get_int(c, "range", 0, INT64_MAX, &range) != 0)
    return bad(s, "channel %d: range: a whole number expected", k);
  if (get_num(c, "max_watts", &ch->max_watts) < 0 ||
      get_num(c, "res_w", &ch->res_w) < 0)
    return bad(s, "channel %d: max_watts, res_w: numbers expected", k);
  snprintf(ch->name, sizeof ch->name, "%s", json_string_value(name));
  ch->domain = (enum pmon_domain)d;
  ch->range = (uint64_t)range;
  ch->flags = json_is_true(json_object_get(c, "total")) ? PMON_CH_TOTAL : 0;
  if (json_is_string(json_object_get(c, "overlaps")))
    snprintf(ch->overlaps, sizeof ch->overlaps, "%s",
             json_string_value(json_object_get(c, "overlaps")));
  return 0;
}

/* A meter line: meter number g->nmeters as the job had it. */
static int meter(struct src *s, json_t *o)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms;
  struct pmon_meter *m;
  json_t *chs = json_object_get(o, "channels"), *c, *acc, *x;
  json_t *kind = json_object_get(o, "kind"), *drv = json_object_get(o, "driver");
  json_int_t i;
  size_t k;

  if (get_int(o, "meter", 0, PMON_METER_MAX - 1, &i) != 0 || i != g->nmeters)
    return bad(s, "meter: %d expected (meters are numbered in order, at "
               "most %d)", g->nmeters, PMON_METER_MAX);
  if (!json_is_string(kind) || (strcmp(json_string_value(kind), "counter") != 0 &&
                                strcmp(json_string_value(kind), "power") != 0))
    return bad(s, "kind: \"counter\" or \"power\" expected");
  if (!json_is_array(chs) || json_array_size(chs) < 1 ||
      json_array_size(chs) > PMON_CH_MAX)
    return bad(s, "channels: 1 to %d expected", PMON_CH_MAX);
  ms = &g->ms[g->nmeters];
  memset(ms, 0, sizeof *ms);
  m = &ms->m;
  snprintf(driver_names[i], sizeof driver_names[i], "%s",
           json_is_string(drv) ? json_string_value(drv) : "trace");
  drivers[i].name = driver_names[i];
  drivers[i].description = "a meter of a trace";
  drivers[i].flags = strcmp(json_string_value(kind), "counter") == 0
                       ? PMON_DRV_COUNTER
                       : PMON_DRV_SAMPLED;
  if (json_is_true(json_object_get(o, "estimated")))
    drivers[i].flags |= PMON_DRV_ESTIMATED;
  m->drv = &drivers[i];
  m->flags = drivers[i].flags;
  x = json_object_get(o, "uri");
  snprintf(m->spec.text, sizeof m->spec.text, "%s",
           json_is_string(x) ? json_string_value(x) : driver_names[i]);
  snprintf(m->spec.driver, sizeof m->spec.driver, "%s", driver_names[i]);
  if (get_num(o, "interval_s", &m->interval_s) != 0 || !(m->interval_s > 0))
    return bad(s, "interval_s: a number above 0 expected");
  if (get_num(o, "pace_s", &m->pace_s) < 0 ||
      get_num(o, "window_s", &m->window_s) < 0 ||
      get_num(o, "stale_s", &m->stale_s) < 0)
    return bad(s, "pace_s, window_s, stale_s: numbers expected");
  if (json_is_object(acc = json_object_get(o, "accuracy"))) {
    x = json_object_get(acc, "from");
    if (get_num(acc, "rel", &m->accuracy_rel) != 0 ||
        get_num(acc, "watts", &m->accuracy_w) != 0 || !json_is_string(x))
      return bad(s, "accuracy: rel, watts and from expected");
    for (k = 0; k < COUNT_OF(froms); k++)
      if (strcmp(json_string_value(x), froms[k]) == 0)
        m->accuracy_from = froms[k];
    if (m->accuracy_from == NULL)
      return bad(s, "accuracy: from: \"driver\", \"specification\" or "
                 "\"device\" expected");
  }
  if (json_is_string(x = json_object_get(o, "source")))
    snprintf(m->source, sizeof m->source, "%s", json_string_value(x));
  if (json_is_string(x = json_object_get(o, "note")))
    snprintf(m->note, sizeof m->note, "%s", json_string_value(x));
  json_array_foreach(chs, k, c) {
    if (!json_is_object(c) || channel(s, m, c, (int)k) != 0)
      return json_is_object(c) ? 1 : bad(s, "channel %zu: an object expected", k);
  }
  m->nch = (int)json_array_size(chs);
  pmon__meter_adopt();
  return 0;
}

/* A read line's try into T; its meter into *I, its number into *K (-1:
 * a reading's only try), whether forced into *FORCE. */
static int one_try(struct src *s, json_t *o, struct pmon_try *t, int *i,
                   int *k, int *force)
{
  const struct pmon_state *g = &pmon__g;
  json_int_t v, t0, t1;
  json_t *vals, *x, *err = json_object_get(o, "error");
  const struct pmon_meter *m;
  size_t c;

  memset(t, 0, sizeof *t);
  if (get_int(o, "read", 0, g->nmeters - 1, &v) != 0)
    return bad(s, "read: a meter of the trace (0 to %d) expected",
               g->nmeters - 1);
  *i = (int)v;
  m = &g->ms[*i].m;
  if (get_int(o, "t0", 0, INT64_MAX, &t0) != 0 ||
      get_int(o, "t1", t0, INT64_MAX, &t1) != 0)
    return bad(s, "t0, t1: whole nanoseconds, t0 <= t1, expected");
  t->t0 = (uint64_t)t0;
  t->t1 = (uint64_t)t1;
  *k = -1;
  if (json_object_get(o, "try") != NULL) {
    if (get_int(o, "try", 0, PMON_TRIES_MAX - 1, &v) != 0)
      return bad(s, "try: 0 to %d expected", PMON_TRIES_MAX - 1);
    *k = (int)v;
  }
  *force = json_is_true(json_object_get(o, "force"));
  if (err != NULL) {
    if (!json_is_string(err))
      return bad(s, "error: a string expected");
    t->rc = PMON_EIO;
    if (json_object_get(o, "code") != NULL) {
      if (get_int(o, "code", -1000, -1, &v) != 0)
        return bad(s, "code: a PMON_E* code (below 0) expected");
      t->rc = (int)v;
    }
    return 0;
  }
  vals = json_object_get(o, (m->flags & PMON_DRV_COUNTER) ? "raw" : "watts");
  if (!json_is_array(vals) || json_array_size(vals) != (size_t)m->nch)
    return bad(s, "%s: %d values (the meter's channels) expected",
               (m->flags & PMON_DRV_COUNTER) ? "raw" : "watts", m->nch);
  json_array_foreach(vals, c, x) {
    if (m->flags & PMON_DRV_COUNTER) {
      if (!json_is_integer(x) || json_integer_value(x) < 0)
        return bad(s, "raw: whole counts expected");
      t->r.raw[c] = (uint64_t)json_integer_value(x);
    } else {
      if (!json_is_number(x) || !isfinite(json_number_value(x)))
        return bad(s, "watts: numbers expected");
      t->r.watts[c] = json_number_value(x);
    }
  }
  t->r.stale = json_is_true(json_object_get(o, "stale"));
  if (json_is_array(vals = json_object_get(o, "events")))
    json_array_foreach(vals, c, x) {
      const char *e = json_string_value(x);

      if (e != NULL && strcmp(e, "reset") == 0)
        t->r.events |= PMON_EV_RESET;
      else if (e != NULL && strcmp(e, "power_cap") == 0)
        t->r.events |= PMON_EV_POWER_CAP;
      else
        return bad(s, "events: \"reset\" or \"power_cap\" expected");
    }
  if (json_is_string(x = json_object_get(o, "detail")))
    snprintf(t->r.detail, sizeof t->r.detail, "%s", json_string_value(x));
  return 0;
}

/* A reading: the read line in hand and the tries after it. */
static int reading(struct src *s)
{
  struct pmon_try t[PMON_TRIES_MAX];
  json_t *err;
  int i, k, force, n, j, kj, fj;

  if (one_try(s, s->cur, &t[0], &i, &k, &force) != 0)
    return 1;
  if (k > 0)
    return bad(s, "try: %d without the tries before it", k);
  n = 1;
  err = json_incref(json_object_get(s->cur, "error"));
  /* A try after a failed one is the next reading's. */
  while (k == 0 && t[n - 1].rc == 0) {
    if (next(s) != 0)
      goto fail;
    if (s->cur == NULL || json_object_get(s->cur, "read") == NULL ||
        json_object_get(s->cur, "try") == NULL ||
        json_integer_value(json_object_get(s->cur, "try")) == 0)
      break; /* the line in hand is the next one's */
    if (n == PMON_TRIES_MAX) {
      bad(s, "try: at most %d tries of a reading", PMON_TRIES_MAX);
      goto fail;
    }
    if (one_try(s, s->cur, &t[n], &j, &kj, &fj) != 0)
      goto fail;
    if (j != i || kj != n) {
      bad(s, "try %d of meter %d expected: the tries of a reading follow "
          "each other", n, i);
      goto fail;
    }
    json_decref(err);
    err = json_incref(json_object_get(s->cur, "error"));
    n++;
  }
  if (t[n - 1].rc != 0) /* the thread's last error, as the driver's */
    pmon__fail(t[n - 1].rc, "%s", json_string_value(err));
  json_decref(err);
  if ((k < 0 || t[n - 1].rc != 0) && next(s) != 0)
    return 1;
  pmon__meter_tries(i, t, n, force);
  return 0;
fail:
  json_decref(err);
  return 1;
}

/* ---- The ranks ----------------------------------------------------- */

/* Whether the timeline holds the samples SEQ counts. */
static int reached(const uint64_t *seq)
{
  for (int m = 0; m < pmon__g.nmeters; m++)
    if (pmon__tl_seq(&pmon__g.sh->tl[m]) < seq[m])
      return 0;
  return 1;
}

/* R's regions made the process's: its threads, and thread TID its
 * caller's (-1: none). */
static void enter(struct rank *r, int tid)
{
  pmon__g.threads = r->threads;
  pmon__g.nthreads = r->nthreads;
  pmon__g.rank = r->rank;
  pmon__region_thread_swap(tid >= 0 ? r->tid[tid] : NULL);
}

static void leave(struct rank *r, int tid)
{
  void *t = pmon__region_thread_swap(NULL);

  if (tid >= 0)
    r->tid[tid] = t;
  r->threads = pmon__g.threads;
  r->nthreads = pmon__g.nthreads;
}

/* Line O's "wall" (CLOCK_REALTIME ns) into *TS, when it has one. */
static void wall(json_t *o, struct timespec *ts)
{
  json_int_t ns;

  if (get_int(o, "wall", 0, INT64_MAX, &ns) == 0) {
    ts->tv_sec = (time_t)(ns / 1000000000);
    ts->tv_nsec = (long)(ns % 1000000000);
  }
}

/* The meters' lines have reached this instant: the next reading's
 * start, or a wait's instant; 0 between a wait and its end; the
 * largest after the last line.  A region line without "seq" (written by
 * hand) is taken once its "t" is at most this, with the sample counts
 * of that moment. */
static uint64_t frontier;

/* The job ran under MPI (its init line): the report says so.  Only the
 * report: the replay itself makes no MPI call (g->mpi stays 0). */
static int was_mpi;

/* Into SEQ, line O's sample counts, or those of the timeline now when O
 * has none (pmon-report(1), REPLAY: a hand-written trace); 0, 1 when the
 * meters' lines have not reached O yet, or -1. */
static int seq_of(json_t *o, uint64_t t, uint64_t *seq)
{
  if (json_object_get(o, "seq") != NULL)
    return get_seq(o, seq) != 0 ? -1 : !reached(seq);
  if (t > frontier)
    return 1;
  for (int m = 0; m < pmon__g.nmeters; m++)
    seq[m] = pmon__tl_seq(&pmon__g.sh->tl[m]);
  return 0;
}

/* Whether V is an array of N integers from 0 on (N 0: any number). */
static int naturals(json_t *v, size_t n)
{
  json_t *x;
  size_t i;

  if (!json_is_array(v) || (n > 0 && json_array_size(v) != n))
    return 0;
  json_array_foreach(v, i, x)
    if (!json_is_integer(x) || json_integer_value(x) < 0)
      return 0;
  return 1;
}

/* Whether V is a size bin's row of a record: [a, bin, calls, bytes, ns]
 * whole and not negative, and the calls' squared times (ns^2, a number
 * not negative) after them where the record has them. */
static int row_ok(json_t *v)
{
  json_t *sq = json_array_get(v, 5);
  size_t n = json_array_size(v);

  if (!json_is_array(v) || (n != 5 && n != 6))
    return 0;
  for (size_t i = 0; i < 5; i++)
    if (!json_is_integer(json_array_get(v, i)) ||
        json_integer_value(json_array_get(v, i)) < 0)
      return 0;
  return n == 5 || (json_is_number(sq) && json_number_value(sq) >= 0 &&
                    isfinite(json_number_value(sq)));
}

/* Whether the number at KEY of O is at least MIN (MORE: more than). */
static int at_least(json_t *o, const char *key, double min, int more)
{
  json_t *v = json_object_get(o, key);

  return json_is_number(v) && isfinite(json_number_value(v)) &&
         (more ? json_number_value(v) > min : json_number_value(v) >= min);
}

/* Whether REC is a rank's record as lib/pmon.c writes it: its I/O
 * (lib/io.c, rank_json()) and calls (lib/comm.c, pmon__comm_json()) null
 * or of their shapes: counts and times whole and not negative, each I/O
 * phase [start, end, bytes] with start <= end, each size bin a row_ok(),
 * each slot [index, ns]. */
static int record_ok(json_t *rec)
{
  static const char *const counts[] = {"bytes_read", "bytes_written",
                                       "reads", "writes", "meta_ops",
                                       "errors", "time_ns"};
  json_t *io = json_object_get(rec, "io"), *comm = json_object_get(rec, "comm");
  json_t *p;
  size_t i;

  if (!json_is_object(rec))
    return 0;
  if (io != NULL && !json_is_null(io)) {
    if (!json_is_object(io) || !at_least(io, "gap_s", 0, 0) ||
        !json_is_array(json_object_get(io, "phases")))
      return 0;
    for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
      json_t *v = json_object_get(io, counts[i]);

      if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < 0))
        return 0;
    }
    json_array_foreach(json_object_get(io, "phases"), i, p)
      if (!naturals(p, 3) || json_integer_value(json_array_get(p, 0)) >
                               json_integer_value(json_array_get(p, 1)))
        return 0;
    json_array_foreach(json_object_get(io, "sizes"), i, p)
      if (!row_ok(p))
        return 0;
  }
  if (comm != NULL && !json_is_null(comm)) {
    if (!json_is_object(comm) || !at_least(comm, "slot_ns", 0, 1) ||
        !at_least(comm, "slot0_ns", 0, 0) ||
        !json_is_array(json_object_get(comm, "rows")) ||
        !json_is_array(json_object_get(comm, "slots")))
      return 0;
    json_array_foreach(json_object_get(comm, "rows"), i, p)
      if (!row_ok(p))
        return 0;
    json_array_foreach(json_object_get(comm, "slots"), i, p)
      if (!naturals(p, 2))
        return 0;
  }
  return 1;
}

/* The lines of rank R the timeline has reached: 0, or 1 after saying
 * what is wrong.  *WAITING: 1 when a line waits for samples. */
static int take(struct rank *r, int *waiting)
{
  struct src *s = &r->s;
  uint64_t seq[PMON_METER_MAX];
  int w = 0;

  *waiting = 0;
  while (s->cur != NULL) {
    json_t *o = s->cur, *name;
    json_int_t tid, t;
    int begin, rc;

    if (json_object_get(o, "init") != NULL) {
      if (get_int(o, "init", 1, INT64_MAX, &t) != 0)
        return bad(s, "init: whole nanoseconds expected");
      if (r->rank == 0 || pmon__g.t_init_ns == 0) {
        pmon__g.t_init_ns = pmon__g.sh->t_init_ns = (uint64_t)t;
        wall(o, &pmon__g.wall_start);
        was_mpi = json_is_true(json_object_get(o, "mpi"));
      }
    } else if (json_object_get(o, "finalize") != NULL) {
      if (get_int(o, "finalize", 1, INT64_MAX, &t) != 0 ||
          (w = seq_of(o, (uint64_t)t, seq)) < 0)
        return bad(s, "finalize: whole nanoseconds and seq (one count per "
                   "meter) expected");
      if (w)
        return *waiting = 1, 0;
      enter(r, -1);
      pmon__regions_close_at((uint64_t)t, seq);
      leave(r, -1);
      r->finalized = 1;
      if (pmon__g.t_fin_ns == 0 || r->rank == 0) {
        pmon__g.t_fin_ns = (uint64_t)t;
        wall(o, &pmon__g.wall_end);
      }
    } else if (json_object_get(o, "record") != NULL) {
      if (!record_ok(json_object_get(o, "record")))
        return bad(s, "record: {rank, local, io, comm} expected, io and "
                   "comm null or as lib/pmon.c writes them (whole counts "
                   "and times, not negative; phases [start, end, bytes])");
      json_decref(r->record);
      r->record = json_incref(json_object_get(o, "record"));
    } else if (json_object_get(o, "share") != NULL) {
      json_t *sh = json_object_get(o, "share");
      json_int_t split;
      double f, e;

      if (!json_is_object(sh) || get_int(sh, "split", -1, 1, &split) != 0 ||
          get_num(sh, "share", &f) != 0 || get_num(sh, "share_err", &e) != 0 ||
          !(f >= 0 && f <= 1 && e >= 0) ||
          !(json_is_object(json_object_get(sh, "sharing")) ||
            json_is_null(json_object_get(sh, "sharing"))))
        return bad(s, "share: {split (-1, 0 or 1), share (0 to 1), "
                   "share_err (0 or more), sharing (an object or null)} "
                   "expected");
      pmon__share_replayed((int)split, f, e, json_object_get(sh, "sharing"));
    } else if (json_object_get(o, "tid") != NULL) {
      begin = json_object_get(o, "begin") != NULL;
      name = json_object_get(o, begin ? "begin" : "end");
      if (get_int(o, "tid", 0, TIDS_MAX - 1, &tid) != 0 || !json_is_string(name))
        return bad(s, "tid (0 to %d) and begin or end (a region's name) "
                   "expected", TIDS_MAX - 1);
      if (json_object_get(o, "t") != NULL &&
          (get_int(o, "t", 1, INT64_MAX, &t) != 0 ||
           (w = seq_of(o, (uint64_t)t, seq)) < 0))
        return bad(s, "t: whole nanoseconds and seq (one count per meter) "
                   "expected");
      if (json_object_get(o, "t") != NULL && w)
        return *waiting = 1, 0;
      /* Threads are made in the order of their numbers, as the job's
       * were: the lowest entered first counts on a tie. */
      for (int k = 0; k <= tid; k++)
        if (r->tid[k] == NULL) {
          enter(r, k);
          pmon__region_thread_make();
          leave(r, k);
        }
      enter(r, (int)tid);
      rc = pmon__region_replay(begin, json_string_value(name),
                               json_object_get(o, "t") != NULL ? (uint64_t)t : 0,
                               json_object_get(o, "t") != NULL ? seq : NULL);
      leave(r, (int)tid);
      if (rc != 0)
        return bad(s, "%s", pmon_errmsg() + strlen("pmon: "));
    }
    if (next(s) != 0)
      return 1;
  }
  return 0;
}

static int take_all(struct rank *rk, int n, int *waiting)
{
  *waiting = 0;
  for (int k = 0; k < n; k++) {
    int w;

    if (take(&rk[k], &w) != 0)
      return 1;
    *waiting |= w;
  }
  return 0;
}

/* ---- The files ----------------------------------------------------- */

/* Open PATH as stream S of kind METERS and read its header into *HDR. */
static int open_src(struct src *s, const char *path, int meters, json_t **hdr)
{
  json_error_t je;
  struct stat st;
  ssize_t n;
  int fd;

  memset(s, 0, sizeof *s);
  s->path = path;
  s->meters = meters;
  /* Opened without waiting: a FIFO planted where traces are (a shared
   * directory, a glob) is refused, not waited on. */
  if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
    return report_say(1, CMD, "%s: cannot open: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return report_say(1, CMD, "%s: not a regular file: the leader's trace "
                      "is read twice (its meters, its regions)", path);
  }
  if ((s->f = fdopen(fd, "r")) == NULL) {
    close(fd);
    return report_say(1, CMD, "%s: cannot open: %s", path, strerror(errno));
  }
  s->line = 1;
  if ((n = getline(&buf, &bufsize, s->f)) < 0)
    return bad(s, "empty: a header ({\"pmtrace\": 1, ...}) expected");
  *hdr = json_loadb(buf, (size_t)n, 0, &je);
  if (*hdr == NULL || !json_is_object(*hdr) ||
      json_integer_value(json_object_get(*hdr, "pmtrace")) != 1)
    return bad(s, "a header ({\"pmtrace\": 1, ...}) expected");
  return next(s);
}

static void close_src(struct src *s)
{
  json_decref(s->cur);
  s->cur = NULL;
  if (s->f != NULL)
    fclose(s->f);
  s->f = NULL;
}

/* Everything a replay made of the core's state let go, so that another
 * may follow in the same process (tests/fuzz/fuzz_replay.c). */
static void forget(struct rank *rk, int n)
{
  struct pmon_state *g = &pmon__g;

  for (int k = 0; k < n; k++) {
    enter(&rk[k], -1);
    pmon__regions_free();
    rk[k].threads = NULL;
    rk[k].nthreads = 0;
    json_decref(rk[k].record);
    rk[k].record = NULL;
  }
  pmon__regions_free();
  pmon__hist_free();
  free(g->events);
  g->events = NULL;
  g->nevents = 0;
  g->events_dropped = 0;
  free(g->ms);
  g->ms = NULL;
  g->nmeters = 0;
  g->total_meter = -1;
  memset(g->total_mask, 0, sizeof g->total_mask);
  free(g->sh_local);
  free(g->pubs);
  g->sh_local = NULL;
  g->pubs = NULL;
  g->sh = NULL;
  g->t_init_ns = g->t_end_ns = g->t_fin_ns = 0;
  memset(&g->wall_start, 0, sizeof g->wall_start);
  memset(&g->wall_end, 0, sizeof g->wall_end);
  g->rank = g->size = g->local_size = 0;
}

static const char *const usage =
  "usage: " PROG " replay [-o REPORT] TRACE...\n";

int report_replay(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  struct pmon_state *g = &pmon__g;
  const char *out = NULL, *leader = NULL;
  struct rank *rk = NULL;
  struct src ms = {0};
  struct pmon_rtab tab;
  json_t *hdr = NULL, *nodes = NULL, *rec, *ranks = NULL;
  char node[256] = "", job[sizeof g->jobid] = "", def[PATH_MAX];
  int c, n = 0, nrec = 0, status = 1, waiting, rc;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'h': fputs(usage, stdout); return 0;
    case ':':
      return report_say(2, CMD, "%s: option needs an argument", argv[optind - 1]);
    default:
      return report_say(2, CMD, "%s: invalid option", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return report_say(2, CMD, "give the trace files of one node (%s replay "
                      "--help)", PROG);
  if (argc - optind > RANKS_MAX)
    return report_say(2, CMD, "at most %d files", RANKS_MAX);
  if ((rk = calloc((size_t)(argc - optind), sizeof *rk)) == NULL)
    return report_say(1, CMD, "out of memory");
  /* The headers: one node, one job, one leader. */
  for (int k = optind; k < argc; k++) {
    struct rank *r = &rk[n++]; /* closed at the end, opened or not */
    const char *hn, *hj;

    if (open_src(&r->s, argv[k], 0, &hdr) != 0)
      goto out;
    hn = json_string_value(json_object_get(hdr, "node"));
    hj = json_string_value(json_object_get(hdr, "job"));
    r->rank = (int)json_integer_value(json_object_get(hdr, "rank"));
    if (hn == NULL || hj == NULL) {
      report_say(1, CMD, "%s:1: header: node and job expected", r->s.path);
      goto out;
    }
    if (n == 1) {
      snprintf(node, sizeof node, "%s", hn);
      snprintf(job, sizeof job, "%s", hj);
      g->size = (int)json_integer_value(json_object_get(hdr, "ranks"));
    } else if (strcmp(hn, node) != 0 || strcmp(hj, job) != 0) {
      report_say(1, CMD, "%s:1: header: job %s, node %s: one node of one "
                 "job at a time (the first file's: job %s, node %s)",
                 r->s.path, hj, hn, job, node);
      goto out;
    }
    if (json_is_true(json_object_get(hdr, "leader"))) {
      if (leader != NULL) {
        report_say(1, CMD, "%s:1: header: a second leader (the first: %s)",
                   r->s.path, leader);
        goto out;
      }
      leader = argv[k];
    }
    json_decref(hdr);
    hdr = NULL;
  }
  if (leader == NULL) {
    report_say(1, CMD, "no file of node %s's leader (its meters)", node);
    goto out;
  }
  /* The node as its leader began: no MPI, no spool, no share. */
  snprintf(g->jobid, sizeof g->jobid, "%s", job);
  snprintf(g->jobid_source, sizeof g->jobid_source, "trace");
  snprintf(g->node_name, sizeof g->node_name, "%s", node);
  g->leader = 1;
  g->quiet = 1;
  g->mpi = was_mpi = 0;
  g->nnodes = 1;
  if ((g->ms = calloc(PMON_METER_MAX, sizeof *g->ms)) == NULL) {
    report_say(1, CMD, "out of memory");
    goto out;
  }
  if (open_src(&ms, leader, 1, &hdr) != 0)
    goto out;
  while (ms.cur != NULL && json_object_get(ms.cur, "meter") != NULL) {
    if (meter(&ms, ms.cur) != 0 || next(&ms) != 0)
      goto out;
  }
  pmon__meters_plan();
  if (pmon__node_share() != 0) {
    report_say(1, CMD, "%s", pmon_errmsg() + strlen("pmon: "));
    goto out;
  }
  pmon__regions_layout();
  /* The meters' lines in order, each rank's as the timeline reaches
   * them. */
  while (ms.cur != NULL) {
    json_t *o = ms.cur;
    json_int_t i, t;

    frontier = 0;
    if (get_int(o, "t0", 0, INT64_MAX, &t) == 0 ||
        get_int(o, "t", 0, INT64_MAX, &t) == 0 ||
        get_int(o, "node_end", 0, INT64_MAX, &t) == 0)
      frontier = (uint64_t)t;
    if (take_all(rk, n, &waiting) != 0)
      goto out;
    if (json_object_get(o, "read") != NULL) {
      if (reading(&ms) != 0)
        goto out;
      continue;
    }
    if (json_object_get(o, "wait") != NULL) {
      if (get_int(o, "wait", 0, g->nmeters - 1, &i) != 0 ||
          get_int(o, "t", 1, INT64_MAX, &t) != 0) {
        bad(&ms, "wait: a meter and t expected");
        goto out;
      }
      pmon__meter_wait((int)i, (uint64_t)t);
    } else if (json_object_get(o, "waited") != NULL) {
      if (get_int(o, "waited", 0, g->nmeters - 1, &i) != 0) {
        bad(&ms, "waited: a meter expected");
        goto out;
      }
      pmon__meter_waited((int)i);
      if (i == g->nmeters - 1)
        pmon__meters_waited();
    } else if (json_object_get(o, "sample") != NULL) {
      if (sample(&ms, o) != 0)
        goto out;
    } else if (json_object_get(o, "node_end") != NULL) {
      if (get_int(o, "node_end", 1, INT64_MAX, &t) != 0) {
        bad(&ms, "node_end: whole nanoseconds expected");
        goto out;
      }
      g->t_end_ns = (uint64_t)t;
    } else {
      bad(&ms, "a meter after the first reading");
      goto out;
    }
    if (next(&ms) != 0)
      goto out;
  }
  frontier = UINT64_MAX;
  if (take_all(rk, n, &waiting) != 0)
    goto out;
  for (int k = 0; k < n; k++)
    if (rk[k].s.cur != NULL) {
      bad(&rk[k].s, "its samples (seq) are more than the meters' lines make");
      goto out;
    }
  if (g->t_end_ns == 0) {
    report_say(1, CMD, "%s: no \"node_end\" line: the job's trace ends before its "
               "finalize", leader);
    goto out;
  }
  /* Finalize: each rank's regions, merged as the node's ranks merge
   * theirs. */
  pmon__rtab_init(&tab, PMON_RT_NODE, pmon__regions_list_max());
  for (int k = 0; k < n; k++) {
    struct pmon_rtab mine;

    enter(&rk[k], -1);
    pmon__regions_resolve();
    pmon__rtab_init(&mine, PMON_RT_NODE, pmon__regions_list_max());
    pmon__regions_table(&mine);
    if (k == 0) { /* the names folded: one registry, in the first's */
      tab.folded = mine.folded;
      tab.folded_lower = mine.folded_lower;
    }
    tab.lost += mine.lost;
    for (size_t j = 0; j < mine.cap; j++)
      if (mine.slot[j] != NULL)
        pmon__rtab_merge(&tab, mine.slot[j]);
    pmon__rtab_free(&mine);
    leave(&rk[k], -1);
  }
  /* The ranks' I/O and communication, as the leader gathered them: the
   * node's figures of them when every rank's file has its record. */
  for (int k = 0; k < n; k++)
    if (rk[k].record != NULL)
      nrec++;
  if (nrec == n && (ranks = json_array()) != NULL)
    for (int k = 0; k < n; k++)
      json_array_append(ranks, rk[k].record);
  g->rank = 0;
  g->local_size = n;
  {
    double f, f_err;

    /* The share the leader traced, on every energy (lib/pmon.c). */
    if (pmon__share_factor(&f, &f_err) == 1)
      pmon__rtab_share(&tab, f, f_err);
  }
  rec = pmon__node_record(ranks, &tab);
  nodes = json_array();
  if (rec == NULL || nodes == NULL) {
    report_say(1, CMD, "out of memory");
    json_decref(rec);
    goto out;
  }
  json_array_append_new(nodes, rec);
  pmon__rtab_to_job(&tab, 0);
  if (out == NULL) {
    snprintf(def, sizeof def, "pmon-%s-%s.replay.json", job, node);
    out = def;
  }
  setenv(PMON_ENV_OUTPUT, out, 1);
  g->mpi = was_mpi;
  rc = pmon__report(nodes, &tab, NULL);
  g->mpi = 0;
  if (rc != 0)
    report_say(1, CMD, "%s", pmon_errmsg() + strlen("pmon: "));
  else
    status = 0;
  pmon__rtab_free(&tab);
out:
  json_decref(hdr);
  json_decref(nodes);
  json_decref(ranks);
  close_src(&ms);
  for (int k = 0; k < n; k++)
    close_src(&rk[k].s);
  forget(rk, n);
  free(rk);
  free(buf);
  buf = NULL;
  return status;
}

/*
 * spool.c - what a node has measured so far, kept on disk while the job
 * runs, so that a job killed before pmon_finalize() still has its energy
 * ("pmon-report rebuild", pmon(7) "When the job is killed").
 *
 * Each node leader writes one file, DIR/pmon-spool-JOBID/NODE.spool: the
 * node's record as the report would hold it (energy, channels, meters,
 * coverage, events, timeline) up to its latest samples, and the job's
 * identity.  It is written at init, every PMON_SPOOL_INTERVAL seconds
 * (5 by default; 0 turns the spool off) and when SIGTERM or SIGINT comes
 * (by the signal's handler, see below), whole
 * into a new file beside it that is then renamed over it: a reader sees
 * the previous version or the next, never half of one.  After a report
 * written whole, it is removed (PMON_KEEP_SPOOL=1 keeps it).
 *
 * The writing is done by a thread of the leader's own (the writer),
 * which blocks every signal; it takes g->lock while it makes the record,
 * so that the events and the history hold still (the total's poller adds
 * to the history under it).  The same thread writes the Prometheus
 * metrics (lib/metrics.c) from the same record, at their own interval:
 * it runs while either the spool or the metrics are on.  The regions are
 * those the node's ranks last published in their slots of the
 * node-shared segment (lib/regpub.c): at most one interval old for a
 * rank that makes region calls, and as they are for one that makes
 * none.  The MPI-IO figures come the same way, from each
 * rank's MPI-IO calls (lib/io.c): the node's, with the energy of its I/O
 * phases, and its files.
 *
 * SIGTERM (the batch system's notice before SIGKILL) and SIGINT (a
 * terminal's Ctrl-C, which reaches the whole foreground group):
 * base/signals.c catches them for the leader, unless the program ignores
 * them, and calls last_write(), which writes the final version itself,
 * within a few milliseconds, before any launcher's follow-up SIGKILL, and
 * does only what is async-signal-safe.  At each of its writes the thread
 * keeps the file's text ready (struct ready): the same text, in which the
 * figures that move with every sample (the node's energy, channels, span,
 * power, coverage, the instants known and written) each sit in a field
 * of fixed width, with where each is.  The handler writes that text with
 * those fields filled from the meters' latest samples (read from the
 * node's timeline rings, without a lock), the error bar as null (not
 * recomputed), into a file beside the spool, and renames it over it: the
 * node's span ends at the latest sample before the signal.  The rest of
 * the record (events, timeline, regions, MPI-IO) is that of the last
 * periodic write.  The handler and the thread's renames exclude each
 * other (sp.state); a thread's write whose record was taken before the
 * handler's write is not renamed over it.  With the metrics on, the
 * handler then wakes the thread to write them (pmon_job_running 0) and
 * waits for that at most TERM_WAIT_MS.  The signal then goes where the
 * program sent it (base/signals.c says how).
 *
 * The node's other ranks get the same signal from the launcher or the
 * group, and one that dies of it at once makes the launcher kill the
 * rest, the leader too, within milliseconds (Hydra ~4 ms, Open MPI's
 * mpirun 6-9 ms), maybe before its write.  So their handler
 * (follow_leader()) waits, at most FOLLOW_WAIT_MS, for the leader's
 * handler to count a write in the node-shared segment, while the leader
 * keeps its spool (sh->spool_armed), and lets the signal go on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "beside.h"
#include "core.h"
#include "env.h"
#include "rtab.h"

#define SPOOL_VERSION 1
#define SPOOL_DEFAULT_S 5.0
#define SPOOL_MIN_S 0.1
#define SPOOL_MAX_S 86400.0
#define TERM_WAIT_MS 1000 /* the handler's longest wait for the metrics */
#define FOLLOW_WAIT_MS 500 /* a rank's longest wait for the leader's write */
#define STATE_WAIT_NS 200000000ull /* its longest for a rename under way */

/* A figure of the text kept ready for the handler: its kind, and for a
 * channel its meter and channel. */
enum { F_WRITTEN, F_KNOWN, F_ENERGY, F_WALL, F_POWER, F_ERR, F_MAX,
       F_COVER, F_MONO, F_CHAN };
#define FIELD_W 29 /* a field's width: the quoted marker's, "@pmon:NNN:X16@" */

struct field {
  size_t off;           /* in text */
  int kind, meter, ch;
};

/* The spool's text as the thread last wrote it, with its fields, for the
 * handler: written whole by the thread, then only read. */
struct ready {
  char *text;           /* ends with a newline */
  size_t len;
  double start_j[PMON_METER_MAX]; /* the bar's start terms (F_ERR) */
  int n;
  struct field f[];
};

/* sp.state: who renames over the spool now. */
enum { ST_FREE, ST_THREAD, ST_HANDLER, ST_CLOSED };

static struct {
  double interval_s;      /* 0: no spool */
  int keep;               /* PMON_KEEP_SPOOL */
  char dir[PATH_MAX];     /* the job's spool directory */
  char path[PATH_MAX];    /* this node's file */
  json_t *job;            /* the job's identity, written in every file */
  int written;            /* sp.path exists, of this job */
  dev_t dev;              /* the file this process last put at sp.path: */
  ino_t ino;              /* only that one is removed (unlink_ours()) */
  pthread_t thread;
  int started;
  /* Pipes to the thread and back.  The handler reads these: an end is
   * set to -1 before it is closed. */
  volatile sig_atomic_t wake[2], ack[2];
  int metrics_failed;     /* said once */
  int metrics_on;         /* the thread writes the metrics */
  char term_tmp[PATH_MAX + 32]; /* the handler's new file */
  struct ready *_Atomic ready;  /* read by the handler in ST_HANDLER */
  _Atomic int term_fd;    /* term_tmp, empty, made by the thread */
  _Atomic int state;      /* ST_* */
  _Atomic unsigned term_gen; /* the handler's writes */
  unsigned long long mark; /* the markers' nonce */
  uint32_t followed;      /* not a leader: the leader's writes waited for */
} sp = {.wake = {-1, -1}, .ack = {-1, -1}, .term_fd = -1};

int pmon__spool_config(void)
{
  const char *v = getenv(PMON_ENV_SPOOL_INTERVAL), *k;
  char *end;

  sp.interval_s = SPOOL_DEFAULT_S;
  if (v != NULL && *v != '\0') {
    errno = 0;
    sp.interval_s = strtod(v, &end);
    if (errno != 0 || *end != '\0' || !(sp.interval_s == 0 ||
        (sp.interval_s >= SPOOL_MIN_S && sp.interval_s <= SPOOL_MAX_S)))
      return pmon__fail(PMON_ECONFIG, "%s=%s: not 0 (no spool) or a time "
                        "from %g to %g seconds", PMON_ENV_SPOOL_INTERVAL, v,
                        SPOOL_MIN_S, SPOOL_MAX_S);
  }
  k = getenv(PMON_ENV_KEEP_SPOOL);
  sp.keep = k != NULL && *k != '\0' && strcmp(k, "0") != 0;
  pmon__g.spool_interval_s = sp.interval_s;
  return 0;
}

static void fail(const char *fmt, ...) PMON_PRINTF(1, 2);
static void unlink_ours(void);

/* The directory the spool goes under: PMON_SPOOL_DIR, else the report's. */
static void spool_base(char *buf, size_t size)
{
  const char *d = getenv(PMON_ENV_SPOOL_DIR);
  char out[PATH_MAX], *slash;

  if (d != NULL && *d != '\0') {
    snprintf(buf, size, "%s", d);
    return;
  }
  pmon__output_path(out, sizeof out);
  slash = strrchr(out, '/');
  if (slash == NULL)
    snprintf(buf, size, ".");
  else if (slash == out)
    snprintf(buf, size, "/");
  else {
    *slash = '\0';
    snprintf(buf, size, "%s", out);
  }
}

/* Makes sp.dir, or finds it made by another node: a directory of ours,
 * not a link (someone else's would let them choose where we write). */
static int make_dir(void)
{
  struct stat st;

  if (mkdir(sp.dir, 0755) != 0 && errno != EEXIST)
    fail("%s: cannot create: %s", sp.dir, strerror(errno));
  else if (lstat(sp.dir, &st) != 0)
    fail("%s: %s", sp.dir, strerror(errno));
  else if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    fail("%s: not a directory of this user's (a link, or someone else's)",
         sp.dir);
  else
    return 0;
  return -1;
}

/* A name fit for a file: the node's, with '/' and control characters as
 * '_' and a leading '.' too. */
static void file_name(const char *node, char *buf, size_t size)
{
  snprintf(buf, size, "%.255s", *node ? node : "node");
  for (char *p = buf; *p; p++)
    if (*p == '/' || (unsigned char)*p < 0x20 || (p == buf && *p == '.'))
      *p = '_';
}

/* The number V (an integer when INTEGER) into the FIELD_W bytes at OUT,
 * then spaces; "null" when it is not finite or too large for a field.
 * Async-signal-safe: no stdio. */
static void put_num(char *out, double v, uint64_t integer, int is_int)
{
  char buf[48], *p = buf + sizeof buf;
  size_t n;

  if (is_int) {
    do
      *--p = (char)('0' + integer % 10);
    while ((integer /= 10) != 0);
  } else if (!isfinite(v) || fabs(v) >= 1e15) {
    p -= 4;
    memcpy(p, "null", 4);
  } else {
    int neg = v < 0;
    double a = fabs(v);
    uint64_t ip = (uint64_t)a, fr = (uint64_t)((a - (double)ip) * 1e6 + 0.5);

    if (fr >= 1000000) {
      ip++;
      fr -= 1000000;
    }
    for (int k = 0; k < 6; k++, fr /= 10)
      *--p = (char)('0' + fr % 10);
    *--p = '.';
    do
      *--p = (char)('0' + ip % 10);
    while ((ip /= 10) != 0);
    if (neg)
      *--p = '-';
  }
  n = (size_t)(buf + sizeof buf - p);
  memcpy(out, p, n);
  memset(out + n, ' ', FIELD_W - n);
}

/* The marker of field K, quoted as in the text (FIELD_W bytes). */
static void marker(char *buf, size_t size, int k)
{
  snprintf(buf, size, "\"@pmon:%03u:%016llx@\"", (unsigned)k % 1000u, sp.mark);
}

/* Field K: member KEY of object O (or item IDX of array O) becomes K's
 * marker; its value as it was goes into VAL[K] (NAN for null), and its
 * kind into F[K]. */
static void mark(json_t *o, const char *key, size_t idx, int k,
                 struct field *f, double *val, int kind, int meter, int ch)
{
  json_t *v = key != NULL ? json_object_get(o, key) : json_array_get(o, idx);
  char m[FIELD_W + 1];

  val[k] = json_is_number(v) ? json_number_value(v) : NAN;
  f[k].kind = kind;
  f[k].meter = meter;
  f[k].ch = ch;
  marker(m, sizeof m, k);
  m[FIELD_W - 1] = '\0'; /* the string, without its quotes */
  if (key != NULL)
    json_object_set_new(o, key, json_string(m + 1));
  else
    json_array_set_new(o, idx, json_string(m + 1));
}

/* The fields of DOC (the spool's document; its node record REC) marked
 * (mark()), for the handler; how many, at most MAX. */
static int mark_fields(json_t *doc, json_t *rec, struct field *f,
                       double *val, int max)
{
  struct pmon_state *g = &pmon__g;
  json_t *chans = json_object_get(rec, "channels"), *seen = json_object();
  int n = 0;

  mark(doc, "written_s", 0, n++, f, val, F_WRITTEN, -1, -1);
  mark(doc, "known_until_s", 0, n++, f, val, F_KNOWN, -1, -1);
  mark(rec, "energy_j", 0, n++, f, val, F_ENERGY, -1, -1);
  mark(rec, "wall_s", 0, n++, f, val, F_WALL, -1, -1);
  mark(rec, "power_w", 0, n++, f, val, F_POWER, -1, -1);
  mark(rec, "energy_err_j", 0, n++, f, val, F_ERR, -1, -1);
  mark(rec, "energy_err_max_j", 0, n++, f, val, F_MAX, -1, -1);
  mark(rec, "energy_coverage", 0, n++, f, val, F_COVER, -1, -1);
  mark(json_object_get(rec, "monotonic_ns"), NULL, 1, n++, f, val, F_MONO,
       -1, -1);
  /* The channels by their keys, as pmon__node_snapshot() names them: a
   * meter's with a sample, a name met before with "@driver". */
  for (int i = 0; i < g->nmeters && seen != NULL; i++) {
    const struct pmon_meter *m = &g->ms[i].m;
    uint64_t seq = pmon__tl_seq(&g->sh->tl[i]);
    struct pmon_tl_sample last;

    if (seq == 0 || pmon__tl_get(&g->sh->tl[i], seq - 1, &last) != 0)
      continue;
    for (int c = 0; c < m->nch; c++) {
      char key[PMON_CH_NAME_MAX + 40];

      snprintf(key, sizeof key, "%s", m->ch[c].name);
      if (json_object_get(seen, key) != NULL)
        snprintf(key, sizeof key, "%s@%s", m->ch[c].name, m->drv->name);
      json_object_set_new(seen, key, json_pack("[i, i]", i, c));
    }
  }
  {
    const char *key;
    json_t *ic;

    json_object_foreach(seen, key, ic) {
      if (n >= max)
        break;
      if (json_is_number(json_object_get(chans, key)))
        mark(chans, key, 0, n++, f, val, F_CHAN,
             (int)json_integer_value(json_array_get(ic, 0)),
             (int)json_integer_value(json_array_get(ic, 1)));
    }
  }
  json_decref(seen);
  return n;
}

static int by_off(const void *a, const void *b)
{
  size_t x = ((const struct field *)a)->off, y = ((const struct field *)b)->off;

  return (x > y) - (x < y);
}

/* Waits (spinning) until the renames are free, and takes them for WHO;
 * 0, or -1 when they are closed or (HANDLER) not free within
 * STATE_WAIT_NS. */
static int claim(int who)
{
  uint64_t t0 = 0;

  for (;;) {
    int st = ST_FREE;

    if (atomic_compare_exchange_strong(&sp.state, &st, who))
      return 0;
    if (st == ST_CLOSED)
      return -1;
    if (who == ST_HANDLER) {
      uint64_t now = pmon__now_ns();

      if (t0 == 0)
        t0 = now;
      else if (now - t0 > STATE_WAIT_NS)
        return -1;
    }
    sched_yield();
  }
}

static void unclaim(void)
{
  atomic_store(&sp.state, ST_FREE);
}

/* Writes the spool file whole from the node record REC (taken at NOW,
 * after the handler's write GEN) and its regions TAB, and keeps its text
 * ready for the handler; 0, or -1 (the previous version stays).  With
 * SYNC, its data reach the disk before it replaces the previous one (a
 * node that crashes keeps one or the other). */
static int write_spool(json_t *rec, const struct pmon_rtab *tab,
                       unsigned long left, int unread, uint64_t now, int sync,
                       unsigned gen, const double *start_j)
{
  struct pmon_state *g = &pmon__g;
  json_t *doc, *regions;
  char tmp[PATH_MAX + 16], *text;
  size_t len;
  int fd, ok, max, n;
  struct stat st;
  struct ready *r;
  double *val;
  uint64_t mono_last;

  regions = pmon__regions_spool_json(tab);
  doc = json_pack("{s:i, s:O, s:f, s:O, s:o*, s:I, s:i}", "pmon_spool",
                  SPOOL_VERSION, "job", sp.job, "written_s",
                  ((double)now - (double)g->t_init_ns) * 1e-9, "node", rec,
                  "regions", regions, "regions_left_out", (json_int_t)left,
                  "ranks_unread", unread);
  if (doc == NULL)
    return -1;
  {
    json_t *mono = json_object_get(rec, "monotonic_ns");
    double last = (double)json_integer_value(json_array_get(mono, 1));

    json_object_set_new(doc, "known_until_s",
                        json_real((last - (double)g->t_init_ns) * 1e-9));
  }
  /* The fields the handler fills: marked, then found in the text, each
   * then given its value as of now. */
  max = 9 + g->nmeters * PMON_CH_MAX; /* the node's 9, the channels */
  if (max > 999)
    max = 999; /* the markers' three digits */
  mono_last = (uint64_t)json_integer_value(
    json_array_get(json_object_get(rec, "monotonic_ns"), 1));
  r = malloc(sizeof *r + (size_t)max * sizeof r->f[0]);
  val = malloc((size_t)max * sizeof *val);
  if (r == NULL || val == NULL) {
    free(r);
    free(val);
    json_decref(doc);
    return -1;
  }
  n = mark_fields(doc, rec, r->f, val, max);
  text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
                           JSON_REAL_PRECISION(15));
  json_decref(doc);
  len = text != NULL ? strlen(text) : 0;
  for (int k = 0; text != NULL && k < n; k++) {
    char m[FIELD_W + 1], *at;

    marker(m, sizeof m, k);
    if ((at = strstr(text, m)) == NULL) {
      free(text);
      text = NULL;
      break;
    }
    r->f[k].off = (size_t)(at - text);
    if (r->f[k].kind == F_MONO)
      put_num(at, 0, mono_last, 1);
    else
      put_num(at, val[k], 0, 0);
  }
  free(val);
  if (text != NULL)
    qsort(r->f, (size_t)n, sizeof r->f[0], by_off); /* as the handler writes */
  if (text == NULL || (r->text = realloc(text, len + 2)) == NULL) {
    free(text);
    free(r);
    return -1;
  }
  r->text[len++] = '\n';
  r->text[len] = '\0';
  r->len = len;
  memcpy(r->start_j, start_j, sizeof r->start_j);
  r->n = n;
  if ((fd = pmon__create_beside(sp.path, 0666, tmp, sizeof tmp)) < 0) {
    free(r->text);
    free(r);
    return -1;
  }
  ok = pmon__write_all(fd, r->text, r->len) == 0;
  if (sync)
    ok = fdatasync(fd) == 0 && ok;
  ok = fstat(fd, &st) == 0 && ok;
  ok = close(fd) == 0 && ok;
  if (ok && claim(ST_THREAD) == 0) {
    struct ready *old;

    /* A handler's write since the record was taken is newer: it stays. */
    if (atomic_load(&sp.term_gen) != gen || rename(tmp, sp.path) != 0)
      ok = 0;
    else
      sp.dev = st.st_dev, sp.ino = st.st_ino;
    /* The handler's file, made ready (it then only writes and renames). */
    if (atomic_load(&sp.term_fd) < 0)
      atomic_store(&sp.term_fd,
                   open(sp.term_tmp, O_WRONLY | O_CREAT | O_TRUNC |
                                       O_NOFOLLOW | O_CLOEXEC, 0666));
    old = atomic_exchange(&sp.ready, r);
    unclaim();
    r = old;
  } else {
    ok = 0;
  }
  if (r != NULL) {
    free(r->text);
    free(r);
  }
  if (!ok) {
    unlink(tmp);
    return -1;
  }
  sp.written = 1;
  return 0;
}

/* Writes what is due as of now, from one node record: the spool file
 * (SPOOL, with SYNC as write_spool() says) and the metrics (METRICS,
 * with pmon_job_running RUNNING).  0, or -1 when the spool was asked for
 * and could not be written.  On the writer thread, or at init before it
 * starts. */
static int write_now(int spool, int metrics, int sync, int running)
{
  struct pmon_state *g = &pmon__g;
  uint64_t now = pmon__now_ns();
  json_t *rec, *io_ranks = NULL;
  struct pmon_rtab tab;
  unsigned long left;
  unsigned gen = atomic_load(&sp.term_gen);
  int unread, rc = 0;
  double start_j[PMON_METER_MAX];

  pmon__rtab_init(&tab, PMON_RT_NODE, pmon__regions_list_max());
  pmon__regions_spool(&tab, &left, &unread, &io_ranks);
  pthread_mutex_lock(&g->lock);
  rec = pmon__node_snapshot(now, io_ranks, &tab);
  for (int i = 0; i < PMON_METER_MAX; i++)
    start_j[i] = pmon__bar_start_j(i);
  pthread_mutex_unlock(&g->lock);
  json_decref(io_ranks);
  if (rec == NULL)
    rc = -1;
  else {
    /* The metrics first: write_spool() marks the record's figures in
     * place for the handler's last write, and the metrics read them as
     * numbers (they lost the node's series when both were due). */
    if (metrics && pmon__metrics_write(rec, &tab, running) != 0 &&
        !sp.metrics_failed) {
      sp.metrics_failed = 1; /* said once */
      pmon__event(now, -1, "metrics_error", "cannot write the metrics "
                  "file: %s", strerror(errno));
    }
    if (spool)
      rc = write_spool(rec, &tab, left, unread, now, sync, gen, start_j);
  }
  json_decref(rec);
  pmon__rtab_free(&tab);
  return spool ? rc : 0;
}

/* The figures of field F of R as of the latest samples into OUT (FIELD_W
 * bytes), with NOW the handler's instant.  Async-signal-safe: the rings
 * are read without a lock, and the rest was set at init or is R's. */
static void figure(const struct ready *r, const struct field *f, uint64_t now,
                   char *out)
{
  const struct pmon_state *g = &pmon__g;
  const struct pmon_shared *sh = g->sh;
  struct pmon_tl_sample last, first;
  double energy = 0, cover = -1, wall = (double)(now - g->t_init_ns) * 1e-9;
  double lin = 0, bound = 0, sq = 0;
  uint64_t t_last = now;
  int has = g->total_meter >= 0, tm = g->total_meter;

  if (f->kind == F_WRITTEN) {
    put_num(out, wall, 0, 0);
    return;
  }
  if (f->kind == F_CHAN) {
    uint64_t seq = pmon__tl_seq(&sh->tl[f->meter]);

    if (seq > 0 && pmon__tl_get(&sh->tl[f->meter], seq - 1, &last) == 0)
      put_num(out, last.e[f->ch], 0, 0);
    else
      put_num(out, NAN, 0, 0);
    return;
  }
  /* As pmon__node_snapshot() makes them: the total's energy, the run's
   * coverage, and the span of the total's meter, first to last sample. */
  for (int i = 0; i < g->nmeters; i++) {
    uint64_t seq = pmon__tl_seq(&sh->tl[i]);

    if (g->total_mask[i] == 0)
      continue;
    if (seq == 0 || pmon__tl_get(&sh->tl[i], seq - 1, &last) != 0) {
      has = 0;
      continue;
    }
    {
      double em = 0;

      for (int c = 0; c < g->ms[i].m.nch; c++)
        if (g->total_mask[i] & (1u << c))
          em += last.e[c];
      energy += em;
      /* The bar as the report makes it, with the start's term of the
       * last periodic record (its stamp, made at init); for its field
       * only, the rings' reads not made again for every other one. */
      if (f->kind == F_ERR || f->kind == F_MAX)
        pmon__bar_terms(i, &last, em, (double)last.covered_ns * 1e-9,
                        r->start_j[i], &lin, &bound, &sq);
    }
    if (now > g->t_init_ns) {
      double fr = (double)last.covered_ns /
                  (double)(now - g->t_init_ns);

      if (cover < 0 || fr < cover)
        cover = fr;
    }
    if (i == tm) {
      t_last = last.t_ns;
      if (pmon__tl_get(&sh->tl[i], 0, &first) == 0 && last.t_ns > first.t_ns)
        wall = (double)(last.t_ns - first.t_ns) * 1e-9;
      else if (seq > PMON_RING)
        wall = (double)(last.t_ns - g->t_init_ns) * 1e-9;
    }
  }
  switch (f->kind) {
  case F_KNOWN:
    put_num(out, ((double)t_last - (double)g->t_init_ns) * 1e-9, 0, 0);
    break;
  case F_ENERGY:
    put_num(out, has ? energy : NAN, 0, 0);
    break;
  case F_WALL:
    put_num(out, wall, 0, 0);
    break;
  case F_POWER:
    put_num(out, has && wall > 0 ? energy / wall : NAN, 0, 0);
    break;
  case F_COVER:
    put_num(out, has && cover >= 0 ? cover : NAN, 0, 0);
    break;
  case F_ERR: {
    double bar = pmon__err_combine(lin, bound, sq);

    put_num(out, has && isfinite(bar) ? bar : NAN, 0, 0);
    break;
  }
  case F_MAX: {
    double max = pmon__err_max(lin, bound);

    put_num(out, has && isfinite(max) ? max : NAN, 0, 0);
    break;
  }
  default: /* F_MONO */
    put_num(out, 0, t_last, 1);
    break;
  }
}

/* SIGTERM, SIGINT (base/signals.c): the final version, written here from
 * the text kept ready with the latest figures; then, with the metrics
 * on, the thread writes them, and the handler waits for it at most
 * TERM_WAIT_MS.  Async-signal-safe; returns 0 (no second act if the
 * program's handler returns). */
static int last_write(void)
{
  int wake = sp.wake[1], ack = sp.ack[0];
  char c = 't';

  if (claim(ST_HANDLER) == 0) {
    struct ready *r = atomic_load(&sp.ready);
    uint64_t now = pmon__now_ns();
    int fd = atomic_exchange(&sp.term_fd, -1), ok = 0;

    atomic_fetch_add(&sp.term_gen, 1);
    /* The thread's file made ready, else (a second signal) one made now. */
    if (r != NULL && fd < 0)
      fd = open(sp.term_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
                               O_CLOEXEC, 0666);
    if (r != NULL && fd >= 0) {
      /* The text is the handler's while it holds ST_HANDLER: its fields
       * are filled in place, and it goes in one write. */
      for (int k = 0; k < r->n; k++)
        figure(r, &r->f[k], now, r->text + r->f[k].off);
      ok = pmon__write_all(fd, r->text, r->len) == 0;
    }
    if (fd >= 0) {
      ok = close(fd) == 0 && ok;
      if (!ok || rename(sp.term_tmp, sp.path) != 0)
        unlink(sp.term_tmp);
    }
    /* Done or failed: the other ranks need not wait longer. */
    if (pmon__g.sh != NULL)
      atomic_fetch_add(&pmon__g.sh->spool_final, 1);
    unclaim();
  }
  if (sp.metrics_on && wake >= 0 && ack >= 0 && write(wake, &c, 1) == 1) {
    struct pollfd p = {ack, POLLIN, 0};

    if (poll(&p, 1, TERM_WAIT_MS) > 0 && read(ack, &c, 1) < 0)
      c = 0;
  }
  return 0;
}

/* SIGTERM, SIGINT on a rank that is not its node's leader: while the
 * leader keeps a spool, wait until its handler has counted one more
 * final write than this rank saw last, at most FOLLOW_WAIT_MS (the
 * leader may have no signal coming).  Holds ST_HANDLER meanwhile, so
 * that pmon__spool_stop() does not free the segment under it.
 * Async-signal-safe; returns 0. */
static int follow_leader(void)
{
  struct pmon_shared *sh = pmon__g.sh;

  if (sh == NULL || claim(ST_HANDLER) != 0)
    return 0;
  for (int ms = 0; ms < FOLLOW_WAIT_MS && atomic_load(&sh->spool_armed);
       ms++) {
    uint32_t f = atomic_load(&sh->spool_final);
    struct timespec ts = {0, 1000000};

    if (f != sp.followed) {
      sp.followed = f;
      break;
    }
    nanosleep(&ts, NULL);
  }
  unclaim();
  return 0;
}

/* The next time due after DUE by PERIOD, not in the past. */
static uint64_t next_due(uint64_t due, uint64_t period)
{
  uint64_t now = pmon__now_ns();

  due += period;
  return due > now ? due : now + period;
}

/* The writer thread: the spool file and the metrics, each at its own
 * interval (UINT64_MAX when it is off), and both at once when woken with
 * 't' (SIGTERM: then it answers on the ack pipe, and the metrics say the
 * job no longer runs); ends on 'q'. */
static void *spool_main(void *arg)
{
  uint64_t sp_period = (uint64_t)(sp.interval_s * 1e9);
  uint64_t mt_period = (uint64_t)(pmon__metrics_interval() * 1e9);
  uint64_t sp_due = sp.job != NULL && sp_period > 0
                      ? pmon__now_ns() + sp_period : UINT64_MAX;
  uint64_t mt_due = mt_period > 0 ? pmon__now_ns() + mt_period : UINT64_MAX;

  (void)arg;
  for (;;) {
    uint64_t now = pmon__now_ns(), due = sp_due < mt_due ? sp_due : mt_due;
    struct pollfd p = {sp.wake[0], POLLIN, 0};
    int ms = due == UINT64_MAX ? -1
             : due > now ? (int)((due - now + 999999) / 1000000) : 0, r;
    char c = 0;

    r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR)
      continue;
    if (r > 0 && read(sp.wake[0], &c, 1) == 1) {
      if (c == 'q')
        break;
      /* 't': the handler has written the spool; the metrics say the job
       * no longer runs. */
      write_now(c != 't' && sp_due != UINT64_MAX, mt_due != UINT64_MAX,
                c != 't', c != 't');
      if (c == 't' && write(sp.ack[1], &c, 1) < 0)
        c = 0;
      continue;
    }
    now = pmon__now_ns();
    if (now >= sp_due || now >= mt_due) {
      int spool = now >= sp_due, metrics = now >= mt_due;

      write_now(spool, metrics, 1, 1);
      if (spool)
        sp_due = next_due(sp_due, sp_period);
      if (metrics)
        mt_due = next_due(mt_due, mt_period);
    }
  }
  return NULL;
}

/* The names of every node, on rank 0's leader, for the rebuilt report to
 * say which are missing; NULL elsewhere or when they cannot be had.
 * Collective over the leaders. */
static json_t *node_names(void)
{
  struct pmon_state *g = &pmon__g;
  json_t *mine = json_pack("[s]", g->node_name), *all = NULL;

  if (mine == NULL)
    mine = json_array(); /* still takes part; the list is then short */
  if (pmon__tree_gather(g->mpi ? g->leaders : MPI_COMM_NULL, mine, &all) != 0 ||
      (all != NULL && json_array_size(all) != (size_t)g->nnodes)) {
    json_decref(all);
    return NULL;
  }
  return all;
}

/* The spool cannot be kept: a "spool_error" event in the node's record
 * says why, and the job goes on without it. */
static void fail(const char *fmt, ...)
{
  char why[200];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  pmon__event(pmon__now_ns(), -1, "spool_error", "%s: the job goes on "
              "without a spool", why);
  if (sp.written)
    unlink_ours(); /* a spool that stops being written would mislead */
  sp.written = 0;
  json_decref(sp.job);
  sp.job = NULL;
}

/* Makes the spool's directory and writes its first file (the job's
 * identity, with the node NAMES, which it takes); on failure says why
 * (fail()) and leaves sp.job NULL. */
static void open_spool(json_t *names)
{
  struct pmon_state *g = &pmon__g;
  char base[PATH_MAX], name[300], start[32], out[PATH_MAX];
  struct tm tm;
  int node = 0;

  if (g->mpi)
    PMPI_Comm_rank(g->leaders, &node);
  spool_base(base, sizeof base);
  file_name(g->node_name, name, sizeof name);
  if ((size_t)snprintf(sp.dir, sizeof sp.dir, "%s/pmon-spool-%s", base,
                       g->jobid) >= sizeof sp.dir ||
      (size_t)snprintf(sp.path, sizeof sp.path, "%s/%s.spool", sp.dir,
                       name) >= sizeof sp.path) {
    json_decref(names);
    return fail("%s: path too long", base);
  }
  if (make_dir() != 0) {
    json_decref(names);
    return;
  }
  /* The process's own: another process of the job on this node (pmon-run
   * and its command) may write a spool at the same path. */
  if ((size_t)snprintf(sp.term_tmp, sizeof sp.term_tmp, "%s.tmp.signal.%ld",
                       sp.path, (long)getpid()) >= sizeof sp.term_tmp)
    sp.term_tmp[0] = '\0';
  gmtime_r(&g->wall_start.tv_sec, &tm);
  strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", &tm);
  pmon__output_path(out, sizeof out);
  /* "report": where the report will be, for pmon-report watch. */
  sp.job = json_pack("{s:s, s:s, s:i, s:i, s:s, s:b, s:i, s:f, s:s}", "id",
                     g->jobid, "id_source", g->jobid_source, "ranks", g->size,
                     "nodes", g->nnodes, "start", start, "mpi", g->mpi,
                     "node_index", node, "interval_s", sp.interval_s,
                     "report", out);
  if (sp.job == NULL) {
    json_decref(names);
    return fail("out of memory");
  }
  pmon__label_tags(sp.job);
  json_object_set_new(sp.job, "region_nodes",
                      json_integer(pmon__regions_list_max()));
  json_object_set_new(sp.job, "io_files", json_integer(pmon__io_list_max()));
  if (names != NULL)
    json_object_set_new(sp.job, "node_names", names);
  if (write_now(1, 0, 1, 1) != 0)
    return fail("cannot write %s: %s", sp.path, strerror(errno));
}

void pmon__spool_start(void)
{
  struct pmon_state *g = &pmon__g;
  json_t *names;
  int metrics;

  if (!g->leader) {
    /* Only where the leader may keep a spool, and has ranks to wait. */
    atomic_store(&sp.state, ST_FREE);
    if (sp.interval_s > 0 && g->sh != NULL && g->local_size > 1) {
      sp.followed = atomic_load(&g->sh->spool_final);
      pmon__signals_take(PMON_SIG_SPOOL, follow_leader, NULL);
    }
    return;
  }
  /* The markers of the text kept ready: of this process and instant. */
  sp.mark = (unsigned long long)pmon__now_ns() ^
            (unsigned long long)getpid() << 40 ^ 0x9e3779b97f4a7c15ull;
  atomic_store(&sp.state, ST_FREE);
  /* Collective over the leaders, whether or not this node keeps a spool
   * (PMON_SPOOL_INTERVAL may differ between nodes). */
  names = node_names();
  pmon__metrics_start();
  metrics = pmon__metrics_interval() > 0;
  sp.metrics_on = metrics;
  if (sp.interval_s > 0)
    open_spool(names);
  else
    json_decref(names);
  if (sp.job == NULL && !metrics)
    return;
  if (metrics)
    write_now(0, 1, 0, 1);
  {
    int w[2] = {-1, -1}, a[2] = {-1, -1};

    if (pipe(w) != 0 || pipe(a) != 0) {
      int e = errno;

      for (int i = 0; i < 2; i++) {
        if (w[i] >= 0)
          close(w[i]);
        if (a[i] >= 0)
          close(a[i]);
      }
      return fail("pipe: %s", strerror(e));
    }
    for (int i = 0; i < 2; i++) {
      fcntl(w[i], F_SETFD, FD_CLOEXEC);
      fcntl(a[i], F_SETFD, FD_CLOEXEC);
      sp.wake[i] = w[i];
      sp.ack[i] = a[i];
    }
    /* The handler never blocks on a full pipe. */
    fcntl(w[1], F_SETFL, fcntl(w[1], F_GETFL) | O_NONBLOCK);
  }
  sp.started = pmon__thread_start(&sp.thread, spool_main, NULL) == 0;
  if (!sp.started) {
    pmon__spool_stop(); /* its pipes */
    return fail("cannot start its thread");
  }
  pmon__signals_take(PMON_SIG_SPOOL, last_write, NULL);
  if (sp.job != NULL && g->sh != NULL)
    atomic_store(&g->sh->spool_armed, 1);
}

void pmon__spool_stop(void)
{
  char c = 'q';
  int joined = !sp.started;
  struct ready *r;

  /* The other ranks' handlers stop waiting for this one's. */
  if (pmon__g.leader && pmon__g.sh != NULL)
    atomic_store(&pmon__g.sh->spool_armed, 0);
  pmon__signals_give(PMON_SIG_SPOOL);
  /* A handler under way (on another thread) ends first; none after. */
  claim(ST_CLOSED);
  if (sp.started) {
    ssize_t n;

    while ((n = write(sp.wake[1], &c, 1)) < 0 &&
           (errno == EINTR || errno == EAGAIN))
      ;
    joined = n == 1 && pthread_join(sp.thread, NULL) == 0;
    sp.started = 0;
  }
  if (joined && (r = atomic_exchange(&sp.ready, NULL)) != NULL) {
    free(r->text);
    free(r);
  }
  {
    int fd = atomic_exchange(&sp.term_fd, -1);

    if (fd >= 0) {
      close(fd);
      unlink(sp.term_tmp);
    }
  }
  /* A thread that could not be told to end keeps its pipes. */
  for (int i = 0; i < 2 && joined; i++) {
    int w = sp.wake[i], a = sp.ack[i];

    sp.wake[i] = sp.ack[i] = -1;
    if (w >= 0)
      close(w);
    if (a >= 0)
      close(a);
  }
}

/* Remove the spool file when it is still the one this process wrote
 * last: not one that another process of the job put there since
 * (pmon-run's measurement given up for its command's own). */
static void unlink_ours(void)
{
  struct stat st;

  if (lstat(sp.path, &st) == 0 && st.st_dev == sp.dev && st.st_ino == sp.ino)
    unlink(sp.path);
}

void pmon__spool_done(int report_written)
{
  if (sp.job == NULL)
    return;
  if (report_written && !sp.keep && sp.written)
    unlink_ours();
  sp.written = 0;
  json_decref(sp.job);
  sp.job = NULL;
}

const char *pmon__spool_dir(void)
{
  return sp.job != NULL && sp.written && sp.dir[0] != '\0' ? sp.dir : NULL;
}

void pmon__spool_rmdir(void)
{
  if (sp.dir[0] != '\0' && !sp.keep)
    rmdir(sp.dir); /* fails, harmlessly, while any node's file remains */
}

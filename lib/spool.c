/*
 * spool.c - what a node has measured so far, kept on disk while the job
 * runs, so that a job killed before pmon_finalize() still has its energy
 * ("pmon-report rebuild", pmon(7) "When the job is killed").
 *
 * Each node leader writes one file, DIR/pmon-spool-JOBID/NODE.spool: the
 * node's record as the report would hold it (energy, channels, meters,
 * coverage, events, timeline) up to its latest samples, and the job's
 * identity.  It is written at init, every PMON_SPOOL_INTERVAL seconds
 * (5 by default; 0 turns the spool off) and when SIGTERM comes, whole
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
 * node-shared segment (lib/region.c): at most one interval old for a
 * rank that makes region calls, and as they are for one that makes
 * none.  The MPI-IO figures come the same way, from each
 * rank's MPI-IO calls (lib/io.c): the node's, with the energy of its I/O
 * phases, and its files.
 *
 * SIGTERM (the batch system's notice before SIGKILL): base/signals.c
 * catches it for the leader, unless the program ignores it, and calls
 * last_write(), which does only what is async-signal-safe:
 * it writes a byte to a pipe that wakes the writer thread and waits
 * (poll(), at most 2 s) for the byte the thread writes back once the
 * spool is written (and the metrics, with pmon_job_running 0).  The
 * signal then goes where the program sent it (base/signals.c says how).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#define TERM_WAIT_MS 2000 /* the handler's longest wait for the spool */

static struct {
  double interval_s;      /* 0: no spool */
  int keep;               /* PMON_KEEP_SPOOL */
  char dir[PATH_MAX];     /* the job's spool directory */
  char path[PATH_MAX];    /* this node's file */
  json_t *job;            /* the job's identity, written in every file */
  int written;            /* sp.path exists, of this job */
  pthread_t thread;
  int started;
  /* Pipes to the thread and back.  The handler reads these: an end is
   * set to -1 before it is closed. */
  volatile sig_atomic_t wake[2], ack[2];
  int metrics_failed;     /* said once */
} sp = {.wake = {-1, -1}, .ack = {-1, -1}};

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

/* Writes the spool file whole from the node record REC (taken at NOW)
 * and its regions TAB; 0, or -1 (the previous version stays).  With SYNC,
 * its data reach the disk before it replaces the previous one (a node
 * that crashes keeps one or the other); the writing for SIGTERM goes
 * without, as fast as it can: the process is about to end, not the node,
 * and the launcher may kill it at any moment. */
static int write_spool(json_t *rec, const struct pmon_rtab *tab,
                       unsigned long left, int unread, uint64_t now, int sync)
{
  struct pmon_state *g = &pmon__g;
  json_t *doc, *regions;
  char tmp[PATH_MAX + 16], *text;
  size_t len;
  int fd, ok;

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
  text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
                           JSON_REAL_PRECISION(15));
  json_decref(doc);
  if (text == NULL)
    return -1;
  len = strlen(text);
  if ((fd = pmon__create_beside(sp.path, tmp, sizeof tmp)) < 0) {
    free(text);
    return -1;
  }
  ok = pmon__write_all(fd, text, len) == 0 && write(fd, "\n", 1) == 1;
  free(text);
  if (sync)
    ok = fdatasync(fd) == 0 && ok;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, sp.path) != 0) {
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
  int unread, rc = 0;

  pmon__rtab_init(&tab, PMON_RT_NODE, pmon__regions_list_max());
  pmon__regions_spool(&tab, &left, &unread, &io_ranks);
  pthread_mutex_lock(&g->lock);
  rec = pmon__node_snapshot(now, io_ranks, &tab);
  pthread_mutex_unlock(&g->lock);
  json_decref(io_ranks);
  if (rec == NULL)
    rc = -1;
  else {
    if (spool)
      rc = write_spool(rec, &tab, left, unread, now, sync);
    if (metrics && pmon__metrics_write(rec, &tab, running) != 0 &&
        !sp.metrics_failed) {
      sp.metrics_failed = 1; /* said once */
      pmon__event(now, -1, "metrics_error", "cannot write the metrics "
                  "file: %s", strerror(errno));
    }
  }
  json_decref(rec);
  pmon__rtab_free(&tab);
  return spool ? rc : 0;
}

/* SIGTERM (base/signals.c): the spool thread writes now, and the handler
 * waits for it, at most TERM_WAIT_MS.  Async-signal-safe; returns 0 (no
 * second act if the program's handler returns). */
static int last_write(void)
{
  int wake = sp.wake[1], ack = sp.ack[0];
  char c = 't';

  if (wake >= 0 && ack >= 0 && write(wake, &c, 1) == 1) {
    struct pollfd p = {ack, POLLIN, 0};

    if (poll(&p, 1, TERM_WAIT_MS) > 0 && read(ack, &c, 1) < 0)
      c = 0;
  }
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
      write_now(sp_due != UINT64_MAX, mt_due != UINT64_MAX, c != 't',
                c != 't');
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
    unlink(sp.path); /* a spool that stops being written would mislead */
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
  sigset_t all, old;
  int metrics;

  if (!g->leader)
    return;
  /* Collective over the leaders, whether or not this node keeps a spool
   * (PMON_SPOOL_INTERVAL may differ between nodes). */
  names = node_names();
  pmon__metrics_start();
  metrics = pmon__metrics_interval() > 0;
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
  }
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  sp.started = pthread_create(&sp.thread, NULL, spool_main, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!sp.started) {
    pmon__spool_stop(); /* its pipes */
    return fail("cannot start its thread");
  }
  pmon__signals_take(PMON_SIG_SPOOL, last_write, NULL);
}

void pmon__spool_stop(void)
{
  char c = 'q';
  int joined = !sp.started;

  pmon__signals_give(PMON_SIG_SPOOL);
  if (sp.started) {
    ssize_t n;

    while ((n = write(sp.wake[1], &c, 1)) < 0 && errno == EINTR)
      ;
    joined = n == 1 && pthread_join(sp.thread, NULL) == 0;
    sp.started = 0;
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

void pmon__spool_done(int report_written)
{
  if (sp.job == NULL)
    return;
  if (report_written && !sp.keep && sp.written)
    unlink(sp.path);
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

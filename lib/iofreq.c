/*
 * iofreq.c - PMON_IO_FREQ: while a node's ranks are in an I/O phase, the
 * clock of the node's CPUs is capped (scaling_max_freq), and the value
 * found at init is written back when the last of them leaves its phase,
 * at finalize, on SIGTERM, SIGINT and the fatal signals (base/signals.c),
 * at exit() before finalize and at MPI_Abort.  Only on request, only where
 * every file is writable; otherwise one line says why and nothing is
 * changed.
 *
 * Each rank opens, at init (before the last barrier of pmon_init, so that
 * no rank caps before every rank has read the values to restore), the
 * scaling_max_freq of every CPU of its node (g->cpus) and reads it.  The
 * ranks of a node share a counter of the ranks in a phase in the
 * node-shared segment, under a spin lock: the rank that takes it from 0
 * to 1 caps every CPU, the one that brings it back to 0 restores them.  A
 * rank enters when a call begins while it is out (pmon__io_freq_begin(),
 * before the call: a long first call is capped all along); a thread of
 * the rank's own, which sleeps unless the rank is in, sees the phase end
 * (no call in flight, and none ended for the phase gap) and leaves.
 *
 * A rank killed with SIGKILL cannot restore: the leader keeps the job in
 * the node's record (lib/freqrec.c: PMON_IO_FREQ_STATE, default
 * /var/tmp), which the user's next job, or root's epilog
 * (pmon-iofreq(8), examples/slurm-epilog-iofreq.sh) from the limits that
 * root's prolog saved, settles.  The record is used only when it is this
 * user's (docs/security.md).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "freqrec.h"
#include "preload.h"

#define VALUE_MAX 16 /* "4294967295\n" */

static struct {
  unsigned mhz;       /* PMON_IO_FREQ, 0 when not asked */
  int on;             /* this rank caps and restores */
  int n;              /* CPUs */
  int *cpu;           /* their numbers */
  int *fd;            /* their scaling_max_freq, for writing */
  char cap[VALUE_MAX];
  int in;             /* counted in the node's active ranks */
  pthread_t thread;
  int thread_on, stop;
  int cond_made;      /* COND was initialised (on CLOCK_MONOTONIC) */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  char state[PATH_MAX]; /* the node's record while it holds the job */
  volatile sig_atomic_t armed; /* FD and ORIG may be written back */
  int inflight;       /* the rank's calls in flight (atomic) */
  uint64_t last_end;  /* the stamp at which the last one ended (atomic) */
  int exit_hook;      /* at_exit() is registered */
  int finished;       /* the leader took the job out of the record */
  int restored;       /* and every CPU went where it should */
  long cal_pid;       /* a calibration of the clock that ran: its pid */
} q = {.lock = PTHREAD_MUTEX_INITIALIZER};

int pmon__iofreq_config(void)
{
  const char *v = getenv(PMON_ENV_IO_FREQ);
  char *end;
  long mhz;

  q.mhz = 0;
  if (v == NULL || *v == '\0')
    return 0;
  errno = 0;
  mhz = strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || mhz < 1 || mhz > 100000)
    return pmon__fail(PMON_ECONFIG,
                      "%s: \"%.40s\": not a clock in MHz from 1 to 100000",
                      PMON_ENV_IO_FREQ, v);
  q.mhz = (unsigned)mhz;
  return 0;
}

static void path_of(char *buf, size_t size, int cpu)
{
  snprintf(buf, size, "%s/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
           pmon__sysfs_root(), cpu);
}

/* Every CPU's limit from before any job, or the cap (CAP), written by
 * this rank; the writes that failed.  Async-signal-safe. */
static int write_all(int cap)
{
  int failed = 0;

  for (int i = 0; i < q.n; i++) {
    char buf[VALUE_MAX], *p = buf + sizeof buf;
    const char *v = q.cap;
    size_t l;

    if (!cap) {
      uint32_t k = pmon__g.sh->freq.orig_khz[q.cpu[i]];

      if (k == 0)
        continue; /* not known: nothing to put back */
      *--p = '\n';
      do
        *--p = (char)('0' + k % 10);
      while ((k /= 10) != 0);
      v = p;
    }
    l = cap ? strlen(q.cap) : (size_t)(buf + sizeof buf - p);
    if (pwrite(q.fd[i], v, l, 0) != (ssize_t)l) {
      failed++;
    } else if (ftruncate(q.fd[i], (off_t)l) != 0) {
      /* sysfs has no length to set; a fixture's file has */
    }
  }
  return failed;
}

/* The node's lock.  A thread of this process holds it with the signals
 * of pmon's handler blocked (block_sigs()), so that the handler, which
 * takes it too (recap_now()), never waits for the thread it interrupted:
 * whoever holds it is running, and lets go. */
static void lock_node(void)
{
  while (atomic_exchange_explicit(&pmon__g.sh->freq.lock, 1,
                                  memory_order_acquire))
    sched_yield();
}

static void unlock_node(void)
{
  atomic_store_explicit(&pmon__g.sh->freq.lock, 0, memory_order_release);
}

/* The signals whose handler may take the node's lock (base/signals.c):
 * blocked into *OLD. */
static void block_sigs(sigset_t *old)
{
  static const int sigs[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGABRT,
                             SIGFPE, SIGILL};
  sigset_t set;

  sigemptyset(&set);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    sigaddset(&set, sigs[i]);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Every CPU back to its value now, whatever the node's other ranks do:
 * the process is ending (base/signals.c for SIGTERM, SIGINT and the fatal
 * signals; exit() before finalize; MPI_Abort).  Async-signal-safe:
 * pwrite() of strings made at init. */
int pmon__iofreq_restore_now(void)
{
  int saved = errno, capped = 0;

  if (q.armed && pmon__g.sh != NULL && pmon__g.sh->freq.capped) {
    write_all(0);
    capped = 1;
  }
  errno = saved;
  return capped;
}

/* After a signal whose handler returned: the cap again, if the node is
 * still in a phase, under the node's lock (the last rank may leave
 * meanwhile, and its leave() restores).  Async-signal-safe: no thread of
 * this process holds the lock with these signals deliverable. */
static void recap_now(void)
{
  int saved = errno;

  if (q.armed && pmon__g.sh != NULL) {
    lock_node();
    if (pmon__g.sh->freq.capped)
      write_all(1);
    unlock_node();
  }
  errno = saved;
}

/* exit() without finalize: the clock back. */
static void at_exit(void)
{
  if (atomic_load(&pmon__g.phase) == PMON_PHASE_RUNNING)
    pmon__iofreq_restore_now();
}

/* The node's record (lib/freqrec.c): this job joins (2), marks itself in
 * a phase or out (1, 0), or leaves (-1); then every CPU is settled.  The
 * writes that failed, -1 when the record could not be used, or
 * CALIBRATING when a calibration of the clock runs (pmon-meters
 * --calibrate-clock, its pid in q.cal_pid): then nothing is written to
 * the clock, the job does not join, and a job that leaves only leaves.
 * The calibration is looked for under the record's lock, which it takes
 * after its own and before its first write: so either this job sees it,
 * or it sees this job. */
#define CALIBRATING (-2)
static int record(int active)
{
  struct pmon_freqrec *r = malloc(sizeof *r);
  struct pmon_freqrec_job *j;
  struct pmon_freq_shared *s = &pmon__g.sh->freq;
  int failed = -1;

  if (r == NULL)
    return -1;
  if (pmon__freqrec_lock(r, pmon__g.node_name, active == 2) != 0) {
    free(r);
    return -1;
  }
  if (pmon__freqrec_cal_running(pmon__g.node_name, &q.cal_pid)) {
    if (active < 0 && (j = pmon__freqrec_find(r, s->job)) != NULL)
      pmon__freqrec_remove(r, j);
    if (active < 0 && r->njobs == 0) /* the calibration puts them back */
      memset(r->orig, 0, sizeof r->orig);
    pmon__freqrec_unlock(r, active < 0);
    if (active < 0)
      q.state[0] = '\0';
    free(r);
    return CALIBRATING;
  }
  pmon__freqrec_prune(r);
  if (active == 2) { /* join: the limits now, once the dead are settled */
    pmon__freqrec_settle(r);
    if ((j = pmon__freqrec_add(r, s->job)) != NULL) {
      j->pid = (long)getpid();
      j->start = pmon__freqrec_start_of(j->pid);
      j->cap_khz = q.mhz * 1000u;
      for (int i = 0; i < q.n; i++) {
        int c = q.cpu[i];
        char buf[VALUE_MAX];
        ssize_t len;

        if (r->orig[c] == 0 &&
            (len = pread(q.fd[i], buf, sizeof buf - 1, 0)) > 0) {
          buf[len] = '\0';
          r->orig[c] = (unsigned)strtoul(buf, NULL, 10);
        }
        s->orig_khz[c] = r->orig[c];
        j->cpus[c / (8 * sizeof j->cpus[0])] |=
          1UL << (c % (8 * sizeof j->cpus[0]));
      }
      failed = 0;
    }
  } else if ((j = pmon__freqrec_find(r, s->job)) != NULL) {
    if (active < 0)
      pmon__freqrec_remove(r, j);
    else
      j->active = active;
    failed = pmon__freqrec_settle(r);
  }
  if (pmon__freqrec_unlock(r, 1) != 0 && active == 2)
    failed = -1;
  if (failed >= 0)
    snprintf(q.state, sizeof q.state, "%s", active < 0 ? "" : r->path);
  free(r);
  return failed;
}

static void enter(void);

void pmon__iofreq_open(void)
{
  char path[PATH_MAX];
  int err = 0, bad = -1;

  if (q.mhz == 0)
    return;
  q.fd = calloc(PMON_CPUS_MAX, sizeof *q.fd);
  q.cpu = calloc(PMON_CPUS_MAX, sizeof *q.cpu);
  if (q.fd == NULL || q.cpu == NULL) {
    pmon__say("%s: out of memory: the clock is left as it is",
              PMON_ENV_IO_FREQ);
    pmon__iofreq_close();
    return;
  }
  for (int c = 0; c < PMON_CPUS_MAX && err == 0; c++) {
    char value[VALUE_MAX];
    ssize_t len;
    int fd;

    if (!PMON_CPU_ISSET(c, pmon__g.cpus))
      continue;
    path_of(path, sizeof path, c);
    bad = c;
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
      err = errno;
      break;
    }
    len = pread(fd, value, VALUE_MAX - 1, 0);
    if (len > 0)
      value[len] = '\0';
    if (len <= 1 || value[len - 1] != '\n' ||
        strspn(value, "0123456789") != (size_t)len - 1) {
      err = len < 0 ? errno : EINVAL;
      close(fd);
      break;
    }
    q.cpu[q.n] = c;
    q.fd[q.n++] = fd;
  }
  if (err != 0 || q.n == 0) {
    if (pmon__g.local_rank == 0) {
      if (bad < 0)
        pmon__say("%s: the ranks' CPUs are not known: the clock is left as "
                  "it is", PMON_ENV_IO_FREQ);
      else
        pmon__say("%s: %s: not writable: %s; the clock is left as it is "
                  "(pmon-mpiio(7) says how a site grants it)",
                  PMON_ENV_IO_FREQ, path,
                  err == EINVAL ? "not a clock in kHz" : strerror(err));
    }
    pmon__iofreq_close();
    return;
  }
  snprintf(q.cap, sizeof q.cap, "%u\n", q.mhz * 1000u);
  {
    /* The watch thread's waits are on CLOCK_MONOTONIC, as the stamps. */
    pthread_condattr_t ca;

    if (pthread_condattr_init(&ca) != 0 ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&q.cond, &ca) != 0) {
      pmon__say("%s: cannot make a condition variable: the clock is left as "
                "it is", PMON_ENV_IO_FREQ);
      pmon__iofreq_close();
      return;
    }
    pthread_condattr_destroy(&ca);
    q.cond_made = 1;
  }
  /* The leader puts the job in the node's record, and the limits to put
   * back where every rank finds them, before the barrier after which a
   * rank may cap. */
  if (pmon__g.leader) {
    struct pmon_freq_shared *s = &pmon__g.sh->freq;

    int rc;

    pmon__freqrec_job_key(s->job, sizeof s->job);
    s->joined = (rc = record(2)) >= 0;
    if (rc == CALIBRATING)
      pmon__say("%s: a calibration of the clock runs on this node "
                "(pmon-meters --calibrate-clock, pid %ld): the clock is left "
                "as it is", PMON_ENV_IO_FREQ, q.cal_pid);
    else if (!s->joined)
      pmon__say("%s: the node's record: %s; the clock is left as it is "
                "(pmon-mpiio(7), \"The clock during I/O\")", PMON_ENV_IO_FREQ,
                pmon_errmsg() + strlen("pmon: "));
  }
  if (!q.exit_hook)
    q.exit_hook = atexit(at_exit) == 0;
  q.on = 1;
  q.armed = 1;
  pmon__io_phase_hook(enter);
  pmon__signals_take(PMON_SIG_CLOCK, pmon__iofreq_restore_now, recap_now);
  /* Out of a phase until the first call begins. */
  __atomic_store_n(&pmon__io_hot.freq_out, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&pmon__io_hot.freq_on, 1, __ATOMIC_RELAXED);
}

/* This rank leaves: the last one of the node restores. */
static void leave(void)
{
  struct pmon_freq_shared *s = &pmon__g.sh->freq;

  sigset_t old;

  if (!q.in)
    return;
  block_sigs(&old);
  lock_node();
  if (--s->active == 0 && s->capped) {
    int failed = record(0);

    /* A calibration holds the clock: it puts back what it found. */
    s->failed += (uint32_t)(failed >= 0            ? failed
                            : failed == CALIBRATING ? 0
                                                    : write_all(0));
    s->capped_ns += pmon__now_ns() - s->t_cap_ns;
    s->capped = 0;
  }
  unlock_node();
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  q.in = 0;
  /* The next call enters again. */
  __atomic_store_n(&pmon__io_hot.freq_out, 1, __ATOMIC_SEQ_CST);
}

/* The thread that sees the rank's phase end: no call in flight, and
 * none ended for the gap.  It says first that the rank is out (FREQ_OUT),
 * then looks at the calls in flight: a call that begins meanwhile sees
 * the one or the other is seen (both sequentially consistent), and its
 * enter() waits for the lock this thread holds. */
static void *watch(void *arg)
{
  (void)arg;
  pthread_mutex_lock(&q.lock);
  while (!q.stop) {
    uint64_t gap = pmon__io_gap_ns();
    struct timespec ts;

    if (!q.in) {
      pthread_cond_wait(&q.cond, &q.lock);
      continue;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)(gap / 2 > 1000000 ? gap / 2 : 1000000);
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_cond_timedwait(&q.cond, &q.lock, &ts);
    if (q.stop || !q.in)
      continue;
    __atomic_store_n(&pmon__io_hot.freq_out, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&q.inflight, __ATOMIC_SEQ_CST) == 0 &&
        pmon__io_age_ns(__atomic_load_n(&q.last_end, __ATOMIC_RELAXED)) >
          gap)
      leave();
    else
      __atomic_store_n(&pmon__io_hot.freq_out, 0, __ATOMIC_SEQ_CST);
  }
  pthread_mutex_unlock(&q.lock);
  return NULL;
}

void pmon__io_freq_begin(void)
{
  __atomic_add_fetch(&q.inflight, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&pmon__io_hot.freq_out, __ATOMIC_SEQ_CST))
    enter();
}

void pmon__io_freq_end(uint64_t t1)
{
  __atomic_store_n(&q.last_end, t1, __ATOMIC_RELAXED);
  __atomic_sub_fetch(&q.inflight, 1, __ATOMIC_SEQ_CST);
}

static void enter(void)
{
  struct pmon_freq_shared *s;

  if (!q.on)
    return;
  pthread_mutex_lock(&q.lock);
  if (q.in) /* the watch thread looked, and kept the rank in */
    __atomic_store_n(&pmon__io_hot.freq_out, 0, __ATOMIC_SEQ_CST);
  if (!q.in && !q.stop) {
    sigset_t held;

    s = &pmon__g.sh->freq;
    block_sigs(&held);
    lock_node();
    if (s->active++ == 0 && !s->capped && s->joined) {
      int failed = record(1);

      if (failed == CALIBRATING) {
        /* Not capped: the phase runs at the calibration's clock; the
         * leader's record of the node says so. */
        s->uncapped++;
        s->cal_pid = (int32_t)q.cal_pid;
      } else {
        s->failed += (uint32_t)(failed >= 0 ? failed : write_all(1));
        s->capped = 1;
        s->t_cap_ns = pmon__now_ns();
        s->switches++;
      }
    }
    unlock_node();
    pthread_sigmask(SIG_SETMASK, &held, NULL);
    q.in = 1;
    __atomic_store_n(&q.last_end, pmon__io_now(),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&pmon__io_hot.freq_out, 0, __ATOMIC_SEQ_CST);
    if (!q.thread_on) /* the program's signals stay on its own threads */
      q.thread_on = pmon__thread_start(&q.thread, watch, NULL) == 0;
    pthread_cond_signal(&q.cond);
  }
  pthread_mutex_unlock(&q.lock);
}

void pmon__iofreq_stop(void)
{
  if (!q.on)
    return;
  pthread_mutex_lock(&q.lock);
  q.stop = 1;
  pthread_cond_signal(&q.cond);
  pthread_mutex_unlock(&q.lock);
  if (q.thread_on)
    pthread_join(q.thread, NULL);
  q.thread_on = 0;
  leave();
}

void pmon__iofreq_finish(void)
{
  const struct pmon_freq_shared *s;
  char buf[VALUE_MAX];
  int rc;

  if (!q.on || !pmon__g.leader || q.finished || pmon__g.sh == NULL)
    return;
  q.finished = 1;
  s = &pmon__g.sh->freq;
  /* Every rank has left: the job leaves the node's record, and every CPU
   * goes where the jobs still there want it, or back to its limit from
   * before them.  Without the record, back to that limit. */
  if (s->joined && ((rc = record(-1)) >= 0 || rc == CALIBRATING)) {
    q.restored = rc == 0 || rc == CALIBRATING;
    return;
  }
  q.restored = 1;
  for (int i = 0; i < q.n; i++) {
    ssize_t len = pread(q.fd[i], buf, sizeof buf - 1, 0);

    buf[len > 0 ? len : 0] = '\0';
    q.restored &= strtoul(buf, NULL, 10) == s->orig_khz[q.cpu[i]];
  }
}

json_t *pmon__iofreq_node_json(void)
{
  const struct pmon_freq_shared *s;

  if (!q.on || pmon__g.sh == NULL)
    return json_null();
  s = &pmon__g.sh->freq;
  return json_pack("{s:i, s:i, s:i, s:f, s:b, s:i, s:s?, s:i}",
                   "requested_mhz", (int)q.mhz, "cpus", q.n, "switches",
                   (int)s->switches, "capped_s", (double)s->capped_ns * 1e-9,
                   "restored", q.finished ? q.restored : 0, "failed_writes",
                   (int)s->failed, "state_file",
                   q.state[0] != '\0' ? q.state : NULL,
                   "uncapped_phases", (int)s->uncapped);
}

json_t *pmon__iofreq_job(json_t *nodes)
{
  json_t *node, *o = NULL;
  double capped = 0;
  json_int_t switches = 0, failed = 0, n = 0, uncapped = 0;
  int restored = 1, mhz = 0;
  size_t i;

  json_array_foreach(nodes, i, node) {
    json_t *f = json_object_get(json_object_get(node, "io"), "freq_policy");

    if (!json_is_object(f))
      continue;
    n++;
    mhz = (int)json_integer_value(json_object_get(f, "requested_mhz"));
    switches += json_integer_value(json_object_get(f, "switches"));
    failed += json_integer_value(json_object_get(f, "failed_writes"));
    uncapped += json_integer_value(json_object_get(f, "uncapped_phases"));
    capped = fmax(capped, json_number_value(json_object_get(f, "capped_s")));
    restored &= json_is_true(json_object_get(f, "restored"));
  }
  if (n > 0)
    o = json_pack("{s:i, s:I, s:I, s:f, s:b, s:I, s:I}", "requested_mhz",
                  mhz, "nodes", n, "switches", switches, "capped_s", capped,
                  "restored", restored, "failed_writes", failed,
                  "uncapped_phases", uncapped);
  return o != NULL ? o : json_null();
}

void pmon__iofreq_close(void)
{
  pmon__iofreq_finish(); /* a failed init, or a discarded measurement */
  __atomic_store_n(&pmon__io_hot.freq_on, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&pmon__io_hot.freq_out, 0, __ATOMIC_SEQ_CST);
  pmon__io_phase_hook(NULL);
  pmon__signals_give(PMON_SIG_CLOCK);
  q.armed = 0;
  for (int i = 0; q.fd != NULL && i < q.n; i++)
    close(q.fd[i]);
  free(q.fd);
  free(q.cpu);
  if (q.cond_made)
    pthread_cond_destroy(&q.cond);
  q.cond_made = 0;
  q.fd = q.cpu = NULL;
  q.n = q.on = q.in = q.stop = q.finished = 0;
}

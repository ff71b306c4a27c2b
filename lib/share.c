/*
 * share.c - whether the job had its nodes alone, and its share where it
 * did not (nodes[].sharing, docs/report-format.md; pmon(7), Shared
 * nodes).  A node the job holds is the job's: it is shared only on
 * evidence of another job (lib/evidence.c: Slurm's, another pmon job's
 * record, another user's processes) or of another's process on a GPU.
 *
 * At init every rank of a node gives its pid to the leader (a gather over
 * the node's communicator).  The leader then reads, on a thread of its
 * own from the meters' first samples to their last (never on a meter's
 * poller: a walk of /proc must not delay a reading), the node's busy CPU
 * time from /proc/stat and, right after it, the job's:
 *
 *  - "cgroup": usage_usec in cpu.stat of the Slurm job's cgroup (v2), when
 *    every rank's /proc/PID/cgroup names the same path with a component
 *    job_*: all that the job runs on the node, its other steps included;
 *  - "proc": else utime + stime + cutime + cstime of /proc/PID/stat (all
 *    of its threads, and the children it waited for) of each rank and of
 *    each of their descendants, found by the walks of /proc, followed
 *    while they live.  A process that ends is counted by its parent's
 *    cutime once the parent waits for it; one whose parent is not
 *    followed keeps its last reading.
 *
 * Until there is evidence, the thread looks for it every SHARE_LOOK_NS
 * (a few small reads), reads the CPU times then, and walks /proc every
 * SHARE_WALK_NS (the walk feeds lib/evidence.c the other users' and the
 * other pmon jobs' processes); once there is, it reads every
 * SHARE_READ_NS and walks every SHARE_SCAN_NS.  With the readings, at
 * most every SHARE_SCAN_NS and at the last reading, the processes that
 * use each GPU (each channel of a meter whose driver lists a device's
 * users, NVML's compute processes): a user is the job's when it is a
 * rank or a rank's descendant (its parents up to a rank), or with
 * "cgroup" when it is in the job's cgroup; any other is another's.  A GPU
 * is the job's when one of its users was.
 *
 * The figures are the differences between the first reading (init) and
 * the last (finalize, forced).  Nothing here is fatal and nothing prints
 * but PMON_DEBUG's lines: what cannot be read is null in the report.
 * The report may read while the thread runs (a spool's snapshot, under
 * g->lock for the history): what it reads of s is written under s_mu.
 * The open is collective over the node.  Memory: an fd per rank of the
 * node, and 48 bytes per process followed, at most SHARE_PROCS_MAX.  A
 * process is known by its pid and its start: a pid used again by
 * another process is never read as this.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "evidence.h"
#include "roots.h"
#include "trace.h"

#define SHARE_READ_NS 100000000ULL  /* the job's CPU time, 10 times a second
                                       once the node is found shared */
#define SHARE_LOOK_NS 1000000000ULL /* before: a look for evidence, and the
                                       CPU times, once a second */
#define SHARE_SCAN_NS 1000000000ULL /* a walk of /proc at most once a second
                                       once shared, */
#define SHARE_WALK_NS 10000000000ULL /* and every 10 s before */
#define SHARE_SCAN_DUTY 100 /* and never sooner than 100 times the last
                               walk's own time after it: at most 1 % of a
                               CPU on a node of many processes */
#define SHARE_PROCS_MAX 4096 /* processes of the job followed */
#define SHARE_GPU_USERS 64   /* a GPU's users asked for at a time */
#define SHARE_GPUS_MAX 64    /* GPUs followed */
#define SHARE_HOPS 64        /* parents walked up from a GPU's user */
#define SHARE_WINDOW_NS 1000000000ULL /* the node's lowest power: over
                                         windows of at least 1 s */

enum { SRC_NONE, SRC_PROC, SRC_CGROUP };

/* A process of the job: a rank or a descendant of one. */
struct proc {
  int pid, ppid;
  int fd;                  /* a rank's /proc/PID/stat, held open; -1 for
                              a descendant, opened at each reading (the
                              job's fds are not the program's to use up) */
  int fresh;               /* a rank not read yet: its base is set at
                              the first reading */
  int ok;                  /* read at the latest reading */
  unsigned long long start; /* when it started, clock ticks after boot */
  unsigned long long base; /* its CPU time (ticks) that is not the job's:
                              what it had used at its first reading if it
                              started before init, else 0 */
  unsigned long long last; /* its CPU time at its latest reading */
};

/* A GPU: a channel of a meter that lists its users, and who used it. */
struct gpu {
  int meter, ch;
  int job;    /* a process of the job used it */
  int others; /* another's process used it: the first one's pid */
  int failed; /* its users could not be read: PMON_DEBUG said why once */
};

/* One reading: when, the job's CPU time as counted here and the node's
 * busy CPU time since boot, seconds (only their differences mean
 * anything); NAN where it could not be read. */
struct reading {
  uint64_t t;
  double job, busy;
};

static struct {
  int on;      /* the leader, with its ranks' pids */
  int source;  /* SRC_*: where the job's CPU time comes from */
  int job_ok;  /* 0 once a rank could not be read at its first reading */
  struct proc *p; /* ranks first, then descendants as found: a parent
                     before its children */
  int np;
  unsigned long dropped; /* descendants beyond SHARE_PROCS_MAX */
  unsigned long long gone; /* ticks of ended processes whose parent was
                              not followed */
  unsigned long long init_ticks; /* boot time at the open, ticks */
  long hz;
  int stat_fd, cg_fd;
  int job_cpus, node_cpus; /* -1: not known */
  int *ranks, nranks;      /* the ranks' pids */
  char cg[PATH_MAX];       /* SRC_CGROUP: the job's cgroup, "/...job_N" */
  struct gpu gpu[SHARE_GPUS_MAX];
  int ngpu, gpu_ready;     /* the GPUs, listed at the first reading */
  uint64_t t_gpu_next;
  const char *cpus_from;
  uint64_t t_read, t_scan_next, t_look_next;
  uint64_t t_first;   /* the first reading's */
  int evident;        /* evidence of another job was found: readings
                         every SHARE_READ_NS, walks every SHARE_SCAN_NS */
  struct reading j0, j1, n0, n1, b0, b1; /* the first and last readings of
                                            the job, the node, and both */
  int hj, hn, hb;
  int split;          /* pmon__share_factor()'s answer, set at finish */
  double f, f_err;    /* and its share */
  int replayed;       /* set by pmon__share_replayed(): */
  json_t *sharing;    /* its "sharing" */
} s = {.stat_fd = -1, .cg_fd = -1};

/* What the report reads of s while the readings' thread runs (the
 * readings, the GPUs' users) is written under s_mu; the rest of s is
 * that thread's alone until it is joined. */
static pthread_mutex_t s_mu = PTHREAD_MUTEX_INITIALIZER;

/* The readings' thread (pmon__share_start()). */
static struct {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cond;
  int started, stop;
} rd = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* The text of FD from its start into BUF (SIZE bytes, NUL-terminated);
 * its length, or -1. */
static ssize_t pread_all(int fd, char *buf, size_t size)
{
  ssize_t n;

  do
    n = pread(fd, buf, size - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  return n;
}

/*
 * The fields of /proc/PID/stat in BUF that matter here: the parent, the
 * CPU time of the process (all its threads) and of the children it waited
 * for, in clock ticks, and its start.  The command name, field 2, may
 * hold spaces and parentheses: the fields are read after its last ')'.
 * 0, or -1 when BUF is not such a line.
 */
static int parse_stat(const char *buf, int *ppid, unsigned long long *cpu,
                      unsigned long long *start)
{
  const char *p = strrchr(buf, ')');
  unsigned long long ut, st, cut, cst;
  char state;

  if (p == NULL ||
      sscanf(p + 1,
             " %c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu %llu %llu "
             "%*s %*s %*s %*s %llu",
             &state, ppid, &ut, &st, &cut, &cst, start) != 7)
    return -1;
  *cpu = ut + st + cut + cst;
  return 0;
}

/* /proc/PID/stat read once into the fields above; 0, or -1 with errno
 * ENOENT or ESRCH when the process has ended, another (EIO: not such a
 * line) when it could not be read. */
static int stat_once(int pid, int *ppid, unsigned long long *cpu,
                     unsigned long long *start)
{
  char path[PATH_MAX], buf[1024];
  ssize_t n;
  int fd, rc, e;

  snprintf(path, sizeof path, "%s/%d/stat", pmon__proc_root(), pid);
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return -1;
  n = pread_all(fd, buf, sizeof buf);
  e = n < 0 ? errno : EIO;
  rc = n > 0 ? parse_stat(buf, ppid, cpu, start) : -1;
  close(fd);
  if (rc != 0)
    errno = e;
  return rc;
}

/* Whether a read of a followed process's stat that failed with errno E
 * says that it has ended (a pid's directory is gone once its parent has
 * waited for it; a held file of an ended process reads ESRCH). */
static int ended(int e)
{
  return e == ENOENT || e == ESRCH;
}

/* Follow process PID: a rank (START 0), whose CPU time counts from the
 * first reading, or a descendant found by the walk, which started at START
 * and whose CPU time counts from now (all of it if it started after
 * init).  0, or -1 when it cannot be opened (it has ended, or /proc hides
 * it) or is not that process. */
static int follow(int pid, unsigned long long start)
{
  char path[PATH_MAX], buf[1024];
  struct proc *q;
  unsigned long long cpu, st;
  int fd, ppid;

  if (s.np == SHARE_PROCS_MAX) {
    if (s.dropped++ == 0)
      pmon__debug("share: more than %d processes in the job: those beyond "
                  "are counted only once their parent waits for them",
                  SHARE_PROCS_MAX);
    return -1;
  }
  snprintf(path, sizeof path, "%s/%d/stat", pmon__proc_root(), pid);
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return -1;
  if (pread_all(fd, buf, sizeof buf) <= 0 ||
      parse_stat(buf, &ppid, &cpu, &st) != 0 ||
      (start != 0 && st != start)) {
    close(fd);
    return -1;
  }
  if (start != 0) { /* a descendant */
    close(fd);
    fd = -1;
  }
  if (s.np % 64 == 0) {
    struct proc *p = realloc(s.p, (size_t)(s.np + 64) * sizeof *p);

    if (p == NULL) {
      if (fd >= 0)
        close(fd);
      s.dropped++;
      return -1;
    }
    s.p = p;
  }
  q = &s.p[s.np++];
  memset(q, 0, sizeof *q);
  q->pid = pid;
  q->ppid = ppid;
  q->fd = fd;
  q->start = st;
  q->fresh = start == 0;
  q->ok = 1;
  q->last = cpu;
  q->base = st >= s.init_ticks ? 0 : cpu;
  if (start != 0)
    pmon__debug("share: process %d (parent %d, start %llu) is the job's: "
                "%.2f CPU-s of it counted%s",
                pid, ppid, st, (double)(cpu - q->base) / (double)s.hz,
                q->base == 0 ? " (all: it started after init)" : "");
  return 0;
}

static int by_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;

  return (x > y) - (x < y);
}

/* Whether process PID is followed already. */
static int followed(int pid)
{
  for (int i = 0; i < s.np; i++)
    if (s.p[i].pid == pid)
      return 1;
  return 0;
}

/*
 * The walk of /proc at T: every process of another user is told to
 * lib/evidence.c (its owner, from the stat of its directory), and, when
 * the job's processes are followed ("proc"), every process whose parent is
 * followed is followed too, until none is left (a child's child is found
 * in the same walk).  A process that started and ended between two walks
 * is never seen itself: its parent's cutime holds it once the parent has
 * waited for it.
 */
static void scan(uint64_t t)
{
  struct entry {
    int pid, ppid, taken;
    unsigned long long start;
  } *all = NULL;
  size_t n = 0, cap = 0;
  int *known = NULL, added;
  DIR *d = opendir(pmon__proc_root());
  struct dirent *e;

  if (d == NULL)
    return;
  pmon__ev_walk_begin();
  while ((e = readdir(d)) != NULL) {
    unsigned long long cpu;
    struct entry x = {0, 0, 0, 0};
    struct stat st;

    if (!isdigit((unsigned char)e->d_name[0]))
      continue;
    x.pid = atoi(e->d_name);
    if (fstatat(dirfd(d), e->d_name, &st, 0) != 0 ||
        stat_once(x.pid, &x.ppid, &cpu, &x.start) != 0)
      continue;
    pmon__ev_walk_proc(x.pid, x.ppid, (unsigned)st.st_uid, x.start, cpu);
    if (s.source != SRC_PROC)
      continue;
    if (n == cap) {
      struct entry *a = realloc(all, (cap = cap ? 2 * cap : 256) * sizeof *a);

      if (a == NULL)
        break;
      all = a;
    }
    all[n++] = x;
  }
  closedir(d);
  pmon__ev_walk_end(s.t_first != 0 && t > s.t_first
                      ? (double)(t - s.t_first) * 1e-9 : 0);
  if (s.source != SRC_PROC)
    return;
  if (n > 0)
    qsort(all, n, sizeof *all, by_int); /* by pid, the first member */
  do {
    size_t nk = 0;

    added = 0;
    free(known);
    if ((known = malloc(((size_t)s.np + 1) * sizeof *known)) == NULL)
      break;
    /* A parent is one followed only while the process of its pid is the
     * one followed, by its start: a stranger given an ended one's pid
     * does not bring its children in. */
    for (int i = 0; i < s.np; i++) {
      const struct entry *x =
        n > 0 ? bsearch(&s.p[i].pid, all, n, sizeof *all, by_int) : NULL;

      if (x != NULL && x->start == s.p[i].start)
        known[nk++] = s.p[i].pid;
    }
    qsort(known, nk, sizeof *known, by_int);
    for (size_t i = 0; i < n; i++) {
      if (all[i].taken ||
          bsearch(&all[i].ppid, known, nk, sizeof *known, by_int) == NULL)
        continue;
      all[i].taken = 1;
      if (!followed(all[i].pid) && follow(all[i].pid, all[i].start) == 0)
        added++;
    }
  } while (added > 0);
  free(known);
  free(all);
}

/* Whether an ended process whose parent was PID left its CPU time to a
 * followed process still there: its parent, or the parent's parent when
 * the parent has ended too (each waited for its child, and its own parent
 * for it: the time went up the chain). */
static int taken_up(int pid)
{
  for (int hops = 0; hops <= s.np; hops++) {
    int i = 0;

    while (i < s.np && s.p[i].pid != pid)
      i++;
    if (i == s.np)
      return 0;
    if (s.p[i].ok)
      return 1;
    pid = s.p[i].ppid;
  }
  return 0;
}

/* The job's CPU time by its processes, seconds; NAN when a rank could not
 * be read at the first reading.  Parents are read before their children:
 * a child waited for between the two reads is missed for one reading (its
 * parent holds it at the next), never counted twice.  A process is let go
 * only once it has ended (or its pid is another's): one that could not be
 * read keeps its last reading, and its place before its children. */
static double job_proc(void)
{
  unsigned long long sum = 0;
  char buf[1024];
  int j = 0;

  for (int i = 0; i < s.np; i++) {
    struct proc *q = &s.p[i];
    unsigned long long cpu, st;
    ssize_t n;
    int ppid, gone;

    if (q->fd >= 0) {
      n = pread_all(q->fd, buf, sizeof buf);
      gone = n < 0 && ended(errno);
      q->ok = n > 0 && parse_stat(buf, &ppid, &cpu, &st) == 0;
    } else {
      q->ok = stat_once(q->pid, &ppid, &cpu, &st) == 0;
      gone = q->ok ? st != q->start : ended(errno); /* a pid used again */
      q->ok = q->ok && !gone;
    }
    if (!q->ok && !gone && !q->fresh) {
      /* Not read, yet there: its last reading stands.  Dropped, its
       * children's time could be counted by them and by it again. */
      q->ok = 1;
      continue;
    }
    if (!q->ok)
      continue;
    q->ppid = ppid;
    if (q->fresh) {
      q->base = q->start >= s.init_ticks ? 0 : cpu;
      q->fresh = 0;
    }
    q->last = cpu;
  }
  /* The ended ones: a followed process still there has their time (or
   * will once it waits for them); else their last reading stays. */
  for (int i = 0; i < s.np; i++) {
    const struct proc *q = &s.p[i];

    if (q->ok)
      continue;
    if (q->fresh) { /* a rank never read: hidden from us */
      s.job_ok = 0;
    } else if (!taken_up(q->ppid)) {
      if (q->last > q->base)
        s.gone += q->last - q->base;
      pmon__debug("share: process %d has ended; its parent %d is not "
                  "followed: its last %.2f CPU-s stay counted",
                  q->pid, q->ppid,
                  (double)(q->last - q->base) / (double)s.hz);
    } else {
      pmon__debug("share: process %d has ended; its parent %d has its "
                  "time", q->pid, q->ppid);
    }
  }
  for (int i = 0; i < s.np; i++) {
    if (s.p[i].ok)
      s.p[j++] = s.p[i];
    else if (s.p[i].fd >= 0)
      close(s.p[i].fd);
  }
  s.np = j;
  if (!s.job_ok)
    return NAN;
  for (int i = 0; i < s.np; i++)
    if (s.p[i].last > s.p[i].base)
      sum += s.p[i].last - s.p[i].base;
  return (double)(sum + s.gone) / (double)s.hz;
}

/* The job's CPU time from its cgroup's cpu.stat, seconds; NAN. */
static double job_cgroup(void)
{
  char buf[1024], *p;

  if (pread_all(s.cg_fd, buf, sizeof buf) <= 0 ||
      (p = strstr(buf, "usage_usec ")) == NULL)
    return NAN;
  return strtod(p + strlen("usage_usec "), NULL) * 1e-6;
}

/* The node's busy CPU time from /proc/stat, seconds: user, nice, system,
 * irq and softirq.  Steal is not the node's work (a hypervisor ran other
 * guests), nor can it be the job's.  NAN when unread. */
static double node_busy(void)
{
  char buf[512];
  unsigned long long f[8];

  if (s.stat_fd < 0 || pread_all(s.stat_fd, buf, sizeof buf) <= 0 ||
      pmon__proc_stat_times(buf, f) != 0)
    return NAN;
  return (double)(f[0] + f[1] + f[2] + f[5] + f[6]) / (double)s.hz;
}

static int job_cgroup_path(int pid, char *buf, size_t size);

/* The GPUs: every channel of an open meter whose driver lists users. */
static void gpus_list(void)
{
  struct pmon_state *g = &pmon__g;

  s.gpu_ready = 1;
  pthread_mutex_lock(&s_mu);
  for (int i = 0; i < g->nmeters; i++) {
    const struct pmon_meter *m = &g->ms[i].m;

    for (int c = 0; m->drv->users != NULL && c < m->nch; c++) {
      if (s.ngpu == SHARE_GPUS_MAX) {
        pmon__debug("share: more than %d GPUs: those beyond are not "
                    "followed", SHARE_GPUS_MAX);
        goto out;
      }
      s.gpu[s.ngpu++] = (struct gpu){.meter = i, .ch = c};
    }
  }
out:
  pthread_mutex_unlock(&s_mu);
}

/* Whether process PID is the job's: a rank, a rank's descendant, or in
 * the job's cgroup. */
static int of_job(int pid)
{
  char cg[PATH_MAX];

  for (int hops = 0, p = pid; hops < SHARE_HOPS && p > 1; hops++) {
    unsigned long long cpu, start;
    int ppid;

    for (int i = 0; i < s.nranks; i++)
      if (s.ranks[i] == p)
        return 1;
    if (stat_once(p, &ppid, &cpu, &start) != 0)
      break;
    p = ppid;
  }
  return s.source == SRC_CGROUP &&
         job_cgroup_path(pid, cg, sizeof cg) == 0 && strcmp(cg, s.cg) == 0;
}

/* Who uses each GPU now. */
static void gpus_read(void)
{
  struct pmon_state *g = &pmon__g;
  int pids[SHARE_GPU_USERS];

  if (!s.gpu_ready)
    gpus_list();
  for (int k = 0; k < s.ngpu; k++) {
    struct gpu *u = &s.gpu[k];
    struct pmon_meter *m = &g->ms[u->meter].m;
    int n = m->drv->users(m, u->ch, pids, SHARE_GPU_USERS);

    if (n < 0) {
      int first;

      pthread_mutex_lock(&s_mu);
      first = !u->failed++;
      pthread_mutex_unlock(&s_mu);
      if (first)
        pmon__debug("share: %s: its users are not known: %s",
                    m->ch[u->ch].name, pmon_errmsg());
      continue;
    }
    for (int i = 0; i < n; i++) {
      int mine = of_job(pids[i]), first = 0;
      char what[160];

      pthread_mutex_lock(&s_mu);
      if (mine)
        u->job = 1;
      else if (u->others == 0)
        u->others = pids[i], first = 1;
      pthread_mutex_unlock(&s_mu);
      if (first) {
        snprintf(what, sizeof what, "process %d, not this job's, used %s",
                 pids[i], m->ch[u->ch].name);
        pmon__ev_note(PMON_EVK_GPU, what);
      }
    }
  }
}

/* A reading, now, at T: before evidence of another job is found, a look
 * for it every SHARE_LOOK_NS and a walk every SHARE_WALK_NS; after, a walk
 * every SHARE_SCAN_NS.  FINAL: the last, with all of them. */
static void take(uint64_t t, int final)
{
  struct reading r = {t, NAN, NAN};

  if (final || t >= s.t_look_next) {
    int any = pmon__ev_look();

    s.t_look_next = t + SHARE_LOOK_NS;
    if (any && !s.evident) {
      pmon__debug("share: evidence of another job: CPU times every %.1f s",
                  (double)SHARE_READ_NS * 1e-9);
      s.t_scan_next = t; /* a walk now: the other jobs' processes */
    }
    s.evident |= any;
  }
  if (final || t >= s.t_scan_next) {
    uint64_t a = pmon__now_ns(), cost, every;

    scan(t);
    s.evident |= pmon__ev_any();
    cost = pmon__now_ns() - a;
    every = s.evident ? SHARE_SCAN_NS : SHARE_WALK_NS;
    s.t_scan_next = t + (SHARE_SCAN_DUTY * cost > every
                           ? SHARE_SCAN_DUTY * cost
                           : every);
  }
  if (final || t >= s.t_gpu_next) {
    gpus_read();
    s.t_gpu_next = t + SHARE_SCAN_NS;
  }
  if (s.evident)
    pmon__ev_update();
  r.busy = node_busy();
  if (s.source == SRC_PROC)
    r.job = job_proc();
  else if (s.source == SRC_CGROUP)
    r.job = job_cgroup();
  pthread_mutex_lock(&s_mu);
  if (s.t_first == 0)
    s.t_first = t;
  s.t_read = t;
  if (!isnan(r.job)) {
    if (!s.hj)
      s.j0 = r;
    s.j1 = r;
    s.hj = 1;
  }
  if (!isnan(r.busy)) {
    if (!s.hn)
      s.n0 = r;
    s.n1 = r;
    s.hn = 1;
  }
  if (!isnan(r.job) && !isnan(r.busy)) {
    if (!s.hb)
      s.b0 = r;
    s.b1 = r;
    s.hb = 1;
  }
  pthread_mutex_unlock(&s_mu);
}

/* The readings' thread: one every SHARE_LOOK_NS, every SHARE_READ_NS once
 * the node is found shared, until told to stop. */
static void *reader_main(void *arg)
{
  (void)arg;
  pthread_mutex_lock(&rd.mu);
  while (!rd.stop) {
    uint64_t due =
      pmon__now_ns() + (s.evident ? SHARE_READ_NS : SHARE_LOOK_NS);
    struct timespec ts = {(time_t)(due / 1000000000u),
                          (long)(due % 1000000000u)};

    pthread_cond_timedwait(&rd.cond, &rd.mu, &ts);
    if (rd.stop)
      break;
    pthread_mutex_unlock(&rd.mu);
    take(pmon__now_ns(), 0);
    pthread_mutex_lock(&rd.mu);
  }
  pthread_mutex_unlock(&rd.mu);
  return NULL;
}

void pmon__share_start(void)
{
  pthread_condattr_t ca;
  int rc;

  if (!s.on || rd.started)
    return;
  take(pmon__now_ns(), 1); /* the first reading, with the meters' first */
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&rd.cond, &ca);
  pthread_condattr_destroy(&ca);
  rd.stop = 0;
  rc = pmon__thread_start(&rd.thread, reader_main, NULL); /* no signal */
  if (rc != 0) { /* not fatal: the readings at the ends remain */
    pmon__debug("share: cannot start the readings' thread (%s): the job's "
                "CPU time is read at init and finalize only",
                strerror(rc));
    pthread_cond_destroy(&rd.cond);
    return;
  }
  rd.started = 1;
}

/* The readings' thread stopped and joined; nothing when none runs. */
static void reader_stop(void)
{
  if (!rd.started)
    return;
  pthread_mutex_lock(&rd.mu);
  rd.stop = 1;
  pthread_cond_broadcast(&rd.cond);
  pthread_mutex_unlock(&rd.mu);
  pthread_join(rd.thread, NULL);
  pthread_cond_destroy(&rd.cond);
  rd.started = 0;
}

/* The cgroup v2 path of PID that ends at its component job_*, into BUF;
 * 0, or -1 when it has none (no Slurm job cgroup, or cgroup v1 only). */
static int job_cgroup_path(int pid, char *buf, size_t size)
{
  char path[PATH_MAX], line[PATH_MAX + 8];
  FILE *f;
  int rc = -1;

  snprintf(path, sizeof path, "%s/%d/cgroup", pmon__proc_root(), pid);
  if ((f = fopen(path, "re")) == NULL)
    return -1;
  while (rc != 0 && fgets(line, sizeof line, f) != NULL) {
    char *job, *end;

    if (strncmp(line, "0::/", 4) != 0)
      continue;
    line[strcspn(line, "\n")] = '\0';
    if ((job = strstr(line + 3, "/job_")) == NULL)
      continue;
    end = job + 1 + strcspn(job + 1, "/");
    *end = '\0';
    if ((size_t)(end - (line + 3)) >= size)
      continue;
    memcpy(buf, line + 3, (size_t)(end - (line + 3)) + 1);
    rc = 0;
  }
  fclose(f);
  return rc;
}

/* The job's cgroup, when every rank PIDS[0..N-1] is in the same Slurm job
 * cgroup: its cpu.stat open in s.cg_fd, its cpuset's CPUs in s.job_cpus.
 * 0, or -1. */
static int open_cgroup(const int *pids, int n)
{
  static const char *const mounts[] = {"fs/cgroup", "fs/cgroup/unified"};
  char cg[PATH_MAX], other[PATH_MAX], path[2 * PATH_MAX], buf[4096];

  if (n < 1 || job_cgroup_path(pids[0], cg, sizeof cg) != 0)
    return -1;
  for (int i = 1; i < n; i++)
    if (job_cgroup_path(pids[i], other, sizeof other) != 0 ||
        strcmp(cg, other) != 0)
      return -1;
  for (size_t m = 0; m < sizeof mounts / sizeof mounts[0]; m++) {
    int fd;

    snprintf(path, sizeof path, "%s/%s%s/cpu.stat", pmon__sysfs_root(),
             mounts[m], cg);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
      continue;
    s.cg_fd = fd;
    snprintf(s.cg, sizeof s.cg, "%s", cg);
    if (isnan(job_cgroup())) {
      pmon__debug("share: %s: no usage_usec", path);
      close(fd);
      s.cg_fd = -1;
      continue;
    }
    snprintf(path, sizeof path, "%s/%s%s/cpuset.cpus.effective",
             pmon__sysfs_root(), mounts[m], cg);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
      int c = pread_all(fd, buf, sizeof buf) > 0 ? pmon__cpu_list_count(buf)
                                                 : -1;

      if (c > 0) {
        s.job_cpus = c;
        s.cpus_from = "cpuset";
      }
      close(fd);
    }
    return 0;
  }
  pmon__debug("share: the job's cgroup %s: no cpu.stat under %s/fs/cgroup: "
              "its processes are read instead",
              cg, pmon__sysfs_root());
  return -1;
}

/* The node's online CPUs: the cpuN lines of /proc/stat; -1 unread. */
static int online_cpus(void)
{
  char path[PATH_MAX], line[256];
  FILE *f;
  int n = 0, whole = 1;

  snprintf(path, sizeof path, "%s/stat", pmon__proc_root());
  if ((f = fopen(path, "re")) == NULL)
    return -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (whole && strncmp(line, "cpu", 3) == 0 &&
        isdigit((unsigned char)line[3]))
      n++;
    whole = strchr(line, '\n') != NULL; /* the next one starts a line */
  }
  fclose(f);
  return n > 0 ? n : -1;
}

/* The leader's part of the open, with its node's ranks' pids. */
static void setup(const int *pids, int n)
{
  struct pmon_state *g = &pmon__g;
  char path[PATH_MAX];
  struct timespec ts;
  int c = 0;

  s.hz = sysconf(_SC_CLK_TCK);
  if (s.hz <= 0)
    s.hz = 100;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  s.init_ticks = (unsigned long long)ts.tv_sec * (unsigned long long)s.hz +
                 (unsigned long long)ts.tv_nsec / (1000000000ULL / s.hz);
  snprintf(path, sizeof path, "%s/stat", pmon__proc_root());
  if ((s.stat_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    pmon__debug("share: %s: %s: the node's CPU time is not known", path,
                strerror(errno));
  s.node_cpus = online_cpus();
  for (int i = 0; i < PMON_CPUS_MAX; i++)
    c += (int)PMON_CPU_ISSET(i, g->cpus);
  /* The ranks' masks hold PMON_CPUS_MAX CPUs: on a larger node the count
   * would be short. */
  s.job_cpus = c > 0 && s.node_cpus > 0 && s.node_cpus <= PMON_CPUS_MAX ? c
                                                                        : -1;
  s.cpus_from = "affinity";
  /* Slurm's allocation, when it is fewer CPUs than the ranks may use (a
   * job not bound to its CPUs: TaskPlugin=task/none). */
  {
    const char *v = getenv("SLURM_CPUS_ON_NODE");
    char *end;
    long a = v != NULL && getenv("SLURM_JOB_ID") != NULL
               ? strtol(v, &end, 10) : -1;

    if (v != NULL && a > 0 && *end == '\0' && s.node_cpus > 0 &&
        a < s.node_cpus && (s.job_cpus < 0 || a < s.job_cpus)) {
      s.job_cpus = (int)a;
      s.cpus_from = "slurm";
    }
  }
  s.job_ok = 1;
  if ((s.ranks = malloc((size_t)n * sizeof *s.ranks)) != NULL) {
    memcpy(s.ranks, pids, (size_t)n * sizeof *s.ranks);
    s.nranks = n;
  }
  if (open_cgroup(pids, n) == 0) {
    s.source = SRC_CGROUP;
  } else {
    s.source = SRC_PROC;
    for (int i = 0; i < n && s.job_ok; i++)
      if (follow(pids[i], 0) != 0) {
        pmon__debug("share: %s/%d/stat: %s: the job's CPU time is not "
                    "known",
                    pmon__proc_root(), pids[i], strerror(errno));
        s.job_ok = 0;
      }
    if (!s.job_ok)
      s.source = SRC_NONE;
  }
  pmon__ev_open(pids, n, s.node_cpus, s.hz, s.init_ticks);
  s.on = 1;
}

/* PMON_SHARE, else the site file's share line for this node: "cpu-time"
 * (or neither) reads whether the node is shared and the job's share by
 * that model; "off", for a site that gives whole nodes only, reads
 * nothing (sharing is null).  Kept apart from s, which each open
 * clears. */
static int share_off;

int pmon__share_config(void)
{
  const char *v = getenv(PMON_ENV_SHARE);

  share_off = 0;
  if (v == NULL || *v == '\0') {
    char node[sizeof pmon__g.node_name];
    int rc;

    pmon__node_name(node, sizeof node);
    if ((rc = pmon__site_share(node, &v)) != 0)
      return rc;
    share_off = v != NULL && strcmp(v, "off") == 0;
    return 0;
  }
  if (strcmp(v, "cpu-time") == 0)
    return 0;
  if (strcmp(v, "off") == 0) {
    share_off = 1;
    return 0;
  }
  return pmon__fail(PMON_ECONFIG, "%s: \"%.40s\": not cpu-time or off",
                    PMON_ENV_SHARE, v);
}

void pmon__share_open(void)
{
  struct pmon_state *g = &pmon__g;
  int pid = (int)getpid(), n = g->local_size > 0 ? g->local_size : 1, ok;
  int *pids;

  pmon__share_close();
  pids = g->leader ? calloc((size_t)n, sizeof *pids) : NULL;
  ok = !g->leader || pids != NULL;
  if (g->mpi) {
    /* Every rank learns whether the leader can take the pids, so that
     * none waits in a gather the leader left. */
    if (PMPI_Bcast(&ok, 1, MPI_INT, 0, g->node) != MPI_SUCCESS ||
        (ok && PMPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, g->node) !=
                 MPI_SUCCESS))
      ok = 0;
  } else if (ok) {
    pids[0] = pid;
  }
  /* The gather above happens whatever PMON_SHARE says, so that ranks
   * whose environments differ never wait for one another. */
  if (g->leader && ok && !share_off)
    setup(pids, n);
  else if (g->leader && !ok)
    pmon__debug("share: the ranks' pids did not reach the leader: the "
                "job's CPU time is not known");
  free(pids);
}

/* What the readings say. */
struct verdict {
  double span, job, node, others; /* seconds; NAN unknown */
  double jobs, jobs_err;          /* the other jobs' CPU time, seconds
                                     (pmon__ev_others_cpu()); NAN */
  int gpus_others;                /* GPUs another's process used */
  int shared;                     /* -1 unknown */
  double share, share_err;        /* the job's share of the node's energy
                                     and its bar (share()); NAN unknown */
};

/*
 * The node total's lowest power over windows of at least SHARE_WINDOW_NS
 * of its history, into *PMIN, and its mean over the history, into
 * *PMEAN; 0, or -1 when the history cannot tell (fewer than two points,
 * no time, no energy).  A history shorter than one window gives the mean
 * for both.  Each window's power is taken at the most its points allow:
 * its energy with the error made between readings in it, and its ends'
 * stamps off by their stated errors (err[] of struct pmon_tl_sample) at
 * the mean power: P_min may be no lower than the node's idle power.
 */
static int power_range(double *pmin, double *pmean)
{
  const struct pmon_state *g = &pmon__g;
  const struct pmon_hist_point *p = g->hist.p;
  double lo = INFINITY;
  size_t a = 0;

  if (p == NULL || g->hist.n < 2 || p[g->hist.n - 1].t_ns <= p[0].t_ns)
    return -1;
  *pmean = pmon__hist_power(&g->hist, 0, g->hist.n - 1);
  for (size_t b = 1; b < g->hist.n; b++) {
    double dt = (double)(p[b].t_ns - p[a].t_ns) * 1e-9, up;

    if (p[b].t_ns - p[a].t_ns < SHARE_WINDOW_NS)
      continue;
    up = p[b].e - p[a].e + fabs(p[b].err[0] - p[a].err[0]) +
         *pmean * (p[a].err[2] + p[b].err[2]);
    lo = fmin(lo, up / dt);
    a = b;
  }
  *pmin = isfinite(lo) && lo < *pmean ? lo : *pmean;
  if (*pmin < 0)
    *pmin = 0;
  return isfinite(*pmean) && *pmean > 0 ? 0 : -1;
}

/*
 * The job's share of a shared node's energy (share_model "cpu-time";
 * pmon(7), Shared nodes; docs/report-format.md derives the bar).  The
 * node's energy is an idle part, P_idle over the span, and the rest, which
 * its busy CPUs drew.  The busy CPU time N is the job's J, the other
 * jobs' W (pmon__ev_others_cpu()) and the work of no job D = N - J - W
 * (daemons, kernel threads, the user's processes of no job).  The idle
 * part and D's part of the rest go by allocation: K = job_cpus /
 * node_cpus when the job is held to part of the node, else by the jobs'
 * work, J / (J + W) (1/2 +- 1/2 when neither worked).  The rest goes by
 * CPU time: the job's part of it is (J + K D) / N.  P_idle is not known:
 * it lies between 0 and the lowest power the node drew, P_min, so its
 * part of the energy, phi, between 0 and phi_max = P_min / P_mean, and
 * the share between A = (J + K D) / N and phi_max K + (1 - phi_max) A.
 * The share is the middle of that range and its bar half the range, plus
 * the CPU times' rounding (a tick at each end of each) and K's own bar.
 */
/* GPU K's energy since init (its channel's latest sample) into *E when
 * it is part of the node total's: a whole-node meter holds it, or its
 * channel is in the total; 0, or -1 when it is not or has no sample. */
static int gpu_energy(int k, double *e)
{
  const struct pmon_state *g = &pmon__g;
  const struct gpu *u = &s.gpu[k];
  struct pmon_tl_sample last;
  uint64_t seq = pmon__tl_seq(&g->sh->tl[u->meter]);

  if (!(g->covers & (1u << PMON_DOM_NODE)) &&
      !(g->total_mask[u->meter] & (1u << u->ch)))
    return -1;
  if (seq == 0 || pmon__tl_get(&g->sh->tl[u->meter], seq - 1, &last) != 0 ||
      !isfinite(last.e[u->ch]) || last.e[u->ch] < 0)
    return -1;
  *e = last.e[u->ch];
  return 0;
}

/*
 * The GPUs' part of the share (the model's GPU term): the node's energy E
 * is the GPUs' own, each E_k, and the rest.  A GPU only the job's
 * processes used is the job's (1), one only others' used is not (0), one
 * both used is split unknown (1/2 +- 1/2), one nobody used goes as the
 * rest (F +- ERR, the CPUs' share).  *F and *ERR become the share of the
 * whole: (F (E - sum E_k) + sum g_k E_k) / E, the bars added (they lean
 * one way together).  Nothing changes without a GPU in the total or with
 * the history unknown.
 */
static void share_gpus(double *f, double *err)
{
  const struct pmon_state *g = &pmon__g;
  double e, sum = 0, part = 0, bar = 0;

  if (s.ngpu == 0 || g->hist.p == NULL || g->hist.n < 2)
    return;
  e = g->hist.p[g->hist.n - 1].e - g->hist.p[0].e;
  for (int k = 0; k < s.ngpu; k++) {
    const struct gpu *u = &s.gpu[k];
    double ek;

    if (gpu_energy(k, &ek) != 0)
      continue;
    sum += ek;
    if (u->job && u->others == 0) {
      part += ek;
    } else if (u->job) {
      part += ek / 2;
      bar += ek / 2;
    } else if (u->others == 0) {
      part += *f * ek;
      bar += *err * ek;
    }
  }
  if (!(e > 0) || sum <= 0 || sum > e)
    return;
  *f = (*f * (e - sum) + part) / e;
  *err = (*err * (e - sum) + bar) / e;
}

static void share(struct verdict *v)
{
  int part = s.job_cpus > 0 && s.node_cpus > 0 && s.job_cpus < s.node_cpus;
  double tick = 4.0 / (double)s.hz, k, k_err = 0, w, d, a, b, pmin, pmean;
  double phi, lo, hi;

  if (v->shared == 0) {
    v->share = 1;
    v->share_err = 0;
    return;
  }
  if (v->shared != 1 || isnan(v->job) || isnan(v->node))
    return;
  w = isnan(v->jobs) ? 0 : v->jobs;
  if (part) {
    k = (double)s.job_cpus / (double)s.node_cpus;
  } else {
    /* J / (J + W), each rounded by a tick: between these two */
    lo = v->job + w > tick ? fmax(0, v->job - tick) / (v->job + w) : 0;
    hi = v->job + w > tick ? fmin(1, (v->job + tick) / (v->job + w)) : 1;
    k = (lo + hi) / 2;
    k_err = (hi - lo) / 2;
  }
  phi = power_range(&pmin, &pmean) == 0 ? fmin(1, pmin / pmean) : 1;
  if (v->node > tick) {
    d = fmax(0, v->node - v->job - w);
    a = (fmin(v->job, v->node) + k * d) / v->node;
    lo = -(tick + v->jobs_err) / v->node; /* the rounding, below */
  } else { /* the node was idle: all of it by allocation */
    d = 0;
    a = k;
    lo = 0;
  }
  b = phi * k + (1 - phi) * a;
  /* The range: A to B, widened by the rounding and by K's own bar (the
   * share moves by phi + (1 - phi) D / N with K), and cut to [0, 1]. */
  hi = fmax(a, b) - lo +
       k_err * (phi + (1 - phi) * (v->node > tick ? d / v->node : 1));
  lo = fmin(a, b) + lo -
       k_err * (phi + (1 - phi) * (v->node > tick ? d / v->node : 1));
  lo = fmax(0, lo);
  hi = fmin(1, hi);
  v->share = (lo + hi) / 2;
  v->share_err = (hi - lo) / 2;
  share_gpus(&v->share, &v->share_err);
}

static struct verdict judge(void)
{
  struct verdict v = {NAN, NAN, NAN, NAN, NAN, 0, 0, -1, NAN, NAN};
  int part = s.job_cpus > 0 && s.node_cpus > 0 && s.job_cpus < s.node_cpus;

  if (s.hb) {
    v.span = (double)(s.b1.t - s.b0.t) * 1e-9;
    v.job = s.b1.job - s.b0.job;
    v.node = s.b1.busy - s.b0.busy;
    /* The node's jiffies and the processes' times are rounded apart: a
     * job alone can read a little above its node. */
    v.others = v.node > v.job ? v.node - v.job : 0;
  } else {
    if (s.hj) {
      v.span = (double)(s.j1.t - s.j0.t) * 1e-9;
      v.job = s.j1.job - s.j0.job;
    }
    if (s.hn) {
      v.span = (double)(s.n1.t - s.n0.t) * 1e-9;
      v.node = s.n1.busy - s.n0.busy;
    }
  }
  v.jobs = pmon__ev_others_cpu(&v.jobs_err);
  for (int k = 0; k < s.ngpu; k++)
    v.gpus_others += s.gpu[k].others != 0;
  /* Shared: evidence of another job (lib/evidence.c), or another's
   * process on a GPU.  Else the node is the job's: share 1. */
  v.shared = v.gpus_others > 0 || pmon__ev_any();
  if (v.shared && part) {
    char what[160];

    snprintf(what, sizeof what, "this job may use %d of the node's %d CPUs "
             "(%s): its idle part is split by them", s.job_cpus,
             s.node_cpus, s.cpus_from);
    pmon__ev_note(PMON_EVK_AFFINITY, what);
  }
  share(&v);
  return v;
}

/* "0.98", or "?" for NAN, into BUF. */
static const char *fig(double x, char *buf, size_t size)
{
  if (isnan(x))
    snprintf(buf, size, "?");
  else
    snprintf(buf, size, "%.2f", x);
  return buf;
}

void pmon__share_finish(void)
{
  struct verdict v;
  char a[32], b[32], c[32], d[32], e[32], ev[160];

  reader_stop();
  if (!s.on)
    return;
  take(pmon__now_ns(), 1); /* who uses the GPUs at the end too */
  v = judge();
  s.split = v.shared == 1 ? (isfinite(v.share) ? 1 : -1)
            : v.shared == 0 ? 0 : -1;
  /* As sharing.share says them (num()): energy_j is share x node_energy_j
   * to the digits written. */
  s.f = s.split == 1 ? round(v.share * 1e6) / 1e6 : 1;
  s.f_err = s.split == 1 ? round(v.share_err * 1e6) / 1e6 : 0;
  if (pmon__tracing) {
    json_t *t = json_pack("{s:i, s:f, s:f, s:o}", "split", s.split, "share",
                          s.f, "share_err", s.f_err, "sharing",
                          pmon__share_json());

    pmon__trace_share(t);
    json_decref(t);
  }
  if (v.shared != 1)
    return;
  pmon__event(s.t_read, -1, "shared",
              "another job ran on this node (%s): this job's share of its "
              "energy is %s +- %s, by its CPU time (%s CPU-s/s; other jobs' "
              "%s, no job's %s)",
              pmon__ev_summary(ev, sizeof ev), fig(v.share, a, sizeof a),
              fig(v.share_err, b, sizeof b),
              fig(v.span > 0 ? v.job / v.span : NAN, c, sizeof c),
              fig(v.span > 0 ? v.jobs / v.span : NAN, d, sizeof d),
              fig(v.span > 0 && v.node > v.job + (isnan(v.jobs) ? 0 : v.jobs)
                    ? (v.node - v.job - (isnan(v.jobs) ? 0 : v.jobs)) / v.span
                    : 0, e, sizeof e));
}

void pmon__share_replayed(int split, double f, double err,
                          json_t *sharing)
{
  s.replayed = 1;
  s.split = split;
  s.f = split == 1 ? f : 1;
  s.f_err = split == 1 ? err : 0;
  json_decref(s.sharing);
  s.sharing = json_deep_copy(sharing);
}

int pmon__share_factor(double *f, double *err)
{
  if (s.replayed) {
    *f = s.f;
    *err = s.f_err;
    return s.split;
  }
  *f = s.split == 1 ? s.f : 1;
  *err = s.split == 1 ? s.f_err : 0;
  if (!s.on) /* PMON_SHARE=off: the site gives whole nodes */
    return share_off ? 0 : -1;
  return s.split;
}

/* X, to the microsecond: the differences of sums of jiffies carry the
 * sums' rounding in their last digits. */
static json_t *num(double x)
{
  return isfinite(x) ? json_real(round(x * 1e6) / 1e6) : json_null();
}

static json_t *count(int n)
{
  return n > 0 ? json_integer(n) : json_null();
}

json_t *pmon__share_json(void)
{
  static const char *const sources[] = {NULL, "proc", "cgroup"};
  struct pmon_state *g = &pmon__g;
  struct verdict v;
  json_t *gpus, *rec;

  if (s.replayed)
    return s.sharing != NULL ? json_deep_copy(s.sharing) : json_null();
  if (!s.on)
    return json_null();
  pthread_mutex_lock(&s_mu);
  gpus = s.ngpu > 0 ? json_array() : json_null();
  v = judge();
  for (int i = 0; i < s.ngpu; i++) {
    const struct gpu *u = &s.gpu[i];

    json_array_append_new(
      gpus, json_pack("{s:s, s:o, s:o}", "channel",
                      g->ms[u->meter].m.ch[u->ch].name, "job",
                      u->failed && !u->job ? json_null() : json_boolean(u->job),
                      "others",
                      u->failed && !u->others ? json_null()
                                              : json_boolean(u->others != 0)));
  }
  rec = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, "
                   "s:o, s:o, s:s, s:o}",
                   "source",
                   s.hj && sources[s.source] != NULL
                     ? json_string(sources[s.source])
                     : json_null(),
                   "span_s", num(v.span), "job_cpu_s", num(v.job),
                   "node_cpu_s", num(v.node), "others_cpu_s", num(v.others),
                   "other_jobs_cpu_s", num(v.jobs),
                   "job_cpus", count(s.job_cpus), "node_cpus",
                   count(s.node_cpus), "cpus_from", s.cpus_from, "gpus", gpus,
                   "shared",
                   v.shared < 0 ? json_null() : json_boolean(v.shared),
                   "share", num(v.share), "share_err", num(v.share_err),
                   "share_model", "cpu-time", "evidence", pmon__ev_json());
  pthread_mutex_unlock(&s_mu);
  return rec;
}

void pmon__share_named(const char *job)
{
  if (s.on)
    pmon__ev_named(job);
}

void pmon__share_close(void)
{
  reader_stop();
  pmon__ev_close();
  for (int i = 0; i < s.np; i++)
    if (s.p[i].fd >= 0)
      close(s.p[i].fd);
  free(s.p);
  free(s.ranks);
  json_decref(s.sharing);
  if (s.stat_fd >= 0)
    close(s.stat_fd);
  if (s.cg_fd >= 0)
    close(s.cg_fd);
  memset(&s, 0, sizeof s);
  s.stat_fd = s.cg_fd = -1;
}

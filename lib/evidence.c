/*
 * evidence.c - whether another job runs on this node (evidence.h; pmon(7),
 * Shared nodes; docs/security.md, "The share records").
 *
 * What is looked at, on the leader's share thread (lib/share.c), at init,
 * every second and at finalize, all of it small reads:
 *
 *  - Slurm (cgroup v2): the job's directory is the component under one
 *    named "*slurmstepd.scope" in a rank's /proc/PID/cgroup (job_ID up to
 *    Slurm 25.11, the job's SLUID after unless CgroupJobIdPaths=yes), else
 *    the component job_ID; another job is a sibling directory but
 *    "system" (slurmstepd's own), its CPU time its cpu.stat usage_usec.
 *    cgroup v1: .../slurm/uid_U/job_ID of the cpuacct controller, other
 *    jobs the job_* under every uid_*, their CPU time cpuacct.usage.
 *    These are root's directories: nobody else can plant one.  The job
 *    holds part of the node when SLURM_CPUS_ON_NODE, or its cgroup's
 *    cpuset.cpus.effective, is fewer CPUs than the node has.
 *  - The share records: each job's leader writes one file in the node's
 *    state directory (pmon__freqrec_dir(), a directory others may write)
 *    for the time it runs, made new with O_EXCL (pmon__create_new()),
 *    mode 0644:
 *        pmon-share-record 1
 *        boot BOOT_ID
 *        job JOB
 *        leader PID START
 *        rank PID              one per rank of the node
 *        meter DRIVER:DEVICE sysfs=ROOT proc=ROOT dev=ROOT   one a meter
 *        end
 *    Another job's record is believed only when it is a regular file
 *    (opened O_NOFOLLOW | O_NONBLOCK: a link is not followed, a FIFO does
 *    not block), not writable by group or others, of this boot, and its
 *    leader runs (PID, START) as the file's owner: a stranger can only
 *    say that a process of its own, which runs here, measures a meter.
 *    A record of the same JOB (the job's own ranks on another host that
 *    this one can see) is not another job.  Another job is evidence when
 *    it measures one of this job's meters.  This user's records whose
 *    leader has gone (SIGKILL) are removed.
 *  - The other users: the processes of /proc whose owner's uid is from
 *    UID_MIN to UID_MAX (/etc/login.defs: 1000 and 60000 by default) and
 *    not this job's, from the walks share.c makes (pmon__ev_walk_*: at
 *    init, every 10 s, at finalize); their CPU time counts as the job's
 *    processes' does in share.c (a process gone whose parent is followed
 *    left its time to its parent).
 *
 * Nothing here fails, prints (but PMON_DEBUG's lines) or blocks: what
 * cannot be read is no evidence.  Memory: a few kB, and 48 bytes per
 * process of another user followed, at most EV_USERS_MAX.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "beside.h"
#include "core.h"
#include "evidence.h"
#include "freqrec.h"
#include "roots.h"

#define EV_JOBS 16          /* other jobs followed, of each kind */
#define EV_PIDS 64          /* an other pmon job's ranks followed */
#define EV_USERS_MAX 4096   /* other users' processes followed */
#define EV_DIR_MAX 4096     /* entries of the state directory looked at */
#define EV_REC_MAX 65536    /* bytes of a record read */
#define EV_WHAT 160

/* Another job: a Slurm cgroup, or another pmon job's record. */
struct other {
  char name[NAME_MAX + 1]; /* its directory, or its record's file name */
  char job[128];
  unsigned uid;
  long pid;                /* a pmon job: its leader, */
  unsigned long long start; /* and when it started */
  int npids, pids[EV_PIDS];
  double first, now;       /* Slurm's: its usage, seconds */
  int measured;            /* a pmon job: measures one of our meters */
  int seen;                /* at the latest look */
};

/* A process of another job: of another user, or a rank (or a rank's
 * descendant) of another pmon job on the node. */
struct uproc {
  int pid, ppid, ok;
  int job;                 /* 1: another pmon job's, 0: another user's */
  unsigned uid;
  unsigned long long start, base, last;
};

/* A process as a walk saw it. */
struct seen {
  int pid, ppid;
  unsigned uid;
  unsigned long long start, cpu;
};

static struct {
  int on;
  long hz;
  unsigned long long init_ticks;
  int node_cpus;
  unsigned own, uid_min, uid_max;
  /* Slurm */
  int slurm, v1;
  char root[PATH_MAX];      /* the cgroup tree the job's directory is in */
  char job_dir[PATH_MAX];   /* under it: "/system.slice/...scope/job_42" */
  struct other cg[EV_JOBS];
  int ncg;
  /* the records */
  char dir[PATH_MAX], prefix[NAME_MAX + 1], rec[PATH_MAX];
  char boot[64];            /* this boot's id, read at open */
  int named;                /* set once job, meters and rec are */
  char job[128];
  int ranks[EV_PIDS], nranks; /* the node's ranks */
  char meters[2048];        /* "\n"-joined DRIVER:DEVICE of our meters */
  struct other rc[EV_JOBS];
  int nrc;
  /* the other users */
  struct uproc *u;
  size_t nu;
  struct seen *wk;          /* the walk under way */
  size_t nwk, capwk;
  unsigned long long gone, gone_jobs; /* ticks of their ended processes */
  double jobs_cpu;          /* the other pmon jobs' processes', seconds */
  unsigned top_uid;         /* the uid that used the most, */
  double top_cpu;           /* how much, seconds */
  double users_cpu;         /* all of it, seconds; NAN before a walk */
  /* what was found */
  double others, others_err; /* pmon__ev_others_cpu()'s, at the last look */
  int found[PMON_EVK_N];
  char what[PMON_EVK_N][EV_WHAT];
} e = {.users_cpu = NAN, .others = NAN};

/* What pmon__ev_json() and _summary() read beside the thread. */
static pthread_mutex_t e_mu = PTHREAD_MUTEX_INITIALIZER;

static void found(int kind, const char *fmt, ...) PMON_PRINTF(2, 3);
static void publish(void);

static void found(int kind, const char *fmt, ...)
{
  va_list ap;
  char what[EV_WHAT];

  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&e_mu);
  if (!e.found[kind] || strcmp(e.what[kind], what) != 0)
    pmon__debug("share: evidence of another job: %s", what);
  e.found[kind] = 1;
  snprintf(e.what[kind], sizeof e.what[kind], "%s", what);
  pthread_mutex_unlock(&e_mu);
}

void pmon__ev_note(int kind, const char *what)
{
  if (kind >= 0 && kind < PMON_EVK_N)
    found(kind, "%s", what);
}

/* The text of PATH (at most SIZE - 1 bytes), NUL-terminated; its length,
 * or -1. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
  ssize_t n, len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    return -1;
  while ((size_t)len < size - 1 &&
         (n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
    len += n;
  close(fd);
  buf[len] = '\0';
  return len;
}

int pmon__cpu_list_count(const char *p)
{
  int n = 0;

  while (*p != '\0' && *p != '\n') {
    char *end;
    long a = strtol(p, &end, 10), b = a;

    if (end == p || a < 0)
      return -1;
    p = end;
    if (*p == '-') {
      b = strtol(p + 1, &end, 10);
      if (end == p + 1 || b < a)
        return -1;
      p = end;
    }
    n += (int)(b - a + 1);
    if (*p == ',')
      p++;
    else if (*p != '\0' && *p != '\n')
      return -1;
  }
  return n;
}

/* ---- Slurm ---------------------------------------------------------- */

/* The end of the Slurm job's component in PATH[0..END), or NULL. */
static const char *job_end(const char *path, const char *end)
{
  const char *p, *q;

  /* The component after one whose name ends with "slurmstepd.scope". */
  for (p = path; p < end; p = q) {
    const char *e2;

    q = memchr(p + 1, '/', (size_t)(end - p - 1));
    e2 = q != NULL ? q : end;
    if (e2 - p > 16 && memcmp(e2 - 16, "slurmstepd.scope", 16) == 0 &&
        q != NULL) {
      const char *r = memchr(q + 1, '/', (size_t)(end - q - 1));

      return r != NULL ? r : end;
    }
    if (q == NULL)
      break;
  }
  /* Else a component job_ID. */
  for (p = path; p < end; p = q) {
    q = memchr(p + 1, '/', (size_t)(end - p - 1));
    if (q == NULL)
      q = end;
    if (q - p > 5 && memcmp(p, "/job_", 5) == 0)
      return q;
  }
  return NULL;
}

int pmon__ev_slurm_dir(const char *text, char *dir, size_t size, int *v1,
                       char *ctl, size_t ctl_size)
{
  const char *line = text;

  while (line != NULL && *line != '\0') {
    const char *nl = strchr(line, '\n');
    const char *end = nl != NULL ? nl : line + strlen(line);
    const char *c = memchr(line, ':', (size_t)(end - line));
    const char *path = c != NULL ? memchr(c + 1, ':', (size_t)(end - c - 1))
                                 : NULL;
    const char *cut;

    line = nl != NULL ? nl + 1 : NULL;
    if (path == NULL || path[1] != '/')
      continue;
    /* v2's line is "0::PATH"; of v1's, the cpuacct controller's. */
    if (path == c + 1) {
      *v1 = 0;
    } else {
      char list[128];
      size_t n = (size_t)(path - c - 1);
      int acct = 0;
      char *save = NULL;

      if (n >= sizeof list)
        continue;
      memcpy(list, c + 1, n);
      list[n] = '\0';
      for (char *t = strtok_r(list, ",", &save); t != NULL;
           t = strtok_r(NULL, ",", &save))
        acct |= strcmp(t, "cpuacct") == 0;
      if (!acct)
        continue;
      *v1 = 1;
    }
    path++;
    if ((cut = job_end(path, end)) == NULL ||
        (size_t)(cut - path) >= size)
      continue;
    memcpy(dir, path, (size_t)(cut - path));
    dir[cut - path] = '\0';
    if (*v1 && ctl_size > (size_t)(path - c - 2))
      snprintf(ctl, ctl_size, "%.*s", (int)(path - c - 2), c + 1);
    else if (ctl_size > 0)
      ctl[0] = '\0';
    return 0;
  }
  return -1;
}

/* A number that follows KEY in the file PATH ("usage_usec 123"), or the
 * file's first number when KEY is NULL; NAN. */
static double file_number(const char *path, const char *key)
{
  char buf[1024], *p = buf;

  if (slurp(path, buf, sizeof buf) <= 0)
    return NAN;
  if (key != NULL) {
    size_t k = strlen(key);

    for (p = buf; (p = strstr(p, key)) != NULL; p += k)
      if ((p == buf || p[-1] == '\n') && p[k] == ' ')
        break;
    if (p == NULL)
      return NAN;
    p += k;
  }
  return strtod(p, NULL);
}

/* Another Slurm job seen at PATH (a directory) named NAME: its CPU time
 * now, kept. */
static void slurm_other(const char *path, const char *name)
{
  char file[PATH_MAX + 32];
  double t;
  int i;

  if (snprintf(file, sizeof file, "%s/%s", path,
               e.v1 ? "cpuacct.usage" : "cpu.stat") >= (int)sizeof file)
    return;
  t = e.v1 ? file_number(file, NULL) * 1e-9
           : file_number(file, "usage_usec") * 1e-6;
  for (i = 0; i < e.ncg && strcmp(e.cg[i].name, name) != 0; i++)
    ;
  if (i == e.ncg) {
    if (e.ncg == EV_JOBS)
      return;
    e.ncg++;
    memset(&e.cg[i], 0, sizeof e.cg[i]);
    snprintf(e.cg[i].name, sizeof e.cg[i].name, "%s", name);
    e.cg[i].first = e.cg[i].now = NAN;
  }
  e.cg[i].seen = 1;
  if (isnan(t))
    return;
  if (isnan(e.cg[i].first))
    e.cg[i].first = t; /* one that started after init: from its first look */
  e.cg[i].now = t;
}

/* The job directories in DIR (a cgroup directory) but OWN and "system". */
static void slurm_siblings(const char *dir, const char *own)
{
  char path[PATH_MAX + NAME_MAX + 2];
  struct dirent *d;
  DIR *dh = opendir(dir);

  if (dh == NULL)
    return;
  while ((d = readdir(dh)) != NULL) {
    if (d->d_name[0] == '.' || strcmp(d->d_name, own) == 0 ||
        strcmp(d->d_name, "system") == 0 ||
        (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN) ||
        (e.v1 && strncmp(d->d_name, "job_", 4) != 0))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, d->d_name);
    if (d->d_type == DT_UNKNOWN) {
      struct stat st;

      if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        continue;
    }
    slurm_other(path, d->d_name);
  }
  closedir(dh);
}

static void slurm_look(void)
{
  char parent[PATH_MAX], names[EV_WHAT] = "";
  const char *base;
  size_t k = 0;
  int n = 0;

  if (!e.slurm)
    return;
  for (int i = 0; i < e.ncg; i++)
    e.cg[i].seen = 0;
  base = strrchr(e.job_dir, '/');
  if (snprintf(parent, sizeof parent, "%s%.*s", e.root,
               (int)(base - e.job_dir), e.job_dir) >= (int)sizeof parent)
    return;
  if (!e.v1) {
    slurm_siblings(parent, base + 1);
  } else {
    /* .../slurm/uid_U/job_ID: every uid_* of .../slurm */
    char top[PATH_MAX], sub[PATH_MAX + NAME_MAX + 2];
    const char *up = strrchr(parent, '/');
    DIR *dh;
    struct dirent *d;

    snprintf(top, sizeof top, "%.*s", (int)(up - parent), parent);
    if ((dh = opendir(top)) != NULL) {
      while ((d = readdir(dh)) != NULL) {
        if (strncmp(d->d_name, "uid_", 4) != 0)
          continue;
        snprintf(sub, sizeof sub, "%s/%s", top, d->d_name);
        slurm_siblings(sub, base + 1);
      }
      closedir(dh);
    }
  }
  for (int i = 0; i < e.ncg; i++) {
    n++;
    if (k + strlen(e.cg[i].name) + 8 < sizeof names)
      k += (size_t)snprintf(names + k, sizeof names - k, "%s%s",
                            k ? ", " : "", e.cg[i].name);
  }
  if (n > 0)
    found(PMON_EVK_SLURM, "Slurm ran %s beside this job", names);
}

/* The Slurm job's directory of PID, and whether Slurm gave part of the
 * node. */
static void slurm_open(int pid)
{
  char path[PATH_MAX], text[8192], ctl[128];
  const char *v = getenv("SLURM_CPUS_ON_NODE");
  int v1 = 0, cpus = -1;

  snprintf(path, sizeof path, "%s/%d/cgroup", pmon__proc_root(), pid);
  if (slurp(path, text, sizeof text) > 0 &&
      pmon__ev_slurm_dir(text, e.job_dir, sizeof e.job_dir, &v1, ctl,
                         sizeof ctl) == 0) {
    static const char *const v2roots[] = {"fs/cgroup", "fs/cgroup/unified"};
    struct stat st;

    e.v1 = v1;
    for (size_t i = 0; i < (v1 ? 1 : 2) && !e.slurm; i++) {
      if (v1)
        snprintf(e.root, sizeof e.root, "%s/fs/cgroup/%s",
                 pmon__sysfs_root(), ctl);
      else
        snprintf(e.root, sizeof e.root, "%s/%s", pmon__sysfs_root(),
                 v2roots[i]);
      e.slurm = snprintf(path, sizeof path, "%s%s", e.root, e.job_dir) <
                  (int)sizeof path &&
                stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    }
    if (e.slurm && !v1) {
      char buf[4096], file[PATH_MAX + 32];

      snprintf(file, sizeof file, "%s/cpuset.cpus.effective", path);
      if (slurp(file, buf, sizeof buf) > 0)
        cpus = pmon__cpu_list_count(buf);
      if (cpus > 0 && e.node_cpus > 0 && cpus < e.node_cpus)
        found(PMON_EVK_SLURM, "Slurm gave this job %d of the node's %d CPUs "
              "(its cgroup's cpuset)", cpus, e.node_cpus);
    }
    if (!e.slurm)
      pmon__debug("share: the Slurm job's cgroup %s: not under %s/fs/cgroup",
                  e.job_dir, pmon__sysfs_root());
  }
  if (v != NULL && getenv("SLURM_JOB_ID") != NULL) {
    char *end;
    long c = strtol(v, &end, 10);

    if (end != v && *end == '\0' && c > 0 && e.node_cpus > 0 &&
        c < e.node_cpus && !e.found[PMON_EVK_SLURM])
      found(PMON_EVK_SLURM, "Slurm gave this job %ld of the node's %d CPUs "
            "(SLURM_CPUS_ON_NODE)", c, e.node_cpus);
  }
}

/* ---- the records ---------------------------------------------------- */

/* A process's CPU time with the children it waited for, and its start,
 * ticks; -1 when it cannot be read. */
static int cpu_of(int pid, unsigned long long *cpu, unsigned long long *start)
{
  char path[PATH_MAX], buf[1024];
  const char *p;
  unsigned long long ut, st, cut, cst;

  snprintf(path, sizeof path, "%s/%d/stat", pmon__proc_root(), pid);
  if (slurp(path, buf, sizeof buf) <= 0 || (p = strrchr(buf, ')')) == NULL ||
      sscanf(p + 1,
             " %*c %*d %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu %llu "
             "%llu %*s %*s %*s %*s %llu",
             &ut, &st, &cut, &cst, start) != 5)
    return -1;
  *cpu = ut + st + cut + cst;
  return 0;
}

/* This meter's name in a record: its driver and its device, and the
 * roots of the trees it is read under (PMON_SYSFS_ROOT, ...). */
static void meter_key(const struct pmon_meter *m, char *buf, size_t size)
{
  char real[PATH_MAX];
  const char *dev = m->spec.path[0] != '\0' ? m->spec.path : m->spec.text;

  if (m->spec.path[0] == '/' && realpath(m->spec.path, real) != NULL)
    dev = real;
  /* With the trees it is read under: a fixture's is another device. */
  if (snprintf(buf, size, "%s:%s sysfs=%s proc=%s dev=%s", m->spec.driver,
               dev, pmon__sysfs_root(), pmon__proc_root(),
               pmon__dev_root()) >= (int)size)
    buf[0] = '\0'; /* too long to be told apart: not written */
  for (char *p = buf; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
}

void pmon__ev_named(const char *job)
{
  struct pmon_state *g = &pmon__g;
  char before[PATH_MAX], *text;
  size_t cap = 4096 + 32 * EV_PIDS + sizeof e.meters, k = 0;
  unsigned long long start = 0, cpu;
  int fd;

  if (!e.on || e.named)
    return;
  snprintf(e.job, sizeof e.job, "%s", job);
  for (int i = 0; i < g->nmeters; i++) {
    char key[512];

    meter_key(&g->ms[i].m, key, sizeof key);
    if (key[0] != '\0' && k + strlen(key) + 2 < sizeof e.meters)
      k += (size_t)snprintf(e.meters + k, sizeof e.meters - k, "%s%s",
                            k ? "\n" : "", key);
  }
  k = 0;
  if ((text = malloc(cap)) == NULL)
    return;
  cpu_of((int)getpid(), &cpu, &start);
  k += (size_t)snprintf(text + k, cap - k,
                        "pmon-share-record 1\nboot %s\njob %s\n"
                        "leader %ld %llu\n",
                        e.boot, job, (long)getpid(), start);
  for (int i = 0; i < e.nranks; i++)
    k += (size_t)snprintf(text + k, cap - k, "rank %d\n", e.ranks[i]);
  for (const char *m = e.meters; *m != '\0';) {
    size_t n = strcspn(m, "\n");

    k += (size_t)snprintf(text + k, cap - k, "meter %.*s\n", (int)n, m);
    m += n + (m[n] == '\n');
  }
  k += (size_t)snprintf(text + k, cap - k, "end\n");
  fd = k < cap && snprintf(before, sizeof before, "%s/%s", e.dir,
                           e.prefix) < (int)sizeof before
         ? pmon__create_new(before, ".job", 0644, e.rec, sizeof e.rec)
               : -1;
  if (fd < 0 || pmon__write_all(fd, text, k) != 0) {
    pmon__debug("share: %s*.job: %s: other jobs on this node's meters "
                "cannot see this one", before, strerror(errno));
    if (fd >= 0)
      unlink(e.rec);
    e.rec[0] = '\0';
  }
  if (fd >= 0)
    close(fd);
  free(text);
  __atomic_store_n(&e.named, 1, __ATOMIC_RELEASE);
}

/* Record NAME in the state directory (open as DIRFD), read and judged. */
static void record_look(int dirfd, const char *name)
{
  char *text, *line, *save = NULL, own[NAME_MAX + 1];
  struct other o;
  struct stat st;
  int fd, ok = 0, end = 0, i;
  ssize_t n, len = 0;
  unsigned long long start;
  long uid;

  snprintf(own, sizeof own, "%s", e.rec[0] ? strrchr(e.rec, '/') + 1 : "");
  if (strcmp(name, own) == 0)
    return;
  fd = openat(dirfd, name,
              O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (st.st_mode & 022) != 0 || (text = malloc(EV_REC_MAX + 1)) == NULL) {
    close(fd);
    return;
  }
  while (len < EV_REC_MAX &&
         (n = read(fd, text + len, (size_t)(EV_REC_MAX - len))) > 0)
    len += n;
  close(fd);
  text[len] = '\0';
  memset(&o, 0, sizeof o);
  snprintf(o.name, sizeof o.name, "%s", name);
  o.uid = (unsigned)st.st_uid;
  for (line = strtok_r(text, "\n", &save), i = 0; line != NULL && !end;
       line = strtok_r(NULL, "\n", &save), i++) {
    char word[128];
    int pid;

    if (i == 0)
      ok = strcmp(line, "pmon-share-record 1") == 0;
    else if (strncmp(line, "boot ", 5) == 0)
      ok = ok && strcmp(line + 5, e.boot) == 0;
    else if (sscanf(line, "job %127s", word) == 1)
      snprintf(o.job, sizeof o.job, "%s", word);
    else if (sscanf(line, "leader %ld %llu", &o.pid, &o.start) == 2)
      ;
    else if (sscanf(line, "rank %d", &pid) == 1 && o.npids < EV_PIDS)
      o.pids[o.npids++] = pid;
    else if (strncmp(line, "meter ", 6) == 0)
      for (const char *m = e.meters; *m != '\0' && !o.measured;) {
        size_t k = strcspn(m, "\n");

        o.measured = strlen(line + 6) == k && memcmp(line + 6, m, k) == 0;
        m += k + (m[k] == '\n');
      }
    else
      end = strcmp(line, "end") == 0;
    if (!ok)
      break;
  }
  free(text);
  if (!ok || !end || o.pid <= 0)
    return;
  /* Its leader must run, as the file's owner. */
  start = pmon__freqrec_start_of(o.pid);
  uid = pmon__freqrec_uid_of(o.pid);
  if (start != o.start || uid != (long)o.uid) {
    if (o.uid == (unsigned)geteuid() && start != o.start) {
      pmon__debug("share: %s/%s: its job has gone: removed", e.dir, name);
      unlinkat(dirfd, name, 0);
    }
    return;
  }
  if (strcmp(o.job, e.job) == 0 || !o.measured)
    return; /* the job's own ranks elsewhere; another meter's job */
  for (i = 0; i < e.nrc && strcmp(e.rc[i].name, name) != 0; i++)
    ;
  if (i == e.nrc) {
    if (e.nrc == EV_JOBS)
      return;
    e.nrc++;
    e.rc[i] = o; /* its processes are followed from the next walk on */
  }
  e.rc[i].seen = 1;
}

static void records_look(void)
{
  char names[EV_WHAT] = "";
  DIR *dh;
  struct dirent *d;
  size_t k = 0, plen = strlen(e.prefix);
  int looked = 0;

  if (!__atomic_load_n(&e.named, __ATOMIC_ACQUIRE) || e.meters[0] == '\0' ||
      (dh = opendir(e.dir)) == NULL)
    return;
  while ((d = readdir(dh)) != NULL && looked++ < EV_DIR_MAX) {
    size_t n = strlen(d->d_name);

    if (n > plen + 4 && strncmp(d->d_name, e.prefix, plen) == 0 &&
        strcmp(d->d_name + n - 4, ".job") == 0)
      record_look(dirfd(dh), d->d_name);
  }
  closedir(dh);
  for (int i = 0; i < e.nrc; i++)
    if (k + strlen(e.rc[i].job) + 32 < sizeof names)
      k += (size_t)snprintf(names + k, sizeof names - k, "%sjob %s (uid %u)",
                            k ? ", " : "", e.rc[i].job, e.rc[i].uid);
  if (e.nrc > 0)
    found(PMON_EVK_PMON, "pmon measured %s on this node's meters", names);
}

/* ---- the other users ------------------------------------------------ */

/* The followed processes that have ended (not ok) let go.  One whose
 * parent is followed, ended or not, left its time to it (its parent
 * waited for it, and counts it in its children's time: no process is
 * counted twice); one whose parent is not followed keeps its last
 * reading, in e.gone or e.gone_jobs. */
static void settle(void)
{
  size_t j = 0;

  for (size_t i = 0; i < e.nu; i++) {
    int parent = 0;

    if (e.u[i].ok)
      continue;
    for (size_t p = 0; p < e.nu && !parent; p++)
      parent = p != i && e.u[p].pid == e.u[i].ppid;
    if (!parent && e.u[i].last > e.u[i].base)
      *(e.u[i].job ? &e.gone_jobs : &e.gone) += e.u[i].last - e.u[i].base;
  }
  for (size_t i = 0; i < e.nu; i++)
    if (e.u[i].ok)
      e.u[j++] = e.u[i];
  e.nu = j;
}

void pmon__ev_walk_begin(void)
{
  e.nwk = 0;
}

void pmon__ev_walk_proc(int pid, int ppid, unsigned uid,
                        unsigned long long start, unsigned long long cpu)
{
  if (!e.on)
    return;
  if (e.nwk == e.capwk) {
    size_t cap = e.capwk ? 2 * e.capwk : 256;
    struct seen *p = realloc(e.wk, cap * sizeof *p);

    if (p == NULL)
      return;
    e.wk = p;
    e.capwk = cap;
  }
  e.wk[e.nwk++] = (struct seen){pid, ppid, uid, start, cpu};
}

static int by_pid(const void *a, const void *b)
{
  int x = ((const struct seen *)a)->pid, y = ((const struct seen *)b)->pid;

  return (x > y) - (x < y);
}

/* Whether process W of the walk is another pmon job's: a rank its record
 * names, or a descendant of one (its parents, up to 64, in the walk). */
static int of_other_job(const struct seen *w)
{
  for (int hops = 0; hops < 64 && w != NULL && w->pid > 1; hops++) {
    struct seen key = {.pid = w->ppid};

    for (int i = 0; i < e.nrc; i++)
      for (int r = 0; r < e.rc[i].npids; r++)
        if (e.rc[i].pids[r] == w->pid)
          return 1;
    w = bsearch(&key, e.wk, e.nwk, sizeof *e.wk, by_pid);
  }
  return 0;
}

/* Process W followed (or found followed), as JOB's (1) or a user's. */
static void follow(const struct seen *w, int job)
{
  struct uproc *q = NULL;

  for (size_t i = 0; i < e.nu && q == NULL; i++)
    if (e.u[i].pid == w->pid && e.u[i].start == w->start)
      q = &e.u[i];
  if (q == NULL) {
    if (e.nu == EV_USERS_MAX)
      return;
    if (e.nu % 64 == 0) {
      struct uproc *p = realloc(e.u, (e.nu + 64) * sizeof *p);

      if (p == NULL)
        return;
      e.u = p;
    }
    q = &e.u[e.nu++];
    q->pid = w->pid;
    q->uid = w->uid;
    q->start = w->start;
    q->base = w->start >= e.init_ticks ? 0 : w->cpu;
  }
  q->job = job;
  q->ppid = w->ppid;
  q->ok = 1;
  q->last = w->cpu;
}

void pmon__ev_walk_end(double span_s)
{
  unsigned long long sum = 0, jobs = 0, best = 0;
  unsigned top = 0;

  if (!e.on)
    return;
  for (size_t i = 0; i < e.nu; i++)
    e.u[i].ok = 0;
  if (e.nwk > 0)
    qsort(e.wk, e.nwk, sizeof *e.wk, by_pid);
  for (size_t i = 0; i < e.nwk; i++) {
    const struct seen *w = &e.wk[i];

    if (e.nrc > 0 && of_other_job(w))
      follow(w, 1);
    else if (w->uid != e.own && w->uid >= e.uid_min && w->uid <= e.uid_max)
      follow(w, 0);
  }
  settle();
  for (size_t i = 0; i < e.nu; i++) {
    unsigned long long c = e.u[i].last > e.u[i].base
                             ? e.u[i].last - e.u[i].base : 0;
    unsigned long long per = 0;

    if (e.u[i].job) {
      jobs += c;
      continue;
    }
    sum += c;
    for (size_t p = 0; p < e.nu; p++)
      if (!e.u[p].job && e.u[p].uid == e.u[i].uid &&
          e.u[p].last > e.u[p].base)
        per += e.u[p].last - e.u[p].base;
    if (per > best)
      best = per, top = e.u[i].uid;
  }
  pthread_mutex_lock(&e_mu);
  e.users_cpu = (double)(sum + e.gone) / (double)e.hz;
  e.jobs_cpu = (double)(jobs + e.gone_jobs) / (double)e.hz;
  e.top_uid = top;
  e.top_cpu = (double)best / (double)e.hz;
  pthread_mutex_unlock(&e_mu);
  if (span_s > 0 && e.users_cpu > PMON_SHARE_OTHERS * span_s &&
      e.users_cpu > PMON_SHARE_OTHERS_MIN)
    found(PMON_EVK_USER, "uid %u's processes used %.2f CPU-s/s "
          "(other users' %.2f, more than %.2f)",
          top, e.top_cpu / span_s, e.users_cpu / span_s, PMON_SHARE_OTHERS);
  publish();
}

/* UID_MIN and UID_MAX of the login.defs at PATH, else 1000 and 60000. */
static void uid_range(const char *path)
{
  char line[256];
  FILE *f = fopen(path, "re");

  e.uid_min = 1000;
  e.uid_max = 60000;
  if (f == NULL)
    return;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned v;

    if (sscanf(line, " UID_MIN %u", &v) == 1)
      e.uid_min = v;
    else if (sscanf(line, " UID_MAX %u", &v) == 1)
      e.uid_max = v;
  }
  fclose(f);
}

/* ---- the whole ------------------------------------------------------ */

void pmon__ev_open(const int *pids, int n, int node_cpus, long hz,
                   unsigned long long init_ticks)
{
  char node[256];

  pmon__ev_close();
  e.on = 1;
  e.hz = hz;
  e.init_ticks = init_ticks;
  e.node_cpus = node_cpus;
  e.own = (unsigned)getuid();
  uid_range("/etc/login.defs");
  if (n > 0)
    slurm_open(pids[0]);
  pmon__freqrec_dir(e.dir, sizeof e.dir);
  pmon__freqrec_boot_id(e.boot, sizeof e.boot);
  pmon__node_name(node, sizeof node);
  snprintf(e.prefix, sizeof e.prefix, "pmon-share-%.200s-", node);
  for (char *p = e.prefix; *p; p++)
    if (*p == '/')
      *p = '_';
  for (int i = 0; i < n && e.nranks < EV_PIDS; i++)
    e.ranks[e.nranks++] = pids[i];
  slurm_look();
  publish();
}

/* The other jobs' CPU time now: their processes followed (the other pmon
 * jobs' ranks and descendants, as the last walk found them), their
 * cgroups'. */
static void others_read(void)
{
  char path[PATH_MAX + NAME_MAX + 2];

  for (size_t i = 0; i < e.nu; i++) {
    unsigned long long c, s0;

    if (!e.u[i].job)
      continue; /* another user's: at the walks */
    e.u[i].ok = cpu_of(e.u[i].pid, &c, &s0) == 0 && s0 == e.u[i].start;
    if (e.u[i].ok && c >= e.u[i].last)
      e.u[i].last = c;
  }
  settle();
  for (int i = 0; i < e.ncg && e.slurm; i++) {
    const char *base = strrchr(e.job_dir, '/');

    if (e.v1)
      continue; /* under one of the uid_* directories: at the looks */
    if (snprintf(path, sizeof path, "%s%.*s/%s", e.root,
                 (int)(base - e.job_dir), e.job_dir, e.cg[i].name) <
        (int)sizeof path)
      slurm_other(path, e.cg[i].name);
  }
}

void pmon__ev_update(void)
{
  if (!e.on)
    return;
  others_read();
  publish();
}

int pmon__ev_look(void)
{
  if (!e.on)
    return 0;
  slurm_look();
  records_look();
  publish();
  return pmon__ev_any();
}

int pmon__ev_any(void)
{
  int any = 0;

  pthread_mutex_lock(&e_mu);
  for (int k = 0; k < PMON_EVK_N; k++)
    any |= k != PMON_EVK_AFFINITY && e.found[k];
  pthread_mutex_unlock(&e_mu);
  return any;
}

/* The other jobs' CPU time as pmon__ev_others_cpu() gives it, kept for
 * readers beside the thread. */
static void publish(void)
{
  double sum = 0, err = 0;
  int n = 0;

  for (int i = 0; i < e.ncg; i++)
    if (isfinite(e.cg[i].first) && isfinite(e.cg[i].now)) {
      sum += e.cg[i].now - e.cg[i].first;
      n++;
    }
  if (n == 0 && isfinite(e.users_cpu)) {
    /* Else Slurm's cgroups hold all the node's jobs.  The other users'
     * processes and the other pmon jobs' (by the last walk, their ranks
     * since), each rounded by a tick at each end. */
    unsigned long long jobs = e.gone_jobs;

    for (size_t i = 0; i < e.nu; i++)
      if (e.u[i].job && e.u[i].last > e.u[i].base)
        jobs += e.u[i].last - e.u[i].base;
    sum = e.users_cpu + (double)jobs / (double)e.hz;
    err = 2.0 * (double)(e.nu + 1) / (double)e.hz;
    n++;
  }
  pthread_mutex_lock(&e_mu);
  e.others = n > 0 ? sum : NAN;
  e.others_err = err;
  pthread_mutex_unlock(&e_mu);
}

double pmon__ev_others_cpu(double *err)
{
  double x;

  pthread_mutex_lock(&e_mu);
  x = e.others;
  *err = e.others_err;
  pthread_mutex_unlock(&e_mu);
  return x;
}

json_t *pmon__ev_json(void)
{
  static const char *const kinds[] = {"slurm", "pmon", "user", "gpu",
                                      "affinity"};
  json_t *a = json_array();

  pthread_mutex_lock(&e_mu);
  for (int k = 0; k < PMON_EVK_N; k++)
    if (e.found[k])
      json_array_append_new(a, json_pack("{s:s, s:s}", "kind", kinds[k],
                                         "what", e.what[k]));
  pthread_mutex_unlock(&e_mu);
  return a;
}

const char *pmon__ev_summary(char *buf, size_t size)
{
  static const char *const says[] = {"Slurm", "another pmon job",
                                     "another user's processes",
                                     "another's process on a GPU",
                                     "affinity"};
  size_t k = 0;

  buf[0] = '\0';
  pthread_mutex_lock(&e_mu);
  for (int i = 0; i < PMON_EVK_AFFINITY; i++)
    if (e.found[i] && k + strlen(says[i]) + 3 < size)
      k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? ", " : "",
                            says[i]);
  pthread_mutex_unlock(&e_mu);
  return buf;
}

void pmon__ev_close(void)
{
  if (e.rec[0] != '\0')
    unlink(e.rec);
  free(e.u);
  free(e.wk);
  pthread_mutex_lock(&e_mu);
  memset(&e, 0, sizeof e);
  e.users_cpu = e.others = NAN;
  pthread_mutex_unlock(&e_mu);
}

/*
 * freqrec.c - the node's records of PMON_IO_FREQ, shared by the jobs of
 * one user on the node and read by its prolog and epilog (freqrec.h,
 * docs/security.md).
 *
 * Three files in the rule's directory (pmon__freqrec_dir()), a directory
 * that other users may write (/var/tmp by default):
 *
 *   pmon-iofreq-NODE.lock    empty; flock(LOCK_EX) on it orders every
 *                            change.  Removed, under the lock, with the
 *                            record; whoever locks checks that the file
 *                            it holds is still the one at the name.
 *   pmon-iofreq-NODE.record  the jobs', lines of text, written whole and
 *                            renamed:
 *       pmon-iofreq-record 1
 *       boot BOOT_ID                     /proc/sys/kernel/random/boot_id
 *       cpu N KHZ                        CPU N's limit before any job
 *       job ID PID START CAP ACTIVE CPUS one per job (CPUS: "0-3,8")
 *   pmon-iofreq-NODE.limits  root's (pmon-iofreq save, in the node's
 *                            prolog): "pmon-iofreq-limits 1", the boot,
 *                            and a "cpu N KHZ" line per CPU: the limits
 *                            the epilog puts back.
 *
 * Each job's node leader adds its job at init and removes it at
 * finalize; the rank that takes the node's count of ranks in a phase from
 * 0 to 1, or back, marks the job active or not.  After each change every
 * CPU is settled: the lowest cap of the active jobs that hold it, else
 * its limit from before.  So a job never takes another's cap for a CPU's
 * own limit, and the last to leave puts back the limit from before the
 * first.  A job whose leader is gone (SIGKILL, a crash) is forgotten at
 * the next change, or by the epilog (pmon-iofreq(8)).
 *
 * What is believed: a job uses the lock and the record only when they
 * are its own user's (root's jobs too: root's own); root's epilog writes
 * only the limits of root's own file, never a value from a user's
 * record, and from a record believes only the jobs whose leader runs, as
 * the record's owner.  Every open in the directory is O_NOFOLLOW and
 * O_NONBLOCK, then a regular file is required: a link, a FIFO or a device
 * is refused in one line, and nothing waits on it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"
#include "beside.h"
#include "env.h"
#include "freqrec.h"
#include "job.h"

#define REC_MAGIC "pmon-iofreq-record 1"
#define LIM_MAGIC "pmon-iofreq-limits 1"
#define REC_MAX (1 << 20)  /* bytes a record may hold */
#define LOCK_WAIT_MS 2000

void pmon__freqrec_dir(char *buf, size_t size)
{
  const char *d = getenv(PMON_ENV_IO_FREQ_STATE);

  snprintf(buf, size, "%s", d != NULL && *d != '\0' ? d : "/var/tmp");
}

void pmon__freqrec_job_key(char *buf, size_t size)
{
  const char *v = pmon__batch_job_id(NULL);

  if (v == NULL) {
    snprintf(buf, size, "pid-%ld", (long)getpid());
    return;
  }
  snprintf(buf, size, "%s", v);
  for (char *p = buf; *p; p++)
    if (*p <= ' ' || *p == 0x7f)
      *p = '_';
}

unsigned long long pmon__freqrec_start_of(long pid)
{
  char path[PATH_MAX], buf[1024], *p;
  unsigned long long start = 0;
  ssize_t n;
  int fd;

  snprintf(path, sizeof path, "%s/%ld/stat", pmon__proc_root(), pid);
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return 0;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* After the command's closing parenthesis: field 3 is the state; the
   * start time is field 22. */
  if ((p = strrchr(buf, ')')) == NULL)
    return 0;
  p++;
  for (int field = 3; field < 22 && p != NULL; field++)
    p = strchr(p + 1, ' ');
  if (p != NULL)
    start = strtoull(p + 1, NULL, 10);
  return start;
}

void pmon__freqrec_boot_id(char *buf, size_t size)
{
  char path[PATH_MAX];
  ssize_t n;
  int fd;

  snprintf(buf, size, "unknown");
  snprintf(path, sizeof path, "%s/sys/kernel/random/boot_id",
           pmon__proc_root());
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return;
  n = read(fd, buf, size - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  buf[strcspn(buf, " \n")] = '\0';
  if (*buf == '\0')
    snprintf(buf, size, "unknown");
}

/* "0-3,8" from a CPU mask, and back (0, or -1 when S is not one). */
static void cpus_format(const unsigned long *m, char *buf, size_t size)
{
  size_t off = 0;

  buf[0] = '\0';
  for (int c = 0; c < PMON_CPUS_MAX; c++) {
    int e = c;

    if (!PMON_CPU_ISSET(c, m))
      continue;
    while (e + 1 < PMON_CPUS_MAX && PMON_CPU_ISSET(e + 1, m))
      e++;
    off += (size_t)snprintf(buf + off, off < size ? size - off : 0,
                            e > c ? "%s%d-%d" : "%s%d", off ? "," : "", c, e);
    c = e;
  }
  if (off == 0)
    snprintf(buf, size, "-");
}

static int cpus_parse(const char *s, unsigned long *m)
{
  memset(m, 0, PMON_CPU_WORDS * sizeof *m);
  if (strcmp(s, "-") == 0)
    return 0;
  while (*s) {
    char *end;
    long a = strtol(s, &end, 10), b = a;

    if (end == s || a < 0 || a >= PMON_CPUS_MAX)
      return -1;
    if (*end == '-') {
      s = end + 1;
      b = strtol(s, &end, 10);
      if (end == s || b < a || b >= PMON_CPUS_MAX)
        return -1;
    }
    for (long c = a; c <= b; c++)
      m[c / (8 * sizeof *m)] |= 1UL << (c % (8 * sizeof *m));
    if (*end == ',')
      end++;
    else if (*end != '\0')
      return -1;
    s = end;
  }
  return 0;
}

/* Whose files open_safe() believes. */
enum { ANYONE, MINE, ROOT_OR_MINE };

/* Opens PATH, in a directory others may write, so that nothing planted
 * there is followed (O_NOFOLLOW), blocks (O_NONBLOCK: a FIFO) or is taken
 * for what it is not: a regular file, with MINE this user's, with
 * ROOT_OR_MINE root's or this user's.  Its status in *ST.  -1 with errno:
 * ELOOP a link, EMEDIUMTYPE not a regular file, EPERM another user's (the
 * owner in ST). */
static int open_safe(const char *path, int flags, mode_t mode, int mine,
                     struct stat *st)
{
  int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                mode);

  if (fd < 0)
    return -1;
  if (fstat(fd, st) != 0) {
    int e = errno;

    close(fd);
    errno = e;
    return -1;
  }
  if (!S_ISREG(st->st_mode) ||
      (mine != ANYONE && st->st_uid != geteuid() &&
       !(mine == ROOT_OR_MINE && st->st_uid == 0))) {
    close(fd);
    errno = !S_ISREG(st->st_mode) ? EMEDIUMTYPE : EPERM;
    return -1;
  }
  return fd;
}

/* Why open_safe() refused PATH (errno E, status ST), for a message. */
static const char *refused(int e, const struct stat *st, char *buf,
                           size_t size)
{
  if (e == ELOOP)
    return "a symbolic link: refused";
  if (e == EMEDIUMTYPE)
    return S_ISFIFO(st->st_mode)   ? "a FIFO, not a file: refused"
           : S_ISDIR(st->st_mode)  ? "a directory, not a file: refused"
                                   : "a device or socket, not a file: refused";
  if (e == EPERM) {
    snprintf(buf, size, "uid %u's, not this user's: not believed",
             (unsigned)st->st_uid);
    return buf;
  }
  return strerror(e);
}

/* Reads at most REC_MAX bytes of FD, NUL-terminated; NULL when out of
 * memory. */
static char *read_text(int fd)
{
  char *text = malloc(REC_MAX + 1);
  ssize_t len = 0, got;

  if (text == NULL)
    return NULL;
  while (len < REC_MAX && (got = read(fd, text + len, REC_MAX - len)) > 0)
    len += got;
  text[len] = '\0';
  return text;
}

static int parse(struct pmon_freqrec *r, char *text)
{
  char boot[64], *line, *save = NULL;
  int n = 0;

  pmon__freqrec_boot_id(boot, sizeof boot);
  for (line = strtok_r(text, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save), n++) {
    char id[64], cpus[8192];
    unsigned cpu, khz;
    int active;
    long pid;
    unsigned long long start;

    if (n == 0) {
      if (strcmp(line, REC_MAGIC) != 0)
        return -1;
    } else if (strncmp(line, "boot ", 5) == 0) {
      if (strcmp(line + 5, boot) != 0) { /* another boot: nothing holds */
        memset(r->orig, 0, sizeof r->orig);
        r->njobs = 0;
        return 0;
      }
    } else if (sscanf(line, "cpu %u %u", &cpu, &khz) == 2) {
      if (cpu >= PMON_CPUS_MAX || khz == 0)
        return -1;
      r->orig[cpu] = khz;
    } else if (sscanf(line, "job %63s %ld %llu %u %d %8191s", id, &pid, &start,
                      &khz, &active, cpus) == 6) {
      struct pmon_freqrec_job *j;

      if (r->njobs >= PMON_FREQREC_JOBS)
        return -1;
      j = &r->job[r->njobs];
      if (cpus_parse(cpus, j->cpus) != 0)
        return -1;
      snprintf(j->id, sizeof j->id, "%s", id);
      j->pid = pid;
      j->start = start;
      j->cap_khz = khz;
      j->active = active != 0;
      r->njobs++;
    } else {
      return -1;
    }
  }
  return n > 0 ? 0 : -1;
}

/* Reads the job's leader's user (the real uid of /proc/PID/status); -1
 * when it cannot be read. */
long pmon__freqrec_uid_of(long pid)
{
  char path[PATH_MAX], buf[2048], *p;
  ssize_t n;
  int fd;

  snprintf(path, sizeof path, "%s/%ld/status", pmon__proc_root(), pid);
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return -1;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  if ((p = strstr(buf, "\nUid:")) == NULL)
    return -1;
  return strtol(p + 5, NULL, 10);
}

static int lock_file(struct pmon_freqrec *r, int create, int mine)
{
  struct stat held, named;
  char why[64];
  int fd, rc;

  for (int tries = 0;; tries++) {
    /* A lock of another user's is taken read-only: flock() needs no
     * more, and nothing is written to it. */
    fd = open_safe(r->lock,
                   mine ? O_RDWR | (create ? O_CREAT : 0) : O_RDONLY, 0600,
                   mine ? MINE : ANYONE, &held);
    if (fd < 0) {
      if (errno == ENOENT && !create)
        return 1;
      return pmon__fail(PMON_EIO, "%s: %s",
                        r->lock, refused(errno, &held, why, sizeof why));
    }
    while ((rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EWOULDBLOCK &&
           tries < LOCK_WAIT_MS) {
      struct timespec ms = {0, 1000000};

      nanosleep(&ms, NULL);
      tries++;
    }
    if (rc != 0) {
      close(fd);
      return pmon__fail(PMON_EAGAIN, "%s: held by another process for %d ms",
                        r->lock, LOCK_WAIT_MS);
    }
    /* The file held must still be the one at the name: another may have
     * removed it, with the record, while this one waited. */
    if (fstat(fd, &held) == 0 && lstat(r->lock, &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev)
      break;
    close(fd);
    if (tries >= LOCK_WAIT_MS)
      return pmon__fail(PMON_EAGAIN, "%s: replaced again and again for %d ms",
                        r->lock, LOCK_WAIT_MS);
  }
  r->lock_fd = fd;
  return 0;
}

/* Reads the record, with MINE only this user's; 0, or a code said with
 * pmon__fail() (the lock is then let go). */
static int read_record(struct pmon_freqrec *r, int mine)
{
  struct stat st;
  char *text, why[64];
  int fd, rc;

  fd = open_safe(r->path, O_RDONLY, 0, mine ? MINE : ANYONE, &st);
  if (fd < 0) {
    if (errno == ENOENT)
      return 0;
    rc = pmon__fail(PMON_EIO, "%s: %s",
                    r->path, refused(errno, &st, why, sizeof why));
    pmon__freqrec_unlock(r, 0);
    return rc;
  }
  r->owner = st.st_uid;
  text = read_text(fd);
  close(fd);
  if (text == NULL) {
    pmon__freqrec_unlock(r, 0);
    return pmon__fail(PMON_ENOMEM, "%s: out of memory", r->path);
  }
  if (parse(r, text) != 0) {
    /* A record that cannot be read holds nothing: the limits now are the
     * limits from before. */
    memset(r->orig, 0, sizeof r->orig);
    r->njobs = 0;
    if (mine)
      pmon__say("%s: %s: not a record of pmon's: started afresh",
                PMON_ENV_IO_FREQ_STATE, r->path);
  }
  free(text);
  for (int i = 0; i < r->njobs; i++) {
    struct pmon_freqrec_job *j = &r->job[i];

    j->alive = j->pid > 0 && j->start != 0 &&
               pmon__freqrec_start_of(j->pid) == j->start;
    j->believed =
      j->alive && pmon__freqrec_uid_of(j->pid) == (long)r->owner;
  }
  return 0;
}

int pmon__freqrec_names(struct pmon_freqrec *r, const char *node)
{
  memset(r, 0, sizeof *r);
  r->lock_fd = -1;
  r->owner = geteuid();
  pmon__freqrec_dir(r->dir, sizeof r->dir);
  if ((size_t)snprintf(r->lock, sizeof r->lock, "%s/pmon-iofreq-%s.lock",
                       r->dir, node) >= sizeof r->lock ||
      (size_t)snprintf(r->path, sizeof r->path, "%s/pmon-iofreq-%s.record",
                       r->dir, node) >= sizeof r->path ||
      (size_t)snprintf(r->limits, sizeof r->limits,
                       "%s/pmon-iofreq-%s.limits", r->dir,
                       node) >= sizeof r->limits)
    return pmon__fail(PMON_EINVAL, "%s: %s: the name is too long",
                      PMON_ENV_IO_FREQ_STATE, r->dir);
  return 0;
}

int pmon__freqrec_lock(struct pmon_freqrec *r, const char *node, int create)
{
  int rc;

  if ((rc = pmon__freqrec_names(r, node)) != 0 ||
      (rc = lock_file(r, create, 1)) != 0)
    return rc;
  return read_record(r, 1);
}

int pmon__freqrec_peek(struct pmon_freqrec *r, const char *node)
{
  int rc;

  if ((rc = pmon__freqrec_names(r, node)) != 0)
    return rc;
  rc = lock_file(r, 0, 0);
  if (rc < 0)
    pmon__say("%s", pmon_errmsg() + strlen("pmon: "));
  if (rc == 1 || rc < 0)
    r->lock_fd = -1; /* read as it is: it is replaced whole */
  r->no_lock = rc == 1;
  return read_record(r, 0);
}

int pmon__freqrec_prune(struct pmon_freqrec *r)
{
  int gone = 0;

  for (int i = 0; i < r->njobs;) {
    struct pmon_freqrec_job *j = &r->job[i];

    if (j->pid > 0 && j->start != 0 &&
        pmon__freqrec_start_of(j->pid) == j->start) {
      i++;
      continue;
    }
    pmon__freqrec_remove(r, j);
    gone++;
  }
  return gone;
}

struct pmon_freqrec_job *pmon__freqrec_find(struct pmon_freqrec *r,
                                            const char *id)
{
  for (int i = 0; i < r->njobs; i++)
    if (strcmp(r->job[i].id, id) == 0)
      return &r->job[i];
  return NULL;
}

struct pmon_freqrec_job *pmon__freqrec_add(struct pmon_freqrec *r,
                                           const char *id)
{
  struct pmon_freqrec_job *j = pmon__freqrec_find(r, id);

  if (j == NULL) {
    if (r->njobs >= PMON_FREQREC_JOBS)
      return NULL;
    j = &r->job[r->njobs++];
  }
  memset(j, 0, sizeof *j);
  snprintf(j->id, sizeof j->id, "%s", id);
  return j;
}

void pmon__freqrec_remove(struct pmon_freqrec *r, struct pmon_freqrec_job *j)
{
  int i = (int)(j - r->job);

  if (i < 0 || i >= r->njobs)
    return;
  memmove(&r->job[i], &r->job[i + 1],
          (size_t)(r->njobs - i - 1) * sizeof r->job[0]);
  r->njobs--;
}

unsigned pmon__freqrec_khz(int cpu, const char *file)
{
  char path[PATH_MAX], buf[32];
  ssize_t n;
  int fd;

  snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/cpufreq/%s",
           pmon__sysfs_root(), cpu, file);
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
    return 0;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return (unsigned)strtoul(buf, NULL, 10);
}

int pmon__freqrec_set_khz(int cpu, unsigned khz)
{
  char path[PATH_MAX], v[16];
  int fd, len, rc = 0;

  snprintf(path, sizeof path,
           "%s/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
           pmon__sysfs_root(), cpu);
  len = snprintf(v, sizeof v, "%u\n", khz);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || pwrite(fd, v, (size_t)len, 0) != len)
    rc = -1;
  else if (ftruncate(fd, len) != 0) {
    /* sysfs has no length to set; a fixture's file has */
  }
  if (fd >= 0)
    close(fd);
  return rc;
}

int pmon__freqrec_settle(struct pmon_freqrec *r)
{
  int failed = 0;

  for (int c = 0; c < PMON_CPUS_MAX; c++) {
    unsigned want = 0;
    int held = 0;

    if (r->orig[c] == 0)
      continue;
    for (int i = 0; i < r->njobs; i++) {
      const struct pmon_freqrec_job *j = &r->job[i];

      if (!PMON_CPU_ISSET(c, j->cpus))
        continue;
      held = 1;
      if (j->active && (want == 0 || j->cap_khz < want))
        want = j->cap_khz;
    }
    if (want == 0)
      want = r->orig[c];
    if (pmon__freqrec_khz(c, "scaling_max_freq") != want &&
        pmon__freqrec_set_khz(c, want) != 0) {
      failed++;
      held = 1; /* kept, to be put back later */
    }
    if (!held)
      r->orig[c] = 0;
  }
  return failed;
}

int pmon__freqrec_unlock(struct pmon_freqrec *r, int save)
{
  int rc = 0, empty = r->njobs == 0;
  char tmp[PATH_MAX + 16], boot[64], cpus[8192];

  for (int c = 0; c < PMON_CPUS_MAX && empty; c++)
    empty = r->orig[c] == 0;
  if (save && r->lock_fd >= 0 && r->owner == geteuid()) {
    if (empty) {
      unlink(r->path);
      unlink(r->lock); /* under the lock: see pmon__freqrec_lock() */
    } else {
      char before[PATH_MAX + 8];
      FILE *fp;
      int fd;

      snprintf(before, sizeof before, "%s.", r->path);
      fd = pmon__create_new(before, ".tmp", 0600, tmp, sizeof tmp);
      fp = fd >= 0 ? fdopen(fd, "w") : NULL;
      if (fp == NULL) {
        if (fd >= 0)
          close(fd);
        rc = pmon__fail(PMON_EIO, "%s: cannot write: %s", r->path,
                        strerror(errno));
      } else {
        pmon__freqrec_boot_id(boot, sizeof boot);
        fprintf(fp, "%s\nboot %s\n", REC_MAGIC, boot);
        for (int c = 0; c < PMON_CPUS_MAX; c++)
          if (r->orig[c] != 0)
            fprintf(fp, "cpu %d %u\n", c, r->orig[c]);
        for (int i = 0; i < r->njobs; i++) {
          const struct pmon_freqrec_job *j = &r->job[i];

          cpus_format(j->cpus, cpus, sizeof cpus);
          fprintf(fp, "job %s %ld %llu %u %d %s\n", j->id, j->pid, j->start,
                  j->cap_khz, j->active, cpus);
        }
        /* No fsync(): after a crash of the node the boot differs, and
         * the record holds nothing. */
        if (fclose(fp) != 0)
          rc = PMON_EIO;
        if (rc != 0 || rename(tmp, r->path) != 0) {
          rc = pmon__fail(PMON_EIO, "%s: cannot write: %s", r->path,
                          strerror(errno));
          unlink(tmp);
        }
      }
    }
  }
  if (r->lock_fd >= 0)
    close(r->lock_fd); /* and the lock with it */
  r->lock_fd = -1;
  return rc;
}

void pmon__freqrec_drop(struct pmon_freqrec *r)
{
  if (r->lock_fd >= 0) {
    unlink(r->path);
    unlink(r->lock); /* under the lock: see pmon__freqrec_lock() */
  } else if (r->no_lock) {
    unlink(r->path); /* no job of the rule's is changing it */
  }
  pmon__freqrec_unlock(r, 0);
}

int pmon__freqrec_limits(const struct pmon_freqrec *r, unsigned *khz)
{
  struct stat st;
  char boot[64], *text, *line, *save = NULL, why[64];
  int fd, n = 0, bad = 0;

  memset(khz, 0, PMON_CPUS_MAX * sizeof *khz);
  fd = open_safe(r->limits, O_RDONLY, 0, ROOT_OR_MINE, &st);
  if (fd < 0)
    return errno == ENOENT ? 0
                           : pmon__fail(PMON_EIO, "%s: %s", r->limits,
                                        refused(errno, &st, why, sizeof why));
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    close(fd);
    return pmon__fail(PMON_EIO, "%s: writable by others (mode %04o): not "
                      "believed", r->limits, (unsigned)(st.st_mode & 07777));
  }
  text = read_text(fd);
  close(fd);
  if (text == NULL)
    return pmon__fail(PMON_ENOMEM, "%s: out of memory", r->limits);
  pmon__freqrec_boot_id(boot, sizeof boot);
  for (line = strtok_r(text, "\n", &save); line != NULL && !bad;
       line = strtok_r(NULL, "\n", &save), n++) {
    unsigned cpu, k;

    if (n == 0)
      bad = strcmp(line, LIM_MAGIC) != 0;
    else if (strncmp(line, "boot ", 5) == 0) {
      if (strcmp(line + 5, boot) != 0) { /* another boot's limits */
        free(text);
        memset(khz, 0, PMON_CPUS_MAX * sizeof *khz);
        return 0;
      }
    } else if (sscanf(line, "cpu %u %u", &cpu, &k) == 2 &&
               cpu < PMON_CPUS_MAX && k != 0)
      khz[cpu] = k;
    else
      bad = 1;
  }
  free(text);
  if (bad || n == 0) {
    memset(khz, 0, PMON_CPUS_MAX * sizeof *khz);
    return pmon__fail(PMON_EFORMAT, "%s: line %d: not a file of "
                      "pmon-iofreq save's", r->limits, n);
  }
  n = 0;
  for (int c = 0; c < PMON_CPUS_MAX; c++)
    n += khz[c] != 0;
  return n;
}

int pmon__freqrec_limits_save(const struct pmon_freqrec *r,
                              const unsigned *khz)
{
  char before[PATH_MAX + 8], tmp[PATH_MAX + 16], boot[64];
  FILE *fp;
  int fd, rc = 0;

  snprintf(before, sizeof before, "%s.", r->limits);
  fd = pmon__create_new(before, ".tmp", 0644, tmp, sizeof tmp);
  /* 0644 whatever the umask: the file is read by pmon-iofreq show. */
  if (fd >= 0 && fchmod(fd, 0644) != 0) {
    /* then as the umask made it */
  }
  fp = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (fp == NULL) {
    if (fd >= 0)
      close(fd);
    return pmon__fail(PMON_EIO, "%s: cannot write: %s", r->limits,
                      strerror(errno));
  }
  pmon__freqrec_boot_id(boot, sizeof boot);
  fprintf(fp, "%s\nboot %s\n", LIM_MAGIC, boot);
  for (int c = 0; c < PMON_CPUS_MAX; c++)
    if (khz[c] != 0)
      fprintf(fp, "cpu %d %u\n", c, khz[c]);
  if (fclose(fp) != 0)
    rc = -1;
  if (rc != 0 || rename(tmp, r->limits) != 0) {
    rc = pmon__fail(PMON_EIO, "%s: cannot write: %s", r->limits,
                    strerror(errno));
    unlink(tmp);
  }
  return rc;
}

/* ---- The calibration's lock ------------------------------------------- */

#define CAL_MAGIC "pmon-iofreq-calibration 1"
#define CAL_WAIT_MS 500 /* a job's look holds the lock shared that long, at most */

static int cal_name(char *buf, size_t size, const char *node)
{
  char dir[PATH_MAX];

  pmon__freqrec_dir(dir, sizeof dir);
  if ((size_t)snprintf(buf, size, "%s/pmon-iofreq-%s.calibration", dir,
                       node) >= size)
    return pmon__fail(PMON_EINVAL, "%s: %s: the name is too long",
                      PMON_ENV_IO_FREQ_STATE, dir);
  return 0;
}

/* The pid a calibration's file names; 0 when it names none. */
static long cal_pid(int fd)
{
  char buf[128];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  size_t head = strlen(CAL_MAGIC "\npid ");
  long pid;

  if (n <= 0)
    return 0;
  buf[n] = '\0';
  if (strncmp(buf, CAL_MAGIC "\npid ", head) != 0)
    return 0;
  pid = strtol(buf + head, NULL, 10);
  return pid > 0 ? pid : 0;
}

int pmon__freqrec_cal_take(struct pmon_freqcal *c, const char *node)
{
  struct stat st, named;
  char why[64], text[128];
  int rc, fd = -1, len;

  c->fd = -1;
  c->pid = 0;
  c->replaced = 0;
  c->replaced_uid = 0;
  if ((rc = cal_name(c->path, sizeof c->path, node)) != 0)
    return rc;
  for (int tries = 0; tries < 3; tries++) {
    /* What is at the name and not this user's file is refused; root,
     * whom no stranger may keep from the clock, removes it. */
    if (lstat(c->path, &st) == 0 &&
        (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
      if (geteuid() != 0 || unlink(c->path) != 0)
        return pmon__fail(PMON_EIO, "%s: %s", c->path,
                          S_ISLNK(st.st_mode) ? "a symbolic link: refused"
                          : !S_ISREG(st.st_mode)
                            ? "not a regular file: refused"
                            : (snprintf(why, sizeof why, "uid %u's, not "
                                        "this user's: refused",
                                        (unsigned)st.st_uid),
                               why));
      c->replaced = 1;
      c->replaced_uid = (unsigned)st.st_uid;
    }
    fd = open_safe(c->path, O_RDWR | O_CREAT, 0644, MINE, &st);
    if (fd < 0) {
      if (errno == EPERM || errno == EACCES || errno == ELOOP)
        continue; /* planted meanwhile: looked at again */
      return pmon__fail(PMON_EIO, "%s: cannot make it: %s", c->path,
                        strerror(errno));
    }
    for (int ms = 0; (rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 &&
                     errno == EWOULDBLOCK && ms < CAL_WAIT_MS; ms++) {
      struct timespec one = {0, 1000000};

      nanosleep(&one, NULL);
    }
    if (rc != 0) {
      c->pid = cal_pid(fd);
      close(fd);
      return pmon__fail(PMON_EAGAIN, "%s: another calibration holds the "
                        "clock (pid %ld)", c->path, c->pid);
    }
    /* Still the file at the name: another's _give may have removed it
     * while this one waited. */
    if (fstat(fd, &st) == 0 && lstat(c->path, &named) == 0 &&
        st.st_ino == named.st_ino && st.st_dev == named.st_dev)
      break;
    close(fd);
    fd = -1;
  }
  if (fd < 0)
    return pmon__fail(PMON_EIO, "%s: replaced again and again: refused",
                      c->path);
  len = snprintf(text, sizeof text, "%s\npid %ld %llu\n", CAL_MAGIC,
                 (long)getpid(), pmon__freqrec_start_of((long)getpid()));
  if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)len, 0) != len) {
    rc = pmon__fail(PMON_EIO, "%s: cannot write: %s", c->path,
                    strerror(errno));
    close(fd);
    return rc;
  }
  c->fd = fd;
  return 0;
}

void pmon__freqrec_cal_give(struct pmon_freqcal *c)
{
  if (c->fd < 0)
    return;
  unlink(c->path); /* under the lock: see pmon__freqrec_cal_take() */
  close(c->fd);
  c->fd = -1;
}

int pmon__freqrec_cal_running(const char *node, long *pid)
{
  char path[PATH_MAX];
  struct stat st;
  int fd, held;

  *pid = 0;
  if (cal_name(path, sizeof path, node) != 0)
    return 0;
  if ((fd = open_safe(path, O_RDONLY, 0, ROOT_OR_MINE, &st)) < 0)
    return 0; /* none, or not believed */
  held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  if (held)
    *pid = cal_pid(fd);
  close(fd); /* and the shared lock with it */
  return held;
}

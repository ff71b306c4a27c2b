/*
 * freqrec.c - the node's record of PMON_IO_FREQ, shared by every job on
 * the node and by its epilog (freqrec.h).
 *
 * Two files in the rule's directory (pmon__freqrec_dir()):
 *
 *   pmon-iofreq-NODE.lock    empty; flock(LOCK_EX) on it orders every
 *                            change.  Removed, under the lock, with the
 *                            record; whoever locks checks that the file
 *                            it holds is still the one at the name.
 *   pmon-iofreq-NODE.record  lines of text, written whole and renamed:
 *       pmon-iofreq-record 1
 *       boot BOOT_ID                     /proc/sys/kernel/random/boot_id
 *       cpu N KHZ                        CPU N's limit before any job
 *       job ID PID START CAP ACTIVE CPUS one per job (CPUS: "0-3,8")
 *
 * Each job's node leader adds its job at init and removes it at
 * finalize; the rank that takes the node's count of ranks in a phase from
 * 0 to 1, or back, marks the job active or not.  After each change every
 * CPU is settled: the lowest cap of the active jobs that hold it, else
 * its limit from before.  So a job never takes another's cap for a CPU's
 * own limit, and the last to leave puts back the limit from before the
 * first.  A job whose leader is gone (SIGKILL, a crash) is forgotten at
 * the next change, by any job or by the epilog (pmon-iofreq(8)).
 *
 * Both files are created with O_NOFOLLOW (the record with O_EXCL beside
 * its name), mode 0600, and used only when they are this user's; root
 * (the epilog) may use anyone's, and then writes only values that raise
 * a CPU's limit within its cpuinfo range.
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

static void boot_id(char *buf, size_t size)
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

/* Open a file of the record's for reading or locking: not a link, a
 * regular file, this user's (any user's for root).  -1 with errno. */
static int open_own(const char *path, int flags, mode_t mode, uid_t *owner)
{
  struct stat st;
  int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode);

  if (fd < 0)
    return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (st.st_uid != geteuid() && geteuid() != 0)) {
    close(fd);
    errno = EPERM;
    return -1;
  }
  if (owner != NULL)
    *owner = st.st_uid;
  return fd;
}

static int parse(struct pmon_freqrec *r, char *text)
{
  char boot[64], *line, *save = NULL;
  int n = 0;

  boot_id(boot, sizeof boot);
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

int pmon__freqrec_lock(struct pmon_freqrec *r, const char *node, int create)
{
  struct stat held, named;
  char *text = NULL;
  ssize_t len = 0, got;
  int fd, rc;

  memset(r, 0, sizeof *r);
  r->lock_fd = -1;
  pmon__freqrec_dir(r->dir, sizeof r->dir);
  if ((size_t)snprintf(r->lock, sizeof r->lock, "%s/pmon-iofreq-%s.lock",
                       r->dir, node) >= sizeof r->lock ||
      (size_t)snprintf(r->path, sizeof r->path, "%s/pmon-iofreq-%s.record",
                       r->dir, node) >= sizeof r->path)
    return pmon__fail(PMON_EINVAL, "%s: %s: the name is too long",
                      PMON_ENV_IO_FREQ_STATE, r->dir);
  for (int tries = 0;; tries++) {
    fd = open_own(r->lock, O_RDWR | (create ? O_CREAT : 0), 0600, &r->owner);
    if (fd < 0) {
      if (errno == ENOENT && !create)
        return 1;
      return pmon__fail(PMON_EIO, "%s: %s", r->lock,
                        errno == EPERM ? "not a file of this user's"
                                       : strerror(errno));
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
    if (fstat(fd, &held) == 0 && stat(r->lock, &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev)
      break;
    close(fd);
    if (tries >= LOCK_WAIT_MS)
      return pmon__fail(PMON_EAGAIN, "%s: replaced again and again for %d ms",
                        r->lock, LOCK_WAIT_MS);
  }
  r->lock_fd = fd;
  fd = open_own(r->path, O_RDONLY, 0, NULL);
  if (fd < 0) {
    if (errno == ENOENT)
      return 0;
    rc = pmon__fail(PMON_EIO, "%s: %s", r->path,
                    errno == EPERM ? "not a file of this user's"
                                   : strerror(errno));
    pmon__freqrec_unlock(r, 0);
    return rc;
  }
  if ((text = malloc(REC_MAX + 1)) == NULL) {
    close(fd);
    pmon__freqrec_unlock(r, 0);
    return pmon__fail(PMON_ENOMEM, "%s: out of memory", r->path);
  }
  while (len < REC_MAX && (got = read(fd, text + len, REC_MAX - len)) > 0)
    len += got;
  close(fd);
  text[len] = '\0';
  if (parse(r, text) != 0) {
    /* A record that cannot be read holds nothing: the limits now are the
     * limits from before. */
    memset(r->orig, 0, sizeof r->orig);
    r->njobs = 0;
    free(text);
    pmon__say("%s: %s: not a record of pmon's: started afresh",
              PMON_ENV_IO_FREQ_STATE, r->path);
    return 0;
  }
  free(text);
  return 0;
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

/* A number read from a cpufreq file of CPU, 0 when it cannot be. */
static unsigned read_khz(int cpu, const char *file)
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

int pmon__freqrec_settle(struct pmon_freqrec *r, int only_raise)
{
  int failed = 0;

  for (int c = 0; c < PMON_CPUS_MAX; c++) {
    unsigned want = 0, now;
    int held = 0;
    char path[PATH_MAX], v[16];
    int fd, len;

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
    now = read_khz(c, "scaling_max_freq");
    if (now != want &&
        !(only_raise &&
          (want < now || want < read_khz(c, "cpuinfo_min_freq") ||
           want > read_khz(c, "cpuinfo_max_freq")))) {
      snprintf(path, sizeof path,
               "%s/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
               pmon__sysfs_root(), c);
      len = snprintf(v, sizeof v, "%u\n", want);
      fd = open(path, O_WRONLY | O_CLOEXEC);
      if (fd < 0 || pwrite(fd, v, (size_t)len, 0) != len) {
        failed++;
        held = 1; /* kept, to be put back later */
      } else if (ftruncate(fd, len) != 0) {
        /* sysfs has no length to set; a fixture's file has */
      }
      if (fd >= 0)
        close(fd);
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
  if (save && r->lock_fd >= 0) {
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
        boot_id(boot, sizeof boot);
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
        /* Root keeps the file its user's (a job must read it next). */
        if (geteuid() == 0 && r->owner != 0 &&
            fchown(fileno(fp), r->owner, (gid_t)-1) != 0) {
          /* then only root reads it: the next job starts afresh */
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

/*
 * cpufreq.c - the clock frequency of the CPUs that a node's ranks run on,
 * for the report (nodes[].cpu_freq and the timeline's cpu_mhz).
 *
 * The node leader opens, at init, scaling_cur_freq of each CPU in the
 * union of its ranks' affinity masks (pmon__node_setup()), under
 * PMON_SYSFS_ROOT's devices/system/cpu/cpuN/cpufreq/, and reads them with
 * the node total's history points, at most every PMON_FREQ_READ_NS: the
 * mean over the CPUs is the point's frequency.  A machine without cpufreq
 * (a container, many VMs) gives no figure and one reason, never an error.
 * Memory: an fd per CPU, fixed at open.  Called with g->lock held or with
 * no poller running, as the history is.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"

#define PMON_FREQ_READ_NS 100000000 /* 0.1 s between readings */

static struct {
  int n;            /* CPUs with an open scaling_cur_freq */
  int *fd;
  char governor[32]; /* of the CPUs, "mixed" when they differ */
  char why[192];     /* when n is 0 */
  uint64_t t_last;   /* when the CPUs were last read */
  double last;       /* the mean of that reading, MHz; NAN before one */
  double sum, count, min, max; /* over the readings, MHz */
} f = {.last = NAN};

/* The first line of FILE under the cpufreq directory of CPU into BUF
 * (without its newline); -1 with errno. */
static int read_line(int cpu, const char *file, char *buf, size_t size)
{
  char path[PATH_MAX];
  FILE *fp;

  snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/cpufreq/%s",
           pmon__sysfs_root(), cpu, file);
  if ((fp = fopen(path, "re")) == NULL)
    return -1;
  if (fgets(buf, (int)size, fp) == NULL) {
    fclose(fp);
    errno = EIO;
    return -1;
  }
  fclose(fp);
  buf[strcspn(buf, "\n")] = '\0';
  return 0;
}

void pmon__cpufreq_open(const unsigned long *cpus)
{
  char path[PATH_MAX], gov[32];
  int first = -1, err = 0;

  pmon__cpufreq_close();
  if ((f.fd = calloc(PMON_CPUS_MAX, sizeof *f.fd)) == NULL) {
    snprintf(f.why, sizeof f.why, "out of memory");
    return;
  }
  for (int cpu = 0; cpu < PMON_CPUS_MAX; cpu++) {
    int fd;

    if (!PMON_CPU_ISSET(cpu, cpus))
      continue;
    if (first < 0)
      first = cpu;
    snprintf(path, sizeof path,
             "%s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
             pmon__sysfs_root(), cpu);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
      err = errno;
      continue;
    }
    f.fd[f.n++] = fd;
    if (read_line(cpu, "scaling_governor", gov, sizeof gov) == 0)
      snprintf(f.governor, sizeof f.governor, "%s",
               f.governor[0] == '\0' || strcmp(f.governor, gov) == 0
                 ? gov : "mixed");
  }
  if (f.n == 0 && first < 0)
    snprintf(f.why, sizeof f.why, "the ranks' CPUs are not known");
  else if (f.n == 0)
    snprintf(f.why, sizeof f.why,
             "no %s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq: %s "
             "(no cpufreq driver: a container or a VM)",
             pmon__sysfs_root(), first, strerror(err));
}

double pmon__cpufreq_read(uint64_t t)
{
  double sum = 0;
  int got = 0;

  if (f.n == 0 || (f.count > 0 && t < f.t_last + PMON_FREQ_READ_NS))
    return f.last;
  for (int i = 0; i < f.n; i++) {
    char buf[32];
    ssize_t n;
    char *end;
    double khz;

    do
      n = pread(f.fd[i], buf, sizeof buf - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
      continue;
    buf[n] = '\0';
    khz = strtod(buf, &end);
    if (end == buf || !(khz > 0 && khz < 1e8)) /* up to 100 GHz */
      continue;
    sum += khz / 1e3;
    f.min = f.count == 0 && got == 0 ? khz / 1e3 : fmin(f.min, khz / 1e3);
    f.max = fmax(f.max, khz / 1e3);
    got++;
  }
  f.t_last = t;
  if (got == 0)
    return f.last = NAN;
  f.last = sum / got;
  f.sum += f.last;
  f.count++;
  return f.last;
}

json_t *pmon__cpufreq_json(void)
{
  if (f.count == 0)
    return json_null();
  return json_pack("{s:f, s:f, s:f, s:s?, s:i}", "mean_mhz", f.sum / f.count,
                   "min_mhz", f.min, "max_mhz", f.max, "governor",
                   f.governor[0] != '\0' ? f.governor : NULL, "cpus", f.n);
}

const char *pmon__cpufreq_why(void)
{
  if (f.count > 0)
    return NULL;
  return f.why[0] != '\0' ? f.why : "the CPUs' frequency could not be read";
}

void pmon__cpufreq_close(void)
{
  for (int i = 0; i < f.n; i++)
    close(f.fd[i]);
  free(f.fd);
  memset(&f, 0, sizeof f);
  f.last = NAN;
}

/*
 * roots.c - the sysfs, procfs and device roots, and the reading of
 * /proc/stat's "cpu" line (roots.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "env.h"
#include "roots.h"

static const char *root(const char *var, const char *def)
{
  const char *v = getenv(var);

  return v != NULL && *v != '\0' ? v : def;
}

const char *pmon__sysfs_root(void)
{
  return root(PMON_ENV_SYSFS_ROOT, "/sys");
}

const char *pmon__proc_root(void)
{
  return root(PMON_ENV_PROC_ROOT, "/proc");
}

const char *pmon__dev_root(void)
{
  return root(PMON_ENV_DEV_ROOT, "/dev");
}

int pmon__proc_stat_times(const char *buf, unsigned long long f[8])
{
  int n;

  memset(f, 0, 8 * sizeof *f);
  n = sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
             &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
  return n < 4 ? PMON_EFORMAT : 0;
}

int pmon__proc_stat_cpu(const char *buf, unsigned long long *busy,
                        unsigned long long *total)
{
  unsigned long long f[8];

  if (pmon__proc_stat_times(buf, f) != 0)
    return PMON_EFORMAT;
  /* user nice system idle iowait irq softirq steal */
  *busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  *total = *busy + f[3] + f[4];
  return 0;
}

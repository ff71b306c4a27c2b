/*
 * roots.h - where pmon reads the kernel's trees (base/roots.c), so that
 * every driver and the core run against fixture trees in tests.
 */
#ifndef PMON_ROOTS_H
#define PMON_ROOTS_H

/*
 * The root of the sysfs, procfs and device trees ("/sys", "/proc", "/dev"
 * unless PMON_SYSFS_ROOT, PMON_PROC_ROOT or PMON_DEV_ROOT say otherwise).
 */
const char *pmon__sysfs_root(void);
const char *pmon__proc_root(void);
const char *pmon__dev_root(void);

/*
 * The aggregate "cpu" line at the start of BUF, the text of /proc/stat:
 * *BUSY gets the jiffies of user, nice, system, irq, softirq and steal
 * time, *TOTAL those and idle and iowait.  0, or PMON_EFORMAT when BUF
 * does not start with a "cpu" line of at least 4 numbers.
 */
int pmon__proc_stat_cpu(const char *buf, unsigned long long *busy,
                        unsigned long long *total);

/*
 * The same line's first eight fields into F, in /proc/stat's order: user,
 * nice, system, idle, iowait, irq, softirq, steal (jiffies; those the
 * kernel does not give are 0).  0, or PMON_EFORMAT as above.
 */
int pmon__proc_stat_times(const char *buf, unsigned long long f[8]);

#endif /* PMON_ROOTS_H */

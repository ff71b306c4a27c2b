/*
 * raplfeed - plays RAPL for the tests: builds fixture trees under ROOT
 * (ROOT/sys, ROOT/proc, ROOT/dev, for PMON_SYSFS_ROOT, PMON_PROC_ROOT and
 * PMON_DEV_ROOT) and keeps their energy counters moving at known, constant
 * powers.
 *
 *   raplfeed ROOT [options]
 *     --range UJ      max_energy_range_uj of the two package zones
 *                     (262143328850, as a 2^-14 J unit gives); the other
 *                     zones keep that default
 *     --esu N         the msr energy unit, 2^-N J: bits 12:8 of the unit
 *                     register 0x606 (14)
 *     --dram-esu N    the unit the msr DRAM counters count in (16: the
 *                     fixed unit of the Intel server the cpuinfo names)
 *     --model N       the cpuinfo model (85, Skylake-SP: fixed DRAM unit)
 *     --hz N          updates per second (500)
 *     --seconds S     stop after S seconds (default: until SIGTERM)
 *     --no-powercap   leave the powercap tree out
 *     --no-msr        leave the msr devices out
 *     --perf EVENTS   emulate perf's power PMU with EVENTS, a list of
 *                     pkg, ram and psys: ROOT/sys/bus/event_source/
 *                     devices/power with type, cpumask (CPUs 0 and 1, one
 *                     per package), events/energy-EVENT (.unit, .scale of
 *                     2^-32 J), and counts/energy-EVENT-cpuN, the count
 *                     in 2^-32 J as decimal text, which the rapl driver
 *                     reads in place of perf_event_open (psys on CPU 0
 *                     only, as the kernel has it)
 *     --still ZONES   these zones' counters never move (a list of names:
 *                     psys, package-0, dram, ...), as psys on a virtual
 *                     machine whose PMU offers it and reads 0
 *
 * Zones and powers (watts): package-0 60, package-1 40, dram-0 10,
 * dram-1 5, core-0 30, uncore-0 5, psys 150; and an intel-rapl-mmio:0
 * zone, a second view of package-0 that a reader must not add, at 999 W
 * so that adding it shows.  Each counter starts at a base energy of its
 * own and counts E(t) = base + P t, modulo its range: energy_uj in
 * microjoules modulo max_energy_range_uj + 1, the msr registers in units
 * of their energy unit modulo 2^32.  The msr devices are regular files
 * holding 8-byte little-endian values at the registers' offsets:
 * cpu/0/msr (package 0: unit, power info, package, DRAM, PP0, PP1) and
 * cpu/1/msr (package 1: unit, power info, package, DRAM); psys is not in
 * them.  CPUs 0 and 2 are in package 0, 1 and 3 in package 1.  The unit
 * register says 2^-ESU J and 1/2 W; MSR_PKG_POWER_INFO (0x614) a most
 * power of 240 units, 120 W.
 *
 * In a regular file, registers a few addresses apart share bytes, which
 * the device keeps apart: the package status (0x611) is written as its
 * 4 bytes of status field, leaving bytes 0x615 on to MSR_PKG_POWER_INFO,
 * whose most power (bits 46:32) is bytes 0x618 and 0x619; 0x619 is also
 * the low byte of the DRAM status, so the DRAM counter moves in steps of
 * 256 units (3.9 mJ at 2^-16 J) and keeps that byte 0.
 *
 * A counter file is rewritten in place (the reader keeps it open): the
 * whole text with its newline in one pwrite, then ftruncate to its
 * length.  ROOT/ready appears once everything has been written once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RANGE 262143328850.0 /* µJ: 2^32 units of 2^-14 J */
#define NCPU 4
#define PERF_SCALE 2.3283064365386962890625e-10 /* 2^-32 J */

/* The perf events raplfeed can emulate: event, config, the zones they
 * count (by index in zones[]) on CPU 0 and CPU 1 (-1: none). */
static const struct {
  const char *name, *event, *config;
  int zone[2];
} events[] = {
  {"pkg", "energy-pkg", "event=0x02", {0, 4}},
  {"ram", "energy-ram", "event=0x03", {3, 5}},
  {"psys", "energy-psys", "event=0x05", {6, -1}},
};
#define NEVENTS (sizeof events / sizeof events[0])

/* The zones: powercap directory and name, power, most power for
 * constraint_0_max_power_uw (0: no file), package, msr register (0: not
 * in the msr devices), whether --range applies. */
static const struct {
  const char *dir;
  const char *name;
  double watts, max_watts;
  int pkg;
  uint32_t reg;
  int packaged;
} zones[] = {
  {"intel-rapl:0", "package-0", 60, 120, 0, 0x611, 1},
  {"intel-rapl:0:0", "core", 30, 0, 0, 0x639, 0},
  {"intel-rapl:0:1", "uncore", 5, 0, 0, 0x641, 0},
  {"intel-rapl:0:2", "dram", 10, 30, 0, 0x619, 0},
  {"intel-rapl:1", "package-1", 40, 120, 1, 0x611, 1},
  {"intel-rapl:1:0", "dram", 5, 30, 1, 0x619, 0},
  {"intel-rapl:2", "psys", 150, 0, 0, 0, 0},
  {"intel-rapl-mmio:0", "package-0", 999, 120, 0, 0, 0},
};
#define NZONES (sizeof zones / sizeof zones[0])

static volatile sig_atomic_t done;

static void stop(int sig)
{
  (void)sig;
  done = 1;
}

static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
  perror(what);
  exit(1);
}

/* mkdir -p PATH. */
static void mkdirs(const char *path)
{
  char buf[4096];

  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p != '\0'; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        die(buf);
      *p = '/';
    }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST)
    die(buf);
}

/* Write TEXT to the file PATH, created when absent. */
static void put(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");

  if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
    die(path);
}

/* Rewrite the open file FD with the number V and a newline. */
static void put_u64(int fd, uint64_t v)
{
  char text[32];
  int n = snprintf(text, sizeof text, "%llu\n", (unsigned long long)v);

  if (pwrite(fd, text, (size_t)n, 0) != n || ftruncate(fd, n) != 0)
    die("energy_uj");
}

/* Whether NAME is an item of the comma-separated LIST. */
static int in_list(const char *list, const char *name)
{
  size_t n = strlen(name);

  for (const char *p = list; p != NULL && *p != '\0';
       p += strcspn(p, ","), p += *p == ',')
    if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

/* Write the LEN low bytes of V, little-endian, at offset REG of FD. */
static void put_msr(int fd, uint32_t reg, uint64_t v, size_t len)
{
  unsigned char b[8];

  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  if (pwrite(fd, b, len, (off_t)reg) != (ssize_t)len)
    die("msr");
}

int main(int argc, char **argv)
{
  const char *root;
  double range = DEFAULT_RANGE, hz = 500, seconds = -1, t0;
  int esu = 14, dram_esu = 16, model = 85, powercap = 1, msr = 1;
  int fd_uj[NZONES], fd_msr[2] = {-1, -1}, fd_perf[NEVENTS][2];
  const char *perf = NULL, *still = NULL;
  char path[4096], text[256];
  long tick = 0;

  if (argc < 2) {
    fprintf(stderr, "usage: raplfeed ROOT [--range UJ] [--esu N] "
                    "[--dram-esu N] [--model N] [--hz N] [--seconds S] "
                    "[--no-powercap] [--no-msr] [--perf EVENTS] "
                    "[--still ZONES]\n");
    return 2;
  }
  root = argv[1];
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--no-powercap") == 0)
      powercap = 0;
    else if (strcmp(argv[i], "--no-msr") == 0)
      msr = 0;
    else if (i + 1 < argc && strcmp(argv[i], "--perf") == 0)
      perf = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--still") == 0)
      still = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--range") == 0)
      range = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--esu") == 0)
      esu = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--dram-esu") == 0)
      dram_esu = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--model") == 0)
      model = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--hz") == 0)
      hz = atof(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
      seconds = atof(argv[++i]);
    else {
      fprintf(stderr, "raplfeed: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (esu < 0 || esu > 31 || dram_esu < 0 || dram_esu > 31 || range < 1 ||
      hz <= 0) {
    fprintf(stderr, "raplfeed: --esu and --dram-esu 0..31, --range >= 1, "
                    "--hz > 0\n");
    return 2;
  }

  /* The topology and cpuinfo, read by the msr and perf paths. */
  snprintf(path, sizeof path, "%s/proc", root);
  mkdirs(path);
  snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
  {
    FILE *f = fopen(path, "w");

    if (f == NULL)
      die(path);
    for (int c = 0; c < NCPU; c++)
      fprintf(f, "processor\t: %d\nvendor_id\t: GenuineIntel\n"
                 "cpu family\t: 6\nmodel\t\t: %d\nmodel name\t: raplfeed\n"
                 "physical id\t: %d\n\n",
              c, model, c % 2);
    if (fclose(f) != 0)
      die(path);
  }
  for (int c = 0; c < NCPU; c++) {
    char dir[2048];

    snprintf(dir, sizeof dir, "%s/sys/devices/system/cpu/cpu%d/topology",
             root, c);
    mkdirs(dir);
    snprintf(path, sizeof path, "%s/physical_package_id", dir);
    snprintf(text, sizeof text, "%d\n", c % 2);
    put(path, text);
    snprintf(path, sizeof path, "%s/die_id", dir);
    put(path, "0\n");
  }

  /* The powercap zones. */
  snprintf(path, sizeof path, "%s/sys/class/powercap/intel-rapl", root);
  mkdirs(path);
  snprintf(path + strlen(path), sizeof path - strlen(path), "/enabled");
  put(path, "1\n");
  for (size_t z = 0; z < NZONES; z++) {
    double r = zones[z].packaged ? range : DEFAULT_RANGE;

    fd_uj[z] = -1;
    if (!powercap)
      continue;
    snprintf(path, sizeof path, "%s/sys/class/powercap/%s", root,
             zones[z].dir);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/sys/class/powercap/%s/name", root,
             zones[z].dir);
    snprintf(text, sizeof text, "%s\n", zones[z].name);
    put(path, text);
    snprintf(path, sizeof path, "%s/sys/class/powercap/%s/max_energy_range_uj",
             root, zones[z].dir);
    snprintf(text, sizeof text, "%.0f\n", r);
    put(path, text);
    snprintf(path, sizeof path, "%s/sys/class/powercap/%s/enabled", root,
             zones[z].dir);
    put(path, "1\n");
    if (zones[z].max_watts > 0) {
      snprintf(path, sizeof path,
               "%s/sys/class/powercap/%s/constraint_0_max_power_uw", root,
               zones[z].dir);
      snprintf(text, sizeof text, "%.0f\n", zones[z].max_watts * 1e6);
      put(path, text);
    }
    snprintf(path, sizeof path, "%s/sys/class/powercap/%s/energy_uj", root,
             zones[z].dir);
    if ((fd_uj[z] = open(path, O_WRONLY | O_CREAT, 0444)) < 0)
      die(path);
  }

  /* The msr devices, with the unit register and the power info (most
   * power 120 W, thermal design power 100 W, in 1/8 W). */
  for (int c = 0; msr && c < 2; c++) {
    uint64_t unit = (UINT64_C(0xA) << 16) | ((uint64_t)esu << 8) | 1;
    uint64_t info = UINT64_C(240) << 32;

    snprintf(path, sizeof path, "%s/dev/cpu/%d", root, c);
    mkdirs(path);
    snprintf(path + strlen(path), sizeof path - strlen(path), "/msr");
    if ((fd_msr[c] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
      die(path);
    put_msr(fd_msr[c], 0x606, unit, 8);
    put_msr(fd_msr[c], 0x614, info, 8);
  }

  /* The perf power PMU, emulated. */
  for (size_t k = 0; k < NEVENTS; k++)
    fd_perf[k][0] = fd_perf[k][1] = -1;
  if (perf != NULL) {
    char pmu[2048];

    snprintf(pmu, sizeof pmu, "%s/sys/bus/event_source/devices/power", root);
    snprintf(path, sizeof path, "%s/events", pmu);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/counts", pmu);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/type", pmu);
    put(path, "27\n");
    snprintf(path, sizeof path, "%s/cpumask", pmu);
    put(path, "0-1\n");
    for (size_t k = 0; k < NEVENTS; k++) {
      if (!in_list(perf, events[k].name))
        continue;
      snprintf(path, sizeof path, "%s/events/%s", pmu, events[k].event);
      snprintf(text, sizeof text, "%s\n", events[k].config);
      put(path, text);
      snprintf(path, sizeof path, "%s/events/%s.unit", pmu, events[k].event);
      put(path, "Joules\n");
      snprintf(path, sizeof path, "%s/events/%s.scale", pmu, events[k].event);
      put(path, "2.3283064365386962890625e-10\n");
      for (int c = 0; c < 2; c++) {
        if (events[k].zone[c] < 0)
          continue;
        snprintf(path, sizeof path, "%s/counts/%s-cpu%d", pmu,
                 events[k].event, c);
        if ((fd_perf[k][c] = open(path, O_WRONLY | O_CREAT, 0444)) < 0)
          die(path);
      }
    }
  }

  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  t0 = now();
  while (!done) {
    double t = now() - t0, next;
    struct timespec ts;

    if (seconds >= 0 && t >= seconds)
      break;
    for (size_t z = 0; z < NZONES; z++) {
      double e = 1000.0 + 100.0 * (double)z +
                 (in_list(still, zones[z].name) ? 0 : zones[z].watts * t);

      for (size_t k = 0; k < NEVENTS; k++)
        for (int c = 0; c < 2; c++)
          if (events[k].zone[c] == (int)z && fd_perf[k][c] >= 0)
            put_u64(fd_perf[k][c], (uint64_t)floor(e / PERF_SCALE));
      double r = zones[z].packaged ? range : DEFAULT_RANGE;

      if (fd_uj[z] >= 0)
        put_u64(fd_uj[z], (uint64_t)fmod(floor(e * 1e6), r + 1));
      if (fd_msr[zones[z].pkg] >= 0 && zones[z].reg != 0) {
        uint32_t reg = zones[z].reg;
        double units = floor(ldexp(e, reg == 0x619 ? dram_esu : esu));

        if (reg == 0x619)
          units = floor(units / 256) * 256;
        put_msr(fd_msr[zones[z].pkg], reg,
                (uint64_t)fmod(units, 4294967296.0), reg == 0x611 ? 4 : 8);
      }
    }
    if (tick++ == 0) {
      snprintf(path, sizeof path, "%s/ready", root);
      put(path, "1\n");
    }
    next = t0 + (double)tick / hz;
    if (next < now()) /* held up: no burst to catch up */
      tick = (long)((now() - t0) * hz) + 1, next = t0 + (double)tick / hz;
    ts.tv_sec = (time_t)next;
    ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
  }
  return 0;
}

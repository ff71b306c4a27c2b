/*
 * check_rapl.c - the rapl driver against fixture trees: powercap zones
 * and their names, the perf power PMU with a scripted perf_event_open and
 * read, msr devices as regular files, the fallback from one path to the
 * next and the messages that say why.
 *
 * The driver file is included so that the tests reach its parsers and
 * its seams (perf_open, read, pread in the private block).
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../drivers/rapl.c"

/* ---- parsers, table-driven: each row carries its line ----------------- */

static const struct {
  int line;
  const char *text;
  int ok;
  uint64_t value;
} u64_rows[] = {
  {__LINE__, "0", 1, 0},
  {__LINE__, "123456789\n", 1, 123456789},
  {__LINE__, "262143328850\n", 1, 262143328850},
  {__LINE__, "18446744073709551615", 1, UINT64_MAX},
  {__LINE__, "18446744073709551616", 0, 0},
  {__LINE__, "42\n9999\n", 1, 42}, /* the tail of a longer value */
  {__LINE__, "", 0, 0},
  {__LINE__, "\n", 0, 0},
  {__LINE__, "-1", 0, 0},
  {__LINE__, " 5", 0, 0},
  {__LINE__, "12abc", 0, 0},
  {__LINE__, "12 uJ", 0, 0},
};

START_TEST(test_parse_u64)
{
  uint64_t v = 0;
  int rc = parse_u64(u64_rows[_i].text, strlen(u64_rows[_i].text), &v);

  ck_assert_msg((rc == 0) == u64_rows[_i].ok, "row at line %d: rc %d",
                u64_rows[_i].line, rc);
  if (u64_rows[_i].ok)
    ck_assert_msg(v == u64_rows[_i].value, "row at line %d: %llu",
                  u64_rows[_i].line, (unsigned long long)v);
}
END_TEST

static const struct {
  int line;
  const char *name;
  int ok;
  enum kind kind;
  int pkg, die;
} top_rows[] = {
  {__LINE__, "package-0", 1, K_PACKAGE, 0, -1},
  {__LINE__, "package-12", 1, K_PACKAGE, 12, -1},
  {__LINE__, "package-1-die-1", 1, K_PACKAGE, 1, 1},
  {__LINE__, "psys", 1, K_PSYS, INT_MAX, -1},
  {__LINE__, "package", 0, 0, 0, 0},
  {__LINE__, "package-", 0, 0, 0, 0},
  {__LINE__, "package-0x", 0, 0, 0, 0},
  {__LINE__, "package-0-die-", 0, 0, 0, 0},
  {__LINE__, "package-0-die-1x", 0, 0, 0, 0},
  {__LINE__, "package--1", 0, 0, 0, 0},
  {__LINE__, "dram", 0, 0, 0, 0},
  {__LINE__, "psys-1", 0, 0, 0, 0},
};

START_TEST(test_top_zone)
{
  enum kind kind = NKINDS;
  int pkg = -5, die = -5;
  int rc = top_zone(top_rows[_i].name, &kind, &pkg, &die);

  ck_assert_msg((rc == 0) == top_rows[_i].ok, "row at line %d: rc %d",
                top_rows[_i].line, rc);
  if (top_rows[_i].ok)
    ck_assert_msg(kind == top_rows[_i].kind && pkg == top_rows[_i].pkg &&
                    die == top_rows[_i].die,
                  "row at line %d: kind %d pkg %d die %d", top_rows[_i].line,
                  kind, pkg, die);
}
END_TEST

static const struct {
  int line;
  const char *text;
  int ok;
  uint64_t config;
} event_rows[] = {
  {__LINE__, "event=0x02", 1, 2},
  {__LINE__, "event=0x05", 1, 5},
  {__LINE__, "event=3", 1, 3},
  {__LINE__, "event=0xff", 1, 0xff},
  {__LINE__, "event=0x100", 0, 0},
  {__LINE__, "event=", 0, 0},
  {__LINE__, "event=0x02,umask=0x1", 0, 0},
  {__LINE__, "umask=0x1", 0, 0},
  {__LINE__, "event=0x02,event=0x03", 0, 0},
  {__LINE__, "event=0x0g", 0, 0},
  {__LINE__, "", 0, 0},
};

START_TEST(test_parse_event)
{
  uint64_t config = 99;
  const char *what = NULL;
  int rc = parse_event(event_rows[_i].text, &config, &what);

  ck_assert_msg((rc == 0) == event_rows[_i].ok, "row at line %d: rc %d",
                event_rows[_i].line, rc);
  if (event_rows[_i].ok)
    ck_assert_msg(config == event_rows[_i].config, "row at line %d: %llu",
                  event_rows[_i].line, (unsigned long long)config);
  else
    ck_assert_msg(what != NULL, "row at line %d: no reason",
                  event_rows[_i].line);
}
END_TEST

static const struct {
  int line;
  const char *text;
  int n;
  int cpus[4];
} cpulist_rows[] = {
  {__LINE__, "0", 1, {0}},
  {__LINE__, "0,24", 2, {0, 24}},
  {__LINE__, "0-3", 4, {0, 1, 2, 3}},
  {__LINE__, "0-1,8", 3, {0, 1, 8}},
  {__LINE__, "0-4", -1, {0}}, /* more than the 4 asked for */
  {__LINE__, "3-1", -1, {0}},
  {__LINE__, "a", -1, {0}},
  {__LINE__, "1;2", -1, {0}},
  {__LINE__, "", 0, {0}},
};

START_TEST(test_cpulist)
{
  int cpus[4] = {-1, -1, -1, -1};
  int n = parse_cpulist(cpulist_rows[_i].text, cpus, 4);

  ck_assert_msg(n == cpulist_rows[_i].n, "row at line %d: %d",
                cpulist_rows[_i].line, n);
  for (int i = 0; i < n; i++)
    ck_assert_msg(cpus[i] == cpulist_rows[_i].cpus[i],
                  "row at line %d: cpu %d is %d", cpulist_rows[_i].line, i,
                  cpus[i]);
}
END_TEST

static const struct {
  int line;
  uint64_t unit;
  double joules, watts;
} unit_rows[] = {
  {__LINE__, 0xA0E03, 1.0 / 16384, 0.125},     /* common: 61 uJ, 1/8 W */
  {__LINE__, 0xA1003, 1.0 / 65536, 0.125},     /* 15.3 uJ */
  {__LINE__, 0x0, 1.0, 1.0},
  {__LINE__, 0x1F00, 1.0 / 2147483648.0, 1.0}, /* bits 12:8 at most */
  {__LINE__, 0xFFFFFFFFFFFFE00Full, 1.0, 1.0 / 32768}, /* other bits */
};

START_TEST(test_msr_units)
{
  double j, w;

  msr_units_of(unit_rows[_i].unit, &j, &w);
  ck_assert_msg(j == unit_rows[_i].joules && w == unit_rows[_i].watts,
                "row at line %d: %g J, %g W", unit_rows[_i].line, j, w);
}
END_TEST

/* ---- fixture trees ------------------------------------------------------ */

static char root[64];

/* Write TEXT to ROOT/REL, making its directories. */
static void put(const char *rel, const char *text)
{
  char path[512];
  FILE *f;

  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; *p != '\0'; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0755);
      *p = '/';
    }
  f = fopen(path, "w");
  ck_assert_msg(f != NULL, "%s", path);
  fputs(text, f);
  fclose(f);
}

/*
 * Write the LEN low bytes of V, little-endian, at offset REG of the msr
 * device ROOT/dev/cpu/CPU/msr, a regular file.  In such a file registers
 * a few addresses apart overlap (0x611 and 0x614 share bytes), where the
 * device keeps them apart: the package status (0x611) is written as its
 * 4 bytes of status field (LEN 4), after MSR_PKG_POWER_INFO (0x614).
 */
static void put_msr_bytes(int cpu, uint32_t reg, uint64_t v, size_t len)
{
  unsigned char b[8];
  char rel[64], path[512];
  int fd;

  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  snprintf(rel, sizeof rel, "dev/cpu/%d/msr", cpu);
  snprintf(path, sizeof path, "%s/%s", root, rel);
  if (access(path, F_OK) != 0)
    put(rel, "");
  fd = open(path, O_WRONLY);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(pwrite(fd, b, len, (off_t)reg), (ssize_t)len);
  close(fd);
}

static void put_msr(int cpu, uint32_t reg, uint64_t v)
{
  put_msr_bytes(cpu, reg, v, 8);
}

/* A powercap zone DIR named NAME with energy ENERGY µJ. */
static void zone(const char *dir, const char *name, const char *energy,
                 const char *max_power)
{
  char rel[256], text[64];

  snprintf(rel, sizeof rel, "sys/class/powercap/%s/name", dir);
  snprintf(text, sizeof text, "%s\n", name);
  put(rel, text);
  snprintf(rel, sizeof rel, "sys/class/powercap/%s/energy_uj", dir);
  put(rel, energy);
  snprintf(rel, sizeof rel, "sys/class/powercap/%s/max_energy_range_uj", dir);
  put(rel, "262143328850\n");
  if (max_power != NULL) {
    snprintf(rel, sizeof rel, "sys/class/powercap/%s/constraint_0_max_power_uw",
             dir);
    put(rel, max_power);
  }
}

/* CPU in package PKG, die DIE. */
static void cpu(int n, int pkg, int die)
{
  char rel[128], text[16];

  snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/"
                            "physical_package_id",
           n);
  snprintf(text, sizeof text, "%d\n", pkg);
  put(rel, text);
  snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/die_id", n);
  snprintf(text, sizeof text, "%d\n", die);
  put(rel, text);
}

static void cpuinfo(const char *vendor, int model)
{
  char text[256];

  snprintf(text, sizeof text,
           "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\n"
           "model\t\t: %d\nmodel name\t: a model 7 processor\n\n"
           "processor\t: 1\nvendor_id\t: %s\n\n",
           vendor, strcmp(vendor, "GenuineIntel") == 0 ? 6 : 25, model,
           vendor);
  put("proc/cpuinfo", text);
}

static void tree_setup(void)
{
  char path[128];

  strcpy(root, "/tmp/check_rapl.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(root));
  snprintf(path, sizeof path, "%s/sys", root);
  mkdir(path, 0755);
  setenv("PMON_SYSFS_ROOT", path, 1);
  snprintf(path, sizeof path, "%s/proc", root);
  mkdir(path, 0755);
  setenv("PMON_PROC_ROOT", path, 1);
  snprintf(path, sizeof path, "%s/dev", root);
  mkdir(path, 0755);
  setenv("PMON_DEV_ROOT", path, 1);
}

static void tree_teardown(void)
{
  char cmd[128];

  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  ck_assert_int_eq(system(cmd), 0);
}

/* ---- the meter, with the seams a test sets ---------------------------- */

static struct pmon_meter meter;
static struct rapl_priv priv;

/* The perf seam: records what was opened, and gives each descriptor a
 * count that says which event and CPU it was (config * 1000 + cpu) plus
 * a step that a test moves. */
#define PERF_FDS 32
static struct {
  int fd, cpu;
  uint32_t type;
  uint64_t config;
} opened[PERF_FDS];
static int nopened, perf_errno;
static uint64_t perf_step;

static int fake_perf_open(struct perf_event_attr *attr, int c)
{
  int fd;

  if (perf_errno != 0) {
    errno = perf_errno;
    return -1;
  }
  ck_assert_int_eq(attr->size, sizeof *attr);
  ck_assert_int_lt(nopened, PERF_FDS);
  fd = open("/dev/null", O_RDONLY);
  opened[nopened].fd = fd;
  opened[nopened].cpu = c;
  opened[nopened].type = attr->type;
  opened[nopened++].config = attr->config;
  return fd;
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
  for (int i = 0; i < nopened; i++)
    if (opened[i].fd == fd) {
      uint64_t v = opened[i].config * 1000 + (uint64_t)opened[i].cpu +
                   perf_step;

      ck_assert_uint_eq(len, sizeof v);
      memcpy(buf, &v, sizeof v);
      return (ssize_t)sizeof v;
    }
  errno = EBADF;
  return -1;
}

static int open_meter(const char *text)
{
  memset(&meter, 0, sizeof meter);
  memset(&priv, 0, sizeof priv);
  meter.drv = &pmon__driver_rapl;
  meter.priv = &priv;
  meter.flags = pmon__driver_rapl.flags;
  meter.interval_s = pmon__driver_rapl.interval_s;
  priv.perf_open = fake_perf_open;
  priv.read = fake_read;
  ck_assert_int_eq(pmon__spec_parse(text, &meter.spec), 0);
  return pmon__driver_rapl.open(&meter);
}

static int channel(const char *name)
{
  for (int c = 0; c < meter.nch; c++)
    if (strcmp(meter.ch[c].name, name) == 0)
      return c;
  ck_abort_msg("no channel %s", name);
  return -1;
}

static void has(const char *text, const char *part)
{
  ck_assert_msg(strstr(text, part) != NULL, "\"%s\" not in \"%s\"", part,
                text);
}

/* ---- powercap ----------------------------------------------------------- */

/* Zones named from their name file, never their index: package-1 is
 * intel-rapl:0 here.  Two dies in package 0; the mmio view of a package
 * and a zone of unknown name are left out. */
static void powercap_tree(void)
{
  zone("intel-rapl:0", "package-1-die-0", "1000\n", "150000000\n");
  zone("intel-rapl:0:0", "dram", "1001\n", "40000000\n");
  zone("intel-rapl:1", "package-0-die-1", "2000\n", "120000000\n");
  zone("intel-rapl:1:0", "core", "2001\n", NULL);
  zone("intel-rapl:1:1", "dram", "2002\n", NULL);
  zone("intel-rapl:1:2", "uncore", "2003\n", "9000000\n");
  zone("intel-rapl:2", "package-0-die-0", "3000\n", "120000000\n");
  zone("intel-rapl:3", "psys", "4000\n", NULL);
  zone("intel-rapl:4", "mystery", "5000\n", NULL);
  zone("intel-rapl-mmio:0", "package-0-die-0", "9999\n", NULL);
  put("sys/class/powercap/intel-rapl/enabled", "1\n");
}

START_TEST(test_powercap_zones)
{
  static const struct {
    const char *name;
    enum pmon_domain domain;
    int total;
    const char *overlaps;
    double max_watts;
    uint64_t raw;
  } want[] = {
    {"package-0-die-0", PMON_DOM_CPU, 1, "", 120, 3000},
    {"package-0-die-1", PMON_DOM_CPU, 1, "", 120, 2000},
    {"dram-0-die-1", PMON_DOM_MEMORY, 1, "", 0, 2002},
    {"core-0-die-1", PMON_DOM_CPU, 0, "package-0-die-1", 120, 2001},
    {"uncore-0-die-1", PMON_DOM_CPU, 0, "package-0-die-1", 9, 2003},
    {"package-1-die-0", PMON_DOM_CPU, 1, "", 150, 1000},
    {"dram-1-die-0", PMON_DOM_MEMORY, 1, "", 40, 1001},
    {"psys", PMON_DOM_OTHER, 0, "all", 0, 4000},
  };
  struct pmon_reading r = {0};

  powercap_tree();
  ck_assert_int_eq(open_meter("rapl"), 0);
  ck_assert_str_eq(meter.source, "powercap");
  has(meter.note, "mystery");
  ck_assert_int_eq(meter.nch, (int)(sizeof want / sizeof want[0]));
  ck_assert_int_eq(rapl_read(&meter, &r), 0);
  for (int c = 0; c < meter.nch; c++) {
    const struct pmon_channel *ch = &meter.ch[c];

    ck_assert_str_eq(ch->name, want[c].name);
    ck_assert_int_eq(ch->domain, want[c].domain);
    ck_assert_int_eq((ch->flags & PMON_CH_TOTAL) != 0, want[c].total);
    ck_assert_str_eq(ch->overlaps, want[c].overlaps);
    ck_assert_double_eq_tol(ch->max_watts, want[c].max_watts, 1e-9);
    ck_assert_double_eq(ch->scale, 1e-6);
    ck_assert_uint_eq(ch->range, 262143328851u);
    ck_assert_uint_eq(r.raw[c], want[c].raw);
  }
  rapl_close(&meter);
}
END_TEST

START_TEST(test_powercap_one_die_names)
{
  zone("intel-rapl:0", "package-0", "1\n", NULL);
  zone("intel-rapl:0:0", "dram", "2\n", NULL);
  zone("intel-rapl:0:1", "core", "3\n", NULL);
  ck_assert_int_eq(open_meter("rapl:powercap"), 0);
  ck_assert_int_eq(meter.nch, 3);
  ck_assert_str_eq(meter.ch[0].name, "package-0");
  ck_assert_str_eq(meter.ch[1].name, "dram-0");
  ck_assert_str_eq(meter.ch[2].name, "core-0");
  ck_assert_str_eq(meter.ch[2].overlaps, "package-0");
  ck_assert_double_eq(meter.ch[0].max_watts, 0); /* the core's default */
  ck_assert_str_eq(meter.note, "");
  rapl_close(&meter);
}
END_TEST

START_TEST(test_powercap_malformed)
{
  struct pmon_reading r = {0};

  zone("intel-rapl:0", "package-0", "12abc\n", NULL);
  ck_assert_int_eq(open_meter("rapl:powercap"), PMON_EFORMAT);
  has(pmon_errmsg(), "pmon: rapl: powercap: ");
  has(pmon_errmsg(), "intel-rapl:0/energy_uj: malformed content \"12abc\"");
  /* A good file at open that goes bad: the read says which file. */
  zone("intel-rapl:0", "package-0", "12\n", NULL);
  ck_assert_int_eq(open_meter("rapl:powercap"), 0);
  zone("intel-rapl:0", "package-0", "x\n", NULL);
  ck_assert_int_eq(rapl_read(&meter, &r), PMON_EFORMAT);
  has(pmon_errmsg(), "intel-rapl:0/energy_uj: malformed content");
  rapl_close(&meter);
}
END_TEST

START_TEST(test_powercap_no_range)
{
  char path[256];

  zone("intel-rapl:0", "package-0", "12\n", NULL);
  snprintf(path, sizeof path,
           "%s/sys/class/powercap/intel-rapl:0/max_energy_range_uj", root);
  unlink(path);
  ck_assert_int_eq(open_meter("rapl:powercap"), PMON_EFORMAT);
  has(pmon_errmsg(), "max_energy_range_uj: No such file or directory");
}
END_TEST

/* More zones than channels: the totals stay, the parts that do not fit
 * are said in the note; more totals than channels cannot be a total. */
START_TEST(test_powercap_too_many)
{
  char dir[64], name[32];

  for (int p = 0; p < 6; p++) {
    snprintf(dir, sizeof dir, "intel-rapl:%d", p);
    snprintf(name, sizeof name, "package-%d", p);
    zone(dir, name, "1\n", NULL);
    snprintf(dir, sizeof dir, "intel-rapl:%d:0", p);
    zone(dir, "dram", "1\n", NULL);
    snprintf(dir, sizeof dir, "intel-rapl:%d:1", p);
    zone(dir, "core", "1\n", NULL);
    snprintf(dir, sizeof dir, "intel-rapl:%d:2", p);
    zone(dir, "uncore", "1\n", NULL);
  }
  ck_assert_int_eq(open_meter("rapl"), 0);
  ck_assert_int_eq(meter.nch, PMON_CH_MAX);
  for (int p = 0; p < 6; p++) {
    snprintf(name, sizeof name, "package-%d", p);
    channel(name);
    snprintf(name, sizeof name, "dram-%d", p);
    channel(name);
  }
  channel("core-0");
  channel("uncore-1");
  has(meter.note, "powercap: left out: more than 16 channels: core-2 "
                  "uncore-2 core-3");
  has(meter.note, "uncore-5");
  rapl_close(&meter);

  for (int p = 6; p < 9; p++) {
    snprintf(dir, sizeof dir, "intel-rapl:%d", p);
    snprintf(name, sizeof name, "package-%d", p);
    zone(dir, name, "1\n", NULL);
    snprintf(dir, sizeof dir, "intel-rapl:%d:0", p);
    zone(dir, "dram", "1\n", NULL);
  }
  ck_assert_int_eq(open_meter("rapl"), PMON_ENOMETER);
  has(pmon_errmsg(), "pmon: rapl: powercap: 18 package and DRAM zones, more "
                     "than the 16");
}
END_TEST

/* ---- perf --------------------------------------------------------------- */

static void pmu_event(const char *event, const char *code)
{
  char rel[128];

  snprintf(rel, sizeof rel, "sys/bus/event_source/devices/power/events/%s",
           event);
  put(rel, code);
  snprintf(rel, sizeof rel,
           "sys/bus/event_source/devices/power/events/%s.scale", event);
  put(rel, "2.3283064365386962890625e-10\n");
  snprintf(rel, sizeof rel,
           "sys/bus/event_source/devices/power/events/%s.unit", event);
  put(rel, "Joules\n");
}

/* Two packages, CPUs 0 and 2 in the cpumask, CPU 1 in package 0 too. */
static void pmu_tree(void)
{
  put("sys/bus/event_source/devices/power/type", "23\n");
  put("sys/bus/event_source/devices/power/cpumask", "0,2\n");
  put("sys/bus/event_source/devices/power/format/event", "config:0-7\n");
  pmu_event("energy-pkg", "event=0x02\n");
  pmu_event("energy-ram", "event=0x03\n");
  pmu_event("energy-psys", "event=0x05\n");
  cpu(0, 0, 0);
  cpu(1, 0, 0);
  cpu(2, 1, 0);
}

START_TEST(test_perf_events)
{
  static const struct {
    const char *name;
    int total;
    const char *overlaps;
    uint64_t config;
    int cpu;
  } want[] = {
    {"package-0", 1, "", 2, 0},   {"dram-0", 1, "", 3, 0},
    {"package-1", 1, "", 2, 2},   {"dram-1", 1, "", 3, 2},
    {"psys", 0, "all", 5, 0},
  };
  struct pmon_reading r = {0};

  pmu_tree();
  ck_assert_int_eq(open_meter("rapl"), 0);
  ck_assert_str_eq(meter.source, "perf");
  ck_assert_str_eq(meter.note, ""); /* powercap absent: nothing to fix */
  ck_assert_int_eq(nopened, 5);     /* psys once, on the first CPU */
  for (int i = 0; i < nopened; i++)
    ck_assert_uint_eq(opened[i].type, 23);
  ck_assert_int_eq(meter.nch, 5);
  perf_step = 7;
  ck_assert_int_eq(rapl_read(&meter, &r), 0);
  for (int c = 0; c < meter.nch; c++) {
    ck_assert_str_eq(meter.ch[c].name, want[c].name);
    ck_assert_int_eq((meter.ch[c].flags & PMON_CH_TOTAL) != 0, want[c].total);
    ck_assert_str_eq(meter.ch[c].overlaps, want[c].overlaps);
    ck_assert_double_eq(meter.ch[c].scale, ldexp(1.0, -32));
    ck_assert_uint_eq(meter.ch[c].range, 0); /* 64 bits: no wrap */
    ck_assert_uint_eq(r.raw[c], want[c].config * 1000 + (uint64_t)want[c].cpu
                                  + 7);
  }
  rapl_close(&meter);
}
END_TEST

START_TEST(test_perf_dies)
{
  pmu_tree();
  put("sys/bus/event_source/devices/power/cpumask", "0,1\n");
  cpu(1, 0, 1);
  ck_assert_int_eq(open_meter("rapl:perf"), 0);
  channel("package-0-die-0");
  channel("package-0-die-1");
  ck_assert_str_eq(meter.ch[channel("dram-0-die-1")].overlaps, "");
  rapl_close(&meter);
}
END_TEST

static const struct {
  int line;
  const char *file; /* under the PMU directory */
  const char *text; /* NULL: remove the file */
  int rc;
  const char *message;
} perf_bad_rows[] = {
  {__LINE__, "events/energy-pkg", "event=0x02,umask=0x1\n", PMON_EFORMAT,
   "events/energy-pkg: \"event=0x02,umask=0x1\": only an event=<code> term"},
  {__LINE__, "events/energy-ram", "event=0x300\n", PMON_EFORMAT,
   "a code from 0 to 0xff"},
  {__LINE__, "events/energy-pkg", "\n", PMON_EFORMAT,
   "energy-pkg: \"\": cannot read it"},
  {__LINE__, "events/energy-pkg.unit", "Watts\n", PMON_EFORMAT,
   "energy-pkg.unit: missing, or not \"Joules\""},
  {__LINE__, "events/energy-pkg.scale", NULL, PMON_EFORMAT,
   "energy-pkg.scale: missing, or not a scale in joules"},
  {__LINE__, "events/energy-pkg.scale", "1e-10x\n", PMON_EFORMAT,
   "energy-pkg.scale: missing"},
  {__LINE__, "type", "power\n", PMON_EFORMAT, "power/type: malformed"},
  {__LINE__, "cpumask", "0;2\n", PMON_EFORMAT,
   "power/cpumask: missing or malformed"},
  {__LINE__, "cpumask", "0,5\n", PMON_EFORMAT,
   "cpu5/topology/physical_package_id: missing or malformed"},
};

START_TEST(test_perf_malformed)
{
  char rel[256];

  pmu_tree();
  snprintf(rel, sizeof rel, "sys/bus/event_source/devices/power/%s",
           perf_bad_rows[_i].file);
  if (perf_bad_rows[_i].text != NULL) {
    put(rel, perf_bad_rows[_i].text);
  } else {
    char path[512];

    snprintf(path, sizeof path, "%s/%s", root, rel);
    unlink(path);
  }
  ck_assert_msg(open_meter("rapl:perf") == perf_bad_rows[_i].rc,
                "row at line %d", perf_bad_rows[_i].line);
  ck_assert_msg(strstr(pmon_errmsg(), perf_bad_rows[_i].message) != NULL,
                "row at line %d: %s", perf_bad_rows[_i].line, pmon_errmsg());
  ck_assert_int_eq(meter.nch, 0);
}
END_TEST

START_TEST(test_perf_no_events)
{
  put("sys/bus/event_source/devices/power/type", "23\n");
  put("sys/bus/event_source/devices/power/cpumask", "0\n");
  cpu(0, 0, 0);
  ck_assert_int_eq(open_meter("rapl:perf"), PMON_EFORMAT);
  has(pmon_errmsg(), "power/events: no energy-pkg");
}
END_TEST

START_TEST(test_perf_paranoid)
{
  pmu_tree();
  put("proc/sys/kernel/perf_event_paranoid", "2\n");
  perf_errno = EACCES;
  ck_assert_int_eq(open_meter("rapl:perf"), PMON_EIO);
  has(pmon_errmsg(), "pmon: rapl: perf: perf_event_open power/energy-pkg: "
                     "Permission denied (perf_event_paranoid is 2: "
                     "sysctl kernel.perf_event_paranoid=0, or CAP_PERFMON "
                     "or CAP_SYS_ADMIN)");
  perf_errno = ENODEV;
  ck_assert_int_eq(open_meter("rapl:perf"), PMON_ENOMETER);
  has(pmon_errmsg(), "power/energy-pkg on CPU 0: No such device");
}
END_TEST

START_TEST(test_perf_read_fails)
{
  struct pmon_reading r = {0};

  pmu_tree();
  ck_assert_int_eq(open_meter("rapl:perf"), 0);
  nopened = 0; /* the seam no longer knows the descriptors */
  ck_assert_int_eq(rapl_read(&meter, &r), PMON_EIO);
  has(pmon_errmsg(), "rapl: perf power/energy-pkg on CPU 0: read: ");
  rapl_close(&meter);
}
END_TEST

/* ---- msr ---------------------------------------------------------------- */

/* Two Intel packages, CPUs 0 and 2 in package 0, 1 and 3 in package 1;
 * unit 2^-14 J and 1/2 W, most power 240 units (120 W) in bits 39:32 of
 * MSR_PKG_POWER_INFO, the byte no status field overlaps (the DRAM
 * status' low byte, 0x619, is its bits 47:40, kept 0). */
static void msr_tree(int model)
{
  cpuinfo("GenuineIntel", model);
  cpu(0, 0, 0);
  cpu(1, 1, 0);
  cpu(2, 0, 0);
  cpu(3, 1, 0);
  for (int c = 0; c < 2; c++) {
    put_msr(c, 0x606, 0xA0E01);
    put_msr(c, 0x614, UINT64_C(240) << 32);
    put_msr_bytes(c, 0x611, 0x00001234 + (uint64_t)c, 4);
    put_msr(c, 0x619, 0x2000 + 0x100 * (uint64_t)c);
  }
  put_msr(0, 0x639, 0x3000);
  put_msr(0, 0x641, 0); /* reads 0: absent, as the kernel decides */
}

START_TEST(test_msr_intel_server)
{
  struct pmon_reading r = {0};
  int c;

  msr_tree(0x55); /* Skylake-SP: DRAM in 2^-16 J */
  ck_assert_int_eq(open_meter("rapl:msr"), 0);
  ck_assert_str_eq(meter.source, "msr");
  ck_assert_int_eq(meter.nch, 5);
  ck_assert_str_eq(meter.ch[0].name, "package-0");
  ck_assert_str_eq(meter.ch[1].name, "dram-0");
  ck_assert_str_eq(meter.ch[2].name, "core-0");
  ck_assert_str_eq(meter.ch[3].name, "package-1");
  ck_assert_str_eq(meter.ch[4].name, "dram-1");
  ck_assert_double_eq(meter.ch[0].scale, ldexp(1.0, -14));
  ck_assert_double_eq(meter.ch[1].scale, ldexp(1.0, -16));
  ck_assert_double_eq(meter.ch[2].scale, ldexp(1.0, -14));
  for (c = 0; c < meter.nch; c++)
    ck_assert_uint_eq(meter.ch[c].range, UINT64_C(1) << 32);
  ck_assert_double_eq(meter.ch[0].max_watts, 120);
  ck_assert_double_eq(meter.ch[2].max_watts, 120); /* its package's */
  ck_assert_double_eq(meter.ch[1].max_watts, 0);
  ck_assert_str_eq(meter.ch[2].overlaps, "package-0");
  ck_assert_int_eq(rapl_read(&meter, &r), 0);
  ck_assert_uint_eq(r.raw[0], 0x1234);
  ck_assert_uint_eq(r.raw[3], 0x1235);
  ck_assert_uint_eq(r.raw[4], 0x2100);
  rapl_close(&meter);
}
END_TEST

START_TEST(test_msr_intel_client_and_spr)
{
  msr_tree(0x9E); /* Kaby Lake: DRAM in the unit register's unit */
  ck_assert_int_eq(open_meter("rapl:msr"), 0);
  ck_assert_double_eq(meter.ch[channel("dram-0")].scale, ldexp(1.0, -14));
  rapl_close(&meter);

  msr_tree(0x8F); /* Sapphire Rapids: DRAM as the register says, psys 1 J */
  put_msr(0, 0x64d, 77);
  ck_assert_int_eq(open_meter("rapl:msr"), 0);
  ck_assert_double_eq(meter.ch[channel("dram-1")].scale, ldexp(1.0, -14));
  ck_assert_double_eq(meter.ch[channel("psys")].scale, 1.0);
  ck_assert_str_eq(meter.ch[channel("psys")].overlaps, "all");
  ck_assert_int_eq(meter.ch[meter.nch - 1].domain, PMON_DOM_OTHER);
  rapl_close(&meter);
}
END_TEST

START_TEST(test_msr_amd)
{
  struct pmon_reading r = {0};

  cpuinfo("AuthenticAMD", 1);
  cpu(0, 0, 0);
  cpu(1, 0, 0);
  put_msr(0, 0xC0010299, 0xA1003);
  put_msr(0, 0xC001029B, UINT64_C(0x700000042)); /* bits 31:0 only */
  ck_assert_int_eq(open_meter("rapl:msr"), 0);
  ck_assert_int_eq(meter.nch, 1);
  ck_assert_str_eq(meter.ch[0].name, "package-0");
  ck_assert_double_eq(meter.ch[0].scale, ldexp(1.0, -16));
  ck_assert_double_eq(meter.ch[0].max_watts, 0);
  ck_assert_int_eq(rapl_read(&meter, &r), 0);
  ck_assert_uint_eq(r.raw[0], 0x42);
  rapl_close(&meter);
}
END_TEST

START_TEST(test_msr_missing)
{
  char path[256];

  cpuinfo("GenuineIntel", 0x55);
  cpu(0, 0, 0);
  ck_assert_int_eq(open_meter("rapl:msr"), PMON_ENOMETER);
  has(pmon_errmsg(), "pmon: rapl: msr: ");
  has(pmon_errmsg(), "/dev/cpu/0/msr: No such file or directory "
                     "(modprobe msr)");
  /* The device is there but RAPL is not (a virtual machine). */
  put("dev/cpu/0/msr", "");
  ck_assert_int_eq(open_meter("rapl:msr"), PMON_ENOMETER);
  has(pmon_errmsg(), "register 0x606: Input/output error (no RAPL on this "
                     "processor");
  /* Not x86. */
  put("proc/cpuinfo", "processor\t: 0\nCPU implementer\t: 0x41\n\n");
  ck_assert_int_eq(open_meter("rapl:msr"), PMON_ENOMETER);
  has(pmon_errmsg(), "msr: not an Intel or AMD processor");
  snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
  unlink(path);
  ck_assert_int_eq(open_meter("rapl:msr"), PMON_ENOMETER);
  has(pmon_errmsg(), "proc/cpuinfo: No such file or directory");
}
END_TEST

/* ---- paths, fallback, messages ---------------------------------------- */

START_TEST(test_fallback_note)
{
  pmu_tree();
  msr_tree(0x55);
  put("proc/sys/kernel/perf_event_paranoid", "3\n");
  perf_errno = EPERM;
  ck_assert_int_eq(open_meter("rapl"), 0);
  ck_assert_str_eq(meter.source, "msr");
  has(meter.note, "perf: perf_event_open power/energy-pkg: Operation not "
                  "permitted (perf_event_paranoid is 3");
  ck_assert_ptr_null(strstr(meter.note, "powercap")); /* absent, not said */
  ck_assert_uint_lt(strlen(meter.note), sizeof meter.note);
  /* With the real roots, both reasons fit in a note whole: 314 bytes
   * with EPERM, 308 with EACCES. */
  {
    char note[sizeof meter.note] = "";

    append(note, sizeof note,
           "powercap: /sys/class/powercap/intel-rapl:0/energy_uj: Permission "
           "denied (root-only since CVE-2020-8694; make it readable with a "
           "udev rule or sysfsutils)");
    ck_assert_ptr_null(strstr(note, "..."));
    append(note, sizeof note, strstr(meter.note, "perf: "));
    ck_assert_ptr_null(strstr(note, "..."));
  }
  rapl_close(&meter);
  /* With perf named, its reason alone. */
  ck_assert_int_eq(open_meter("rapl:perf"), PMON_EIO);
  ck_assert_ptr_null(strstr(pmon_errmsg(), "msr"));
}
END_TEST

START_TEST(test_nothing_here)
{
  ck_assert_int_eq(open_meter("rapl"), PMON_ENOMETER);
  has(pmon_errmsg(), "pmon: rapl: no RAPL here: powercap: no ");
  has(pmon_errmsg(), "; perf: no power PMU (");
  has(pmon_errmsg(), "; msr: ");
  ck_assert_int_eq(pmon__driver_rapl.probe(&meter.spec), PMON_ENOMETER);
}
END_TEST

START_TEST(test_all_fail_message)
{
  pmu_tree();
  zone("intel-rapl:0", "package-0", "x\n", NULL);
  put("proc/sys/kernel/perf_event_paranoid", "2\n");
  perf_errno = EACCES;
  cpuinfo("GenuineIntel", 0x55);
  ck_assert_int_eq(open_meter("rapl"), PMON_EFORMAT); /* powercap's */
  has(pmon_errmsg(), "pmon: rapl: powercap: ");
  has(pmon_errmsg(), "; perf: perf_event_open power/energy-pkg: Permission "
                     "denied");
  has(pmon_errmsg(), "; msr: ");
  has(pmon_errmsg(), "(modprobe msr)");
  ck_assert_uint_lt(strlen(pmon_errmsg()), 511);
}
END_TEST

START_TEST(test_spec)
{
  zone("intel-rapl:0", "package-0", "1\n", NULL);
  ck_assert_int_eq(open_meter("rapl:nvml"), PMON_ECONFIG);
  has(pmon_errmsg(), "unknown path \"nvml\": expected rapl, rapl:powercap");
  ck_assert_int_eq(open_meter("rapl?rate=2"), PMON_ECONFIG);
  has(pmon_errmsg(), "unknown parameter rate");
  ck_assert_int_eq(open_meter("rapl?interval=0"), PMON_ECONFIG);
  ck_assert_int_eq(open_meter("rapl:powercap?interval=0.25"), 0);
  ck_assert_double_eq(meter.interval_s, 0.25);
  rapl_close(&meter);
  ck_assert_int_eq(open_meter("rapl"), 0);
  ck_assert_double_eq(meter.interval_s, 0.1);
  rapl_close(&meter);
  ck_assert_int_eq(pmon__driver_rapl.probe(&meter.spec), 0);
  ck_assert_uint_eq(pmon__driver_rapl.flags,
                    PMON_DRV_COUNTER | PMON_DRV_PART);
}
END_TEST

/* Every descriptor a failed open took is given back. */
START_TEST(test_no_leak)
{
  int before = open("/dev/null", O_RDONLY), after;

  close(before);
  pmu_tree();
  msr_tree(0x55);
  zone("intel-rapl:0", "package-0", "1\n", NULL);
  zone("intel-rapl:1", "package-1", "y\n", NULL);
  put("proc/sys/kernel/perf_event_paranoid", "2\n");
  put("sys/bus/event_source/devices/power/events/energy-psys", "bad=1\n");
  ck_assert_int_eq(open_meter("rapl:powercap"), PMON_EFORMAT);
  ck_assert_int_eq(open_meter("rapl:perf"), PMON_EFORMAT);
  put("dev/cpu/1/msr", ""); /* package 1 without RAPL */
  ck_assert_int_eq(open_meter("rapl:msr"), PMON_ENOMETER);
  after = open("/dev/null", O_RDONLY);
  close(after);
  ck_assert_int_eq(after, before);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("rapl");
  TCase *parse = tcase_create("parse");
  TCase *tree = tcase_create("tree");
  SRunner *sr;
  int failed;

#define NROWS(a) (int)(sizeof a / sizeof a[0])
  tcase_add_loop_test(parse, test_parse_u64, 0, NROWS(u64_rows));
  tcase_add_loop_test(parse, test_top_zone, 0, NROWS(top_rows));
  tcase_add_loop_test(parse, test_parse_event, 0, NROWS(event_rows));
  tcase_add_loop_test(parse, test_cpulist, 0, NROWS(cpulist_rows));
  tcase_add_loop_test(parse, test_msr_units, 0, NROWS(unit_rows));
  suite_add_tcase(s, parse);
  tcase_add_checked_fixture(tree, tree_setup, tree_teardown);
  tcase_add_test(tree, test_powercap_zones);
  tcase_add_test(tree, test_powercap_one_die_names);
  tcase_add_test(tree, test_powercap_malformed);
  tcase_add_test(tree, test_powercap_no_range);
  tcase_add_test(tree, test_powercap_too_many);
  tcase_add_test(tree, test_perf_events);
  tcase_add_test(tree, test_perf_dies);
  tcase_add_loop_test(tree, test_perf_malformed, 0, NROWS(perf_bad_rows));
  tcase_add_test(tree, test_perf_no_events);
  tcase_add_test(tree, test_perf_paranoid);
  tcase_add_test(tree, test_perf_read_fails);
  tcase_add_test(tree, test_msr_intel_server);
  tcase_add_test(tree, test_msr_intel_client_and_spr);
  tcase_add_test(tree, test_msr_amd);
  tcase_add_test(tree, test_msr_missing);
  tcase_add_test(tree, test_fallback_note);
  tcase_add_test(tree, test_nothing_here);
  tcase_add_test(tree, test_all_fail_message);
  tcase_add_test(tree, test_spec);
  tcase_add_test(tree, test_no_leak);
  suite_add_tcase(s, tree);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * rapl.c - the RAPL energy counters of Intel and AMD processors, on Linux.
 *
 * Hardware: the Running Average Power Limit energy status registers of
 * Intel processors since Sandy Bridge and of AMD family 17h and later (and
 * Hygon 18h), one set per package (or per die): the package, its cores
 * (PP0), its uncore or integrated graphics (PP1), the DRAM attached to it,
 * and the platform (psys).  Written against the kernel's interfaces as the
 * research notes (section 4) describe them; it runs against fixture trees
 * and a scripted perf_event_open in the tests.
 *
 * Three ways to the same registers, tried in this order unless the
 * specification names one:
 *   powercap  $PMON_SYSFS_ROOT/class/powercap/intel-rapl:*, energy_uj in
 *             microjoules, wrapping at max_energy_range_uj + 1;
 *   perf      the "power" PMU of perf_event_open(2), counts of .scale
 *             joules (2^-32 J) that the kernel extends to 64 bits: they do
 *             not wrap.  A fixture tree emulates it (the tests): where
 *             the PMU's directory has a folder counts/, which the
 *             kernel's never has, each event's count is the decimal text
 *             of counts/EVENT-cpuN instead of perf_event_open on CPU N;
 *   msr       $PMON_DEV_ROOT/cpu/N/msr, the 32-bit status field of each
 *             register (modulus 2^32) in units of 2^-ESU J, ESU being bits
 *             12:8 of the unit register, except DRAM on the Intel servers
 *             of dram_fixed_unit[] (2^-16 J) and psys on Sapphire and
 *             Emerald Rapids (1 J), as the kernel has it.
 * The driver gives raw counts with each channel's scale and modulus; the
 * core corrects wraps and reads often enough to see each one.
 *
 * Channels: package-N (or package-N-die-M) and dram-N count toward the
 * node total; core-N and uncore-N are parts of their package, psys
 * overlaps everything, and neither is added.  RAPL covers processors and
 * memory, not the node: disks, network, fans and power supply losses are
 * outside it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#ifdef PMON_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

#include "pmon.h"
#include "driver.h"
#include "env.h"
#include "log.h"

#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3) /* Linux 3.14 */
#endif

#define POWERCAP_DIR "/class/powercap"                /* sysfs root */
#define PMU_DIR "/bus/event_source/devices/power"     /* sysfs root */
#define CPU_DIR "/devices/system/cpu"                 /* sysfs root */
#define PARANOID_FILE "/sys/kernel/perf_event_paranoid" /* proc root */
#define ZONE_MAX 64    /* channels considered before choosing PMON_CH_MAX */
#define UNIT_MAX 64    /* packages (or dies) */
#define WHERE_MAX 160  /* what a channel reads, for messages */
#define WHY_MAX 240    /* one path's reason it could not be used */
#define TEXT_MAX 64    /* a sysfs attribute of interest */
#define STATUS_MASK 0xffffffffu  /* the energy field of a status MSR */
#define STATUS_RANGE (UINT64_C(1) << 32)
#define STALE_MIN_S 1.0  /* no register moving this long: frozen */
#define STALE_READINGS 5 /* ... or this many readings, if longer */
/* The registers are updated "every ~1msec" (Intel's SDM, vol. 3B, the
 * energy status MSRs; AMD's the same, research notes section 5): a value
 * read is at most that old.  Twice that, for the "~". */
#define RAPL_PACE_S 0.002

/* The ways to RAPL, in the order "rapl" tries them. */
enum path { PATH_POWERCAP, PATH_PERF, PATH_MSR, NPATHS };
static const char *const path_names[NPATHS] = {"powercap", "perf", "msr"};

/* The RAPL domains, in channel order within a package. */
enum kind { K_PACKAGE, K_DRAM, K_CORE, K_UNCORE, K_PSYS, NKINDS };

static const struct {
  const char *zone;  /* powercap zone name ("package" is "package-N") */
  const char *event; /* the perf event file in events/ */
  const char *pfm;   /* the libpfm4 event */
  const char *channel; /* channel name, before "-N" */
  enum pmon_domain domain;
  unsigned flags;
  uint32_t msr_intel; /* energy status register; 0 when none */
  uint32_t msr_amd;
} kinds[NKINDS] = {
  [K_PACKAGE] = {"package", "energy-pkg", "rapl::RAPL_ENERGY_PKG", "package",
                 PMON_DOM_CPU, PMON_CH_TOTAL, 0x611, 0xC001029B},
  [K_DRAM] = {"dram", "energy-ram", "rapl::RAPL_ENERGY_DRAM", "dram",
              PMON_DOM_MEMORY, PMON_CH_TOTAL, 0x619, 0},
  [K_CORE] = {"core", "energy-cores", "rapl::RAPL_ENERGY_CORES", "core",
              PMON_DOM_CPU, 0, 0x639, 0},
  [K_UNCORE] = {"uncore", "energy-gpu", "rapl::RAPL_ENERGY_GPU", "uncore",
                PMON_DOM_CPU, 0, 0x641, 0},
  [K_PSYS] = {"psys", "energy-psys", "rapl::RAPL_ENERGY_PSYS", "psys",
              PMON_DOM_OTHER, 0, 0x64d, 0},
};

#define MSR_INTEL_UNIT 0x606       /* MSR_RAPL_POWER_UNIT */
#define MSR_INTEL_POWER_INFO 0x614 /* MSR_PKG_POWER_INFO */
#define MSR_AMD_UNIT 0xC0010299    /* MSR_AMD_RAPL_POWER_UNIT */

/* Intel family 6 models whose DRAM counts in a fixed 2^-16 J, whatever
 * the unit register says: rapl_defaults_hsw_server in the kernel's
 * drivers/powercap/intel_rapl_common.c (Haswell-EP, Broadwell-EP,
 * Skylake-SP with Cascade and Cooper Lake, Ice Lake-SP and -D, Xeon Phi).
 * Sapphire Rapids and later use the unit register for DRAM (kernel commit
 * "perf/x86/rapl: Remove the SPR Dram energy unit quirk"). */
static const unsigned dram_fixed_unit[] = {0x3F, 0x4F, 0x55, 0x6A, 0x6C,
                                           0x57, 0x85};
/* Intel family 6 models whose psys counts whole joules
 * (rapl_defaults_spr_server): Sapphire and Emerald Rapids. */
static const unsigned psys_joule_unit[] = {0x8F, 0xCF};

typedef ssize_t pread_fn(int fd, void *buf, size_t len, off_t off);
typedef ssize_t read_fn(int fd, void *buf, size_t len);
typedef int perf_open_fn(struct perf_event_attr *attr, int cpu);

struct rapl_priv {
  enum path path;
  int fd[PMON_CH_MAX];        /* per channel; msr: a device of dev[] */
  uint32_t reg[PMON_CH_MAX];  /* msr: the status register per channel */
  int dev[UNIT_MAX];          /* msr: the device files, owned */
  int ndev;
  char where[PMON_CH_MAX][WHERE_MAX]; /* what a channel reads */
  /* Seams for the tests: open() puts the system calls into those that are
   * NULL.  perf_open is perf_event_open(ATTR, -1, CPU, -1, cloexec). */
  pread_fn *pread;
  read_fn *read;
  perf_open_fn *perf_open;
  int perf_emulated; /* perf: counts from a fixture's counts/ files */
};

/* A channel found by one of the paths, before the driver chooses. */
struct zone {
  enum kind kind;
  int pkg, die;       /* die -1 when named without one */
  char name[PMON_CH_NAME_MAX];
  char overlaps[PMON_CH_NAME_MAX];
  double scale, max_watts;
  uint64_t range;
  int fd;             /* owned, except on the msr path */
  uint32_t reg;
  char where[WHERE_MAX];
};

struct zones {
  int n;
  struct zone z[ZONE_MAX];
  char left_out[WHY_MAX]; /* zones not taken, for the note */
};

/* A package (or die) and the first CPU in it. */
struct unit {
  int cpu, pkg, die;
};

/* What a path's attempt returns, besides 0 and the PMON_E* codes: nothing
 * of that path is here. */
#define ABSENT 1

extern const struct pmon_driver pmon__driver_rapl;

/* ---- small helpers ---------------------------------------------------- */

/* Append TEXT to the "; "-separated list in BUF (SIZE bytes); what does
 * not fit is cut and ends with "...". */
static void append(char *buf, size_t size, const char *text)
{
  size_t n = strlen(buf);
  int w;

  if (n + 4 >= size)
    return;
  w = snprintf(buf + n, size - n, "%s%s", n > 0 ? "; " : "", text);
  if (w > 0 && (size_t)w >= size - n)
    memcpy(buf + size - 4, "...", 4);
}

/*
 * A sysfs number: decimal digits, then a newline, a NUL or the end.  What
 * follows the first newline is ignored (an attribute is one line; a file
 * rewritten in place may show the tail of a longer value for a moment).
 * 0 and *OUT set, or -1.
 */
static int parse_u64(const char *buf, size_t len, uint64_t *out)
{
  uint64_t v = 0;
  size_t i = 0;

  for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
    unsigned d = (unsigned)(buf[i] - '0');

    if (v > (UINT64_MAX - d) / 10)
      return -1;
    v = v * 10 + d;
  }
  if (i == 0 || (i < len && buf[i] != '\n' && buf[i] != '\0'))
    return -1;
  *out = v;
  return 0;
}

/* Read the file PATH into BUF (SIZE bytes, NUL-terminated, the trailing
 * newline removed).  Its length, or -errno. */
static int read_text(const char *path, char *buf, size_t size)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC), e;
  ssize_t n;

  if (fd < 0)
    return -errno;
  do
    n = read(fd, buf, size - 1);
  while (n < 0 && errno == EINTR);
  e = errno;
  close(fd);
  if (n < 0)
    return -e;
  buf[n] = '\0';
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
    buf[--n] = '\0';
  return (int)n;
}

/* Read a number from PATH: 0, -errno, or -EILSEQ when malformed. */
static int read_u64(const char *path, uint64_t *out)
{
  char buf[TEXT_MAX];
  int n = read_text(path, buf, sizeof buf);

  if (n < 0)
    return n;
  return parse_u64(buf, (size_t)n, out) == 0 ? 0 : -EILSEQ;
}

/* Read a signed integer from PATH: 0 or -1. */
static int read_int(const char *path, int *out)
{
  char buf[TEXT_MAX], *end;
  long v;

  if (read_text(path, buf, sizeof buf) <= 0)
    return -1;
  errno = 0;
  v = strtol(buf, &end, 10);
  if (errno != 0 || end == buf || *end != '\0' || v < INT_MIN || v > INT_MAX)
    return -1;
  *out = (int)v;
  return 0;
}

static int in_list(unsigned v, const unsigned *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (list[i] == v)
      return 1;
  return 0;
}

/* The channel name of zone KIND of package PKG (die DIE, or -1). */
static void zone_name(struct zone *z, enum kind kind, int pkg, int die)
{
  z->kind = kind;
  z->pkg = pkg;
  z->die = die;
  if (kind == K_PSYS)
    snprintf(z->name, sizeof z->name, "psys");
  else if (die >= 0)
    snprintf(z->name, sizeof z->name, "%s-%d-die-%d", kinds[kind].channel,
             pkg, die);
  else
    snprintf(z->name, sizeof z->name, "%s-%d", kinds[kind].channel, pkg);
  if (kind == K_PSYS)
    snprintf(z->overlaps, sizeof z->overlaps, "all");
  else if (kind != K_PACKAGE && kind != K_DRAM)
    snprintf(z->overlaps, sizeof z->overlaps, die >= 0 ? "package-%d-die-%d"
                                                       : "package-%d",
             pkg, die);
  else
    z->overlaps[0] = '\0';
}

/* A new zone at the end of ZS, or NULL (with a note) when it is full. */
static struct zone *zone_add(struct zones *zs, const char *what)
{
  struct zone *z;

  if (zs->n == ZONE_MAX) {
    char text[WHY_MAX];

    snprintf(text, sizeof text, "%s: more than %d zones", what, ZONE_MAX);
    append(zs->left_out, sizeof zs->left_out, text);
    return NULL;
  }
  z = &zs->z[zs->n++];
  memset(z, 0, sizeof *z);
  z->fd = -1;
  return z;
}

static void zones_close(struct zones *zs, int owned)
{
  for (int i = 0; i < zs->n; i++)
    if (owned && zs->z[i].fd >= 0)
      close(zs->z[i].fd);
  zs->n = 0;
}

/* The topology of CPU: 0 and *PKG, *DIE (0 when not given), or -1. */
static int cpu_topology(int cpu, int *pkg, int *die)
{
  char path[PATH_MAX];

  snprintf(path, sizeof path, "%s" CPU_DIR "/cpu%d/topology/physical_package_id",
           pmon__sysfs_root(), cpu);
  if (read_int(path, pkg) != 0 || *pkg < 0)
    return -1;
  snprintf(path, sizeof path, "%s" CPU_DIR "/cpu%d/topology/die_id",
           pmon__sysfs_root(), cpu);
  if (read_int(path, die) != 0 || *die < 0)
    *die = 0;
  return 0;
}

/* Add CPU to the units U (*N of them) when it is the first of its package
 * and die seen, or lower than the one kept.  -1 when U is full. */
static int unit_add(struct unit *u, int *n, int cpu, int pkg, int die)
{
  for (int i = 0; i < *n; i++)
    if (u[i].pkg == pkg && u[i].die == die) {
      if (cpu < u[i].cpu)
        u[i].cpu = cpu;
      return 0;
    }
  if (*n == UNIT_MAX)
    return -1;
  u[*n].cpu = cpu;
  u[*n].pkg = pkg;
  u[(*n)++].die = die;
  return 0;
}

static int unit_cmp(const void *a, const void *b)
{
  const struct unit *x = a, *y = b;

  if (x->pkg != y->pkg)
    return x->pkg < y->pkg ? -1 : 1;
  return x->die < y->die ? -1 : x->die > y->die;
}

/* Sort the units and say whether any package has more than one die (the
 * names then carry "-die-M"). */
static int units_sort(struct unit *u, int n)
{
  int dies = 0;

  qsort(u, (size_t)n, sizeof *u, unit_cmp);
  for (int i = 1; i < n; i++)
    dies |= u[i].pkg == u[i - 1].pkg;
  return dies;
}

/* ---- powercap --------------------------------------------------------- */

/*
 * Which zone a powercap zone's NAME is, for a top-level zone: a package
 * ("package-N", "package-N-die-M") or the platform ("psys").  0 with *KIND,
 * *PKG and *DIE set (*DIE -1 when not named), or -1.
 */
static int top_zone(const char *name, enum kind *kind, int *pkg, int *die)
{
  int n = 0;

  *die = -1;
  if (strcmp(name, "psys") == 0) {
    *kind = K_PSYS;
    *pkg = INT_MAX;
    return 0;
  }
  *kind = K_PACKAGE;
  if (sscanf(name, "package-%d%n", pkg, &n) == 1 && name[n] == '\0' &&
      *pkg >= 0)
    return 0;
  n = 0;
  if (sscanf(name, "package-%d-die-%d%n", pkg, die, &n) == 2 &&
      name[n] == '\0' && *pkg >= 0 && *die >= 0)
    return 0;
  return -1;
}

/* The kind of a subzone of a package from its NAME, or -1. */
static int sub_zone(const char *name)
{
  for (int k = K_DRAM; k <= K_UNCORE; k++)
    if (strcmp(name, kinds[k].zone) == 0)
      return k;
  return -1;
}

/* The reason a powercap file could not be opened, with the fix. */
static void powercap_why(char *why, size_t size, const char *path, int e)
{
  if (e == EACCES || e == EPERM)
    snprintf(why, size,
             "powercap: %s: %s (root-only since CVE-2020-8694; make it "
             "readable with a udev rule or sysfsutils)",
             path, strerror(e));
  else
    snprintf(why, size, "powercap: %s: %s", path, strerror(e));
}

/*
 * The zone in directory DIR of the powercap tree, of KIND in package PKG
 * (die DIE): opens energy_uj and reads the range and the most power.
 * 0, or a PMON_E* code with WHY set.
 */
static int powercap_zone(struct rapl_priv *rp, struct zones *zs,
                         const char *dir, enum kind kind, int pkg, int die,
                         char *why, size_t size)
{
  char path[PATH_MAX], buf[TEXT_MAX];
  struct zone *z = zone_add(zs, dir);
  uint64_t v;
  ssize_t n;
  int rc;

  if (z == NULL)
    return 0;
  zone_name(z, kind, pkg, die);
  z->scale = 1e-6; /* microjoules */
  snprintf(z->where, sizeof z->where, "%s/energy_uj", dir);
  if ((z->fd = open(z->where, O_RDONLY | O_CLOEXEC)) < 0) {
    powercap_why(why, size, z->where, errno);
    return errno == ENOENT ? PMON_EFORMAT : PMON_EIO;
  }
  do
    n = rp->pread(z->fd, buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    powercap_why(why, size, z->where, errno);
    return PMON_EIO; /* there, but not readable (EACCES): not absent */
  }
  buf[n] = '\0';
  if (parse_u64(buf, (size_t)n, &v) != 0) {
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(why, size,
             "powercap: %s: malformed content \"%.32s\": expected a decimal "
             "integer",
             z->where, buf);
    return PMON_EFORMAT;
  }
  snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
  if ((rc = read_u64(path, &v)) != 0 || v == 0 || v == UINT64_MAX) {
    snprintf(why, size, "powercap: %s: %s", path,
             rc == 0 || rc == -EILSEQ ? "malformed content" : strerror(-rc));
    return PMON_EFORMAT;
  }
  z->range = v + 1; /* the counter goes from 0 to v */
  snprintf(path, sizeof path, "%s/constraint_0_max_power_uw", dir);
  if (read_u64(path, &v) == 0)
    z->max_watts = (double)v * 1e-6;
  return 0;
}

static int name_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The powercap path: the zones intel-rapl:N (packages, psys) and
 * intel-rapl:N:M (their subzones).  The intel-rapl-mmio:N zones are not
 * read: the mmio interface is a second view of the package zone (the same
 * energy, through the processor's MMIO registers for power limits), and
 * counting it would count the package twice.  0, ABSENT, or a PMON_E*
 * code; WHY says why not.
 */
static int try_powercap(struct rapl_priv *rp, struct zones *zs, char *why,
                        size_t size)
{
  char dir[PATH_MAX], zdir[PATH_MAX + 64], path[PATH_MAX + 80];
  char name[TEXT_MAX], *names[ZONE_MAX];
  int nnames = 0, rc = 0;
  struct dirent *de;
  DIR *d;

  snprintf(dir, sizeof dir, "%s" POWERCAP_DIR, pmon__sysfs_root());
  if ((d = opendir(dir)) == NULL) {
    snprintf(why, size, "powercap: no %s", dir);
    return ABSENT;
  }
  while ((de = readdir(d)) != NULL && nnames < ZONE_MAX)
    if (strncmp(de->d_name, "intel-rapl:", 11) == 0 &&
        (names[nnames] = strdup(de->d_name)) != NULL)
      nnames++;
  closedir(d);
  if (nnames == 0) {
    snprintf(why, size, "powercap: no intel-rapl zones in %s", dir);
    return ABSENT;
  }
  qsort(names, (size_t)nnames, sizeof *names, name_cmp);
  for (int i = 0; i < nnames && rc == 0; i++) {
    const char *id = names[i] + 11, *colon = strchr(id, ':');
    enum kind kind;
    int pkg, die, k;

    snprintf(zdir, sizeof zdir, "%s/%s", dir, names[i]);
    snprintf(path, sizeof path, "%s/name", zdir);
    if (read_text(path, name, sizeof name) <= 0) {
      snprintf(why, size, "powercap: %s: cannot read the zone's name", path);
      rc = PMON_EFORMAT;
      break;
    }
    if (colon == NULL) { /* intel-rapl:N */
      if (top_zone(name, &kind, &pkg, &die) == 0)
        rc = powercap_zone(rp, zs, zdir, kind, pkg, die, why, size);
      else
        append(zs->left_out, sizeof zs->left_out, name);
      continue;
    }
    /* intel-rapl:N:M: a subzone of the package zone intel-rapl:N, whose
     * name gives the package. */
    char parent[PATH_MAX + 64], pname[TEXT_MAX];

    snprintf(parent, sizeof parent, "%s/intel-rapl:%.*s/name", dir,
             (int)(colon - id), id);
    if (strchr(colon + 1, ':') != NULL || (k = sub_zone(name)) < 0 ||
        read_text(parent, pname, sizeof pname) <= 0 ||
        top_zone(pname, &kind, &pkg, &die) != 0 || kind != K_PACKAGE) {
      char text[TEXT_MAX * 2];

      snprintf(text, sizeof text, "%s (%s)", name, names[i]);
      append(zs->left_out, sizeof zs->left_out, text);
      continue;
    }
    rc = powercap_zone(rp, zs, zdir, (enum kind)k, pkg, die, why, size);
  }
  for (int i = 0; i < nnames; i++)
    free(names[i]);
  if (rc == 0 && zs->n == 0) {
    snprintf(why, size, "powercap: no RAPL zone in %s (only: %s)", dir,
             zs->left_out);
    return ABSENT;
  }
  return rc;
}

/* ---- perf --------------------------------------------------------------- */

/*
 * Parse a perf event file of the power PMU, "event=0x02": the "event"
 * term, which is config bits 0-7 (format/event).  0 and *CONFIG, or -1
 * with WHAT saying why.
 */
static int parse_event(const char *text, uint64_t *config, const char **what)
{
  const char *p = text;
  int seen = 0;

  *config = 0;
  while (*p != '\0') {
    size_t len = strcspn(p, ",");
    unsigned long long v;
    char *end;

    if (strncmp(p, "event=", 6) != 0) {
      *what = "only an event=<code> term is understood";
      return -1;
    }
    errno = 0;
    v = strtoull(p + 6, &end, 0);
    if (end == p + 6 || end != p + len || errno != 0 || v > 0xff || seen) {
      *what = "expected event=<code>, a code from 0 to 0xff";
      return -1;
    }
    *config = v;
    seen = 1;
    p += len;
    if (*p == ',')
      p++;
  }
  if (!seen) {
    *what = "no event=<code> term";
    return -1;
  }
  return 0;
}

/* Parse a CPU list, "0,24" or "0-3,8", into CPUS (at most MAX).  The
 * count, or -1 when malformed or too long. */
static int parse_cpulist(const char *text, int *cpus, int max)
{
  const char *p = text;
  int n = 0;

  while (*p != '\0') {
    char *end;
    long a = strtol(p, &end, 10), b = a;

    if (end == p || a < 0 || a > INT_MAX)
      return -1;
    p = end;
    if (*p == '-') {
      b = strtol(p + 1, &end, 10);
      if (end == p + 1 || b < a || b > INT_MAX)
        return -1;
      p = end;
    }
    for (long c = a; c <= b; c++) {
      if (n == max)
        return -1;
      cpus[n++] = (int)c;
    }
    if (*p == ',')
      p++;
    else if (*p != '\0')
      return -1;
  }
  return n;
}

#ifdef PMON_HAVE_LIBPFM
/*
 * The encoding libpfm4 gives EVENT ("rapl::RAPL_ENERGY_PKG"): 0 and
 * *CONFIG when libpfm4 knows the event and puts it on the PMU of type
 * TYPE (the one sysfs names "power"), else -1 and the sysfs encoding
 * stands (AMD, whose RAPL libpfm4 does not describe; an older libpfm4).
 */
static int pfm_config(const char *event, uint32_t type, uint64_t *config)
{
  struct perf_event_attr attr;
  pfm_perf_encode_arg_t arg;

  memset(&attr, 0, sizeof attr);
  memset(&arg, 0, sizeof arg);
  arg.attr = &attr;
  arg.size = sizeof arg;
  if (pfm_initialize() != PFM_SUCCESS ||
      pfm_get_os_event_encoding(event, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT,
                                &arg) != PFM_SUCCESS ||
      attr.type != type)
    return -1;
  *config = attr.config;
  return 0;
}
#endif

/* The reason perf_event_open failed with E, with the fix. */
static void perf_why(char *why, size_t size, const char *event, int cpu,
                     int e)
{
  char path[PATH_MAX];
  int paranoid;

  if (e != EACCES && e != EPERM) {
    snprintf(why, size, "perf: perf_event_open power/%s on CPU %d: %s", event,
             cpu, strerror(e));
    return;
  }
  snprintf(path, sizeof path, "%s" PARANOID_FILE, pmon__proc_root());
  if (read_int(path, &paranoid) == 0)
    snprintf(why, size,
             "perf: perf_event_open power/%s: %s (perf_event_paranoid is "
             "%d: sysctl kernel.perf_event_paranoid=0, or CAP_PERFMON or "
             "CAP_SYS_ADMIN)",
             event, strerror(e), paranoid);
  else
    snprintf(why, size,
             "perf: perf_event_open power/%s: %s (sysctl "
             "kernel.perf_event_paranoid=0, or CAP_PERFMON or "
             "CAP_SYS_ADMIN)",
             event, strerror(e));
}

/*
 * The perf path: the power PMU's events on one CPU of each package (its
 * cpumask).  psys, which is the platform's, only on the first.  0, ABSENT,
 * or a PMON_E* code; WHY says why not.
 */
static int try_perf(struct rapl_priv *rp, struct zones *zs, char *why,
                    size_t size)
{
  char dir[PATH_MAX], path[PATH_MAX + 64], text[TEXT_MAX];
  struct unit u[UNIT_MAX];
  int cpus[UNIT_MAX], ncpus, nu = 0, dies, nev = 0, rc;
  uint64_t type;

  snprintf(dir, sizeof dir, "%s" PMU_DIR, pmon__sysfs_root());
  snprintf(path, sizeof path, "%s/type", dir);
  if ((rc = read_u64(path, &type)) != 0 || type > UINT32_MAX) {
    if (rc == -ENOENT || rc == -ENOTDIR) {
      snprintf(why, size, "perf: no power PMU (%s)", dir);
      return ABSENT;
    }
    snprintf(why, size, "perf: %s: %s", path,
             rc == 0 || rc == -EILSEQ ? "malformed content" : strerror(-rc));
    return rc == 0 || rc == -EILSEQ ? PMON_EFORMAT : PMON_EIO;
  }
  snprintf(path, sizeof path, "%s/cpumask", dir);
  if (read_text(path, text, sizeof text) <= 0 ||
      (ncpus = parse_cpulist(text, cpus, UNIT_MAX)) <= 0) {
    snprintf(why, size, "perf: %s: missing or malformed", path);
    return PMON_EFORMAT;
  }
  for (int i = 0; i < ncpus; i++) {
    int pkg, die;

    if (cpu_topology(cpus[i], &pkg, &die) != 0) {
      snprintf(why, size,
               "perf: %s" CPU_DIR "/cpu%d/topology/physical_package_id: "
               "missing or malformed",
               pmon__sysfs_root(), cpus[i]);
      return PMON_EFORMAT;
    }
    unit_add(u, &nu, cpus[i], pkg, die);
  }
  dies = units_sort(u, nu);
  {
    struct stat st;

    snprintf(path, sizeof path, "%s/counts", dir);
    rp->perf_emulated = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  }
  for (int k = 0; k < NKINDS; k++) {
    uint64_t config;
    const char *what = NULL;
    double scale;
    char *end;

    snprintf(path, sizeof path, "%s/events/%s", dir, kinds[k].event);
    if ((rc = read_text(path, text, sizeof text)) == -ENOENT)
      continue; /* this processor has no such domain */
    if (rc <= 0 || parse_event(text, &config, &what) != 0) {
      snprintf(why, size, "perf: %s: \"%.32s\": %s", path,
               rc > 0 ? text : "", rc > 0 ? what : "cannot read it");
      return PMON_EFORMAT;
    }
#ifdef PMON_HAVE_LIBPFM
    pfm_config(kinds[k].pfm, (uint32_t)type, &config); /* else sysfs's */
#endif
    snprintf(path, sizeof path, "%s/events/%s.unit", dir, kinds[k].event);
    if (read_text(path, text, sizeof text) <= 0 ||
        strcmp(text, "Joules") != 0) {
      snprintf(why, size, "perf: %s: missing, or not \"Joules\"", path);
      return PMON_EFORMAT;
    }
    snprintf(path, sizeof path, "%s/events/%s.scale", dir, kinds[k].event);
    if (read_text(path, text, sizeof text) <= 0)
      text[0] = '\0';
    scale = strtod(text, &end);
    if (end == text || *end != '\0' || !(scale > 0 && scale <= 1)) {
      snprintf(why, size, "perf: %s: missing, or not a scale in joules",
               path);
      return PMON_EFORMAT;
    }
    for (int i = 0; i < (k == K_PSYS ? 1 : nu); i++) {
      struct perf_event_attr attr;
      struct zone *z = zone_add(zs, kinds[k].event);

      if (z == NULL)
        break;
      zone_name(z, (enum kind)k, u[i].pkg, dies ? u[i].die : -1);
      z->scale = scale;
      z->range = 0; /* 64 bits, extended by the kernel: no wrap */
      snprintf(z->where, sizeof z->where, "perf power/%s on CPU %d",
               kinds[k].event, u[i].cpu);
      memset(&attr, 0, sizeof attr);
      attr.size = sizeof attr;
      attr.type = (uint32_t)type;
      attr.config = config;
      if (rp->perf_emulated) {
        snprintf(path, sizeof path, "%s/counts/%s-cpu%d", dir,
                 kinds[k].event, u[i].cpu);
        snprintf(z->where, sizeof z->where, "%.*s (emulated)",
                 (int)sizeof z->where - 16, path);
        z->fd = open(path, O_RDONLY | O_CLOEXEC);
      } else {
        z->fd = rp->perf_open(&attr, u[i].cpu);
      }
      if (z->fd < 0) {
        int e = errno;

        perf_why(why, size, kinds[k].event, u[i].cpu, e);
        return e == ENOENT || e == ENODEV ? PMON_ENOMETER : PMON_EIO;
      }
      nev++;
    }
  }
  if (nev == 0) {
    snprintf(why, size, "perf: %s/events: no energy-pkg, energy-ram, ... "
                        "event",
             dir);
    return PMON_EFORMAT;
  }
  return 0;
}

/* ---- msr ---------------------------------------------------------------- */

/*
 * The processor, from the first processor of cpuinfo: 0 for Intel, 1 for
 * AMD or Hygon, -1 for another, -2 when cpuinfo cannot be read (errno
 * says why).  VENDOR (SIZE bytes) gets vendor_id, *FAMILY and *MODEL the
 * "cpu family" and "model" (0 when absent).
 */
static int cpu_vendor(unsigned *family, unsigned *model, char *vendor,
                      size_t size)
{
  char path[PATH_MAX], line[256];
  FILE *f;

  snprintf(path, sizeof path, "%s/cpuinfo", pmon__proc_root());
  snprintf(vendor, size, "none");
  *family = *model = 0;
  if ((f = fopen(path, "re")) == NULL)
    return -2;
  while (fgets(line, sizeof line, f) != NULL) {
    char *colon = strchr(line, ':'), *value;
    size_t klen;

    if (line[0] == '\n')
      break; /* the end of the first processor */
    if (colon == NULL)
      continue;
    value = colon + 1 + strspn(colon + 1, " \t");
    value[strcspn(value, "\n")] = '\0';
    for (klen = (size_t)(colon - line);
         klen > 0 && (line[klen - 1] == ' ' || line[klen - 1] == '\t');)
      klen--;
    line[klen] = '\0';
    if (strcmp(line, "vendor_id") == 0)
      snprintf(vendor, size, "%s", value);
    else if (strcmp(line, "cpu family") == 0)
      *family = (unsigned)strtoul(value, NULL, 10);
    else if (strcmp(line, "model") == 0)
      *model = (unsigned)strtoul(value, NULL, 10);
  }
  fclose(f);
  if (strcmp(vendor, "GenuineIntel") == 0)
    return 0;
  if (strcmp(vendor, "AuthenticAMD") == 0 ||
      strcmp(vendor, "HygonGenuine") == 0)
    return 1;
  return -1;
}

/* The first CPU of each package (and die) that sysfs lists.  The count,
 * or -1 when there are more than UNIT_MAX. */
static int msr_units(struct unit *u)
{
  char dir[PATH_MAX];
  struct dirent *de;
  DIR *d;
  int n = 0;

  snprintf(dir, sizeof dir, "%s" CPU_DIR, pmon__sysfs_root());
  if ((d = opendir(dir)) == NULL)
    return 0;
  while ((de = readdir(d)) != NULL) {
    int cpu, pkg, die, len = 0;

    if (sscanf(de->d_name, "cpu%d%n", &cpu, &len) != 1 ||
        de->d_name[len] != '\0' || cpu < 0)
      continue;
    if (cpu_topology(cpu, &pkg, &die) != 0)
      continue; /* offline */
    if (unit_add(u, &n, cpu, pkg, die) != 0) {
      n = -1;
      break;
    }
  }
  closedir(d);
  return n;
}

/* Decode a RAPL unit register: energy unit in joules (bits 12:8), power
 * unit in watts (bits 3:0). */
static void msr_units_of(uint64_t unit, double *joules, double *watts)
{
  *joules = ldexp(1.0, -(int)((unit >> 8) & 0x1f));
  *watts = ldexp(1.0, -(int)(unit & 0xf));
}

/* Read register REG of the msr device FD: 0, or -1 with errno. */
static int msr_read(struct rapl_priv *rp, int fd, uint32_t reg, uint64_t *v)
{
  ssize_t n;

  do
    n = rp->pread(fd, v, sizeof *v, (off_t)reg);
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof *v)
    return 0;
  if (n >= 0)
    errno = EIO; /* a short read: no such register */
  return -1;
}

/*
 * The msr path: the energy status registers through the msr device of the
 * first CPU of each package.  psys, which is the platform's, only on the
 * first.  A register that cannot be read, or reads 0, is absent (as the
 * kernel decides in rapl_check_domain()).  0, ABSENT, or a PMON_E* code;
 * WHY says why not.
 */
static int try_msr(struct rapl_priv *rp, struct zones *zs, char *why,
                   size_t size)
{
  char vendor[TEXT_MAX], path[PATH_MAX];
  unsigned family, model;
  int amd = cpu_vendor(&family, &model, vendor, sizeof vendor);
  struct unit u[UNIT_MAX];
  int nu, dies;

  if (amd == -2) {
    snprintf(why, size, "msr: %s/cpuinfo: %s", pmon__proc_root(),
             strerror(errno));
    return ABSENT;
  }
  if (amd < 0) {
    snprintf(why, size, "msr: not an Intel or AMD processor (%s/cpuinfo: "
                        "vendor_id %s)",
             pmon__proc_root(), vendor);
    return ABSENT;
  }
  if ((nu = msr_units(u)) <= 0) {
    snprintf(why, size, "msr: %s" CPU_DIR ": %s", pmon__sysfs_root(),
             nu < 0 ? "too many packages" : "no CPU topology");
    return nu < 0 ? PMON_EFORMAT : ABSENT;
  }
  dies = units_sort(u, nu);
  for (int i = 0; i < nu; i++) {
    uint64_t unit, v;
    double joules, watts, max_watts = 0;
    int fd;

    snprintf(path, sizeof path, "%s/cpu/%d/msr", pmon__dev_root(), u[i].cpu);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
      int e = errno;

      if (e == ENOENT || e == ENXIO || e == ENODEV) {
        snprintf(why, size, "msr: %s: %s (modprobe msr)", path, strerror(e));
        return ABSENT;
      }
      snprintf(why, size, "msr: %s: %s%s", path, strerror(e),
               e == EACCES || e == EPERM
                 ? " (needs root, or CAP_SYS_RAWIO and read permission on "
                   "it)"
                 : "");
      return PMON_EIO; /* there, but not readable: not absent */
    }
    rp->dev[rp->ndev++] = fd;
    if (msr_read(rp, fd, amd ? MSR_AMD_UNIT : MSR_INTEL_UNIT, &unit) != 0) {
      snprintf(why, size,
               "msr: %s: register 0x%X: %s (no RAPL on this processor, or a "
               "virtual machine hides it)",
               path, amd ? MSR_AMD_UNIT : MSR_INTEL_UNIT, strerror(errno));
      return ABSENT;
    }
    msr_units_of(unit, &joules, &watts);
    if (!amd && msr_read(rp, fd, MSR_INTEL_POWER_INFO, &v) == 0)
      max_watts = (double)((v >> 32) & 0x7fff) * watts;
    for (int k = 0; k < NKINDS; k++) {
      uint32_t reg = amd ? kinds[k].msr_amd : kinds[k].msr_intel;
      struct zone *z;

      if (reg == 0 || (k == K_PSYS && i > 0) ||
          msr_read(rp, fd, reg, &v) != 0 || (v & STATUS_MASK) == 0) {
        if (k == K_PACKAGE) {
          snprintf(why, size,
                   "msr: %s: register 0x%X (package energy): absent",
                   path, reg);
          return ABSENT;
        }
        continue;
      }
      if ((z = zone_add(zs, path)) == NULL)
        break;
      zone_name(z, (enum kind)k, u[i].pkg, dies ? u[i].die : -1);
      z->scale = joules;
      if (!amd && family == 6 && k == K_DRAM &&
          in_list(model, dram_fixed_unit,
                  sizeof dram_fixed_unit / sizeof dram_fixed_unit[0]))
        z->scale = ldexp(1.0, -16);
      if (!amd && family == 6 && k == K_PSYS &&
          in_list(model, psys_joule_unit,
                  sizeof psys_joule_unit / sizeof psys_joule_unit[0]))
        z->scale = 1.0;
      z->range = STATUS_RANGE;
      z->max_watts = k == K_PACKAGE ? max_watts : 0;
      z->fd = fd;
      z->reg = reg;
      snprintf(z->where, sizeof z->where, "%.*s register 0x%X",
               (int)sizeof z->where - 24, path, reg);
    }
  }
  return 0;
}

/* ---- choosing the channels ------------------------------------------- */

static int zone_cmp(const void *a, const void *b)
{
  const struct zone *x = a, *y = b;
  int px = x->kind == K_PSYS ? INT_MAX : x->pkg;
  int py = y->kind == K_PSYS ? INT_MAX : y->pkg;

  if (px != py)
    return px < py ? -1 : 1;
  if (x->die != y->die)
    return x->die < y->die ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return strcmp(x->name, y->name);
}

/*
 * Make the zones ZS M's channels: sorted (packages by number, each
 * followed by its DRAM, cores and uncore; psys last), at most PMON_CH_MAX,
 * the total channels first in priority.  A part of a package whose most
 * power is unknown takes its package's, which bounds it.  What is left
 * out is added to ZS->left_out.  0, or PMON_ENOMETER with WHY set when
 * the total channels alone are too many (the node total would be short).
 */
static int take(struct pmon_meter *m, struct rapl_priv *rp, struct zones *zs,
                int owned, char *why, size_t size)
{
  char over[WHY_MAX] = "";
  int ntotal = 0, nother = 0;

  qsort(zs->z, (size_t)zs->n, sizeof zs->z[0], zone_cmp);
  for (int i = 0; i < zs->n; i++)
    ntotal += (kinds[zs->z[i].kind].flags & PMON_CH_TOTAL) != 0;
  if (ntotal > PMON_CH_MAX) {
    snprintf(why, size,
             "%s: %d package and DRAM zones, more than the %d channels a "
             "meter has",
             path_names[rp->path], ntotal, PMON_CH_MAX);
    return PMON_ENOMETER;
  }
  for (int i = 0; i < zs->n; i++) {
    struct zone *z = &zs->z[i];
    int total = (kinds[z->kind].flags & PMON_CH_TOTAL) != 0, c;

    if (!total && nother == PMON_CH_MAX - ntotal) {
      size_t n = strlen(over);

      if (n == 0)
        n = (size_t)snprintf(over, sizeof over, "more than %d channels:",
                             PMON_CH_MAX);
      snprintf(over + n, sizeof over - n, " %s", z->name);
      if (owned && z->fd >= 0)
        close(z->fd);
      continue;
    }
    nother += !total;
    if (z->max_watts == 0 && (z->kind == K_CORE || z->kind == K_UNCORE))
      for (int j = 0; j < zs->n; j++)
        if (zs->z[j].kind == K_PACKAGE && zs->z[j].pkg == z->pkg &&
            zs->z[j].die == z->die)
          z->max_watts = zs->z[j].max_watts;
    c = pmon__meter_add_channel(m, z->name, kinds[z->kind].domain,
                                kinds[z->kind].flags, z->scale, z->range);
    m->ch[c].max_watts = z->max_watts;
    snprintf(m->ch[c].overlaps, sizeof m->ch[c].overlaps, "%s", z->overlaps);
    rp->fd[c] = z->fd;
    rp->reg[c] = z->reg;
    snprintf(rp->where[c], sizeof rp->where[c], "%s", z->where);
  }
  if (over[0] != '\0')
    append(zs->left_out, sizeof zs->left_out, over);
  zs->n = 0; /* the descriptors are the meter's now */
  return 0;
}

/* ---- the driver -------------------------------------------------------- */

static ssize_t sys_pread(int fd, void *buf, size_t len, off_t off)
{
  return pread(fd, buf, len, off);
}

static ssize_t sys_read(int fd, void *buf, size_t len)
{
  return read(fd, buf, len);
}

static int sys_perf_open(struct perf_event_attr *attr, int cpu)
{
  return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1,
                      PERF_FLAG_FD_CLOEXEC);
}

static void rapl_close(struct pmon_meter *m)
{
  struct rapl_priv *rp = m->priv;

  if (rp->path != PATH_MSR)
    for (int c = 0; c < m->nch; c++)
      if (rp->fd[c] >= 0)
        close(rp->fd[c]);
  for (int i = 0; i < rp->ndev; i++)
    close(rp->dev[i]);
  rp->ndev = 0;
}

typedef int try_fn(struct rapl_priv *rp, struct zones *zs, char *why,
                   size_t size);
static try_fn *const tries[NPATHS] = {try_powercap, try_perf, try_msr};

/* The paths the specification asks for: a bit per path, 0 and a message
 * when it names none that exists. */
static unsigned spec_paths(const struct pmon_spec *spec)
{
  if (spec->path[0] == '\0')
    return (1u << NPATHS) - 1;
  for (int p = 0; p < NPATHS; p++)
    if (strcmp(spec->path, path_names[p]) == 0)
      return 1u << p;
  pmon__fail(PMON_ECONFIG,
             "%s: meter \"%s\": unknown path \"%s\": expected rapl, "
             "rapl:powercap, rapl:perf or rapl:msr",
             PMON_ENV_METERS, spec->text, spec->path);
  return 0;
}

/* Open M through the first of its paths that works.  QUIET: no
 * diagnostic (a probe). */
static int open_paths(struct pmon_meter *m, int quiet)
{
  static const char *const keys[] = {"interval", NULL};
  struct rapl_priv *rp = m->priv;
  char why[NPATHS][WHY_MAX], msg[480] = "", note[sizeof m->note] = "";
  unsigned paths;
  int rcs[NPATHS] = {0}, rc, tried = 0, absent = 0;
  struct zones *zs;

  if ((rc = pmon__spec_check_keys(&m->spec, keys)) != 0 ||
      (rc = pmon__spec_double(&m->spec, "interval", m->interval_s, 0.001,
                              3600, &m->interval_s)) != 0)
    return rc;
  if ((paths = spec_paths(&m->spec)) == 0)
    return PMON_ECONFIG;
  if (rp->pread == NULL)
    rp->pread = sys_pread;
  if (rp->read == NULL)
    rp->read = sys_read;
  if (rp->perf_open == NULL)
    rp->perf_open = sys_perf_open;
  if ((zs = calloc(1, sizeof *zs)) == NULL)
    return pmon__fail(PMON_ENOMEM, "rapl: out of memory");
  for (int p = 0; p < NPATHS; p++) {
    if (!(paths & (1u << p)))
      continue;
    tried++;
    why[p][0] = '\0';
    zs->n = 0;
    zs->left_out[0] = '\0';
    rp->ndev = 0;
    rc = tries[p](rp, zs, why[p], sizeof why[p]);
    if (rc == 0) {
      rp->path = (enum path)p;
      rc = take(m, rp, zs, p != PATH_MSR, why[p], sizeof why[p]);
      if (rc == 0) {
        snprintf(m->source, sizeof m->source, "%s", path_names[p]);
        for (int q = 0; q < p; q++)
          if (rcs[q] < 0)
            append(note, sizeof note, why[q]);
        if (zs->left_out[0] != '\0') {
          char text[WHY_MAX + 32];

          snprintf(text, sizeof text, "%s: left out: %s", path_names[p],
                   zs->left_out);
          append(note, sizeof note, text);
        }
        snprintf(m->note, sizeof m->note, "%s", note);
        free(zs);
        if (!quiet)
          pmon__debug("rapl: reading RAPL through %s%s%s", m->source,
                      note[0] != '\0' ? "; " : "", note);
        return 0;
      }
    }
    zones_close(zs, p != PATH_MSR);
    for (int i = 0; i < rp->ndev; i++)
      close(rp->dev[i]);
    rp->ndev = 0;
    rcs[p] = rc;
    absent += rc == ABSENT;
    append(msg, sizeof msg, why[p]);
  }
  free(zs);
  /* The first path that is there and failed says the code; with none
   * there, there is no RAPL (that we can see). */
  rc = PMON_ENOMETER;
  for (int p = NPATHS - 1; p >= 0; p--)
    if (rcs[p] < 0)
      rc = rcs[p];
  if (absent == tried && tried > 1)
    return pmon__fail(PMON_ENOMETER, "rapl: no RAPL here: %s", msg);
  return pmon__fail(rc, "rapl: %s", msg);
}

static int rapl_open(struct pmon_meter *m)
{
  struct rapl_priv *rp = m->priv;
  int rc;

  for (int c = 0; c < PMON_CH_MAX; c++)
    rp->fd[c] = -1;
  rp->ndev = 0;
  if ((rc = open_paths(m, 0)) != 0)
    return rc;
  /* The registers move about every millisecond while the package is
   * powered, idle included: a second, or five readings when they are
   * further apart, without any of them moving is a frozen source (a
   * hypervisor that shows a fixed value), not a quiet processor. */
  m->stale_s = STALE_READINGS * m->interval_s > STALE_MIN_S
                 ? STALE_READINGS * m->interval_s
                 : STALE_MIN_S;
  m->pace_s = RAPL_PACE_S; /* the core stops believing it if a value stays */
  return 0;
}

/* Whether SPEC could be opened: it is, and closed again at once (a few
 * files, or perf events that never start counting anything). */
static int rapl_probe(const struct pmon_spec *spec)
{
  struct pmon_meter *m = calloc(1, sizeof *m);
  struct rapl_priv *rp = calloc(1, sizeof *rp);
  int rc;

  if (m == NULL || rp == NULL) {
    free(m);
    free(rp);
    return pmon__fail(PMON_ENOMEM, "rapl: out of memory");
  }
  m->drv = &pmon__driver_rapl;
  m->priv = rp;
  m->spec = *spec;
  m->flags = m->drv->flags;
  m->interval_s = m->drv->interval_s;
  for (int c = 0; c < PMON_CH_MAX; c++)
    rp->fd[c] = -1;
  if ((rc = open_paths(m, 1)) == 0)
    rapl_close(m);
  free(rp);
  free(m);
  return rc;
}

/* Channel C's count as the decimal text of its file (powercap's
 * energy_uj, an emulated perf count) into *V: 0, or PMON_E* with the
 * file named. */
static int text_count(struct rapl_priv *rp, int c, uint64_t *v)
{
  char buf[TEXT_MAX];
  ssize_t n;

  do
    n = rp->pread(rp->fd[c], buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return pmon__fail(PMON_EIO, "rapl: %s: read: %s", rp->where[c],
                      strerror(errno));
  buf[n] = '\0';
  if (parse_u64(buf, (size_t)n, v) != 0) {
    buf[strcspn(buf, "\n")] = '\0';
    return pmon__fail(PMON_EFORMAT,
                      "rapl: %s: malformed content \"%.32s\": expected a "
                      "decimal integer",
                      rp->where[c], buf);
  }
  return 0;
}

static int rapl_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct rapl_priv *rp = m->priv;

  for (int c = 0; c < m->nch; c++) {
    uint64_t v;
    ssize_t n;
    int rc;

    switch (rp->path) {
    case PATH_POWERCAP:
      if ((rc = text_count(rp, c, &r->raw[c])) != 0)
        return rc;
      break;
    case PATH_PERF:
      if (rp->perf_emulated) { /* a fixture's text count, as powercap's */
        if ((rc = text_count(rp, c, &r->raw[c])) != 0)
          return rc;
        break;
      }
      do
        n = rp->read(rp->fd[c], &v, sizeof v);
      while (n < 0 && errno == EINTR);
      if (n != (ssize_t)sizeof v)
        return pmon__fail(PMON_EIO, "rapl: %s: read: %s", rp->where[c],
                          n < 0 ? strerror(errno) : "short read");
      r->raw[c] = v;
      break;
    case PATH_MSR:
      if (msr_read(rp, rp->fd[c], rp->reg[c], &v) != 0)
        return pmon__fail(PMON_EIO, "rapl: %s: read: %s", rp->where[c],
                          strerror(errno));
      r->raw[c] = v & STATUS_MASK;
      break;
    default:
      return pmon__fail(PMON_EIO, "rapl: not open");
    }
  }
  return 0;
}

const struct pmon_driver pmon__driver_rapl = {
  .name = "rapl", /* MUST: PMON_METERS=rapl[:powercap|:perf|:msr] */
  .description = "Intel and AMD RAPL processor and memory energy (powercap, "
                 "perf or msr)", /* MUST */
  /* MUST.  COUNTER: read() gives raw cumulative counts.  PART: processors
   * and memory only, never the whole node. */
  .flags = PMON_DRV_COUNTER | PMON_DRV_PART,
  .priv_size = sizeof(struct rapl_priv), /* MAY */
  .interval_s = 0.1, /* MUST: ?interval=S changes it */
  .probe = rapl_probe,  /* MAY: opens and closes at once */
  .open = rapl_open,    /* MUST */
  .read = rapl_read,    /* MUST */
  .close = rapl_close,  /* MAY */
};

/*
 * hwmon.c - power and energy from Linux hwmon chips.
 *
 * Hardware: any chip of the hwmon class that publishes power or energy
 * (Documentation/hwmon/sysfs-interface.rst), and three kinds known by
 * their name or labels, see research notes section 5:
 *   - the ACPI power meter (acpi_power_meter, chip "power_meter"): the
 *     whole node;
 *   - NVIDIA Grace and Grace Hopper rails, one per power1_oem_info
 *     "<Rail> Power Socket <N>": Module (a GH200 module, GPU included),
 *     Grace (the CPU superchip), CPU and SysIO (parts of Grace; that
 *     nesting is not verified against NVIDIA's documentation);
 *   - amd_energy (AMD family 17h and 19h RAPL): Esocket<N> and Ecore<NNN>.
 * It runs against fixture trees in tests (tests/hwmonfeed.c).
 *
 * Units: energy<i>_input is cumulative microjoules: a counter meter, scale
 * 1e-6 J, range 0 (64 bits in the kernel, no wrap; a counter that goes
 * back restarted, which the core drops).  power<i>_average, preferred, and
 * power<i>_input are microwatts: a sampled meter.
 * power<i>_average_interval is milliseconds.  One meter is all counters
 * or all sampled: counters when every channel chosen has an energy file.
 *
 * Chips are class/hwmon/hwmon* under the sysfs root, in the order of their
 * real paths.  They are chosen by their name file and channels by their
 * labels (power<i>_label, energy<i>_label, else power<i>_oem_info), never
 * by the N of hwmonN, which can change from boot to boot.  Each attribute
 * is looked for in hwmonN/ and then in hwmonN/device/ (the older layout,
 * and the one Grace uses).  The value files are opened once and reread
 * from their start with pread() at each reading.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmon.h"
#include "driver.h"
#include "log.h"

#define TEXT_MAX 64       /* a name, label or value file, with its NUL */
#define INDEX_MAX 4096    /* the highest attribute index looked at */
#define COUNTER_S 0.1     /* read period of counters, s */
#define SAMPLED_S 0.1     /* of power without an averaging interval, s */
#define STALE_MIN_S 3.0   /* counters: no channel moving this long is a
                             frozen chip ... */
#define STALE_READINGS 5  /* ... or this many readings, if longer */
#define AVERAGE_MIN_S 0.05 /* the shortest period taken from a chip, s */
#define WINDOW_MIN_S 0.2  /* an average over this long or longer is read
                             as its window's energy ... */
#define WINDOW_READS 20   /* ... this many times a window, */
#define WINDOW_READ_MIN_S 0.01 /* and not more often than this, s */
#define MICRO 1e-6        /* microjoules -> J, microwatts -> W */
#define WATTS_MAX 1e6     /* a plausible reading of one channel, W */

typedef ssize_t pread_fn(int fd, void *buf, size_t len, off_t off);

/* One chip: class/hwmon/hwmonN. */
struct chip {
  char dir[PATH_MAX];   /* ROOT/class/hwmon/hwmonN */
  char *real;           /* its real path (malloc'd): the order of chips */
  char name[TEXT_MAX];  /* its name file, "" when it has none */
  int sockets;          /* amd_energy: Esocket channels */
  char socket[PMON_CH_NAME_MAX]; /* the one socket channel's name */
};

/* One channel found on a chosen chip: an energy file, a power file, or
 * both when their labels (or, unlabelled, their indices) agree. */
struct cand {
  int chip;              /* index in the scan's chips */
  int e, p;              /* energy<e>_input, power<p>_*; 0 when none */
  int p_avg;             /* power<p>_average, else power<p>_input */
  int p_labelled;        /* power<p>_label exists */
  double avg_s;          /* power<p>_average_interval, 0 when none */
  char label[TEXT_MAX];  /* the label, else power<p>_oem_info, else "" */
  /* What it measures (classify(), settle()). */
  char name[PMON_CH_NAME_MAX]; /* "" until settle() when unlabelled */
  enum pmon_domain domain;
  unsigned flags;
  char overlaps[PMON_CH_NAME_MAX];
  int wanted;            /* in its chip's default choice */
  int rail, socket;      /* Grace: rail (-1 for none) and socket */
};

/* What a specification chose, freed by scan_free(). */
struct scan {
  struct chip *chips;
  int nchips;
  struct cand *cand;
  int ncand, cap;
};

struct hw_priv {
  int fd[PMON_CH_MAX];                /* value files, by channel */
  char path[PMON_CH_MAX][PATH_MAX];   /* for messages */
  uint64_t prev[PMON_CH_MAX];         /* counters: the previous reading */
  int primed;
  pread_fn *pread;                    /* pread(2); a seam for tests */
};

/* Grace rails by the first word of power1_oem_info: "<word> Power Socket
 * <N>" is channel "<prefix>-N".  Module and Grace count toward the total
 * (Grace only where no Module rail of its socket is chosen, settle());
 * CPU and SysIO are parts of Grace. */
static const struct {
  const char *word, *prefix;
  enum pmon_domain domain;
  int total;
} rails[] = {
  {"Module", "module", PMON_DOM_MODULE, 1},
  {"Grace", "grace", PMON_DOM_CPU, 1},
  {"CPU", "cpu", PMON_DOM_CPU, 0},
  {"SysIO", "sysio", PMON_DOM_OTHER, 0},
};
enum { RAIL_MODULE, RAIL_GRACE };
#define NRAILS (int)(sizeof rails / sizeof rails[0])

/* The rail of a Grace label "<word> Power Socket <N>" and *SOCKET, or -1
 * when LABEL is no such text. */
static int grace_rail(const char *label, int *socket)
{
  static const char mid[] = " Power Socket ";

  for (int r = 0; r < NRAILS; r++) {
    size_t n = strlen(rails[r].word);
    const char *p;
    int s = 0;

    if (strncmp(label, rails[r].word, n) != 0 ||
        strncmp(label + n, mid, sizeof mid - 1) != 0)
      continue;
    p = label + n + sizeof mid - 1;
    if (*p == '\0')
      return -1;
    for (; *p >= '0' && *p <= '9' && s < 1000; p++)
      s = s * 10 + (*p - '0');
    if (*p != '\0' || s >= 1000)
      return -1;
    *socket = s;
    return r;
  }
  return -1;
}

/* LABEL as a channel name into NAME: lower case, each run of characters
 * other than letters, digits, '_' and '.' as one '-', none at either end,
 * at most PMON_CH_NAME_MAX - 1 bytes.  "" when nothing is left. */
static void sanitise(const char *label, char *name)
{
  size_t n = 0;

  for (const char *p = label; *p != '\0' && n < PMON_CH_NAME_MAX - 1; p++) {
    char ch = *p;

    if (ch >= 'A' && ch <= 'Z')
      ch = (char)(ch - 'A' + 'a');
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
        ch == '.')
      name[n++] = ch;
    else if (n > 0 && name[n - 1] != '-')
      name[n++] = '-';
  }
  while (n > 0 && name[n - 1] == '-')
    n--;
  name[n] = '\0';
}

/* Whether LABEL is PREFIX followed by digits and nothing else. */
static int numbered(const char *label, const char *prefix)
{
  size_t n = strlen(prefix);

  return strncmp(label, prefix, n) == 0 && label[n] != '\0' &&
         label[n + strspn(label + n, "0123456789")] == '\0';
}

/*
 * What candidate K measures, from its chip's name CHIP and its label: its
 * name, domain, flags, overlaps, and whether its chip's default choice
 * takes it.  What depends on the other channels chosen is settle()'s.
 */
static void classify(struct cand *k, const char *chip)
{
  int amd = strcmp(chip, "amd_energy") == 0;

  k->rail = grace_rail(k->label, &k->socket);
  k->overlaps[0] = '\0';
  k->wanted = 1;
  if (k->rail >= 0) {
    snprintf(k->name, sizeof k->name, "%s-%d", rails[k->rail].prefix,
             k->socket);
    k->domain = rails[k->rail].domain;
    k->flags = rails[k->rail].total ? PMON_CH_TOTAL : 0;
    if (!rails[k->rail].total)
      snprintf(k->overlaps, sizeof k->overlaps, "grace-%d", k->socket);
  } else if (strcmp(chip, "power_meter") == 0) {
    snprintf(k->name, sizeof k->name, "node");
    k->domain = PMON_DOM_NODE;
    k->flags = PMON_CH_TOTAL;
  } else if (amd && numbered(k->label, "Esocket")) {
    snprintf(k->name, sizeof k->name, "socket-%.20s", k->label + 7);
    k->domain = PMON_DOM_CPU;
    k->flags = PMON_CH_TOTAL;
  } else if (amd && numbered(k->label, "Ecore")) {
    snprintf(k->name, sizeof k->name, "core-%.20s", k->label + 5);
    k->domain = PMON_DOM_CPU;
    k->flags = 0;
    k->wanted = 0; /* too many for a meter: label= picks them */
  } else {
    sanitise(k->label, k->name);
    k->domain = PMON_DOM_OTHER;
    k->flags = PMON_CH_TOTAL;
  }
}

/* Whether label= GLOB picks K: its label, or unlabelled, "energy<e>" or
 * "power<p>". */
static int label_matches(const struct cand *k, const char *glob)
{
  char alt[32];

  if (k->label[0] != '\0')
    return fnmatch(glob, k->label, 0) == 0;
  snprintf(alt, sizeof alt, "energy%d", k->e);
  if (k->e > 0 && fnmatch(glob, alt, 0) == 0)
    return 1;
  snprintf(alt, sizeof alt, "power%d", k->p);
  return k->p > 0 && fnmatch(glob, alt, 0) == 0;
}

/* The failure to open PATH with errno E: permission problems say how to
 * fix them. */
static int open_fail(const char *path, int e)
{
  if (e == EACCES || e == EPERM)
    return pmon__fail(PMON_EIO,
                      "hwmon: %s: cannot open: %s: run as root, or make it "
                      "0444 with a udev rule or a sysfsutils mode line",
                      path, strerror(e));
  return pmon__fail(e == ENOENT ? PMON_ENOMETER : PMON_EIO,
                    "hwmon: %s: cannot open: %s", path, strerror(e));
}

/* Where attribute FILE (a printf format and its index) of chip C is: its
 * path into PATH and 1, or 0 when it is neither in hwmonN/ nor in
 * hwmonN/device/. */
static int attr_find(const struct chip *c, char *path, size_t size,
                     const char *fmt, ...) PMON_PRINTF(4, 5);

static int attr_find(const struct chip *c, char *path, size_t size,
                     const char *fmt, ...)
{
  static const char *const subdirs[] = {"", "/device"};
  char file[64];
  struct stat st;
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(file, sizeof file, fmt, ap);
  va_end(ap);
  for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
    if ((size_t)snprintf(path, size, "%s%s/%s", c->dir, subdirs[i], file) <
          size &&
        stat(path, &st) == 0 && S_ISREG(st.st_mode))
      return 1;
  return 0;
}

/* Read the file at PATH into BUF (SIZE bytes), without its trailing
 * newlines, blanks or NULs.  0, or -errno. */
static int read_text(const char *path, char *buf, size_t size)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return -errno;
  do
    n = read(fd, buf, size - 1);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    int e = errno;

    close(fd);
    return -e;
  }
  close(fd);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
                   buf[n - 1] == '\0'))
    n--;
  buf[n] = '\0';
  return 0;
}

/* Text attribute FILE of chip C into BUF; "" when it is absent.  0, or
 * the failure of one that exists but cannot be read, which LENIENT takes
 * as absent. */
static int attr_text(const struct chip *c, char *buf, size_t size,
                     int lenient, const char *file)
{
  char path[PATH_MAX];
  int rc;

  buf[0] = '\0';
  if (!attr_find(c, path, sizeof path, "%s", file))
    return 0;
  if ((rc = read_text(path, buf, size)) == 0)
    return 0;
  buf[0] = '\0';
  return lenient ? 0 : open_fail(path, -rc);
}

/*
 * Parse a value file's content: decimal digits, an optional newline, then
 * nothing but NULs (as a fixture may pad it).  0 and *OUT, or -1.
 */
static int parse_value(const char *buf, size_t len, uint64_t *out)
{
  const char *p = buf, *end = buf + len;
  uint64_t v = 0;

  while (end > p && end[-1] == '\0')
    end--;
  if (p == end || *p < '0' || *p > '9')
    return -1;
  for (; p < end && *p >= '0' && *p <= '9'; p++) {
    unsigned d = (unsigned)(*p - '0');

    if (v > (UINT64_MAX - d) / 10)
      return -1;
    v = v * 10 + d;
  }
  if (p < end && *p == '\n')
    p++;
  if (p != end)
    return -1;
  *out = v;
  return 0;
}

/* The failure of malformed content BUF (LEN bytes) in PATH, expected to
 * be a count of UNIT. */
static int format_fail(const char *path, const char *buf, size_t len,
                       const char *unit)
{
  char shown[TEXT_MAX];
  size_t n = 0;

  for (size_t i = 0; i < len && n < sizeof shown - 1; i++) {
    if (buf[i] == '\0' || buf[i] == '\n')
      break;
    shown[n++] = buf[i] >= ' ' && buf[i] < 127 ? buf[i] : '?';
  }
  shown[n] = '\0';
  return pmon__fail(PMON_EFORMAT,
                    "hwmon: %s: malformed content \"%.40s\": expected a "
                    "whole number of %s",
                    path, shown, unit);
}

/* The average interval of power<p> of chip C into K->avg_s (0 when it has
 * none).  0, or the failure of a file that cannot be read or parsed,
 * which LENIENT takes as absent. */
static int average_interval(const struct chip *c, struct cand *k,
                            int lenient)
{
  char path[PATH_MAX], buf[TEXT_MAX];
  uint64_t ms;
  int rc;

  k->avg_s = 0;
  if (!k->p_avg ||
      !attr_find(c, path, sizeof path, "power%d_average_interval", k->p))
    return 0;
  if ((rc = read_text(path, buf, sizeof buf)) != 0)
    return lenient ? 0 : open_fail(path, -rc);
  if (parse_value(buf, strlen(buf), &ms) != 0)
    return lenient ? 0 : format_fail(path, buf, strlen(buf), "milliseconds");
  k->avg_s = (double)ms * 1e-3;
  return 0;
}

/* The highest indices of energy<i>_input and of power<i>_average or
 * power<i>_input files of chip C, in hwmonN/ and hwmonN/device/. */
static void max_indices(const struct chip *c, int *emax, int *pmax)
{
  static const char *const subdirs[] = {"", "/device"};

  *emax = *pmax = 0;
  for (size_t s = 0; s < sizeof subdirs / sizeof subdirs[0]; s++) {
    char dir[PATH_MAX];
    struct dirent *d;
    DIR *dp;

    snprintf(dir, sizeof dir, "%s%s", c->dir, subdirs[s]);
    if ((dp = opendir(dir)) == NULL)
      continue;
    while ((d = readdir(dp)) != NULL) {
      int i, len = 0;

      if (sscanf(d->d_name, "energy%d_input%n", &i, &len) == 1 &&
          d->d_name[len] == '\0' && i > *emax && i <= INDEX_MAX)
        *emax = i;
      else if (((sscanf(d->d_name, "power%d_average%n", &i, &len) == 1 &&
                 d->d_name[len] == '\0') ||
                (sscanf(d->d_name, "power%d_input%n", &i, &len) == 1 &&
                 d->d_name[len] == '\0')) &&
               i > *pmax && i <= INDEX_MAX)
        *pmax = i;
    }
    closedir(dp);
  }
}

/* Add K to S when GLOB (NULL: the chip's default choice) picks it. */
static int offer(struct scan *s, struct cand *k, const char *glob)
{
  if (glob != NULL ? !label_matches(k, glob) : !k->wanted)
    return 0;
  if (s->ncand == s->cap) {
    int cap = s->cap > 0 ? 2 * s->cap : 16;
    struct cand *v = realloc(s->cand, (size_t)cap * sizeof *v);

    if (v == NULL)
      return pmon__fail(PMON_ENOMEM, "hwmon: out of memory");
    s->cand = v;
    s->cap = cap;
  }
  s->cand[s->ncand++] = *k;
  return 0;
}

/*
 * The power and energy channels of chip CI, classified, those GLOB picks
 * (NULL: the chip's default choice) added to S.  An energy file and a
 * power file are one channel when their labels agree, or when neither has
 * a label and their indices agree.  0, or the failure of a file that
 * exists but cannot be read (LENIENT: taken as absent).
 */
static int chip_channels(struct scan *s, int ci, const char *glob,
                         int lenient)
{
  struct chip *c = &s->chips[ci];
  struct cand *pw, k;
  char path[PATH_MAX], file[64];
  int emax, pmax, npw = 0, rc = 0;
  char *paired;

  max_indices(c, &emax, &pmax);
  pw = calloc((size_t)pmax + 1, sizeof *pw);
  paired = calloc((size_t)pmax + 1, 1);
  if (pw == NULL || paired == NULL) {
    free(pw);
    free(paired);
    return pmon__fail(PMON_ENOMEM, "hwmon: out of memory");
  }
  for (int j = 1; rc == 0 && j <= pmax; j++) {
    struct cand *q = &pw[npw];

    memset(q, 0, sizeof *q);
    q->chip = ci;
    if (attr_find(c, path, sizeof path, "power%d_average", j))
      q->p_avg = 1;
    else if (!attr_find(c, path, sizeof path, "power%d_input", j))
      continue;
    q->p = j;
    snprintf(file, sizeof file, "power%d_label", j);
    rc = attr_text(c, q->label, sizeof q->label, lenient, file);
    q->p_labelled = q->label[0] != '\0';
    snprintf(file, sizeof file, "power%d_oem_info", j);
    if (rc == 0 && !q->p_labelled)
      rc = attr_text(c, q->label, sizeof q->label, lenient, file);
    if (rc == 0)
      rc = average_interval(c, q, lenient);
    npw++;
  }
  for (int i = 1; rc == 0 && i <= emax; i++) {
    if (!attr_find(c, path, sizeof path, "energy%d_input", i))
      continue;
    memset(&k, 0, sizeof k);
    k.chip = ci;
    k.e = i;
    snprintf(file, sizeof file, "energy%d_label", i);
    if ((rc = attr_text(c, k.label, sizeof k.label, lenient, file)) != 0)
      break;
    for (int j = 0; j < npw; j++) {
      if (paired[j] ||
          !(k.label[0] != '\0' ? pw[j].p_labelled &&
                                   strcmp(pw[j].label, k.label) == 0
                               : !pw[j].p_labelled && pw[j].p == i))
        continue;
      paired[j] = 1;
      k.p = pw[j].p;
      k.p_avg = pw[j].p_avg;
      k.p_labelled = pw[j].p_labelled;
      k.avg_s = pw[j].avg_s;
      if (k.label[0] == '\0') /* an OEM text names the pair */
        snprintf(k.label, sizeof k.label, "%s", pw[j].label);
      break;
    }
    classify(&k, c->name);
    if (k.domain == PMON_DOM_CPU && strncmp(k.name, "socket-", 7) == 0 &&
        c->sockets++ == 0)
      snprintf(c->socket, sizeof c->socket, "%s", k.name);
    rc = offer(s, &k, glob);
  }
  for (int j = 0; rc == 0 && j < npw; j++) {
    if (paired[j])
      continue;
    classify(&pw[j], c->name);
    rc = offer(s, &pw[j], glob);
  }
  free(pw);
  free(paired);
  return rc;
}

/* Whether chip C has a Grace rail, by its power<i>_oem_info files; files
 * that cannot be read are taken as absent. */
static int has_grace_rail(const struct chip *c)
{
  char buf[TEXT_MAX], file[64];
  int emax, pmax, socket;

  max_indices(c, &emax, &pmax);
  for (int j = 1; j <= pmax; j++) {
    snprintf(file, sizeof file, "power%d_oem_info", j);
    if (attr_text(c, buf, sizeof buf, 1, file) == 0 &&
        grace_rail(buf, &socket) >= 0)
      return 1;
  }
  return 0;
}

/* Compare A and B with runs of digits taken as numbers: .../hwmon2 comes
 * before .../hwmon10. */
static int natural_cmp(const char *a, const char *b)
{
  static const char digits[] = "0123456789";

  while (*a != '\0' && *a == *b && strchr(digits, *a) == NULL)
    a++, b++;
  if (*a != '\0' && *b != '\0' && strchr(digits, *a) != NULL &&
      strchr(digits, *b) != NULL) {
    size_t na, nb;
    int d;

    a += strspn(a, "0");
    b += strspn(b, "0");
    na = strspn(a, digits);
    nb = strspn(b, digits);
    if (na != nb)
      return na < nb ? -1 : 1;
    if ((d = strncmp(a, b, na)) != 0)
      return d;
    return natural_cmp(a + na, b + nb);
  }
  return (unsigned char)*a - (unsigned char)*b;
}

static int chip_order(const void *a, const void *b)
{
  return natural_cmp(((const struct chip *)a)->real,
                     ((const struct chip *)b)->real);
}

static void scan_free(struct scan *s)
{
  for (int i = 0; i < s->nchips; i++)
    free(s->chips[i].real);
  free(s->chips);
  free(s->cand);
  memset(s, 0, sizeof *s);
}

/* The chips of the hwmon class into S, in the order of their real paths.
 * 0, or PMON_ENOMETER when there is no class directory. */
static int list_chips(struct scan *s)
{
  char dir[PATH_MAX];
  struct dirent *d;
  DIR *dp;
  int rc = 0;

  snprintf(dir, sizeof dir, "%s/class/hwmon", pmon__sysfs_root());
  if ((dp = opendir(dir)) == NULL)
    return pmon__fail(PMON_ENOMETER, "hwmon: %s: cannot open: %s", dir,
                      strerror(errno));
  while (rc == 0 && (d = readdir(dp)) != NULL) {
    struct chip *c;

    if (strncmp(d->d_name, "hwmon", 5) != 0)
      continue;
    c = realloc(s->chips, (size_t)(s->nchips + 1) * sizeof *c);
    if (c == NULL) {
      rc = pmon__fail(PMON_ENOMEM, "hwmon: out of memory");
      break;
    }
    s->chips = c;
    c = &s->chips[s->nchips];
    memset(c, 0, sizeof *c);
    if ((size_t)snprintf(c->dir, sizeof c->dir, "%s/%s", dir, d->d_name) >=
        sizeof c->dir)
      continue;
    if ((c->real = realpath(c->dir, NULL)) == NULL &&
        (c->real = strdup(c->dir)) == NULL) {
      rc = pmon__fail(PMON_ENOMEM, "hwmon: out of memory");
      break;
    }
    s->nchips++;
    attr_text(c, c->name, sizeof c->name, 1, "name");
  }
  closedir(dp);
  if (rc == 0 && s->nchips > 1)
    qsort(s->chips, (size_t)s->nchips, sizeof *s->chips, chip_order);
  return rc;
}

/*
 * The channels that chip glob CHIPS (NULL or "": the default choice, the
 * power_meter chips and the chips with Grace rails) and label glob GLOB
 * (NULL: each chip's default channels) choose, in the order of the chips
 * and then of their attributes, into S, which scan_free() releases in
 * every case.  0; PMON_ENOMETER when nothing is chosen; or the failure of
 * a file that exists but cannot be read (LENIENT: taken as absent).
 */
static int scan(struct scan *s, const char *chips, const char *glob,
                int lenient)
{
  int any = 0, rc;

  memset(s, 0, sizeof *s);
  if ((rc = list_chips(s)) != 0)
    return rc;
  for (int i = 0; i < s->nchips && rc == 0; i++) {
    const struct chip *c = &s->chips[i];

    if (chips != NULL && chips[0] != '\0'
          ? fnmatch(chips, c->name, 0) != 0
          : strcmp(c->name, "power_meter") != 0 && !has_grace_rail(c))
      continue;
    any = 1;
    rc = chip_channels(s, i, glob, lenient);
  }
  if (rc != 0)
    return rc;
  if (!any && chips != NULL && chips[0] != '\0')
    return pmon__fail(PMON_ENOMETER,
                      "hwmon: %s/class/hwmon: no chip named \"%s\"",
                      pmon__sysfs_root(), chips);
  if (!any)
    return pmon__fail(PMON_ENOMETER,
                      "hwmon: %s/class/hwmon: no ACPI power meter "
                      "(power_meter) and no NVIDIA Grace rail",
                      pmon__sysfs_root());
  if (s->ncand == 0)
    return pmon__fail(PMON_ENOMETER,
                      "hwmon: %s/class/hwmon: %s%s%s: no power or energy "
                      "channel%s%s",
                      pmon__sysfs_root(),
                      chips != NULL && chips[0] != '\0' ? "chips named \""
                                                        : "",
                      chips != NULL && chips[0] != '\0' ? chips
                                                        : "power_meter",
                      chips != NULL && chips[0] != '\0' ? "\"" : "",
                      glob != NULL ? " with a label matching " : "",
                      glob != NULL ? glob : "");
  return 0;
}

/* Append one clause to M's note, "; " between clauses. */
static void note(struct pmon_meter *m, const char *fmt, ...)
  PMON_PRINTF(2, 3);

static void note(struct pmon_meter *m, const char *fmt, ...)
{
  size_t n = strlen(m->note);
  va_list ap;

  if (n > 0 && n + 2 < sizeof m->note) {
    memcpy(m->note + n, "; ", 3);
    n += 2;
  }
  va_start(ap, fmt);
  vsnprintf(m->note + n, sizeof m->note - n, fmt, ap);
  va_end(ap);
}

/* K's name, or for an unlabelled generic channel the file it is read
 * from: "energy<e>" for a counter meter, else "power<p>". */
static void name_of(const struct cand *k, int counter, char *out)
{
  if (k->name[0] != '\0')
    snprintf(out, PMON_CH_NAME_MAX, "%s", k->name);
  else
    snprintf(out, PMON_CH_NAME_MAX, "%s%d", counter ? "energy" : "power",
             counter ? k->e : k->p);
}

/* Append to M's note the names of the N channels K that were left out,
 * with WHY. */
static void note_left_out(struct pmon_meter *m, const struct cand *k, int n,
                          int counter, const char *why)
{
  char list[160] = "", name[PMON_CH_NAME_MAX];
  size_t len = 0;

  for (int i = 0; i < n && len + PMON_CH_NAME_MAX + 8 < sizeof list; i++) {
    name_of(&k[i], counter, name);
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                            i > 0 ? ", " : "", name);
    if (i + 1 < n && len + PMON_CH_NAME_MAX + 8 >= sizeof list)
      snprintf(list + len, sizeof list - len, ", ...");
  }
  note(m, "%d channel%s left out (%s): %s", n, n > 1 ? "s" : "", why, list);
}

/* Whether one of the first N channels K is named NAME. */
static int taken(const struct cand *k, int n, const char *name)
{
  for (int j = 0; j < n; j++)
    if (strcmp(k[j].name, name) == 0)
      return 1;
  return 0;
}

/*
 * What depends on all the N channels K chosen for one meter of S: names
 * for unlabelled channels, unique names, a Grace rail under its socket's
 * Module rail, an amd_energy core's socket, and a whole-node channel
 * (power_meter) that takes every other out of the total.
 */
static void settle(struct pmon_meter *m, struct cand *k, int n,
                   const struct scan *s, int counter)
{
  int node = -1, nodes = 0;

  for (int i = 0; i < n; i++) {
    char base[PMON_CH_NAME_MAX], name[PMON_CH_NAME_MAX];

    name_of(&k[i], counter, base);
    memcpy(name, base, sizeof name);
    for (int d = 2; taken(k, i, name); d++)
      snprintf(name, sizeof name, "%.*s-%d", PMON_CH_NAME_MAX - 12, base, d);
    memcpy(k[i].name, name, sizeof name);
  }
  for (int i = 0; i < n; i++) {
    const struct chip *c = &s->chips[k[i].chip];

    if (k[i].rail == RAIL_GRACE)
      for (int j = 0; j < n; j++)
        if (k[j].rail == RAIL_MODULE && k[j].socket == k[i].socket) {
          k[i].flags &= ~PMON_CH_TOTAL;
          snprintf(k[i].overlaps, sizeof k[i].overlaps, "%s", k[j].name);
        }
    if (strncmp(k[i].name, "core-", 5) == 0 && k[i].domain == PMON_DOM_CPU)
      snprintf(k[i].overlaps, sizeof k[i].overlaps, "%s",
               c->sockets == 1 ? c->socket : "all");
    if (k[i].domain == PMON_DOM_NODE && k[i].rail < 0 && nodes++ == 0)
      node = i;
  }
  if (node < 0)
    return;
  for (int i = 0; i < n; i++)
    if (i != node && (k[i].flags & PMON_CH_TOTAL)) {
      k[i].flags &= ~PMON_CH_TOTAL;
      snprintf(k[i].overlaps, sizeof k[i].overlaps, "%s", k[node].name);
    }
  if (nodes > 1)
    note(m, "%d ACPI power meters: only %s counts toward the total, the "
            "others are taken to overlap it",
         nodes, k[node].name);
}

/* Read channel C's value file into *OUT: microwatts when POWER, else
 * microjoules. */
static int read_value(struct hw_priv *hp, int c, int power, uint64_t *out)
{
  const char *unit = power ? "microwatts" : "microjoules";
  char buf[TEXT_MAX];
  ssize_t n;

  do
    n = hp->pread(hp->fd[c], buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return pmon__fail(PMON_EIO, "hwmon: %s: read: %s", hp->path[c],
                      strerror(errno));
  buf[n] = '\0';
  if (parse_value(buf, (size_t)n, out) != 0)
    return format_fail(hp->path[c], buf, (size_t)n, unit);
  if (power && (double)*out * MICRO > WATTS_MAX)
    return pmon__fail(PMON_EFORMAT,
                      "hwmon: %s: %llu microwatts: implausible, more than "
                      "%g W",
                      hp->path[c], (unsigned long long)*out, WATTS_MAX);
  return 0;
}

static void hw_close(struct pmon_meter *m)
{
  struct hw_priv *hp = m->priv;

  for (int c = 0; c < PMON_CH_MAX; c++)
    if (hp->fd[c] >= 0) {
      close(hp->fd[c]);
      hp->fd[c] = -1;
    }
}

/* Open the value files of the N channels K (COUNTER: energy, else power)
 * as M's channels, and check that each parses.  On failure the caller
 * closes what was opened. */
static int add_channels(struct pmon_meter *m, struct hw_priv *hp,
                        const struct scan *s, const struct cand *k, int n,
                        int counter)
{
  uint64_t v;
  int rc;

  for (int i = 0; i < n; i++) {
    const struct chip *c = &s->chips[k[i].chip];
    int found = counter ? attr_find(c, hp->path[i], sizeof hp->path[i],
                                    "energy%d_input", k[i].e)
                        : attr_find(c, hp->path[i], sizeof hp->path[i],
                                    k[i].p_avg ? "power%d_average"
                                               : "power%d_input",
                                    k[i].p);

    if (!found)
      return pmon__fail(PMON_ENOMETER, "hwmon: %s: %s%d: gone", c->dir,
                        counter ? "energy" : "power", counter ? k[i].e
                                                              : k[i].p);
    if ((hp->fd[i] = open(hp->path[i], O_RDONLY | O_CLOEXEC)) < 0)
      return open_fail(hp->path[i], errno);
    pmon__meter_add_channel(m, k[i].name, k[i].domain, k[i].flags,
                            counter ? MICRO : 1.0, 0);
    memcpy(m->ch[i].overlaps, k[i].overlaps, sizeof m->ch[i].overlaps);
    if ((rc = read_value(hp, i, !counter, &v)) != 0)
      return rc;
  }
  return 0;
}

/* Whether a channel before K[I] has the name of K[I]'s chip. */
static int same_chip_before(const struct scan *s, const struct cand *k,
                            int i)
{
  for (int j = 0; j < i; j++)
    if (strcmp(s->chips[k[j].chip].name, s->chips[k[i].chip].name) == 0)
      return 1;
  return 0;
}

/*
 * Make M's channels from the channels S chose: the first PMON_CH_MAX;
 * counters when each has an energy file, else power, without those that
 * have none; its interval, source and note.  INTERVAL is interval= (0
 * when absent).
 */
static int build(struct pmon_meter *m, struct hw_priv *hp, struct scan *s,
                 double interval, double window)
{
  struct cand *k = s->cand;
  int n = s->ncand < PMON_CH_MAX ? s->ncand : PMON_CH_MAX;
  int counter = 1, energies = 0, kept = 0, rc;
  double avg = 0;

  for (int i = 0; i < n; i++) {
    counter &= k[i].e > 0;
    energies += k[i].e > 0;
  }
  if (s->ncand > n)
    note_left_out(m, k + n, s->ncand - n, counter,
                  "at most 16 per meter: choose with label=");
  if (!counter) {
    struct cand drop[PMON_CH_MAX];
    int ndrop = 0;

    for (int i = 0; i < n; i++)
      if (k[i].p > 0)
        k[kept++] = k[i];
      else
        drop[ndrop++] = k[i];
    if (ndrop > 0)
      note_left_out(m, drop, ndrop, 0,
                    "energy only, in a meter of power: give them one of "
                    "their own with label=");
    else if (energies > 0)
      note(m, "energy files not used: not every channel has one, so all "
              "are read as power");
    n = kept;
  }
  if (n == 0)
    return pmon__fail(PMON_ENOMETER,
                      "hwmon: no channel both chosen and readable as "
                      "power or energy alone");
  settle(m, k, n, s, counter);
  if ((rc = add_channels(m, hp, s, k, n, counter)) != 0)
    return rc;
  m->flags = (m->flags & ~(unsigned)(PMON_DRV_COUNTER | PMON_DRV_SAMPLED)) |
             (counter ? PMON_DRV_COUNTER : PMON_DRV_SAMPLED);
  for (int i = 0; i < n; i++) {
    const char *chip = s->chips[k[i].chip].name;
    size_t len = strlen(m->source);

    if (!counter && k[i].p_avg && k[i].avg_s > 0 &&
        (avg == 0 || k[i].avg_s < avg))
      avg = k[i].avg_s;
    if (!same_chip_before(s, k, i))
      snprintf(m->source + len, sizeof m->source - len, "%s%s",
               len > 0 ? "," : "", chip[0] != '\0' ? chip : "?");
  }
  /* One averaged channel whose window is long beside a read: each value
   * is its window's energy, read WINDOW_READS times a window to find
   * where the window ended (driver.h, window_s).  Shorter windows, and
   * several channels (which a driver renews each at its own time), are
   * read once a window and taken as powers. */
  if (!counter && n == 1 && window > 0)
    m->window_s = window;
  else if (!counter && n == 1 && window < 0 && avg >= WINDOW_MIN_S)
    m->window_s = avg;
  if (interval > 0)
    m->interval_s = interval;
  else if (counter)
    m->interval_s = COUNTER_S;
  else if (m->window_s > 0)
    m->interval_s = m->window_s / WINDOW_READS > WINDOW_READ_MIN_S
                      ? m->window_s / WINDOW_READS
                      : WINDOW_READ_MIN_S;
  else
    m->interval_s = avg <= 0 ? SAMPLED_S
                             : avg < AVERAGE_MIN_S ? AVERAGE_MIN_S : avg;
  /* Energy counters move continuously while the chip is powered
   * (amd_energy at each read), but some chips' drivers refresh them only
   * once a second (occ caches a second): none moving for three seconds,
   * or five readings when they are further apart, is a frozen chip.  A
   * power file that repeats its value cannot be told from a constant
   * load: no limit. */
  if (counter)
    m->stale_s = STALE_READINGS * m->interval_s > STALE_MIN_S
                   ? STALE_READINGS * m->interval_s
                   : STALE_MIN_S;
  return 0;
}

static int hw_open(struct pmon_meter *m)
{
  static const char *const keys[] = {"label", "interval", "window", NULL};
  struct hw_priv *hp = m->priv;
  struct scan s;
  double interval, window;
  int rc;

  for (int c = 0; c < PMON_CH_MAX; c++)
    hp->fd[c] = -1;
  hp->pread = pread;
  if ((rc = pmon__spec_check_keys(&m->spec, keys)) != 0 ||
      (rc = pmon__spec_double(&m->spec, "interval", 0, 0.01, 3600,
                              &interval)) != 0 ||
      (rc = pmon__spec_double(&m->spec, "window", -1, 0, 3600, &window)) !=
        0)
    return rc;
  rc = scan(&s, m->spec.path, pmon__spec_get(&m->spec, "label"), 0);
  if (rc == 0)
    rc = build(m, hp, &s, interval, window);
  scan_free(&s);
  if (rc != 0)
    hw_close(m);
  return rc;
}

static int hw_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct hw_priv *hp = m->priv;
  int counter = (m->flags & PMON_DRV_COUNTER) != 0, same = hp->primed;
  uint64_t v[PMON_CH_MAX];
  int rc;

  for (int c = 0; c < m->nch; c++) {
    if ((rc = read_value(hp, c, !counter, &v[c])) != 0)
      return rc;
    if (counter) {
      r->raw[c] = v[c];
      same &= v[c] == hp->prev[c];
    } else {
      r->watts[c] = (double)v[c] * MICRO;
    }
  }
  if (counter) {
    /* No counter moved: nothing new since the previous reading. */
    r->stale = same;
    memcpy(hp->prev, v, (size_t)m->nch * sizeof v[0]);
    hp->primed = 1;
  }
  return 0;
}

/* "auto": the default choice, and only when it holds a whole node (an
 * ACPI power meter) or a whole module (a Grace Hopper Module rail).  It
 * opens no value file. */
static int hw_probe(const struct pmon_spec *spec)
{
  struct scan s;
  int rc = scan(&s, spec->path, NULL, 1), found = 0;

  for (int i = 0; rc == 0 && i < s.ncand; i++)
    found |= s.cand[i].domain == PMON_DOM_NODE ||
             s.cand[i].domain == PMON_DOM_MODULE;
  scan_free(&s);
  if (rc == 0 && !found)
    rc = pmon__fail(PMON_ENOMETER,
                    "hwmon: %s/class/hwmon: Grace rails but no Module "
                    "rail: they do not cover the node, name hwmon in "
                    "PMON_METERS to use them",
                    pmon__sysfs_root());
  return rc;
}

const struct pmon_driver pmon__driver_hwmon = {
  .name = "hwmon", /* MUST: PMON_METERS=hwmon[:CHIP][?label=GLOB] */
  .description = "Linux hwmon power and energy: ACPI power meter, "
                 "NVIDIA Grace, amd_energy", /* MUST */
  /* MUST.  COUNTER: energy files; open() switches to SAMPLED when the
   * channels chosen have only power files. */
  .flags = PMON_DRV_COUNTER,
  .priv_size = sizeof(struct hw_priv), /* MAY */
  .interval_s = COUNTER_S,             /* MUST; open() may change it */
  .probe = hw_probe,                   /* MAY: auto */
  .open = hw_open,                     /* MUST */
  .read = hw_read,                     /* MUST */
  .close = hw_close,                   /* MAY */
};

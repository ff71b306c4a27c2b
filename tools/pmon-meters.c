/*
 * pmon-meters - the meters this node would use, their channels and live
 * readings, and why a meter is missing: pmon-meters [options].
 *
 * It chooses the meters the way the node leader of a job does
 * (lib/meter.c): the meters PMON_METERS (or -m) names; or, with "auto",
 * the site file's meters for this node, then the first driver that auto
 * detection finds, then the estimate when no meter opened.  It uses the
 * library's own code for all of it (pmon__meters_parse(), the site file,
 * the drivers' probe and open), so that what it says is what a job does.
 * A meter that cannot be used is shown with the driver's one-line reason
 * and a hint for the administrator drawn from it.
 *
 * Secrets: only the redacted text of a specification (struct pmon_spec's
 * text and path), the site file's patterns and the drivers' messages are
 * printed; the secrets reach the driver's open() and nothing else.
 *
 * Exit status: 0 when the node's energy can be measured by the meters
 * asked for: a measured (not estimated) meter in the node's total works;
 * 1 when it cannot (only the estimate, meters outside the total such as
 * a psys alone, or nothing), 2 on a usage error or a configuration that
 * a job would refuse (PMON_ECONFIG).  pmon-meters(1).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "pmon-meters.h"
#include "tty.h"

#define PROG "pmon-meters"
#define WHY_MAX 512     /* a driver's message, as pmon_errmsg() holds it */
#define PATTERNS_MAX 8  /* site file lines named when none matches */
#define MAX_TIME_S 1e6  /* -t and -i: at most about eleven days */

/* Exit statuses. */
enum { EXIT_MEASURED = 0, EXIT_UNMEASURED = 1, EXIT_CONFIG = 2 };


/*
 * A meter's readings in the window being measured.  Counter meters: the
 * power is the rise of the counts from the window's base (the last new
 * reading of the window before) to its last new reading, over the time
 * between them; a reading is stamped with the time it was taken, and a
 * value the driver marks stale keeps the time of the reading that first
 * saw it.  Sampled meters: the mean of the window's new readings.
 *
 * The very first reading may show a value published some time before it
 * was read, which only a driver that marks stale readings can say.  So
 * it is the base only for a driver that never did; for the others the
 * first new reading after it is.
 */
struct window {
  uint64_t due_ns;            /* next reading */
  int primed;                 /* a first reading exists */
  int base_uncertain;         /* the base is that first reading */
  int saw_stale;              /* the driver marked a reading stale */
  int have_first, have_last;
  uint64_t base_ns, first_ns, last_ns;
  uint64_t base_raw[PMON_CH_MAX], first_raw[PMON_CH_MAX];
  uint64_t last_raw[PMON_CH_MAX];
  double sum_w[PMON_CH_MAX];
  int nsum;
  int went_back;              /* counters went back: no figure */
  int failing;                /* in a run of failed reads */
  unsigned long nok, nfail;
  int why_rc;
  char why[WHY_MAX];          /* the last failed read's message */
};

/* One meter of the node's list. */
struct entry {
  struct pmon_spec spec;      /* as listed: its text holds no secret */
  enum source source;
  int line;                   /* SRC_SITE: the line of the site file */
  struct pmon_meter m;        /* when open: a copy of spec, with secrets */
  int open;
  int rc;                     /* open()'s error when not open */
  char why[WHY_MAX];          /* ... and its message */
  struct window w;
  double watts[PMON_CH_MAX];  /* the last window's figures */
  int have_watts;
};

/* What auto detection did with one driver. */
enum tried_what {
  T_EXTERNAL,   /* not probed: a device outside the node */
  T_NOT_FOUND,  /* probe() said no */
  T_OPEN_FAILED,
  T_USED,
  T_PASSED_OVER, /* opened, but cannot be the node's source */
  T_NOT_TRIED,  /* an earlier driver was chosen */
  T_FALLBACK_USED,
  T_FALLBACK_UNUSED
};

struct tried {
  const struct pmon_driver *drv;
  enum tried_what what;
  int rc;
  int meter;                  /* T_USED, T_FALLBACK_USED: its number */
  char why[WHY_MAX];
};

/* The site file's meter lines, as seen while looking for this node's. */
struct site_seen {
  int nlines, nmatch;
  int line[PATTERNS_MAX];
  char pattern[PATTERNS_MAX][64];
};

/* Everything this run found, in the order it is printed. */
struct node {
  char name[256];
  int automatic;
  int nentries;
  struct entry entries[PMON_METER_MAX];
  int ntried;
  struct tried tried[32];
  struct site_seen site;
  int site_rc;
  char site_why[WHY_MAX];
  int total;                  /* the first entry in the node total, or -1 */
  uint32_t mask[PMON_METER_MAX]; /* per entry, its channels in the total */
  unsigned covers;            /* what the total covers (pmon__total_plan) */
  int config_error;           /* a job would refuse this configuration */
};

struct options {
  const char *meters;   /* -m LIST, or NULL for PMON_METERS */
  double time_s;        /* -t: live readings for that long, 0 until
                           interrupted; < 0: one reading */
  double interval_s;    /* -i: one reading per that many seconds; 0: the
                           longest meter interval, at least 1 s */
  int list_only;        /* -l */
  int drivers;          /* -d */
  int calibrate;        /* --calibrate-clock */
  const char *output;   /* -o: its file */
  int points;           /* --points: its limits */
  int part;             /* --part: CPUs capped alone; -1: half */
};

/* Set by SIGINT and SIGTERM (with --calibrate-clock, by every signal
 * that would end the program): the only thing their handler touches. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
  (void)sig;
  interrupted = 1;
}

/* A fault during --calibrate-clock: the clock put back, then the signal's
 * own end (the action is reset: SA_RESETHAND). */
static void on_fault(int sig)
{
  meters_calibrate_restore_now();
  raise(sig);
}

/* SIG's action, unless the program was started with it ignored (nohup's
 * SIGHUP stays ignored). */
static void take(int sig, const struct sigaction *sa)
{
  struct sigaction old;

  if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
    sigaction(sig, sa, NULL);
}

/* --calibrate-clock's signals: each that would end the program ends the
 * run, which puts the clock back; a closed pipe is an output error. */
static void calibration_signals(void)
{
  static const int ending[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
                               SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                               SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
                               SIGSTKFLT,
#endif
                               SIGTRAP};
  static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
                               SIGSYS};
  struct sigaction sa;

  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_signal;
  for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++)
    take(ending[i], &sa);
  for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
    take(s, &sa);
  sa.sa_handler = on_fault;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    take(faults[i], &sa);
  signal(SIGPIPE, SIG_IGN);
}

/* ---- Output helpers ---------------------------------------------------- */

/* The reason the library recorded for RC, without its "pmon: " prefix
 * (the tool's lines are indented under the meter they are about). */
static const char *why_of(int rc)
{
  const char *m = pmon_errmsg();

  if (m[0] == '\0')
    return pmon_strerror(rc);
  return strncmp(m, "pmon: ", 6) == 0 ? m + 6 : m;
}

/* A field whose text is printed on one line, escaped for a terminal. */
PMON_PRINTF(2, 3)
static void field(const char *label, const char *fmt, ...)
{
  char text[WHY_MAX + PMON_SPEC_MAX];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  printf("  %-*s %s\n", METERS_INDENT - 3, label, meters_tty(text));
}

static const char *domain_name(enum pmon_domain d)
{
  switch (d) {
  case PMON_DOM_NODE:
    return "node";
  case PMON_DOM_CPU:
    return "cpu";
  case PMON_DOM_MEMORY:
    return "memory";
  case PMON_DOM_ACCEL:
    return "accel";
  case PMON_DOM_MODULE:
    return "module";
  default:
    return "other";
  }
}

/* "counter, measured" or "sampled, measured, external", for FLAGS. */
static const char *kind_text(unsigned flags, char *buf, size_t size)
{
  snprintf(buf, size, "%s, %s%s",
           flags & PMON_DRV_COUNTER ? "counter" : "sampled",
           flags & PMON_DRV_ESTIMATED ? "estimated" : "measured",
           flags & PMON_DRV_EXTERNAL ? ", external" : "");
  return buf;
}

/* How auto detection treats DRV, in a word. */
static const char *found_by(const struct pmon_driver *drv)
{
  if (drv->flags & PMON_DRV_ESTIMATED)
    return "fallback";
  if (drv->flags & PMON_DRV_EXTERNAL)
    return "named";
  return "auto";
}

/* ---- Choosing and opening the meters ---------------------------------- */

/* Open E's specification into E->m, with the site file's secrets, the
 * way the library's open_one() does.  0, or the driver's error with its
 * message in E->why. */
static int entry_open(struct entry *e)
{
  const struct pmon_driver *drv;
  int rc;

  pmon__clear_error();
  if ((rc = pmon__meter_prepare(&e->m, &e->spec)) == 0) {
    drv = e->m.drv;
    if (drv->priv_size > 0 &&
        (e->m.priv = calloc(1, drv->priv_size)) == NULL)
      rc = pmon__fail(PMON_ENOMEM, "%s: out of memory", e->spec.text);
    else if ((rc = drv->open(&e->m)) != 0) {
      free(e->m.priv);
      e->m.priv = NULL;
    }
  }
  e->rc = rc;
  e->open = rc == 0;
  if (rc != 0)
    snprintf(e->why, sizeof e->why, "%s",
             why_of(rc));
  return rc;
}

static void entry_close(struct entry *e)
{
  if (e->open && e->m.drv->close != NULL)
    e->m.drv->close(&e->m);
  free(e->m.priv);
  e->m.priv = NULL;
  e->open = 0;
}

/* Add SPEC to N's meters and open it.  A PMON_ECONFIG from a meter that
 * a job must open (all but those auto detection tries) is a configuration
 * a job refuses. */
static struct entry *add_entry(struct node *n, const struct pmon_spec *spec,
                               enum source source, int line)
{
  struct entry *e = &n->entries[n->nentries++];

  memset(e, 0, sizeof *e);
  e->spec = *spec;
  e->source = source;
  e->line = line;
  if (entry_open(e) == PMON_ECONFIG && source != SRC_AUTO)
    n->config_error = 1;
  return e;
}

static void site_line_seen(void *arg, int lineno, const char *pattern,
                           int match)
{
  struct site_seen *s = arg;

  if (match)
    s->nmatch++;
  else if (s->nlines - s->nmatch < PATTERNS_MAX) {
    int k = s->nlines - s->nmatch;

    s->line[k] = lineno;
    snprintf(s->pattern[k], sizeof s->pattern[k], "%s", pattern);
  }
  s->nlines++;
}

/* "auto": the site file's meters for this node, then the first driver of
 * the whole node whose probe and open succeed, else every driver of parts
 * of the node that does, else the estimate; as open_auto() does. */
static void choose_auto(struct node *n)
{
  struct pmon_spec site[PMON_METER_MAX - 1], spec;
  int lines[PMON_METER_MAX - 1], nsite = 0, chosen = 0, measured;

  pmon__clear_error();
  n->site_rc = pmon__site_meters_lines(n->name, site, lines,
                                       PMON_METER_MAX - 1, &nsite,
                                       site_line_seen, &n->site);
  if (n->site_rc != 0) {
    snprintf(n->site_why, sizeof n->site_why, "%s", why_of(n->site_rc));
    n->config_error = 1;
    nsite = 0; /* a job stops here: pmon_init fails */
  }
  for (int i = 0; i < nsite; i++)
    add_entry(n, &site[i], SRC_SITE, lines[i]);
  for (int i = 0; pmon__drivers[i] != NULL; i++) {
    const struct pmon_driver *drv = pmon__drivers[i];
    struct entry *e;
    struct tried *t;

    if (n->ntried == (int)(sizeof n->tried / sizeof n->tried[0]))
      break;
    t = &n->tried[n->ntried++];
    memset(t, 0, sizeof *t);
    t->drv = drv;
    if (drv->flags & PMON_DRV_ESTIMATED) {
      t->what = T_FALLBACK_UNUSED;
      continue;
    }
    if (drv->flags & PMON_DRV_EXTERNAL) {
      t->what = T_EXTERNAL;
      continue;
    }
    if (chosen & 1) { /* a whole-node meter: nothing else is tried (the
                         table lists those drivers first) */
      t->what = T_NOT_TRIED;
      continue;
    }
    pmon__spec_parse(drv->name, &spec);
    pmon__clear_error();
    if (drv->probe != NULL && (t->rc = drv->probe(&spec)) != 0) {
      t->what = T_NOT_FOUND;
      snprintf(t->why, sizeof t->why, "%s", why_of(t->rc));
      continue;
    }
    if (n->nentries == PMON_METER_MAX)
      break;
    e = add_entry(n, &spec, SRC_AUTO, 0);
    if (e->open && pmon__meter_vet(&e->m, t->why, sizeof t->why) != 0) {
      entry_close(e);
      n->nentries--;
      t->what = T_PASSED_OVER;
    } else if (e->open) {
      t->what = T_USED;
      t->meter = n->nentries;
      chosen |= (drv->flags & PMON_DRV_PART) ? 2 : 1;
    } else {
      e = &n->entries[--n->nentries];
      t->what = T_OPEN_FAILED;
      t->rc = e->rc;
      memcpy(t->why, e->why, sizeof t->why);
    }
  }
  measured = 0;
  for (int i = 0; i < n->nentries; i++)
    measured |= n->entries[i].open;
  if (measured || n->nentries == PMON_METER_MAX)
    return;
  pmon__spec_parse("estimate", &spec);
  add_entry(n, &spec, SRC_FALLBACK, 0);
  for (int i = 0; i < n->ntried; i++)
    if (n->tried[i].drv->flags & PMON_DRV_ESTIMATED) {
      struct tried *t = &n->tried[i];
      const struct entry *e = &n->entries[n->nentries - 1];

      t->what = e->open ? T_FALLBACK_USED : T_OPEN_FAILED;
      t->meter = n->nentries;
      t->rc = e->rc;
      memcpy(t->why, e->why, sizeof t->why);
    }
}

/* The node total, as pmon__meters_open() forms it: N's mask and covers,
 * and the first entry in it, or -1. */
static int total_entry(struct node *n)
{
  const struct pmon_meter *m[PMON_METER_MAX];
  static const struct pmon_meter none; /* an entry that did not open */
  int first = -1;

  for (int i = 0; i < n->nentries; i++)
    m[i] = n->entries[i].open ? &n->entries[i].m : &none;
  n->covers = pmon__total_plan(m, n->nentries, n->mask);
  for (int i = n->nentries - 1; i >= 0; i--)
    if (n->mask[i] != 0)
      first = i;
  return first;
}

/* ---- The listing ------------------------------------------------------- */

static void show_site(const struct node *n)
{
  int dflt;
  const char *path = pmon__site_path(&dflt);
  const struct site_seen *s = &n->site;
  struct stat st;
  char lines[512] = "";

  if (!n->automatic) {
    meters_wrapf("site file:", "%s%s: not read for meters, which PMON_METERS "
          "names; a meter's secret=NAME still reads its secrets there",
          path, dflt ? " (the default)" : "");
    return;
  }
  if (n->site_rc != 0) {
    meters_wrapf("site file:", "%s: refused, so a job on this node does not "
          "start:", path);
    printf("%*s%s\n", METERS_INDENT, "", meters_tty(n->site_why));
    if (meters_has(n->site_why, "readable by others"))
      meters_wrapf("fix:", "a site file with secrets must be readable by its "
            "owner only: chmod 600 %s.", path);
    else if (meters_has(n->site_why, "another user"))
      meters_wrapf("fix:", "a site file with secrets must belong to the user "
            "who runs the job. A user keeps a site file of their own, "
            "mode 0600, and names it in PMON_SITE_FILE.");
    else if (meters_has(n->site_why, "cannot read"))
      meters_wrapf("fix:", "PMON_SITE_FILE names a file that cannot be read: "
            "correct it, or unset it for the default.");
    else
      meters_wrapf("fix:", "correct the line named, as pmon-site(5) describes.");
    return;
  }
  if (access(path, R_OK) != 0) {
    int e = errno;

    if (e == EACCES && stat(path, &st) == 0) {
      meters_wrapf("site file:", "%s: this user may not read it (mode %04o): its "
            "meters are not used by this user's jobs", path,
            (unsigned)(st.st_mode & 07777));
      meters_wrapf("fix:", "a site file that holds secrets must be mode 0600 and "
            "belong to the user who runs the job, so a shared one cannot "
            "hold them. An administrator can keep the secrets out of it "
            "and make it readable (mode 0644), or a user can keep a site "
            "file of their own, mode 0600, named in PMON_SITE_FILE.");
    } else {
      meters_wrapf("site file:", "%s%s: none. Meters outside the node (a PDU "
            "outlet, the BMC, a multimeter) are used only when a site file "
            "or PMON_METERS names them (pmon-site(5)).",
            path, dflt ? " (the default)" : "");
    }
    return;
  }
  if (s->nmatch > 0) {
    int k = 0;

    for (int i = 0; i < n->nentries; i++)
      if (n->entries[i].source == SRC_SITE)
        snprintf(lines + strlen(lines), sizeof lines - strlen(lines),
                 "%s%d", k++ > 0 ? ", " : "", n->entries[i].line);
    meters_wrapf("site file:", "%s: %d of its %d meter lines for %s (line%s %s)",
          path, s->nmatch, s->nlines, n->name, s->nmatch > 1 ? "s" : "",
          lines);
    return;
  }
  for (int k = 0; k < s->nlines && k < PATTERNS_MAX; k++)
    snprintf(lines + strlen(lines), sizeof lines - strlen(lines),
             "%s%s (line %d)", k > 0 ? ", " : "", s->pattern[k], s->line[k]);
  if (s->nlines == 0)
    meters_wrapf("site file:", "%s: no meter lines: no outlet, BMC or multimeter "
          "is mapped to any node", path);
  else if (n->total >= 0 &&
           !(n->entries[n->total].m.flags & PMON_DRV_ESTIMATED))
    meters_wrapf("site file:", "%s: no meter line for %s (%d for other nodes)",
          path, n->name, s->nlines);
  else
    meters_wrapf("site file:", "%s: no meter line for %s: its %d pattern%s %s%s "
          "match%s other nodes", path, n->name, s->nlines,
          s->nlines > 1 ? "s" : "", lines,
          s->nlines > PATTERNS_MAX ? ", ..." : "",
          s->nlines > 1 ? "" : "es");
  if (n->total >= 0 && !(n->entries[n->total].m.flags & PMON_DRV_ESTIMATED))
    return; /* measured without: the mapping is not missed */
  meters_wrapf("fix:", "no outlet mapping: no meter outside the node is named for "
        "%s. An administrator adds a line for it to %s (pmon-site(5)), "
        "for example\n"
        "  meter  %s  eaton://PDU/outlet/N?secret=NAME\n"
        "If the file knows this node by another name, set PMON_NODE to it.",
        n->name, path, n->name);
}

static const char *source_text(const struct entry *e, char *buf,
                               size_t size)
{
  int dflt;

  switch (e->source) {
  case SRC_ENV:
    return "PMON_METERS";
  case SRC_OPTION:
    return "-m";
  case SRC_SITE:
    snprintf(buf, size, "site file %s, line %d", pmon__site_path(&dflt),
             e->line);
    return buf;
  case SRC_AUTO:
    return "auto-detected";
  default:
    return "the fallback: no measured meter opened";
  }
}

static void show_entry(const struct node *n, int i)
{
  const struct entry *e = &n->entries[i];
  const struct pmon_driver *drv = pmon__driver_find(e->spec.driver);
  char buf[PMON_SPEC_MAX + 64];

  printf("\nmeter %d: %s\n", i + 1, meters_tty(e->spec.text));
  field("driver:", "%s: %s", drv->name, drv->description);
  field("kind:", "%s",
        kind_text(e->open ? e->m.flags : drv->flags, buf, sizeof buf));
  field("interval:", "%.3g s", e->open ? e->m.interval_s : drv->interval_s);
  if (e->open && e->m.window_s > 0)
    field("window:", "%.3g s: each value is the mean power over it",
          e->m.window_s);
  field("source:", "%s", source_text(e, buf, sizeof buf));
  if (!e->open) {
    field("status:", "not usable: %s", e->why);
    meters_hint(e->rc, e->why, &e->spec, e->source);
    return;
  }
  if (e->m.source[0] != '\0')
    field("read through:", "%s", e->m.source);
  if (e->m.note[0] != '\0')
    meters_wrapf("note:", "%s", e->m.note);
  if (e->m.accuracy_from != NULL)
    field("accuracy:", "+-(%.3g %% + %.3g W) of a reading (%s)",
          100 * e->m.accuracy_rel, e->m.accuracy_w, e->m.accuracy_from);
  else
    field("accuracy:", "not stated (accuracy=R%%+AW in the specification "
          "states it)");
  field("channels:", "%d", e->m.nch);
  for (int c = 0; c < e->m.nch; c++) {
    const struct pmon_channel *ch = &e->m.ch[c];
    const char *total = "not in the node total";

    if (n->mask[i] & (1u << c))
      total = "in the node total";
    else if (ch->overlaps[0] != '\0')
      snprintf(buf, sizeof buf, "not in the node total (inside %s)",
               ch->overlaps), total = buf;
    else if ((ch->flags & PMON_CH_TOTAL) && n->total >= 0)
      snprintf(buf, sizeof buf,
               "not in the node total (meter %d measures that part)",
               n->total + 1), total = buf;
    printf("    %-12s %-8s %s\n", meters_tty(ch->name), domain_name(ch->domain),
           meters_tty(total));
  }
}

static void show_tried(const struct node *n)
{
  char what[64];

  printf("\nauto detection, in the order it tries the drivers:\n");
  for (int i = 0; i < n->ntried; i++) {
    const struct tried *t = &n->tried[i];
    struct pmon_spec spec;

    switch (t->what) {
    case T_EXTERNAL:
      meters_wrapf(t->drv->name, "not probed: outside the node, it is used when "
            "the site file or PMON_METERS names it");
      break;
    case T_NOT_FOUND:
    case T_OPEN_FAILED:
      printf("  %-*s %s: %s\n", METERS_INDENT - 3, t->drv->name,
             t->what == T_NOT_FOUND ? "not found" : "found, cannot open",
             meters_tty(t->why));
      pmon__spec_parse(t->drv->name, &spec);
      meters_hint(t->rc, t->why, &spec, SRC_AUTO);
      break;
    case T_USED:
      snprintf(what, sizeof what, "used: meter %d", t->meter);
      meters_wrap(t->drv->name, what);
      break;
    case T_PASSED_OVER: /* "rapl: only psys, ...: not used" */
      meters_wrap(t->drv->name, t->why + strlen(t->drv->name) + 2);
      break;
    case T_NOT_TRIED:
      meters_wrap(t->drv->name, "not tried: auto uses the first driver it finds");
      break;
    case T_FALLBACK_USED:
      snprintf(what, sizeof what, "used: meter %d, no measured meter "
               "opened", t->meter);
      meters_wrap(t->drv->name, what);
      break;
    case T_FALLBACK_UNUSED:
      meters_wrap(t->drv->name, "not used: a measured meter opened");
      break;
    }
  }
}

/* ---- Readings ------------------------------------------------------- */

static void sleep_until(uint64_t t_ns)
{
  while (!interrupted) {
    uint64_t now = pmon__now_ns();
    struct timespec ts;

    if (now >= t_ns)
      return;
    ts.tv_sec = (time_t)((t_ns - now) / 1000000000u);
    ts.tv_nsec = (long)((t_ns - now) % 1000000000u);
    nanosleep(&ts, NULL);
  }
}

/* Take one reading of E into its window; LIVE: say so when a meter starts
 * or stops failing. */
static void read_one(struct entry *e, int idx, int live)
{
  struct window *w = &e->w;
  struct pmon_reading r;
  uint64_t t0, t1, t;
  int rc;

  memset(&r, 0, sizeof r);
  pmon__clear_error();
  t0 = pmon__now_ns();
  rc = e->m.drv->read(&e->m, &r);
  t1 = pmon__now_ns();
  t = t0 + (t1 - t0) / 2;
  if (rc != 0) {
    w->nfail++;
    w->why_rc = rc;
    snprintf(w->why, sizeof w->why, "%s",
             why_of(rc));
    if (live && !w->failing)
      printf("meter %d: read failed: %s\n", idx + 1, meters_tty(w->why));
    w->failing = 1;
    return;
  }
  if (live && w->failing)
    printf("meter %d: reading again after %lu failed reads\n", idx + 1,
           w->nfail);
  w->failing = 0;
  w->nok++;
  if (r.events & PMON_EV_RESET)
    w->went_back = 1;
  if (!(e->m.flags & PMON_DRV_COUNTER)) {
    if (w->primed && r.stale)
      return;
    w->primed = 1;
    for (int c = 0; c < e->m.nch; c++)
      w->sum_w[c] += r.watts[c];
    w->nsum++;
    return;
  }
  if (!w->primed) {
    w->primed = w->base_uncertain = 1;
    w->base_ns = t;
    memcpy(w->base_raw, r.raw, sizeof r.raw);
    return;
  }
  if (r.stale) {
    w->saw_stale = 1;
    return;
  }
  if (w->base_uncertain && !w->have_first) {
    w->have_first = 1;
    w->first_ns = t;
    memcpy(w->first_raw, r.raw, sizeof r.raw);
  }
  w->have_last = 1;
  w->last_ns = t;
  memcpy(w->last_raw, r.raw, sizeof r.raw);
}

/* Turn E's window into watts per channel in E->watts and start the next
 * window; 0 when the window gives no figure. */
static int close_window(struct entry *e)
{
  struct window *w = &e->w;
  int ok = 0;

  if (e->m.flags & PMON_DRV_COUNTER) {
    if (w->base_uncertain && w->saw_stale && w->have_first) {
      /* The first new value has a time; the first reading's had not. */
      w->base_ns = w->first_ns;
      memcpy(w->base_raw, w->first_raw, sizeof w->base_raw);
    }
    if (w->have_first)
      w->base_uncertain = 0;
    if (w->primed && w->have_last && w->last_ns > w->base_ns) {
      double dt = (double)(w->last_ns - w->base_ns) * 1e-9;

      ok = 1;
      for (int c = 0; c < e->m.nch; c++) {
        uint64_t prev = w->base_raw[c], now = w->last_raw[c], d;

        if (now >= prev)
          d = now - prev;
        else if (e->m.ch[c].range != 0 && prev < e->m.ch[c].range)
          d = e->m.ch[c].range - prev + now; /* wrapped */
        else
          ok = 0, d = 0; /* restarted: nothing to say */
        e->watts[c] = (double)d * e->m.ch[c].scale / dt;
      }
      if (w->went_back)
        ok = 0;
      w->base_ns = w->last_ns;
      memcpy(w->base_raw, w->last_raw, sizeof w->base_raw);
      w->have_last = 0;
    }
  } else if (w->nsum > 0) {
    ok = 1;
    for (int c = 0; c < e->m.nch; c++)
      e->watts[c] = w->sum_w[c] / w->nsum;
    memset(w->sum_w, 0, sizeof w->sum_w);
    w->nsum = 0;
  }
  w->went_back = 0;
  e->have_watts = ok;
  return ok;
}

/*
 * Read every open meter, each at its own interval, until END_NS: the
 * meters are read one after the other, so a slow one delays the others.
 */
static void read_until(struct node *n, uint64_t end_ns, int live)
{
  while (!interrupted) {
    struct entry *next = NULL;
    int idx = -1;

    for (int i = 0; i < n->nentries; i++) {
      struct entry *e = &n->entries[i];

      if (e->open && (next == NULL || e->w.due_ns < next->w.due_ns))
        next = e, idx = i;
    }
    if (next == NULL || next->w.due_ns > end_ns)
      break;
    sleep_until(next->w.due_ns);
    if (interrupted)
      break;
    read_one(next, idx, live);
    next->w.due_ns += (uint64_t)(next->m.interval_s * 1e9);
    if (next->w.due_ns <= pmon__now_ns()) /* late: no catching up */
      next->w.due_ns = pmon__now_ns() + (uint64_t)(next->m.interval_s * 1e9);
  }
  sleep_until(end_ns);
}

/* The node total of the last window, or NAN. */
static double node_total(const struct node *n)
{
  double sum = 0;

  for (int i = 0; i < n->nentries; i++) {
    const struct entry *e = &n->entries[i];

    if (n->mask[i] != 0 && !e->have_watts)
      return NAN;
    for (int c = 0; c < e->m.nch; c++)
      if (n->mask[i] & (1u << c))
        sum += e->watts[c];
  }
  return n->total >= 0 ? sum : NAN;
}

static void show_readings(const struct node *n, double window_s)
{
  printf("\nreadings over %.3g s:\n", window_s);
  for (int i = 0; i < n->nentries; i++) {
    const struct entry *e = &n->entries[i];

    if (!e->open) {
      printf("  meter %d: not usable (see above)\n", i + 1);
      continue;
    }
    printf("  meter %d: %s\n", i + 1, meters_tty(e->spec.text));
    if (e->w.nfail > 0 && e->w.nok == 0) {
      printf("    read failed: %s\n", meters_tty(e->w.why));
      meters_hint(e->w.why_rc, e->w.why, &e->spec, e->source);
      continue;
    }
    for (int c = 0; c < e->m.nch; c++) {
      if (e->have_watts)
        printf("    %-12s %10.1f W\n", meters_tty(e->m.ch[c].name),
               e->watts[c]);
      else
        printf("    %-12s %10s W\n", meters_tty(e->m.ch[c].name), "-");
    }
    if (!e->have_watts)
      printf("    no figure: %s\n",
             e->w.nfail > 0 ? meters_tty(e->w.why)
                            : "no new value in the time (a longer -i?)");
  }
  if (n->total >= 0 && !isnan(node_total(n))) {
    char covers[64];

    /* Filled before the printf that reads it twice: the order in which C
     * evaluates a call's arguments is unspecified. */
    pmon__covers_text(n->covers, covers, sizeof covers);
    printf("  %-14s %10.1f W (%s%s)\n", "node total", node_total(n), covers,
           n->entries[n->total].m.flags & PMON_DRV_ESTIMATED ? ", estimated"
           : strcmp(covers, "node") != 0 ? " only, not the whole node"
                                         : "");
  } else
    printf("  node total: none\n");
}

/* The heading of the live table: "time", then METER:CHANNEL columns. */
static void live_heading(const struct node *n, int *width)
{
  char h[PMON_TTY_SIZE(PMON_CH_NAME_MAX) + 16];
  int k = 0;

  printf("%8s", "time");
  for (int i = 0; i < n->nentries; i++)
    for (int c = 0; n->entries[i].open && c < n->entries[i].m.nch; c++) {
      snprintf(h, sizeof h, "%d:%s", i + 1,
               meters_tty(n->entries[i].m.ch[c].name));
      width[k] = (int)strlen(h) + 2 > 9 ? (int)strlen(h) + 2 : 9;
      printf("%*s", width[k++], h);
    }
  printf("%9s\n", "total");
}

static void live_line(const struct node *n, double t_s, const int *width)
{
  int k = 0;
  double total = node_total(n);

  printf("%6.1f s", t_s);
  for (int i = 0; i < n->nentries; i++)
    for (int c = 0; n->entries[i].open && c < n->entries[i].m.nch; c++) {
      if (n->entries[i].have_watts)
        printf("%*.1f", width[k++], n->entries[i].watts[c]);
      else
        printf("%*s", width[k++], "-");
    }
  if (isnan(total))
    printf("%9s\n", "-");
  else
    printf("%9.1f\n", total);
  fflush(stdout);
}

/* Read the meters: one window of WINDOW_S, or with TIME_S >= 0 one line
 * per window for TIME_S seconds (0: until interrupted). */
static void readings(struct node *n, double window_s, double time_s)
{
  uint64_t start = pmon__now_ns(), win = (uint64_t)(window_s * 1e9);
  int width[PMON_METER_MAX * PMON_CH_MAX];
  int nopen = 0;

  for (int i = 0; i < n->nentries; i++) {
    n->entries[i].w.due_ns = start;
    nopen += n->entries[i].open;
  }
  if (nopen == 0)
    return;
  if (time_s < 0) {
    printf("\nreading for %.3g s...\n", window_s);
    fflush(stdout);
    read_until(n, start + win, 0);
    for (int i = 0; i < n->nentries; i++)
      if (n->entries[i].open)
        close_window(&n->entries[i]);
    show_readings(n, window_s);
    return;
  }
  printf("\nreadings in W, one line per %.3g s", window_s);
  if (time_s > 0)
    printf(" for %.3g s", time_s);
  else
    printf(" until interrupted");
  printf("; columns METER:CHANNEL\n");
  live_heading(n, width);
  for (uint64_t k = 1; !interrupted; k++) {
    if (time_s > 0 && k > 1 && (double)k * window_s > time_s + 1e-9)
      break; /* at least one line */
    read_until(n, start + k * win, 1);
    if (interrupted)
      break;
    for (int i = 0; i < n->nentries; i++)
      if (n->entries[i].open)
        close_window(&n->entries[i]);
    live_line(n, (double)k * window_s, width);
  }
}

/* The node's total power over SECONDS, for meters_calibrate_clock(): the
 * mean of the windows of ARG's WINDOW_S in it, and 1.96 standard errors
 * of that mean (NAN with one window). */
struct power_arg {
  struct node *n;
  double window_s;
};

static int node_power(void *arg, double seconds, double *w, double *err)
{
  const struct power_arg *a = arg;
  uint64_t start = pmon__now_ns(), win = (uint64_t)(a->window_s * 1e9);
  long k = lround(seconds / a->window_s), got = 0;
  double sum = 0, sq = 0;

  for (long j = 1; j <= (k < 1 ? 1 : k) && !interrupted; j++) {
    double t;

    read_until(a->n, start + (uint64_t)j * win, 0);
    if (interrupted)
      break;
    for (int i = 0; i < a->n->nentries; i++)
      if (a->n->entries[i].open)
        close_window(&a->n->entries[i]);
    if (!isnan(t = node_total(a->n))) {
      sum += t;
      sq += t * t;
      got++;
    }
  }
  if (interrupted || got == 0)
    return -1;
  *w = sum / (double)got;
  *err = got < 2 ? NAN
                 : 1.96 * sqrt(fmax(0, (sq - sum * sum / (double)got) /
                                         (double)(got - 1)) / (double)got);
  return 0;
}

static int calibrate(struct node *n, const struct options *opt,
                     double window_s)
{
  struct power_arg a = {n, window_s};
  double seconds = opt->time_s >= 0 ? opt->time_s : 10;
  char covers[64];

  if (n->total < 0 || !(n->entries[n->total].open) ||
      (n->entries[n->total].m.flags & PMON_DRV_ESTIMATED)) {
    fprintf(stderr, PROG ": --calibrate-clock: no meter measures this "
            "node's total (see above): nothing to calibrate against\n");
    return EXIT_UNMEASURED;
  }
  if (seconds < 2 * window_s) {
    fprintf(stderr, PROG ": --calibrate-clock: --time %g: at least two "
            "windows of %g s a probe\n", seconds, window_s);
    return EXIT_CONFIG;
  }
  pmon__covers_text(n->covers, covers, sizeof covers);
  return meters_calibrate_clock(opt->output, opt->points, opt->part, seconds,
                                window_s, covers, node_power, &a,
                                &interrupted);
}

/* ---- The drivers ------------------------------------------------------ */

static void show_drivers(void)
{
  char kind[64];

  printf("%-12s %-28s %-9s %s\n", "DRIVER", "KIND", "FOUND BY",
         "DESCRIPTION");
  for (int i = 0; pmon__drivers[i] != NULL; i++) {
    const struct pmon_driver *d = pmon__drivers[i];

    printf("%-12s %-28s %-9s %s\n", d->name,
           kind_text(d->flags, kind, sizeof kind), found_by(d),
           d->description);
  }
}

/* ---- Command line ----------------------------------------------------- */

static void usage(FILE *out)
{
  fputs("Usage: " PROG " [OPTION]...\n"
        "List the meters pmon would use on this node, with their channels\n"
        "and a reading, and say why a meter is missing.\n"
        "\n"
        "  -m, --meters=LIST    check LIST, as PMON_METERS=LIST would\n"
        "  -n, --node=NAME      the node name to look up in the site file\n"
        "                       (PMON_NODE; default: the host name)\n"
        "  -s, --site=FILE      the site file to read (PMON_SITE_FILE)\n"
        "  -i, --interval=SECS  one reading over SECS (default: 1, or the\n"
        "                       longest meter interval)\n"
        "  -t, --time=SECS      live readings, one line per interval, for\n"
        "                       SECS (0: until interrupted)\n"
        "  -l, --list           list the meters, take no reading\n"
        "      --calibrate-clock  the node's power at several CPU clock\n"
        "                       limits, waiting and computing, for\n"
        "                       pmon-report advise (as root; -t SECS a\n"
        "                       probe, default 10); needs -o\n"
        "  -o, --output=FILE    where --calibrate-clock writes\n"
        "      --points=N       --calibrate-clock's limits (2 to 16,\n"
        "                       default 5)\n"
        "      --part=K         --calibrate-clock measures each limit\n"
        "                       again with K CPUs alone capped, as a\n"
        "                       job's PMON_IO_FREQ caps its own (default\n"
        "                       half of them; 0: not)\n"
        "  -d, --drivers        list the drivers of this build\n"
        "  -h, --help           print this help and exit\n"
        "  -V, --version        print the version and exit\n"
        "\n"
        "Exit status: 0 when the node's energy is measured by a meter\n"
        "of its total, 1 when it is not (only the estimate, or meters\n"
        "outside the total), 2 on a usage or configuration error.\n"
        "See pmon-meters(1).\n",
        out);
}

PMON_PRINTF(1, 2)
static int usage_error(const char *fmt, ...)
{
  va_list ap;

  fputs(PROG ": ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry '" PROG " --help' for more information.\n", stderr);
  return EXIT_CONFIG;
}

/* A number of seconds in [LO, MAX_TIME_S] from option OPT's ARG. */
static int seconds(const char *opt, const char *arg, double lo, double *out)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(arg, &end);
  if (end == arg || *end != '\0' || errno != 0 || !(v >= lo) ||
      v > MAX_TIME_S)
    return usage_error("%s %s: not a number of seconds from %g to %g", opt,
                       arg, lo, MAX_TIME_S);
  *out = v;
  return 0;
}

static int set(const char *var, const char *val)
{
  if (setenv(var, val, 1) != 0) {
    fprintf(stderr, PROG ": %s: %s\n", var, strerror(errno));
    return EXIT_CONFIG;
  }
  return 0;
}

/* Parse ARGV into *OPT.  -1 to go on, or the exit status to end with. */
static int parse_args(int argc, char **argv, struct options *opt)
{
  static const struct option longopts[] = {
    {"meters", required_argument, NULL, 'm'},
    {"node", required_argument, NULL, 'n'},
    {"site", required_argument, NULL, 's'},
    {"interval", required_argument, NULL, 'i'},
    {"time", required_argument, NULL, 't'},
    {"list", no_argument, NULL, 'l'},
    {"drivers", no_argument, NULL, 'd'},
    {"calibrate-clock", no_argument, NULL, 'C'},
    {"output", required_argument, NULL, 'o'},
    {"points", required_argument, NULL, 'P'},
    {"part", required_argument, NULL, 'K'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
  };
  int c;

  opterr = 0; /* our messages name the program, not argv[0] */
  while ((c = getopt_long(argc, argv, ":m:n:s:i:t:o:ldhV", longopts, NULL)) !=
         -1) {
    switch (c) {
    case 'm':
      opt->meters = optarg;
      break;
    case 'n':
      if (*optarg == '\0')
        return usage_error("--node: an empty name");
      if (set(PMON_ENV_NODE, optarg) != 0)
        return EXIT_CONFIG;
      break;
    case 's':
      if (*optarg == '\0')
        return usage_error("--site: an empty file name");
      if (set(PMON_ENV_SITE_FILE, optarg) != 0)
        return EXIT_CONFIG;
      break;
    case 'i':
      if (seconds("--interval", optarg, 0.01, &opt->interval_s) != 0)
        return EXIT_CONFIG;
      break;
    case 't':
      if (seconds("--time", optarg, 0, &opt->time_s) != 0)
        return EXIT_CONFIG;
      break;
    case 'l':
      opt->list_only = 1;
      break;
    case 'd':
      opt->drivers = 1;
      break;
    case 'C':
      opt->calibrate = 1;
      break;
    case 'o':
      if (*optarg == '\0')
        return usage_error("--output: an empty file name");
      opt->output = optarg;
      break;
    case 'P': {
      char *end;
      long v;

      errno = 0;
      v = strtol(optarg, &end, 10);
      if (end == optarg || *end != '\0' || errno != 0 || v < 2 || v > 16)
        return usage_error("--points %s: not a number from 2 to 16", optarg);
      opt->points = (int)v;
      break;
    }
    case 'K': {
      char *end;
      long v;

      errno = 0;
      v = strtol(optarg, &end, 10);
      if (end == optarg || *end != '\0' || errno != 0 || v < 0 ||
          v >= PMON_CPUS_MAX)
        return usage_error("--part %s: not a number of CPUs", optarg);
      opt->part = (int)v;
      break;
    }
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      printf(PROG " (pmon) %s\n", pmon_version());
      return 0;
    case ':':
      return usage_error("%s: option needs an argument", argv[optind - 1]);
    default:
      if (optopt == 0 || strncmp(argv[optind - 1], "--", 2) == 0)
        return usage_error("%s: invalid option", argv[optind - 1]);
      return usage_error("-%c: invalid option", optopt);
    }
  }
  if (optind < argc)
    return usage_error("%s: unexpected argument", argv[optind]);
  if (opt->calibrate && opt->output == NULL)
    return usage_error("--calibrate-clock: no -o FILE to write");
  if (!opt->calibrate &&
      (opt->output != NULL || opt->points != 0 || opt->part != -2))
    return usage_error("%s: only with --calibrate-clock",
                       opt->output != NULL ? "--output"
                       : opt->points != 0  ? "--points"
                                           : "--part");
  if (opt->calibrate && (opt->list_only || opt->drivers))
    return usage_error("--calibrate-clock: not with %s",
                       opt->list_only ? "--list" : "--drivers");
  if (opt->points == 0)
    opt->points = 5;
  if (opt->part == -2)
    opt->part = -1; /* half */
  return -1;
}

/* The meters of PMON_METERS or -m, into N; PMON_ECONFIG when the list is
 * wrong (the message is pmon_errmsg()). */
static int choose(struct node *n, const struct options *opt)
{
  const char *list = opt->meters != NULL ? opt->meters
                                         : getenv(PMON_ENV_METERS);
  int rc;

  pmon__clear_error();
  if ((rc = pmon__meters_parse(list)) != 0)
    return rc;
  n->automatic = pmon__g.automatic;
  if (n->automatic) {
    choose_auto(n);
    return 0;
  }
  for (int i = 0; i < pmon__g.nspecs; i++)
    add_entry(n, &pmon__g.specs[i], opt->meters != NULL ? SRC_OPTION
                                                        : SRC_ENV, 0);
  return 0;
}

static void show_header(const struct node *n, const struct options *opt)
{
  const char *v = getenv(PMON_ENV_NODE);
  const char *dis = getenv(PMON_ENV_DISABLE);

  printf("node %s (%s)\n", meters_tty(n->name),
         v != NULL && *v != '\0' ? "PMON_NODE" : "the host name");
  /* The list itself is not shown: a URI in it may hold a password. */
  if (n->automatic)
    field("meters:", "auto (%s)",
          opt->meters != NULL               ? "-m"
          : getenv(PMON_ENV_METERS) != NULL ? "PMON_METERS"
                                            : "PMON_METERS is not set");
  else
    field("meters:", "as %s lists them",
          opt->meters != NULL ? "-m" : "PMON_METERS");
  if (dis != NULL && *dis != '\0' && strcmp(dis, "0") != 0)
    meters_wrapf("note:", "PMON_DISABLE is set: jobs started with this "
          "environment are not measured");
  show_site(n);
}

int main(int argc, char **argv)
{
  struct options opt = {NULL, -1, 0, 0, 0, 0, NULL, 0, -2};
  struct node *n;
  double window_s;
  int status, measured = 0;

  if ((status = parse_args(argc, argv, &opt)) >= 0)
    return status;
  if (opt.drivers) {
    show_drivers();
    return fflush(stdout) == 0 ? 0 : EXIT_UNMEASURED;
  }
  if ((n = calloc(1, sizeof *n)) == NULL) {
    fprintf(stderr, PROG ": out of memory\n");
    return EXIT_CONFIG;
  }
  pmon__node_name(n->name, sizeof n->name);
  n->total = -1;
  if (choose(n, &opt) != 0) {
    fprintf(stderr, "%s\n", meters_tty(pmon_errmsg()));
    free(n);
    return EXIT_CONFIG;
  }
  n->total = total_entry(n);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  if (opt.calibrate) /* the clock goes back on these too */
    calibration_signals();

  show_header(n, &opt);
  for (int i = 0; i < n->nentries; i++)
    show_entry(n, i);
  if (n->nentries == 0)
    printf("\nno meter: a job on this node measures nothing\n");
  if (n->automatic)
    show_tried(n);
  fflush(stdout);

  window_s = opt.interval_s;
  if (window_s <= 0) {
    window_s = 1;
    for (int i = 0; i < n->nentries; i++)
      if (n->entries[i].open && n->entries[i].m.interval_s > window_s)
        window_s = n->entries[i].m.interval_s;
  }
  if (opt.calibrate)
    status = calibrate(n, &opt, window_s);
  else if (!opt.list_only)
    readings(n, window_s, opt.time_s);

  for (int i = 0; i < n->nentries; i++) {
    struct entry *e = &n->entries[i];

    /* A meter whose channels the node's total does not take measures
     * none of the node's energy, however well it reads. */
    if (e->open && !(e->m.flags & PMON_DRV_ESTIMATED) && n->mask[i] != 0 &&
        (opt.list_only || e->w.nok > 0))
      measured = 1;
    entry_close(e);
  }
  /* What a job would refuse, on standard error as pmon_init says it. */
  if (n->site_rc != 0)
    fprintf(stderr, "pmon: %s\n", meters_tty(n->site_why));
  for (int i = 0; i < n->nentries; i++)
    if (n->entries[i].rc == PMON_ECONFIG && n->entries[i].source != SRC_AUTO)
      fprintf(stderr, "pmon: %s\n", meters_tty(n->entries[i].why));
  if (!opt.calibrate)
    status = n->config_error ? EXIT_CONFIG
             : measured      ? EXIT_MEASURED
                             : EXIT_UNMEASURED;
  else if (n->config_error)
    status = EXIT_CONFIG;
  free(n);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    /* --calibrate-clock said it already, and exits with 1 (not written). */
    if (opt.calibrate && status != 0)
      return status;
    fprintf(stderr, PROG ": standard output: write error: %s\n",
            strerror(errno));
    return opt.calibrate ? 1 : EXIT_CONFIG;
  }
  return status;
}

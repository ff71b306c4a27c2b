/*
 * report-watch.c - "pmon-report watch [SPOOLDIR | REPORT]": a running
 * job seen through its spool (pmon(7), "When the job is killed"), which
 * each node leader rewrites every PMON_SPOOL_INTERVAL seconds.
 *
 * Each refresh reads every node's spool file and shows, per node, the
 * power now (over the last refresh, else the last slice of its timeline),
 * the mean power, the energy so far with its error bar and coverage, and
 * a sparkline of its power over the last refreshes; the regions so far,
 * merged over the nodes, largest energy first; the MPI-IO so far; the
 * last events; the job's elapsed time and when the next refresh comes.
 *
 * On a terminal it redraws the screen with two ANSI sequences (home,
 * clear): no curses library, which a minimal node may lack.  The screen
 * fits the terminal's size, asked at each refresh (TIOCGWINSZ) and
 * watched between them: lines are cut at its width, the sparkline gets
 * the columns left, and a screen taller than the terminal loses the lines
 * before its last, which a count replaces, so that neither wraps nor
 * scrolls.  Elsewhere it prints each refresh whole as plain lines, a
 * blank line between them.
 *
 * When the job ends (its spool is gone: removed once the report is
 * written) it prints the report's summary, nodes and regions, and exits
 * 0; also when the spool has not moved for three intervals (a killed job:
 * it says so, and how to rebuild the report).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#define CMD PROG ": watch"
#define complain(status, ...) report_say(status, CMD, __VA_ARGS__)

#define HIST 48        /* power points kept per node, for the sparkline */
#define NODES_SHOWN 16 /* nodes listed; the rest summed in one line */
#define REGIONS_SHOWN 10
#define EVENTS_SHOWN 5
#define STALL_INTERVALS 3 /* the spool not moving this long: stopped */
#define SPARK_COL 70      /* where a node's line has its sparkline */
/* The largest spool file read, at every refresh: a node's spool is
 * kilobytes to a few MiB (rebuild reads up to 256 MiB, once). */
#define WATCH_SPOOL_MAX (64L << 20)

static const char *const usage =
  "usage: " PROG " watch [--job ID] [--interval S] [SPOOLDIR | REPORT]\n"
  "Show a running job from its spool, refreshed at the spool's interval:\n"
  "per node its power, energy so far and a sparkline; the regions so far;\n"
  "the MPI-IO so far; the events.  SPOOLDIR is a job's pmon-spool-ID\n"
  "directory or one that holds such directories (the newest of your own\n"
  "is watched, or --job ID); REPORT is the report the job will write (its\n"
  "spool is looked for beside it).  Default: the current directory.\n"
  "When the job ends, prints the report's summary and exits 0.\n"
  "\n"
  "  --job ID       the job to watch, among several spools\n"
  "  --interval S   refresh every S seconds (default: the spool's)\n"
  "  -h, --help     print this help\n";

/* A node as watched: its latest figures and the power history. */
struct wnode {
  char *name;
  double energy_j, err_j, wall_s, coverage, power_now, known_s;
  double last_e, last_t; /* at the previous refresh, for power_now */
  double hist[HIST];
  size_t nhist;
  int seen;      /* in this refresh */
  int estimated; /* its energy is the estimate's model, not a meter's */
};

struct wregion {
  const char *name;
  double energy_j, time_s, count;
};

struct wevent {
  const char *node, *type, *detail;
  double t_s;
};

static struct {
  const char *base;   /* the directory of the spools */
  const char *report; /* the report's name, when given */
  const char *job;    /* --job */
  char dir[PATH_MAX]; /* the job's spool directory once found */
  char report_path[PATH_MAX]; /* where the job writes its report */
  char id[256];
  struct wnode *nodes;
  size_t nnodes;
  double interval_s, last_move, start_wall;
  double written_max; /* the largest written_s seen, -1 before any */
  int tty, utf8;
  int rows, cols; /* the terminal's size; 0 when unknown or not one */
  int refused;    /* a file refused (one line said): exit status 1 */
  size_t others;  /* spool directories of other users left out */
} w;

static double now_s(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The terminal's size into w.rows and w.cols (0 when standard output is
 * not a terminal or it does not say).  Whether it changed. */
static int term_size(void)
{
  struct winsize ws;
  int rows = 0, cols = 0;

  if (w.tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
    rows = ws.ws_row, cols = ws.ws_col;
  if (rows == w.rows && cols == w.cols)
    return 0;
  w.rows = rows;
  w.cols = cols;
  return 1;
}

static double num(json_t *o, const char *key)
{
  json_t *v = json_object_get(o, key);

  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Opens PATH to read without blocking (a FIFO with no writer) and not
 * through a link: a regular file of at most MAX bytes (0: any size).
 * The descriptor; -1 when it is not there, or, unless QUIET, after one
 * line naming it and with w.refused set, when it is something else (a
 * link, a FIFO, a device, a directory) or larger. */
static int open_regular(const char *path, off_t max, int quiet)
{
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
                        O_CLOEXEC);
  struct stat st;
  const char *what = NULL;

  if (fd < 0) {
    if (errno == ELOOP)
      what = "a symbolic link, not followed";
    else if (errno != ENOENT)
      what = strerror(errno);
  } else if (fstat(fd, &st) != 0)
    what = strerror(errno);
  else if (S_ISFIFO(st.st_mode))
    what = "a FIFO, not a regular file";
  else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    what = "a device, not a regular file";
  else if (!S_ISREG(st.st_mode))
    what = "not a regular file";
  else if (max > 0 && st.st_size > max) {
    if (!quiet)
      complain(1, "%s: %lld bytes, larger than the %ld MiB watch reads: "
               "refused", path, (long long)st.st_size, (long)(max >> 20));
    w.refused |= !quiet;
    close(fd);
    return -1;
  }
  if (what == NULL)
    return fd;
  if (!quiet)
    complain(1, "%s: %s: refused", path, what);
  w.refused |= !quiet;
  if (fd >= 0)
    close(fd);
  return -1;
}

/* A file as JSON: a regular file of at most MAX bytes (0: any), as
 * open_regular() opens it. */
static json_t *load(const char *path, off_t max, int quiet)
{
  int fd = open_regular(path, max, quiet);
  json_t *doc;

  if (fd < 0)
    return NULL;
  doc = json_loadfd(fd, 0, NULL);
  close(fd);
  return doc;
}

/* A spool file: JSON with a node record. */
static json_t *load_spool(const char *path)
{
  json_t *doc = load(path, WATCH_SPOOL_MAX, 0);

  if (doc != NULL && !json_is_object(json_object_get(doc, "node"))) {
    json_decref(doc);
    doc = NULL;
  }
  return doc;
}

/* The spool files of directory DIR, loaded; their count in *N. */
static json_t **load_dir(const char *dir, size_t *n)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  json_t **v = NULL;
  size_t cap = 0;

  *n = 0;
  if (d == NULL)
    return NULL;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    char path[PATH_MAX];
    json_t *doc;

    if (len < 7 || strcmp(e->d_name + len - 6, ".spool") != 0 ||
        e->d_name[0] == '.' ||
        (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
          sizeof path ||
        (doc = load_spool(path)) == NULL)
      continue;
    if (*n == cap) {
      json_t **more;

      cap = cap ? 2 * cap : 8;
      if ((more = realloc(v, cap * sizeof *v)) == NULL) {
        json_decref(doc);
        break;
      }
      v = more;
    }
    v[(*n)++] = doc;
  }
  closedir(d);
  return v;
}

static void free_docs(json_t **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    json_decref(v[i]);
  free(v);
}

/* Whether DIR holds spool files (by their names). */
/* The age in seconds of DIR's newest spool file, by the wall clock (its
 * modification time); 0 when none can be read. */
static double spool_age(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  struct timespec now;
  double newest = 0;

  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    struct stat st;

    if (len >= 7 && e->d_name[0] != '.' &&
        strcmp(e->d_name + len - 6, ".spool") == 0 &&
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (double)st.st_mtime + st.st_mtim.tv_nsec * 1e-9 > newest)
      newest = (double)st.st_mtime + st.st_mtim.tv_nsec * 1e-9;
  }
  closedir(d);
  clock_gettime(CLOCK_REALTIME, &now);
  return newest > 0 && now.tv_sec + now.tv_nsec * 1e-9 > newest
           ? now.tv_sec + now.tv_nsec * 1e-9 - newest
           : 0;
}

static int has_spools(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int any = 0;

  if (d == NULL)
    return 0;
  while (!any && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);

    any = len >= 7 && e->d_name[0] != '.' &&
          strcmp(e->d_name + len - 6, ".spool") == 0;
  }
  closedir(d);
  return any;
}

/* Whether the job's report is there: a report, of this job.  pmon
 * renames it into place written whole, so that its job's id is enough
 * here; ended() reads and checks it. */
static int report_done(void)
{
  const char *path = w.report_path[0] ? w.report_path : w.report;
  json_t *doc;
  int done;

  if (path == NULL || (doc = load(path, 0, 1)) == NULL)
    return 0;
  done = w.id[0] != '\0' &&
         json_object_get(doc, "format") != NULL &&
         strcmp(w.id, json_string_value(json_object_get(
                        json_object_get(doc, "job"), "id")) ?: "") == 0;
  json_decref(doc);
  return done;
}

/* The report path the job's spool in DIR names, into w.report_path, and
 * the job's id. */
static void job_of(const char *dir)
{
  size_t n;
  json_t **v = load_dir(dir, &n);

  for (size_t i = 0; i < n; i++) {
    json_t *job = json_object_get(v[i], "job");
    const char *rep = json_string_value(json_object_get(job, "report"));
    const char *id = json_string_value(json_object_get(job, "id"));

    if (rep != NULL && w.report_path[0] == '\0')
      snprintf(w.report_path, sizeof w.report_path, "%s", rep);
    if (id != NULL && w.id[0] == '\0')
      snprintf(w.id, sizeof w.id, "%s", id);
  }
  free_docs(v, n);
}

/* Finds the job's spool directory under w.base: the one named for
 * --job, or whose report is w.report, or the newest; among the caller's
 * own only (its owner the effective user, root's for root): a spool
 * directory of another user, planted in a shared directory, is watched
 * only when named itself.  Counts those left out in w.others.  0, or -1. */
static int find_dir(void)
{
  DIR *d;
  struct dirent *e;
  double newest = -1;

  if (w.report == NULL && w.job == NULL && has_spools(w.base)) {
    snprintf(w.dir, sizeof w.dir, "%s", w.base);
    return 0;
  }
  if ((d = opendir(w.base)) == NULL)
    return -1;
  w.others = 0;
  while ((e = readdir(d)) != NULL) {
    char path[PATH_MAX];
    struct stat st;

    if (strncmp(e->d_name, "pmon-spool-", 11) != 0 ||
        (size_t)snprintf(path, sizeof path, "%s/%s", w.base, e->d_name) >=
          sizeof path ||
        lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
      continue;
    if (st.st_uid != geteuid()) {
      w.others++;
      continue;
    }
    if (w.job != NULL && strcmp(e->d_name + 11, w.job) != 0)
      continue;
    if (w.report != NULL) {
      size_t n;
      json_t **v = load_dir(path, &n);
      const char *rep = n > 0 ? json_string_value(json_object_get(
                                  json_object_get(v[0], "job"), "report"))
                              : NULL;
      const char *slash = rep != NULL ? strrchr(rep, '/') : NULL;
      const char *mine = strrchr(w.report, '/');
      int match = rep != NULL &&
                  strcmp(slash ? slash + 1 : rep,
                         mine ? mine + 1 : w.report) == 0;

      free_docs(v, n);
      if (!match)
        continue;
    } else if (!has_spools(path))
      continue;
    if ((double)st.st_mtime + st.st_mtim.tv_nsec * 1e-9 > newest) {
      newest = (double)st.st_mtime + st.st_mtim.tv_nsec * 1e-9;
      snprintf(w.dir, sizeof w.dir, "%s", path);
    }
  }
  closedir(d);
  return newest >= 0 ? 0 : -1;
}

static struct wnode *node_named(const char *name)
{
  struct wnode *more;

  for (size_t i = 0; i < w.nnodes; i++)
    if (strcmp(w.nodes[i].name, name) == 0)
      return &w.nodes[i];
  if ((more = realloc(w.nodes, (w.nnodes + 1) * sizeof *more)) == NULL)
    return NULL;
  w.nodes = more;
  memset(&w.nodes[w.nnodes], 0, sizeof *w.nodes);
  w.nodes[w.nnodes].name = strdup(name);
  w.nodes[w.nnodes].last_t = NAN;
  return w.nodes[w.nnodes].name != NULL ? &w.nodes[w.nnodes++] : NULL;
}

static void push(struct wnode *n, double p)
{
  if (isnan(p))
    return;
  if (n->nhist == HIST) {
    memmove(n->hist, n->hist + 1, (HIST - 1) * sizeof *n->hist);
    n->nhist--;
  }
  n->hist[n->nhist++] = p;
}

/* A node's spool DOC into the watched node: its figures, and its power
 * now: over the time since the previous refresh when the spool moved,
 * else the last slice of its timeline (the first time, whose slices also
 * start the sparkline). */
static void take_node(json_t *doc)
{
  json_t *rec = json_object_get(doc, "node");
  const char *name = json_string_value(json_object_get(rec, "name"));
  struct wnode *n = name != NULL ? node_named(name) : NULL;
  double known = num(doc, "known_until_s");

  if (n == NULL)
    return;
  n->seen = 1;
  n->energy_j = num(rec, "energy_j");
  n->err_j = num(rec, "energy_err_j");
  n->estimated = json_is_true(json_object_get(rec, "estimated"));
  n->wall_s = num(rec, "wall_s");
  n->coverage = num(rec, "energy_coverage");
  if (isnan(n->last_t)) {
    json_t *tl = json_object_get(rec, "timeline");
    json_t *parsed = json_is_string(tl) ? json_loads(json_string_value(tl), 0,
                                                     NULL)
                                        : json_incref(tl);
    json_t *pw = json_object_get(parsed, "power_w");
    size_t k = json_array_size(pw);

    for (size_t i = k > HIST ? k - HIST : 0; i < k; i++)
      push(n, json_number_value(json_array_get(pw, i)));
    n->power_now = n->nhist > 0 ? n->hist[n->nhist - 1] : num(rec, "power_w");
    json_decref(parsed);
  } else if (known > n->last_t && !isnan(n->energy_j) && !isnan(n->last_e)) {
    n->power_now = (n->energy_j - n->last_e) / (known - n->last_t);
    push(n, n->power_now);
  }
  if (isnan(n->last_t) || known > n->last_t) {
    n->last_t = known;
    n->last_e = n->energy_j;
  }
}

static int by_region_energy(const void *a, const void *b)
{
  double x = ((const struct wregion *)a)->energy_j;
  double y = ((const struct wregion *)b)->energy_j;

  if (isnan(x) || isnan(y))
    return isnan(x) - isnan(y);
  return x > y ? -1 : x < y;
}

static int by_time(const void *a, const void *b)
{
  double x = ((const struct wevent *)a)->t_s;
  double y = ((const struct wevent *)b)->t_s;

  return x < y ? -1 : x > y;
}

/* A sparkline of N powers into BUF, from 0 to their largest (a steady
 * power is a steady line, not its noise magnified). */
static void spark(const double *p, size_t n, char *buf, size_t size)
{
  static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
  static const char ascii[] = "_.-~=*#@";
  double hi = 0;
  size_t off = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < n; i++)
    hi = p[i] > hi ? p[i] : hi;
  for (size_t i = 0; i < n && off + 4 < size; i++) {
    int k = hi > 0 && p[i] > 0 ? (int)(p[i] / hi * 7.999) : 0;

    if (w.utf8)
      off += (size_t)snprintf(buf + off, size - off, "%s", blocks[k]);
    else
      buf[off++] = ascii[k], buf[off] = '\0';
  }
}

static const char *fmt(char buf[CELL_MAX], double v, const char *unit)
{
  const char *s = report_si(buf, v, unit);

  return s != NULL ? s : "?";
}

static const char *dur(char buf[CELL_MAX], double s)
{
  const char *d = report_duration(buf, s, 0);

  return d != NULL ? d : "?";
}

/* One screen of the job from its spool files V (N of them) into OUT. */
static void draw(FILE *out, json_t **v, size_t n, double next_s)
{
  struct wregion *reg = NULL;
  struct wevent *ev = NULL;
  size_t nreg = 0, nev = 0, shown = 0;
  double io_r = 0, io_w = 0, io_e = 0, total = 0, total_err = 0, power = 0;
  double comm_c = 0, comm_b = 0;
  int has_io = 0, has_e = 0, has_comm = 0, est = 0, err_unknown = 0;
  char a[CELL_MAX], b[CELL_MAX], c[CELL_MAX], line[HIST * 4 + 1];
  json_t *job = json_object_get(v[0], "job");
  double elapsed = 0;

  for (size_t i = 0; i < n; i++) {
    json_t *rec = json_object_get(v[i], "node");
    json_t *io = json_object_get(rec, "io");
    json_t *comm = json_object_get(rec, "comm_so_far");
    json_t *regs = json_object_get(v[i], "regions");
    json_t *evs = json_object_get(rec, "events");
    double ws = num(v[i], "written_s");

    elapsed = ws > elapsed ? ws : elapsed;
    if (json_is_object(io)) {
      has_io = 1;
      io_r += isnan(num(io, "bytes_read")) ? 0 : num(io, "bytes_read");
      io_w += isnan(num(io, "bytes_written")) ? 0 : num(io, "bytes_written");
      io_e += isnan(num(io, "energy_j")) ? 0 : num(io, "energy_j");
    }
    if (json_is_object(comm)) {
      has_comm = 1;
      comm_c += isnan(num(comm, "calls")) ? 0 : num(comm, "calls");
      comm_b += isnan(num(comm, "bytes")) ? 0 : num(comm, "bytes");
    }
    for (size_t k = 0; k < json_array_size(regs); k++) {
      json_t *r = json_array_get(regs, k);
      const char *name = json_string_value(json_object_get(r, "name"));
      size_t j;

      if (name == NULL)
        continue;
      for (j = 0; j < nreg && strcmp(reg[j].name, name) != 0; j++)
        ;
      if (j == nreg) {
        reg = realloc(reg, (nreg + 1) * sizeof *reg);
        if (reg == NULL)
          return;
        reg[nreg++] = (struct wregion){name, 0, 0, 0};
      }
      reg[j].energy_j += num(r, "energy_j"); /* NAN stays NAN: unknown */
      reg[j].time_s = num(r, "time_s") > reg[j].time_s ? num(r, "time_s")
                                                       : reg[j].time_s;
      reg[j].count += isnan(num(r, "count")) ? 0 : num(r, "count");
    }
    for (size_t k = 0; k < json_array_size(evs); k++) {
      json_t *e = json_array_get(evs, k);

      ev = realloc(ev, (nev + 1) * sizeof *ev);
      if (ev == NULL)
        return;
      ev[nev++] = (struct wevent){
        json_string_value(json_object_get(rec, "name")),
        json_string_value(json_object_get(e, "type")),
        json_string_value(json_object_get(e, "detail")), num(e, "t_s")};
    }
  }
  for (size_t i = 0; i < w.nnodes; i++)
    if (w.nodes[i].seen && !isnan(w.nodes[i].energy_j)) {
      has_e = 1;
      total += w.nodes[i].energy_j;
      /* One node's bar unknown (an estimate's): the total's too, never
       * 0. */
      err_unknown |= isnan(w.nodes[i].err_j);
      total_err += isnan(w.nodes[i].err_j) ? 0 : w.nodes[i].err_j;
      power += isnan(w.nodes[i].power_now) ? 0 : w.nodes[i].power_now;
      est |= w.nodes[i].estimated;
    }

  fprintf(out, "pmon job %s: %zu of %lld node%s, %lld rank%s, running %s\n",
          report_tty(w.id), n,
          json_integer_value(json_object_get(job, "nodes")),
          json_integer_value(json_object_get(job, "nodes")) == 1 ? "" : "s",
          json_integer_value(json_object_get(job, "ranks")),
          json_integer_value(json_object_get(job, "ranks")) == 1 ? "" : "s",
          dur(a, elapsed));
  if (has_e)
    fprintf(out, "energy so far %s %s %s, power now %s%s\n",
            fmt(a, total, "J"), report_pm(),
            err_unknown ? "?" : fmt(b, total_err, "J"), fmt(c, power, "W"),
            est ? " (ESTIMATED from CPU use, not measured)" : "");
  fprintf(out, "\n%-16s %10s %10s %22s %6s  %s\n", "node", "power now",
          "mean", "energy so far", "cover", "power, last refreshes");
  for (size_t i = 0; i < w.nnodes; i++) {
    struct wnode *x = &w.nodes[i];
    char e[2 * CELL_MAX + 8];
    size_t k;

    if (!x->seen || shown++ >= NODES_SHOWN)
      continue;
    snprintf(e, sizeof e, "%s %s %s", fmt(a, x->energy_j, "J"), report_pm(),
             isnan(x->err_j) ? "?" : fmt(b, x->err_j, "J"));
    /* The last points that the terminal's width leaves room for. */
    k = x->nhist;
    if (w.cols > 0)
      k = w.cols > SPARK_COL ? (size_t)(w.cols - SPARK_COL) : 0;
    k = k < x->nhist ? k : x->nhist;
    spark(x->hist + x->nhist - k, k, line, sizeof line);
    /* The cover is what a meter measured: an estimate's is none. */
    if (x->estimated)
      snprintf(c, sizeof c, "%6s", "est.");
    else
      snprintf(c, sizeof c, "%5.1f%%",
               isnan(x->coverage) ? 0 : 100 * x->coverage);
    fprintf(out, "%-16.16s %10s %10s %22s %s  %s\n", report_tty(x->name),
            fmt(a, x->power_now, "W"),
            fmt(b, x->wall_s > 0 ? x->energy_j / x->wall_s : NAN, "W"), e, c,
            line);
  }
  if (shown > NODES_SHOWN)
    fprintf(out, "... and %zu more nodes\n", shown - NODES_SHOWN);

  if (nreg > 1) /* qsort() wants an array, even of none */
    qsort(reg, nreg, sizeof *reg, by_region_energy);
  fprintf(out, "\nregions so far%s\n", nreg ? "" : ": none yet");
  if (nreg)
    fprintf(out, "%-28s %12s %10s %10s\n", "region", "energy", "time", "calls");
  for (size_t i = 0; i < nreg && i < REGIONS_SHOWN; i++)
    fprintf(out, "%-28.28s %12s %10s %10.0f\n", report_tty(reg[i].name),
            fmt(a, reg[i].energy_j, "J"), dur(b, reg[i].time_s), reg[i].count);
  if (nreg > REGIONS_SHOWN)
    fprintf(out, "... and %zu more regions\n", nreg - REGIONS_SHOWN);

  if (has_io)
    fprintf(out, "\nI/O so far: read %s, written %s, in phases of %s: %s\n",
            fmt(a, io_r, "B"), fmt(b, io_w, "B"), fmt(c, io_e, "J"),
            io_e > 0 ? (snprintf(line, sizeof line, "%.3g MB/J",
                                 (io_r + io_w) / 1e6 / io_e), line)
                     : "MB/J unknown");
  else
    fprintf(out, "\nI/O so far: none recorded\n");
  if (has_comm) /* the interception library counts them */
    fprintf(out, "MPI communication so far: %.0f calls, %s\n", comm_c,
            fmt(a, comm_b, "B"));

  if (nev > 1)
    qsort(ev, nev, sizeof *ev, by_time);
  fprintf(out, "\nevents%s\n", nev ? ":" : ": none");
  for (size_t i = nev > EVENTS_SHOWN ? nev - EVENTS_SHOWN : 0; i < nev; i++)
    fprintf(out, "  %8.3f s  %-12s %-12s %s\n", ev[i].t_s,
            ev[i].node ? report_tty(ev[i].node) : "?",
            ev[i].type ? report_tty(ev[i].type) : "?",
            ev[i].detail ? report_tty(ev[i].detail) : "");
  /* The refresh first: a narrow terminal cuts the (long) path. */
  fprintf(out, "\nnext refresh in %.1f s; spool %s\n", next_s,
          report_tty(w.dir));
  free(reg);
  free(ev);
}

/* Line P (N bytes, no newline) to OUT with a newline, cut at COLS
 * characters when COLS is not 0 (what watch prints takes one column a
 * character). */
static void put_line(FILE *out, const char *p, size_t n, int cols)
{
  fwrite(p, 1, cols > 0 ? report_text_cut(p, n, (size_t)cols) : n, out);
  fputc('\n', out);
}

/* The screen S (LEN bytes, lines ending in newlines) to OUT, fitted to
 * ROWS by COLS when they are not 0: each line cut at COLS characters,
 * and, when there are more lines than ROWS - 1 (the last row stays free,
 * or the final newline would scroll), the first ROWS - 3, a line that
 * counts the others, and the last (the next refresh and the spool). */
static void fit(FILE *out, const char *s, size_t len, int rows, int cols)
{
  size_t nlines = 0, i = 0, keep;
  const char *p, *end = s + len;
  char more[64];

  for (p = s; p < end; p++)
    nlines += *p == '\n';
  keep = rows >= 5 && nlines > (size_t)rows - 1 ? (size_t)rows - 3 : nlines;
  for (p = s; p < end; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

    if (i == keep && keep < nlines) {
      snprintf(more, sizeof more, "... %zu more line%s", nlines - keep - 1,
               nlines - keep - 1 == 1 ? "" : "s");
      put_line(out, more, strlen(more), cols);
    }
    if (i < keep || i + 1 == nlines)
      put_line(out, p, n, cols);
    p += n + (nl != NULL);
  }
}

/* The job has ended (its spool is gone): the report's summary, nodes and
 * regions, or why there is none.  Returns the exit status. */
static int ended(void)
{
  struct report r;
  const char *path = w.report_path[0] ? w.report_path : w.report;
  int fd = path != NULL ? open_regular(path, 0, 0) : -1;

  if (fd >= 0 && report_open_fd(fd, path, &r) == 0) {
    printf("the job has ended: its report %s\n\n", report_tty(path));
    report_text(stdout, &r, SEC_SUMMARY | SEC_NODES | SEC_REGIONS, 0);
    report_free(&r);
    return 0;
  }
  if (w.refused)
    return 1;
  printf("the job's spool is gone%s%s%s\n", path ? ", and its report " : "",
         path ? report_tty(path) : "", path ? " cannot be read" : "");
  return 0;
}

int report_watch(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"job", required_argument, NULL, 'j'},
    {"interval", required_argument, NULL, 'i'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  const char *arg;
  struct stat st;
  double every = NAN;
  char *end;
  int c, first = 1;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'j': w.job = optarg; break;
    case 'i':
      errno = 0;
      every = strtod(optarg, &end);
      if (errno != 0 || end == optarg || *end != '\0' || !(every >= 0.1) ||
          every > 3600)
        return complain(2, "--interval %s: not a time from 0.1 to 3600 s",
                        optarg);
      break;
    case 'h': fputs(usage, stdout); return 0;
    case ':':
      return complain(2, "%s: option needs an argument", argv[optind - 1]);
    default:
      return complain(2, "%s: invalid option", argv[optind - 1]);
    }
  }
  if (argc - optind > 1) {
    fputs(usage, stderr);
    return 2;
  }
  arg = optind < argc ? argv[optind] : ".";
  if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
    w.base = arg;
  else {
    static char base[PATH_MAX];
    const char *slash = strrchr(arg, '/');

    w.report = arg;
    snprintf(base, sizeof base, "%.*s", slash ? (int)(slash - arg) : 1,
             slash ? (slash == arg ? "/" : arg) : ".");
    w.base = base;
    /* A report already there, without a spool: the job has ended. */
    if (stat(arg, &st) == 0 && find_dir() != 0)
      return ended();
  }
  w.tty = isatty(STDOUT_FILENO);
  w.utf8 = strcmp(report_pm(), "+-") != 0;
  w.last_move = now_s();
  w.written_max = -1; /* nothing seen yet */
  for (;;) {
    json_t **v;
    size_t n;
    double moved = -1, next;
    char *screen = NULL, *fitted = NULL;
    size_t len = 0, flen = 0;
    FILE *out;

    if (w.dir[0] == '\0') {
      if (find_dir() != 0) {
        if (w.refused)
          return 1;
        if (first)
          printf("waiting for a job's spool in %s%s%s%s\n",
                 report_tty(w.base), w.job ? " named " : "",
                 w.job ? report_tty(w.job) : "",
                 w.others ? " (other users' spools left out: name the "
                            "directory of one to watch it)" : "");
        first = 0;
        fflush(stdout);
        sleep(1);
        continue;
      }
      job_of(w.dir);
      if (w.refused)
        return 1;
    }
    v = load_dir(w.dir, &n);
    if (w.refused) {
      free_docs(v, n);
      return 1;
    }
    if (n == 0 || report_done()) { /* PMON_KEEP_SPOOL keeps the spool */
      free_docs(v, n);
      return ended();
    }
    if (isnan(every))
      w.interval_s = num(json_object_get(v[0], "job"), "interval_s");
    else
      w.interval_s = every;
    if (isnan(w.interval_s) || w.interval_s < 0.1)
      w.interval_s = 5;
    for (size_t i = 0; i < w.nnodes; i++)
      w.nodes[i].seen = 0;
    for (size_t i = 0; i < n; i++) {
      double ws_s = num(v[i], "written_s");

      moved = ws_s > moved ? ws_s : moved;
      take_node(v[i]);
    }
    if (moved > w.written_max) {
      /* The first time, the spool moved when its files were last
       * written: one dead for a minute is said so at once, not after
       * three more intervals of "running". */
      w.last_move = now_s() - (w.written_max < 0 ? spool_age(w.dir) : 0);
      w.written_max = moved;
    }
    next = w.interval_s;
    term_size();
    if ((out = open_memstream(&screen, &len)) == NULL)
      return complain(1, "out of memory");
    draw(out, v, n, next);
    fclose(out);
    /* The screen fitted, written at once (a terminal shows no half). */
    if ((out = open_memstream(&fitted, &flen)) == NULL) {
      free(screen);
      free_docs(v, n);
      return complain(1, "out of memory");
    }
    if (w.tty)
      fputs("\033[H\033[2J", out);
    else if (!first)
      fputc('\n', out);
    fit(out, screen, len, w.rows, w.cols);
    fclose(out);
    fwrite(fitted, 1, flen, stdout);
    fflush(stdout);
    free(screen);
    free(fitted);
    free_docs(v, n);
    report_tty_release();
    first = 0;
    if (now_s() - w.last_move > STALL_INTERVALS * w.interval_s + 2) {
      printf("\nthe spool has not moved for %.0f s: the job was killed or "
             "hangs; its report: " PROG " rebuild %s\n",
             now_s() - w.last_move, w.dir);
      return 0;
    }
    /* Sleep to the next refresh, but look for the end, and for a new
     * size of the terminal (redrawn at once), every 0.2 s. */
    for (double t0 = now_s(); now_s() - t0 < next;) {
      struct timespec nap = {0, 200000000};

      nanosleep(&nap, NULL);
      if (stat(w.dir, &st) != 0 || !has_spools(w.dir) || term_size())
        break;
    }
  }
}

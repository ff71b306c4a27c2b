/*
 * io.c - MPI-IO accounting: bytes, calls, time and I/O phases per rank,
 * and at finalize the energy of each node's I/O phases.
 *
 * The wrappers of mpiio/ call in here with two time stamps taken around
 * the real call, except for a run of successful calls on one file within
 * one phase, which they count in place (struct pmon__io_hot, the fast
 * path of preload.h).  A call only adds to counters and
 * extends the rank's current phase: no meter is read, and memory is only
 * allocated when a file is opened.  Calls less than the gap apart
 * (PMON_IO_GAP, default 10 ms) form one phase.  When a rank has IO_PHASES
 * phases the gap doubles and they are merged again, until half the budget
 * is free: I/O time is never dropped, only idle time between calls may
 * join a phase.
 *
 * At finalize each rank sends its counters, files and phases to its node
 * leader (pmon__io_json()).  The leader takes the union of its ranks'
 * phases and integrates the node total over it from the node's history
 * (lib/timeline.c): that is the node's I/O energy (pmon__io_node()).  Rank
 * 0 adds the nodes up and derives the rates (pmon__io_job()).  The rules
 * are stated for users in pmon-mpiio(7).
 *
 * Threads: when the program runs MPI_THREAD_MULTIPLE every call takes one
 * mutex and there is no fast path; otherwise MPI's own rules serialise
 * the calls and no lock is taken.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "preload.h"

#define IO_PHASES 1024           /* phases a rank keeps before merging */
#define IO_NAMES 4096            /* file names a rank tells apart */
#define IO_FILES_DEFAULT 32      /* files listed in the report */
#define IO_GAP_DEFAULT 0.01      /* seconds */
#define IO_OTHER "(other files)" /* the record of the names beyond */

struct io_file {
  char *name;
  struct pmon__io_counts c;
};

/* Open handles: open addressing, linear probing, with tombstones. */
enum { SLOT_EMPTY, SLOT_USED, SLOT_GONE };
struct io_slot {
  uintptr_t key;
  int file;
  int state;
};

static struct {
  _Atomic int on;     /* counting */
  int multiple;       /* MPI_THREAD_MULTIPLE: take the lock */
  struct io_file *files;
  int last_f;         /* the file of hot->h, or -1 */
  int started;        /* pmon__io_start() was called */
  pthread_mutex_t lock;
  int clock;          /* PMON_IO_NS or PMON_IO_TSC */
  double scale;       /* nanoseconds per stamp */
  uint64_t tsc0, ns0; /* a stamp and the time it was taken */
  uint64_t gap_ns;    /* the gap now; it doubles when the budget fills */
  int nlist;          /* files listed in the report */
  struct pmon__io_counts loose; /* calls on handles of no known file */
  int nfiles, cap, other; /* other: index of IO_OTHER, or -1 */
  int *byname;            /* 2 * IO_NAMES slots: file index + 1, or 0 */
  struct io_slot *slot;
  unsigned nslot, used;   /* used counts tombstones too */
  uint64_t (*ph)[3];      /* closed phases: start and end in ns, and the
                             bytes moved; IO_PHASES at most */
  int nph;
  uint64_t (*node_ph)[3]; /* leader: the node's phases, ns after init */
  int node_nph;
  uint64_t pub_ns;        /* PMON_SPOOL_INTERVAL, 0 without a spool */
} io = {.lock = PTHREAD_MUTEX_INITIALIZER, .other = -1, .last_f = -1};

/* The state the wrappers' fast path shares (preload.h); when they do not
 * take it, every access to it is under the lock. */
struct pmon__io_hot pmon__io_hot;
static struct pmon__io_hot *const hot = &pmon__io_hot;

static void publish(uint64_t t1);

static void lock(void)
{
  if (io.multiple)
    pthread_mutex_lock(&io.lock);
}

static void unlock(void)
{
  if (io.multiple)
    pthread_mutex_unlock(&io.lock);
}

int pmon__io_config(void)
{
  const char *v = getenv(PMON_ENV_IO_GAP);
  char *end;

  io.gap_ns = (uint64_t)(IO_GAP_DEFAULT * 1e9);
  io.nlist = IO_FILES_DEFAULT;
  if (v != NULL && *v != '\0') {
    double s;

    errno = 0;
    s = strtod(v, &end);
    if (errno != 0 || *end != '\0' || !(s >= 0 && s <= 3600))
      return pmon__fail(PMON_ECONFIG,
                        "%s: \"%.40s\": not a number of seconds from 0 "
                        "to 3600",
                        PMON_ENV_IO_GAP, v);
    io.gap_ns = (uint64_t)(s * 1e9);
  }
  v = getenv(PMON_ENV_IO_FILES);
  if (v != NULL && *v != '\0') {
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < 0 || n > 100000)
      return pmon__fail(PMON_ECONFIG,
                        "%s: \"%.40s\": not a number of files from 0 to "
                        "100000",
                        PMON_ENV_IO_FILES, v);
    io.nlist = (int)n;
  }
  return 0;
}

/* Whether the TSC counts time at one rate on every CPU of this node: the
 * CPU says so (constant_tsc, nonstop_tsc) and the kernel keeps time with
 * it, which it does only after checking that the CPUs agree. */
static int tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
  char path[PATH_MAX], line[4096];
  int constant = 0, nonstop = 0, kernel = 0;
  FILE *f;

  snprintf(path, sizeof path, "%s/cpuinfo", pmon__proc_root());
  if ((f = fopen(path, "r")) != NULL) {
    while (fgets(line, sizeof line, f) != NULL)
      if (strncmp(line, "flags", 5) == 0) {
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
      }
    fclose(f);
  }
  snprintf(path, sizeof path,
           "%s/devices/system/clocksource/clocksource0/current_clocksource",
           pmon__sysfs_root());
  if ((f = fopen(path, "r")) != NULL) {
    kernel = fgets(line, sizeof line, f) != NULL && strcmp(line, "tsc\n") == 0;
    fclose(f);
  }
  return constant && nonstop && kernel;
#else
  return 0;
#endif
}

/* A fresh (ns, stamp) pair; with the TSC it also refines the scale. */
static void anchor(uint64_t *ns, uint64_t *t)
{
  *ns = pmon__now_ns();
  *t = pmon__io_stamp(io.clock);
  if (io.clock == PMON_IO_TSC && *ns - io.ns0 >= 1000000 && *t > io.tsc0) {
    io.scale = (double)(*ns - io.ns0) / (double)(*t - io.tsc0);
    hot->gap_t = (uint64_t)((double)io.gap_ns / io.scale);
  }
}

/* Stamp T in ns, from the pair (NS, NOW) taken after it. */
static uint64_t stamp_ns(uint64_t t, uint64_t ns, uint64_t now)
{
  double back;

  if (io.clock == PMON_IO_NS)
    return t;
  back = (double)(int64_t)(now - t) * io.scale;
  return back < (double)ns ? (uint64_t)((double)ns - back) : 0;
}

int pmon__io_start(int multiple)
{
  if (atomic_load(&pmon__g.phase) != PMON_PHASE_RUNNING || io.started)
    return PMON_IO_OFF;
  io.ph = malloc(IO_PHASES * sizeof *io.ph);
  io.byname = calloc(2 * IO_NAMES, sizeof *io.byname);
  hot->sizes = calloc(2 * PMON_COMM_BINS, sizeof *hot->sizes);
  if (io.ph == NULL || io.byname == NULL || hot->sizes == NULL) {
    free(io.ph);
    free(io.byname);
    free(hot->sizes);
    io.ph = NULL;
    io.byname = NULL;
    hot->sizes = NULL;
    return PMON_IO_OFF;
  }
  io.clock = tsc_usable() ? PMON_IO_TSC : PMON_IO_NS;
  io.scale = 1;
  hot->gap_t = io.gap_ns;
  if (io.clock == PMON_IO_TSC) {
    uint64_t ns, t;

    /* A first scale over 200 us; anchor() refines it as the job goes. */
    io.ns0 = pmon__now_ns();
    io.tsc0 = pmon__io_stamp(io.clock);
    do {
      ns = pmon__now_ns();
      t = pmon__io_stamp(io.clock);
    } while (ns - io.ns0 < 200000 || t <= io.tsc0);
    io.scale = (double)(ns - io.ns0) / (double)(t - io.tsc0);
    hot->gap_t = (uint64_t)((double)io.gap_ns / io.scale);
  }
  io.pub_ns = pmon__g.pub != NULL
                ? (uint64_t)(pmon__g.pub_interval_s * 1e9) : 0;
  hot->pub_t = io.pub_ns > 0 ? pmon__io_stamp(io.clock) : UINT64_MAX;
  io.multiple = multiple;
  io.started = 1;
  atomic_store(&io.on, 1);
  __atomic_store_n(&hot->fast, !multiple, __ATOMIC_RELEASE);
  return io.clock;
}

/* Whether calls are counted now: from pmon__io_start() until the rank's
 * I/O is collected at finalize (pmon__io_json()) or freed. */
static int counting(void)
{
  return atomic_load_explicit(&io.on, memory_order_relaxed);
}

/* --- files, by name and by handle --- */

static uint32_t hash_bytes(const void *p, size_t n)
{
  const unsigned char *s = p;
  uint32_t h = 2166136261u; /* FNV-1a */

  while (n-- > 0)
    h = (h ^ *s++) * 16777619u;
  return h;
}

/* A new file record named NAME; -1 when there is no memory. */
static int new_file(const char *name)
{
  struct io_file *f;

  if (io.nfiles == io.cap) {
    int cap = io.cap ? 2 * io.cap : 16;

    if ((f = realloc(io.files, (size_t)cap * sizeof *f)) == NULL)
      return -1;
    io.files = f;
    io.cap = cap;
    if (io.last_f >= 0) /* moved */
      hot->c = &io.files[io.last_f].c;
  }
  f = &io.files[io.nfiles];
  memset(f, 0, sizeof *f);
  if ((f->name = strdup(name)) == NULL)
    return -1;
  return io.nfiles++;
}

/* The record of NAME; names beyond IO_NAMES share one.  -1: none. */
static int file_by_name(const char *name)
{
  uint32_t mask = 2 * IO_NAMES - 1;
  uint32_t i = hash_bytes(name, strlen(name)) & mask;
  int f;

  for (; io.byname[i] != 0; i = (i + 1) & mask)
    if (strcmp(io.files[io.byname[i] - 1].name, name) == 0)
      return io.byname[i] - 1;
  if (io.nfiles - (io.other >= 0) < IO_NAMES && (f = new_file(name)) >= 0) {
    io.byname[i] = f + 1;
    return f;
  }
  if (io.other < 0)
    io.other = new_file(IO_OTHER);
  return io.other;
}

static uint32_t hash_handle(uintptr_t h)
{
  return (uint32_t)(((uint64_t)h * 0x9E3779B97F4A7C15ull) >> 32);
}

static int handle_file(uintptr_t h)
{
  unsigned mask = io.nslot - 1;

  if (h == hot->h && io.last_f >= 0)
    return io.last_f;
  if (io.nslot == 0)
    return -1;
  for (unsigned i = hash_handle(h) & mask; io.slot[i].state != SLOT_EMPTY;
       i = (i + 1) & mask)
    if (io.slot[i].state == SLOT_USED && io.slot[i].key == h) {
      hot->h = h;
      hot->c = &io.files[io.slot[i].file].c;
      return io.last_f = io.slot[i].file;
    }
  return -1;
}

static void handle_forget(uintptr_t h)
{
  unsigned mask = io.nslot - 1;

  io.last_f = -1;
  hot->c = NULL;
  if (io.nslot == 0)
    return;
  for (unsigned i = hash_handle(h) & mask; io.slot[i].state != SLOT_EMPTY;
       i = (i + 1) & mask)
    if (io.slot[i].state == SLOT_USED && io.slot[i].key == h) {
      io.slot[i].state = SLOT_GONE;
      return;
    }
}

static void slot_put(struct io_slot *tab, unsigned n, uintptr_t h, int file)
{
  unsigned i = hash_handle(h) & (n - 1);

  while (tab[i].state == SLOT_USED)
    i = (i + 1) & (n - 1);
  tab[i].key = h;
  tab[i].file = file;
  tab[i].state = SLOT_USED;
}

/* Remember that handle H is FILE; without memory, its calls count only
 * in the totals. */
static void handle_put(uintptr_t h, int file)
{
  handle_forget(h); /* a handle MPI reuses */
  if (2 * (io.used + 1) > io.nslot) {
    unsigned n = io.nslot ? io.nslot : 32, live = 0;
    struct io_slot *tab;

    for (unsigned i = 0; i < io.nslot; i++)
      live += io.slot[i].state == SLOT_USED;
    while (4 * (live + 1) > n)
      n *= 2;
    if ((tab = calloc(n, sizeof *tab)) == NULL)
      return;
    for (unsigned i = 0; i < io.nslot; i++)
      if (io.slot[i].state == SLOT_USED)
        slot_put(tab, n, io.slot[i].key, io.slot[i].file);
    free(io.slot);
    io.slot = tab;
    io.nslot = n;
    io.used = live;
  }
  slot_put(io.slot, io.nslot, h, file);
  io.used++;
}

/* --- phases --- */

static int by_start(const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;

  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Sort the N phases of PH and merge those less than GAP apart; returns
 * how many are left. */
static int merge_phases(uint64_t (*ph)[3], int n, uint64_t gap)
{
  int k = 0;

  if (n == 0)
    return 0;
  qsort(ph, (size_t)n, sizeof *ph, by_start);
  for (int i = 1; i < n; i++) {
    if (ph[i][0] <= ph[k][1] || ph[i][0] - ph[k][1] <= gap) {
      if (ph[i][1] > ph[k][1])
        ph[k][1] = ph[i][1];
      ph[k][2] += ph[i][2];
    } else {
      k++;
      ph[k][0] = ph[i][0];
      ph[k][1] = ph[i][1];
      ph[k][2] = ph[i][2];
    }
  }
  return k + 1;
}

/* Close the open phase into io.ph, in ns. */
static void phase_close(void)
{
  uint64_t ns, now;

  anchor(&ns, &now);
  if (io.nph >= IO_PHASES - 1)
    while (io.nph > IO_PHASES / 2) {
      io.gap_ns = io.gap_ns > 0 ? 2 * io.gap_ns : 1000;
      hot->gap_t = (uint64_t)((double)io.gap_ns / io.scale);
      io.nph = merge_phases(io.ph, io.nph, io.gap_ns);
    }
  io.ph[io.nph][0] = stamp_ns(hot->cur0, ns, now);
  io.ph[io.nph][1] = stamp_ns(hot->cur1, ns, now);
  io.ph[io.nph++][2] = hot->cur_bytes;
  hot->have = 0;
}

/* PMON_IO_FREQ's entry (pmon__io_phase_hook()), NULL when it is off. */
static void (*phase_hook)(void);

void pmon__io_phase_hook(void (*fn)(void))
{
  __atomic_store_n(&phase_hook, fn, __ATOMIC_RELEASE);
}

static void phase_opens(void)
{
  void (*fn)(void) = __atomic_load_n(&phase_hook, __ATOMIC_ACQUIRE);

  if (fn != NULL)
    fn();
}

/* The hot path: a call from T0 to T1 that moved BYTES extends the open
 * phase, or closes it and opens the next. */
static void phase_add(uint64_t t0, uint64_t t1, uint64_t bytes)
{
  if (hot->have && t0 <= hot->cur1 + hot->gap_t && t1 + hot->gap_t >= hot->cur0) {
    hot->cur0 = t0 < hot->cur0 ? t0 : hot->cur0;
    hot->cur1 = t1 > hot->cur1 ? t1 : hot->cur1;
    hot->cur_bytes += bytes;
    /* A call that was in flight when PMON_IO_FREQ saw the phase idle. */
    if (__atomic_load_n(&hot->freq_out, __ATOMIC_RELAXED))
      phase_opens();
    return;
  }
  if (hot->have)
    phase_close();
  hot->cur0 = t0;
  hot->cur1 = t1;
  hot->cur_bytes = bytes;
  hot->have = 1;
  phase_opens(); /* PMON_IO_FREQ */
}

uint64_t pmon__io_now(void)
{
  return pmon__io_stamp(io.clock);
}

uint64_t pmon__io_age_ns(uint64_t t)
{
  uint64_t now = pmon__io_stamp(io.clock);

  return now > t ? (uint64_t)((double)(now - t) * io.scale) : 0;
}

uint64_t pmon__io_gap_ns(void)
{
  return io.gap_ns;
}

/* --- the calls --- */

static void count(struct pmon__io_counts *c, int kind, uint64_t bytes,
                  uint64_t dt, int ok)
{
  switch (kind) {
  case PMON_IO_READ:
    c->reads++;
    c->bytes_read += ok ? bytes : 0;
    break;
  case PMON_IO_WRITE:
    c->writes++;
    c->bytes_written += ok ? bytes : 0;
    break;
  case PMON_IO_META:
    c->meta++;
    break;
  default:
    break;
  }
  c->errors += !ok;
  c->ticks += dt;
}

static void account(int file, int kind, uint64_t bytes, uint64_t t0,
                    uint64_t t1, int ok)
{
  uint64_t dt = t1 > t0 ? t1 - t0 : 0;

  if (t1 < t0)
    t1 = t0;
  count(file >= 0 ? &io.files[file].c : &io.loose, kind, bytes, dt, ok);
  if (ok && (kind == PMON_IO_READ || kind == PMON_IO_WRITE)) {
    struct pmon__comm_row *r =
      &hot->sizes[(kind == PMON_IO_WRITE) * PMON_COMM_BINS +
                  pmon__comm_bin(bytes)];

    r->calls++;
    r->bytes += bytes;
    r->ticks += dt;
    r->ticks2 += (double)dt * (double)dt;
  }
  phase_add(t0, t1, ok && (kind == PMON_IO_READ || kind == PMON_IO_WRITE)
                      ? bytes : 0);
}

void pmon__io_open(uintptr_t h, const char *name, uint64_t t0, uint64_t t1,
                   int ok)
{
  int f;

  if (!counting())
    return;
  lock();
  if (!counting()) { /* collected meanwhile, by another thread */
    unlock();
    return;
  }
  f = name != NULL ? file_by_name(name) : -1;
  account(f, PMON_IO_META, 0, t0, t1, ok);
  if (ok && h != 0 && f >= 0)
    handle_put(h, f);
  if (t1 >= hot->pub_t)
    publish(t1);
  unlock();
}

void pmon__io_call(uintptr_t h, int kind, uint64_t bytes, uint64_t t0,
                   uint64_t t1, int ok)
{
  if (!counting())
    return;
  lock();
  if (counting()) {
    account(handle_file(h), kind, bytes, t0, t1, ok);
    if (t1 >= hot->pub_t)
      publish(t1);
  }
  unlock();
}

void pmon__io_close(uintptr_t h, uint64_t t0, uint64_t t1, int ok)
{
  if (!counting())
    return;
  lock();
  if (counting()) {
    account(handle_file(h), PMON_IO_META, 0, t0, t1, ok);
    if (ok)
      handle_forget(h);
    if (t1 >= hot->pub_t)
      publish(t1);
  }
  unlock();
}

/* --- at finalize --- */

static json_t *counts_json(const struct pmon__io_counts *c)
{
  /* Stamps in ns with the scale over the whole job. */
  uint64_t ns = (uint64_t)((double)c->ticks * io.scale);

  return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "bytes_read",
                   (json_int_t)c->bytes_read, "bytes_written",
                   (json_int_t)c->bytes_written, "reads",
                   (json_int_t)c->reads, "writes", (json_int_t)c->writes,
                   "meta_ops", (json_int_t)c->meta, "errors",
                   (json_int_t)c->errors, "time_ns",
                   (json_int_t)ns);
}

/* NAME as a JSON string; bytes that are not UTF-8 become '?'. */
static json_t *name_json(const char *name)
{
  json_t *s = json_string(name);
  char *copy;

  if (s != NULL || (copy = strdup(name)) == NULL)
    return s != NULL ? s : json_string(IO_OTHER);
  for (unsigned char *p = (unsigned char *)copy; *p != '\0'; p++)
    if (*p >= 0x80)
      *p = '?';
  s = json_string(copy);
  free(copy);
  return s;
}

/* The rank's data calls by size: [[op (0 read, 1 write), bin, calls,
 * bytes, ns, ns^2 (the sum of the calls' squared times, a real)]...],
 * the empty bins left out. */
static json_t *sizes_json(void)
{
  json_t *a = json_array();

  for (int k = 0; k < 2 * PMON_COMM_BINS; k++) {
    const struct pmon__comm_row *r = &hot->sizes[k];

    if (r->calls > 0)
      json_array_append_new(
        a, json_pack("[i, i, I, I, I, f]", k / PMON_COMM_BINS,
                     k % PMON_COMM_BINS, (json_int_t)r->calls,
                     (json_int_t)(r->bytes > INT64_MAX ? INT64_MAX : r->bytes),
                     (json_int_t)((double)r->ticks * io.scale),
                     r->ticks2 * io.scale * io.scale));
  }
  return a;
}

/*
 * This rank's I/O as its node leader takes it: {counts..., gap_s, phases:
 * [[start, end, bytes], ns after init], files: [{name, counts...}]}.
 * FINAL ends the counting and closes the open phase; otherwise the open
 * phase is listed as it stands and counting goes on.  Under the lock.
 */
static json_t *rank_json(int final)
{
  uint64_t t0 = pmon__g.t_init_ns, t1, t2;
  struct pmon__io_counts total;
  json_t *o, *ph, *files;

  if (final) {
    __atomic_store_n(&hot->fast, 0, __ATOMIC_RELEASE);
    atomic_store(&io.on, 0);
    if (hot->have)
      phase_close();
  }
  anchor(&t1, &t2); /* the last scale */
  total = io.loose;
  for (int i = 0; i < io.nfiles; i++) {
    const struct pmon__io_counts *c = &io.files[i].c;

    total.bytes_read += c->bytes_read;
    total.bytes_written += c->bytes_written;
    total.reads += c->reads;
    total.writes += c->writes;
    total.meta += c->meta;
    total.errors += c->errors;
    total.ticks += c->ticks;
  }
  o = counts_json(&total);
  ph = json_array();
  files = json_array();
  for (int i = 0; i <= io.nph; i++) {
    uint64_t a, b, n;

    if (i < io.nph) {
      a = io.ph[i][0];
      b = io.ph[i][1];
      n = io.ph[i][2];
    } else if (hot->have) { /* the open one, not final */
      a = stamp_ns(hot->cur0, t1, t2);
      b = stamp_ns(hot->cur1, t1, t2);
      n = hot->cur_bytes;
    } else {
      break;
    }
    json_array_append_new(ph, json_pack("[I, I, I]",
                                        (json_int_t)(a > t0 ? a - t0 : 0),
                                        (json_int_t)(b > t0 ? b - t0 : 0),
                                        (json_int_t)n));
  }
  for (int i = 0; i < io.nfiles; i++) {
    json_t *f = counts_json(&io.files[i].c);

    json_object_set_new(f, "name", name_json(io.files[i].name));
    json_array_append_new(files, f);
  }
  json_object_set_new(o, "gap_s", json_real((double)io.gap_ns * 1e-9));
  json_object_set_new(o, "phases", ph);
  json_object_set_new(o, "files", files);
  json_object_set_new(o, "sizes", sizes_json());
  return o;
}

/* This rank's I/O for its node leader, and the end of counting: null when
 * the interposition library never started, else rank_json(). */
json_t *pmon__io_json(void)
{
  json_t *o;

  if (!io.started)
    return json_null();
  lock();
  o = rank_json(1);
  unlock();
  return o;
}

/*
 * The rank's I/O so far into its slot for the spool (pmon__pub_io()), at
 * most every PMON_SPOOL_INTERVAL: called, under the lock, by a call that
 * ended at stamp T1 after hot->pub_t (the fast path leaves such a call to
 * the slow one).  The files are left out when the text would take more
 * than a quarter of the slot; the phases, IO_PHASES at most, always fit.
 */
static void publish(uint64_t t1)
{
  json_t *o = rank_json(0);
  char *text = NULL;

  hot->pub_t = t1 + (uint64_t)((double)io.pub_ns / io.scale);
  if (o != NULL && (text = json_dumps(o, JSON_COMPACT)) != NULL &&
      strlen(text) > PMON_PUB_BYTES / 4) {
    free(text);
    json_object_set_new(o, "files_left_out",
                        json_integer(json_array_size(json_object_get(o, "files"))));
    json_object_set_new(o, "files", json_array());
    text = json_dumps(o, JSON_COMPACT);
  }
  json_decref(o);
  if (text != NULL)
    pmon__pub_io(text, strlen(text));
  free(text);
}

static json_int_t iget(json_t *o, const char *key)
{
  return json_integer_value(json_object_get(o, key));
}

static double rget(json_t *o, const char *key)
{
  return json_number_value(json_object_get(o, key));
}

static const char *const count_keys[] = {"bytes_read", "bytes_written",
                                         "reads",      "writes",
                                         "meta_ops",   "errors"};
#define NCOUNT (sizeof count_keys / sizeof count_keys[0])

/* O[k] += R[k] for the counters; O's "ops" follows. */
static void add_counts(json_t *o, json_t *r)
{
  for (size_t k = 0; k < NCOUNT; k++)
    json_object_set_new(o, count_keys[k],
                        json_integer(iget(o, count_keys[k]) +
                                     iget(r, count_keys[k])));
  json_object_set_new(o, "ops",
                      json_integer(iget(o, "reads") + iget(o, "writes") +
                                   iget(o, "meta_ops")));
}

static json_t *zero_counts(void)
{
  json_t *o = json_object();

  for (size_t k = 0; k < NCOUNT; k++)
    json_object_set_new(o, count_keys[k], json_integer(0));
  json_object_set_new(o, "ops", json_integer(0));
  return o;
}

static int busiest(const void *a, const void *b)
{
  json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
  json_int_t bx = iget(x, "bytes_read") + iget(x, "bytes_written");
  json_int_t by = iget(y, "bytes_read") + iget(y, "bytes_written");

  if (bx != by)
    return bx < by ? 1 : -1;
  if (iget(x, "ops") != iget(y, "ops"))
    return iget(x, "ops") < iget(y, "ops") ? 1 : -1;
  return strcmp(json_string_value(json_object_get(x, "name")),
                json_string_value(json_object_get(y, "name")));
}

/*
 * Merge the file lists in LISTS (an array of arrays of file records with
 * time_s and ranks, or of a rank's records with time_ns) by name: counts
 * add up, times take the maximum, ranks add up.  Returns the busiest
 * first, at most MAX of them, and the number left out in *OMITTED.
 */
static json_t *merge_files(json_t *lists, int max, json_int_t *omitted)
{
  json_t *byname = json_object(), *list, *out = json_array();
  json_t **v;
  size_t i, n;

  json_array_foreach(lists, i, list) {
    json_t *f;
    size_t k;

    json_array_foreach(list, k, f) {
      const char *name = json_string_value(json_object_get(f, "name"));
      json_t *o, *ns = json_object_get(f, "time_ns");
      double t = ns != NULL ? (double)json_integer_value(ns) * 1e-9
                            : rget(f, "time_s");
      json_int_t ranks = ns != NULL ? 1 : iget(f, "ranks");

      if (name == NULL)
        continue;
      if ((o = json_object_get(byname, name)) == NULL) {
        o = zero_counts();
        json_object_set_new(o, "name", json_string(name));
        json_object_set_new(o, "time_s", json_real(0));
        json_object_set_new(o, "ranks", json_integer(0));
        json_object_set_new(byname, name, o);
      }
      add_counts(o, f);
      if (t > rget(o, "time_s"))
        json_object_set_new(o, "time_s", json_real(t));
      json_object_set_new(o, "ranks", json_integer(iget(o, "ranks") + ranks));
    }
  }
  n = json_object_size(byname);
  v = malloc((n ? n : 1) * sizeof *v);
  if (v != NULL) {
    const char *key;
    json_t *o;

    i = 0;
    json_object_foreach(byname, key, o)
      v[i++] = o;
    qsort(v, n, sizeof *v, busiest);
    for (i = 0; i < n && (int)i < max; i++) {
      json_t *o2 = json_pack("{s:O}", "name", json_object_get(v[i], "name"));

      /* Keys in a fixed order. */
      for (size_t k = 0; k < NCOUNT; k++)
        if (strcmp(count_keys[k], "errors") != 0)
          json_object_set(o2, count_keys[k],
                          json_object_get(v[i], count_keys[k]));
      json_object_set(o2, "ops", json_object_get(v[i], "ops"));
      json_object_set(o2, "time_s", json_object_get(v[i], "time_s"));
      json_object_set(o2, "ranks", json_object_get(v[i], "ranks"));
      json_array_append_new(out, o2);
    }
  }
  *omitted = (json_int_t)n - (json_int_t)json_array_size(out);
  free(v);
  json_decref(byname);
  return out;
}

static json_t *num_or_null(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

/* The data calls by size of a node or the job: calls, bytes, seconds and
 * joules per op (0 read, 1 write) and bin. */
struct sizes {
  double v[2][PMON_COMM_BINS][6]; /* calls, bytes, time, energy, its bar,
                                     the calls' squared times (s^2; NAN
                                     when a rank's record lacks them) */
};

/* The list of a rank's record (sizes_json()) into T. */
static void sizes_add_rank(struct sizes *t, json_t *list)
{
  json_t *e;
  size_t i;

  json_array_foreach(list, i, e) {
    json_int_t op = json_integer_value(json_array_get(e, 0));
    json_int_t k = json_integer_value(json_array_get(e, 1));

    if (op < 0 || op > 1 || k < 0 || k >= PMON_COMM_BINS)
      continue;
    t->v[op][k][0] += (double)json_integer_value(json_array_get(e, 2));
    t->v[op][k][1] += (double)json_integer_value(json_array_get(e, 3));
    t->v[op][k][2] += (double)json_integer_value(json_array_get(e, 4)) * 1e-9;
    t->v[op][k][5] += json_is_number(json_array_get(e, 5))
                        ? json_number_value(json_array_get(e, 5)) * 1e-18
                        : NAN;
  }
}

/* The standard deviation of the times of the calls of V (a sizes bin),
 * NAN when fewer than 2 or unknown. */
static double call_sd(const double *v)
{
  return pmon__call_sd(v[0], v[2], v[5]);
}

/* The report's list of T: per op and bin {op, size_min, size_max, calls,
 * bytes, time_s, call_sd_s, energy_j, energy_err_j, mb_per_j}; energies
 * null unless ENERGY. */
static json_t *sizes_list(const struct sizes *t, int energy)
{
  json_t *a = json_array();

  for (int op = 0; op < 2; op++)
    for (int k = 0; k < PMON_COMM_BINS; k++) {
      const double *v = t->v[op][k];
      double e = energy ? v[3] : NAN;

      if (v[0] <= 0)
        continue;
      json_array_append_new(
        a, json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:o, s:o, s:o}",
                     "op", op ? "write" : "read", "size_min",
                     (json_int_t)pmon__comm_bin_min(k), "size_max",
                     (json_int_t)pmon__comm_bin_max(k), "calls",
                     (json_int_t)v[0], "bytes", (json_int_t)v[1], "time_s",
                     v[2], "call_sd_s", num_or_null(call_sd(v)), "energy_j",
                     num_or_null(e), "energy_err_j",
                     num_or_null(energy ? v[4] : NAN), "mb_per_j",
                     num_or_null(e > 0 ? v[1] / 1e6 / e : NAN)));
    }
  return a;
}

/*
 * The node's I/O from its ranks' records (RANKS: [{rank, local, regions,
 * io}]): null when no rank counted I/O.  Its "files" are moved to the job
 * by pmon__io_job().
 */
json_t *pmon__io_node(json_t *ranks, json_t **files_out, int final)
{
  struct pmon_state *g = &pmon__g;
  json_t *o = NULL, *rk, *lists = json_array();
  uint64_t(*ph)[3] = NULL;
  size_t i, nph = 0, cap = 0;
  double time_s = 0, gap_s = 0, energy = 0, ptime = 0, all_s = 0;
  double err[3] = {0, 0, 0}, bar;
  struct sizes *sz = calloc(1, sizeof *sz);
  int n, lost = sz == NULL;

  *files_out = NULL;
  json_array_foreach(ranks, i, rk) {
    json_t *r = json_object_get(rk, "io"), *p;
    size_t k;

    if (!json_is_object(r))
      continue;
    if (o == NULL)
      o = zero_counts();
    add_counts(o, r);
    all_s += (double)iget(r, "time_ns") * 1e-9;
    if (sz != NULL)
      sizes_add_rank(sz, json_object_get(r, "sizes"));
    if ((double)iget(r, "time_ns") * 1e-9 > time_s)
      time_s = (double)iget(r, "time_ns") * 1e-9;
    if (rget(r, "gap_s") > gap_s)
      gap_s = rget(r, "gap_s");
    json_array_append(lists, json_object_get(r, "files"));
    json_array_foreach(json_object_get(r, "phases"), k, p) {
      if (nph == cap) {
        size_t nc = cap ? 2 * cap : 256;
        void *q = realloc(ph, nc * sizeof *ph);

        if (q == NULL) {
          lost = 1; /* their energy would be short: none is given */
          break;
        }
        ph = q;
        cap = nc;
      }
      ph[nph][0] = (uint64_t)json_integer_value(json_array_get(p, 0));
      ph[nph][1] = (uint64_t)json_integer_value(json_array_get(p, 1));
      ph[nph++][2] = (uint64_t)json_integer_value(json_array_get(p, 2));
    }
  }
  if (o == NULL) {
    free(ph);
    free(sz);
    json_decref(lists);
    return json_null();
  }
  /* The union of the ranks' phases, and the node total over it. */
  n = merge_phases(ph, (int)nph, 0);
  /* The spool's: the node is known up to its history's last point; a
   * phase goes up to there at most (its bytes are in the counts). */
  if (!final && g->hist.n >= 2) {
    uint64_t end = g->hist.p[g->hist.n - 1].t_ns - g->t_init_ns;

    while (n > 0 && ph[n - 1][0] >= end)
      n--;
    if (n > 0 && ph[n - 1][1] > end)
      ph[n - 1][1] = end;
  }
  for (int k = 0; k < n; k++) {
    ptime += (double)(ph[k][1] - ph[k][0]) * 1e-9;
    energy += pmon__hist_energy(g->t_init_ns + ph[k][0],
                                g->t_init_ns + ph[k][1]);
    pmon__hist_energy_err(g->t_init_ns + ph[k][0], g->t_init_ns + ph[k][1],
                          err);
  }
  if (g->total_meter < 0 || g->hist.n < 2 || lost)
    energy = NAN;
  free(io.node_ph); /* for the timeline (pmon__io_node_phases()) */
  io.node_ph = ph;
  io.node_nph = n;
  json_object_set_new(o, "time_s", json_real(time_s));
  json_object_set_new(o, "phases", json_integer(n));
  json_object_set_new(o, "phase_time_s", json_real(ptime));
  json_object_set_new(o, "energy_j", num_or_null(energy));
  bar = pmon__err_combine(err[0], err[1], err[2]);
  json_object_set_new(o, "energy_err_j",
                      num_or_null(isfinite(energy) ? bar : NAN));
  json_object_set_new(o, "energy_err_max_j",
                      num_or_null(isfinite(energy)
                                    ? pmon__err_max(err[0], err[1])
                                    : NAN));
  json_object_set_new(o, "power_w",
                      num_or_null(ptime > 0 ? energy / ptime : NAN));
  json_object_set_new(o, "gap_s", json_real(gap_s));
  /* The node's I/O energy shared by its calls in proportion to their time:
   * the data calls' share by size. */
  if (sz != NULL) {
    for (int op = 0; op < 2; op++)
      for (int k = 0; k < PMON_COMM_BINS; k++) {
        double f = all_s > 0 ? sz->v[op][k][2] / all_s : 0;

        sz->v[op][k][3] = energy * f;
        sz->v[op][k][4] = bar * f;
      }
    json_object_set_new(o, "sizes", sizes_list(sz, isfinite(energy)));
    free(sz);
  }
  {
    json_int_t omitted;

    /* Every name, up to what one rank tells apart: a file's figures are
     * then whole, unless a node has more names than that. */
    *files_out = merge_files(lists, io.nlist > 0 ? IO_NAMES : 0, &omitted);
    json_object_set_new(o, "files_omitted", json_integer(omitted));
  }
  json_decref(lists);
  return o;
}

static double ratio(double a, double b)
{
  return b > 0 && isfinite(a) && isfinite(b) ? a / b : NAN;
}

/* The job's I/O from the nodes' records; their "io_files" are moved in. */
json_t *pmon__io_job(json_t *nodes)
{
  json_t *o = NULL, *node, *lists = json_array();
  double time_s = 0, ptime = 0, energy = 0, power = 0, gap_s = 0, mb;
  double err = 0, emax = 0; /* the nodes' bars and bounds, added */
  int err_known = 1;
  double emb, epw;
  json_int_t phases = 0, omitted, no_energy = 0, node_omitted = 0;
  int measured = 0, est = 0;
  struct sizes *sz = calloc(1, sizeof *sz);
  size_t i;

  json_array_foreach(nodes, i, node) {
    json_t *r = json_object_get(node, "io"), *e;
    size_t k;

    if (json_object_get(node, "io_files") != NULL)
      json_array_append(lists, json_object_get(node, "io_files"));
    json_object_del(node, "io_files");
    if (!json_is_object(r))
      continue;
    if (o == NULL)
      o = zero_counts();
    add_counts(o, r);
    json_array_foreach(json_object_get(r, "sizes"), k, e) {
      json_int_t min = iget(e, "size_min");
      int b = pmon__comm_bin(min > 0 ? (uint64_t)min : 0);
      int op = json_is_string(json_object_get(e, "op")) &&
               strcmp(json_string_value(json_object_get(e, "op")), "write")
                 == 0;

      if (sz == NULL || b >= PMON_COMM_BINS)
        continue;
      sz->v[op][b][0] += (double)iget(e, "calls");
      sz->v[op][b][1] += (double)iget(e, "bytes");
      sz->v[op][b][2] += rget(e, "time_s");
      sz->v[op][b][3] += rget(e, "energy_j");
      sz->v[op][b][4] += json_is_number(json_object_get(e, "energy_err_j"))
                           ? rget(e, "energy_err_j")
                           : NAN;
      sz->v[op][b][5] += pmon__call_t2(
        (double)iget(e, "calls"), rget(e, "time_s"),
        json_is_number(json_object_get(e, "call_sd_s"))
          ? rget(e, "call_sd_s")
          : NAN);
    }
    time_s = rget(r, "time_s") > time_s ? rget(r, "time_s") : time_s;
    ptime = rget(r, "phase_time_s") > ptime ? rget(r, "phase_time_s") : ptime;
    gap_s = rget(r, "gap_s") > gap_s ? rget(r, "gap_s") : gap_s;
    phases += iget(r, "phases");
    node_omitted += iget(r, "files_omitted");
    json_object_del(r, "files_omitted");
    if (json_is_number(json_object_get(r, "energy_j"))) {
      measured = 1;
      energy += rget(r, "energy_j");
      if (json_is_number(json_object_get(r, "energy_err_j")))
        err += rget(r, "energy_err_j");
      else
        err_known = 0;
      /* A bound: the nodes' add. */
      emax += json_is_number(json_object_get(r, "energy_err_max_j"))
                ? rget(r, "energy_err_max_j")
                : NAN;
      if (json_is_number(json_object_get(r, "power_w")))
        power += rget(r, "power_w");
      est |= json_is_true(json_object_get(node, "estimated"));
    } else {
      no_energy++;
    }
  }
  if (o == NULL) {
    free(sz);
    json_decref(lists);
    return json_null();
  }
  if (!measured)
    energy = power = NAN;
  /* Rates per joule only over the bytes of nodes that measured theirs:
   * with any node unmeasured there is no such rate. */
  emb = no_energy > 0 ? NAN : energy;
  epw = no_energy > 0 ? NAN : power;
  mb = (double)(iget(o, "bytes_read") + iget(o, "bytes_written")) / 1e6;
  /* Keys in the documented order. */
  {
    json_t *doc = json_pack("{s:f}", "gap_s", gap_s);
    static const char *const order[] = {"bytes_read", "bytes_written",
                                        "reads",      "writes",
                                        "meta_ops",   "ops",
                                        "errors"};

    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
      json_object_set(doc, order[k], json_object_get(o, order[k]));
    json_decref(o);
    o = doc;
  }
  json_object_set_new(o, "time_s", json_real(time_s));
  json_object_set_new(o, "phases", json_integer(phases));
  json_object_set_new(o, "phase_time_s", json_real(ptime));
  json_object_set_new(o, "energy_j", num_or_null(energy));
  json_object_set_new(o, "energy_err_j",
                      num_or_null(measured && err_known ? err : NAN));
  json_object_set_new(o, "energy_err_max_j",
                      num_or_null(measured && err_known ? emax : NAN));
  json_object_set_new(o, "power_w", num_or_null(power));
  json_object_set_new(o, "mb_per_s", num_or_null(ratio(mb, time_s)));
  json_object_set_new(o, "mb_per_j", num_or_null(ratio(mb, emb)));
  json_object_set_new(o, "mb_per_s_per_w",
                      num_or_null(ratio(ratio(mb, time_s), epw)));
  json_object_set_new(o, "j_per_byte", num_or_null(ratio(emb, mb * 1e6)));
  json_object_set_new(o, "estimated", json_boolean(est));
  json_object_set_new(o, "nodes_without_energy", json_integer(no_energy));
  json_object_set_new(o, "files", merge_files(lists, io.nlist, &omitted));
  json_object_set_new(o, "files_omitted",
                      json_integer(omitted + node_omitted));
  json_object_set_new(o, "sizes", sz != NULL ? sizes_list(sz, no_energy == 0)
                                             : json_array());
  free(sz);
  json_decref(lists);
  return o;
}

int pmon__io_list_max(void)
{
  return io.nlist;
}

int pmon__io_node_phases(const uint64_t (**ph)[3])
{
  *ph = (const uint64_t(*)[3])io.node_ph;
  return io.node_nph;
}

void pmon__io_free(void)
{
  lock();
  __atomic_store_n(&hot->fast, 0, __ATOMIC_RELEASE);
  atomic_store(&io.on, 0);
  for (int i = 0; i < io.nfiles; i++)
    free(io.files[i].name);
  free(io.files);
  free(io.byname);
  free(io.slot);
  free(io.ph);
  free(io.node_ph);
  free(hot->sizes);
  hot->sizes = NULL;
  io.node_ph = NULL;
  io.node_nph = 0;
  io.files = NULL;
  io.byname = NULL;
  io.slot = NULL;
  io.ph = NULL;
  io.nfiles = io.cap = io.nph = hot->have = 0;
  io.nslot = io.used = 0;
  io.other = -1;
  memset(&io.loose, 0, sizeof io.loose);
  io.last_f = -1;
  hot->c = NULL;
  unlock();
}

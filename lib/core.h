/*
 * core.h - the state of pmon in one process, shared by the core's files.
 *
 * One process is one MPI rank (or the whole program without MPI).  The
 * ranks of a node elect a leader (local rank 0) that owns the node's
 * meters: it reads them on a sampler thread and publishes, per meter, the
 * node's cumulative energy per channel into a ring in node-shared memory
 * (the timeline).  Region boundaries in any rank of the node only take a
 * time stamp and fold it into per-region sums (lib/region.c); those sums
 * are turned into joules by interpolating the timeline once a later sample
 * exists.  See docs/internals.md.
 */
#ifndef PMON_CORE_H
#define PMON_CORE_H

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <mpi.h>

#include "clock.h"
#include "driver.h"
#include "bar.h"
#include "fold.h"
#include "hist.h"
#include "log.h"
#include "signals.h"

#define PMON_METER_MAX 8   /* meters per node */
#define PMON_RING 4096     /* samples kept per meter in the timeline */
#define PMON_EVENT_MAX 256 /* events kept per node; later ones are counted */
#define PMON_HIST 65536    /* points of the node total's history */
#define PMON_TIMELINE_DEFAULT 512 /* slices of a node's timeline */
#define PMON_TIMELINE_MAX 100000
#define PMON_TIMELINE_SPANS 64 /* I/O phases, and regions, per node */
#define PMON_CPU_READ_NS 20000000 /* /proc/stat is read at most this often */
/* CPUs as a bit mask of unsigned longs (the node's ranks' CPUs). */
#define PMON_CPUS_MAX 1024
#define PMON_CPU_WORDS (PMON_CPUS_MAX / (8 * sizeof(unsigned long)))
#define PMON_CPU_ISSET(c, m)                                               \
  (((m)[(c) / (8 * sizeof(unsigned long))] >>                              \
    ((c) % (8 * sizeof(unsigned long)))) & 1UL)
#define PMON_LABEL_MAX 255 /* bytes of PMON_LABEL */
#define PMON_TAGS_MAX 1023 /* bytes of PMON_TAGS */
#define PMON_TAG_KEY_MAX 64
#define PMON_COVERAGE_FULL 0.995 /* a region measured over less of its
                                    time says so in the summary */
#define PMON_TTL_READINGS 2.5 /* a sampled meter's readings further apart
                                 than this many intervals leave a gap */
#define PMON_PUB_BYTES (256 * 1024) /* a rank's slot for the spool */
#define PMON_SHARE_OTHERS 0.05 /* another user's processes are another
                                  job when they used more than this many
                                  CPU-seconds per second beside the job */
#define PMON_SHARE_OTHERS_MIN 1.0 /* and more than this many CPU-seconds
                                     in all (lib/evidence.c): a command
                                     run by hand is not a job */

/* One published sample: the node's energy per channel since init. */
struct pmon_tl_sample {
  uint64_t t_ns;           /* CLOCK_MONOTONIC, comparable across the node */
  uint64_t covered_ns;     /* measured time since the first sample: it
                              does not grow across a gap or a reset */
  double e[PMON_CH_MAX];   /* joules */
  double err[3];           /* the error made between readings since the
                              first sample, over the meter's channels in
                              the node total: the sum of each interval's
                              bound and of their squares (a sampled
                              meter's trapezoids; 0 for a counter); and
                              how far T_NS may be from the instant the
                              values held, in seconds */
};

/* One meter's timeline.  A single writer (the leader) fills s[seq % RING]
 * and then increments seq with release order; readers load seq with
 * acquire order and copy samples, checking that they were not overwritten.
 */
struct pmon_tl {
  _Atomic uint64_t seq; /* samples published so far */
  struct pmon_tl_sample s[PMON_RING];
};

/* The node-shared segment, written by the leader. */
/* PMON_IO_FREQ's state of a node (lib/iofreq.c), under LOCK. */
struct pmon_freq_shared {
  _Atomic int lock;
  int32_t active;       /* ranks in an I/O phase */
  int32_t capped;       /* the CPUs are capped now */
  uint32_t switches;    /* times they were capped */
  uint32_t failed;      /* writes that failed */
  uint32_t uncapped;    /* phases left uncapped: a calibration ran */
  int32_t cal_pid;      /* its pid (pmon-meters --calibrate-clock) */
  uint64_t t_cap_ns;    /* when they were capped last */
  uint64_t capped_ns;   /* the time they were capped, all told */
  /* Set by the leader at init, before the barrier after which any rank
   * may enter; read-only after it: */
  int32_t joined;       /* the job is in the node's record (lib/freqrec.c) */
  char job[64];         /* its key there */
  uint32_t orig_khz[PMON_CPUS_MAX]; /* each CPU's limit before any job */
};

struct pmon_shared {
  struct pmon_freq_shared freq;
  /* The spool's final write on SIGTERM and SIGINT (lib/spool.c): ARMED
   * while the leader's handler would make it, FINAL counts the writes it
   * made; the node's other ranks wait for FINAL to move before the
   * signal ends them (a launcher kills the rest when one rank dies). */
  _Atomic uint32_t spool_armed;
  _Atomic uint32_t spool_final;
  int32_t nmeters;
  int32_t total_meter;                /* -1 when the node has no total */
  uint32_t total_mask[PMON_METER_MAX]; /* per meter, its channels in the
                                         node total (0: not in it) */
  int32_t nch[PMON_METER_MAX];
  /* What the error bars take from each meter, over its channels in the
   * node total (lib/region.c, lib/report.c): */
  double res_j[PMON_METER_MAX];   /* a counter's resolution: the sum of the
                                     channels' scales, joules */
  double acc_rel[PMON_METER_MAX]; /* the stated accuracy: a fraction;
                                     NAN for an estimate (unknown) */
  double acc_w[PMON_METER_MAX];   /* and watts, times the channels */
  uint64_t t_init_ns;                 /* the leader's first sample time */
  struct pmon_tl tl[]; /* nmeters of them */
};

/*
 * A rank's regions as it last published them for the node's spool
 * (lib/regpub.c): a slot of PMON_PUB_BYTES in the node-shared segment,
 * only while the spool is on.  The rank writes it under SEQ, odd while it
 * writes; the leader's spool thread copies it and checks that SEQ did not
 * move (a sequence lock: the rank never waits for the leader).
 */
struct pmon_pub {
  _Atomic uint64_t seq;
  uint64_t len;      /* bytes of DATA in use */
  uint64_t t_ns;     /* when it was written */
  int32_t rank;      /* the world rank */
  uint32_t left_out; /* regions that did not fit */
  /* Set (release) once the rank counts its communication rows in place
   * after its slot (lib/comm.c), zeroed. */
  _Atomic uint32_t comm_on;
  uint32_t pad32;
  uint64_t pad[3];   /* DATA on a cache line of its own */
  char data[];
};

/* The bytes after each rank's slot that hold its communication rows, a
 * multiple of 64 (lib/comm.c). */
size_t pmon__pub_comm_bytes(void);

struct pmon_event {
  uint64_t t_ns;
  int meter;          /* index, or -1 */
  const char *type;   /* static string */
  char detail[200];
};

enum pmon_phase {
  PMON_PHASE_NONE = 0, /* before init, or after a failed init */
  PMON_PHASE_RUNNING,
  PMON_PHASE_FINALIZED,
  PMON_PHASE_DISABLED
};

struct pmon_thread;

/* lib/iofreq.c: PMON_IO_FREQ; every rank opens the node's CPUs' clock
 * limits at init; a rank enters when it opens an I/O phase (lib/io.c
 * calls the hook it set) and leaves after it (its own thread), or when it
 * stops (finalize); the leader's io.freq_policy, and the job's from the
 * nodes'. */
int pmon__iofreq_config(void);
void pmon__iofreq_open(void);
void pmon__iofreq_stop(void);
/* The leader, once every rank of the node has stopped: the job out of
 * the node's record, and the CPUs settled; _node_json() then says so. */
void pmon__iofreq_finish(void);
struct json_t *pmon__iofreq_node_json(void);
struct json_t *pmon__iofreq_job(struct json_t *nodes);
void pmon__iofreq_close(void);
/* lib/io.c for it: a stamp now (pmon__io_stamp()), the ns since stamp T,
 * and the gap; FN (NULL: none) is called when the rank opens an I/O
 * phase, and by a call while pmon__io_hot.freq_out says the rank is out
 * of its phase.  io.c stands below iofreq.c and reaches it only so. */
void pmon__io_phase_hook(void (*fn)(void));
uint64_t pmon__io_now(void);
uint64_t pmon__io_age_ns(uint64_t t);
uint64_t pmon__io_gap_ns(void);

/* lib/cpufreq.c: the leader opens the cpufreq files of the CPUs in CPUS;
 * a reading at T (at most every 0.1 s, else the last) gives their mean
 * MHz, NAN without one; the node record's cpu_freq (null before a
 * reading), and why there is none (NULL when there is). */
void pmon__cpufreq_open(const unsigned long *cpus);
double pmon__cpufreq_read(uint64_t t);
struct json_t *pmon__cpufreq_json(void);
const char *pmon__cpufreq_why(void);
void pmon__cpufreq_close(void);

/* lib/share.c: whether the node is shared.  _open, collective over the
 * node after pmon__node_setup(): the leader learns its ranks' pids and
 * what it can read of the job's and the node's CPU time and CPUs; _start,
 * the leader once its meters' first samples are taken: a first reading,
 * then a thread of its own looks for evidence of another job every second
 * (lib/evidence.c), and reads every 0.1 s once it has found some;
 * _named, the leader once the job has its id: its record for the other
 * jobs of the node; _finish, the leader at finalize once the pollers
 * have stopped: the thread stopped, a last reading, and the event
 * "shared" when the node was; _json, the node record's "sharing" (null
 * but on the leader); _close frees it all, the record removed.
 * Never fatal: what could not be read is null. */
int pmon__share_config(void);
void pmon__share_open(void);
void pmon__share_start(void);
void pmon__share_named(const char *job);
void pmon__share_finish(void);
/* The factor every energy of the node's final records is multiplied by,
 * from _finish on (the leader): 1, the job's share *F with its bar *ERR,
 * when the node was shared and the share is known; else *F 1 and *ERR 0,
 * and 0 when the node was not shared (or PMON_SHARE=off), -1 when it was
 * or may have been but the share is not known (the figures stay the
 * whole node's).  Before _finish, 0 or -1: a spool's snapshot is the
 * whole node's. */
int pmon__share_factor(double *f, double *err);
struct json_t *pmon__share_json(void);
/* pmon-report replay: the share the job's leader traced at finalize
 * (its split, as pmon__share_factor() answered, its share and bar, and
 * its "sharing"), which _factor and _json then give. */
void pmon__share_replayed(int split, double f, double err,
                          struct json_t *sharing);
void pmon__share_close(void);

/* lib/comm.c: PMON_COMM; the end of counting (first thing in finalize);
 * this rank's record for its leader; the node's from its ranks' (the
 * leader, after its final samples); the node's calls and bytes so far
 * (the leader's writer, while the job runs); the job's from the nodes'. */
int pmon__comm_config(void);
void pmon__comm_stop(void);
struct json_t *pmon__comm_json(void);
struct json_t *pmon__comm_node(struct json_t *ranks);
struct json_t *pmon__comm_so_far(void);
struct json_t *pmon__comm_job(struct json_t *nodes);
void pmon__comm_free(void);

/* lib/region.c */

struct pmon_state {
  _Atomic int phase;
  int by_preload;     /* started by the interposition library */
  int adopted;        /* ... and since claimed by the program's pmon_init */
  int mpi;            /* MPI was initialised at pmon_init */
  MPI_Comm world, node, leaders; /* private communicators; leaders is
                                    MPI_COMM_NULL outside leaders */
  int rank, size, local_rank, local_size, nnodes;
  int leader;
  unsigned long cpus[PMON_CPU_WORDS]; /* leader: the CPUs its node's ranks
                                         may run on, the union of their
                                         affinity masks */
  char node_name[256];
  MPI_Win win;        /* node-shared segment, MPI_WIN_NULL without MPI */
  struct pmon_shared *sh;
  void *sh_local;     /* malloc'd segment when there is no window */
  struct pmon_pub *pub;   /* this rank's slot; NULL without a spool */
  int pub_pid;            /* the process that owns it (not a child
                             forked since, which shares the mapping) */
  struct pmon_pub **pubs; /* leader: the slot of each local rank (NULL
                             for a rank without one), local_size */

  /* Leader only. */
  int nmeters;
  pthread_t poller[PMON_METER_MAX]; /* the thread that reads each meter */
  int poller_started[PMON_METER_MAX];
  struct pmon_mstate *ms;
  int total_meter;    /* the first meter in the node total, -1 for none:
                         its samples clock the total's history */
  uint32_t total_mask[PMON_METER_MAX]; /* per meter, its channels in the
                                          node total (pmon__total_plan) */
  unsigned covers;    /* what the node total covers: 1 << PMON_DOM_* */
  struct pmon_event *events;
  int nevents;
  struct pmon_hist hist; /* the node total over the whole job, at most
                            PMON_HIST points, evenly spaced (calc/hist.h) */
  unsigned long events_dropped;
  pthread_mutex_t lock; /* events, the history, and the pollers' waits */
  pthread_cond_t cond;  /* signalled to stop the pollers */
  int stop;

  struct pmon_spec specs[PMON_METER_MAX];
  int nspecs;
  int automatic;      /* PMON_METERS=auto */
  int quiet;
  double spool_interval_s; /* PMON_SPOOL_INTERVAL, 0: no spool (set by
                              pmon__spool_config()) */
  double pub_interval_s;   /* how often the ranks publish their regions
                              and I/O for the leader's writer thread: the
                              shorter of the spool's and the metrics'
                              intervals, 0 when neither is on (set by
                              pmon__metrics_config()) */
  int timeline;       /* PMON_TIMELINE: slices of each node's timeline in
                         the report, 0 for none */
  int cpu_fd;         /* leader: /proc/stat for the timeline, -1 */
  uint64_t cpu_t_ns, cpu_busy, cpu_total; /* its last reading */
  char output[PATH_MAX];
  char label[PMON_LABEL_MAX + 1]; /* PMON_LABEL, "" for none */
  char tags[PMON_TAGS_MAX + 1];   /* PMON_TAGS, checked */
  char jobid[128];
  char jobid_source[32];
  uint64_t t_init_ns, t_fin_ns;
  uint64_t t_end_ns;  /* the leader: when every rank of the node had called
                         pmon_finalize(), where its run ends (0 before) */
  struct timespec wall_start, wall_end;

  pthread_mutex_t threads_lock;
  struct pmon_thread *threads; /* every thread that used a region */
  int nthreads;
};

extern struct pmon_state pmon__g;

/* lib/meter.c */

/* One try of a reading: when the driver's read() began and ended, on the
 * library's clock, what it returned and what it filled.  A reading is up
 * to PMON_TRIES_MAX of them (sample_one() in lib/meter.c). */
#define PMON_TRIES_MAX 3
struct pmon_try {
  uint64_t t0, t1;
  int rc;                 /* 0, or the driver's PMON_E* code */
  struct pmon_reading r;
};

int pmon__meters_parse(const char *list);
int pmon__timeline_config(void);
int pmon__meters_open(void);
/* Meter number g->nmeters, its driver open (or its description taken
 * from a trace, by pmon-report replay), becomes one: the wrap guard, its
 * longest interval integrated. */
void pmon__meter_adopt(void);
/* Every meter open: which channels make the node total (g->total_mask,
 * g->covers, g->total_meter) and the history's memory. */
void pmon__meters_plan(void);
void pmon__meters_sample_all(uint64_t now);
/* One due reading of meter I, as its poller takes it (the quickest of its
 * tries, folded), and its next due time (ms->due_ns): the poller's step,
 * and a simulated clock's in the tests. */
void pmon__meter_poll(int i);
/*
 * Fold one reading of meter I, taken at T (CLOCK_MONOTONIC ns, later than
 * the meter's previous reading), into its energy, and publish it.  RC is
 * what the driver's read() returned, R what it filled (the failure's
 * message, when RC is not 0, is the thread's last error).  FORCE publishes
 * a reading that brings nothing new.  Returns 1 when a sample was
 * published, 0 when the reading failed, only primed the meter, or brought
 * nothing new.  The caller holds the meter: its poller, or the leader
 * with no poller running.  The meter's poller calls it after each read();
 * tests call it with simulated readings and times.
 */
int pmon__meter_fold(int i, int rc, struct pmon_reading *r, uint64_t t,
                     int force);
/*
 * Fold the reading of meter I whose N tries are T (1 to PMON_TRIES_MAX,
 * in the order taken; only the last may have failed, and its message is
 * the thread's last error): the quickest good try, its stamp bounded by
 * an earlier try that saw its value, its meter's quick time and retry
 * counts updated, as the poller does after reading.  The poller calls it
 * through sample_one(); pmon-report replay calls it with a trace's tries.
 * Returns as pmon__meter_fold(), or PMON_EINVAL for N out of range.
 */
int pmon__meter_tries(int i, const struct pmon_try *t, int n, int force);
/* Init's and finalize's wait for meter I's value after NOW
 * (pmon__meters_sample_all()): its start, its end (a value finalize
 * held is folded), and, after every meter's, the node total's history
 * made to end where its energy does. */
void pmon__meter_wait(int i, uint64_t now);
void pmon__meter_waited(int i);
void pmon__meters_waited(void);
int pmon__sampler_start(void);
void pmon__sampler_stop(void);
/* At finalize, after the last readings: each driver's finish() verdict as
 * a "cross_check" event. */
void pmon__meters_finish(void);
void pmon__meters_close(void);
void pmon__event(uint64_t t_ns, int meter, const char *type,
                 const char *fmt, ...) PMON_PRINTF(4, 5);
/* pthread_create(T, FN, ARG) with every signal blocked in the new thread:
 * the program's handlers stay on its own threads.  pthread_create's
 * answer. */
int pmon__thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/*
 * Which channels form the node total, so that nothing is counted twice:
 * the first measured meter that covers the whole node; else every measured
 * meter of parts of the node (RAPL, NVML) whose domains overlap none taken
 * before it, in order; else the first estimated meter.  Within a meter, its
 * PMON_CH_TOTAL channels.  M[0..N-1] are open meters; MASK[i] gets meter
 * i's channels in the total, 0 when it is left out.  Returns the domains
 * the total covers (1 << PMON_DOM_*), 0 when there is no total.  The same
 * rule for the library and pmon-meters(1).
 */
unsigned pmon__total_plan(const struct pmon_meter *const *m, int n,
                          uint32_t *mask);
/* Whether M, just opened by auto detection, can be a node's source: it has
 * a channel that the node's total can take (the node, or a part the report
 * states), and, a counter meter, one of those channels moves within its
 * stale limit, or PMON_VET_S when that is shorter or there is none (a
 * meter whose stale limit is longer is kept: it judges itself while it
 * runs).  0, or -1 with the reason, one line that ends in ": not used", in
 * WHY (SIZE bytes).  Reads M a few times, on the calling thread, until a
 * channel moves. */
#define PMON_VET_S 1.0
int pmon__meter_vet(struct pmon_meter *m, char *why, size_t size);

/* Make *M the meter of SPEC before its driver's open(): the driver, the
 * specification with the site file's secrets, the driver's read period,
 * flags and stated accuracy, or the specification's accuracy=.  0, or
 * PMON_ECONFIG (an unknown driver, a malformed accuracy=) or the site
 * file's error, with its message.  The library (pmon_init) and
 * pmon-meters open meters alike through it. */
int pmon__meter_prepare(struct pmon_meter *m, const struct pmon_spec *spec);

/* What COVERS (from pmon__total_plan) is, in words: "node", or the parts
 * joined by '+' ("cpu+memory+accel"); "" when 0. */
const char *pmon__covers_text(unsigned covers, char *buf, size_t size);

/* lib/site.c */
const char *pmon__site_path(int *is_default);
int pmon__site_meters(const char *node, struct pmon_spec *specs, int max,
                      int *n);
int pmon__site_secrets(struct pmon_spec *spec);
/* The share model the site file names for NODE (its first "share" line
 * whose pattern matches), into *MODEL: "cpu-time", "off", or NULL when
 * none does; 0, or PMON_ECONFIG for a file that does not parse. */
int pmon__site_share(const char *node, const char **model);
/* The clock calibration the site file names for NODE (its first
 * "calibration" line whose pattern matches) into PATH (SIZE bytes): ""
 * when none does or it does not fit; 0, or PMON_ECONFIG for a file that
 * does not parse. */
int pmon__site_calibration(const char *node, char *path, size_t size);
/* Called for each "meter" line of the site file, in order, with its line
 * number, its pattern and whether the pattern matches the node.  Only the
 * pattern is passed: a specification that is not the node's is never
 * parsed, since it may hold a secret. */
typedef void pmon__site_line_fn(void *arg, int lineno, const char *pattern,
                                int match);
/* As pmon__site_meters(); LINES[i], when LINES is not NULL, gets the line
 * number of SPECS[i], and SEEN, when not NULL, sees every meter line.
 * For pmon-meters(1). */
int pmon__site_meters_lines(const char *node, struct pmon_spec *specs,
                            int *lines, int max, int *n,
                            pmon__site_line_fn *seen, void *arg);

/* lib/timeline.c */
uint64_t pmon__tl_seq(const struct pmon_tl *tl);
/* The power of meter M's channels in the node total from energies EA at
 * TA to EB at TB (its samples' e[]); NAN when TB is not after TA. */
double pmon__tl_power(int m, const double *ea, uint64_t ta, const double *eb,
                      uint64_t tb);
int pmon__tl_get(const struct pmon_tl *tl, uint64_t idx,
                 struct pmon_tl_sample *out);
/* ERR: the sample's err[3], or NULL for none. */
void pmon__tl_publish(struct pmon_tl *tl, uint64_t t_ns, uint64_t covered_ns,
                      const double *e, int nch, const double *err);

/* Allocate the node total's history (PMON_HIST points, 3 MiB), every
 * page of it touched, so that the leader's memory does not grow as it
 * fills: called when the leader opens its meters.  0, or PMON_ENOMEM; a
 * history not allocated by then is allocated the same way at its first
 * point. */
int pmon__hist_open(void);
void pmon__hist_add(uint64_t t_ns, double e, uint64_t covered_ns,
                    const double *err);
double pmon__hist_energy(uint64_t t0, uint64_t t1);
/* The parts of the error bar of pmon__hist_energy(T0, T1), added to
 * ERR: [0] the terms that add linearly, [1] the bound of the others, [2]
 * the sum of their squares (pmon__err_combine() makes the bar).  Nothing
 * is added where pmon__hist_energy() gives NAN. */
void pmon__hist_energy_err(uint64_t t0, uint64_t t1, double err[3]);
/* The time the node total measured from T0 to T1, in seconds, as
 * pmon__hist_energy() (NAN where it has no history). */
double pmon__hist_covered(uint64_t t0, uint64_t t1);
void pmon__hist_free(void);
struct pmon_rtab;
/*
 * The node's timeline (docs/report-format.md, nodes[].timeline) as JSON
 * text, for the leader's node record: SLICES slices of the history, the
 * node's I/O phases PH[0..NPH-1] ({start, end, bytes}, ns after init, in
 * time order) and the spans of the regions of the node's table REGIONS
 * (PMON_RT_NODE level), its energies and powers times F, the job's
 * share of a shared node (1 else), their bars with F_ERR's (lib/share.c,
 * pmon__share_apply()).  The text is indented as json_dumps() with
 * JSON_INDENT(1) would indent it as the value of a node record's key.
 * NULL without memory; free() it.
 */
char *pmon__timeline_text(int slices, const struct pmon_rtab *regions,
                          const uint64_t (*ph)[3], int nph, double f,
                          double f_err);

/* lib/io.c */
int pmon__io_config(void);
/* PMON_IO_FILES: the files the report lists. */
int pmon__io_list_max(void);
struct json_t *pmon__io_json(void);
/* The node's I/O from its ranks' (pmon__io_json()), its phases kept for
 * the timeline (pmon__io_node_phases()); not FINAL (the spool's), they
 * go up to the node's latest sample at most.  The leader, holding
 * g->lock where the pollers run. */
struct json_t *pmon__io_node(struct json_t *ranks, struct json_t **files,
                             int final);
/* The node's I/O phases that pmon__io_node() found ({start, end, bytes},
 * ns after init, in time order) and how many; valid until pmon__io_free(). */
int pmon__io_node_phases(const uint64_t (**ph)[3]);
struct json_t *pmon__io_job(struct json_t *nodes);
void pmon__io_free(void);

/* lib/region.c */
/* PMON_MAX_REGIONS: distinct region names with entries of their own per
 * process; a new name beyond them counts in the region "(other)".
 * PMON_REGION_NODES: nodes listed per region in the report. */
#define PMON_MAX_REGIONS_DEFAULT 10000
#define PMON_MAX_REGIONS_MAX 100000000
#define PMON_REGION_NODES_DEFAULT 32
#define PMON_REGION_NODES_MAX 1000000
int pmon__regions_config(void);
/* The layout of the region blocks, from the node-shared segment: once it
 * is set up, in every rank. */
void pmon__regions_layout(void);
long pmon__regions_limit(void);
int pmon__regions_list_max(void);
/* Whether this process said, when it happened, that it folded names. */
int pmon__regions_said_folding(void);
int pmon__region_begin(const char *name);
int pmon__region_end(const char *name);
void pmon__regions_close_all(uint64_t now);
/* As pmon__regions_close_all(), with the sample counts SEQ loaded before
 * NOW given (pmon-report replay). */
void pmon__regions_close_at(uint64_t now, const uint64_t *seq);
/* A region call as a trace gives it (pmon-report replay): BEGIN 1 or 0,
 * NAME, and for an outermost call its instant NOW and the sample counts
 * SEQ (one per meter) loaded before it; SEQ NULL for a call inside
 * another of the same name.  Returns as pmon_region_begin/end(), or
 * PMON_EINVAL for an outermost call without SEQ. */
int pmon__region_replay(int begin, const char *name, uint64_t now,
                        const uint64_t *seq);
/* Make T (NULL: none yet) the calling thread's regions and return those
 * it had: a replay keeps each traced thread's apart. */
void *pmon__region_thread_swap(void *t);
/* The calling thread's regions, made if it had none; NULL when out of
 * memory. */
void *pmon__region_thread_make(void);
void pmon__regions_resolve(void);
void pmon__regions_free(void);
/* This process's regions, threads merged, as records of TAB (a
 * PMON_RT_NODE table, lib/rtab.h): the node total's energy and coverage
 * of the first thread that entered each, the pairs of all, the longest
 * thread's time; and the names it folded.  After pmon__regions_resolve().
 * PMON_ENOMEM when some were lost (TAB->lost counts them). */
struct pmon_rtab;
int pmon__regions_table(struct pmon_rtab *tab);

/* lib/regpub.c */
/* The rank's publication of its regions for the spool: its interval, and
 * region.c's boundaries calling it (pmon__regions_pub_hook()); at init,
 * after pmon__regions_layout(), before any region call. */
void pmon__pub_start(void);
/* The end of it: the hook cleared, its buffers freed; after
 * pmon__regions_free(). */
void pmon__pub_free(void);
/*
 * The node's regions as its ranks last published them, for the spool,
 * into NODE (a PMON_RT_NODE table): regions still open closed at the
 * node's latest sample and counted as unclosed.  *LEFT_OUT gets the
 * regions that did not fit in a rank's slot, *UNREAD the ranks whose slot
 * could not be read whole, *IO_RANKS their MPI-IO as [{"rank", "io"}]
 * (for pmon__node_snapshot()).  Leader, on the spool thread; 0 or
 * PMON_ENOMEM.  _json() gives NODE's records as the spool holds them,
 * {"name", "rank", "count", "unclosed", "time_s", "energy_j", "power_w",
 * "coverage", "first_s"} in order of first use.
 */
int pmon__regions_spool(struct pmon_rtab *node, unsigned long *left_out,
                        int *unread, struct json_t **io_ranks);
struct json_t *pmon__regions_spool_json(const struct pmon_rtab *node);
/* The rank's I/O so far (LEN bytes of compact JSON, lib/io.c) into its
 * slot, beside its regions. */
void pmon__pub_io(const char *text, size_t len);

/* lib/node.c */
/* This process's node name into BUF: PMON_NODE, else the host name. */
void pmon__node_name(char *buf, size_t size);
int pmon__node_setup(void);
int pmon__node_share(void);
void pmon__node_teardown(void);
/*
 * Bring what every rank of COMM holds to its rank 0 up a binomial tree,
 * in ceil(log2 P) rounds: PACK turns ACC into a message (malloc'd), MERGE
 * adds a received one to ACC.  At rank 0 ACC then holds everything, in
 * rank order where merging keeps order; elsewhere it was sent.  A message
 * that cannot be packed, sent or merged is recorded as an error (its
 * ranks are missing) and the walk goes on.  Nothing happens without MPI
 * (COMM is MPI_COMM_NULL).  WHAT names the data in messages.
 */
struct pmon_reducer {
  const char *what;
  int (*pack)(void *acc, char **buf, size_t *len);
  int (*merge)(void *acc, const char *buf, size_t len);
  void *acc;
};
int pmon__tree_reduce(MPI_Comm comm, const struct pmon_reducer *how);
/* The JSON arrays MINE of every rank of COMM, concatenated in rank order
 * into *ALL at rank 0 (NULL elsewhere); MINE is consumed. */
int pmon__tree_gather(MPI_Comm comm, struct json_t *mine,
                      struct json_t **all);

/* lib/report.c */
struct json_t *pmon__node_record(struct json_t *ranks,
                                 const struct pmon_rtab *regions);
/* Write the report of NODES (the node records, in leader order) and
 * REGIONS (the job's region records), and print the summary; rank 0.
 * Where PMON_OUTPUT cannot be written, one line says why and the report
 * goes to a new file in $TMPDIR or /tmp, named in that line; PMON_EOUTPUT
 * even then (and the spool stays: that file may be node-local).  SPOOL,
 * the job's spool directory or NULL, is named when the report could not
 * be written. */
int pmon__report(struct json_t *nodes, const struct pmon_rtab *regions,
                 const char *spool);

/* The node's record for the spool, as of NOW (ns): as the report's, its
 * I/O from IO_RANKS and its timeline's regions from REGIONS (what
 * pmon__regions_spool() found), phases up to the node's latest sample.
 * Caller holds g->lock. */
struct json_t *pmon__node_snapshot(uint64_t now, struct json_t *io_ranks,
                                  const struct pmon_rtab *regions);
/* The node's error bar (docs/report-format.md, "Error bars") from total
 * meter I's sample LAST, of energy EM over COVERED_S measured: adds its
 * resolution, accuracy, the sample's own terms and its stamp's error at
 * the power around it, and START (the start's term, J), to *LIN, *BOUND
 * and *SQ.  Reads the timeline's rings only: the spool's signal handler
 * calls it.  _start_j gives the start's term as the last record (the
 * report's or the spool's) had it; the caller of that holds g->lock. */
void pmon__bar_terms(int i, const struct pmon_tl_sample *last, double em,
                     double covered_s, double start, double *lin,
                     double *bound, double *sq);
double pmon__bar_start_j(int i);
/* Adds the run's label and tags (PMON_LABEL, PMON_TAGS) to the object JOB. */
void pmon__label_tags(struct json_t *job);
/* The report's path, from PMON_OUTPUT and the job id. */
void pmon__output_path(char *buf, size_t size);

/* The spool (lib/spool.c).  _config reads its variables, in every rank;
 * _start, on each node leader once the job id is known (collective over
 * the leaders), writes the first spool and starts its thread; _stop ends
 * the thread (and the SIGTERM handler) and may be called again; _done
 * removes the node's file when the report was written, _rmdir the job's
 * directory once every node's is gone. */
int pmon__spool_config(void);
void pmon__spool_start(void);
void pmon__spool_stop(void);
void pmon__spool_done(int report_written);
void pmon__spool_rmdir(void);
/* The job's spool directory while this node's spool file holds the job
 * (before pmon__spool_done()), else NULL. */
const char *pmon__spool_dir(void);

/* Prometheus metrics (lib/metrics.c, PMON_METRICS_DIR).  _config reads
 * the variables in every rank, after pmon__spool_config(), and sets
 * pub_interval_s; _start, on each node leader once the job id is known,
 * checks the directory; _write writes the node's file from the node
 * record REC (a snapshot, or the final record) and the node's regions
 * TAB, with pmon_job_running RUNNING: on the writer thread (lib/spool.c)
 * or, once it has ended, at finalize; 0 or -1.  _interval is 0 when no
 * metrics are written.  _done removes what PMON_METRICS_KEEP says, and
 * this job's file with DISCARD (a measurement nobody wants). */
int pmon__metrics_config(void);
void pmon__metrics_start(void);
double pmon__metrics_interval(void);
int pmon__metrics_write(const struct json_t *rec, const struct pmon_rtab *tab,
                        int running);
void pmon__metrics_done(int discard);

#endif /* PMON_CORE_H */

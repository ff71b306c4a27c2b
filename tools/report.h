/*
 * report.h - what the files of pmon-report(1) share: a report as read
 * (report-load.c), and the outputs that print it: text and CSV tables
 * (report-text.c).  pmon-report.c holds the command line and the JSON
 * output; report-compare.c the compare subcommand.
 */
#ifndef PMON_REPORT_H
#define PMON_REPORT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define PROG "pmon-report"

/* The newest report format version this reader knows.  Every older version
 * is read; newer ones are refused (pmon-report(5), "Versions"). */
#define FORMAT_VERSION 3

/* Room for one formatted table cell, and the most columns of a table. */
#define CELL_MAX 64
#define MAX_COLS 24

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#ifdef __GNUC__
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Sections of the text and CSV output, as bits of a mask: bit i is the
 * i-th name of --section (pmon-report.c). */
enum {
  SEC_SUMMARY = 1, SEC_NODES = 2, SEC_REGIONS = 4, SEC_EVENTS = 8,
  SEC_IO = 16, SEC_TIMELINE = 32, SEC_COMM = 64
};
#define SEC_ALL                                                              \
  (SEC_SUMMARY | SEC_NODES | SEC_REGIONS | SEC_EVENTS | SEC_IO |             \
   SEC_TIMELINE | SEC_COMM)

/*
 * A report as read.  Strings point into root and live as long as it does.
 * A figure that is null or absent in the file is NAN here, a string NULL,
 * a boolean -1 (absent), 0 or 1.  Integers are kept as doubles, which hold
 * them exactly up to 2^53, so that one formatter serves every figure.
 */
struct job {
  const char *id, *id_source, *start, *end;
  const char *label; /* PMON_LABEL, the run's name; NULL when absent. */
  json_t *tags;      /* PMON_TAGS: an object of strings, or NULL. */
  double ranks, nodes, wall_s;
  int mpi;
  double region_names_limit, region_names_folded; /* NAN before version 2 */
  const char *cpu_freq_req; /* SLURM_CPU_FREQ_REQ; NULL when absent. */
};

struct meter {
  const char *driver, *spec, *kind;
  int estimated;
  double interval_s;
};

struct channel {
  const char *name;
  int total;
  size_t meter; /* Index in report.meters. */
};

struct event {
  const char *node; /* The name of the node it happened on. */
  size_t node_index; /* Its index in report.nodes. */
  double t_s;
  const char *meter, *type, *detail;
};

/* What PMON_IO_FREQ did (io.freq_policy, nodes[].io.freq_policy); all
 * NAN when null or absent (cpus: the node's alone). */
struct iofreq {
  double requested_mhz, switches, capped_s, cpus, uncapped_phases;
};

/* The MPI-IO figures of one node (its "io" key); all NAN when it has none. */
struct nodeio {
  double bytes_read, bytes_written, reads, writes, meta_ops, ops, errors;
  double time_s, phases, phase_time_s, energy_j, energy_err_j, power_w, gap_s;
  struct iofreq freq_policy;
};

/* One I/O phase of a node's timeline: [start_s, end_s, bytes]. */
struct tlphase {
  double start_s, end_s, bytes;
};

/* A region of a node's timeline: the pairs its measuring rank completed,
 * the first and the last as [begin_s, end_s] (NAN when it has none). */
struct tlregion {
  const char *name;
  double rank, count;
  double first[2], last[2];
};

/*
 * A node's timeline (nodes[].timeline, format version 3): its run cut into
 * n equal slices, and the spans of its I/O phases and regions.  present is
 * 0 when the key is null or absent (format 1 and 2, or PMON_TIMELINE=0);
 * every member is then 0 or NAN.
 */
struct timeline {
  int present;
  size_t n;                     /* Slices. */
  double dt_s;                  /* As written; NAN when null. */
  double step_s;                /* The slice width to draw with: dt_s, or
                                   a guess from t_s or wall_s; NAN if none. */
  double *t_s, *power_w, *energy_j, *cpu_util; /* n each, NAN for null. */
  double *cpu_mhz;              /* n, all NAN in reports before it. */
  double *energy_err_j;         /* n: energy_j's error bars, the same. */
  struct tlphase *phases;       /* The phases listed. */
  size_t nphases;
  struct tlphase between;       /* The span of the phases not listed. */
  double between_count;         /* How many; NAN when every one is listed. */
  struct tlregion *regions;
  size_t nregions;
  double regions_omitted;
};

/* The clock of a node's CPUs (nodes[].cpu_freq); all NAN when null. */
struct cpufreq {
  double mean_mhz, min_mhz, max_mhz, cpus;
  const char *governor;
};

/* Whether the job had a node alone (nodes[].sharing); all NAN, NULL and
 * shared -1 when null or absent (reports from before it). */
struct sharing {
  double span_s, job_cpu_s, node_cpu_s, others_cpu_s, job_cpus, node_cpus;
  double share, share_err; /* the job's share by share_model, its bar */
  const char *source, *cpus_from, *share_model;
  int shared; /* 1, 0, or -1 when not known */
};

struct node {
  const char *name, *total_from, *covers, *total_how;
  const char *cpu_freq_why; /* Why cpu_freq is null; NULL when absent. */
  const char *clock_calibration; /* The site file's, for advise; NULL
                                    when none */
  struct cpufreq cpu_freq;
  struct sharing sharing;
  double ranks, energy_j, energy_err_j, wall_s, power_w;
  double energy_coverage; /* The least share of the run measured, 0 to 1. */
  double node_energy_j, node_energy_err_j; /* What the meters saw; NAN
                                              when absent (before it) */
  double share; /* The job's share in energy_j; NAN when absent or null */
  int estimated;
  double nevents;
  struct nodeio io;
  struct timeline tl;
};

struct region {
  const char *name;
  double count, time_s, energy_j, energy_err_j, power_w, unclosed;
  double coverage; /* Share of its time measured, 0 to 1; NAN if absent. */
  double share;  /* Percent of the job's energy, NAN when unknown. */
  const char *energy_method; /* "fit", "mixed", ...; NULL when absent
                                (a report from before it: interpolation) */
  size_t index;  /* Position in the file, to keep sorting stable. */
};

/* One element of io.files: the calls on one file over the whole job. */
struct iofile {
  const char *name;
  double bytes_read, bytes_written, reads, writes, meta_ops, ops, time_s;
  double ranks;
};

/* One element of io.sizes: the reads or the writes of one size bin. */
struct iosize {
  const char *op;
  double size_min, size_max, calls, bytes, time_s, energy_j, mb_per_j;
  double energy_err_j; /* NAN when absent or null */
  double call_sd_s;    /* the calls' times' standard deviation; NAN when
                          absent (before it) or fewer than 2 calls */
  const char *size; /* The bin as text, "64Ki-128Ki", in size_buf. */
  char size_buf[32];
};

/* The job's MPI-IO figures (the top-level "io" key). */
struct io {
  double gap_s, bytes_read, bytes_written, reads, writes, meta_ops, ops;
  double errors, time_s, phases, phase_time_s, energy_j, energy_err_j;
  double power_w;
  double mb_per_s, mb_per_j, mb_per_s_per_w, j_per_byte;
  int estimated;
  double nodes_without_energy, files_omitted;
  struct iofile *files;
  size_t nfiles;
  struct iosize *sizes;
  size_t nsizes;
  struct iofreq freq_policy;
};

/* One element of comm.calls_by: one call's calls of one size bin. */
struct commrow {
  const char *call;
  double size_min, size_max, calls, bytes, time_s, energy_j, energy_err_j;
  double s_per_byte, j_per_byte;
  double call_sd_s; /* the calls' times' standard deviation; NAN when
                       absent (before it) or fewer than 2 calls */
  const char *size;  /* The bin as text, "64Ki-128Ki", in size_buf. */
  char size_buf[32];
};

/* The job's communication calls (the top-level "comm" key). */
struct comm {
  double calls, bytes, time_s, energy_j, energy_err_j, s_per_byte;
  double j_per_byte;
  int estimated;
  double nodes_without_energy;
  struct commrow *rows;
  size_t nrows;
};

struct nodestat {
  const char *label;
  double min, max, mean, stddev;
};

struct report {
  json_t *root;
  long long version;
  const char *pmon_version;
  struct job job;
  double energy_j, energy_err_j, power_w; /* energy_err_j: NAN unknown */
  int estimated;
  int complete;       /* 0 for a report rebuilt from a spool, else -1 or 1 */
  const char *covers; /* What the energy covers: "node", "cpu+memory"... */
  struct meter *meters;
  struct channel *channels;
  struct node *nodes;
  struct event *events;
  struct region *regions;
  size_t nmeters, nchannels, nnodes, nevents, nregions;
  struct nodestat stats[2]; /* Node energy, node power. */
  int has_io;               /* Whether the job or a node has an io key. */
  struct io io;             /* All NAN when the job has no io key. */
  int has_comm;             /* Whether the job has a comm key. */
  struct comm comm;         /* All NAN when it has none. */
  size_t timelines;         /* Nodes whose timeline has slices. */
};

/* ---- report-load.c ----------------------------------------------------- */

/* Allocates zeroed memory for n elements of size sz (n may be 0); ends the
 * program when memory is exhausted. */
void *report_xcalloc(size_t n, size_t sz);

/* The sample standard deviation of the N values of V; NAN below 2. */
double report_sd(const double *v, size_t n);

/* Prints "WHO: MSG" as one line on stderr, after whatever stdout holds
 * (WHO is "pmon-report: compare" and the like), MSG escaped for a
 * terminal (base/tty.h: it may quote a file's name or bytes); returns
 * status, for "return report_say(1, ...)". */
int report_say(int status, const char *who, const char *fmt, ...)
  PRINTF_LIKE(3, 4);

/* Prints "pmon-report: NAME: MSG" on stderr, as report_say() does. */
void report_file_error(const char *name, const char *msg);

/* S as text for a terminal (base/tty.h: control characters and invalid
 * UTF-8 escaped): S itself when it needs nothing (NULL for NULL), else a
 * copy kept until report_tty_release().  Every text output passes the
 * strings it did not write itself through it, and measures them after. */
const char *report_tty(const char *s);

/* Frees the copies report_tty() made; the strings it gave are gone. */
void report_tty_release(void);

/* Loads and checks the report at path ("-" is standard input; shown as
 * name) into *r, which the caller then releases with report_free().
 * Returns 0, or -1 after printing one error line; *r then holds nothing. */
int report_open(const char *path, const char *name, struct report *r);

/* As report_open(), from the descriptor fd, which it closes. */
int report_open_fd(int fd, const char *name, struct report *r);

/* Checks the report root as report_open() checks a file, or the record of
 * one node, node (nodes[0] in the messages), with the list of its meters
 * ("meters", as a spool holds it) checked as a report's.  Returns 0, or -1 with the
 * reason ("bad report: ...") in why (when not NULL); prints nothing. */
int report_check(json_t *root, char *why, size_t size);
int report_check_node(json_t *node, char *why, size_t size);
/* As report_check_node(), for the job record (its scalar keys and tags). */
int report_check_job(json_t *job, char *why, size_t size);

/* Writes the size n in bytes, a power of two or 0, as "0", "512" or
 * "64Ki" (binary prefixes) into buf. */
void report_size_text(char *buf, size_t size, double n);

/* Releases what report_open() gave r and zeroes it. */
void report_free(struct report *r);

/* The value of the tag key of r's job (job.tags), borrowed from r; NULL
 * when the job has no such tag (or no tags: a report written before
 * them). */
const char *report_tag(const struct report *r, const char *key);

/* Why node n of r (or, for n NULL, every node of r) has no timeline to
 * draw, to follow the word "timeline", in a static string or written into
 * buf: "missing (report format 2, written before timelines)"; NULL when it
 * has one (for n NULL: when one node at least has one). */
const char *report_no_timeline(const struct report *r, const struct node *n,
                               char buf[96]);

/* ---- report-text.c ----------------------------------------------------- */

/* Prints the selected sections (SEC_* bits) of r as text, a blank line
 * between them.  The estimate note is printed even when the summary is not;
 * asked holds the sections that --section named, for which a report
 * without their figures says why. */
void report_text(FILE *out, const struct report *r, unsigned sections,
                 unsigned asked);

/* Prints the CSV tables of the selected sections of r, each after a line
 * "# NAME"; the summary has no CSV form. */
void report_csv(FILE *out, const struct report *r, unsigned sections);

/* Why r has no MPI-IO figures, in a few words. */
const char *report_no_io_reason(const struct report *r);

/* Why r has no communication figures, in a few words. */
const char *report_no_comm_reason(const struct report *r);

/* Orders struct regions by energy, largest first, those without a figure
 * last, ties in file order: a qsort() comparison. */
int report_by_energy(const void *a, const void *b);

/* ---- report-xml.c ------------------------------------------------------ */

/* Prints s as one CSV field, escaped for a terminal (report_tty(): a CSV
 * file is data, but it is often printed; the JSON keeps the exact text),
 * quoted as RFC 4180 asks when it holds a comma or a double quote; NULL
 * is an empty field. */
void report_csv_field(FILE *out, const char *s);

/* The characters of the UTF-8 string s (0 for NULL); an invalid byte counts
 * as one. */
size_t report_chars(const char *s);

/* Writes the string s (nothing for NULL) as the text or an attribute value
 * of an XML or HTML document: & < > " ' as references, control characters
 * (but tab and line breaks), noncharacters and invalid UTF-8 as U+FFFD.
 * When max is not 0 and s has more characters, writes max - 1 of them and
 * an ellipsis. */
void report_xml_text(FILE *out, const char *s, size_t max);

/* Formats v with an SI prefix and unit, three significant digits or the
 * integer below 1000: "82.5 kJ", "412 W", "1.41 GB"; NULL for NAN. */
const char *report_si(char buf[CELL_MAX], double v, const char *unit);

/* The number of characters of the UTF-8 string s, for aligning columns
 * (report-text.c). */
size_t report_text_width(const char *s);

/* The bytes of the first COLS characters of the N bytes of UTF-8 at S
 * (all N when they are fewer), for cutting a line at a width. */
size_t report_text_cut(const char *s, size_t n, size_t cols);

/* The nodes of R that were shared with other work (sharing.shared). */
size_t report_shared_nodes(const struct report *r);

/* The shared nodes of R whose figures are the job's share (a share and
 * node_energy_j in the node record). */
size_t report_shares_applied(const struct report *r);

/* What node ND's share (sharing.share) of its energy comes to, in J,
 * and its bar into *ERR: energy_j and its bar where they are the share
 * already (node_energy_j present); in a report from before it, the
 * energy's and the share's in quadrature (NAN when the energy's is
 * unknown); NAN when the energy or the share is unknown. */
double report_share_part(const struct node *nd, double *err);

/* The sign of an error bar: "\u00b1" when the locale's codeset is UTF-8,
 * else "+-". */
const char *report_pm(void);

/* Formats s seconds for people: "8.25 s", "2 min 00 s", "3 h 05 min",
 * or when COMPACT (a card of the page) "2m 00s", "3h 05m";
 * NULL for NAN. */
const char *report_duration(char buf[CELL_MAX], double s, int compact);

/* An output file being written: path ("-" is standard output), and the
 * temporary file beside it that is renamed to path when it is complete. */
struct report_out {
  const char *path;
  char tmp[PATH_MAX + 32];
  FILE *fp;
};

/* Opens o for path: standard output for "-", else a new file beside path
 * (O_EXCL, O_NOFOLLOW, a random name, mode 0666 less the umask; _mode:
 * MODE less the umask) that report_out_close() renames.  Returns the
 * stream, or NULL after printing one error line. */
FILE *report_out_open(struct report_out *o, const char *path);
FILE *report_out_open_mode(struct report_out *o, const char *path, int mode);

/* Completes o: flushes and closes it and, when keep is not 0, renames the
 * temporary file to the path asked for; otherwise (or when a write failed)
 * removes it, so that path is never left half written.  Returns 0 when the
 * output was kept, -1 otherwise (after printing one error line when a write
 * failed). */
int report_out_close(struct report_out *o, int keep);

/* ---- report-svg.c ------------------------------------------------------ */

/* Draws the power over time of the nodes of r as one <svg> element (SVG
 * 1.1) 960 pixels wide: a line per node, or bands over the nodes when they
 * are more than 16; the I/O phases, the unmeasured slices and the region
 * spans; axes and a legend.  A report without timelines gives a small
 * drawing that says why.  The ids of the drawing begin with id (unique
 * within a page); standalone adds the XML declaration and fixes the
 * drawing's size in pixels, where inline it scales to its container. */
void report_svg(FILE *out, const struct report *r, const char *id,
                int standalone);

/* ---- report-compare.c -------------------------------------------------- */

/* Runs "pmon-report compare": argv[0] is "compare", the options and the
 * files follow.  Returns the exit status: 0 when compared, 1 when a file
 * could not be read, the runs are not comparable or the output could not
 * be written, 2 on a usage error. */
int report_compare(int argc, char **argv);

/* ---- report-replay.c --------------------------------------------------- */

/* Runs "pmon-report replay": argv[0] is "replay", its options and the
 * trace files of one node (docs/trace-format.md).  Returns the exit
 * status. */
int report_replay(int argc, char **argv);

/* ---- report-rebuild.c -------------------------------------------------- */

/* Runs "pmon-report rebuild": argv[0] is "rebuild", its options and the
 * spool directory follow.  Returns the exit status: 0 when every spool
 * file was read and the report written, 1 when one was left out (the
 * report is still written from the others) or none could be read or the
 * report could not be written, 2 on a usage error. */
int report_rebuild(int argc, char **argv);

/* ---- report-metrics.c -------------------------------------------------- */

/* Runs "pmon-report metrics": argv[0] is "metrics", its options and the
 * report follow.  Returns the exit status: 0 when written, 1 when the
 * report could not be read or the output written, 2 on a usage error. */
int report_metrics(int argc, char **argv);

/* ---- report-watch.c ---------------------------------------------------- */

/* Runs "pmon-report watch": argv[0] is "watch", its options and the spool
 * directory or report follow.  Returns the exit status: 0 when the job
 * ended or its spool stopped moving, 2 on a usage error. */
int report_watch(int argc, char **argv);

/* ---- report-advise.c --------------------------------------------------- */

/* One change that would have cost less (pmon-report(1), ADVISE). */
struct report_advice {
  const char *kind; /* "comm-message-size", "io-access-size", "wait",
                       "io-clock" */
  char what[384], setting[256], assumes[1024];
  double saving_j, saving_err_j, time_change_s, time_change_err_s;
  char key[64];   /* the call, or "read" or "write" (none for wait) */
  double big_min; /* the size bin at whose J/B the small ones are put;
                     io-clock: the limit, MHz */
};

/* A node's clock calibration (pmon-meters --calibrate-clock): its points'
 * limits, powers waiting and computing with their bars, and speed; and
 * the powers with the calibration's part_cpus alone at the limit (NAN
 * when not measured). */
struct report_clockpoint {
  double mhz, wait_w, wait_err_w, compute_w, compute_err_w, speed;
  double part_wait_w, part_wait_err_w, part_compute_w, part_compute_err_w;
};

struct report_clockcal {
  json_t *root;
  const char *path;               /* a copy of the path it was read from */
  const char *node, *date;        /* NULL when absent */
  double found_mhz;               /* the limit jobs run under */
  double cpus, part_cpus;         /* the CPUs capped, all and part; NAN
                                     when absent (before them) or 0 */
  size_t n;
  struct report_clockpoint pt[16];
};

/* ---- report-clock.c ---------------------------------------------------- */

/* Reads the calibration at PATH into *C (released with
 * report_clockcal_free()); 0, or -1 after one line on standard error. */
int report_clockcal_load(const char *path, struct report_clockcal *c);
void report_clockcal_free(struct report_clockcal *c);

/* R's io-clock item by calibration C into IT (EST: the words an
 * estimated report adds; PAST, NPAST: earlier runs of the same program,
 * whose spread the bar counts); 0, or -1 when R's figures support none. */
int report_clock_item(const struct report *r,
                      const struct report_clockcal *c,
                      const struct report *past, size_t npast,
                      const char *est, struct report_advice *it);

/* BEFORE's io-clock item IT checked on AFTER: whether it was *APPLIED
 * and *HELD, the saving *REALIZED with its bar, and why, in WHY. */
void report_clock_check(const struct report *before,
                        const struct report *after,
                        const struct report_advice *it, int *applied,
                        int *held, double *realized, double *realized_err,
                        char *why, size_t size);

/* The advice of report R, the largest saving first: at most MAX items
 * into OUT; how many. */
size_t report_advice(const struct report *r, struct report_advice *out,
                     size_t max);

/* Runs "pmon-report advise": argv[0] is "advise", its options and the
 * report follow.  Returns the exit status: 0 (also with no advice), 1
 * when the report cannot be read, 2 on a usage error. */
int report_advise(int argc, char **argv);

/* ---- report-html.c ----------------------------------------------------- */

/* The style sheet of the pages (the job page, the comparison page): CSS
 * rules, one per line. */
extern const char report_html_style[];

/* Writes one HTML page of the n reports at paths ("-" is standard input)
 * to file ("-" is standard output), through report_out_open().  A report
 * that cannot be read is left out after its error line; when none can be,
 * no page is written.  Returns the exit status: 0 when every report is on
 * the page, else 1. */
int report_html(const char *file, char *const *paths, size_t n);

#endif /* PMON_REPORT_H */

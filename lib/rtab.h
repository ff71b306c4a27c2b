/*
 * rtab.h - region records, merged across threads, ranks and nodes.
 *
 * At finalize every rank turns its regions into a table of records, one
 * per name (lib/region.c).  The tables travel up two binomial trees as
 * compact binary messages and are merged by name at each step, so memory
 * at a node leader grows with the node's distinct names and at rank 0
 * with the job's, never with ranks or nodes times names:
 *
 *   node level   rank tables merged into the node's table (the rules of
 *                PMON_RT_NODE), over the node communicator;
 *   job level    each leader turns its node table into job records
 *                (pmon__rtab_to_job), merged over the leaders (the rules
 *                of PMON_RT_JOB); rank 0 writes them into the report.
 *
 * The rules are those of docs/report-format.md: pairs add up, times take
 * the maximum, first use the minimum; on a node the energy is the one
 * measured by the lowest rank that entered the region; over the job
 * energies and powers add up over nodes, coverage takes the least, and
 * each region keeps statistics over its nodes and lists them while they
 * are at most list_max.
 */
#ifndef PMON_RTAB_H
#define PMON_RTAB_H

#include <stddef.h>
#include <stdint.h>

enum { PMON_RT_NODE, PMON_RT_JOB };

/* Running statistics of a figure over nodes (Welford, merged with Chan's
 * formula): N values, their mean and sum of squared deviations M2, the
 * least and largest and the node index of each. */
struct pmon_stat {
  uint32_t n;
  int32_t imin, imax;
  double mean, m2, min, max;
};

/* One node's figures for a region, as listed in the job's record. */
struct pmon_rnode {
  int32_t node;    /* index among the leaders: nodes[] of the report */
  int32_t rank;    /* the world rank whose measurement counts */
  uint64_t count;
  double time_s;   /* the longest of the node's ranks */
  double energy_j; /* NAN: not measured */
  double energy_err_j; /* its error bar; NAN: not measured */
  double energy_err_max_j; /* its bound (pmon__err_max()); NAN: none */
  double power_w;  /* NAN: not measured */
  double coverage; /* NAN: not measured */
};

/* A region's record.  Figures that were not measured are NAN. */
struct pmon_rrec {
  uint64_t hash;
  uint64_t count, unclosed;
  double time_s;      /* the longest time of a rank (of a thread, in a
                         rank's own table) */
  double first_s;     /* first entered, seconds after init */
  double energy_j;    /* node: the measuring rank's; job: summed */
  double energy_err_j; /* its error bar, the same way (a bound over
                          nodes: they add) */
  double energy_err_max_j; /* the bound that always holds, the same way */
  double coverage;    /* the least */
  double power_w;     /* job: summed over nodes */
  double mtime_s;     /* node: the measuring rank's own time */
  int32_t rank;       /* node: the measuring world rank */
  uint64_t mcount;    /* node: the outermost pairs of the measuring
                         thread, those closed at finalize included */
  uint64_t span[4];   /* node: its first pair's begin and end, and its
                         last pair's, CLOCK_MONOTONIC ns of the node */
  uint32_t no_energy; /* job: nodes without an energy figure */
  uint32_t fitted;    /* node: 1 when its energy is the fit's (lib/
                         region.c, energy_method); job: such nodes */
  uint32_t nodes;     /* job: nodes that entered the region */
  int32_t listed;     /* job: entries in LIST; -1 once more than
                         list_max nodes entered it (none kept) */
  struct pmon_stat se, st; /* job: node energy, node time */
  struct pmon_rnode *list;
  uint32_t len;       /* of NAME */
  char name[];        /* NUL-terminated */
};

struct pmon_rtab {
  struct pmon_rrec **slot; /* open addressing, cap a power of two */
  size_t cap, n;
  int level;               /* PMON_RT_NODE or PMON_RT_JOB */
  int list_max;            /* job: nodes listed per region at most */
  uint64_t folded;         /* names folded into "(other)", summed over
                              processes */
  int folded_lower;        /* some process could not keep count */
  int lost;                /* records lost: out of memory, or a message
                              that did not parse */
};

/* FNV-1a of NAME (LEN bytes); never 0. */
uint64_t pmon__name_hash(const char *name, size_t len);

void pmon__rtab_init(struct pmon_rtab *t, int level, int list_max);
void pmon__rtab_free(struct pmon_rtab *t);

/* The record NAME (LEN bytes), created with every figure unmeasured and
 * *CREATED set when it was not there; NULL when out of memory. */
struct pmon_rrec *pmon__rtab_get(struct pmon_rtab *t, const char *name,
                                 size_t len, int *created);

/* Merge B, a record of the same level from elsewhere, into T.  B's list
 * is copied.  PMON_ENOMEM when it could not be kept. */
int pmon__rtab_merge(struct pmon_rtab *t, const struct pmon_rrec *b);

/* T as one message (malloc'd into *BUF, *LEN bytes), and the other way:
 * merge a message into T.  The format is this build's own, for the ranks
 * of one job: host byte order, no version. */
int pmon__rtab_pack(const struct pmon_rtab *t, char **buf, size_t *len);
int pmon__rtab_unpack(struct pmon_rtab *t, const char *buf, size_t len);

/* The energies of node table T as the job's share F +- F_ERR of the
 * node's: each E F, its bar sqrt((F ERR)^2 + (E F_ERR)^2) (lib/share.c,
 * pmon__share_apply()). */
void pmon__rtab_share(struct pmon_rtab *t, double f, double f_err);

/* Turn a node table into job records of node NODE (its index among the
 * leaders). */
void pmon__rtab_to_job(struct pmon_rtab *t, int node);

/* The records in order of first use (then by name); NULL when T is empty
 * or out of memory.  The caller frees the array, not the records. */
struct pmon_rrec **pmon__rtab_sorted(const struct pmon_rtab *t);

/* How job record R's energy was made (docs/report-format.md,
 * energy_method): "fit", "interpolation", "mixed" (some nodes each way)
 * or "none" (not measured). */
const char *pmon__rtab_method(const struct pmon_rrec *r);

struct json_t;
/* Job record R as an element of the report's "regions" array; NODES is
 * the report's "nodes" array, whose names the node indices refer to.
 * Sorts R's list by node. */
struct json_t *pmon__rtab_rec_json(struct pmon_rrec *r, struct json_t *nodes);

#endif /* PMON_RTAB_H */

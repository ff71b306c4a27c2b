/*
 * expo.h - pmon's figures as Prometheus metrics: the text exposition
 * format (version 0.0.4, which node_exporter's textfile collector and the
 * Pushgateway read), one family after another, each with its # HELP and
 * # TYPE.  The library writes it for a running node (PMON_METRICS_DIR,
 * lib/metrics.c) and pmon-report for a finished report ("pmon-report
 * metrics"); base/expo.c is compiled into both, so that the names, help
 * texts and labels are the same.  pmon-metrics(7) documents the series.
 */
#ifndef PMON_EXPO_H
#define PMON_EXPO_H

#include <stddef.h>
#include <stdio.h>

/* A region's figures on one node.  NAME is any byte string: its label
 * value is escaped, and bytes that are not UTF-8 become U+FFFD. */
struct pmon_expo_region {
  const char *name;
  double energy_j; /* NAN: unknown, the series is left out */
  double seconds;
};

/* A meter of the node, and whether it is stale now. */
struct pmon_expo_meter {
  const char *name;
  int stale;
};

/* One node's figures.  A NAN figure is unknown: its series is left out
 * rather than written as 0 (no number is invented). */
struct pmon_expo_node {
  const char *job, *node;
  const char *covers; /* what the node's energy covers; NULL: "" */
  int running;        /* pmon_job_running */
  int estimated;      /* the energy is an estimate: 1, else 0 */
  double energy_j, energy_err_j;
  double power_w; /* the mean over the last interval */
  double io_read_bytes, io_written_bytes, io_energy_j;
  double comm_bytes;
  const struct pmon_expo_meter *meters;
  size_t nmeters;
  const struct pmon_expo_region *regions; /* already bounded */
  size_t nregions;
};

/* The name of the series that sums the regions left out. */
#define PMON_EXPO_OTHER "(other)"

/*
 * Writes the exposition of N nodes to F: each family once, its samples
 * for every node.  0, or -1 when F reports a write error.
 */
int pmon__expo_write(FILE *f, const struct pmon_expo_node *nodes, size_t n);

/*
 * Bounds the N regions of R to at most MAX named ones: the largest by
 * energy first (unknown last), the rest summed into one more entry named
 * PMON_EXPO_OTHER, as is a region of that name.  Reorders R; returns how
 * many entries of R are now to be written (at most MAX + 1, which R has
 * room for when N > MAX).
 */
size_t pmon__expo_bound(struct pmon_expo_region *r, size_t n, size_t max);

#endif /* PMON_EXPO_H */

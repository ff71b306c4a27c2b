/*
 * report-metrics.c - "pmon-report metrics REPORT": a finished report as
 * Prometheus metrics, the series a running job writes with
 * PMON_METRICS_DIR (pmon-metrics(7)), through the same writer
 * (base/expo.c), for a Pushgateway or a textfile collector's directory.
 *
 * Per node: its energy, error bar and coverage ("covers"), its power over
 * the last slice of its timeline (the node's mean power without one), its
 * MPI-IO bytes and energy, its communication bytes, its meters (stale
 * when the meter ended the run frozen), its regions (those the report
 * lists for it, bounded as a running job bounds them), and
 * pmon_job_running 0.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "expo.h"

#define CMD PROG ": metrics"
#define complain(status, ...) report_say(status, CMD, __VA_ARGS__)

static const char *const usage =
  "usage: " PROG " metrics [--regions N] [-o FILE] REPORT\n"
  "Print the figures of REPORT as Prometheus metrics (the text format\n"
  "that node_exporter's textfile collector and the Pushgateway read), the\n"
  "series a running job writes with PMON_METRICS_DIR (pmon-metrics(7)).\n"
  "\n"
  "  --regions N   name at most N regions per node, the rest summed as\n"
  "                \"(other)\" (default 32, as PMON_METRICS_REGIONS)\n"
  "  -o FILE       write FILE whole (a new file renamed over it, mode\n"
  "                0644 whatever the umask), not standard output\n"
  "  -h, --help    print this help\n";

static double num(json_t *o, const char *key)
{
  json_t *v = json_object_get(o, key);

  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Node I of R (its record NODE) as an exposition node, its regions and
 * meters in arrays the caller frees. */
static void one_node(const struct report *r, size_t i, json_t *node,
                     size_t max, struct pmon_expo_node *x)
{
  const struct node *n = &r->nodes[i];
  json_t *cov = json_object_get(node, "coverage");
  json_t *regs = json_object_get(r->root, "regions");
  struct pmon_expo_region *reg;
  struct pmon_expo_meter *met;
  size_t k, nreg = 0;

  x->job = r->job.id;
  x->node = n->name;
  x->covers = n->covers;
  x->running = 0;
  x->estimated = n->estimated == 1;
  x->energy_j = n->energy_j;
  x->energy_err_j = n->energy_err_j;
  x->power_w = n->tl.present && n->tl.n > 0 ? n->tl.power_w[n->tl.n - 1]
                                             : n->power_w;
  if (isnan(x->power_w))
    x->power_w = n->power_w;
  x->io_read_bytes = n->io.bytes_read;
  x->io_written_bytes = n->io.bytes_written;
  x->io_energy_j = n->io.energy_j;
  x->comm_bytes = num(json_object_get(node, "comm"), "bytes");
  met = report_xcalloc(json_array_size(cov), sizeof *met);
  for (k = 0; k < json_array_size(cov); k++) {
    json_t *c = json_array_get(cov, k);

    met[x->nmeters].name = json_string_value(json_object_get(c, "meter"));
    if (met[x->nmeters].name != NULL)
      met[x->nmeters++].stale =
        json_is_number(json_object_get(c, "stale_at_s"));
  }
  x->meters = met;
  /* The node's row of each region (a region entered on more nodes than
   * the report lists per region has none). */
  reg = report_xcalloc(json_array_size(regs) + 1, sizeof *reg);
  for (k = 0; k < json_array_size(regs); k++) {
    json_t *g = json_array_get(regs, k), *rows = json_object_get(g, "nodes");
    const char *name = json_string_value(json_object_get(g, "name"));

    for (size_t j = 0; name != NULL && j < json_array_size(rows); j++) {
      json_t *row = json_array_get(rows, j);
      const char *on = json_string_value(json_object_get(row, "name"));

      if (on != NULL && n->name != NULL && strcmp(on, n->name) == 0) {
        reg[nreg++] = (struct pmon_expo_region){
          name, num(row, "energy_j"), num(row, "time_s")};
        break;
      }
    }
  }
  x->regions = reg;
  x->nregions = pmon__expo_bound(reg, nreg, max);
}

int report_metrics(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"regions", required_argument, NULL, 'r'},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  const char *out = "-", *name;
  struct pmon_expo_node *x;
  struct report_out ro;
  struct report r;
  unsigned long max = 32;
  char *end;
  int c, ok;
  FILE *fp;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'r':
      errno = 0;
      max = strtoul(optarg, &end, 10);
      if (errno != 0 || end == optarg || *end != '\0' || *optarg == '-' ||
          max > 10000)
        return complain(2, "--regions %s: not a count from 0 to 10000",
                        optarg);
      break;
    case 'o': out = optarg; break;
    case 'h': fputs(usage, stdout); return 0;
    case ':':
      return complain(2, "%s: option needs an argument", argv[optind - 1]);
    default:
      return complain(2, "%s: invalid option", argv[optind - 1]);
    }
  }
  if (argc - optind != 1) {
    fputs(usage, stderr);
    return 2;
  }
  name = strcmp(argv[optind], "-") ? argv[optind] : "(standard input)";
  if (report_open(argv[optind], name, &r) != 0)
    return 1;
  x = report_xcalloc(r.nnodes, sizeof *x);
  for (size_t i = 0; i < r.nnodes; i++)
    one_node(&r, i, json_array_get(json_object_get(r.root, "nodes"), i),
             (size_t)max, &x[i]);
  if ((fp = report_out_open_mode(&ro, out, 0644)) == NULL)
    ok = 0;
  else if (fp != stdout && fchmod(fileno(fp), 0644) != 0) {
    /* node_exporter runs as its own user: the file is for all to read,
     * whatever the umask, as the library's own (lib/metrics.c). */
    complain(1, "%s: cannot make it readable by all: %s", out,
             strerror(errno));
    ok = 0;
    report_out_close(&ro, 0);
  } else {
    ok = pmon__expo_write(fp, x, r.nnodes) == 0;
    ok = report_out_close(&ro, ok) == 0 && ok;
  }
  for (size_t i = 0; i < r.nnodes; i++) {
    free((void *)x[i].meters);
    free((void *)x[i].regions);
  }
  free(x);
  report_free(&r);
  return ok ? 0 : 1;
}

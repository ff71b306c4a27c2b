/*
 * timeline_cost - what a node's timeline (nodes[].timeline of the report)
 * costs in the report and at rank 0, at its largest (bench/README.md).
 *
 * A node leader is set up as pmon_init sets one up for one sampled meter
 * (as bench/run_length does), and 2 simulated hours of readings at 10 Hz
 * go through the core with the node's CPU time read from /proc/stat as
 * the timeline reads it.  The node has 200 I/O phases (64 are listed) and
 * 100 regions of 20-character names (64 are listed): every part of the
 * timeline is at its bound.  Printed: the bytes of the timeline at
 * PMON_TIMELINE = 512 and at a few other sizes, the time to build it, and
 * what rank 0's heap holds for it as text (how the node record carries
 * it) against the same timeline parsed into JSON values, the baseline.
 */
#include "config.h"

#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "core.h"
#include "rtab.h"
#include "bench.h"
#include "leader.h"

#define HZ 10
#define HOURS 2
#define T0 UINT64_C(5000000000000) /* ns: the simulated clock's start */
#define PHASES 200
#define REGIONS 100

static uint64_t sim_ns;

static int sim_open(struct pmon_meter *m)
{
  return pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1,
                                 0) < 0;
}

static int sim_read(struct pmon_meter *m, struct pmon_reading *r)
{
  double s = (double)(sim_ns - T0) * 1e-9;

  (void)m;
  r->watts[0] = 300 + 120 * sin(s / 97.0) + 40 * sin(s / 7.3);
  return 0;
}

static const struct pmon_driver sim = {
  .name = "sim",
  .description = "a varying power on a simulated clock, for the bench",
  .flags = PMON_DRV_SAMPLED,
  .interval_s = 1.0 / HZ,
  .open = sim_open,
  .read = sim_read,
};

static size_t heap_bytes(void)
{
  struct mallinfo2 mi = mallinfo2();

  return mi.uordblks + mi.hblkhd;
}

int main(void)
{
  struct pmon_state *g = &pmon__g;
  static uint64_t ph[PHASES][3];
  static const int sizes[] = {64, 128, 256, 512, 1024};
  struct pmon_rtab tab;
  uint64_t n = (uint64_t)HOURS * 3600 * HZ;
  double build[9];
  size_t len = 0, before, as_text, as_json;
  char *text = NULL;
  json_t *parsed;

  /* The leader, with the timeline on so that /proc/stat is read. */
  g->timeline = PMON_TIMELINE_DEFAULT;
  if (bench_leader(&sim, T0) != 0)
    return 1;
  for (uint64_t k = 0; k < n; k++) {
    struct pmon_reading r;

    sim_ns = T0 + k * 1000000000u / HZ;
    memset(&r, 0, sizeof r);
    pmon__meter_fold(0, sim_read(NULL, &r), &r, sim_ns, 0);
  }
  for (int k = 0; k < PHASES; k++) {
    ph[k][0] = (uint64_t)k * 30000000000u + 5000000000u;
    ph[k][1] = ph[k][0] + 2345678901u;
    ph[k][2] = UINT64_C(1073741824) + (uint64_t)k * 4096;
  }
  pmon__rtab_init(&tab, PMON_RT_NODE, 32);
  for (int k = 0; k < REGIONS; k++) {
    char name[32];
    int created;
    struct pmon_rrec *r;

    snprintf(name, sizeof name, "solver_phase_%07d", k); /* 20 characters */
    if ((r = pmon__rtab_get(&tab, name, strlen(name), &created)) == NULL)
      return 1;
    r->first_s = k;
    r->rank = 0;
    r->mcount = 1000;
    r->span[0] = T0 + (uint64_t)k * 60000000000u + 123456789u;
    r->span[1] = r->span[0] + 987654321u;
    r->span[2] = T0 + (uint64_t)HOURS * 3600000000000u - 4000000000u;
    r->span[3] = r->span[2] + 3210987654u;
  }

  printf("timeline_cost: one node, %d h at %d Hz simulated (%llu readings, "
         "history %zu points), %d I/O phases, %d regions of 20-character "
         "names\n",
         HOURS, HZ, (unsigned long long)n, g->hist.n, PHASES, REGIONS);
  printf("%14s %14s %14s\n", "PMON_TIMELINE", "bytes", "bytes/slice");
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char *t = pmon__timeline_text(sizes[i], &tab, (const uint64_t(*)[3])ph,
                                  PHASES, 1, 0); /* a node held whole */

    if (t == NULL)
      return 1;
    printf("%14d %14zu %14.1f\n", sizes[i], strlen(t),
           (double)strlen(t) / sizes[i]);
    free(t);
  }
  for (int r = 0; r < 9; r++) {
    double t0 = bench_now();

    free(text);
    text = pmon__timeline_text(PMON_TIMELINE_DEFAULT, &tab,
                               (const uint64_t(*)[3])ph, PHASES, 1, 0);
    build[r] = bench_now() - t0;
    if (text == NULL)
      return 1;
  }
  len = strlen(text);
  printf("timeline_cost: at the default (%d slices) %zu bytes per node, "
         "%.0f MB for 10,000 nodes; built in %.0f us (median of 9)\n",
         PMON_TIMELINE_DEFAULT, len, (double)len * 1e4 / 1e6,
         bench_median(build, 9) * 1e-3);

  /* Rank 0's heap: the text as a JSON string (as the node record carries
   * it), against the baseline, the timeline as JSON values. */
  before = heap_bytes();
  {
    json_t *s = json_string(text);

    as_text = heap_bytes() - before;
    before = heap_bytes();
    parsed = json_loads(text, 0, NULL);
    as_json = heap_bytes() - before;
    json_decref(s);
  }
  if (parsed == NULL)
    return 1;
  printf("timeline_cost: rank 0 holds %zu bytes per node as text, %zu as "
         "JSON values (baseline): ratio %.3f\n",
         as_text, as_json, (double)as_text / (double)as_json);
  json_decref(parsed);
  free(text);
  pmon__rtab_free(&tab);
  return 0;
}

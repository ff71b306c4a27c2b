/*
 * leader.h - a node leader with one simulated meter, as pmon_init leaves
 * one, for the benchmarks that drive the core with simulated readings
 * (run_length, timeline_cost).  They link libpmoncore and include core.h.
 */
#ifndef PMON_BENCH_LEADER_H
#define PMON_BENCH_LEADER_H

#include <stdint.h>
#include <stdlib.h>

/* Make this process the leader of a node whose only meter is DRV, its
 * history open and its init at T0 (ns); 0, or -1 when that failed. */
static inline int bench_leader(const struct pmon_driver *drv, uint64_t t0)
{
  struct pmon_state *g = &pmon__g;

  if ((g->ms = calloc(PMON_METER_MAX, sizeof *g->ms)) == NULL)
    return -1;
  g->ms[0].m.drv = drv;
  g->ms[0].m.interval_s = drv->interval_s;
  g->ms[0].m.flags = drv->flags;
  if (drv->open(&g->ms[0].m) != 0)
    return -1;
  g->ms[0].ttl_ns = (uint64_t)(PMON_TTL_READINGS * drv->interval_s * 1e9);
  g->nmeters = 1;
  g->total_meter = 0;
  g->total_mask[0] = 1;
  g->leader = 1;
  if (pmon__hist_open() != 0 || pmon__node_share() != 0)
    return -1;
  g->t_init_ns = g->sh->t_init_ns = t0;
  return 0;
}

#endif /* PMON_BENCH_LEADER_H */

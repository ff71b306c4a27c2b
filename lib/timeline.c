/*
 * timeline.c - the per-meter ring of samples in node-shared memory.
 *
 * One writer (the node leader) and any number of readers in the node's
 * processes.  The writer fills the slot, then publishes it by incrementing
 * seq (release).  A reader loads seq (acquire), copies the slot it wants,
 * and loads seq again: if the writer has meanwhile come round to that slot
 * the copy may be torn and is refused.  No locks, so a region call never
 * waits for the sampler.
 */
#include "config.h"

#include <string.h>

#include "pmon.h"
#include "core.h"

uint64_t pmon__tl_seq(const struct pmon_tl *tl)
{
  return atomic_load_explicit(&tl->seq, memory_order_acquire);
}

int pmon__tl_get(const struct pmon_tl *tl, uint64_t idx,
                 struct pmon_tl_sample *out)
{
  uint64_t seq = pmon__tl_seq(tl);

  if (idx >= seq || seq - idx >= PMON_RING)
    return PMON_ENODATA;
  memcpy(out, &tl->s[idx % PMON_RING], sizeof *out);
  atomic_thread_fence(memory_order_acquire);
  /* The slot is rewritten when sample idx + PMON_RING is being written,
   * which may be in progress once seq reaches idx + PMON_RING. */
  if (pmon__tl_seq(tl) - idx >= PMON_RING)
    return PMON_ENODATA;
  return 0;
}

void pmon__tl_publish(struct pmon_tl *tl, uint64_t t_ns, const double *e,
                      int nch)
{
  uint64_t seq = atomic_load_explicit(&tl->seq, memory_order_relaxed);
  struct pmon_tl_sample *s = &tl->s[seq % PMON_RING];

  s->t_ns = t_ns;
  memcpy(s->e, e, (size_t)nch * sizeof *e);
  atomic_store_explicit(&tl->seq, seq + 1, memory_order_release);
}

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

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

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

void pmon__tl_publish(struct pmon_tl *tl, uint64_t t_ns, uint64_t covered_ns,
                      const double *e, int nch)
{
  uint64_t seq = atomic_load_explicit(&tl->seq, memory_order_relaxed);
  struct pmon_tl_sample *s = &tl->s[seq % PMON_RING];

  s->t_ns = t_ns;
  s->covered_ns = covered_ns;
  memcpy(s->e, e, (size_t)nch * sizeof *e);
  atomic_store_explicit(&tl->seq, seq + 1, memory_order_release);
}

/* The history's block, allocated and made resident; -1 without memory. */
static int hist_alloc(void)
{
  struct pmon_state *g = &pmon__g;
  size_t size = PMON_HIST * sizeof *g->hist;
  long page = sysconf(_SC_PAGESIZE);
  volatile unsigned char *p;

  if (g->hist != NULL)
    return 0;
  if ((g->hist = malloc(size)) == NULL)
    return -1;
  /* A block this large is fresh pages from mmap(): untouched, they are
   * not resident, and filling the history would fault them in one by one
   * over the job, which then looks like a leak.  One store per page makes
   * them resident now.  The stores are volatile because a memset(0) after
   * malloc() may be turned into calloc(), which touches nothing. */
  p = (volatile unsigned char *)g->hist;
  for (size_t o = 0; o < size; o += page > 0 ? (size_t)page : 4096)
    p[o] = 0;
  g->nhist = 0;
  g->hist_offered = 0;
  g->hist_stride = 1;
  g->hist_tail = 0;
  return 0;
}

int pmon__hist_open(void)
{
  if (hist_alloc() != 0)
    return pmon__fail(PMON_ENOMEM, "history: out of memory (%zu bytes)",
                      PMON_HIST * sizeof *pmon__g.hist);
  return 0;
}

/*
 * The node total's history, kept by the leader for the whole job so that
 * the energy of any span (the I/O phases, known only at finalize) can be
 * found after the ring has come round.  Called by the total meter's poller
 * only (or with no poller running).
 * It keeps every hist_stride-th point offered, evenly spaced, and the
 * latest one, so that it always reaches the last sample.  When full, every
 * other point is dropped and the stride doubles: the history stays exact
 * at the points it keeps and only its resolution halves, the same over
 * the whole job.  Its memory is fixed: PMON_HIST points, allocated and
 * touched once (pmon__hist_open()).
 */
void pmon__hist_add(uint64_t t_ns, double e, uint64_t covered_ns)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_hist_point *p;

  if (g->hist == NULL && hist_alloc() != 0)
    return;
  if (g->hist_tail) /* the latest point so far, off the stride */
    g->nhist--;
  if (g->nhist == PMON_HIST) {
    size_t j = 0;

    for (size_t i = 0; i < PMON_HIST; i += 2)
      g->hist[j++] = g->hist[i];
    g->nhist = j;
    g->hist_stride *= 2;
  }
  p = &g->hist[g->nhist++];
  p->t_ns = t_ns;
  p->covered_ns = covered_ns;
  p->e = e;
  g->hist_tail = g->hist_offered++ % g->hist_stride != 0;
}

/* Where T falls in the history: the last point at or before it (its
 * index), and how far T is towards the next one (*W, from 0 to 1); the
 * first or last point when T is outside. */
static size_t locate(uint64_t t, double *w)
{
  const struct pmon_hist_point *h = pmon__g.hist;
  size_t lo = 0, hi = pmon__g.nhist - 1;

  *w = 0;
  if (t <= h[0].t_ns)
    return 0;
  if (t >= h[hi].t_ns)
    return hi;
  while (hi - lo > 1) { /* h[lo].t_ns < t < h[hi].t_ns */
    size_t mid = lo + (hi - lo) / 2;

    if (h[mid].t_ns <= t)
      lo = mid;
    else
      hi = mid;
  }
  *w = (double)(t - h[lo].t_ns) / (double)(h[hi].t_ns - h[lo].t_ns);
  return lo;
}

/* The node total's energy at T, interpolated; the ends outside. */
static double hist_at(uint64_t t)
{
  const struct pmon_hist_point *h = pmon__g.hist;
  double w;
  size_t i = locate(t, &w);

  return w > 0 ? h[i].e + (h[i + 1].e - h[i].e) * w : h[i].e;
}

/* The node total's energy from T0 to T1; NAN without a history or when
 * the span is not inside it. */
double pmon__hist_energy(uint64_t t0, uint64_t t1)
{
  const struct pmon_hist_point *h = pmon__g.hist;
  size_t n = pmon__g.nhist;

  if (n < 2 || t0 < h[0].t_ns || t1 > h[n - 1].t_ns)
    return NAN;
  return hist_at(t1) - hist_at(t0);
}

/* The measured time of the history at T, interpolated as hist_at(). */
static double covered_at(uint64_t t)
{
  const struct pmon_hist_point *h = pmon__g.hist;
  double w;
  size_t i = locate(t, &w);

  return w > 0 ? (double)h[i].covered_ns +
                   ((double)h[i + 1].covered_ns - (double)h[i].covered_ns) * w
               : (double)h[i].covered_ns;
}

/*
 * The node total's power over the job in at most POINTS equal bins:
 * {"t_s": [bin starts, s after init], "dt_s": width, "power_w": [...]}.
 * A bin's power is its energy over the time in it that was measured, null
 * when none was; null without a history.
 */
json_t *pmon__hist_trace(int points)
{
  const struct pmon_hist_point *h = pmon__g.hist;
  size_t n = pmon__g.nhist;
  uint64_t t0, span;
  json_t *ts, *pw;
  int nb;

  if (n < 2 || points < 1)
    return json_null();
  t0 = h[0].t_ns;
  span = h[n - 1].t_ns - t0;
  nb = (size_t)points < n - 1 ? points : (int)(n - 1);
  ts = json_array();
  pw = json_array();
  for (int k = 0; k < nb; k++) {
    uint64_t a = t0 + (uint64_t)((double)span * k / nb);
    uint64_t b = t0 + (uint64_t)((double)span * (k + 1) / nb);
    double c = (covered_at(b) - covered_at(a)) * 1e-9;

    json_array_append_new(
      ts, json_real(((double)a - (double)pmon__g.t_init_ns) * 1e-9));
    json_array_append_new(pw, c > 0 ? json_real((hist_at(b) - hist_at(a)) / c)
                                    : json_null());
  }
  return json_pack("{s:o, s:f, s:o}", "t_s", ts, "dt_s",
                   (double)span * 1e-9 / nb, "power_w", pw);
}

void pmon__hist_free(void)
{
  free(pmon__g.hist);
  pmon__g.hist = NULL;
  pmon__g.nhist = 0;
  pmon__g.hist_tail = 0;
}

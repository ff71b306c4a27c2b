/*
 * timeline.c - the per-meter ring of samples in node-shared memory, the
 * node total's history over the whole job, and the node's timeline made
 * from it for the report (nodes[].timeline).
 *
 * The ring: one writer (the node leader) and any number of readers in the node's
 * processes.  The writer fills the slot, then publishes it by incrementing
 * seq (release).  A reader loads seq (acquire), copies the slot it wants,
 * and loads seq again: if the writer has meanwhile come round to that slot
 * the copy may be torn and is refused.  No locks, so a region call never
 * waits for the sampler.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "rtab.h"

double pmon__tl_power(int m, const double *ea, uint64_t ta, const double *eb,
                     uint64_t tb)
{
  const struct pmon_shared *sh = pmon__g.sh;
  double sum = 0;

  if (tb <= ta)
    return NAN;
  for (int c = 0; c < sh->nch[m]; c++)
    if (sh->total_mask[m] & (1u << c))
      sum += eb[c] - ea[c];
  return sum / ((double)(tb - ta) * 1e-9);
}

uint64_t pmon__tl_seq(const struct pmon_tl *tl)
{
  return atomic_load_explicit(&tl->seq, memory_order_acquire);
}

/*
 * The ring is a sequence lock of one counter.  Sample i lives in slot
 * i % RING until sample i + RING is written there; the writer publishes
 * sample SEQ (seq becomes SEQ + 1) after writing it, and by that same
 * store gives up sample SEQ + 1 - RING, whose slot it writes next.  The
 * slot's fields are relaxed atomics (a reader may copy a slot while it is
 * written: the copy is thrown away, and no access is a data race), and a
 * release fence before the writer's stores keeps them from being seen
 * before the store of seq that gave the slot up: without it a weakly
 * ordered CPU (aarch64, POWER) lets a reader copy half a new sample and
 * still pass its recheck.  The reader's acquire fence after its copy
 * pairs with it.
 */
int pmon__tl_get(const struct pmon_tl *tl, uint64_t idx,
                 struct pmon_tl_sample *out)
{
  uint64_t seq = pmon__tl_seq(tl);
  const struct pmon_tl_sample *s;

  if (idx >= seq || seq - idx >= PMON_RING)
    return PMON_ENODATA;
  s = &tl->s[idx % PMON_RING];
  out->t_ns = __atomic_load_n(&s->t_ns, __ATOMIC_RELAXED);
  out->covered_ns = __atomic_load_n(&s->covered_ns, __ATOMIC_RELAXED);
  for (size_t i = 0; i < sizeof out->e / sizeof out->e[0]; i++)
    __atomic_load(&s->e[i], &out->e[i], __ATOMIC_RELAXED);
  for (int i = 0; i < 3; i++)
    __atomic_load(&s->err[i], &out->err[i], __ATOMIC_RELAXED);
  atomic_thread_fence(memory_order_acquire);
  /* The slot is rewritten once seq reaches idx + PMON_RING. */
  if (pmon__tl_seq(tl) - idx >= PMON_RING)
    return PMON_ENODATA;
  return 0;
}

void pmon__tl_publish(struct pmon_tl *tl, uint64_t t_ns, uint64_t covered_ns,
                      const double *e, int nch, const double *err)
{
  static const double none[3];
  uint64_t seq = atomic_load_explicit(&tl->seq, memory_order_relaxed);
  struct pmon_tl_sample *s = &tl->s[seq % PMON_RING];

  atomic_thread_fence(memory_order_release);
  __atomic_store_n(&s->t_ns, t_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&s->covered_ns, covered_ns, __ATOMIC_RELAXED);
  for (int i = 0; i < nch; i++)
    __atomic_store(&s->e[i], &e[i], __ATOMIC_RELAXED);
  if (err == NULL)
    err = none;
  for (int i = 0; i < 3; i++)
    __atomic_store(&s->err[i], &err[i], __ATOMIC_RELAXED);
  atomic_store_explicit(&tl->seq, seq + 1, memory_order_release);
}

/* The history's block, allocated and made resident; -1 without memory. */
static int hist_alloc(void)
{
  struct pmon_state *g = &pmon__g;
  size_t size = PMON_HIST * sizeof *g->hist.p;
  long page = sysconf(_SC_PAGESIZE);
  volatile unsigned char *p;
  struct pmon_hist_point *mem;

  if (g->hist.p != NULL)
    return 0;
  if ((mem = malloc(size)) == NULL)
    return -1;
  /* A block this large is fresh pages from mmap(): untouched, they are
   * not resident, and filling the history would fault them in one by one
   * over the job, which then looks like a leak.  One store per page makes
   * them resident now.  The stores are volatile because a memset(0) after
   * malloc() may be turned into calloc(), which touches nothing. */
  p = (volatile unsigned char *)mem;
  for (size_t o = 0; o < size; o += page > 0 ? (size_t)page : 4096)
    p[o] = 0;
  pmon__hist_init(&g->hist, mem, PMON_HIST);
  if (g->timeline > 0 && g->cpu_fd < 0) {
    char path[PATH_MAX];

    snprintf(path, sizeof path, "%s/stat", pmon__proc_root());
    g->cpu_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (g->cpu_fd < 0)
      pmon__debug("timeline: %s: %s: no CPU use in the timeline", path,
                  strerror(errno));
  }
  g->cpu_t_ns = g->cpu_busy = g->cpu_total = 0;
  return 0;
}

/* The node's CPU time at T, read from /proc/stat unless the last reading
 * is less than PMON_CPU_READ_NS old: a reading costs tens of microseconds
 * on a large node, and jiffies are 10 ms apart anyway. */
static void cpu_read(uint64_t t)
{
  struct pmon_state *g = &pmon__g;
  char buf[512];
  unsigned long long busy, total;
  ssize_t n;

  if (g->cpu_fd < 0 || (g->cpu_total != 0 && t < g->cpu_t_ns + PMON_CPU_READ_NS))
    return;
  do
    n = pread(g->cpu_fd, buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return;
  buf[n] = '\0';
  if (pmon__proc_stat_cpu(buf, &busy, &total) != 0 || total < g->cpu_total)
    return;
  g->cpu_t_ns = t;
  g->cpu_busy = busy;
  g->cpu_total = total;
}

int pmon__hist_open(void)
{
  if (hist_alloc() != 0)
    return pmon__fail(PMON_ENOMEM, "history: out of memory (%zu bytes)",
                      PMON_HIST * sizeof *pmon__g.hist.p);
  return 0;
}

/*
 * The node total's history, kept by the leader for the whole job so that
 * the energy of any span (the I/O phases, known only at finalize) can be
 * found after the ring has come round (calc/hist.h: evenly spaced points
 * in fixed memory, PMON_HIST of them, allocated and touched once by
 * pmon__hist_open()).  Called by the total meter's poller only (or with
 * no poller running).  Each point carries the node's CPU time and clock
 * as last read.
 */
void pmon__hist_add(uint64_t t_ns, double e, uint64_t covered_ns,
                    const double *err)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_hist_point pt;

  if (g->hist.p == NULL && hist_alloc() != 0)
    return;
  cpu_read(t_ns);
  pt.t_ns = t_ns;
  pt.covered_ns = covered_ns;
  pt.e = e;
  for (int i = 0; i < 3; i++)
    pt.err[i] = err != NULL ? err[i] : 0;
  pt.cpu_t_ns = g->cpu_t_ns;
  pt.cpu_busy = g->cpu_busy;
  pt.cpu_total = g->cpu_total;
  pt.mhz = pmon__cpufreq_read(t_ns);
  pmon__hist_push(&g->hist, &pt);
}

double pmon__hist_energy(uint64_t t0, uint64_t t1)
{
  return pmon__hist_span_energy(&pmon__g.hist, t0, t1);
}

/* The node total's resolution (joules) and stated accuracy (a fraction,
 * the largest of its meters', and watts). */
static void total_terms(struct pmon_hist_terms *t)
{
  const struct pmon_shared *sh = pmon__g.sh;

  t->res = t->rel = t->watts = 0;
  for (int m = 0; sh != NULL && m < sh->nmeters; m++)
    if (sh->total_mask[m] != 0) {
      t->res += sh->res_j[m];
      t->rel = isnan(sh->acc_rel[m]) || sh->acc_rel[m] > t->rel
                 ? sh->acc_rel[m]
                 : t->rel;
      t->watts += sh->acc_w[m];
    }
}

void pmon__hist_energy_err(uint64_t t0, uint64_t t1, double err[3])
{
  struct pmon_hist_terms terms;

  total_terms(&terms);
  pmon__hist_span_err(&pmon__g.hist, &terms, t0, t1, err);
}

/* The first history point whose CPU reading is later than T (the
 * readings' times never go back), NHIST when none is. */
static size_t cpu_after(uint64_t t)
{
  const struct pmon_hist_point *h = pmon__g.hist.p;
  size_t lo = 0, hi = pmon__g.hist.n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (h[mid].cpu_t_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

double pmon__hist_covered(uint64_t t0, uint64_t t1)
{
  return pmon__hist_span_covered(&pmon__g.hist, t0, t1);
}

/* The node's busy and total CPU time at T, interpolated between the
 * readings of /proc/stat around T (on their own times, not the points'):
 * 0, or -1 when T is not between two readings at most GAP_NS apart (none
 * was made meanwhile: /proc/stat could not be read, or the node total
 * published nothing, as while a meter is frozen). */
static int cpu_at(uint64_t t, uint64_t gap_ns, double *busy, double *total)
{
  const struct pmon_hist_point *h = pmon__g.hist.p, *a, *z;
  size_t i = cpu_after(t);
  double w;

  if (i == 0 || i == pmon__g.hist.n) {
    /* Before the first reading: none; after the last (the history's last
     * points may come less than PMON_CPU_READ_NS after it), the last,
     * within GAP_NS. */
    if (i == 0 || h[i - 1].cpu_total == 0 || t - h[i - 1].cpu_t_ns > gap_ns)
      return -1;
    *busy = (double)h[i - 1].cpu_busy;
    *total = (double)h[i - 1].cpu_total;
    return 0;
  }
  a = &h[i - 1];
  z = &h[i];
  if (a->cpu_total == 0 || z->cpu_t_ns - a->cpu_t_ns > gap_ns)
    return -1;
  w = (double)(t - a->cpu_t_ns) / (double)(z->cpu_t_ns - a->cpu_t_ns);
  *busy = (double)a->cpu_busy + ((double)z->cpu_busy - (double)a->cpu_busy) * w;
  *total =
    (double)a->cpu_total + ((double)z->cpu_total - (double)a->cpu_total) * w;
  return 0;
}

/* Seconds from init of the node leader to T (ns, the node's clock). */
static double since_init(uint64_t t)
{
  return ((double)t - (double)pmon__g.t_init_ns) * 1e-9;
}

/* JSON text under construction; OK is 0 once memory ran out. */
struct text {
  char *s;
  size_t len, cap;
  int ok;
};

PMON_PRINTF(2, 3)
static void put(struct text *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (!b->ok)
    return;
  for (;;) {
    va_start(ap, fmt);
    n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->ok = 0;
      return;
    }
    if ((size_t)n < b->cap - b->len)
      break;
    {
      size_t cap = 2 * b->cap + (size_t)n;
      char *s = realloc(b->s, cap);

      if (s == NULL) {
        b->ok = 0;
        return;
      }
      b->s = s;
      b->cap = cap;
    }
  }
  b->len += (size_t)n;
}

/* A number of DIGITS significant digits, or null (not finite). */
static void put_num(struct text *b, const char *sep, int digits, double v)
{
  if (isfinite(v))
    put(b, "%s%.*g", sep, digits, v);
  else
    put(b, "%snull", sep);
}

/* A string, JSON-escaped by jansson. */
static void put_str(struct text *b, const char *s)
{
  json_t *j = json_string(s);
  char *t = j != NULL ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

  if (t != NULL)
    put(b, "%s", t);
  else
    b->ok = 0;
  free(t);
  json_decref(j);
}

#define IND "\n  " /* a key of nodes[].timeline, as json_dumps() would
                      indent it in a node record by one per level */

/* The mean of the CPU clock readings of the history points from A to Z
 * (ns).  A slice with no point inside it (the pollers late, under load)
 * takes the mean of the readings on either side of it, the last before A
 * and the first after Z; NAN when none of these was read. */
static double mhz_mean(uint64_t a, uint64_t z)
{
  const struct pmon_hist_point *h = pmon__g.hist.p;
  double w, sum = 0;
  size_t i0 = pmon__hist_locate(&pmon__g.hist, a, &w), i, n = 0;

  for (i = i0 + (w > 0); i < pmon__g.hist.n && h[i].t_ns <= z; i++)
    if (isfinite(h[i].mhz)) {
      sum += h[i].mhz;
      n++;
    }
  if (n == 0) { /* i: the first point after Z, or the end */
    size_t side[2] = {i0, i < pmon__g.hist.n ? i : i0};

    for (int k = 0; k < 2; k++)
      if (isfinite(h[side[k]].mhz)) {
        sum += h[side[k]].mhz;
        n++;
      }
  }
  return n > 0 ? sum / (double)n : NAN;
}

/* The slices: start, power, energy, CPU use, CPU clock, the energy's
 * error bar.  Every slice's energy is the
 * history's rise across it, so that they add up to the rise over the
 * whole history, the node's energy (the history ends at the node total's
 * last sample: pmon__meters_sample_all() at finalize). */
static void put_slices(struct text *b, int points, double f, double f_err)
{
  const struct pmon_hist *hs = &pmon__g.hist;
  const struct pmon_hist_point *h = hs->p;
  size_t n = hs->n;
  int nb = 0;
  uint64_t t0 = 0, span = 0, cpu_gap = 0, end = 0;
  static const char *const keys[] = {"t_s",      "power_w", "energy_j",
                                      "cpu_util", "cpu_mhz", "energy_err_j"};

  if (h != NULL && n >= 2 && points > 0) {
    t0 = h[0].t_ns;
    end = h[n - 1].t_ns;
    /* At finalize the run ends between the last two readings
     * (lib/report.c): so do the slices. */
    if (pmon__g.t_end_ns > t0 && pmon__g.t_end_ns < end)
      end = pmon__g.t_end_ns;
    span = end - t0;
    nb = (size_t)points < n - 1 ? points : (int)(n - 1);
  }
  if (span == 0)
    nb = 0;
  /* CPU readings come with the node total's samples.  Two further apart
   * than its samples may be (its driver's stale limit, or for a driver
   * without one PMON_TTL_READINGS intervals, or windows for a windowed
   * meter, which publishes once a window), plus the readings' own
   * spacing, have nothing measured between them. */
  if (pmon__g.total_meter >= 0 && pmon__g.ms != NULL) {
    const struct pmon_meter *m = &pmon__g.ms[pmon__g.total_meter].m;
    double ttl = PMON_TTL_READINGS *
                 (m->window_s > m->interval_s ? m->window_s : m->interval_s);

    cpu_gap = (uint64_t)((m->stale_s > ttl ? m->stale_s : ttl) * 1e9);
  }
  cpu_gap += 2 * PMON_CPU_READ_NS;
  put(b, IND "\"slices\": %d," IND "\"dt_s\": ", nb);
  put_num(b, "", 9, nb > 0 ? (double)span * 1e-9 / nb : NAN);
  for (int key = 0; key < 6; key++) {
    put(b, "," IND "\"%s\": [", keys[key]);
    for (int k = 0; k < nb; k++) {
      uint64_t a = t0 + (uint64_t)((double)span * k / nb);
      uint64_t z = k + 1 == nb ? end
                               : t0 + (uint64_t)((double)span * (k + 1) / nb);
      double c = pmon__hist_span_covered(hs, a, z), v = NAN;
      double ba, ta, bz, tz, rise = 0;
      const char *sep = k > 0 ? ", " : "";

      switch (key) {
      case 0:
        v = since_init(a);
        break;
      case 1:
        v = c > 0 ? f * pmon__hist_span_energy(hs, a, z) / c : NAN;
        break;
      case 2:
        v = c > 0 ? f * pmon__hist_span_energy(hs, a, z) : NAN;
        break;
      case 4:
        v = mhz_mean(a, z);
        break;
      case 5: {
        double err[3] = {0, 0, 0};

        pmon__hist_energy_err(a, z, err);
        v = c > 0 ? pmon__err_combine(err[0], err[1], err[2]) : NAN;
        rise = pmon__hist_span_energy(hs, a, z);
        pmon__share_apply(f, f_err, &rise, &v); /* the share's bar too */
        break;
      }
      default:
        if (cpu_at(a, cpu_gap, &ba, &ta) == 0 &&
            cpu_at(z, cpu_gap, &bz, &tz) == 0 && tz > ta)
          v = (bz - ba) / (tz - ta);
        v = v > 1 ? 1 : v < 0 ? 0 : v;
        break;
      }
      /* Energy counted where no time was (the least of several meters'
       * measured times is not the time of each): it is kept, so that
       * the slices add up. */
      if (key == 2 && !(c > 0) && (rise = pmon__hist_span_energy(hs, a, z)) != 0)
        v = f * rise;
      put_num(b, sep, key == 0 ? 9 : key == 3 ? 4 : key == 4 ? 5 : 7, v);
    }
    put(b, "]");
  }
}

/* The I/O phases: the first and last PMON_TIMELINE_SPANS / 2, and the
 * ones between as one. */
static void put_phases(struct text *b, const uint64_t (*ph)[3], int nph)
{
  int half = PMON_TIMELINE_SPANS / 2, all = nph <= PMON_TIMELINE_SPANS;

  put(b, "," IND "\"io_phases\": [");
  for (int k = 0, first = 1; k < nph; k++) {
    if (!all && k >= half && k < nph - half)
      continue;
    put(b, "%s[%.9g, %.9g, %llu]", first ? "" : ", ",
        (double)ph[k][0] * 1e-9, (double)ph[k][1] * 1e-9,
        (unsigned long long)ph[k][2]);
    first = 0;
  }
  put(b, "]," IND "\"io_phases_between\": ");
  if (all) {
    put(b, "null");
  } else {
    unsigned long long bytes = 0;

    for (int k = half; k < nph - half; k++)
      bytes += ph[k][2];
    put(b, "{\"count\": %d, \"start_s\": %.9g, \"end_s\": %.9g, "
           "\"bytes\": %llu}",
        nph - 2 * half, (double)ph[half][0] * 1e-9,
        (double)ph[nph - half - 1][1] * 1e-9, bytes);
  }
}

/* The spans of the node's regions, in order of first use. */
static void put_regions(struct text *b, const struct pmon_rtab *regions)
{
  struct pmon_rrec **v = regions != NULL ? pmon__rtab_sorted(regions) : NULL;
  size_t n = regions != NULL ? regions->n : 0, listed = 0;

  put(b, "," IND "\"regions\": [");
  for (size_t i = 0; v != NULL && i < n; i++) {
    const struct pmon_rrec *r = v[i];

    if (r->mcount == 0 || listed == PMON_TIMELINE_SPANS)
      continue;
    put(b, "%s{\"name\": ", listed > 0 ? "," IND "  " : "");
    put_str(b, r->name);
    put(b, ", \"rank\": %d, \"count\": %llu, \"first\": [%.9g, %.9g], "
           "\"last\": [%.9g, %.9g]}",
        (int)r->rank, (unsigned long long)r->mcount, since_init(r->span[0]),
        since_init(r->span[1]), since_init(r->span[2]),
        since_init(r->span[3]));
    listed++;
  }
  if (v == NULL && n > 0)
    b->ok = 0;
  put(b, "]," IND "\"regions_omitted\": %zu", n - listed);
  free(v);
}

char *pmon__timeline_text(int slices, const struct pmon_rtab *regions,
                          const uint64_t (*ph)[3], int nph, double f,
                          double f_err)
{
  struct text b = {NULL, 0, 0, 1};
  /* Numbers are written with printf(), which follows the program's
   * LC_NUMERIC: a decimal comma would make the report invalid JSON.  The
   * C locale, for this thread only, while the text is made. */
  locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), was;

  if (c == (locale_t)0 || (b.s = malloc(b.cap = 4096)) == NULL) {
    if (c != (locale_t)0)
      freelocale(c);
    return NULL;
  }
  was = uselocale(c);
  put(&b, "{");
  put_slices(&b, slices, f, f_err);
  put_phases(&b, ph, nph);
  put_regions(&b, regions);
  put(&b, "\n }");
  uselocale(was);
  freelocale(c);
  if (!b.ok) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

void pmon__hist_free(void)
{
  if (pmon__g.cpu_fd >= 0)
    close(pmon__g.cpu_fd);
  pmon__g.cpu_fd = -1;
  free(pmon__g.hist.p);
  pmon__hist_init(&pmon__g.hist, NULL, 0);
}

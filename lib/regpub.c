/*
 * regpub.c - a rank's regions published to its node, and read back from
 * the ranks' slots.
 *
 * A thread's outermost begin or end, once its PMON_SPOOL_INTERVAL has
 * passed, copies its region blocks (they hold no pointer) into its own
 * buffer and rewrites the rank's slot with every thread's latest copy: a
 * chunk per thread, {thread index, blocks, bytes} then the blocks, each
 * on 8 bytes.  It takes pubs.lock only if free (else the next call tries
 * again) and never waits for the leader, which reads the slot under its
 * sequence count.  A region call costs one comparison more; a rank that
 * makes no region call publishes nothing, but then its regions are as
 * they were, open ones still open.
 *
 * This file stands above lib/region.c, whose blocks and threads it
 * shares (region.h): region.c's boundaries reach publish() only through
 * the hook that pmon__pub_start() sets (pmon__regions_pub_hook()), and
 * the spool's side uses region.c's resolution (pmon__region_settle(),
 * pmon__region_table_add()).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "region.h"
#include "rtab.h"

/* A thread's chunk of the slot; its blocks follow (BYTES), then a copy
 * of its fit (FIT bytes: 0 or FIT_BYTES) as it was at T_NS. */
struct pub_chunk {
  uint32_t thread, n;
  uint64_t bytes, fit, t_ns;
};

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
#define PUB_DATA (PMON_PUB_BYTES - sizeof(struct pmon_pub))
#define FIT_BYTES ALIGN8(sizeof(struct pmon_fit))

/* Publication for the spool: PERIOD is pmon__g.pub_interval_s in ns
 * (pmon__pub_start()), LOCK serialises the threads that write the rank's
 * slot. */
static struct {
  uint64_t period;
  pthread_mutex_t lock;
  char *io_text;  /* the rank's I/O as lib/io.c last gave it */
  size_t io_len;
  uint64_t *stage; /* the slot's next content, made here and then copied */
} pubs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t block_size(struct region *r)
{
  return ALIGN8(pmon__region_lay.off_name + strlen(name_of(r)) + 1);
}

/*
 * The slot is a sequence lock that the leader's spool thread copies while
 * the rank may be writing it: a copy torn by a write is thrown away (its
 * sequence moved).  The data go in and out as relaxed atomic words, so
 * that no access is a data race (none for ThreadSanitizer either); the
 * writer makes the content in a buffer of its own first.  N is rounded
 * up to whole words (the slot's size is).
 */
static void slot_put(char *dst, const uint64_t *src, size_t n)
{
  uint64_t *d = (uint64_t *)(void *)dst;

  for (size_t i = 0; i < (n + 7) / 8; i++)
    __atomic_store_n(&d[i], src[i], __ATOMIC_RELAXED);
}

static void slot_get(uint64_t *dst, const char *src, size_t n)
{
  const uint64_t *s = (const uint64_t *)(const void *)src;

  for (size_t i = 0; i < (n + 7) / 8; i++)
    dst[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

/* Rewrites the rank's slot from every thread's latest copy and the I/O
 * text: {I/O bytes (8), the text on 8 bytes, the chunks}.  pubs.lock
 * held. */
static void write_slot(uint64_t now)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_pub *p = g->pub;
  uint64_t seq = atomic_load_explicit(&p->seq, memory_order_relaxed);
  uint64_t iolen = pubs.io_len;
  char *b;
  size_t off;
  uint32_t left = 0;

  if (pubs.stage == NULL &&
      (pubs.stage = calloc((PUB_DATA + 7) / 8, 8)) == NULL)
    return; /* the slot stays as it was */
  b = (char *)pubs.stage;
  if (8 + ALIGN8(iolen) > PUB_DATA / 2)
    iolen = 0; /* io.c keeps it under a quarter of the slot */
  memcpy(b, &iolen, 8);
  if (iolen > 0)
    memcpy(b + 8, pubs.io_text, iolen);
  off = 8 + ALIGN8(iolen);
  pthread_mutex_lock(&g->threads_lock);
  for (struct pmon_thread *x = g->threads; x != NULL; x = x->next) {
    struct pub_chunk c = {(uint32_t)x->index, x->pub_n, x->pub_len,
                          x->pub_fit, x->pub_t};

    left += x->pub_left;
    if (x->pub_n == 0)
      continue;
    if (off + sizeof c + x->pub_len + x->pub_fit > PUB_DATA) {
      left += x->pub_n;
      continue;
    }
    memcpy(b + off, &c, sizeof c);
    memcpy(b + off + sizeof c, x->pub_buf, x->pub_len + x->pub_fit);
    off += sizeof c + x->pub_len + x->pub_fit;
  }
  pthread_mutex_unlock(&g->threads_lock);
  /* Odd while it is written. */
  atomic_store_explicit(&p->seq, seq + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  slot_put(p->data, pubs.stage, off);
  __atomic_store_n(&p->len, (uint64_t)off, __ATOMIC_RELAXED);
  __atomic_store_n(&p->left_out, left, __ATOMIC_RELAXED);
  __atomic_store_n(&p->t_ns, now, __ATOMIC_RELAXED);
  atomic_store_explicit(&p->seq, seq + 2, memory_order_release);
}

void pmon__pub_io(const char *text, size_t len)
{
  char *copy;

  if (pmon__g.pub == NULL || (int)getpid() != pmon__g.pub_pid)
    return;
  pthread_mutex_lock(&pubs.lock);
  if ((copy = realloc(pubs.io_text, len ? len : 1)) != NULL) {
    memcpy(copy, text, len);
    pubs.io_text = copy;
    pubs.io_len = len;
    write_slot(pmon__now_ns());
  }
  pthread_mutex_unlock(&pubs.lock);
}

/* T's regions into its copy and the rank's slot at NOW, a boundary of T's at
 * or after its pub_due (pmon__regions_pub_hook()). */
static void publish(struct pmon_thread *t, uint64_t now)
{
  size_t need = 0, off = 0;
  char *buf;

  t->pub_due = now + pubs.period;
  if ((int)getpid() != pmon__g.pub_pid)
    return; /* a child forked since: the slot is its parent's */
  if (pthread_mutex_trylock(&pubs.lock) != 0) {
    t->pub_due = now; /* another thread writes the slot: the next call */
    return;
  }
  for (size_t i = 0; i < t->regions.cap; i++) {
    struct region *r = t->regions.slot[i];

    if (r != NULL && (r->count || r->unclosed || r->depth))
      need += block_size(r);
  }
  /* Half the slot at most: the other half is the I/O's. */
  if (need > PUB_DATA / 2 - sizeof(struct pub_chunk) - FIT_BYTES)
    need = PUB_DATA / 2 - sizeof(struct pub_chunk) - FIT_BYTES;
  if ((buf = realloc(t->pub_buf, need + FIT_BYTES)) != NULL) {
    t->pub_buf = buf;
    t->pub_n = t->pub_left = 0;
    for (size_t i = 0; i < t->regions.cap; i++) {
      struct region *r = t->regions.slot[i];
      size_t sz;

      if (r == NULL || !(r->count || r->unclosed || r->depth))
        continue;
      sz = block_size(r);
      if (off + sz > need) {
        t->pub_left++;
        continue;
      }
      memcpy(buf + off, r, pmon__region_lay.off_name + strlen(name_of(r)) + 1);
      off += sz;
      t->pub_n++;
    }
    t->pub_len = off;
    /* and its fit's sums, from which the spool's figures are fitted as
     * finalize's are (rank_regions()) */
    t->pub_fit = 0;
    t->pub_t = now;
    if (t->fit != NULL && t->fit->m >= 0) {
      memset(buf + off, 0, FIT_BYTES);
      memcpy(buf + off, t->fit, sizeof *t->fit);
      t->pub_fit = FIT_BYTES;
    }
  }
  write_slot(now);
  pthread_mutex_unlock(&pubs.lock);
}

void pmon__pub_start(void)
{
  pubs.period = (uint64_t)(pmon__g.pub_interval_s * 1e9);
  pmon__regions_pub_hook(publish);
}

void pmon__pub_free(void)
{
  pmon__regions_pub_hook(NULL);
  pthread_mutex_lock(&pubs.lock);
  free(pubs.io_text);
  free(pubs.stage);
  pubs.stage = NULL;
  pubs.io_text = NULL;
  pubs.io_len = 0;
  pthread_mutex_unlock(&pubs.lock);
}

/*
 * The spool's side: the leader's spool thread copies each rank's slot and
 * makes what the rank published into figures as pmon_finalize() would
 * make them at the node's latest sample (pmon__regions_spool()).
 */

/* Copies slot P into BUF (PUB_DATA bytes) as the rank last wrote it
 * whole: its length, or -1 when the rank kept writing it (or died in the
 * middle). */
static long read_slot(const struct pmon_pub *p, char *buf, int *rank,
                      uint32_t *left)
{
  for (int tries = 0; tries < 100; tries++) {
    uint64_t s0 = atomic_load_explicit(&p->seq, memory_order_acquire), s1;
    uint64_t len = __atomic_load_n(&p->len, __ATOMIC_RELAXED);

    if (s0 & 1 || len > PUB_DATA) {
      struct timespec ts = {0, 100000};

      nanosleep(&ts, NULL);
      continue;
    }
    *rank = p->rank;
    *left = __atomic_load_n(&p->left_out, __ATOMIC_RELAXED);
    slot_get((uint64_t *)(void *)buf, p->data, len);
    atomic_thread_fence(memory_order_acquire);
    s1 = atomic_load_explicit(&p->seq, memory_order_relaxed);
    if (s0 == s1)
      return (long)len;
  }
  return -1;
}

static int by_thread(const void *a, const void *b)
{
  uint32_t x = (*(const struct pub_chunk *const *)a)->thread;
  uint32_t y = (*(const struct pub_chunk *const *)b)->thread;

  return (x > y) - (x < y);
}

/* The fit that chunk C carries at FIT, made into figures as finalize
 * makes a thread's (pmon__regions_table()) over the intervals that ended
 * by its copy's time, in *T (allocated at the first, reused after);
 * NULL when it has none or it is not sound (the regions then keep
 * interpolation's figures). */
static const struct pmon_thread *fit_of(struct pmon_thread **t,
                                        const struct pub_chunk *c,
                                        const char *fit)
{
  const struct pmon_shared *sh = pmon__g.sh;
  struct pmon_fit *f;

  if (c->fit != FIT_BYTES ||
      (*t == NULL && (*t = calloc(1, sizeof **t + sizeof *f)) == NULL))
    return NULL;
  f = (struct pmon_fit *)(void *)(*t + 1);
  memcpy(f, fit, sizeof *f);
  /* a copy of this process's own struct, whole (read_slot()); its
   * indices are checked before they are used */
  if (f->m != sh->total_meter || f->m < 0 || f->nslots < 0 ||
      f->nslots > PMON_FIT_SLOTS || f->cur < 0 || f->cur >= PMON_FIT_N)
    return NULL;
  for (int i = 0; i < PMON_FIT_SEGS; i++)
    if (f->seg_slot[i] >= PMON_FIT_N)
      return NULL;
  (*t)->fit = f;
  pmon__fit_flush_until(f, c->t_ns);
  (*t)->fit_ok = pmon__fit_solve(f, (*t)->fit_p, (*t)->fit_var,
                                 &(*t)->fit_s2) == 0;
  return *t;
}

/* The regions of a slot's copy BUF (LEN bytes) of world rank RANK, into
 * the node's table NODE.  0, or -1 when the copy is not well formed. */
static int rank_regions(struct pmon_rtab *node, char *buf, size_t len,
                        int rank, const uint64_t *seq,
                        const struct pmon_tl_sample *last, uint64_t known_ns)
{
  struct pub_chunk **ch;
  struct pmon_rtab tab;
  struct pmon_thread *fitted = NULL;
  uint64_t iolen;
  size_t off, n = 0;
  int rc = 0;

  /* The I/O text first (pmon__regions_spool() has read it). */
  if (len < 8)
    return len == 0 ? 0 : -1;
  memcpy(&iolen, buf, 8);
  if (iolen > len - 8 || ALIGN8(iolen) > len - 8)
    return -1;
  off = 8 + ALIGN8(iolen);

  /* Its chunks, in thread order: the first thread measures. */
  if ((ch = malloc((len / sizeof(struct pub_chunk) + 1) * sizeof *ch)) == NULL)
    return -1;
  while (off + sizeof(struct pub_chunk) <= len) {
    struct pub_chunk *c = (struct pub_chunk *)(buf + off);

    if (c->bytes > len - off - sizeof *c || c->bytes % 8 != 0 ||
        (c->fit != 0 && c->fit != FIT_BYTES) ||
        c->fit > len - off - sizeof *c - c->bytes) {
      free(ch);
      return -1;
    }
    ch[n++] = c;
    off += sizeof *c + c->bytes + c->fit;
  }
  qsort(ch, n, sizeof *ch, by_thread);
  pmon__rtab_init(&tab, PMON_RT_NODE, node->list_max);
  for (size_t i = 0; i < n && rc == 0; i++) {
    char *p = (char *)(ch[i] + 1), *end = p + ch[i]->bytes;
    const struct pmon_thread *t = fit_of(&fitted, ch[i], end);

    for (uint32_t k = 0; k < ch[i]->n; k++) {
      struct region *r = (struct region *)p;
      size_t room = (size_t)(end - p);

      if (room < pmon__region_lay.off_name + 1 ||
          memchr(name_of(r), '\0', room - pmon__region_lay.off_name) == NULL ||
          block_size(r) > room) {
        rc = -1;
        break;
      }
      p += block_size(r);
      pmon__region_settle(r, seq, last, known_ns);
      pmon__region_table_add(&tab, t, r, rank);
    }
  }
  free(fitted);
  free(ch);
  own_time(&tab);
  for (size_t k = 0; k < tab.cap && rc == 0; k++)
    if (tab.slot[k] != NULL)
      pmon__rtab_merge(node, tab.slot[k]);
  pmon__rtab_free(&tab);
  return rc;
}

static json_t *num_or_null(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

int pmon__regions_spool(struct pmon_rtab *node, unsigned long *left_out,
                        int *unread, json_t **io_ranks)
{
  struct pmon_state *g = &pmon__g;
  const struct pmon_shared *sh = g->sh;
  struct pmon_tl_sample last[PMON_METER_MAX];
  uint64_t seq[PMON_METER_MAX], known_ns = 0;
  char *buf;

  *left_out = 0;
  *unread = 0;
  *io_ranks = json_array();
  /* The layout was made at init (pmon__regions_layout()): no lock that
   * an application thread may hold, since SIGTERM's writing waits for
   * this thread. */
  if (g->pubs == NULL || sh == NULL || !pmon__region_lay.done)
    return 0;
  if ((buf = malloc(PUB_DATA)) == NULL)
    return PMON_ENOMEM;
  for (int i = 0; i < g->local_size; i++) {
    uint32_t left = 0;
    int rank = 0;
    long len;
    uint64_t iolen;
    json_t *o;

    if (g->pubs[i] == NULL || (len = read_slot(g->pubs[i], buf, &rank,
                                               &left)) < 0) {
      *unread += g->pubs[i] != NULL;
      continue;
    }
    /* The samples published now, after the copy: none of its boundaries
     * is anchored past them.  The node is known up to the node total's
     * latest (the latest of any meter when it has none). */
    known_ns = 0;
    for (int m = 0; m < pmon__region_lay.nmeters; m++) {
      seq[m] = pmon__tl_seq(&sh->tl[m]);
      if (seq[m] == 0 || pmon__tl_get(&sh->tl[m], seq[m] - 1, &last[m]) != 0)
        seq[m] = 0; /* treated as no sample yet */
      else if (m == sh->total_meter ||
               (sh->total_meter < 0 && last[m].t_ns > known_ns))
        known_ns = last[m].t_ns;
    }
    if (known_ns == 0)
      known_ns = pmon__now_ns();
    if (rank_regions(node, buf, (size_t)len, rank, seq, last, known_ns) != 0) {
      (*unread)++;
      continue;
    }
    *left_out += left;
    /* rank_regions() checked the I/O text's length. */
    if (len >= 8 && (memcpy(&iolen, buf, 8), iolen > 0) && *io_ranks != NULL &&
        (o = json_loadb(buf + 8, iolen, 0, NULL)) != NULL)
      json_array_append_new(*io_ranks,
                            json_pack("{s:i, s:o}", "rank", rank, "io", o));
  }
  free(buf);
  return 0;
}

json_t *pmon__regions_spool_json(const struct pmon_rtab *node)
{
  struct pmon_rrec **sorted = pmon__rtab_sorted(node);
  json_t *out = json_array();

  for (size_t i = 0; out != NULL && sorted != NULL && i < node->n; i++) {
    const struct pmon_rrec *r = sorted[i];
    double power = !isnan(r->energy_j) && r->mtime_s > 0
                     ? r->energy_j / r->mtime_s
                     : NAN;

    json_array_append_new(
      out, json_pack("{s:s%, s:i, s:I, s:I, s:f, s:o, s:o, s:o, s:o, s:o, s:f}",
                     "name", r->name, (size_t)r->len, "rank", r->rank,
                     "count", (json_int_t)r->count, "unclosed",
                     (json_int_t)r->unclosed, "time_s", r->time_s, "energy_j",
                     num_or_null(r->energy_j), "energy_err_j",
                     num_or_null(isfinite(r->energy_j) ? r->energy_err_j : NAN),
                     "energy_err_max_j",
                     num_or_null(isfinite(r->energy_j) ? r->energy_err_max_j : NAN),
                     "power_w", num_or_null(power),
                     "coverage", num_or_null(r->coverage), "first_s",
                     r->first_s));
    /* how its energy came: fitted over the intervals (as finalize
     * would), or interpolation's */
    if (isfinite(r->energy_j) && r->fitted)
      json_object_set_new(json_array_get(out, json_array_size(out) - 1),
                          "energy_method", json_string("fit"));
  }
  free(sorted);
  return out;
}

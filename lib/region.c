/*
 * region.c - regions, per thread, and their energy.
 *
 * Each thread that uses a region gets a table of its regions (a hash table
 * keyed by name) and a stack of the open ones.  A region's outermost begin
 * and end each add a boundary: a sign (-1 for begin, +1 for end) at a time
 * t.  The region's energy is the sum of sign * E(t) over its boundaries,
 * where E is a meter's cumulative energy, linear between two samples of
 * the timeline.  Boundaries that fall after the same sample k are folded
 * into a bucket (s0 = sum of signs, s1 = sum of sign * (t - t_k)), which is
 * resolved, exactly, when a later sample exists:
 *     energy += s0 * E_k + s1 * (E_j - E_k) / (t_j - t_k).
 * So a region call costs two clock reads and a few additions per meter,
 * whatever the meter, and memory does not grow with the number of calls.
 * The meter's measured time (covered_ns of the samples, which stands
 * still across a gap) is resolved the same way: how much of the region's
 * time its energy covers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"

struct bucket {
  int used;
  uint64_t anchor;          /* sample index k */
  uint64_t t_max;           /* the latest boundary in the bucket */
  double s0, s1;
  struct pmon_tl_sample a;  /* sample k, copied: the ring may lose it */
};

struct region {
  char *name;
  uint32_t hash;
  uint32_t depth;          /* open instances in this thread */
  uint64_t count;          /* completed outermost pairs */
  uint64_t unclosed;       /* closed by pmon_finalize() */
  uint64_t t_begin;        /* of the open outermost instance */
  uint64_t time_ns;        /* inclusive time of the completed pairs */
  uint64_t first_ns;       /* first begin, for ordering */
  unsigned long unresolved; /* boundaries that found no timeline */
  struct bucket b[PMON_METER_MAX];
  double e[PMON_METER_MAX][PMON_CH_MAX];
  double covered[PMON_METER_MAX]; /* seconds of the pairs each meter
                                     measured */
};

struct pmon_thread {
  struct pmon_thread *next;
  int index;                /* creation order */
  struct region **slot;     /* open addressing, cap a power of two */
  size_t cap, n;
  struct region **stack;
  size_t depth, stack_cap;
};

static _Thread_local struct pmon_thread *self;

static uint32_t hash_name(const char *s, size_t len)
{
  uint32_t h = 2166136261u; /* FNV-1a */

  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static struct pmon_thread *this_thread(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_thread *t = self;

  if (t != NULL)
    return t;
  if ((t = calloc(1, sizeof *t)) == NULL)
    return NULL;
  t->cap = 16;
  t->stack_cap = 16;
  t->slot = calloc(t->cap, sizeof *t->slot);
  t->stack = malloc(t->stack_cap * sizeof *t->stack);
  if (t->slot == NULL || t->stack == NULL) {
    free(t->slot);
    free(t->stack);
    free(t);
    return NULL;
  }
  pthread_mutex_lock(&g->threads_lock);
  t->index = g->nthreads++;
  t->next = g->threads;
  g->threads = t;
  pthread_mutex_unlock(&g->threads_lock);
  self = t;
  return t;
}

static int grow(struct pmon_thread *t)
{
  size_t cap = t->cap * 2;
  struct region **slot = calloc(cap, sizeof *slot);

  if (slot == NULL)
    return -1;
  for (size_t i = 0; i < t->cap; i++) {
    struct region *r = t->slot[i];
    size_t k;

    if (r == NULL)
      continue;
    for (k = r->hash & (cap - 1); slot[k] != NULL; k = (k + 1) & (cap - 1))
      ;
    slot[k] = r;
  }
  free(t->slot);
  t->slot = slot;
  t->cap = cap;
  return 0;
}

/* The region NAME (LEN bytes) of thread T; created when CREATE. */
static struct region *lookup(struct pmon_thread *t, const char *name,
                             size_t len, int create)
{
  uint32_t h = hash_name(name, len);
  size_t k;
  struct region *r;

  for (k = h & (t->cap - 1); (r = t->slot[k]) != NULL;
       k = (k + 1) & (t->cap - 1))
    if (r->hash == h && strcmp(r->name, name) == 0)
      return r;
  if (!create)
    return NULL;
  if (2 * (t->n + 1) > t->cap) {
    if (grow(t) != 0)
      return NULL;
    for (k = h & (t->cap - 1); t->slot[k] != NULL; k = (k + 1) & (t->cap - 1))
      ;
  }
  if ((r = calloc(1, sizeof *r)) == NULL ||
      (r->name = malloc(len + 1)) == NULL) {
    free(r);
    return NULL;
  }
  memcpy(r->name, name, len + 1);
  r->hash = h;
  t->slot[k] = r;
  t->n++;
  return r;
}

/*
 * Fold the bucket of meter M into R's energy, if a sample after it exists.
 * 0 when resolved, -1 when not yet.  The bucket keeps its own copy of
 * sample k; the next sample is normally k + 1, but when the ring has
 * already dropped it (a region call long after) the oldest sample still
 * there stands in: the slope then averages over a longer time, which moves
 * the result by at most one sample interval's change of power.
 */
static int resolve(struct region *r, int m)
{
  const struct pmon_tl *tl = &pmon__g.sh->tl[m];
  struct bucket *b = &r->b[m];
  struct pmon_tl_sample s;
  uint64_t seq = pmon__tl_seq(tl), j;
  int nch = pmon__g.sh->nch[m], found = 0;
  double dt;

  if (seq <= b->anchor + 1)
    return -1;
  /* The first sample at or after the bucket's last boundary; a sample
   * published just after a boundary read seq may be older than it. */
  j = b->anchor + 1;
  if (seq > PMON_RING && j < seq - PMON_RING + 1)
    j = seq - PMON_RING + 1;
  for (; j < seq; j++) {
    if (pmon__tl_get(tl, j, &s) != 0)
      continue;
    found = 1;
    if (s.t_ns >= b->t_max)
      break;
  }
  if (!found) {
    r->unresolved++;
    b->used = 0;
    return 0;
  }
  dt = (double)(s.t_ns - b->a.t_ns) * 1e-9;
  for (int c = 0; c < nch; c++)
    r->e[m][c] += b->s0 * b->a.e[c] +
                  (dt > 0 ? b->s1 * (s.e[c] - b->a.e[c]) / dt : 0);
  {
    double ca = (double)b->a.covered_ns * 1e-9;
    double cs = (double)s.covered_ns * 1e-9;

    r->covered[m] += b->s0 * ca + (dt > 0 ? b->s1 * (cs - ca) / dt : 0);
  }
  b->used = 0;
  return 0;
}

/* Add a boundary of SIGN at NOW to R; SEQ[m] were loaded before NOW. */
static void boundary(struct region *r, double sign, uint64_t now,
                     const uint64_t *seq)
{
  const struct pmon_shared *sh = pmon__g.sh;

  for (int m = 0; m < sh->nmeters; m++) {
    struct bucket *b = &r->b[m];

    if (seq[m] == 0) { /* no sample yet */
      r->unresolved++;
      continue;
    }
    if (b->used && b->anchor != seq[m] - 1)
      resolve(r, m);
    if (!b->used) {
      if (pmon__tl_get(&sh->tl[m], seq[m] - 1, &b->a) != 0) {
        r->unresolved++;
        continue;
      }
      b->used = 1;
      b->anchor = seq[m] - 1;
      b->s0 = b->s1 = 0;
    }
    b->s0 += sign;
    b->s1 += sign * (double)(int64_t)(now - b->a.t_ns) * 1e-9;
    b->t_max = now;
  }
}

static int check_name(const char *name, size_t *len)
{
  if (name == NULL)
    return pmon__fail(PMON_EINVAL, "region: name is NULL");
  *len = strnlen(name, PMON_NAME_MAX + 1);
  if (*len == 0)
    return pmon__fail(PMON_EINVAL, "region: name is empty");
  if (*len > PMON_NAME_MAX)
    return pmon__fail(PMON_ENAMETOOLONG,
                      "region \"%.32s...\": name longer than %d bytes", name,
                      PMON_NAME_MAX);
  return 0;
}

static void load_seqs(uint64_t *seq)
{
  const struct pmon_shared *sh = pmon__g.sh;

  for (int m = 0; m < sh->nmeters; m++)
    seq[m] = pmon__tl_seq(&sh->tl[m]);
}

int pmon__region_begin(const char *name)
{
  uint64_t seq[PMON_METER_MAX];
  struct pmon_thread *t;
  struct region *r;
  size_t len;
  int rc;

  if ((rc = check_name(name, &len)) != 0)
    return rc;
  if ((t = this_thread()) == NULL)
    return pmon__fail(PMON_ENOMEM, "region \"%s\": out of memory", name);
  if ((r = lookup(t, name, len, 0)) == NULL) {
    /* A new name: it goes into the JSON report, so it must be UTF-8. */
    json_t *js = json_stringn(name, len);

    if (js == NULL)
      return pmon__fail(PMON_EINVAL, "region: name is not valid UTF-8");
    json_decref(js);
    if ((r = lookup(t, name, len, 1)) == NULL)
      return pmon__fail(PMON_ENOMEM, "region \"%s\": out of memory", name);
  }
  if (t->depth == t->stack_cap) {
    struct region **s = realloc(t->stack, 2 * t->stack_cap * sizeof *s);

    if (s == NULL)
      return pmon__fail(PMON_ENOMEM, "region \"%s\": out of memory", name);
    t->stack = s;
    t->stack_cap *= 2;
  }
  if (r->depth++ == 0) {
    uint64_t now;

    load_seqs(seq);
    now = pmon__now_ns();
    if (r->count == 0 && r->unclosed == 0 && r->first_ns == 0)
      r->first_ns = now;
    r->t_begin = now;
    boundary(r, -1.0, now, seq);
  }
  t->stack[t->depth++] = r;
  return 0;
}

int pmon__region_end(const char *name)
{
  uint64_t seq[PMON_METER_MAX];
  struct pmon_thread *t = self;
  struct region *r;
  size_t len;
  int rc;

  if ((rc = check_name(name, &len)) != 0)
    return rc;
  if (t == NULL || t->depth == 0)
    return pmon__fail(PMON_ENOREGION,
                      "region \"%s\": end without begin: no region is open "
                      "in this thread",
                      name);
  r = t->stack[t->depth - 1];
  if (strcmp(r->name, name) != 0) {
    struct region *o = lookup(t, name, len, 0);

    if (o == NULL || o->depth == 0)
      return pmon__fail(PMON_ENOREGION,
                        "region \"%s\": end without begin (innermost open "
                        "region is \"%s\")",
                        name, r->name);
    return pmon__fail(PMON_ENEST,
                      "region \"%s\": ended while \"%s\", opened inside "
                      "it, is still open",
                      name, r->name);
  }
  t->depth--;
  if (--r->depth == 0) {
    uint64_t now;

    load_seqs(seq);
    now = pmon__now_ns();
    r->count++;
    r->time_ns += now - r->t_begin;
    boundary(r, 1.0, now, seq);
  }
  return 0;
}

void pmon__regions_close_all(uint64_t now)
{
  uint64_t seq[PMON_METER_MAX];

  load_seqs(seq);
  for (struct pmon_thread *t = pmon__g.threads; t != NULL; t = t->next) {
    while (t->depth > 0) {
      struct region *r = t->stack[--t->depth];

      if (--r->depth == 0) {
        r->unclosed++;
        r->time_ns += now - r->t_begin;
        boundary(r, 1.0, now, seq);
      }
    }
  }
}

void pmon__regions_resolve(void)
{
  for (struct pmon_thread *t = pmon__g.threads; t != NULL; t = t->next)
    for (size_t i = 0; i < t->cap; i++) {
      struct region *r = t->slot[i];

      for (int m = 0; r != NULL && m < pmon__g.sh->nmeters; m++)
        if (r->b[m].used && resolve(r, m) != 0) {
          r->unresolved++;
          r->b[m].used = 0;
        }
    }
}

/*
 * This rank's regions as a JSON array, threads merged: pairs summed, the
 * longest thread's time, the energy of the first thread that entered the
 * region (energy is a node quantity: adding threads would count it
 * again).  Each element: name, count, unclosed, time_s, first_s,
 * unresolved, e (joules per channel, meters one after the other), cover
 * (per meter, the share of that thread's time in the region its energy
 * covers, 0 to 1).
 */
json_t *pmon__regions_json(void)
{
  struct pmon_state *g = &pmon__g;
  json_t *byname = json_object(), *arr = json_array();
  struct pmon_thread **ts = NULL;
  int n = 0;

  if (byname == NULL || arr == NULL)
    goto fail;
  if (g->nthreads > 0 && (ts = calloc((size_t)g->nthreads, sizeof *ts)) == NULL)
    goto fail;
  for (struct pmon_thread *t = g->threads; t != NULL; t = t->next)
    ts[t->index] = t, n++;
  for (int ti = 0; ti < n; ti++) {
    struct pmon_thread *t = ts[ti];

    for (size_t i = 0; i < t->cap; i++) {
      struct region *r = t->slot[i];
      json_t *o, *e, *cover;
      double time_s, first_s;

      if (r == NULL || (r->count == 0 && r->unclosed == 0))
        continue;
      time_s = (double)r->time_ns * 1e-9;
      first_s = (double)(r->first_ns - g->t_init_ns) * 1e-9;
      o = json_object_get(byname, r->name);
      if (o != NULL) {
        json_object_set_new(
          o, "count",
          json_integer(json_integer_value(json_object_get(o, "count")) +
                       (json_int_t)r->count));
        json_object_set_new(
          o, "unclosed",
          json_integer(json_integer_value(json_object_get(o, "unclosed")) +
                       (json_int_t)r->unclosed));
        if (time_s > json_real_value(json_object_get(o, "time_s")))
          json_object_set_new(o, "time_s", json_real(time_s));
        if (first_s < json_real_value(json_object_get(o, "first_s")))
          json_object_set_new(o, "first_s", json_real(first_s));
        continue;
      }
      e = json_array();
      cover = json_array();
      for (int m = 0; m < g->sh->nmeters; m++) {
        double f = time_s > 0 ? r->covered[m] / time_s : 1;

        for (int c = 0; c < g->sh->nch[m]; c++)
          json_array_append_new(e, json_real(r->e[m][c]));
        /* Rounding may take a fully measured region a hair past 1. */
        json_array_append_new(cover, json_real(f < 0 ? 0 : f > 1 ? 1 : f));
      }
      o = json_pack("{s:s, s:I, s:I, s:f, s:f, s:I, s:o, s:o}", "name",
                    r->name, "count", (json_int_t)r->count, "unclosed",
                    (json_int_t)r->unclosed, "time_s", time_s, "first_s",
                    first_s, "unresolved", (json_int_t)r->unresolved, "e", e,
                    "cover", cover);
      if (o == NULL || json_object_set_new(byname, r->name, o) != 0)
        goto fail;
    }
  }
  {
    const char *key;
    json_t *val;

    json_object_foreach(byname, key, val)
      json_array_append(arr, val);
  }
  free(ts);
  json_decref(byname);
  return arr;
fail:
  free(ts);
  json_decref(byname);
  json_decref(arr);
  return NULL;
}

void pmon__regions_free(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_thread *t = g->threads;

  while (t != NULL) {
    struct pmon_thread *next = t->next;

    for (size_t i = 0; i < t->cap; i++)
      if (t->slot[i] != NULL) {
        free(t->slot[i]->name);
        free(t->slot[i]);
      }
    free(t->slot);
    free(t->stack);
    free(t);
    t = next;
  }
  g->threads = NULL;
  g->nthreads = 0;
  self = NULL;
}

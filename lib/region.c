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
 *
 * Memory grows with distinct names only, and they are bounded: at most
 * PMON_MAX_REGIONS distinct names per process have entries of their own
 * (a thread's entry of a name that another thread already has does not
 * count again).  An entry is one block: struct region, then per meter its
 * bucket (struct rmeter), then the bucket's copy of sample k's energies
 * and the resolved energies (one double each per channel of the node),
 * then the name: 200 bytes plus the name for one meter of one channel,
 * plus 16 per channel more, and a table slot (8 bytes, at most half of
 * them used).  The process's registry of names adds 16 bytes a name.  A
 * new name beyond the limit is folded into the region "(other)": its
 * pairs, time and energy count there, so nothing is lost from the
 * totals, and only a 64-bit hash of it is kept, to count the names folded
 * and to match its end.
 *
 * Region calls take no lock, except a thread's first use of a name, which
 * looks the name up in the process's registry under names.lock (a hash
 * lookup, never anything slow).
 *
 * The block's layout and a thread's regions are in region.h, which this
 * file shares with lib/regpub.c only: that file, above this one,
 * publishes a rank's regions to its node and reads them back for the
 * spool.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "regfit.h"
#include "region.h"
#include "rtab.h"
#include "trace.h"

#define OTHER_NAME "(other)"
#define FIT_PARENT 0x8000u /* fslot: another name ran inside it */
#define FIT_PAIRS 20       /* outermost pairs a fitted region needs */
#define FIT_PHASES 4       /* eighths of the interval its boundaries hit */
#define HSET_MAX (1u << 20) /* slots of a set of folded names' hashes (8
                               MiB): beyond, a count is a lower bound */

/* A meter's part of a region: the pending bucket and the resolved time. */
struct rmeter {
  uint64_t anchor;  /* sample index k; valid when the region's used bit */
  uint64_t t_max;   /* the latest boundary in the bucket */
  uint64_t a_t;     /* sample k's time and measured time, copied: the */
  uint64_t a_cov;   /* ring may lose it (its energies follow, a_e) */
  double s0, s1;
  double covered;   /* seconds of the pairs this meter measured */
  /* Its error bar (docs/report-format.md, "Error bars"), in 64 bytes
   * more; a bar needs no more digits than a float's: */
  double err[2];    /* the bound of its errors, and their squares' sum */
  uint64_t pend;    /* a resolved bucket's sample j + 1, whose power its
                       boundaries' bound still wants (0: none) */
  float a_err[3];   /* sample k's err[], copied */
  float nb;         /* boundaries in the bucket */
  float p_lo, p_hi, p_w, p_nb; /* the resolved bucket's powers so far, the
                                  time its bound weighs them by, its
                                  boundaries */
  float p_in, p_c;  /* when its pairs began and ended in it (s0 = 0),
                       their time (|s1|) and the rest of their bound */
  float p_h;        /* how far the stamps of its samples k and j may be
                       from their values' instants, the larger, s */
  /* The step at a boundary (step_mend()), for the resolved bucket whose
   * bound waits for the power after it: what it needs to mend its
   * interpolation (the mends go into the energies, e[]). */
  float crowd;      /* the bounds of the boundaries left to
                       interpolation: their errors may all lean one way
                       (a step at each, a region's power above or below
                       its surroundings), so they add up */
  float q_a;        /* one boundary: its sign; a pair: the time outside
                       it, signed as s1 */
  float q_x;        /* what to mend: NAN nothing; one boundary at x
                       (0 to 1) of the interval j-1..j, x + 2 when the
                       bucket spans j-2..j; -1 a pair in j-1..j */
};

struct open_region {
  struct region *r;
  uint64_t hash;           /* of the name it was opened with */
};

static _Thread_local struct pmon_thread *self;

/* The layout of a region block (region.h), made by layout(). */
struct pmon_region_layout pmon__region_lay;

/* The process's distinct names, for PMON_MAX_REGIONS. */
static struct {
  pthread_mutex_t lock;
  struct rset known;  /* one entry (a thread's) of each name with entries */
  struct hset folded; /* the names folded into "(other)" */
  long limit;         /* PMON_MAX_REGIONS */
  int list_max;       /* PMON_REGION_NODES */
  int said;           /* rank 0 said that names were folded */
} names = {.lock = PTHREAD_MUTEX_INITIALIZER,
           .limit = PMON_MAX_REGIONS_DEFAULT,
           .list_max = PMON_REGION_NODES_DEFAULT};

/* The publication of a thread's regions when due (lib/regpub.c, through
 * pmon__regions_pub_hook()); NULL: none. */
static void (*pub_hook)(struct pmon_thread *t, uint64_t now);

void pmon__regions_pub_hook(void (*fn)(struct pmon_thread *t, uint64_t now))
{
  __atomic_store_n(&pub_hook, fn, __ATOMIC_RELEASE);
}

/* T's regions published at NOW, its boundary at or after its pub_due. */
static void publish(struct pmon_thread *t, uint64_t now)
{
  void (*fn)(struct pmon_thread *, uint64_t) =
    __atomic_load_n(&pub_hook, __ATOMIC_ACQUIRE);

  if (fn != NULL)
    fn(t, now);
}

static struct rmeter *rm_of(struct region *r)
{
  return (struct rmeter *)(r + 1);
}

static double *ae_of(struct region *r)
{
  return (double *)((char *)r + pmon__region_lay.off_ae);
}

static double *e_of(struct region *r)
{
  return (double *)((char *)r + pmon__region_lay.off_e);
}

static int fslot_of(const struct region *r)
{
  return r->fslot & ~FIT_PARENT;
}

/* The fit's mark (lib/regfit.c): at NOW, T's innermost region is INNER
 * (NULL: none) after a boundary of R. */
static void fit_mark(struct pmon_thread *t, const struct region *r,
                     const struct region *inner, uint64_t now,
                     const uint64_t *seq)
{
  if (t->fit != NULL && t->fit->m >= 0)
    pmon__fit_mark(t->fit, now, seq[t->fit->m],
                   inner != NULL ? fslot_of(inner) : 0, fslot_of(r));
}

/* VAR as a whole number from LO to HI into *OUT; unset leaves it. */
static int env_long(const char *var, long lo, long hi, const char *what,
                    long *out)
{
  const char *v = getenv(var);
  char *end;
  long n;

  if (v == NULL || *v == '\0')
    return 0;
  errno = 0;
  n = strtol(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || n < lo || n > hi)
    return pmon__fail(PMON_ECONFIG,
                      "%s: \"%.40s\": not a number of %s from %ld to %ld", var,
                      v, what, lo, hi);
  *out = n;
  return 0;
}

int pmon__regions_config(void)
{
  long limit = PMON_MAX_REGIONS_DEFAULT, list = PMON_REGION_NODES_DEFAULT;
  int rc = env_long(PMON_ENV_MAX_REGIONS, 1, PMON_MAX_REGIONS_MAX,
                    "region names", &limit);

  if (rc == 0)
    rc = env_long(PMON_ENV_REGION_NODES, 0, PMON_REGION_NODES_MAX, "nodes",
                  &list);
  names.limit = limit;
  names.list_max = (int)list;
  return rc;
}

long pmon__regions_limit(void)
{
  return names.limit;
}

int pmon__regions_list_max(void)
{
  return names.list_max;
}

int pmon__regions_said_folding(void)
{
  return names.said;
}

/* The layout of a region block from the node's meters: at init, once
 * the node-shared segment is set up (pmon__regions_layout()), or when the
 * process's first region thread is made (threads lock held), so that
 * every later thread sees it. */
static void layout(void)
{
  const struct pmon_shared *sh = pmon__g.sh;
  size_t nch = 0;

  if (pmon__region_lay.done)
    return;
  pmon__region_lay.done = 1;
  pmon__region_lay.nmeters = sh != NULL ? sh->nmeters : 0;
  for (int m = 0; m < pmon__region_lay.nmeters; m++) {
    pmon__region_lay.choff[m] = (int)nch;
    nch += (size_t)sh->nch[m];
  }
  pmon__region_lay.choff[pmon__region_lay.nmeters] = (int)nch;
  pmon__region_lay.off_ae =
    sizeof(struct region) +
    (size_t)pmon__region_lay.nmeters * sizeof(struct rmeter);
  pmon__region_lay.off_e = pmon__region_lay.off_ae + nch * sizeof(double);
  pmon__region_lay.off_name = pmon__region_lay.off_e + nch * sizeof(double);
}

void pmon__regions_layout(void)
{
  pthread_mutex_lock(&pmon__g.threads_lock);
  layout();
  pthread_mutex_unlock(&pmon__g.threads_lock);
}

static struct region *rset_find(const struct rset *s, const char *name,
                                uint64_t h)
{
  struct region *r;

  if (s->cap == 0)
    return NULL;
  for (size_t k = h & (s->cap - 1); (r = s->slot[k]) != NULL;
       k = (k + 1) & (s->cap - 1))
    if (r->hash == h && strcmp(name_of(r), name) == 0)
      return r;
  return NULL;
}

/* Room for one more in S, so that rset_put() cannot fail; -1 when out of
 * memory. */
static int rset_reserve(struct rset *s)
{
  size_t cap;
  struct region **slot;

  if (2 * (s->n + 1) <= s->cap)
    return 0;
  cap = s->cap ? 2 * s->cap : 16;
  if ((slot = calloc(cap, sizeof *slot)) == NULL)
    return -1;
  for (size_t i = 0; i < s->cap; i++) {
    struct region *r = s->slot[i];
    size_t k;

    if (r == NULL)
      continue;
    for (k = r->hash & (cap - 1); slot[k] != NULL; k = (k + 1) & (cap - 1))
      ;
    slot[k] = r;
  }
  free(s->slot);
  s->slot = slot;
  s->cap = cap;
  return 0;
}

static void rset_put(struct rset *s, struct region *r)
{
  size_t k;

  for (k = r->hash & (s->cap - 1); s->slot[k] != NULL;
       k = (k + 1) & (s->cap - 1))
    ;
  s->slot[k] = r;
  s->n++;
}

static int hset_has(const struct hset *s, uint64_t h)
{
  if (s->cap == 0)
    return 0;
  for (size_t k = h & (s->cap - 1); s->s[k] != 0; k = (k + 1) & (s->cap - 1))
    if (s->s[k] == h)
      return 1;
  return 0;
}

/* Add H to S: 1 when it is new, 0 when it was there or could not be
 * kept (then FULL is set). */
static int hset_add(struct hset *s, uint64_t h)
{
  size_t k;

  if (hset_has(s, h))
    return 0;
  if (2 * (s->n + 1) > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 1024;
    uint64_t *n;

    if (cap > HSET_MAX || (n = calloc(cap, sizeof *n)) == NULL) {
      s->full = 1;
      return 0;
    }
    for (size_t i = 0; i < s->cap; i++)
      if (s->s[i] != 0) {
        for (k = s->s[i] & (cap - 1); n[k] != 0; k = (k + 1) & (cap - 1))
          ;
        n[k] = s->s[i];
      }
    free(s->s);
    s->s = n;
    s->cap = cap;
  }
  for (k = h & (s->cap - 1); s->s[k] != 0; k = (k + 1) & (s->cap - 1))
    ;
  s->s[k] = h;
  s->n++;
  return 1;
}

static void hset_free(struct hset *s)
{
  free(s->s);
  memset(s, 0, sizeof *s);
}

static struct pmon_thread *this_thread(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_thread *t = self;

  if (t != NULL)
    return t;
  if ((t = calloc(1, sizeof *t)) == NULL)
    return NULL;
  t->stack_cap = 16;
  if (pmon__g.pub == NULL)
    t->pub_due = UINT64_MAX; /* no spool: never due */
  if (rset_reserve(&t->regions) != 0 ||
      (t->stack = malloc(t->stack_cap * sizeof *t->stack)) == NULL) {
    free(t->regions.slot);
    free(t->fit);
    free(t);
    return NULL;
  }
  if ((t->fit = malloc(sizeof *t->fit)) != NULL)
    pmon__fit_init(t->fit);
  pthread_mutex_lock(&g->threads_lock);
  layout();
  t->index = g->nthreads++;
  t->next = g->threads;
  g->threads = t;
  pthread_mutex_unlock(&g->threads_lock);
  self = t;
  return t;
}

/* A new entry NAME (LEN bytes, hash H) in T's table, which has room; NULL
 * when out of memory. */
static struct region *new_entry(struct pmon_thread *t, const char *name,
                                size_t len, uint64_t h)
{
  struct region *r = calloc(1, pmon__region_lay.off_name + len + 1);

  if (r == NULL)
    return NULL;
  memcpy(name_of(r), name, len + 1);
  r->hash = h;
  if (t->fit != NULL && t->fit->m >= 0 && t->fit->nslots < PMON_FIT_SLOTS &&
      strcmp(name, OTHER_NAME) != 0)
    r->fslot = (uint16_t)++t->fit->nslots;
  rset_put(&t->regions, r);
  return r;
}

/* T's "(other)", made at its first folded name; NULL when out of memory. */
static struct region *other_of(struct pmon_thread *t)
{
  uint64_t h = pmon__name_hash(OTHER_NAME, strlen(OTHER_NAME));
  struct region *r;

  if (t->other != NULL)
    return t->other;
  if ((r = rset_find(&t->regions, OTHER_NAME, h)) == NULL &&
      (rset_reserve(&t->regions) != 0 ||
       (r = new_entry(t, OTHER_NAME, strlen(OTHER_NAME), h)) == NULL))
    return NULL;
  r->other = 1;
  return t->other = r;
}

/*
 * The region that a begin of NAME counts in when T has no entry of it:
 * a new entry while the process has fewer than PMON_MAX_REGIONS distinct
 * names or another thread already has the name, else "(other)".  *R gets
 * it; 0, PMON_EINVAL (not UTF-8) or PMON_ENOMEM.
 */
static int enter_new(struct pmon_thread *t, const char *name, size_t len,
                     uint64_t h, struct region **r)
{
  struct region *known;
  json_t *js;
  int fold = 0, say = 0;

  if (hset_has(&t->folded, h)) { /* folded before here, so checked */
    *r = t->other;
    return 0;
  }
  /* A new name could go into the JSON report: it must be UTF-8. */
  if ((js = json_stringn(name, len)) == NULL)
    return PMON_EINVAL;
  json_decref(js);
  *r = NULL;
  pthread_mutex_lock(&names.lock);
  known = rset_find(&names.known, name, h);
  if (known == NULL && (long)names.known.n >= names.limit) {
    fold = 1;
    hset_add(&names.folded, h);
    say = !names.said && pmon__g.rank == 0;
    names.said |= say;
  } else if (rset_reserve(&t->regions) == 0 &&
             (known != NULL || rset_reserve(&names.known) == 0) &&
             (*r = new_entry(t, name, len, h)) != NULL && known == NULL) {
    rset_put(&names.known, *r);
  }
  pthread_mutex_unlock(&names.lock);
  if (say)
    pmon__say("region \"%.64s\": more than %ld region names in this "
              "process (%s): this and later new names count as \"%s\"",
              name, names.limit, PMON_ENV_MAX_REGIONS, OTHER_NAME);
  if (fold) {
    hset_add(&t->folded, h);
    *r = other_of(t);
  }
  return *r != NULL ? 0 : PMON_ENOMEM;
}

static void widen(struct rmeter *b, double p)
{
  if (isnan(p))
    return;
  b->p_lo = p < b->p_lo ? (float)p : b->p_lo;
  b->p_hi = p > b->p_hi ? (float)p : b->p_hi;
}

/* R's energy of meter M's first channel in the node total, where the
 * mends of steps go (only the node total's sum is a region's figure);
 * a scratch double for a meter with none. */
static double *total_channel(struct region *r, int m)
{
  static _Thread_local double none;
  unsigned mask = (unsigned)pmon__g.sh->total_mask[m];

  for (int c = 0;
       c < pmon__region_lay.choff[m + 1] - pmon__region_lay.choff[m]; c++)
    if (mask & (1u << c))
      return e_of(r) + pmon__region_lay.choff[m] + c;
  return &none;
}

/*
 * The step at a boundary (docs/report-format.md, "Steps at boundaries").
 * Interpolation gives a boundary at tau in an interval of DT seconds
 * the interval's mean power P over [0, tau]; when the power stepped there,
 * from the power of the interval before (A) to that of the one after (B),
 * the truth is tau (P + (1 - x) (A - B)), x = tau / DT: the two powers,
 * shifted alike so that the interval's energy stays what was measured.
 * The step is taken as shown when P is where such a step puts it, x A +
 * (1 - x) B, within a quarter of |A - B| or the counter's resolution over
 * the interval twice.  A pair that begins and ends in one interval (or a
 * gap between two pairs) is mended when the power before and after it
 * agree within that resolution: the time outside it at their mean, the
 * rest of the interval's energy its own.  A mend is kept within what a
 * power between the least and the most around it allows.  Returns the
 * weight of the power's range in the bound of the bucket's boundary (the
 * worst case of a mended one: the range times DT min(x, 1 - x), plus
 * the stamps), or -1 to keep interpolation's.  A mend goes into
 * *E_TOTAL, the region's energy of a channel of the node total; what a
 * mend not made would have moved into LEAN.
 */
static double step_mend(struct rmeter *b, int m, const struct pmon_tl_sample *sj,
                        double next, double *e_total)
{
  const struct pmon_tl *tl = &pmon__g.sh->tl[m];
  struct pmon_tl_sample s1, s2; /* samples j - 1 and j - 2 */
  double prev, mean, dt, c, q, lo, hi, qd = 0;
  double qx = b->q_x;
  int kind = qx < 0 ? 2 : 1, shown;

  b->q_x = NAN;
  if (isnan(qx) || isnan(next) || b->pend < 3 ||
      pmon__tl_get(tl, b->pend - 2, &s1) != 0 ||
      pmon__tl_get(tl, b->pend - 3, &s2) != 0)
    return -1;
  prev = pmon__tl_power(m, s2.e, s2.t_ns, s1.e, s1.t_ns);
  mean = pmon__tl_power(m, s1.e, s1.t_ns, sj->e, sj->t_ns);
  dt = (double)(sj->t_ns - s1.t_ns) * 1e-9;
  if (isnan(prev) || isnan(mean) || !(dt > 0))
    return -1;
  if (kind == 1) {
    /* the energy from sample k to the interval's start, less what
     * interpolation gave the boundary */
    double x = qx >= 2 ? qx - 2 : qx, tau = x * dt;

    if (qx >= 2) {
      double d0 = (double)(s1.t_ns - s2.t_ns) * 1e-9;

      qd = prev * d0 - (tau + d0) * (prev * d0 + mean * dt) / (d0 + dt);
    } else
      qd = -tau * mean;
    qx = x;
  }
  q = 2 * pmon__g.sh->res_j[m] / dt;
  lo = b->p_lo;
  hi = b->p_hi;
  if (kind == 1) {
    double x = qx, tau = x * dt, pred = x * prev + (1 - x) * next;
    double sgn = b->q_a, e = tau * (mean + (1 - x) * (prev - next));
    double emax = fmin(tau * hi, mean * dt - (dt - tau) * lo);
    double emin = fmax(tau * lo, mean * dt - (dt - tau) * hi);

    shown = fabs(mean - pred) <= fmax(0.25 * fabs(prev - next), q);
    if (!shown)
      return -1;
    /* The energy from the interval's start to the boundary, kept within
     * what powers from lo to hi allow there and in the rest of it. */
    e = e > emax ? emax : e < emin ? emin : e;
    *e_total += sgn * (qd + e);
    return dt * fmin(x, 1 - x) + b->p_c;
  }
  /* kind 2: a pair (or a gap) inside the interval */
  shown = fabs(prev - next) <= q;
  c = b->q_a * (mean - (prev + next) / 2);
  if (!shown)
    return -1;
  {
    double in = dt - fabs(b->q_a), e0 = in * mean, sgn = b->q_a >= 0 ? 1 : -1;
    double e = e0 + sgn * c;

    e = e > in * hi ? in * hi : e < in * lo ? in * lo : e;
    c = sgn * (e - e0);
  }
  *e_total += c;
  return -1;
}

/* The pending bound of meter M's last resolved bucket into the region's,
 * with the power after its sample j when the ring still has it. */
static void bound_settle(struct region *r, int m)
{
  struct rmeter *b = &rm_of(r)[m];
  const struct pmon_shared *sh = pmon__g.sh;
  struct pmon_tl_sample x, y;
  double one, inside, next = NAN, w, stamps;

  if (b->pend == 0)
    return;
  if (pmon__tl_get(&sh->tl[m], b->pend - 1, &x) == 0 &&
      pmon__tl_get(&sh->tl[m], b->pend, &y) == 0) {
    widen(b, next = pmon__tl_power(m, x.e, x.t_ns, y.e, y.t_ns));
  } else {
    /* After a counter's last interval the power is not known either. */
    if (sh->res_j[m] > 0) /* a counter (lib/node.c) */
      widen(b, 0);
    b->q_x = NAN;
  }
  w = step_mend(b, m, &x, next, total_channel(r, m));
  /* A boundary's value is interpolated between samples whose stamps may
   * each be off by up to p_h from their values' instants: at the power
   * there, not at its range.  The stamps of a region's two ends are not
   * off alike (a publisher's and the poller's clocks drift, a held-up
   * read moves one of them), so they do not cancel. */
  stamps = b->p_h * fmax(fabs(b->p_lo), fabs(b->p_hi));
  one = (b->p_hi - b->p_lo) * ((w >= 0 ? w : b->p_w) - b->p_h) +
        sh->res_j[m];
  inside = b->p_in * (b->p_hi - b->p_lo + b->p_c);
  /* A mended boundary's error is what is left of the range, as likely
   * one way as the other; one left to interpolation may lean with all
   * the others (docs/report-format.md); the stamps' never lean. */
  if (b->p_in > 0 && inside < b->p_nb * (one + stamps)) {
    b->err[0] += inside;
    if (w < 0)
      b->crowd += (float)inside;
    else
      b->err[1] += inside * inside;
  } else {
    b->err[0] += b->p_nb * (one + stamps);
    if (w < 0) {
      b->crowd += (float)(b->p_nb * one);
      b->err[1] += b->p_nb * stamps * stamps;
    } else {
      b->err[1] += b->p_nb * (one + stamps) * (one + stamps);
    }
  }
  b->pend = 0;
}

/*
 * The bound of the bucket of meter M, just resolved with sample J (S), DT
 * seconds after its sample k.  Each boundary between k and j is off by at
 * most the power's range around it, times a quarter of the spacing (the
 * linear interpolation) plus the stamps' uncertainty, plus the counter's
 * resolution.  The range is taken over the intervals k-1..k, k..j and
 * j..j+1; j + 1 may not be published yet, so the bound waits for it
 * (bound_settle(), at the next resolution or at the end).  A bucket
 * whose pairs all begin and end in it (s0 = 0) has a bound of its own,
 * used when smaller: the range times their time, plus what the ends'
 * resolution and stamps do to the slope, over their time.
 */
static void bucket_bound(struct region *r, int m, uint64_t j,
                         const struct pmon_tl_sample *s, double dt)
{
  const struct pmon_shared *sh = pmon__g.sh;
  struct rmeter *b = &rm_of(r)[m];
  const double *ae = ae_of(r) + pmon__region_lay.choff[m];
  struct pmon_tl_sample x;
  double h;

  bound_settle(r, m);
  b->p_lo = INFINITY;
  b->p_hi = -INFINITY;
  /* k..j may hold several intervals (the sample after a boundary stamped
   * before it): each one's power, or their mean when the ring lost one. */
  {
    struct pmon_tl_sample y;
    const double *pe = ae;
    uint64_t pt = b->a_t, i;

    b->q_x = NAN;
    for (i = b->anchor + 1; i < j; i++) {
      if (pmon__tl_get(&sh->tl[m], i, &y) != 0)
        break;
      widen(b, pmon__tl_power(m, pe, pt, y.e, y.t_ns));
      /* One boundary in the last of two intervals: mended there. */
      if (b->nb == 1 && i + 1 == j && j == b->anchor + 2 &&
          y.t_ns <= b->t_max && s->t_ns > y.t_ns) {
        b->q_x = (float)(2 + (double)(b->t_max - y.t_ns) /
                                 (double)(s->t_ns - y.t_ns));
        b->q_a = (float)(b->s0 >= 0 ? 1 : -1);
      }
      x = y;
      pe = x.e;
      pt = x.t_ns;
    }
    widen(b, pmon__tl_power(m, pe, pt, s->e, s->t_ns));
  }
  /* Before a counter's first interval, or one the ring lost, the power
   * is not known: a step there may be from nothing (power is not below
   * 0).  A power meter's trapezoids carry their own bound (err[0]). */
  if (b->anchor > 0 && pmon__tl_get(&sh->tl[m], b->anchor - 1, &x) == 0)
    widen(b, pmon__tl_power(m, x.e, x.t_ns, ae, b->a_t));
  else if (sh->res_j[m] > 0) /* a counter (lib/node.c) */
    widen(b, 0);
  if (b->p_lo > b->p_hi)
    b->p_lo = b->p_hi = 0;
  h = b->a_err[2] > s->err[2] ? b->a_err[2] : s->err[2];
  b->p_w = (float)((dt > 0 ? dt / 4 : 0) + h);
  b->p_h = (float)h;
  b->p_c = (float)h; /* one boundary's stamps, for step_mend() */
  b->p_nb = b->nb;
  b->p_in = 0;
  if (j == b->anchor + 1 && dt > 0 && (b->nb == 1 || (b->nb == 2 &&
                                                      fabs(b->s0) < 0.5))) {
    if (b->nb == 1) {
      b->q_a = (float)(b->s0 >= 0 ? 1 : -1);
      b->q_x = (float)(fabs(b->s1) / dt);
    } else {
      b->q_a = (float)(b->s1 >= 0 ? dt - b->s1 : -(dt + b->s1));
      b->q_x = -1;
    }
  }
  if (fabs(b->s0) < 0.5 && dt > 0) {
    double p = pmon__tl_power(m, ae, b->a_t, s->e, s->t_ns);

    b->p_in = (float)fabs(b->s1);
    b->p_c = (float)((sh->res_j[m] + fabs(p) * (b->a_err[2] + s->err[2])) /
                     dt);
  }
  b->pend = j + 1;
}

/*
 * Fold the bucket of meter M into R's energy, if a sample after it exists
 * among the first SEQ.
 * 0 when resolved, -1 when not yet.  The bucket keeps its own copy of
 * sample k; the next sample is normally k + 1, but when the ring has
 * already dropped it (a region call long after) the oldest sample still
 * there stands in: the slope then averages over a longer time, which moves
 * the result by at most one sample interval's change of power.
 */
static int resolve_upto(struct region *r, int m, uint64_t seq)
{
  const struct pmon_tl *tl = &pmon__g.sh->tl[m];
  struct rmeter *b = &rm_of(r)[m];
  double *ae = ae_of(r) + pmon__region_lay.choff[m];
  double *e = e_of(r) + pmon__region_lay.choff[m];
  struct pmon_tl_sample s;
  uint64_t j;
  int nch = pmon__region_lay.choff[m + 1] - pmon__region_lay.choff[m];
  int found = 0;
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
  r->used &= (uint16_t)~(1u << m);
  if (!found) {
    r->unresolved++;
    return 0;
  }
  dt = (double)(s.t_ns - b->a_t) * 1e-9;
  for (int c = 0; c < nch; c++)
    e[c] += b->s0 * ae[c] + (dt > 0 ? b->s1 * (s.e[c] - ae[c]) / dt : 0);
  for (int i = 0; i < 2; i++)
    b->err[i] += b->s0 * b->a_err[i] +
                 (dt > 0 ? b->s1 * (s.err[i] - b->a_err[i]) / dt : 0);
  bucket_bound(r, m, j, &s, dt);
  {
    double ca = (double)b->a_cov * 1e-9;
    double cs = (double)s.covered_ns * 1e-9;

    b->covered += b->s0 * ca + (dt > 0 ? b->s1 * (cs - ca) / dt : 0);
  }
  return 0;
}

/* As resolve_upto(), with every sample published so far. */
static int resolve(struct region *r, int m)
{
  return resolve_upto(r, m, pmon__tl_seq(&pmon__g.sh->tl[m]));
}

/* Add a boundary of SIGN at NOW to R; SEQ[m] were loaded before NOW. */
static void boundary(struct region *r, double sign, uint64_t now,
                     const uint64_t *seq)
{
  const struct pmon_shared *sh = pmon__g.sh;

  for (int m = 0; m < pmon__region_lay.nmeters; m++) {
    struct rmeter *b = &rm_of(r)[m];

    if (seq[m] == 0) { /* no sample yet */
      r->unresolved++;
      continue;
    }
    /* Up to the samples loaded before NOW, not those published since:
     * the figure depends on what the call saw, which a trace keeps. */
    if ((r->used & (1u << m)) && b->anchor != seq[m] - 1)
      resolve_upto(r, m, seq[m]);
    if (!(r->used & (1u << m))) {
      struct pmon_tl_sample a;

      if (pmon__tl_get(&sh->tl[m], seq[m] - 1, &a) != 0) {
        r->unresolved++;
        continue;
      }
      r->used |= (uint16_t)(1u << m);
      b->anchor = seq[m] - 1;
      b->a_t = a.t_ns;
      b->a_cov = a.covered_ns;
      memcpy(ae_of(r) + pmon__region_lay.choff[m], a.e,
             (size_t)(pmon__region_lay.choff[m + 1] -
                      pmon__region_lay.choff[m]) * sizeof(double));
      for (int i = 0; i < 3; i++)
        b->a_err[i] = (float)a.err[i];
      b->s0 = b->s1 = b->nb = 0;
    }
    b->s0 += sign;
    b->nb += 1;
    b->s1 += sign * (double)(int64_t)(now - b->a_t) * 1e-9;
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

  for (int m = 0; m < pmon__region_lay.nmeters; m++)
    seq[m] = pmon__tl_seq(&sh->tl[m]);
}

/* A boundary's instant and the sample counts loaded before it, as a
 * trace gives them (pmon__region_replay()); NULL: read now. */
struct at {
  uint64_t now;
  const uint64_t *seq; /* NULL: the trace gave none (a call inside
                          another of the same name) */
};

/* Load the sample counts into SEQ, then the instant, or take them from
 * AT; 0, or PMON_EINVAL for a boundary a trace gave no time for. */
static int stamp(const struct at *at, uint64_t *seq, uint64_t *now)
{
  if (at == NULL) {
    load_seqs(seq);
    *now = pmon__now_ns();
    return 0;
  }
  if (at->seq == NULL)
    return pmon__fail(PMON_EINVAL, "an outermost call without its time");
  memcpy(seq, at->seq, (size_t)pmon__region_lay.nmeters * sizeof *seq);
  *now = at->now;
  return 0;
}

static int begin_at(const char *name, const struct at *at)
{
  uint64_t seq[PMON_METER_MAX], h, now = 0;
  struct pmon_thread *t;
  struct region *r;
  size_t len;
  int rc;

  if ((rc = check_name(name, &len)) != 0)
    return rc;
  if ((t = this_thread()) == NULL)
    return pmon__fail(PMON_ENOMEM, "region \"%s\": out of memory", name);
  h = pmon__name_hash(name, len);
  if ((r = rset_find(&t->regions, name, h)) == NULL &&
      (rc = enter_new(t, name, len, h, &r)) != 0)
    return rc == PMON_EINVAL
             ? pmon__fail(rc, "region: name is not valid UTF-8")
             : pmon__fail(rc, "region \"%s\": out of memory", name);
  if (t->depth == t->stack_cap) {
    struct open_region *s = realloc(t->stack, 2 * t->stack_cap * sizeof *s);

    if (s == NULL)
      return pmon__fail(PMON_ENOMEM, "region \"%s\": out of memory", name);
    t->stack = s;
    t->stack_cap *= 2;
  }
  if (r->depth == 0 && (rc = stamp(at, seq, &now)) != 0)
    return rc;
  if (r->depth++ == 0) {
    if (r->first_ns == 0)
      r->first_ns = now;
    r->t_begin = now;
    boundary(r, -1.0, now, seq);
    fit_mark(t, r, r, now, seq);
    if (now >= t->pub_due)
      publish(t, now);
  }
  if (t->depth > 0 && t->stack[t->depth - 1].r != r)
    t->stack[t->depth - 1].r->fslot |= FIT_PARENT;
  t->stack[t->depth].r = r;
  t->stack[t->depth++].hash = h;
  if (pmon__tracing && at == NULL)
    pmon__trace_region(t->index, 1, name, now, seq,
                       pmon__region_lay.nmeters);
  return 0;
}

int pmon__region_begin(const char *name)
{
  return begin_at(name, NULL);
}

/* Whether the open entry O was opened with NAME (hash H). */
static int opened_as(struct pmon_thread *t, const struct open_region *o,
                     const char *name, uint64_t h)
{
  struct region *x;

  if (o->hash != h)
    return 0;
  if (!o->r->other)
    return strcmp(name_of(o->r), name) == 0;
  /* A folded name has no entry of its own. */
  x = rset_find(&t->regions, name, h);
  return x == NULL || x == o->r;
}

static int end_at(const char *name, const struct at *at)
{
  uint64_t seq[PMON_METER_MAX], h, now = 0;
  struct pmon_thread *t = self;
  struct open_region *top;
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
  h = pmon__name_hash(name, len);
  top = &t->stack[t->depth - 1];
  r = top->r;
  if (!opened_as(t, top, name, h)) {
    const char *inner = r->other ? OTHER_NAME " (a folded name)" : name_of(r);

    for (size_t i = 0; i + 1 < t->depth; i++)
      if (opened_as(t, &t->stack[i], name, h))
        return pmon__fail(PMON_ENEST,
                          "region \"%s\": ended while \"%s\", opened inside "
                          "it, is still open",
                          name, inner);
    return pmon__fail(PMON_ENOREGION,
                      "region \"%s\": end without begin (innermost open "
                      "region is \"%s\")",
                      name, inner);
  }
  if (r->depth == 1 && (rc = stamp(at, seq, &now)) != 0)
    return rc;
  t->depth--;
  if (--r->depth == 0) {
    r->count++;
    if (r->outer++ == 0)
      r->first_end = now;
    r->last_begin = r->t_begin;
    r->last_end = now;
    r->time_ns += now - r->t_begin;
    boundary(r, 1.0, now, seq);
    fit_mark(t, r, t->depth > 0 ? t->stack[t->depth - 1].r : NULL, now,
             seq);
    if (now >= t->pub_due)
      publish(t, now);
  } else if (r->other) {
    r->count++; /* a folded pair inside another */
  }
  if (pmon__tracing && at == NULL)
    pmon__trace_region(t->index, 0, name, now, seq,
                       pmon__region_lay.nmeters);
  return 0;
}

int pmon__region_end(const char *name)
{
  return end_at(name, NULL);
}

int pmon__region_replay(int begin, const char *name, uint64_t now,
                        const uint64_t *seq)
{
  const struct at at = {now, seq};

  return begin ? begin_at(name, &at) : end_at(name, &at);
}

void *pmon__region_thread_make(void)
{
  return this_thread();
}

void *pmon__region_thread_swap(void *t)
{
  struct pmon_thread *old = self;

  self = t;
  return old;
}

void pmon__regions_close_all(uint64_t now)
{
  uint64_t seq[PMON_METER_MAX];

  load_seqs(seq);
  pmon__trace_finalize(now, seq, pmon__region_lay.nmeters);
  pmon__regions_close_at(now, seq);
}

void pmon__regions_close_at(uint64_t now, const uint64_t *seq)
{
  for (struct pmon_thread *t = pmon__g.threads; t != NULL; t = t->next) {
    while (t->depth > 0) {
      struct region *r = t->stack[--t->depth].r;

      if (--r->depth == 0) {
        if (r->outer++ == 0)
          r->first_end = now;
        r->last_begin = r->t_begin;
        r->last_end = now;
        r->unclosed++;
        r->time_ns += now - r->t_begin;
        boundary(r, 1.0, now, seq);
        fit_mark(t, r, t->depth > 0 ? t->stack[t->depth - 1].r : NULL, now,
                 seq);
      } else if (r->other) {
        r->unclosed++;
      }
    }
  }
}

void pmon__regions_resolve(void)
{
  for (struct pmon_thread *t = pmon__g.threads; t != NULL; t = t->next)
    for (size_t i = 0; i < t->regions.cap; i++) {
      struct region *r = t->regions.slot[i];

      for (int m = 0; r != NULL && m < pmon__region_lay.nmeters; m++)
        if ((r->used & (1u << m)) && resolve(r, m) != 0) {
          r->unresolved++;
          r->used &= (uint16_t)~(1u << m);
        }
    }
}

/* R's node total (the meters and channels of the node total) into *E and
 * the least share of its time those meters measured into *COVER, both
 * NAN when the node has no total or a boundary found no timeline; its
 * bar into *ERR, the bound that always holds into *MAX (pmon__err_max())
 * and its terms' bounds alone into *BOUND_OUT. */
static void node_total(struct region *r, double *e, double *cover,
                       double *err, double *max, double *bound_out)
{
  const struct pmon_shared *sh = pmon__g.sh;
  double time_s = (double)r->time_ns * 1e-9, sum = 0, least = 1;
  double lin = 0, bound = 0, sq = 0, crowd = 0;

  *e = *cover = *err = *max = NAN;
  if (sh == NULL || sh->total_meter < 0 || r->unresolved != 0)
    return;
  for (int m = 0; m < pmon__region_lay.nmeters; m++) {
    struct rmeter *b = &rm_of(r)[m];
    double f = time_s > 0 ? b->covered / time_s : 1, em = 0;

    if (sh->total_mask[m] == 0)
      continue;
    bound_settle(r, m);
    for (int c = 0;
         c < pmon__region_lay.choff[m + 1] - pmon__region_lay.choff[m]; c++)
      if (sh->total_mask[m] & (1u << c))
        em += e_of(r)[pmon__region_lay.choff[m] + c];
    sum += em;
    lin += sh->acc_rel[m] * fabs(em) + sh->acc_w[m] * fabs(b->covered);
    bound += fabs(b->err[0]);
    sq += fabs(b->err[1]);
    crowd += b->crowd;
    /* Rounding may take a fully measured region a hair past 1. */
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    least = f < least ? f : least;
  }
  *e = sum;
  *cover = least;
  *err = pmon__err_lean(lin, bound, sq, crowd);
  *max = pmon__err_max(lin, bound);
  if (bound_out != NULL)
    *bound_out = bound;
}

/*
 * R's figure from its thread T's fit (docs/report-format.md, "Regions
 * fitted over their repetitions"), where it is better supported than
 * interpolation's: a region in which no other ran, FIT_PAIRS outermost
 * pairs or more, none left open, measured over its whole time, its
 * boundaries in FIT_PHASES eighths of the interval or more, a power in
 * the fit, and residuals that explain the intervals (their spread within
 * three times the counter's resolution or half the intervals' energies'
 * spread).  Its bar: the stated accuracy, plus the smaller of BOUND,
 * interpolation's worst case, and the fit's 95 % interval with the
 * counter's resolution and the stamps' lean.  *E and *ERR replaced and
 * 1, or 0.
 */
static int fit_figure(const struct pmon_thread *t, struct region *r,
                      double cover, double bound, double *e, double *err)
{
  const struct pmon_shared *sh = pmon__g.sh;
  const struct pmon_fit *f;
  int c = fslot_of(r), phases = 0, m;
  double time_s = (double)r->time_ns * 1e-9, pe, stat, lin, res, step = 0, spread;

  if (t == NULL || (f = t->fit) == NULL || !t->fit_ok || c == 0 || (r->fslot & FIT_PARENT) ||
      r->other || r->outer < FIT_PAIRS || r->unclosed != 0 ||
      !isfinite(*e) || !isfinite(*err) || !(cover >= PMON_COVERAGE_FULL))
    return 0;
  m = f->m;
  res = sh->res_j[m];
  for (int i = 0; i < 8; i++)
    phases += (f->phase[c] >> i) & 1;
  spread = f->ee / f->n - (f->esum / f->n) * (f->esum / f->n);
  spread = spread > 0 ? sqrt(spread) : 0;
  if (phases < FIT_PHASES || !(t->fit_p[c] > 0) || !isfinite(t->fit_var[c]) ||
      !isfinite(sh->acc_rel[m]) ||
      sqrt(t->fit_s2) > fmax(3 * res, 0.5 * spread))
    return 0;
  pe = t->fit_p[c] * time_s;
  /* The stamps' lean (lib/regfit.c): per boundary, the mean of
   * min(1, 2 h / dt) h over the rows times the largest step of power
   * from the region's to another column's. */
  for (int i = 0; i < PMON_FIT_N; i++)
    if (f->xs[i] > 0 && !isnan(t->fit_var[i]))
      step = fmax(step, fabs(t->fit_p[c] - t->fit_p[i]));
  stat = 1.96 * sqrt(t->fit_var[c]) * time_s + res +
         2.0 * (double)r->outer * f->qsum / f->n * step;
  lin = sh->acc_rel[m] * pe + sh->acc_w[m] * rm_of(r)[m].covered;
  *e = pe;
  *err = lin + fmin(stat, bound);
  return 1;
}

static int by_index(const void *a, const void *b)
{
  const struct pmon_thread *x = *(const struct pmon_thread *const *)a;
  const struct pmon_thread *y = *(const struct pmon_thread *const *)b;

  return (x->index > y->index) - (x->index < y->index);
}

int pmon__region_table_add(struct pmon_rtab *tab, const struct pmon_thread *t,
                           struct region *r, int rank)
{
  struct pmon_rrec *x;
  double time_s, first_s;
  int created;

  if (r->count == 0 && r->unclosed == 0)
    return 0;
  if ((x = pmon__rtab_get(tab, name_of(r), strlen(name_of(r)), &created)) ==
      NULL) {
    tab->lost++;
    return PMON_ENOMEM;
  }
  time_s = (double)r->time_ns * 1e-9;
  first_s = ((double)r->first_ns - (double)pmon__g.t_init_ns) * 1e-9;
  x->count += r->count;
  x->unclosed += r->unclosed;
  x->time_s = time_s > x->time_s ? time_s : x->time_s;
  x->first_s = first_s < x->first_s ? first_s : x->first_s;
  if (created) {
    x->rank = rank;
    double bound = 0, interp;

    node_total(r, &x->energy_j, &x->coverage, &x->energy_err_j,
               &x->energy_err_max_j, &bound);
    interp = x->energy_j;
    x->fitted = (uint32_t)fit_figure(t, r, x->coverage, bound, &x->energy_j,
                                     &x->energy_err_j);
    /* The fit's figure is no further from the truth than from
     * interpolation's plus interpolation's bound. */
    if (x->fitted)
      x->energy_err_max_j += fabs(x->energy_j - interp);
    x->mcount = r->outer;
    x->span[0] = r->first_ns;
    x->span[1] = r->first_end;
    x->span[2] = r->last_begin;
    x->span[3] = r->last_end;
  }
  return 0;
}

int pmon__regions_table(struct pmon_rtab *tab)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_thread **ts = NULL;
  int n = 0, rc = 0;

  if (g->nthreads > 0 && (ts = malloc((size_t)g->nthreads * sizeof *ts)) == NULL) {
    tab->lost++;
    return PMON_ENOMEM;
  }
  for (struct pmon_thread *t = g->threads; t != NULL; t = t->next)
    ts[n++] = t;
  if (n > 1)
    qsort(ts, (size_t)n, sizeof *ts, by_index);
  for (int i = 0; i < n; i++) {
    struct pmon_thread *t = ts[i];

    if (t->fit != NULL && t->fit->m >= 0) {
      pmon__fit_flush(t->fit);
      t->fit_ok = pmon__fit_solve(t->fit, t->fit_p, t->fit_var,
                                  &t->fit_s2) == 0;
    }
    for (size_t k = 0; k < t->regions.cap; k++)
      if (t->regions.slot[k] != NULL &&
          pmon__region_table_add(tab, t, t->regions.slot[k], g->rank) != 0)
        rc = PMON_ENOMEM;
  }
  free(ts);
  own_time(tab);
  pthread_mutex_lock(&names.lock);
  tab->folded += names.folded.n;
  tab->folded_lower |= names.folded.full;
  pthread_mutex_unlock(&names.lock);
  return rc;
}

void pmon__region_settle(struct region *r, const uint64_t *seq,
                         const struct pmon_tl_sample *last,
                         uint64_t known_ns)
{
  if (r->depth > 0) {
    for (int m = 0; m < pmon__region_lay.nmeters; m++) {
      struct rmeter *b = &rm_of(r)[m];
      uint64_t t = last[m].t_ns;

      if (seq[m] == 0) {
        r->unresolved++;
        continue;
      }
      if (!(r->used & (1u << m))) { /* an end right at a sample */
        for (int c = 0;
             c < pmon__region_lay.choff[m + 1] - pmon__region_lay.choff[m];
             c++)
          e_of(r)[pmon__region_lay.choff[m] + c] += last[m].e[c];
        b->covered += (double)last[m].covered_ns * 1e-9;
        for (int i = 0; i < 2; i++)
          b->err[i] += last[m].err[i];
        continue;
      }
      b->s0 += 1.0;
      b->nb += 1.0;
      b->s1 += t > b->a_t ? (double)(t - b->a_t) * 1e-9 : 0;
      b->t_max = t > b->t_max ? t : b->t_max;
    }
    r->time_ns += known_ns > r->t_begin ? known_ns - r->t_begin : 0;
    r->unclosed += r->other ? r->depth : 1;
    known_ns = known_ns > r->t_begin ? known_ns : r->t_begin;
    if (r->outer++ == 0)
      r->first_end = known_ns;
    r->last_begin = r->t_begin;
    r->last_end = known_ns;
  }
  for (int m = 0; m < pmon__region_lay.nmeters; m++) {
    struct rmeter *b = &rm_of(r)[m];
    int nch = pmon__region_lay.choff[m + 1] - pmon__region_lay.choff[m];

    if (!(r->used & (1u << m)))
      continue;
    if (seq[m] > b->anchor + 1 && last[m].t_ns >= b->t_max &&
        resolve_upto(r, m, seq[m]) == 0)
      continue;
    for (int c = 0; c < nch; c++)
      e_of(r)[pmon__region_lay.choff[m] + c] +=
        b->s0 * ae_of(r)[pmon__region_lay.choff[m] + c];
    b->covered += b->s0 * (double)b->a_cov * 1e-9;
    for (int i = 0; i < 2; i++)
      b->err[i] += b->s0 * b->a_err[i];
    r->used &= (uint16_t)~(1u << m);
  }
}

void pmon__regions_free(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_thread *t = g->threads;

  while (t != NULL) {
    struct pmon_thread *next = t->next;

    for (size_t i = 0; i < t->regions.cap; i++)
      free(t->regions.slot[i]);
    free(t->regions.slot);
    free(t->stack);
    free(t->pub_buf);
    free(t->fit);
    hset_free(&t->folded);
    free(t);
    t = next;
  }
  g->threads = NULL;
  g->nthreads = 0;
  self = NULL;
  pmon__region_lay.done = 0;
  pthread_mutex_lock(&names.lock);
  free(names.known.slot);
  memset(&names.known, 0, sizeof names.known);
  hset_free(&names.folded);
  names.said = 0;
  pthread_mutex_unlock(&names.lock);
}

/*
 * comm.c - MPI communication accounting: calls, bytes and time per call
 * and message-size bin on each rank, and at finalize the share of the
 * node's energy spent while the rank was inside communication calls.
 *
 * The wrappers of mpiio/comm.c count a call in place (pmon__comm_fast(),
 * preload.h) or, with MPI_THREAD_MULTIPLE or when the call leaves its time
 * slot, here under a lock.  Besides the rows (calls, bytes, stamps per
 * call and bin), each rank keeps the stamps it spent inside any call per
 * time slot: PMON_COMM_SLOTS slots of 1 << shift stamps; when a call ends
 * past the last one, the slots are merged in pairs and the width doubles,
 * so memory is fixed and the resolution halves evenly over the job.
 * Under MPI_THREAD_MULTIPLE the slots hold the union of the threads'
 * calls: the wrappers tell pmon__comm_begin() as a call starts, and the
 * time from the first thread's entry to the last one's exit goes in.
 * While the spool or the metrics are on, the rows lie after the rank's
 * slot in the node-shared segment (lib/node.c), so that the leader's
 * writer reads the node's calls and bytes so far (pmon__comm_so_far())
 * without a word from the ranks: their calls cost nothing more.
 *
 * Energy.  A node's power is shared by its ranks equally: while a rank is
 * inside a call, 1/R of the node's power (R ranks on the node) is the
 * call's.  The leader integrates the node total's history over each of the
 * rank's slots and gives the rank (stamps inside calls in the slot) x
 * (the slot's mean power over the time its meter measured) / R; the
 * rank's rows share that in proportion to their time (under
 * MPI_THREAD_MULTIPLE, their times add up to more than the union in the
 * slots, and each row gets its part of the union's energy).  Summed over the ranks of a node the result never exceeds
 * what the node spent while any of its ranks was inside a call: in every
 * slot the R ranks together take at most R x (slot's power x time) / R.
 * It is null where the node has no energy measure.  The rules are stated
 * for users in pmon-mpiio(7) and docs/internals.md.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "preload.h"

static const char *const call_names[PMON_COMM_NCALLS] = {
#define PMON_COMM_NAME(id, name) name,
  PMON_COMM_CALLS(PMON_COMM_NAME)
#undef PMON_COMM_NAME
};

#define SLOT_SHIFT_NS 20 /* the first slot width, about 1 ms */

struct pmon__comm_hot pmon__comm_hot;
static struct pmon__comm_hot *const hot = &pmon__comm_hot;

static struct {
  int off;             /* PMON_COMM=0 */
  int started;
  int shared;          /* the rows are in the node-shared segment */
  int clock;           /* of the stamps */
  pthread_mutex_t lock;
  uint64_t ns0, t0;    /* a time in ns and the stamp taken with it */
  /* MPI_THREAD_MULTIPLE, under LOCK: the rank's threads inside calls,
   * and the stamp at which the first of them entered. */
  int inside;
  uint64_t inside_t0;
} comm = {.lock = PTHREAD_MUTEX_INITIALIZER};

int pmon__comm_config(void)
{
  const char *v = getenv(PMON_ENV_COMM);

  comm.off = 0;
  if (v == NULL || *v == '\0' || strcmp(v, "1") == 0)
    return 0;
  if (strcmp(v, "0") == 0) {
    comm.off = 1;
    return 0;
  }
  return pmon__fail(PMON_ECONFIG, "%s: \"%.40s\": not 0 or 1", PMON_ENV_COMM,
                    v);
}

#define NROWS ((size_t)PMON_COMM_NCALLS * PMON_COMM_BINS)

size_t pmon__pub_comm_bytes(void)
{
  return (NROWS * sizeof(struct pmon__comm_row) + 63) & ~(size_t)63;
}

/* The communication rows after slot P (lib/node.c lays them out). */
static struct pmon__comm_row *pub_rows(struct pmon_pub *p)
{
  return (struct pmon__comm_row *)(void *)((char *)p + PMON_PUB_BYTES);
}

int pmon__comm_start(int multiple, int clock)
{
  struct pmon_pub *p = pmon__g.pub;

  if (atomic_load(&pmon__g.phase) != PMON_PHASE_RUNNING || comm.started ||
      comm.off)
    return PMON_IO_OFF;
  if (clock == PMON_IO_OFF)
    clock = PMON_IO_NS;
  /* While the spool or the metrics are on, the rows go after the rank's
   * slot, where the leader's writer reads them as they are counted. */
  comm.shared = p != NULL && (int)getpid() == pmon__g.pub_pid;
  if (comm.shared) {
    hot->row = pub_rows(p);
    memset(hot->row, 0, NROWS * sizeof *hot->row);
  } else {
    hot->row = calloc(NROWS, sizeof *hot->row);
  }
  hot->slot = calloc(PMON_COMM_SLOTS, sizeof *hot->slot);
  if (hot->row == NULL || hot->slot == NULL) {
    if (!comm.shared)
      free(hot->row);
    free(hot->slot);
    hot->row = NULL;
    hot->slot = NULL;
    return PMON_IO_OFF;
  }
  comm.clock = clock;
  comm.ns0 = pmon__now_ns();
  comm.t0 = pmon__io_stamp(clock);
  hot->base = comm.t0;
  /* About 1 ms: with the TSC, its rate is not known yet; 2^20 stamps are
   * 0.3 to 1 ms at today's rates, and the width grows as it must. */
  hot->shift = SLOT_SHIFT_NS;
  hot->multiple = multiple;
  comm.started = 1;
  __atomic_store_n(&hot->on, clock, __ATOMIC_RELEASE);
  if (comm.shared) /* the rows are zero: the leader may read them */
    atomic_store_explicit(&p->comm_on, 1, memory_order_release);
  return clock;
}

/*
 * The leader's writer: the node's calls and bytes so far, summed over
 * its ranks' rows in the node-shared segment, {"calls", "bytes",
 * "ranks"} (the ranks that count them); null when none does.  A row is
 * read as its rank last wrote it: the sums only grow.
 */
json_t *pmon__comm_so_far(void)
{
  const struct pmon_state *g = &pmon__g;
  uint64_t calls = 0, bytes = 0;
  int ranks = 0, n = g->pubs == NULL ? 0 : g->local_size > 1 ? g->local_size
                                                                : 1;

  for (int r = 0; r < n; r++) {
    struct pmon_pub *p = g->pubs[r];
    const struct pmon__comm_row *row;

    if (p == NULL ||
        !atomic_load_explicit(&p->comm_on, memory_order_acquire))
      continue;
    row = pub_rows(p);
    for (size_t i = 0; i < NROWS; i++) {
      uint64_t c = __atomic_load_n(&row[i].calls, __ATOMIC_RELAXED);
      uint64_t b = __atomic_load_n(&row[i].bytes, __ATOMIC_RELAXED);

      calls += c;
      bytes = bytes + b >= bytes ? bytes + b : UINT64_MAX;
    }
    ranks++;
  }
  if (ranks == 0)
    return json_null();
  return json_pack("{s:I, s:I, s:i}", "calls",
                   (json_int_t)(calls > INT64_MAX ? INT64_MAX : calls),
                   "bytes",
                   (json_int_t)(bytes > INT64_MAX ? INT64_MAX : bytes),
                   "ranks", ranks);
}

/* Merge the slots in pairs: each is twice as wide. */
static void widen(void)
{
  for (unsigned i = 0; i < PMON_COMM_SLOTS / 2; i++)
    hot->slot[i] = hot->slot[2 * i] + hot->slot[2 * i + 1];
  memset(hot->slot + PMON_COMM_SLOTS / 2, 0,
         PMON_COMM_SLOTS / 2 * sizeof *hot->slot);
  hot->shift++;
}

/* The stamps from T0 to T1 into each slot they span. */
static void into_slots(uint64_t t0, uint64_t t1)
{
  uint64_t a, b;

  if (t0 < hot->base) /* another CPU's stamp, a little behind */
    t0 = hot->base;
  if (t1 < t0)
    t1 = t0;
  while (((t1 - hot->base) >> hot->shift) >= PMON_COMM_SLOTS)
    widen();
  for (a = t0; a < t1; a = b) {
    uint64_t s = (a - hot->base) >> hot->shift;

    b = hot->base + ((s + 1) << hot->shift);
    if (b > t1)
      b = t1;
    hot->slot[s] += b - a;
  }
}

void pmon__comm_begin(uint64_t t0)
{
  if (!__atomic_load_n(&hot->on, __ATOMIC_ACQUIRE) || !hot->multiple)
    return;
  pthread_mutex_lock(&comm.lock);
  if (comm.inside++ == 0)
    comm.inside_t0 = t0;
  pthread_mutex_unlock(&comm.lock);
}

void pmon__comm_call(int call, uint64_t bytes, uint64_t t0, uint64_t t1)
{
  struct pmon__comm_row *r;

  if (!__atomic_load_n(&hot->on, __ATOMIC_ACQUIRE) || call < 0 ||
      call >= PMON_COMM_NCALLS)
    return;
  if (hot->multiple)
    pthread_mutex_lock(&comm.lock);
  if (__atomic_load_n(&hot->on, __ATOMIC_ACQUIRE)) {
    if (t0 < hot->base) /* another CPU's stamp, a little behind */
      t0 = hot->base;
    if (t1 < t0)
      t1 = t0;
    r = &hot->row[call * PMON_COMM_BINS + pmon__comm_bin(bytes)];
    pmon__comm_add(&r->calls, 1);
    pmon__comm_add(&r->bytes, r->bytes + bytes >= r->bytes
                                ? bytes
                                : UINT64_MAX - r->bytes);
    r->ticks += t1 - t0;
    r->ticks2 += (double)(t1 - t0) * (double)(t1 - t0);
    /* The slots hold the time the rank was inside calls: with several
     * threads, the union of their calls, from the first one's entry to
     * the last one's exit (pmon__comm_begin()), never more than the time
     * that passed.  A call that began before counting did is its own. */
    if (!hot->multiple)
      into_slots(t0, t1);
    else if (comm.inside == 0)
      into_slots(t0, t1);
    else if (--comm.inside == 0)
      into_slots(comm.inside_t0, t1);
  }
  if (hot->multiple)
    pthread_mutex_unlock(&comm.lock);
}

void pmon__comm_stop(void)
{
  __atomic_store_n(&hot->on, PMON_IO_OFF, __ATOMIC_RELEASE);
}

/*
 * This rank's calls for its node leader, and the end of counting: null
 * when counting never started, else {"rows": [[call, bin, calls, bytes,
 * ns]...], "slot0_ns": the first slot's start after init, "slot_ns": the
 * width, "slots": [[index, ns inside calls]...]}, the empty ones left out.
 */
json_t *pmon__comm_json(void)
{
  json_t *o, *rows, *slots;
  double scale = 1, base;
  uint64_t ns1, t1;

  if (!comm.started)
    return json_null();
  pmon__comm_stop();
  if (hot->multiple) { /* a call in flight finishes its count */
    pthread_mutex_lock(&comm.lock);
    pthread_mutex_unlock(&comm.lock);
  }
  ns1 = pmon__now_ns();
  t1 = pmon__io_stamp(comm.clock);
  if (comm.clock == PMON_IO_TSC && t1 > comm.t0 && ns1 > comm.ns0)
    scale = (double)(ns1 - comm.ns0) / (double)(t1 - comm.t0);
  rows = json_array();
  slots = json_array();
  for (int c = 0; c < PMON_COMM_NCALLS; c++)
    for (int k = 0; k < PMON_COMM_BINS; k++) {
      const struct pmon__comm_row *r = &hot->row[c * PMON_COMM_BINS + k];

      if (r->calls > 0)
        json_array_append_new(
          rows, json_pack("[i, i, I, I, I, f]", c, k, (json_int_t)r->calls,
                          (json_int_t)(r->bytes > INT64_MAX ? INT64_MAX
                                                            : r->bytes),
                          (json_int_t)((double)r->ticks * scale),
                          r->ticks2 * scale * scale));
    }
  for (unsigned i = 0; i < PMON_COMM_SLOTS; i++)
    if (hot->slot[i] > 0)
      json_array_append_new(slots,
                            json_pack("[i, I]", (int)i,
                                      (json_int_t)((double)hot->slot[i] *
                                                   scale)));
  base = (double)comm.ns0 - (double)pmon__g.t_init_ns;
  o = json_pack("{s:o, s:f, s:f, s:o}", "rows", rows, "slot0_ns",
                base > 0 ? base : 0, "slot_ns",
                ldexp(1, (int)hot->shift) * scale, "slots", slots);
  return o != NULL ? o : json_null();
}

/* --- the leader and rank 0 --- */

/* A table of the job's or a node's rows. */
struct table {
  struct acc {
    double calls, bytes, time, energy, err; /* ERR: energy's error bar */
    double emax;                            /* its bound */
    double time2; /* the calls' squared times; NAN: a record lacks them */
  } a[PMON_COMM_NCALLS][PMON_COMM_BINS];
  double calls, bytes, time, energy, err;
  double emax; /* the energy's bound (pmon__err_max()), the ranks' added */
  int any;
};

static json_t *num_or_null(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

static double ratio(double a, double b)
{
  return b > 0 && isfinite(a) ? a / b : NAN;
}

/* The call named NAME, -1 for none. */
static int call_index(const char *name)
{
  for (int c = 0; name != NULL && c < PMON_COMM_NCALLS; c++)
    if (strcmp(call_names[c], name) == 0)
      return c;
  return -1;
}

/* T as the report's comm object: totals, then "calls_by" in call order,
 * each call's bins in size order.  ENERGY false: every energy null. */
static json_t *table_json(const struct table *t, int energy)
{
  json_t *by = json_array(), *o;

  for (int c = 0; c < PMON_COMM_NCALLS; c++)
    for (int k = 0; k < PMON_COMM_BINS; k++) {
      const struct acc *a = &t->a[c][k];
      double e = energy ? a->energy : NAN;

      if (a->calls <= 0)
        continue;
      json_array_append_new(
        by, json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:o, s:o, s:o, s:o, "
                      "s:o}",
                      "call", call_names[c], "size_min",
                      (json_int_t)pmon__comm_bin_min(k), "size_max",
                      (json_int_t)pmon__comm_bin_max(k),
                      "calls", (json_int_t)a->calls, "bytes",
                      (json_int_t)a->bytes, "time_s", a->time, "call_sd_s",
                      num_or_null(pmon__call_sd(a->calls, a->time, a->time2)),
                      "energy_j",
                      num_or_null(e), "energy_err_j",
                      num_or_null(energy ? a->err : NAN), "energy_err_max_j",
                      num_or_null(energy ? a->emax : NAN), "s_per_byte",
                      num_or_null(ratio(a->time, a->bytes)), "j_per_byte",
                      num_or_null(ratio(e, a->bytes))));
    }
  o = json_pack("{s:I, s:I, s:f, s:o, s:o, s:o, s:o}", "calls",
                (json_int_t)t->calls, "bytes", (json_int_t)t->bytes, "time_s",
                t->time, "energy_j", num_or_null(energy ? t->energy : NAN),
                "energy_err_j", num_or_null(energy ? t->err : NAN),
                "s_per_byte", num_or_null(ratio(t->time, t->bytes)),
                "j_per_byte",
                num_or_null(ratio(energy ? t->energy : NAN, t->bytes)));
  if (o != NULL) {
    json_object_set_new(o, "energy_err_max_j",
                        num_or_null(energy ? t->emax : NAN));
    json_object_set_new(o, "calls_by", by);
  } else {
    json_decref(by);
  }
  return o;
}

/* The mean power of the node total over [A, B] (ns), clipped to its
 * history, over the time its meter measured there; 0 when it measured
 * none of it (that time adds no energy, as for regions); NAN when the
 * history does not reach it. */
static double slot_power(uint64_t a, uint64_t b)
{
  const struct pmon_state *g = &pmon__g;
  uint64_t h0, h1;
  double c;

  if (g->total_meter < 0 || g->hist.n < 2)
    return NAN;
  h0 = g->hist.p[0].t_ns;
  h1 = g->hist.p[g->hist.n - 1].t_ns;
  a = a < h0 ? h0 : a;
  b = b > h1 ? h1 : b;
  if (b <= a)
    return NAN;
  c = pmon__hist_covered(a, b);
  return c > 0 ? pmon__hist_energy(a, b) / c : 0;
}

/* The parts of the error bar (pmon__hist_energy_err()) of F times the
 * node total's energy over [A, B] clipped to its history, into ERR. */
static void slot_err(uint64_t a, uint64_t b, double f, double err[3])
{
  const struct pmon_state *g = &pmon__g;
  double part[3] = {0, 0, 0};

  if (g->total_meter < 0 || g->hist.n < 2)
    return;
  a = a < g->hist.p[0].t_ns ? g->hist.p[0].t_ns : a;
  b = b > g->hist.p[g->hist.n - 1].t_ns ? g->hist.p[g->hist.n - 1].t_ns : b;
  if (b <= a)
    return;
  pmon__hist_energy_err(a, b, part);
  err[0] += part[0] * f;
  err[1] += part[1] * f;
  err[2] += part[2] * f * f;
}

/*
 * The parts of the error bar of rank record R's energy into ERR.  A slot
 * adds its energy times its time inside calls over its measured time, so
 * its bar scales the same way; but a run of slots wholly inside calls
 * is one span of the node's energy, whose inner ends cancel: such a run
 * counts as one span, with two ends, however many slots it holds.
 */
static void slots_err(json_t *r, int nranks, double err[3])
{
  double w = json_number_value(json_object_get(r, "slot_ns"));
  double base = (double)pmon__g.t_init_ns +
                json_number_value(json_object_get(r, "slot0_ns"));
  double a0 = 0, b0 = 0, c; /* the run so far, [a0, b0); none when equal */
  json_t *s;
  size_t i;

  if (!(w > 0))
    return;
  json_array_foreach(json_object_get(r, "slots"), i, s) {
    double k = (double)json_integer_value(json_array_get(s, 0));
    double ns = (double)json_integer_value(json_array_get(s, 1));
    double a = base + k * w;

    if (ns >= w && b0 > a0 && a == b0) { /* the run goes on */
      b0 = a + w;
      continue;
    }
    if (b0 > a0 && (c = pmon__hist_covered((uint64_t)a0, (uint64_t)b0)) > 0)
      slot_err((uint64_t)a0, (uint64_t)b0, (b0 - a0) * 1e-9 / (c * nranks),
               err);
    a0 = b0 = 0;
    if (ns >= w) { /* a run starts */
      a0 = a;
      b0 = a + w;
    } else if ((c = pmon__hist_covered((uint64_t)a, (uint64_t)(a + w))) > 0) {
      slot_err((uint64_t)a, (uint64_t)(a + w), ns * 1e-9 / (c * nranks), err);
    }
  }
  if (b0 > a0 && (c = pmon__hist_covered((uint64_t)a0, (uint64_t)b0)) > 0)
    slot_err((uint64_t)a0, (uint64_t)b0, (b0 - a0) * 1e-9 / (c * nranks),
             err);
}

/* Rank record R (pmon__comm_json()) into T, with its share of the node's
 * energy, 1/NRANKS of the node's power while inside calls.  Returns 0, or
 * -1 when its energy cannot be given. */
static int add_rank(struct table *t, json_t *r, int nranks)
{
  json_t *row, *s;
  double w = json_number_value(json_object_get(r, "slot_ns"));
  double base = json_number_value(json_object_get(r, "slot0_ns"));
  double e = 0, ticks = 0, err[3] = {0, 0, 0}, bar, max;
  int ok = w > 0;
  size_t i;

  /* The rows share the rank's energy in proportion to their time: under
   * MPI_THREAD_MULTIPLE their times add up to more than the slots' (the
   * union), and each row gets its part of the union's energy. */
  json_array_foreach(json_object_get(r, "rows"), i, row)
    ticks += (double)json_integer_value(json_array_get(row, 4));

  json_array_foreach(json_object_get(r, "slots"), i, s) {
    double k = (double)json_integer_value(json_array_get(s, 0));
    double ns = (double)json_integer_value(json_array_get(s, 1));
    double a = (double)pmon__g.t_init_ns + base + k * w, p;

    p = slot_power((uint64_t)a, (uint64_t)(a + w));
    if (!isfinite(p))
      ok = 0;
    e += p * ns * 1e-9 / nranks;
  }
  slots_err(r, nranks, err);
  bar = pmon__err_combine(err[0], err[1], err[2]);
  max = pmon__err_max(err[0], err[1]);
  json_array_foreach(json_object_get(r, "rows"), i, row) {
    json_int_t c = json_integer_value(json_array_get(row, 0));
    json_int_t k = json_integer_value(json_array_get(row, 1));
    double ns = (double)json_integer_value(json_array_get(row, 4));
    struct acc *a;

    if (c < 0 || c >= PMON_COMM_NCALLS || k < 0 || k >= PMON_COMM_BINS)
      continue;
    a = &t->a[c][k];
    a->calls += (double)json_integer_value(json_array_get(row, 2));
    a->bytes += (double)json_integer_value(json_array_get(row, 3));
    a->time += ns * 1e-9;
    a->time2 += json_is_number(json_array_get(row, 5))
                  ? json_number_value(json_array_get(row, 5)) * 1e-18
                  : NAN;
    a->energy += ticks > 0 && ok ? e * ns / ticks : 0;
    a->err += ticks > 0 && ok ? bar * ns / ticks : 0;
    a->emax += ticks > 0 && ok ? max * ns / ticks : 0;
    t->calls += (double)json_integer_value(json_array_get(row, 2));
    t->bytes += (double)json_integer_value(json_array_get(row, 3));
    t->time += ns * 1e-9;
  }
  t->energy += ok ? e : 0;
  t->err += ok ? bar : 0;
  t->emax += ok ? max : 0;
  t->any = 1;
  return ok ? 0 : -1;
}

/*
 * The node's calls from its ranks' records (RANKS: [{rank, local, io,
 * comm}]): null when no rank counted them.  The leader, at finalize.
 */
json_t *pmon__comm_node(json_t *ranks)
{
  struct table *t = calloc(1, sizeof *t);
  int nranks = pmon__g.local_size > 0 ? pmon__g.local_size : 1, ok = 1;
  json_t *rk, *o;
  size_t i;

  if (t == NULL)
    return json_null();
  json_array_foreach(ranks, i, rk) {
    json_t *r = json_object_get(rk, "comm");

    if (json_is_object(r) && add_rank(t, r, nranks) != 0)
      ok = 0;
  }
  o = t->any ? table_json(t, ok) : json_null();
  free(t);
  return o != NULL ? o : json_null();
}

/* Row ROW of a node's calls_by (a report object) into T. */
static void add_row(struct table *t, json_t *row)
{
  int c = call_index(json_string_value(json_object_get(row, "call")));
  json_int_t min = json_integer_value(json_object_get(row, "size_min"));
  int k = pmon__comm_bin(min > 0 ? (uint64_t)min : 0);
  struct acc *a;

  if (c < 0 || k >= PMON_COMM_BINS)
    return;
  a = &t->a[c][k];
  a->calls += (double)json_integer_value(json_object_get(row, "calls"));
  a->bytes += (double)json_integer_value(json_object_get(row, "bytes"));
  a->time2 += pmon__call_t2(
    (double)json_integer_value(json_object_get(row, "calls")),
    json_number_value(json_object_get(row, "time_s")),
    json_is_number(json_object_get(row, "call_sd_s"))
      ? json_number_value(json_object_get(row, "call_sd_s"))
      : NAN);
  a->time += json_number_value(json_object_get(row, "time_s"));
  a->energy += json_number_value(json_object_get(row, "energy_j"));
  a->err += json_is_number(json_object_get(row, "energy_err_j"))
              ? json_number_value(json_object_get(row, "energy_err_j"))
              : NAN;
  a->emax += json_is_number(json_object_get(row, "energy_err_max_j"))
               ? json_number_value(json_object_get(row, "energy_err_max_j"))
               : NAN;
}

/* The job's calls from the nodes' records: null when no node has any.
 * Energies are sums over the nodes, null when a node has none. */
json_t *pmon__comm_job(json_t *nodes)
{
  struct table *t = calloc(1, sizeof *t);
  json_int_t without = 0;
  json_t *node, *o;
  int est = 0;
  size_t i;

  if (t == NULL)
    return json_null();
  json_array_foreach(nodes, i, node) {
    json_t *r = json_object_get(node, "comm"), *row;
    size_t k;

    if (!json_is_object(r))
      continue;
    t->any = 1;
    t->calls += (double)json_integer_value(json_object_get(r, "calls"));
    t->bytes += (double)json_integer_value(json_object_get(r, "bytes"));
    t->time += json_number_value(json_object_get(r, "time_s"));
    if (json_is_number(json_object_get(r, "energy_j"))) {
      t->energy += json_number_value(json_object_get(r, "energy_j"));
      /* A node's bar unknown (an older node record): NAN makes it so. */
      t->err += json_is_number(json_object_get(r, "energy_err_j"))
                  ? json_number_value(json_object_get(r, "energy_err_j"))
                  : NAN;
      t->emax += json_is_number(json_object_get(r, "energy_err_max_j"))
                   ? json_number_value(json_object_get(r, "energy_err_max_j"))
                   : NAN;
      est |= json_is_true(json_object_get(node, "estimated"));
    } else {
      without++;
    }
    json_array_foreach(json_object_get(r, "calls_by"), k, row)
      add_row(t, row);
  }
  o = t->any ? table_json(t, without == 0) : json_null();
  if (json_is_object(o)) {
    json_object_set_new(o, "estimated", json_boolean(est));
    json_object_set_new(o, "nodes_without_energy", json_integer(without));
  }
  free(t);
  return o != NULL ? o : json_null();
}

void pmon__comm_free(void)
{
  pmon__comm_stop();
  if (hot->multiple) {
    pthread_mutex_lock(&comm.lock);
    pthread_mutex_unlock(&comm.lock);
  }
  if (!comm.shared)
    free(hot->row);
  free(hot->slot);
  hot->row = NULL;
  hot->slot = NULL;
  comm.started = 0;
  comm.shared = 0;
}

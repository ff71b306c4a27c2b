/*
 * meter.c - the node's meters: choosing them, reading them on the sampler
 * thread, and handing each reading to the fold (calc/fold.c), which turns
 * it into cumulative joules; this file publishes what the fold gives on
 * the meter's timeline and adds its events to the node's.
 *
 * Only the node leader opens meters, and reads each on a thread of its
 * own (a poller), so that a slow or dead device delays nothing else.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "trace.h"

int pmon__meters_parse(const char *list)
{
  struct pmon_state *g = &pmon__g;
  const char *p = list != NULL ? list : "";
  int rc;

  g->nspecs = 0;
  g->automatic = 0;
  p += strspn(p, " \t,");
  if (*p == '\0') {
    g->automatic = 1;
    return 0;
  }
  while (*p != '\0') {
    size_t len = strcspn(p, ",");
    char item[PMON_SPEC_MAX];

    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
      len--;
    if (len >= sizeof item)
      return pmon__fail(PMON_ECONFIG, "%s: meter \"%.40s...\": too long",
                        PMON_ENV_METERS, p);
    memcpy(item, p, len);
    item[len] = '\0';
    if (strcmp(item, "auto") == 0) {
      g->automatic = 1;
    } else {
      struct pmon_spec *spec = &g->specs[g->nspecs];

      if (g->nspecs == PMON_METER_MAX)
        return pmon__fail(PMON_ECONFIG, "%s: more than %d meters",
                          PMON_ENV_METERS, PMON_METER_MAX);
      if ((rc = pmon__spec_parse(item, spec)) != 0)
        return rc;
      if (pmon__driver_find(spec->driver) == NULL) {
        char known[256] = "";

        for (int i = 0; pmon__drivers[i] != NULL; i++)
          snprintf(known + strlen(known), sizeof known - strlen(known),
                   "%s%s", i > 0 ? ", " : "", pmon__drivers[i]->name);
        return pmon__fail(PMON_ECONFIG,
                          "%s: meter \"%s\": unknown driver \"%s\" "
                          "(this build knows: %s)",
                          PMON_ENV_METERS, spec->text, spec->driver, known);
      }
      { /* every rank refuses a malformed accuracy= alike */
        double r, w;

        if ((rc = pmon__spec_accuracy(spec, &r, &w)) < 0)
          return rc;
      }
      g->nspecs++;
    }
    p += strcspn(p, ",");
    p += strspn(p, " \t,");
  }
  if (g->automatic && g->nspecs > 0)
    return pmon__fail(PMON_ECONFIG,
                      "%s: \"auto\" cannot be combined with other meters",
                      PMON_ENV_METERS);
  return 0;
}

/*
 * PMON_TIMELINE: slices of each node's timeline, 0 to turn it off; unset,
 * PMON_TRACE, its name before version 3 of the report, where 1 meant "the
 * default"; neither: PMON_TIMELINE_DEFAULT.
 */
int pmon__timeline_config(void)
{
  const char *name = PMON_ENV_TIMELINE, *v = getenv(name);
  char *end;
  long n;
  int old = 0;

  pmon__g.timeline = PMON_TIMELINE_DEFAULT;
  if (v == NULL || *v == '\0') {
    name = PMON_ENV_TRACE;
    old = 1;
    if ((v = getenv(name)) == NULL || *v == '\0')
      return 0;
  }
  errno = 0;
  n = strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || n < 0 || n > PMON_TIMELINE_MAX)
    return pmon__fail(PMON_ECONFIG,
                      "%s: \"%.40s\": not a number of slices from 0 (no "
                      "timeline) to %d",
                      name, v, PMON_TIMELINE_MAX);
  pmon__g.timeline =
    n == 1 && old ? PMON_TIMELINE_DEFAULT : (int)n;
  return 0;
}

/*
 * The wrap guard: a counter that wraps must be read at least twice in the
 * shortest time it can take to wrap (its range at the channel's highest
 * power), whatever the read period asked, so that every wrap is seen
 * however long a region is.  MS is meter number g->nmeters, just opened.
 */
static void wrap_guard(struct pmon_mstate *ms)
{
  struct pmon_meter *m = &ms->m;
  double wrap_s = 0;
  int which = -1;

  if (!(m->flags & PMON_DRV_COUNTER))
    return;
  for (int c = 0; c < m->nch; c++) {
    const struct pmon_channel *ch = &m->ch[c];
    double w = ch->max_watts > 0 ? ch->max_watts : PMON_WRAP_WATTS;
    double s = (double)ch->range * ch->scale / w;

    if (ch->range != 0 && s > 0 && (which < 0 || s < wrap_s))
      wrap_s = s, which = c;
  }
  if (which < 0)
    return;
  ms->wrap_ns = (uint64_t)(wrap_s * 1e9);
  if (m->interval_s > wrap_s / 2) {
    pmon__event(pmon__now_ns(), pmon__g.nmeters, "wrap_guard",
                "read every %.3g s, not %.3g s: channel %s can wrap in "
                "%.3g s (%.6g J at %.6g W)",
                wrap_s / 2, m->interval_s, m->ch[which].name, wrap_s,
                (double)m->ch[which].range * m->ch[which].scale,
                m->ch[which].max_watts > 0 ? m->ch[which].max_watts
                                           : PMON_WRAP_WATTS);
    m->interval_s = wrap_s / 2;
  }
}

int pmon__meter_prepare(struct pmon_meter *m, const struct pmon_spec *spec)
{
  const struct pmon_driver *drv = pmon__driver_find(spec->driver);
  int rc;

  memset(m, 0, sizeof *m);
  if (drv == NULL)
    return pmon__fail(PMON_ECONFIG, "%s: meter \"%s\": unknown driver",
                      PMON_ENV_METERS, spec->text);
  m->drv = drv;
  m->spec = *spec;
  m->interval_s = drv->interval_s;
  m->flags = drv->flags;
  m->accuracy_rel = drv->accuracy_rel;
  m->accuracy_w = drv->accuracy_w;
  if (m->accuracy_rel > 0 || m->accuracy_w > 0)
    m->accuracy_from = "driver";
  if ((rc = pmon__site_secrets(&m->spec)) != 0)
    return rc;
  rc = pmon__spec_accuracy(&m->spec, &m->accuracy_rel, &m->accuracy_w);
  if (rc == 0)
    m->accuracy_from = "specification";
  return rc > 0 ? 0 : rc;
}

/* Open SPEC as meter number g->nmeters.  0, or the driver's error. */
static int open_one(const struct pmon_spec *spec)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[g->nmeters];
  const struct pmon_driver *drv;
  int rc;

  memset(ms, 0, sizeof *ms);
  if ((rc = pmon__meter_prepare(&ms->m, spec)) != 0)
    return rc;
  drv = ms->m.drv;
  if (drv->priv_size > 0 && (ms->m.priv = calloc(1, drv->priv_size)) == NULL)
    return pmon__fail(PMON_ENOMEM, "%s: out of memory", spec->text);
  if ((rc = drv->open(&ms->m)) != 0) {
    free(ms->m.priv);
    ms->m.priv = NULL;
    return rc;
  }
  pmon__meter_adopt();
  return 0;
}

void pmon__meter_adopt(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[g->nmeters];

  ms->estimated = (ms->m.flags & PMON_DRV_ESTIMATED) != 0;
  wrap_guard(ms);
  ms->ttl_ns = (uint64_t)(PMON_TTL_READINGS * ms->m.interval_s * 1e9);
  g->nmeters++;
}

/* Close the meter open_one() opened last and forget it. */
static void close_last(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[--g->nmeters];

  if (ms->m.drv->close != NULL)
    ms->m.drv->close(&ms->m);
  free(ms->m.priv);
  memset(ms, 0, sizeof *ms);
}

int pmon__meter_vet(struct pmon_meter *m, char *why, size_t size)
{
  struct pmon_reading r0, r;
  char names[160] = "";
  uint32_t chans = 0;
  double window = PMON_VET_S;
  uint64_t t0, end;
  size_t len = 0;

  for (int c = 0; c < m->nch; c++)
    if (m->ch[c].flags & PMON_CH_TOTAL)
      chans |= 1u << c;
  /* The total's channels, or all of them when there is none. */
  for (int c = 0; c < m->nch; c++)
    if (chans == 0 || (chans & 1u << c)) {
      snprintf(names + len, sizeof names - len, "%s%s", len > 0 ? ", " : "",
               m->ch[c].name);
      len += strlen(names + len);
    }
  if (chans == 0) {
    snprintf(why, size, "%s: only %s, which the node's total never takes: "
             "not used", m->drv->name, names);
    return -1;
  }
  if (!(m->flags & PMON_DRV_COUNTER))
    return 0; /* a constant power cannot be told from a frozen one */
  if (m->stale_s > PMON_VET_S)
    return 0; /* a slow device: its stale limit judges it while it runs */
  if (m->stale_s > 0)
    window = m->stale_s;
  memset(&r0, 0, sizeof r0);
  if (m->drv->read(m, &r0) != 0) {
    snprintf(why, size, "%s: %s: not used", m->drv->name,
             pmon_errmsg() + strlen("pmon: "));
    return -1;
  }
  t0 = pmon__now_ns();
  end = t0 + (uint64_t)(window * 1e9);
  while (pmon__now_ns() < end) {
    struct timespec nap = {0, 20 * 1000 * 1000};

    nanosleep(&nap, NULL);
    memset(&r, 0, sizeof r);
    if (m->drv->read(m, &r) != 0)
      continue;
    for (int c = 0; c < m->nch; c++)
      if ((chans & 1u << c) && r.raw[c] != r0.raw[c])
        return 0;
  }
  snprintf(why, size, "%s: %s did not move in %.1f s: not used",
           m->drv->name, names, window);
  return -1;
}

/* "auto": the site file's meters for this node; then the first driver
 * that measures the whole node and works, in the order of the table
 * (pm_counters, hwmon); else every driver of parts of the node that works
 * (rapl, nvml), side by side; else, with no meter at all, the estimate.
 * "Works": opens, and passes pmon__meter_vet() (a "not_used" event says
 * why one did not). */
static int open_auto(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_spec spec, site[PMON_METER_MAX - 1];
  char why[320];
  int n = 0, rc, whole = 0;

  if ((rc = pmon__site_meters(g->node_name, site, PMON_METER_MAX - 1, &n)) !=
      0)
    return rc;
  for (int i = 0; i < n; i++) {
    if ((rc = open_one(&site[i])) == PMON_ECONFIG)
      return rc;
    if (rc != 0)
      pmon__event(pmon__now_ns(), -1, "open_error", "%s",
                  pmon_errmsg() + strlen("pmon: "));
  }
  for (int part = 0; part < 2 && !whole; part++)
    for (int i = 0; pmon__drivers[i] != NULL && !whole; i++) {
      const struct pmon_driver *drv = pmon__drivers[i];

      if ((drv->flags & (PMON_DRV_ESTIMATED | PMON_DRV_EXTERNAL)) ||
          ((drv->flags & PMON_DRV_PART) != 0) != part ||
          g->nmeters == PMON_METER_MAX - 1)
        continue;
      pmon__spec_parse(drv->name, &spec);
      /* A device that is there but cannot be used (a file only root may
       * read) is said, with the driver's fix; an absent one is not. */
      if (drv->probe != NULL && (rc = drv->probe(&spec)) != 0) {
        if (rc != PMON_ENOMETER)
          pmon__event(pmon__now_ns(), -1, "open_error", "%s",
                      pmon_errmsg() + strlen("pmon: "));
        continue;
      }
      if (open_one(&spec) != 0) {
        pmon__event(pmon__now_ns(), -1, "open_error", "%s",
                    pmon_errmsg() + strlen("pmon: "));
        continue;
      }
      if (pmon__meter_vet(&g->ms[g->nmeters - 1].m, why, sizeof why) != 0) {
        /* Passed over: said in the report, not at the end of the job (it
         * is what this node is, not a fault). */
        pmon__event(pmon__now_ns(), -1, "not_used", "%s", why);
        close_last();
        continue;
      }
      whole = !part;
    }
  if (g->nmeters > 0) /* measured */
    return 0;
  pmon__spec_parse("estimate", &spec);
  return open_one(&spec);
}

/* The domains that a channel of domain D measures, wholly or in part:
 * two channels overlap when these share a bit. */
static unsigned overlap_bits(enum pmon_domain d)
{
  const unsigned all = (1u << (PMON_DOM_MODULE + 1)) - 1;

  switch (d) {
  case PMON_DOM_NODE:
    return all;
  case PMON_DOM_MODULE:
    return 1u << PMON_DOM_MODULE | 1u << PMON_DOM_CPU |
           1u << PMON_DOM_MEMORY | 1u << PMON_DOM_ACCEL;
  default:
    return 1u << d;
  }
}

unsigned pmon__total_plan(const struct pmon_meter *const *m, int n,
                          uint32_t *mask)
{
  unsigned taken = 0, covers = 0;

  for (int i = 0; i < n; i++)
    mask[i] = 0;
  /* Pass 0: a measured whole-node meter; 1: measured parts side by side;
   * 2: the estimate. */
  for (int pass = 0; pass < 3 && covers == 0; pass++)
    for (int i = 0; i < n; i++) {
      unsigned doms = 0, over = 0;
      uint32_t chans = 0;
      int est = (m[i]->flags & PMON_DRV_ESTIMATED) != 0;

      for (int c = 0; c < m[i]->nch; c++)
        if (m[i]->ch[c].flags & PMON_CH_TOTAL) {
          doms |= 1u << m[i]->ch[c].domain;
          over |= overlap_bits(m[i]->ch[c].domain);
          chans |= 1u << c;
        }
      if (chans == 0 || est != (pass == 2) || (over & taken) != 0 ||
          (pass < 2 && (pass == 0) != ((doms & 1u << PMON_DOM_NODE) != 0)))
        continue;
      mask[i] = chans;
      taken |= over;
      covers |= doms;
      if (pass != 1)
        break;
    }
  return covers;
}

const char *pmon__covers_text(unsigned covers, char *buf, size_t size)
{
  static const char *const names[] = {"node", "cpu",   "memory",
                                      "accel", "other", "module"};
  size_t len = 0;

  buf[0] = '\0';
  if (covers & 1u << PMON_DOM_NODE)
    covers = 1u << PMON_DOM_NODE;
  for (unsigned d = 0; d < sizeof names / sizeof names[0]; d++)
    if (covers & 1u << d) {
      snprintf(buf + len, size - len, "%s%s", len > 0 ? "+" : "", names[d]);
      len += strlen(buf + len);
    }
  return buf;
}

int pmon__meters_open(void)
{
  struct pmon_state *g = &pmon__g;
  int rc = 0;

  g->nmeters = 0;
  g->total_meter = -1;
  if ((g->ms = calloc(PMON_METER_MAX, sizeof *g->ms)) == NULL)
    return pmon__fail(PMON_ENOMEM, "meters: out of memory");
  if (g->automatic) {
    if ((rc = open_auto()) == PMON_ECONFIG)
      return rc;
    if (rc != 0)
      pmon__event(pmon__now_ns(), -1, "open_error", "%s",
                  pmon_errmsg() + strlen("pmon: "));
  } else {
    for (int i = 0; i < g->nspecs; i++) {
      if ((rc = open_one(&g->specs[i])) == PMON_ECONFIG)
        return rc;
      if (rc != 0)
        pmon__event(pmon__now_ns(), -1, "open_error", "%s",
                    pmon_errmsg() + strlen("pmon: "));
    }
  }
  pmon__meters_plan();
  return 0;
}

void pmon__meters_plan(void)
{
  struct pmon_state *g = &pmon__g;
  const struct pmon_meter *m[PMON_METER_MAX];

  for (int i = 0; i < g->nmeters; i++)
    m[i] = &g->ms[i].m;
  g->covers = pmon__total_plan(m, g->nmeters, g->total_mask);
  g->total_meter = -1;
  for (int i = g->nmeters - 1; i >= 0; i--)
    if (g->total_mask[i] != 0)
      g->total_meter = i;
  /* The history's memory, now rather than as it fills (PMON_HIST); a
   * failure is said by PMON_DEBUG and tried again at the first point. */
  if (g->total_meter >= 0)
    pmon__hist_open();
}

/* The node total's energy and least measured time over the latest
 * samples of its meters: 0, or -1 when one has none yet. */
static int hist_total(double *total, uint64_t *covered, double *err)
{
  struct pmon_state *g = &pmon__g;

  *total = 0;
  *covered = UINT64_MAX;
  err[0] = err[1] = err[2] = 0;
  for (int j = 0; j < g->nmeters; j++) {
    struct pmon_tl_sample s;
    uint64_t seq = pmon__tl_seq(&g->sh->tl[j]);

    if (g->sh->total_mask[j] == 0)
      continue;
    if (seq == 0 || pmon__tl_get(&g->sh->tl[j], seq - 1, &s) != 0)
      return -1; /* not every part has a sample yet */
    for (int c = 0; c < g->ms[j].m.nch; c++)
      if (g->sh->total_mask[j] & (1u << c))
        *total += s.e[c];
    *covered = s.covered_ns < *covered ? s.covered_ns : *covered;
    err[0] += s.err[0];
    err[1] += s.err[1];
    err[2] = s.err[2] > err[2] ? s.err[2] : err[2];
  }
  return 0;
}

/*
 * A point of the node total's history at T, on the poller of the first
 * meter in the total, which has just published a sample at T.  The other
 * meters in it count with their latest samples (at most one of their
 * intervals older), and the measured time is the least of theirs.
 */
static void hist_add(uint64_t t)
{
  double total, err[3];
  uint64_t covered;

  /* Under the lock: the spool thread reads the history (lib/spool.c). */
  if (hist_total(&total, &covered, err) == 0) {
    pthread_mutex_lock(&pmon__g.lock);
    pmon__hist_add(t, total, covered, err);
    pthread_mutex_unlock(&pmon__g.lock);
  }
}

/* Publish meter I's energy and measured time as its next sample, at T. */
static void publish(int i, uint64_t t)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = &g->ms[i];

  /* The first published sample is the origin of the node's energy; its
   * stamp's error stays (the run's start is as sure as that stamp). */
  if (pmon__tl_seq(&g->sh->tl[i]) == 0) {
    memset(ms->e, 0, sizeof ms->e);
    ms->err[0] = ms->err[1] = 0;
    ms->covered_ns = 0;
    ms->origin_ns = t;
  }
  pmon__tl_publish(&g->sh->tl[i], t, ms->covered_ns, ms->e, ms->m.nch,
                   ms->err);
  pmon__trace_sample(i, pmon__tl_seq(&g->sh->tl[i]) - 1, t, ms->err[2]);
  if (i == g->total_meter)
    hist_add(t);
}

/* The fold's operations on meter I (CTX): its publication, its events,
 * the debug log. */
static void fold_publish(void *ctx, uint64_t t)
{
  publish((int)(intptr_t)ctx, t);
}

PMON_PRINTF(4, 5)
static void fold_event(void *ctx, uint64_t t, const char *type,
                       const char *fmt, ...)
{
  char detail[sizeof ((struct pmon_event *)0)->detail];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  pmon__event(t, (int)(intptr_t)ctx, type, "%s", detail);
}

PMON_PRINTF(2, 3)
static void fold_debug(void *ctx, const char *fmt, ...)
{
  char line[256];
  va_list ap;

  (void)ctx;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  pmon__debug("%s", line);
}

static void fold_ops(int i, struct pmon_fold_ops *o)
{
  o->ctx = (void *)(intptr_t)i;
  o->publish = fold_publish;
  o->event = fold_event;
  o->debug = fold_debug;
  o->total_mask = pmon__g.total_mask[i];
  /* The node's, set before the pollers start: g->t_init_ns is written
   * again by every rank after init's barrier, while they run. */
  o->t_init_ns = pmon__g.sh->t_init_ns != 0 ? pmon__g.sh->t_init_ns
                                            : pmon__g.t_init_ns;
}

/* Fold the value finalize holds for meter I (calc/fold.h). */
static void release_held(int i)
{
  struct pmon_fold_ops o;

  fold_ops(i, &o);
  pmon__fold_release(&pmon__g.ms[i], &o);
}

int pmon__meter_fold(int i, int rc, struct pmon_reading *r, uint64_t t,
                     int force)
{
  struct pmon_fold_ops o;

  fold_ops(i, &o);
  return pmon__fold(&pmon__g.ms[i], &o, rc,
                    rc != 0 ? pmon_errmsg() + strlen("pmon: ") : NULL, r, t,
                    force);
}

/* What sample_one() learned from the tries of one reading so far. */
struct choice {
  struct pmon_reading best;
  uint64_t best_t, best_d;
  uint64_t seen[PMON_TRIES_MAX]; /* when each good try ended */
  uint64_t raw[PMON_TRIES_MAX][PMON_CH_MAX];
  unsigned events;
  char detail[sizeof ((struct pmon_reading *)0)->detail];
  int good;    /* good tries noted */
  int rc;      /* the last try's: a failed try ends the tries */
  int known;   /* a quick time was known after the last try */
  int slow;    /* the quickest try so far was slow */
  int last;    /* the last try was the quickest */
  int unstale;
};

static void choice_start(const struct pmon_mstate *ms, struct choice *c)
{
  memset(c, 0, sizeof *c);
  c->best_d = UINT64_MAX;
  c->unstale = ms->unstale;
}

/* Note try K of a reading of meter MS, T, in C: the quick time it
 * teaches, and whether it is the quickest.  Whether no try should follow
 * it for what it showed (it failed, or it was quick). */
static int choice_note(struct pmon_mstate *ms, struct choice *c,
                       const struct pmon_try *t, int k)
{
  uint64_t d = t->t1 - t->t0;

  if (k > 0 && c->known)
    ms->retried++;
  c->rc = t->rc;
  if (t->rc != 0)
    return 1;
  memcpy(c->raw[c->good], t->r.raw, sizeof c->raw[0]);
  c->seen[c->good++] = t->t1;
  c->known = ms->quick_ns != 0 || k > 0;
  if (ms->primed && (ms->quick_ns == 0 || d < ms->quick_ns))
    ms->quick_ns = d;
  if (t->r.events != 0) {
    c->events |= t->r.events;
    memcpy(c->detail, t->r.detail, sizeof c->detail);
  }
  c->last = d < c->best_d;
  if (c->last) {
    if (k > 0)
      c->unstale = 1; /* the driver compared with a try dropped */
    c->best = t->r;
    c->best_d = d;
    c->best_t = t->t0 + d / 2;
  }
  c->slow = c->known && c->best_d > 2 * ms->quick_ns + 1000000;
  return c->known && !c->slow;
}

/* Fold the reading of meter I whose tries C noted, the last one LAST of
 * N: the quickest good try, or LAST when none was good. */
static int choice_fold(int i, struct choice *c, const struct pmon_try *last,
                       int n, int force)
{
  struct pmon_mstate *ms = &pmon__g.ms[i];
  struct pmon_reading r;

  if (c->best_d == UINT64_MAX) {
    r = last->r;
    return pmon__meter_fold(i, last->rc, &r,
                            last->t0 + (last->t1 - last->t0) / 2, force);
  }
  if (c->rc != 0) { /* a try after good ones failed: counted, not folded */
    ms->nfail++;
    if (c->rc == PMON_EFORMAT)
      ms->rejected++;
    c->last = 0;
  }
  if (n > 1) {
    c->best.events = c->events;
    if (c->events != 0)
      memcpy(c->best.detail, c->detail, sizeof c->best.detail);
  }
  if (c->unstale)
    c->best.stale = 0;
  /* A paced counter's value that an earlier try saw already was there
   * when that try ended: the earlier bound. */
  for (int k = 0; k < c->good; k++)
    if (memcmp(c->raw[k], c->best.raw, sizeof c->raw[0]) == 0) {
      if (c->seen[k] < c->best_t)
        c->best_t = c->seen[k];
      break;
    }
  ms->unstale = !c->last;
  /* Every try slow (a BMC, or this host, held up throughout): the stamp
   * kept may be off by up to half the read, which the error bar holds;
   * said, so that a figure off by as much can be told why. */
  if (n > 1 && c->slow)
    pmon__debug("%s: every try of a read was slow: the quickest, %.1f ms "
                "of %d, is kept, its stamp off by up to %.1f ms",
                ms->m.drv->name, (double)c->best_d * 1e-6, c->good,
                (double)c->best_d * 0.5e-6);
  if (ms->primed && c->best_d > ms->quick_ns)
    ms->quick_ns += (c->best_d - ms->quick_ns) / 16;
  ms->read_ns = c->best_d;
  return pmon__meter_fold(i, 0, &c->best, c->best_t, force);
}

int pmon__meter_tries(int i, const struct pmon_try *t, int n, int force)
{
  struct pmon_mstate *ms = &pmon__g.ms[i];
  struct choice c;

  if (n < 1 || n > PMON_TRIES_MAX)
    return pmon__fail(PMON_EINVAL, "meter %d: %d tries of a reading", i, n);
  choice_start(ms, &c);
  for (int k = 0; k < n; k++)
    choice_note(ms, &c, &t[k], k);
  return choice_fold(i, &c, &t[n - 1], n, force);
}

/*
 * Take one reading of meter I and fold it in (pmon__meter_fold()), stamped
 * with the midpoint of the driver's read().  The value belongs to some
 * instant inside the read, not surely its middle: one that took long (a
 * BMC or its host held up after the request came, a reading thread that
 * waited for a processor) is stamped off by up to half of it, and a run's
 * ends and a region's are such stamps.  So a counter's read slower than
 * its quick ones (more than twice the quickest and a millisecond) is taken
 * again, twice at most while the clock is before UNTIL, and the quickest
 * try is folded.  The others are dropped, and a counter carries their
 * energy to the next reading; what they said beyond the counts is kept:
 * their events join the one folded, and since a driver marks a reading
 * stale against its own previous read, which may have been dropped, the
 * core's comparison with the last reading folded decides instead
 * (counts_same()).  A sampled meter's reading is a point of its power
 * curve, and an instrument's stream would lose one: one try.  The first
 * read, which opens connections, sets no quick time; before one is known
 * (init), the tries are made to learn it.  The quick time falls to any
 * quicker read and rises a sixteenth of the way to each one folded, so
 * that one read quicker than the meter can keep up does not make every
 * later one slow.  A try that fails ends the tries: counted as failed, it
 * is folded only when no try succeeded.  FORCE: one try, folded as it
 * came.  Called by the meter's poller, or with no poller running.
 * Returns as pmon__meter_fold().
 */
static int sample_one(int i, int force, uint64_t until)
{
  struct pmon_mstate *ms = &pmon__g.ms[i];
  struct pmon_meter *m = &ms->m;
  struct pmon_try t[PMON_TRIES_MAX];
  struct choice c;
  int n = 0, rc;
  int retry = (m->flags & PMON_DRV_COUNTER) && m->window_s <= 0;

  choice_start(ms, &c);
  for (;;) {
    struct pmon_try *x = &t[n];
    int enough;

    memset(&x->r, 0, sizeof x->r);
    x->t0 = pmon__now_ns();
    x->rc = m->drv->read(m, &x->r);
    x->t1 = pmon__now_ns();
    enough = choice_note(ms, &c, x, n++);
    if (enough || force || !ms->primed || !retry || n >= PMON_TRIES_MAX ||
        x->t1 >= until)
      break;
  }
  if (!pmon__tracing)
    return choice_fold(i, &c, &t[n - 1], n, force);
  /* Recorded, then folded, with no other meter's reading between: a
   * replay folds them in the trace's order. */
  pmon__trace_lock();
  pmon__trace_read(i, t, n, force);
  rc = choice_fold(i, &c, &t[n - 1], n, force);
  pmon__trace_unlock();
  return rc;
}

void pmon__meter_wait(int i, uint64_t now)
{
  struct pmon_mstate *ms = &pmon__g.ms[i];

  ms->anchoring = ms->primed ? 1 : 2;
  ms->anchor_ns = now;
  ms->held = 0;
}

void pmon__meter_waited(int i)
{
  struct pmon_mstate *ms = &pmon__g.ms[i];

  if (ms->held) /* not if it failed: released then */
    release_held(i);
  ms->anchoring = 0;
}

void pmon__meters_waited(void)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_tl *tl;
  struct pmon_tl_sample s;
  struct pmon_hist_point *last;

  /* With several meters in the total, the history's point for the first
   * one's sample could not be made before the others had theirs: it is
   * made now, or made again with their latest samples, so that the
   * history ends (at finalize) where the node's energy does. */
  if (g->total_meter < 0)
    return;
  tl = &g->sh->tl[g->total_meter];
  last = g->hist.n > 0 ? &g->hist.p[g->hist.n - 1] : NULL;
  if (pmon__tl_seq(tl) > 0 && pmon__tl_get(tl, pmon__tl_seq(tl) - 1, &s) == 0) {
    if (last == NULL || last->t_ns < s.t_ns)
      hist_add(s.t_ns);
    else if (last->t_ns == s.t_ns) {
      double e, err[3];
      uint64_t covered;

      if (hist_total(&e, &covered, err) == 0) {
        last->e = e;
        last->covered_ns = covered;
        memcpy(last->err, err, sizeof err);
      }
    }
  }
}

void pmon__meters_sample_all(uint64_t now)
{
  struct pmon_state *g = &pmon__g;

  for (int i = 0; i < g->nmeters; i++) {
    struct pmon_mstate *ms = &g->ms[i];
    uint64_t period = (uint64_t)(ms->m.interval_s * 1e9);
    uint64_t limit;
    uint64_t nap = period < 5000000 ? period : 5000000;

    /* Wait, a bounded time, for a value published after NOW: at init it
     * anchors the timeline, at finalize it covers the last region end.
     * After the limit a stale value is taken, stamped now. */
    pmon__trace_wait(i, now);
    pmon__meter_wait(i, now);
    if (!ms->primed)
      sample_one(i, 0, 0);
    /* Six periods, or at finalize with a counter published at a pace
     * its device states (m.pace_s), two paces and a period if longer:
     * the value it reads first may have come before NOW, and the next
     * one takes up to a pace and what its publisher was held up. */
    limit = now + 6 * period;
    if (ms->anchoring == 1 && ms->paced && ms->m.pace_s > 0) {
      uint64_t paces = (uint64_t)(2 * ms->m.pace_s * 1e9) + period;

      if (limit < now + paces)
        limit = now + paces;
    }
    limit += 1000000;
    /* A meter that fails is tried once: its trouble must not hold the
     * program up.  At finalize, a value stamped before NOW does not end
     * the wait (nor does one held, pmon__meter_fold()). */
    while (!ms->failing &&
           !(sample_one(i, pmon__now_ns() >= limit, limit) &&
             (ms->anchoring != 1 || ms->prev_ns >= now))) {
      if (pmon__now_ns() >= limit && !ms->primed)
        break;
      pmon__sleep_ns(nap);
    }
    /* Init's reading came just after a new value (read at short
     * intervals until one came) and is stamped about when it came.  The
     * poller then reads half a period out of step with that instant: a
     * meter that publishes every few periods (ten times a second, read
     * fifty) is read half-way between its publications' steps, and each
     * new value's half-way stamp is as often early as late.  In step,
     * each would be read just after it came and stamped half a period
     * early, every one of them alike: a bias on every span, where the
     * stamp's error is meant to be random.  Only such a meter: one whose
     * counter moves at every reading (NVML's, RAPL's) is stamped where
     * read, and keeps the poller's step. */
    ms->due_ns = pmon__now_ns() + period;
    if (ms->anchoring == 2 && ms->paced && ms->prev_ns + period / 2 > 0) {
      uint64_t phase = ms->prev_ns + period / 2;

      while (phase < ms->due_ns)
        phase += period;
      ms->due_ns = phase;
    }
    pmon__meter_waited(i);
    pmon__trace_waited(i);
  }
  pmon__meters_waited();
}

void pmon__meter_poll(int i)
{
  struct pmon_mstate *ms = &pmon__g.ms[i];
  uint64_t period = (uint64_t)(ms->m.interval_s * 1e9);
  uint64_t now = pmon__now_ns();

  sample_one(i, 0, now + period / 2);
  ms->due_ns += period;
  now = pmon__now_ns();
  /* A read that ended a little after the next was due (a timeout that
   * overran) is followed at once, so that one failed read does not grow
   * into a gap; one that overran by more than half a period does not try
   * to catch up. */
  if (ms->due_ns <= now)
    ms->due_ns = now - ms->due_ns < period / 2 ? now : now + period;
}

/* One meter's poller: reads it every interval until told to stop.  The
 * read itself runs without the lock; a read that takes long delays only
 * this meter. */
static void *poller_main(void *arg)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_mstate *ms = arg;
  int i = (int)(ms - g->ms);

  pthread_mutex_lock(&g->lock);
  while (!g->stop) {
    uint64_t now = pmon__now_ns();
    struct timespec ts;

    if (now >= ms->due_ns) {
      pthread_mutex_unlock(&g->lock);
      pmon__meter_poll(i);
      pthread_mutex_lock(&g->lock);
      continue;
    }
    ts.tv_sec = (time_t)(ms->due_ns / 1000000000u);
    ts.tv_nsec = (long)(ms->due_ns % 1000000000u);
    pthread_cond_timedwait(&g->cond, &g->lock, &ts);
  }
  pthread_mutex_unlock(&g->lock);
  return NULL;
}

int pmon__sampler_start(void)
{
  struct pmon_state *g = &pmon__g;
  pthread_condattr_t ca;

  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&g->cond, &ca);
  pthread_condattr_destroy(&ca);
  g->stop = 0;
  /* The pollers take no signal. */
  for (int i = 0; i < g->nmeters; i++) {
    struct pmon_mstate *ms = &g->ms[i];
    int rc = pmon__thread_start(&g->poller[i], poller_main, ms);

    if (rc != 0) /* not fatal: the meter is still read at finalize */
      pmon__event(pmon__now_ns(), i, "sampler_error",
                  "cannot start the meter's thread (%s): read at init "
                  "and finalize only",
                  strerror(rc));
    g->poller_started[i] = rc == 0;
  }
  return 0;
}

void pmon__sampler_stop(void)
{
  struct pmon_state *g = &pmon__g;

  pthread_mutex_lock(&g->lock);
  g->stop = 1;
  pthread_cond_broadcast(&g->cond);
  pthread_mutex_unlock(&g->lock);
  for (int i = 0; i < g->nmeters; i++)
    if (g->poller_started[i]) {
      pthread_join(g->poller[i], NULL);
      g->poller_started[i] = 0;
    }
}

void pmon__meters_finish(void)
{
  struct pmon_state *g = &pmon__g;

  for (int i = 0; i < g->nmeters; i++) {
    struct pmon_meter *m = &g->ms[i].m;
    char note[sizeof g->events[0].detail] = "";

    if (m->drv->finish != NULL && m->drv->finish(m, note, sizeof note) > 0)
      pmon__event(pmon__now_ns(), i, "cross_check", "%s", note);
  }
}

void pmon__meters_close(void)
{
  struct pmon_state *g = &pmon__g;

  for (int i = 0; i < g->nmeters; i++) {
    if (g->ms[i].m.drv->close != NULL)
      g->ms[i].m.drv->close(&g->ms[i].m);
    free(g->ms[i].m.priv);
  }
  free(g->ms);
  g->ms = NULL;
  g->nmeters = 0;
  free(g->events);
  g->events = NULL;
  g->nevents = 0;
  pmon__hist_free();
}

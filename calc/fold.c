/*
 * fold.c - a meter's readings folded into energy (calc/fold.h).
 *
 * Every reading becomes one sample of the meter's timeline: counter
 * meters add the wrap-corrected delta of each channel times its scale;
 * sampled meters add the trapezoid of the last two power readings;
 * windowed meters each window's mean power over it.  A counter that
 * restarts (a reset event, or a value below the previous one on a
 * counter that does not wrap) adds nothing for that interval: energy is
 * lost, never invented, and the events say so.  Where each value is
 * stamped, and how far that stamp may be off (err[2]), is the other half
 * of the work; docs/report-format.md, "Error bars", says what the bars
 * take from it.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pmon.h"
#include "fold.h"

#define NS 1e-9 /* seconds a nanosecond */

static void publish(const struct pmon_fold_ops *o, uint64_t t)
{
  o->publish(o->ctx, t);
}

/* Whether reading R of counter meter MS brings nothing new: no event,
 * and every raw value as at the last sample published. */
static int counts_same(const struct pmon_mstate *ms,
                       const struct pmon_reading *r)
{
  if (!(ms->m.flags & PMON_DRV_COUNTER) || r->events != 0)
    return 0;
  for (int c = 0; c < ms->m.nch; c++)
    if (r->raw[c] != ms->prev_raw[c])
      return 0;
  return 1;
}

/* Whether reading R of counter meter MS has a raw value below the one
 * finalize holds (MS->held): the counters restarted since. */
static int went_back(const struct pmon_mstate *ms,
                     const struct pmon_reading *r)
{
  for (int c = 0; c < ms->m.nch; c++)
    if (r->raw[c] < ms->held_raw[c])
      return 1;
  return 0;
}

/* Meter MS, frozen, has a new value again in R at T: say how long it was
 * frozen and, for a counter, how far it moved meanwhile, which is not
 * counted; the next interval starts from R. */
static void thaw(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                 const struct pmon_reading *r, uint64_t t)
{
  const struct pmon_meter *m = &ms->m;
  double frozen_s = (double)(t - ms->fresh_ns) * NS;
  double from_s = ((double)ms->fresh_ns - (double)o->t_init_ns) * NS;
  double j = 0;
  int back = 0, any = 0;

  ms->frozen = 0;
  if (!(m->flags & PMON_DRV_COUNTER)) {
    o->event(o->ctx, t, "recovered",
             "a new value after %.3f s frozen (from %.3f s after init): "
             "that time is not counted",
             frozen_s, from_s);
    return;
  }
  for (int c = 0; c < m->nch; c++)
    any |= (m->ch[c].flags & PMON_CH_TOTAL) != 0;
  for (int c = 0; c < m->nch; c++) {
    uint64_t prev = ms->prev_raw[c], now = r->raw[c];

    if (any && !(m->ch[c].flags & PMON_CH_TOTAL))
      continue;
    if (now >= prev)
      j += (double)(now - prev) * m->ch[c].scale;
    else if (m->ch[c].range != 0 && prev < m->ch[c].range)
      j += (double)(m->ch[c].range - prev + now) * m->ch[c].scale;
    else
      back = 1;
  }
  ms->reset_seen = 0;
  if (back)
    o->event(o->ctx, t, "recovered",
             "a new value after %.3f s frozen (from %.3f s after init); "
             "its counters went back (restarted): that time is not "
             "counted",
             frozen_s, from_s);
  else if (ms->wrap_ns != 0 && t - ms->fresh_ns >= ms->wrap_ns)
    o->event(o->ctx, t, "recovered",
             "a new value after %.3f s frozen (from %.3f s after init); "
             "its counters moved by an unknown amount (they may have "
             "wrapped): that time is not counted",
             frozen_s, from_s);
  else
    o->event(o->ctx, t, "recovered",
             "a new value after %.3f s frozen (from %.3f s after init); "
             "its counters moved by %.6g J: that time is not counted",
             frozen_s, from_s, j);
}

/*
 * A windowed meter's reading R at T (m.window_s > 0; one channel), after
 * its first: the value is the mean power over the window that ended at
 * its publication.  A new value was published between the reading before,
 * which saw the old one, and this one: its sample is stamped half-way,
 * off by half that time at most, and the time since the last sample is
 * that window, at the new power; the time before it, when longer than a
 * window, was windows of the old power (a device that repeats a value
 * publishes it unseen).  A value unchanged for a window and a half was
 * published again, a window after the last.  At finalize the time since
 * the last window ended, which no value covers yet, is counted at the
 * last window's power, off by all of it: the stamp's error (err[2]) is
 * that time, and the bars take it so.  Readings further apart than a
 * window may have missed a value: the time before the last window is
 * then left out (a gap).  Returns as pmon__fold().
 */
static int fold_window(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                       const struct pmon_reading *r, uint64_t t, int force)
{
  const struct pmon_meter *m = &ms->m;
  uint64_t win = (uint64_t)(m->window_s * 1e9), p, d;
  double w = r->watts[0], old = ms->prev_w[0];
  int changed = w != old || (r->events & PMON_EV_RESET);
  int final = ms->anchoring == 1 || (force && ms->anchoring != 2);

  ms->err[2] = 0;
  if (!changed && ms->anchoring == 2)
    return 1; /* init: its origin is published (the first reading) */
  if (!changed && t - ms->pub_ns >= win + win / 2 && !final) {
    /* the same value again, a window after the last */
    ms->pub_ns += win;
    ms->e[0] += old * m->window_s;
    ms->covered_ns += win;
    ms->err[2] = ms->pub_err;
    ms->prev_ns = t;
    ms->seen_ns = t;
    publish(o, ms->pub_ns);
    return 1;
  }
  if (!changed && !final) {
    ms->prev_ns = t;
    ms->seen_ns = t;
    return 0;
  }
  if (changed) {
    p = ms->seen_ns + (t - ms->seen_ns) / 2;
    if (p <= ms->pub_ns)
      p = ms->pub_ns + 1;
    d = p - ms->pub_ns;
    ms->pub_err = (double)(t - ms->seen_ns) * 0.5e-9;
    if (r->events & PMON_EV_RESET) {
      /* the device was lost and found again: nothing before counts */
    } else if (t - ms->seen_ns > win) {
      /* a window may have gone by unseen: only the last is known */
      uint64_t known = d < win ? d : win;

      ms->gaps++;
      o->event(o->ctx, t, "gap",
               "no reading for %.3f s (more than its window of %.3f "
               "s): %.3f s not counted",
               (double)(t - ms->seen_ns) * NS, m->window_s,
               (double)(d - known) * NS);
      ms->e[0] += w * (double)known * NS;
      ms->covered_ns += known;
    } else if (d < win + win / 2) {
      ms->e[0] += w * (double)d * NS;
      ms->covered_ns += d;
    } else {
      ms->e[0] += old * (double)(d - win) * NS + w * m->window_s;
      ms->covered_ns += d;
    }
    ms->prev_w[0] = old = w;
    ms->pub_ns = p;
    ms->fresh_ns = t;
    ms->err[2] = ms->pub_err;
  }
  if (final && t > ms->pub_ns) {
    /* finalize: the time no window covers yet, at the last power */
    d = t - ms->pub_ns;
    ms->e[0] += old * (double)d * NS;
    ms->covered_ns += d;
    ms->pub_err = (double)d * NS;
    ms->err[2] = ms->pub_err;
    ms->pub_ns = t;
  }
  ms->prev_ns = t;
  ms->seen_ns = t;
  publish(o, ms->pub_ns);
  return 1;
}

void pmon__fold_release(struct pmon_mstate *ms,
                        const struct pmon_fold_ops *ops)
{
  struct pmon_reading h;
  uint64_t seen = ms->seen_ns;

  memset(&h, 0, sizeof h);
  memcpy(h.raw, ms->held_raw, sizeof h.raw);
  ms->held = 0;
  ms->seen_ns = ms->held_lo_ns;
  ms->seen_old = 0;
  ms->nread--; /* counted when it was read */
  (void)pmon__fold(ms, ops, 0, NULL, &h, ms->held_ns, 1);
  if (seen > ms->seen_ns)
    ms->seen_ns = seen;
  ms->seen_old = 1;
}

/* A failed read (RC, WHY) at T: the first of a run is an event. */
static void failed(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                   int rc, const char *why, uint64_t t)
{
  ms->nfail++;
  if (rc == PMON_EFORMAT)
    ms->rejected++;
  if (!ms->failing) {
    o->event(o->ctx, t, "read_error", "%s", why != NULL ? why : "");
    ms->lost_ns = t;
  }
  ms->failing = 1;
}

/* The first good reading R at T: only a starting point, but for a
 * windowed meter, whose origin it publishes.  Returns as pmon__fold(). */
static int first(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                 const struct pmon_reading *r, uint64_t t)
{
  memcpy(ms->prev_raw, r->raw, sizeof r->raw);
  memcpy(ms->prev_w, r->watts, sizeof r->watts);
  ms->prev_h = (double)ms->read_ns * 0.5e-9; /* as stamp() would */
  ms->prev_ns = t;
  ms->fresh_ns = t;
  ms->seen_ns = t;
  ms->seen_old = 0;
  ms->primed = 1;
  if (ms->m.window_s > 0) {
    ms->pub_ns = t;
    ms->pub_err = 0;
    ms->err[2] = 0;
    publish(o, t);
    return 1;
  }
  return 0;
}

/*
 * Whether finalize holds reading R (or holds it already): a paced
 * counter's new value read after the run's end (anchor_ns) may have come
 * before the end or after, anywhere since the poller's last reading, so
 * it is held, not folded, and finalize waits for the next value, whose
 * count holds its energy (pmon__fold_release() folds it if the wait ends
 * first).  NEWS: R brings a new value.
 */
static int hold(struct pmon_mstate *ms, const struct pmon_reading *r,
                uint64_t t, int force, int news)
{
  if (ms->held && r->events == 0 &&
      memcmp(r->raw, ms->held_raw, sizeof r->raw) == 0) {
    ms->seen_ns = t; /* the value held, again */
    return 1;
  }
  if (news && ms->anchoring == 1 && ms->paced && !force && !ms->frozen &&
      (ms->m.flags & PMON_DRV_COUNTER) && r->events == 0 &&
      !(ms->seen_old && ms->seen_ns >= ms->anchor_ns)) {
    memcpy(ms->held_raw, r->raw, sizeof r->raw);
    ms->held = 1;
    ms->held_ns = t;
    ms->held_lo_ns = ms->seen_ns;
    ms->seen_ns = t;
    ms->seen_old = 1;
    return 1;
  }
  if (news)
    ms->held = 0; /* a later value, whose count holds the one held */
  return 0;
}

/*
 * Where the value read at *T is stamped (*T moves there), and how far it
 * may be off (err[2]).  A counter published at its own pace (pm_counters
 * ten times a second, read five times as often) moved somewhere between
 * the previous reading, which saw the old value, and this one: stamped
 * half-way, it is as often early as late.  Stamped when first seen, it
 * would always be late, by more when the reading thread waited for a
 * processor (on a node whose ranks keep every core busy): the energy of a
 * span that starts in a busy time and ends in a quiet one would come out
 * high.  A device that states its pace (m.pace_s) publishes a value at
 * most that long before it is read: after a reading that brought news too
 * (the reading thread held up, or reading no faster than it publishes),
 * the value came after the one that reading saw, and not before a pace
 * ago; it is stamped half-way in that span.  So is init's reading
 * (anchoring 2), which starts the node's span there: the node's energy is
 * counted from that instant.  So is finalize's with a counter init saw
 * paced, as long as the reading before it, which saw the old value, came
 * after the run's end (anchor_ns): the value came after the end, stamped
 * within finalize's short intervals, and the report cuts the span at the
 * end between it and the sample before (hold() takes the others).  Any
 * other counter's is stamped where it was read: it moves at every
 * reading.
 */
static void stamp(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                  uint64_t *tp, int force, int news)
{
  const struct pmon_meter *m = &ms->m;
  uint64_t pace = (uint64_t)(m->pace_s * 1e9), t = *tp;
  int counter = (m->flags & PMON_DRV_COUNTER) != 0;

  /* A stated pace is believed until a value is seen kept for longer
   * (and half a pace, for a publisher's jitter): then a value read may
   * be older than it says. */
  if (pace > 0 && !news && !ms->pace_off && ms->news_ns > 0 &&
      t > ms->news_ns + pace + pace / 2) {
    ms->pace_off = 1;
    o->debug(o->ctx,
             "%s: a value kept for %.3f s, longer than the driver's pace "
             "of %.3g s: the pace is not believed",
             m->drv->name, (double)(t - ms->news_ns) * NS, m->pace_s);
  }
  if (ms->pace_off)
    pace = 0;
  /* The value held at an instant between the previous reading and this
   * one: how far its stamp may be from it goes into err[2]. */
  ms->err[2] = 0;
  if (news && !ms->frozen && !force && counter &&
      (ms->anchoring != 1 || ms->paced) && t > ms->seen_ns &&
      (ms->seen_old ? ms->seen_ns > ms->prev_ns : ms->paced && pace > 0)) {
    uint64_t seen = t, lo = ms->seen_ns;

    /* Init saw it keep a value over two readings or more, 5 ms apart:
     * published at its own pace (a counter that moves all the time, of
     * which two readings a microsecond apart may agree, is not). */
    ms->paced |= ms->anchoring == 2 && ms->olds >= 2;
    if (pace > 0 && t - lo > pace)
      lo = t - pace;
    t = lo + (t - lo) / 2;
    ms->err[2] = (double)(t - lo) * NS;
    ms->seen_ns = seen;
    ms->news_ns = seen;
  } else {
    /* A value read now was there since the previous reading at most,
     * and since a pace at most (RAPL's registers: 2 ms, pmon-driver-
     * rapl(7); the poller reads them every 0.1 s). */
    if (news && counter && t > ms->seen_ns)
      ms->err[2] = (double)(pace > 0 && t - ms->seen_ns > pace
                              ? pace
                              : t - ms->seen_ns) *
                   NS;
    /* And the value held at an instant inside the read, stamped at its
     * middle: a slow read (a BMC, or this host, held up) is off by up to
     * half of it, whatever the pace.  A power meter's reading too: its
     * watts are the power at some instant of the read, and a host held up
     * makes every reading late alike, which a ramp turns into energy (a
     * 20 s ramp of 64 W read 11 ms late: 0.7 J, which the trapezoids'
     * own terms, adding in quadrature, did not hold). */
    if (news && (double)ms->read_ns * 0.5e-9 > ms->err[2])
      ms->err[2] = (double)ms->read_ns * 0.5e-9;
    ms->seen_ns = t;
    if (news)
      ms->news_ns = t;
  }
  ms->seen_old = !news;
  ms->olds = news ? 0 : ms->olds + 1;
  *tp = t;
}

/*
 * A reading at *T that brought nothing new.  A device that brings nothing
 * new for longer than its stale_s is frozen.  Returns 0 (nothing to
 * publish) but for FORCE, the wait's last reading: then 1 when frozen
 * (published as it stands), or -1 to count the interval to *T, which may
 * move (init's, to the reading before).
 */
static int unchanged(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                     uint64_t *tp, int force)
{
  const struct pmon_meter *m = &ms->m;
  uint64_t t = *tp;

  if (m->stale_s > 0 && !ms->frozen &&
      t - ms->fresh_ns > (uint64_t)(m->stale_s * 1e9)) {
    ms->frozen = 1;
    ms->stale++;
    o->event(o->ctx, t, "stale",
             "no new value for %.3f s, more than the limit of %.3g s: "
             "the time from the last new value is not counted until it "
             "moves again",
             (double)(t - ms->fresh_ns) * NS, m->stale_s);
  }
  if (!force)
    return 0;
  if (ms->frozen) { /* at finalize: nothing more was measured */
    ms->prev_ns = t;
    publish(o, t);
    return 1;
  }
  if (!(m->flags & PMON_DRV_COUNTER) || t <= ms->prev_ns)
    return -1;
  /* Finalize's reading taken after its wait without a new value: the
   * counter holds what it did at the value stamped prev_ns (or a little
   * before), and the energy since is not in it.  Stamped now, as the
   * report's cut at the run's end needs, the stamp may be off by all that
   * time: the bar says so. */
  if (ms->anchoring == 1)
    ms->err[2] = (double)(t - ms->prev_ns) * NS;
  /* Init's reading taken after its wait without a new value (a meter
   * slower than the wait, or its publisher held up on a busy machine):
   * the value was there at the first reading already, which stamps the
   * origin, as sure as the wait was long.  Stamped now, the node's energy
   * would miss what went by during the wait. */
  if (ms->anchoring == 2) {
    ms->err[2] = (double)(t - ms->prev_ns) * NS;
    *tp = ms->prev_ns;
  }
  return -1;
}

/* A counter meter's interval from prev_ns to T, read as R: each
 * channel's wrap-corrected delta times its scale. */
static void count(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                  const struct pmon_reading *r, uint64_t t)
{
  const struct pmon_meter *m = &ms->m;
  double dt = (double)(t - ms->prev_ns) * NS + 1.0;
  int back = 0;

  if (ms->wrap_ns != 0 && t - ms->prev_ns >= ms->wrap_ns) {
    /* So long since the last reading that a counter may have wrapped
     * more than once: how much energy went by is unknown. */
    ms->ambiguous++;
    o->event(o->ctx, t, "wrap_unknown",
             "no reading for %.3f s, as long as a counter takes to wrap "
             "(%.3f s): that time is not counted",
             (double)(t - ms->prev_ns) * NS, (double)ms->wrap_ns * NS);
    memcpy(ms->prev_raw, r->raw, sizeof r->raw);
    return;
  }
  for (int c = 0; c < m->nch; c++) {
    uint64_t prev = ms->prev_raw[c], now = r->raw[c], d;

    /* A counter that does not wrap restarted where it went back; the
     * reset event itself may come a reading earlier or later, so it only
     * decides for counters that wrap, where going back is a wrap. */
    if (m->ch[c].range != 0 && (r->events & PMON_EV_RESET))
      d = 0;
    else if (now >= prev)
      d = now - prev;
    else if (m->ch[c].range != 0 && prev < m->ch[c].range)
      d = m->ch[c].range - prev + now;
    else
      d = 0, back = 1;
    if ((double)d * m->ch[c].scale > PMON_MAX_WATTS * dt) {
      o->event(o->ctx, t, "implausible",
               "channel %s jumped by %.6g J in %.3f s: not counted",
               m->ch[c].name, (double)d * m->ch[c].scale, dt);
      d = 0;
    }
    ms->e[c] += (double)d * m->ch[c].scale;
  }
  if (back && !ms->reset_seen && !(r->events & PMON_EV_RESET))
    o->event(o->ctx, t, "reset",
             "counters went back: they restarted, the interval of %.3f s "
             "before this reading is not counted",
             (double)(t - ms->prev_ns) * NS);
  ms->reset_seen = (r->events & PMON_EV_RESET) && !back;
  memcpy(ms->prev_raw, r->raw, sizeof r->raw);
  if (!back && !(r->events & PMON_EV_RESET))
    ms->covered_ns += t - ms->prev_ns;
}

/* A sampled meter's interval from prev_ns to T, read as R: the trapezoid
 * of the two readings, unless the device was lost or the readings are
 * too far apart. */
static void trapezoid(struct pmon_mstate *ms, const struct pmon_fold_ops *o,
                      const struct pmon_reading *r, uint64_t t)
{
  const struct pmon_meter *m = &ms->m;
  double dt = (double)(t - ms->prev_ns) * NS, jump = 0;
  double h = ms->err[2] > ms->prev_h ? ms->err[2] : ms->prev_h;

  if (r->events & PMON_EV_RESET) {
    /* The device was lost and found again (the reset event says so): the
     * interval before this reading was not measured. */
  } else if (t - ms->prev_ns > ms->ttl_ns) {
    /* Too long without a reading to say what happened meanwhile. */
    ms->gaps++;
    o->event(o->ctx, t, "gap",
             "no reading for %.3f s (more than %.3f s): that time is not "
             "counted",
             dt, (double)ms->ttl_ns * NS);
  } else {
    for (int c = 0; c < m->nch; c++) {
      ms->e[c] += 0.5 * (ms->prev_w[c] + r->watts[c]) * dt;
      if (o->total_mask & (1u << c))
        jump += fabs(r->watts[c] - ms->prev_w[c]);
    }
    /* The trapezoid is off by at most half the change times the interval
     * when the power moved once, anywhere, between the two readings, and
     * by the change times the stamps' error (the larger of the two):
     * each reading's watts belong to an instant up to h from its stamp,
     * and a step next to a reading held up moves by as much
     * (docs/report-format.md, "Error bars"). */
    ms->err[0] += jump * (0.5 * dt + h);
    ms->err[1] += jump * jump * (0.5 * dt + h) * (0.5 * dt + h);
    ms->covered_ns += t - ms->prev_ns;
  }
  memcpy(ms->prev_w, r->watts, sizeof r->watts);
  ms->prev_h = ms->err[2];
}

int pmon__fold(struct pmon_mstate *ms, const struct pmon_fold_ops *ops,
               int rc, const char *why, const struct pmon_reading *r,
               uint64_t t, int force)
{
  int news, k;

  /* Finalize's wait for a value after the one it holds ends here: the
   * meter failed, the wait is over (FORCE), or the counters restarted or
   * went back.  The value held is folded first, so that nothing it
   * counted is lost. */
  if (ms->held &&
      (rc != 0 || force || r->events != 0 || went_back(ms, r)))
    pmon__fold_release(ms, ops);
  if (rc != 0) {
    failed(ms, ops, rc, why, t);
    return 0;
  }
  if (ms->failing)
    ops->event(ops->ctx, t, "recovered",
               "reading again after %lu failed reads", ms->nfail);
  ms->failing = 0;
  ms->lost_ns = 0;
  ms->nread++;
  if (r->events & PMON_EV_RESET)
    ops->event(ops->ctx, t, "reset", "%s", r->detail);
  if (r->events & PMON_EV_POWER_CAP)
    ops->event(ops->ctx, t, "power_cap", "%s", r->detail);
  if (!ms->primed)
    return first(ms, ops, r, t);
  if (ms->m.window_s > 0)
    return fold_window(ms, ops, r, t, force);
  /* A counter that did not move brings nothing new, as a reading the
   * driver marks stale. */
  news = !r->stale && !counts_same(ms, r);
  if (hold(ms, r, t, force, news))
    return 0;
  stamp(ms, ops, &t, force, news);
  if (!news) {
    if ((k = unchanged(ms, ops, &t, force)) >= 0)
      return k;
  } else if (ms->frozen) {
    /* Like a wrap that cannot be told: the whole span since the last new
     * value is left out, and counting starts again from this reading. */
    thaw(ms, ops, r, t);
    memcpy(ms->prev_raw, r->raw, sizeof r->raw);
    memcpy(ms->prev_w, r->watts, sizeof r->watts);
    ms->prev_h = ms->err[2];
    ms->prev_ns = t;
    ms->fresh_ns = t;
    publish(ops, t);
    return 1;
  } else {
    ms->fresh_ns = t;
  }
  if (ms->m.flags & PMON_DRV_COUNTER)
    count(ms, ops, r, t);
  else
    trapezoid(ms, ops, r, t);
  ms->prev_ns = t;
  publish(ops, t);
  return 1;
}

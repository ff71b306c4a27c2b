/*
 * driver.h - the interface between pmon's core and its meter drivers.
 *
 * A driver reads one kind of power source.  It is one
 * `const struct pmon_driver` with designated initialisers, in one file of
 * drivers/, listed once in drivers/drivers.c.  A configured instance is a
 * struct pmon_meter; the core allocates its private block (priv_size
 * bytes, zeroed) so a driver keeps no file-static state and two instances
 * of one driver work side by side.  docs/new-driver.md walks through
 * writing one.
 *
 * Units at this boundary: counter meters give raw cumulative counts that
 * the channel's scale turns into joules; sampled meters give watts.  Wrap
 * and reset correction is done by the core (lib/meter.c), from the range a
 * channel declares, never in a driver.
 */
#ifndef PMON_DRIVER_H
#define PMON_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "roots.h" /* the ground floor a driver stands on (base/) */
#include "spec.h"

#define PMON_CH_MAX 16      /* channels per meter */
#define PMON_CH_NAME_MAX 32 /* channel name, with its NUL */

/* Driver flags. */
enum {
  PMON_DRV_COUNTER = 1 << 0,  /* read() fills raw[]: cumulative counts */
  PMON_DRV_SAMPLED = 1 << 1,  /* read() fills watts[]: instantaneous power */
  PMON_DRV_ESTIMATED = 1 << 2, /* figures come from a model, not a meter */
  PMON_DRV_EXTERNAL = 1 << 3,  /* a device outside the node, named by a
                                  specification (PMON_METERS, the site
                                  file): "auto" never probes it */
  PMON_DRV_PART = 1 << 4       /* measures parts of the node (processors,
                                  memory, GPUs), never all of it: "auto"
                                  opens every such driver it finds, side
                                  by side, when no driver measures the
                                  whole node */
};

/* What part of the node a channel measures. */
enum pmon_domain {
  PMON_DOM_NODE,   /* the whole node */
  PMON_DOM_CPU,    /* processors */
  PMON_DOM_MEMORY, /* memory */
  PMON_DOM_ACCEL,  /* accelerators */
  PMON_DOM_OTHER,
  PMON_DOM_MODULE  /* a module of processor, memory and accelerator
                      together (NVIDIA GH200): overlaps all three */
};

/* Channel flags. */
enum {
  PMON_CH_TOTAL = 1 << 0 /* counts toward the meter's node total */
};

struct pmon_channel {
  char name[PMON_CH_NAME_MAX]; /* "node", "cpu", "accel0", "outlet7" */
  enum pmon_domain domain;
  unsigned flags;   /* PMON_CH_* */
  double scale;     /* raw count -> joules (counter meters); 1 for watts */
  uint64_t range;   /* counter modulus, 0 when it does not wrap */
  double max_watts; /* counter meters: the most power the channel can
                       draw, 0 when unknown (the core then assumes
                       PMON_WRAP_WATTS).  With RANGE it gives the shortest
                       time in which the counter can wrap: the core reads
                       it at least twice in that time, and drops (with an
                       event) an interval too long to tell how often it
                       wrapped */
  char overlaps[PMON_CH_NAME_MAX]; /* a channel that is not in the total
                       because it is part of another: that channel's
                       name ("package-0" for a core zone), or "all" for
                       one that overlaps every other (psys); "" when it
                       overlaps none.  Shown in the report. */
  double res_w;     /* sampled meters: MAY be set after adding the channel,
                       the resolution of its readings in watts (an ePDU's
                       whole watts: 1); 0 when not stated.  Each reading
                       is off by less than that, and the error bars count
                       it over the time measured (docs/report-format.md,
                       "Error bars", term 1) */
};

/* A counter channel whose max_watts is 0 is assumed to draw at most this
 * much, for the wrap guard. */
#define PMON_WRAP_WATTS 2000.0

/* A domain's name in the report and the trace ("node", "cpu", "memory",
 * "accel", "other", "module"), and back: the domain, or -1. */
const char *pmon__domain_name(enum pmon_domain d);
int pmon__domain_parse(const char *name);

/* Events a reading may carry. */
enum {
  PMON_EV_RESET = 1 << 0,    /* counters restarted: drop this interval */
  PMON_EV_POWER_CAP = 1 << 1 /* a power cap changed (energy continuous) */
};

/* One reading, filled by a driver's read(). */
struct pmon_reading {
  uint64_t raw[PMON_CH_MAX]; /* counter meters: cumulative counts */
  double watts[PMON_CH_MAX]; /* sampled meters: power per channel */
  unsigned events;           /* PMON_EV_* */
  int stale;                 /* nothing new published since the previous
                                reading: the core keeps its sample, whose
                                time stamp stays that of the first reading
                                that saw the value */
  char detail[160];          /* what the events were, for the report */
};

struct pmon_meter {
  const struct pmon_driver *drv;
  void *priv;                 /* drv->priv_size bytes, zeroed by the core */
  struct pmon_spec spec;
  unsigned flags;             /* drv->flags; open() may choose between
                                 PMON_DRV_COUNTER and PMON_DRV_SAMPLED
                                 when the device offers both */
  double interval_s;          /* read period; open() may change it */
  double window_s;            /* MAY be set by open(), for a sampled meter
                                 of one channel whose reading is the mean
                                 power over the last window_s seconds,
                                 renewed every window_s (the windows tile
                                 time: an ACPI power meter's
                                 power1_average).  The core then counts
                                 each new value as its window's energy,
                                 the window ending where the value
                                 changed, which it finds by reading several
                                 times a window (interval_s well below
                                 window_s); between two values it
                                 interpolates no trapezoid.  0 (the
                                 default): a reading is the power at its
                                 instant. */
  double accuracy_rel;        /* a reading's stated accuracy, +-(R % of it
                                 + A W per channel in the node's total):
                                 R as a fraction, */
  double accuracy_w;          /* and A; from the driver's slots, or the
                                 specification's accuracy= (the site's
                                 own figure), set before open(); open()
                                 MAY set both from the device (a device
                                 that states its own).  Both 0: not
                                 stated, and the energies' error bars
                                 have no such term. */
  const char *accuracy_from;  /* "driver", "specification" or "device"
                                 (open() sets it when it sets the two);
                                 NULL when not stated */
  double stale_s;             /* MAY be set by open(): how long the device
                                 may go without a new value (a reading
                                 not marked stale; for a counter meter,
                                 one where some raw value moved) before
                                 the core treats it as frozen: from the
                                 last new value until one comes again,
                                 nothing is counted, and a "stale" event
                                 says so.  0 (the default): never, for a
                                 driver that cannot tell a frozen source
                                 from a constant one.  The core reads it
                                 at every reading, after open() */
  double pace_s;              /* MAY be set by open(), for a counter meter
                                 whose device publishes new values at a
                                 pace it states (pm_counters'
                                 raw_scan_hz): the time between two.  A
                                 value read is then at most that old,
                                 which bounds its stamp when the reading
                                 before brought news too (and its error
                                 always), and finalize waits up to two
                                 of them for a value after the run's
                                 end.  Not believed once a value is seen
                                 kept for 1.5 paces.  0 (the default):
                                 not stated. */
  int nch;                    /* set by open(), 1 .. PMON_CH_MAX */
  struct pmon_channel ch[PMON_CH_MAX];
  char source[64];            /* MAY be set by open(): how the device is
                                 read, when a driver has several ways
                                 ("powercap", "perf", "msr") */
  char note[320];             /* MAY be set by open(): one line on what it
                                 could not use on the way and what would
                                 fix it ("powercap: .../energy_uj: EACCES
                                 (root-only since CVE-2020-8694): a udev
                                 rule or sysfsutils can make it 0444").
                                 The report's meter entry and pmon-meters
                                 show it. */
};

struct pmon_driver {
  const char *name;        /* MUST: the name used in PMON_METERS */
  const char *description; /* MUST: one line for pmon-meters and the docs */
  unsigned flags;          /* MUST: PMON_DRV_COUNTER or PMON_DRV_SAMPLED */
  size_t priv_size;        /* MAY be 0: bytes of per-instance state */
  double interval_s;       /* MUST: default read period in seconds */
  double accuracy_rel;     /* MAY be 0: the accuracy the maker states for
                              a reading, +-(R % of it + A W per channel
                              in the node's total), R as a fraction; */
  double accuracy_w;       /* and A.  Both 0 when nothing is stated.  The
                              driver's man page gives the source. */

  /*
   * MAY be NULL.  Called by "auto" detection: whether SPEC can be opened
   * on this node, without side effects.  Returns 0 when it can, else a
   * PMON_E* code with the reason recorded by pmon__fail().
   */
  int (*probe)(const struct pmon_spec *spec);

  /*
   * MUST.  Open M->spec: check the parameters, open the device, fill
   * M->nch and M->ch[], adjust M->interval_s if the device says better.
   * On failure return a PMON_E* code with the reason recorded by
   * pmon__fail(); the core then calls nothing else, close() included.
   */
  int (*open)(struct pmon_meter *m);

  /*
   * MUST.  Take one reading into R (zeroed by the core).  Called by one
   * thread at a time, never from a region call.  It must return within a
   * bounded time (no unbounded waits on a device).  A failed read returns a
   * PMON_E* code; the core keeps the meter and tries again later.
   */
  int (*read)(struct pmon_meter *m, struct pmon_reading *r);

  /*
   * MAY be NULL.  Called once, on the node leader at finalize, after the
   * meter's last reading and before close().  A driver that can judge its
   * readings against the device's own figures (an energy counter the
   * device keeps) writes its verdict, one line, into NOTE (SIZE bytes)
   * and returns 1: the core records it as a "cross_check" event.  Returns
   * 0 when it has nothing to say.  Bounded in time, like read().
   */
  int (*finish)(struct pmon_meter *m, char *note, size_t size);

  /*
   * MAY be NULL.  The processes that use channel CH's device now (a GPU's
   * compute processes): up to MAX of their pids into PIDS.  Returns how
   * many it stored, or a negative PMON_E* code when the device cannot
   * tell (with the reason recorded by pmon__fail()).  Called on the node
   * leader about once a second and at finalize, possibly while another
   * thread is in read(): it touches only what open() set up.  The core
   * tells by it whose the device is (lib/share.c).
   */
  int (*users)(struct pmon_meter *m, int ch, int *pids, int max);

  /* MAY be NULL.  Release what open() acquired. */
  void (*close)(struct pmon_meter *m);
};

/* The built-in drivers, NULL-terminated (drivers/drivers.c). */
extern const struct pmon_driver *const pmon__drivers[];

/* The driver named NAME, or NULL. */
const struct pmon_driver *pmon__driver_find(const char *name);

/* Add a channel to M; returns its index, or -1 when M is full. */
int pmon__meter_add_channel(struct pmon_meter *m, const char *name,
                            enum pmon_domain domain, unsigned flags,
                            double scale, uint64_t range);

#endif /* PMON_DRIVER_H */

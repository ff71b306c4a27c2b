/*
 * region.h - the layout of a region block and a thread's regions, shared
 * by lib/region.c, which makes, fills and resolves them, and
 * lib/regpub.c, which publishes them to the node and reads them back
 * from the ranks' slots.  Private to those two files: not installed, and
 * no other file includes it.
 *
 * A region's entry is one block that holds no pointer, so that a copy of
 * it is still a region: struct region, then per meter its bucket (struct
 * rmeter, region.c's own), then the bucket's copy of sample k's energies
 * and the resolved energies (one double each per channel of the node),
 * then the name.  Its offsets follow the node's meters (the node-shared
 * segment), so that a rank's blocks read the same in its leader.
 */
#ifndef PMON_REGION_H
#define PMON_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "regfit.h"
#include "rtab.h"

/* A region's entry in a thread: the head of its block. */
struct region {
  uint64_t hash;
  uint64_t count;          /* completed outermost pairs ((other): every
                              folded pair) */
  uint64_t unclosed;       /* closed by pmon_finalize() */
  uint64_t t_begin;        /* of the open outermost instance */
  uint64_t time_ns;        /* inclusive time of the completed pairs */
  uint64_t first_ns;       /* first begin, for ordering */
  uint64_t outer;          /* outermost pairs, completed or closed by
                              pmon_finalize() (count has folded pairs
                              nested in others too) */
  uint64_t first_end;      /* the end of the first outermost pair */
  uint64_t last_begin, last_end; /* the last outermost pair */
  uint32_t depth;          /* open instances in this thread */
  uint32_t unresolved;     /* boundaries that found no timeline */
  uint16_t used;           /* bit m: meter m's bucket holds boundaries */
  uint16_t other;          /* the region of folded names */
  uint16_t fslot;          /* its column in the thread's fit (0: none),
                              FIT_PARENT once a region was opened in it */
  /* struct rmeter rm[nmeters]; double a_e[nch]; double e[nch]; name */
};

/* Regions keyed by name: open addressing, capacity a power of two, at
 * most half full. */
struct rset {
  struct region **slot;
  size_t cap, n;
};

/* Hashes of names (0 marks an empty slot), up to HSET_MAX slots
 * (region.c); FULL once one could not be kept. */
struct hset {
  uint64_t *s;
  size_t cap, n;
  int full;
};

struct open_region;

/*
 * A thread's regions: made at its first region call (region.c), on
 * pmon__g.threads under threads_lock, freed by pmon__regions_free().
 * pub_due is its thread's own; pub_buf, pub_len, pub_n and pub_left are
 * written by its thread and read by whichever thread rewrites the rank's
 * slot, both under regpub.c's lock.
 */
struct pmon_thread {
  struct pmon_thread *next;
  int index;                /* creation order */
  struct rset regions;      /* its entries, which it owns */
  struct open_region *stack;
  size_t depth, stack_cap;
  struct region *other;     /* "(other)", once a name was folded */
  struct hset folded;       /* names it folded: their next begins need
                               no lock */
  /* Its regions as last published for the spool (lib/regpub.c). */
  uint64_t pub_due;         /* its next publication, CLOCK_MONOTONIC */
  char *pub_buf;            /* copies of its region blocks */
  size_t pub_len;
  uint32_t pub_n, pub_left; /* blocks in it, and left out for room */
  uint64_t pub_fit, pub_t;  /* the bytes of its fit's copy after them (0:
                               none), and when it was made */
  struct pmon_fit *fit;     /* its regions' power over the intervals
                               (lib/regfit.c); NULL: none */
  /* The fit's figures (pmon__regions_table()): each column's watts and
   * their variance, the residuals' per row. */
  double fit_p[PMON_FIT_N], fit_var[PMON_FIT_N], fit_s2;
  int fit_ok;
};

/* The layout of a region block, the same in every thread of the process:
 * made once (region.c's layout(), threads_lock held) at init or at the
 * process's first region thread, read only after that, until
 * pmon__regions_free() undoes it (DONE 0). */
struct pmon_region_layout {
  int done;
  int nmeters;
  int choff[PMON_METER_MAX + 1]; /* first channel of meter m */
  size_t off_ae, off_e, off_name;
};

extern struct pmon_region_layout pmon__region_lay;

/* R's name, at the end of its block. */
static inline char *name_of(struct region *r)
{
  return (char *)r + pmon__region_lay.off_name;
}

/* The rank's own time in each region of TAB, for its power on the node. */
static inline void own_time(struct pmon_rtab *tab)
{
  for (size_t k = 0; k < tab->cap; k++)
    if (tab->slot[k] != NULL)
      tab->slot[k]->mtime_s = tab->slot[k]->time_s;
}

/* Fold R, a region of world rank RANK, into TAB (a PMON_RT_NODE table,
 * which takes a rank's threads in creation order): the first that
 * entered a region measures it (energy is a node quantity: adding
 * threads would count it again); pairs add up and the longest thread's
 * time counts.  T is R's thread, whose fit may give its figure; NULL for
 * a region read back from a slot.  0, or PMON_ENOMEM. */
int pmon__region_table_add(struct pmon_rtab *tab, const struct pmon_thread *t,
                           struct region *r, int rank);

/*
 * The spool's side: R, as a rank published it, made into figures as
 * pmon_finalize() would make them at the node's latest sample.
 *
 * SEQ[m] and LAST[m] are the samples published and the latest of them,
 * read after the rank's slot was copied, so that no boundary of the copy
 * is anchored past them.  A region still open gets an end at each meter's
 * latest sample, as pmon_finalize() would close it there, and counts as
 * unclosed.  Then each bucket is resolved where a sample at or after its
 * last boundary exists; else its boundaries are after the latest sample,
 * where the node is not known yet, and they are taken at the energy and
 * measured time of the bucket's own sample: a pair wholly after it counts
 * with neither (its coverage says so), one across it with none either, so
 * that nothing is counted beyond what was measured.  KNOWN_NS: the
 * instant the node is known up to, where an open region's time ends.
 */
void pmon__region_settle(struct region *r, const uint64_t *seq,
                         const struct pmon_tl_sample *last,
                         uint64_t known_ns);

/* FN publishes thread T's regions at NOW, a boundary of T's at or after
 * its pub_due (lib/regpub.c); NULL: none.  regpub.c sets it at init
 * (pmon__pub_start()), before any region call, and clears it at the end
 * (pmon__pub_free()): region.c, below it, calls it only through this. */
void pmon__regions_pub_hook(void (*fn)(struct pmon_thread *t, uint64_t now));

#endif /* PMON_REGION_H */

/*
 * trace.h - PMON_RECORD: a trace of what the library saw, for
 * pmon-report replay (docs/trace-format.md).
 *
 * Each rank writes one file of JSON Lines, DIR/pmtrace-JOB-NODE-RANK.jsonl:
 * its header, and then, as they happen, its region calls and its run's
 * span, and at finalize its I/O and communication record; a node's leader
 * adds its meters, every try of every reading and init's and finalize's
 * waits.  Times are CLOCK_MONOTONIC ns, the
 * library's own clock (base/clock.h).  Until the job's name is known
 * (init's end) the lines go to memory; then to the file.  Nothing here
 * reads the clock: every line says what its caller saw.
 *
 * A failure to write says one line and ends the trace (its file then
 * ends early: replay says so); the job goes on.
 */
#ifndef PMON_TRACE_H
#define PMON_TRACE_H

#include <stdint.h>

struct pmon_try;
struct json_t;

/* Whether this process records: set by pmon__trace_config() before any
 * thread of pmon's starts, cleared by pmon__trace_close() after they have
 * ended; read without a lock. */
extern int pmon__tracing;

/* PMON_RECORD at init: 0, or PMON_ECONFIG with the reason (a directory
 * that is not one). */
int pmon__trace_config(void);
/* The leader's meters, once they are open and the node's segment made. */
void pmon__trace_meters(void);
/* The job's name is known: the file is made and what was kept in memory
 * written to it. */
void pmon__trace_named(void);
/* A line of the run's span: "init", "node_end" (the leader's run end,
 * before finalize's readings), with the time T. */
void pmon__trace_span(const char *what, uint64_t t);
/* pmon_finalize()'s end of the regions still open at T, the timeline's
 * sample counts SEQ (NMETERS of them) loaded before it. */
void pmon__trace_finalize(uint64_t t, const uint64_t *seq, int nmeters);

/* The tries of one reading of meter I, under pmon__trace_lock(), and
 * folded before it is released: replay folds in the trace's order. */
void pmon__trace_lock(void);
void pmon__trace_unlock(void);
void pmon__trace_read(int i, const struct pmon_try *t, int n, int force);
/* Meter I's sample SEQ, as its fold published it: stamped at T, the
 * stamp off by up to ERR_S seconds.  Replay checks its own against it;
 * a test, against the instants its fixture published each value. */
void pmon__trace_sample(int i, uint64_t seq, uint64_t t, double err_s);
/* Init's or finalize's wait for a value of meter I after NOW begins, and
 * ends. */
void pmon__trace_wait(int i, uint64_t now);
void pmon__trace_waited(int i);

/* A region call of thread TID: BEGIN 1 or 0 (an end), NAME; a boundary
 * (an outermost call) with its time T and the sample counts SEQ loaded
 * before it, T 0 for a call inside another of the same name. */
void pmon__trace_region(int tid, int begin, const char *name, uint64_t t,
                        const uint64_t *seq, int nmeters);

/* This rank's record at finalize, as its node's leader takes it
 * ({rank, local, io, comm}: lib/pmon.c; its I/O phases and communication
 * slots in ns after init): replay makes the node's I/O and communication
 * figures of the ranks' records, as the leader does. */
void pmon__trace_record(struct json_t *rank);

/* The node leader, at finalize: the node's share ({"split", "share",
 * "share_err", "sharing"}, lib/share.c), for the replay to split the
 * node's figures as the job did. */
void pmon__trace_share(struct json_t *share);

/* At teardown: the file flushed and closed. */
void pmon__trace_close(void);

#endif /* PMON_TRACE_H */

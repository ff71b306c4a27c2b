/*
 * state.c - the core's shared state (struct pmon_state, core.h) and the
 * node's event list, and how the core starts a thread.  The floor of the
 * core: every file of lib/ may use them, and this file calls nothing of
 * lib/ (only base/).
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "core.h"

struct pmon_state pmon__g = {
  .lock = PTHREAD_MUTEX_INITIALIZER,
  .threads_lock = PTHREAD_MUTEX_INITIALIZER,
  .world = MPI_COMM_NULL,
  .node = MPI_COMM_NULL,
  .leaders = MPI_COMM_NULL,
  .cpu_fd = -1,
};

void pmon__event(uint64_t t_ns, int meter, const char *type,
                 const char *fmt, ...)
{
  struct pmon_state *g = &pmon__g;
  struct pmon_event *ev;
  char detail[sizeof ev->detail];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  pmon__debug("%s: %s: %s",
              meter >= 0 ? g->ms[meter].m.spec.text : g->node_name, type,
              detail);
  pthread_mutex_lock(&g->lock); /* the meters' pollers add events */
  if (g->nevents < PMON_EVENT_MAX && g->events == NULL)
    g->events = calloc(PMON_EVENT_MAX, sizeof *g->events);
  if (g->nevents == PMON_EVENT_MAX || g->events == NULL) {
    g->events_dropped++;
  } else {
    ev = &g->events[g->nevents++];
    ev->t_ns = t_ns;
    ev->meter = meter;
    ev->type = type;
    memcpy(ev->detail, detail, sizeof detail);
  }
  pthread_mutex_unlock(&g->lock);
}

int pmon__thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
  sigset_t all, old;
  int rc;

  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  rc = pthread_create(t, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

/*
 * signals.c - the one place where pmon takes signals.
 *
 * Two features act on a signal: the spool (lib/spool.c) writes its final
 * version on SIGTERM and SIGINT, and PMON_IO_FREQ (lib/iofreq.c) puts the CPUs'
 * clock limits back on SIGTERM, SIGINT and the fatal signals (SIGSEGV,
 * SIGBUS, SIGABRT, SIGFPE, SIGILL).  Each asks for its signals with
 * pmon__signals_take(), giving what to do, and lets them go with
 * pmon__signals_give(); this file installs one handler per signal for
 * both, and calls nothing of pmon (a ground-floor file).  The contract:
 *
 *   - The program's action is taken by what it is, whatever its flags
 *     say (sa_handler and sa_sigaction share one field, and the kernel
 *     leaves SA_SIGINFO in the flags when a one-shot handler has run and
 *     the action is SIG_DFL again):
 *       SIG_IGN   left alone: pmon installs nothing over an ignored
 *                 signal (ignoring is inherited across exec, a handler is
 *                 not);
 *       SIG_DFL   after pmon's work, put back and raised again, so that
 *                 the exit status and the core dump are those without
 *                 pmon;
 *       handler   called after pmon's work, with the siginfo and the
 *                 context only when the program asked for them
 *                 (SA_SIGINFO), else with the signal alone.
 *   - pmon's handler is installed with the flags (SA_RESTART, SA_NODEFER,
 *     SA_ONSTACK) and the mask of the action it replaces, so that the
 *     kernel treats the signal as the program asked.  A one-shot action
 *     (SA_RESETHAND) is spent by the handler, not the kernel: after
 *     pmon's work it puts back what the kernel would have left without
 *     pmon (SIG_DFL, the program's flags and mask) and runs the action;
 *     a second signal meanwhile (on another thread) takes the default
 *     action, as without pmon, but only once pmon's work is done (the
 *     kernel's reset would let it end the process in the middle of the
 *     spool's final write).
 *   - While pmon's own work runs, SIGTERM and SIGINT are blocked, so
 *     that the one cannot cut the other's work short; the mask is as it
 *     was before the program's action runs.
 *   - The clock is put back before the program's action runs (that may
 *     end the process without returning); when the program's handler
 *     returns and leaves pmon's in place, the process goes on and the
 *     cap is put back if the node is still in an I/O phase.
 *   - When the last feature gives a signal back, the program's action is
 *     put back only if pmon's handler is still installed: a handler the
 *     program set after pmon_init() stays.  A program's handler that
 *     chains to pmon's later finds pmon's doing nothing and the action
 *     from before pmon_init() run.
 *   - The handler makes only async-signal-safe calls, and acts only in
 *     the process that installed it (a forked child just passes the
 *     signal on).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "signals.h"

static const int sigs[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGABRT,
                           SIGFPE,  SIGILL};
#define NSIGS ((int)(sizeof sigs / sizeof sigs[0]))

/* The signals each feature acts on, as bits of sigs[]. */
#define TERM_INT 0x03u /* SIGTERM, SIGINT */
#define ALL_SIGS ((1u << NSIGS) - 1)

/* What the program's action is (the kind of s.old[i]). */
enum { ACT_DFL, ACT_IGN, ACT_HANDLER, ACT_SIGINFO };

static struct {
  struct sigaction old[NSIGS]; /* the program's actions, kept for good */
  unsigned installed;          /* pmon's handler was put on these */
  volatile sig_atomic_t what;  /* PMON_SIG_* wanted now */
  unsigned wanted[2];          /* bits of sigs[] per feature */
  int (*volatile act[2])(void); /* per feature, as _take was given */
  void (*volatile again[2])(void);
  pid_t pid;                   /* the process that installed */
  atomic_int fired[NSIGS];     /* a one-shot action has been taken */
} s;

static int index_of(int sig)
{
  for (int i = 0; i < NSIGS; i++)
    if (sigs[i] == sig)
      return i;
  return -1;
}

/* The kind of action A: SIG_DFL and SIG_IGN by the handler's value,
 * whatever the flags (the union's two members are one pointer). */
static int kind_of(const struct sigaction *a)
{
  if (a->sa_handler == SIG_IGN)
    return ACT_IGN;
  if (a->sa_handler == SIG_DFL)
    return ACT_DFL;
  return (a->sa_flags & SA_SIGINFO) ? ACT_SIGINFO : ACT_HANDLER;
}

/* The action from before pmon, for SIG (slot I), or with DFL the default
 * action; 1 when it is the default action, taken once the handler
 * returns. */
static int chain(int i, int sig, siginfo_t *si, void *uc, int dfl)
{
  const struct sigaction *o = &s.old[i];
  struct sigaction d;

  switch (dfl ? ACT_DFL : kind_of(o)) {
  case ACT_IGN: /* not installed over; here only if it changed since */
    return 0;
  case ACT_SIGINFO:
    o->sa_sigaction(sig, si, uc);
    return 0;
  case ACT_HANDLER:
    o->sa_handler(sig);
    return 0;
  default:
    break;
  }
  /* The default action: blocked in this handler (unless SA_NODEFER), the
   * raised signal is taken when it returns; a fault returns to the
   * faulting instruction, which is then not reached. */
  memset(&d, 0, sizeof d);
  d.sa_handler = SIG_DFL;
  sigemptyset(&d.sa_mask);
  sigaction(sig, &d, NULL);
  raise(sig);
  return 1;
}

static void on_signal(int sig, siginfo_t *si, void *uc);

/* pmon's handler is SIG's action now. */
static int ours(int sig)
{
  struct sigaction now;

  return sigaction(sig, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
         now.sa_sigaction == on_signal;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
  int saved = errno, i = index_of(sig), what = s.what, again = 0;
  int second = 0;
  sigset_t block, mask;

  if (i < 0)
    return;
  /* A one-shot action: the first signal runs it, any other the default
   * action (after pmon's work, which a second signal, on another thread,
   * would otherwise cut short). */
  if (s.old[i].sa_flags & SA_RESETHAND)
    second = atomic_exchange(&s.fired[i], 1);
  /* pmon's work, SIGTERM and SIGINT held off meanwhile. */
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &mask);
  /* Feature 1 << F is in slot F: the clock's (1) acts first. */
  if (what != 0 && getpid() == s.pid)
    for (int f = 1; f >= 0; f--)
      if ((what & (1 << f)) && (s.wanted[f] & (1u << i)) &&
          s.act[f] != NULL && s.act[f]() && s.again[f] != NULL)
        again |= 1 << f;
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  /* The one-shot action is spent: what the kernel would have left (the
   * default action, the program's flags and mask) before it runs. */
  if ((s.old[i].sa_flags & SA_RESETHAND) && !second) {
    struct sigaction d = s.old[i];

    d.sa_handler = SIG_DFL;
    sigaction(sig, &d, NULL);
  }
  errno = saved;
  /* A program's handler that returned, leaving pmon's in place: the
   * process goes on, in its phase.  (One that put the default action
   * back returns to die of it: Open MPI's for SIGSEGV does.) */
  if (!chain(i, sig, si, uc, second) && again && ours(sig)) {
    for (int f = 1; f >= 0; f--)
      if (again & (1 << f))
        s.again[f]();
    errno = saved;
  }
}

static unsigned bits_of(int feature)
{
  return feature == PMON_SIG_SPOOL ? TERM_INT : ALL_SIGS;
}

static int slot(int feature)
{
  return feature == PMON_SIG_SPOOL ? 0 : 1;
}

void pmon__signals_take(int feature, int (*act)(void), void (*again)(void))
{
  unsigned want = bits_of(feature);

  s.pid = getpid();
  for (int i = 0; i < NSIGS; i++) {
    struct sigaction sa;

    if (!(want & (1u << i)) || (s.installed & (1u << i)))
      continue;
    if (sigaction(sigs[i], NULL, &s.old[i]) != 0)
      continue;
    if (kind_of(&s.old[i]) == ACT_IGN)
      continue; /* the program's choice, inherited by what it runs */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_mask = s.old[i].sa_mask;
    /* SA_RESETHAND is the handler's to do (fired[]), after pmon's work. */
    sa.sa_flags = SA_SIGINFO | (s.old[i].sa_flags &
                                (SA_RESTART | SA_NODEFER | SA_ONSTACK));
    atomic_store(&s.fired[i], 0);
    if (sigaction(sigs[i], &sa, NULL) == 0)
      s.installed |= 1u << i;
  }
  s.act[slot(feature)] = act;
  s.again[slot(feature)] = again;
  s.wanted[slot(feature)] = want;
  s.what |= feature;
}

void pmon__signals_give(int feature)
{
  unsigned still;

  if (!(s.what & feature))
    return;
  s.what &= ~feature;
  s.wanted[slot(feature)] = 0;
  still = s.wanted[0] | s.wanted[1];
  for (int i = 0; i < NSIGS; i++) {
    if (!(s.installed & (1u << i)) || (still & (1u << i)))
      continue;
    s.installed &= ~(1u << i);
    if (ours(sigs[i]))
      sigaction(sigs[i], &s.old[i], NULL);
  }
}

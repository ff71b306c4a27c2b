/*
 * sigs.c - a program with signals of its own, for tests/signals.test.
 *
 *   sigs MODE DATAFILE [FREQFILE]
 *
 * Each mode opens DATAFILE with MPI-IO and writes a block (an I/O phase
 * opens: under PMON_IO_FREQ the clock is capped, and a long PMON_IO_GAP
 * keeps the phase open), then:
 *
 *   handlers  Before MPI_Init it handles SIGINT with SA_RESTART and
 *             SIGUSR1 in the handler's mask; after MPI_Init it handles
 *             SIGTERM.  In the phase, a thread sends SIGINT to the main
 *             thread while that waits in read() on a pipe, and writes the
 *             byte 0.3 s later.  It prints
 *               in_handler V    FREQFILE's value inside its SIGINT handler
 *               after V         FREQFILE's value once the handler returned
 *               masked 0|1      SIGUSR1 was blocked inside the handler
 *               restart 0|1     read() went on after the signal (SA_RESTART)
 *             then, after MPI_Finalize, raises SIGTERM and SIGINT and
 *             prints
 *               term N          its SIGTERM handler's calls (1)
 *               int N           its SIGINT handler's calls (2)
 *   term      prints "phase" and writes blocks until a signal ends it.
 *   segv      a write through a null pointer, in the phase.
 *   bus abrt fpe ill   raise() of that signal, in the phase (abrt by
 *             abort()).
 *   mpiabort  MPI_Abort(MPI_COMM_WORLD, 5), in the phase.
 *   exit      exit(3), in the phase, without MPI_Finalize.
 *   ignored   SIGTERM is ignored before MPI_Init; after it, prints
 *             "ignored 1" if it still is, then sends itself SIGTERM and
 *             prints "alive".
 *   termlog   SIGTERM and SIGINT get a one-shot handler before MPI_Init
 *             that writes the CLOCK_MONOTONIC instant, in ns, to
 *             DATAFILE.RANK (opened after MPI_Init) and raises the signal
 *             again, to die of it; then prints "phase" and sleeps until a
 *             signal ends it (for tests/final-write.test: pmon's handler
 *             acts before the program's, so the instant is after pmon's
 *             final write).
 *   act-KIND, act-KIND-info   SIGTERM's action is set before MPI_Init,
 *             with SA_SIGINFO in its flags for -info; 0.3 s after it the
 *             program raises SIGTERM, then again, printing (flushed) what
 *             it sees before each, so that the output and the status are
 *             those of the action, with pmon or without:
 *               dfl    SIG_DFL: it dies of the first.
 *               ign    SIG_IGN: prints "ignored 1" if it still is after
 *                      MPI_Init, and lives through both.
 *               once   a handler with SA_RESETHAND: called once ("called
 *                      N siginfo S", S 1 when the handler was given the
 *                      siginfo of the raise, - when it did not ask), then
 *                      "reset 1 flags F" (the action SIG_DFL again, F 1 when
 *                      its flags are the program's), and it dies of the
 *                      second.
 *               keep   a handler: called twice, and the program ends.
 *               left   a handler with SA_RESETHAND, raised once before
 *                      MPI_Init: the kernel has left SIG_DFL with the
 *                      program's flags; it dies of the first.
 *
 * Exit status 0 when it gets to the end, 1 on an MPI error, 2 on bad use.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#define BLOCK 65536

static char block[BLOCK];
static const char *freq_file;
static volatile sig_atomic_t n_int, n_term, masked;
static char in_handler[32] = "none";
static int pipe_fd[2];
static volatile sig_atomic_t n_act, info_ok = -1;
static volatile sig_atomic_t log_fd = -1;

/* termlog: the instant, then the signal's default action. */
static void on_log(int sig)
{
  struct timespec t;
  char buf[32], *p = buf + sizeof buf;
  unsigned long long ns;

  clock_gettime(CLOCK_MONOTONIC, &t);
  ns = (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
  *--p = '\n';
  do
    *--p = (char)('0' + ns % 10);
  while ((ns /= 10) != 0);
  if (log_fd >= 0 && write(log_fd, p, (size_t)(buf + sizeof buf - p)) < 0)
    log_fd = -1;
  raise(sig); /* SIG_DFL again (SA_RESETHAND): taken on return */
}

static void on_act(int sig)
{
  (void)sig;
  n_act++;
}

static void on_act_info(int sig, siginfo_t *si, void *uc)
{
  n_act++;
  info_ok = sig == SIGTERM && si != NULL && si->si_signo == SIGTERM &&
            si->si_pid == getpid() && uc != NULL;
}

/* act-KIND[-info]: SIGTERM's action before MPI_Init (*FLAGS its flags). */
static int set_action(const char *kind, int *flags)
{
  int info = strstr(kind, "-info") != NULL;
  struct sigaction sa;

  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = info ? SA_SIGINFO : 0;
  if (strncmp(kind, "dfl", 3) == 0)
    sa.sa_handler = SIG_DFL;
  else if (strncmp(kind, "ign", 3) == 0)
    sa.sa_handler = SIG_IGN;
  else if (strncmp(kind, "once", 4) == 0 || strncmp(kind, "keep", 4) == 0 ||
           strncmp(kind, "left", 4) == 0) {
    if (info)
      sa.sa_sigaction = on_act_info;
    else
      sa.sa_handler = on_act;
    if (kind[0] != 'k')
      sa.sa_flags |= SA_RESETHAND;
  } else
    return -1;
  *flags = sa.sa_flags;
  if (sigaction(SIGTERM, &sa, NULL) != 0)
    return -1;
  if (kind[0] == 'l') { /* the kernel resets it: SIG_DFL, flags kept */
    raise(SIGTERM);
    n_act = 0;
    info_ok = -1;
  }
  return 0;
}

/* What act-KIND sees: before each raise, and after the second. */
static void act_raise(const char *kind, int flags)
{
  struct sigaction now;

  if (strncmp(kind, "ign", 3) == 0) {
    sigaction(SIGTERM, NULL, &now);
    printf("ignored %d\n", now.sa_handler == SIG_IGN);
  }
  printf("raise 1\n");
  fflush(stdout);
  raise(SIGTERM);
  printf("called %d siginfo %s\n", (int)n_act,
         info_ok < 0 ? "-" : info_ok ? "1" : "0");
  if (strncmp(kind, "once", 4) == 0) {
    sigaction(SIGTERM, NULL, &now);
    /* SA_RESTORER is the C library's own, with or without pmon. */
    printf("reset %d flags %d\n", now.sa_handler == SIG_DFL,
           ((now.sa_flags ^ flags) & ~0x04000000) == 0);
  }
  printf("raise 2\n");
  fflush(stdout);
  raise(SIGTERM);
  printf("called %d\n", (int)n_act);
  fflush(stdout);
}

/* FREQFILE's value, or "none". */
static void read_freq(char *buf, size_t size)
{
  int fd = freq_file != NULL ? open(freq_file, O_RDONLY) : -1;
  ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

  if (fd >= 0)
    close(fd);
  if (n <= 0)
    n = (ssize_t)strlen(strcpy(buf, "none"));
  buf[n] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
}

static void on_int(int sig)
{
  sigset_t now;

  (void)sig;
  if (n_int++ == 0) {
    read_freq(in_handler, sizeof in_handler);
    if (pthread_sigmask(SIG_SETMASK, NULL, &now) == 0)
      masked = sigismember(&now, SIGUSR1);
  }
}

static void on_term(int sig)
{
  (void)sig;
  n_term++;
}

static void *poke(void *arg)
{
  pthread_t main_thread = *(pthread_t *)arg;
  struct timespec t = {0, 100000000};

  nanosleep(&t, NULL);
  pthread_kill(main_thread, SIGINT);
  t.tv_nsec = 300000000;
  nanosleep(&t, NULL);
  if (write(pipe_fd[1], "x", 1) != 1)
    perror("sigs: write");
  return NULL;
}

static int handlers(void)
{
  pthread_t t, self = pthread_self();
  char c, after[32];
  ssize_t n;

  if (pipe(pipe_fd) != 0 || pthread_create(&t, NULL, poke, &self) != 0)
    return 1;
  n = read(pipe_fd[0], &c, 1);
  pthread_join(t, NULL);
  read_freq(after, sizeof after);
  printf("in_handler %s\nafter %s\nmasked %d\nrestart %d\n", in_handler,
         after, (int)masked, n == 1);
  return 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 2 ? argv[1] : "";
  struct sigaction sa;
  MPI_File fh;
  MPI_Status st;
  int rank, rc = 0, act_flags = 0;

  if (argc < 3) {
    fprintf(stderr, "usage: sigs MODE DATAFILE [FREQFILE]\n");
    return 2;
  }
  freq_file = argc > 3 ? argv[3] : NULL;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  if (strcmp(mode, "handlers") == 0) {
    sa.sa_handler = on_int;
    sigaddset(&sa.sa_mask, SIGUSR1);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
  } else if (strcmp(mode, "ignored") == 0) {
    sa.sa_handler = SIG_IGN;
    sigaction(SIGTERM, &sa, NULL);
  } else if (strcmp(mode, "termlog") == 0) {
    sa.sa_handler = on_log;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
  } else if (strncmp(mode, "act-", 4) == 0 &&
             set_action(mode + 4, &act_flags) != 0) {
    fprintf(stderr, "sigs: %s: no such mode\n", mode);
    return 2;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (strcmp(mode, "handlers") == 0) {
    struct sigaction t;

    memset(&t, 0, sizeof t);
    t.sa_handler = on_term;
    sigemptyset(&t.sa_mask);
    sigaction(SIGTERM, &t, NULL);
  }
  if (MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_WRONLY,
                    MPI_INFO_NULL, &fh) != MPI_SUCCESS ||
      MPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, block, BLOCK, MPI_BYTE,
                        &st) != MPI_SUCCESS)
    return 1;
  fflush(stdout);
  if (strcmp(mode, "handlers") == 0) {
    rc = handlers();
  } else if (strcmp(mode, "termlog") == 0) {
    char path[4096];

    snprintf(path, sizeof path, "%s.%d", argv[2], rank);
    log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    printf("phase\n");
    fflush(stdout);
    for (;;)
      pause();
  } else if (strcmp(mode, "term") == 0) {
    printf("phase\n");
    fflush(stdout);
    for (;;)
      MPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, block, BLOCK, MPI_BYTE,
                        &st);
  } else if (strcmp(mode, "segv") == 0) {
    *(volatile int *)(uintptr_t)argc = 0; /* argc is small: unmapped */
  } else if (strcmp(mode, "bus") == 0) {
    raise(SIGBUS);
  } else if (strcmp(mode, "abrt") == 0) {
    abort();
  } else if (strcmp(mode, "fpe") == 0) {
    raise(SIGFPE);
  } else if (strcmp(mode, "ill") == 0) {
    raise(SIGILL);
  } else if (strcmp(mode, "mpiabort") == 0) {
    MPI_Abort(MPI_COMM_WORLD, 5);
  } else if (strcmp(mode, "exit") == 0) {
    exit(3);
  } else if (strncmp(mode, "act-", 4) == 0) {
    struct timespec t = {0, 300000000};

    nanosleep(&t, NULL);
    act_raise(mode + 4, act_flags);
  } else if (strcmp(mode, "ignored") == 0) {
    struct sigaction now;

    sigaction(SIGTERM, NULL, &now);
    printf("ignored %d\n", !(now.sa_flags & SA_SIGINFO) &&
                               now.sa_handler == SIG_IGN);
    kill(getpid(), SIGTERM);
    printf("alive\n");
  } else {
    fprintf(stderr, "sigs: %s: no such mode\n", mode);
    return 2;
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  if (strcmp(mode, "handlers") == 0) {
    raise(SIGTERM);
    raise(SIGINT);
    printf("term %d\nint %d\n", (int)n_term, (int)n_int);
  }
  return rc;
}

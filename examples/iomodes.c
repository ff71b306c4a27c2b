/*
 * iomodes.c - a compute-bound iterative MPI kernel with periodic output,
 * in the three I/O approaches of the Damaris energy study (Dorier et al.,
 * FGCS 2016), for "make model-demo" and the tests.
 *
 *   mpirun -n P ./iomodes [--approach A] [--ppn C] [--iters N] [--work S]
 *                         [--every N] [--size BYTES] [--dir DIR]
 *                         [--idle S] [--nice N]
 *
 *   --approach A   none (default): no output at all, for calibration;
 *                  tp: time partitioning, every rank computes, then all
 *                  write together with collective MPI-IO
 *                  (MPI_File_write_at_all) into one shared file;
 *                  dc:K: dedicated cores, the last K ranks of each node
 *                  only receive the data of the node's other ranks and
 *                  write it (local rank l sends to local rank
 *                  C - K + l mod K);
 *                  dn:S:1: dedicated nodes, the nodes go S+1 at a time
 *                  and the last of each group only receives the data of
 *                  the compute ranks of the S others and writes it (local
 *                  rank l of a compute node sends to local rank l of its
 *                  group's dedicated node, so S ranks to each)
 *   --ppn C        ranks per node, placed in blocks: the node of world
 *                  rank r is r / C (as tests/nodes.test sets PMON_NODE);
 *                  P must be a multiple of C; required by dc and dn; by
 *                  default the whole job is one node
 *   --iters N      iterations (10)
 *   --work S       seconds of one core's compute per iteration for the
 *                  whole job (1.0), in strong scaling: each compute rank
 *                  computes for S / (compute ranks) seconds per iteration
 *   --every N      output every N iterations (2)
 *   --size BYTES   bytes each compute rank outputs each time (1M; K, M
 *                  and G suffixes are powers of 1024)
 *   --dir DIR      where the files go (.); they are removed at the end
 *   --idle S       no kernel: every rank sleeps S seconds inside the
 *                  region "run", to calibrate the power of idle nodes;
 *                  only with --approach none
 *   --nice N       the compute ranks' main threads lower their priority by
 *                  N (0 to 19; 0, the default, leaves it): on a machine
 *                  with fewer cores than ranks, a dedicated rank that wakes
 *                  to test its messages then gets a CPU at once, as it
 *                  would on a core of its own, instead of waiting in the
 *                  run queue behind them (see model-demo.sh)
 *
 * An iteration of a compute rank is the region "compute": a stencil sweep
 * over its array, then the exchange of its edge values with its two
 * neighbours (a ring of the compute ranks) and an MPI_Allreduce of the
 * arrays' sums among the compute ranks.  The compute step is paced by the
 * clock, NOT by an amount of arithmetic: the rank sweeps its array in
 * small chunks until its share of the step, S / (compute ranks) seconds,
 * has passed on CLOCK_MONOTONIC.  So a rank is busy (running, or runnable
 * and waiting for a CPU) for as long as it would be on a core of its own,
 * and N emulated nodes of C ranks behave as N * C cores even when they
 * share the two cores of a small machine; the arithmetic itself only keeps the
 * CPU busy.  The time of an iteration therefore scales perfectly with the
 * compute ranks, and nothing here measures how fast this machine computes.
 *
 * The output of a compute rank, every N iterations, is the region "io":
 * with tp, its BYTES at its own place in the shared file
 * DIR/iomodes-tp.dat (one collective call of all ranks); with dc and dn
 * an MPI_Isend of its BYTES to its dedicated rank, after which it goes on
 * computing (it completes the send while it computes, and waits for it
 * only before it reuses the buffer).  A dedicated rank posts an
 * MPI_Irecv per rank that sends to it and tests them (MPI_Testsome),
 * sleeping 1 ms between tests (a blocking MPI_Recv busy-polls in Open MPI
 * and would keep its core 100 % busy), and writes each message with
 * pwrite, in the region "io", into a file of its own,
 * DIR/iomodes-RANK.dat.  The whole iteration loop is the region "run" on
 * every rank, dedicated ones included.
 *
 * The data are the bytes of the rank's array.  At the end the bytes
 * written are checked: the sizes of the files add up to (compute ranks)
 * * (iterations / N) * BYTES, or the exit status is 1.
 * Rank 0 prints one line:
 *
 *   iomodes: approach dc:1, nodes 2, ppn 4, compute ranks 6,
 *     iterations 10, 2.512 s, 31457280 bytes written,
 *     dedicated ranks busy 4.2 %
 *
 * (on one line), the seconds being those of the region "run" of the
 * slowest rank, the share the mean of the dedicated ranks' CPU time
 * (CLOCK_THREAD_CPUTIME_ID) over their time in "run": what
 * pmon-report model --dedicated-busy takes (pmon-model(7)).  A bad argument gets one line from rank 0 and exit
 * status 2; an MPI or file error ends the job (MPI_Abort).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"
#include "pmon.h"

#define PROG "iomodes"
#define POINTS 32768 /* the array of a compute rank, ghosts excepted */
#define CHUNK 1024   /* points swept between two looks at the clock */
#define POLL_NS 1000000L /* a dedicated rank's sleep between tests */
#define PROGRESS_S 0.001 /* how often a computing rank tests its sends */

enum approach { NONE, TP, DC, DN };

struct opts {
  enum approach approach;
  int k; /* dc:K: dedicated ranks per node; dn:S:1: compute nodes S */
  int ppn, iters, every, nice;
  double work, idle;
  long long size;
  const char *dir, *name; /* name: the approach as given */
};

static int rank, size;

/* The CPU time of the calling thread, in seconds. */
static double cpu_now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* For a bad argument: "iomodes: WHAT "ARG": WHY" on rank 0 (without ARG
 * when it is NULL); returns -1. */
static int bad(const char *what, const char *arg, const char *why)
{
  if (rank == 0)
    fprintf(stderr, PROG ": %s%s%s%s: %s\n", what, arg ? " \"" : "",
            arg ? arg : "", arg ? "\"" : "", why);
  return -1;
}

/* A whole number from MIN to INT_MAX, else -1. */
static int parse_int(const char *s, int min)
{
  char *end;
  long v;

  errno = 0;
  v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno != 0 || v < min || v > INT_MAX)
    return -1;
  return (int)v;
}

/* A number of seconds, finite and above 0, else -1. */
static double parse_seconds(const char *s)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(s, &end);
  if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v <= 0)
    return -1;
  return v;
}

/* Read the approach S into O; -1 after a line on rank 0 when it is bad. */
static int parse_approach(struct opts *o, const char *s)
{
  int a, b, n = 0;

  o->name = s;
  if (strcmp(s, "none") == 0)
    o->approach = NONE;
  else if (strcmp(s, "tp") == 0)
    o->approach = TP;
  else if (sscanf(s, "dc:%d%n", &a, &n) == 1 && s[n] == '\0' && a >= 1) {
    o->approach = DC;
    o->k = a;
  } else if (sscanf(s, "dn:%d:%d%n", &a, &b, &n) == 2 && s[n] == '\0' &&
             a >= 1 && b >= 1) {
    if (b != 1)
      return bad("--approach", s, "one dedicated node per group only "
                                  "(dn:S:1)");
    o->approach = DN;
    o->k = a;
  } else
    return bad("--approach", s, "not none, tp, dc:K or dn:S:1 (K, S 1 or "
                                "more)");
  return 0;
}

/* Read the options into O; -1 after a line on rank 0 when they are bad
 * or do not fit the job's SIZE ranks. */
static int parse(int argc, char **argv, struct opts *o)
{
  static const char *const known[] = {"--approach", "--ppn", "--iters",
                                      "--every", "--work", "--idle",
                                      "--size", "--dir", "--nice"};

  *o = (struct opts){.approach = NONE, .name = "none", .iters = 10,
                     .every = 2, .work = 1.0, .size = 1 << 20, .dir = ".",
                     .ppn = 0, .idle = 0, .nice = 0};
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int is_known = 0;

    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
      is_known |= strcmp(opt, known[k]) == 0;
    if (!is_known)
      return bad(opt, NULL, "unknown option");
    if (v == NULL)
      return bad(opt, NULL, "its value is missing");
    i++;
    if (strcmp(opt, "--approach") == 0) {
      if (parse_approach(o, v) != 0)
        return -1;
    } else if (strcmp(opt, "--ppn") == 0) {
      if ((o->ppn = parse_int(v, 1)) < 0)
        return bad("--ppn", v, "not a whole number of ranks, 1 or more");
    } else if (strcmp(opt, "--iters") == 0) {
      if ((o->iters = parse_int(v, 1)) < 0)
        return bad("--iters", v, "not a whole number, 1 or more");
    } else if (strcmp(opt, "--every") == 0) {
      if ((o->every = parse_int(v, 1)) < 0)
        return bad("--every", v, "not a whole number, 1 or more");
    } else if (strcmp(opt, "--work") == 0) {
      if ((o->work = parse_seconds(v)) < 0)
        return bad("--work", v, "not a number of seconds above 0");
    } else if (strcmp(opt, "--idle") == 0) {
      if ((o->idle = parse_seconds(v)) < 0)
        return bad("--idle", v, "not a number of seconds above 0");
    } else if (strcmp(opt, "--size") == 0) {
      if ((o->size = ex_parse_count(v, INT_MAX)) < 0)
        return bad("--size", v, "not a byte count from 1 to 2G - 1 (K, M "
                                "and G suffixes)");
    } else if (strcmp(opt, "--nice") == 0) {
      if ((o->nice = parse_int(v, 0)) < 0 || o->nice > 19)
        return bad("--nice", v, "not a whole number from 0 to 19");
    } else
      o->dir = v;
  }
  if (o->idle > 0 && o->approach != NONE)
    return bad("--idle", NULL, "goes with --approach none only");
  if (o->ppn == 0) {
    if (o->approach == DC || o->approach == DN)
      return bad("--approach", o->name, "needs --ppn to place the "
                                        "dedicated ranks");
    o->ppn = size;
  }
  if (size % o->ppn != 0) {
    char arg[16], why[128];

    snprintf(arg, sizeof arg, "%d", o->ppn);
    snprintf(why, sizeof why, "the job's %d ranks are not whole nodes of %d",
             size, o->ppn);
    return bad("--ppn", arg, why);
  }
  if (o->approach == DC && o->k >= o->ppn) {
    char why[128];

    snprintf(why, sizeof why, "%d dedicated cores leave no compute rank on "
                              "a node of %d", o->k, o->ppn);
    return bad("--approach", o->name, why);
  }
  if (o->approach == DN && (size / o->ppn) % (o->k + 1) != 0) {
    char why[128];

    snprintf(why, sizeof why, "the job's %d nodes are not whole groups of "
                              "%d (%d compute + 1 dedicated)",
             size / o->ppn, o->k + 1, o->k);
    return bad("--approach", o->name, why);
  }
  if (o->approach != NONE && o->every > o->iters) {
    char arg[16], why[128];

    snprintf(arg, sizeof arg, "%d", o->every);
    snprintf(why, sizeof why, "more than the %d iterations, so nothing would "
                              "be written", o->iters);
    return bad("--every", arg, why);
  }
  return 0;
}

/* The dedicated rank world rank R sends its output to, R itself when it
 * is a dedicated rank, -1 when there is none (none, tp). */
static int target(const struct opts *o, int r)
{
  int node = r / o->ppn, local = r % o->ppn;

  switch (o->approach) {
  case DC: {
    int ncomp = o->ppn - o->k;

    if (local >= ncomp)
      return r;
    return node * o->ppn + ncomp + local % o->k;
  }
  case DN: {
    int first = node - node % (o->k + 1), ded = first + o->k;

    if (node == ded)
      return r;
    return ded * o->ppn + local; /* S compute ranks to each */
  }
  default:
    return -1;
  }
}

/* Write LEN bytes of BUF at OFFSET of FD, all of them, or end the job. */
static void write_all(int fd, const char *buf, size_t len, off_t offset,
                      const char *path)
{
  while (len > 0) {
    ssize_t n = pwrite(fd, buf, len, offset);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, PROG ": rank %d: pwrite %s: %s\n", rank, path,
              n < 0 ? strerror(errno) : "wrote nothing");
      ex_fail();
    }
    buf += n;
    len -= (size_t)n;
    offset += n;
  }
}

/* One sweep of points [FROM, TO) of U (ghosts at 0 and POINTS + 1). */
static void sweep(double *u, int from, int to)
{
  for (int i = from; i < to; i++)
    u[i + 1] = 0.25 * u[i] + 0.5 * u[i + 1] + 0.25 * u[i + 2];
}

/* Sweep U for SECONDS of the clock, testing the NREQ requests REQ now and
 * then so that the sends in flight move on. */
static void compute(double *u, double seconds, MPI_Request *req, int nreq)
{
  static int pos;
  double t0 = now(), t, tested = t0;

  do {
    sweep(u, pos, pos + CHUNK);
    pos = (pos + CHUNK) % POINTS;
    t = now();
    if (nreq > 0 && t - tested >= PROGRESS_S) {
      int flag;

      ex_check(MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE),
               "MPI_Testall", NULL);
      tested = t;
    }
  } while (t - t0 < seconds);
}

/* Fill BUF (LEN bytes) from U, the array's bytes over and over. */
static void fill(char *buf, long long len, const double *u)
{
  const char *src = (const char *)(u + 1);
  size_t n = POINTS * sizeof *u;

  for (long long off = 0; off < len; off += (long long)n)
    memcpy(buf + off, src, (size_t)(len - off < (long long)n ? len - off
                                                              : (long long)n));
}

/* The run of a compute rank: ITERS iterations on COMP (the compute ranks),
 * output as the approach says.  The bytes it wrote itself (tp) go to
 * *WRITTEN. */
static void run_compute(const struct opts *o, MPI_Comm comp, MPI_File fh,
                        long long *written)
{
  double *u = malloc((POINTS + 2) * sizeof *u);
  char *buf[2] = {NULL, NULL};
  MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int crank, ncomp, left, right, dest = target(o, rank), out = 0;
  double share;

  MPI_Comm_rank(comp, &crank);
  MPI_Comm_size(comp, &ncomp);
  share = o->work / ncomp;
  left = (crank + ncomp - 1) % ncomp;
  right = (crank + 1) % ncomp;
  for (int b = 0; b < (o->approach == NONE ? 0 : dest >= 0 ? 2 : 1); b++)
    buf[b] = malloc((size_t)o->size);
  if (u == NULL || (o->approach != NONE && buf[0] == NULL) ||
      (dest >= 0 && buf[1] == NULL)) {
    fprintf(stderr, PROG ": rank %d: out of memory\n", rank);
    ex_fail();
  }
  for (int i = 0; i < POINTS + 2; i++)
    u[i] = (double)(ex_mix((uint64_t)rank * POINTS + (uint64_t)i) >> 11) *
           0x1p-53;
  *written = 0;
  for (int it = 0; it < o->iters; it++) {
    double sum = 0, total;

    pmon_region_begin("compute");
    compute(u, share, req, dest >= 0 ? 2 : 0);
    ex_check(MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[POINTS + 1], 1,
                          MPI_DOUBLE, right, 1, comp, MPI_STATUS_IGNORE),
             "MPI_Sendrecv", NULL);
    ex_check(MPI_Sendrecv(&u[POINTS], 1, MPI_DOUBLE, right, 2, &u[0], 1,
                          MPI_DOUBLE, left, 2, comp, MPI_STATUS_IGNORE),
             "MPI_Sendrecv", NULL);
    for (int i = 1; i <= POINTS; i++)
      sum += u[i];
    ex_check(MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, comp),
             "MPI_Allreduce", NULL);
    pmon_region_end("compute");
    if (o->approach == NONE || (it + 1) % o->every != 0)
      continue;
    pmon_region_begin("io");
    if (o->approach == TP) {
      MPI_Offset at = ((MPI_Offset)out * ncomp + crank) * o->size;

      fill(buf[0], o->size, u);
      ex_check(MPI_File_write_at_all(fh, at, buf[0], (int)o->size, MPI_BYTE,
                                     MPI_STATUS_IGNORE),
               "MPI_File_write_at_all", NULL);
      *written += o->size;
    } else {
      int b = out % 2;

      ex_check(MPI_Wait(&req[b], MPI_STATUS_IGNORE), "MPI_Wait", NULL);
      fill(buf[b], o->size, u);
      ex_check(MPI_Isend(buf[b], (int)o->size, MPI_BYTE, dest, out,
                         MPI_COMM_WORLD, &req[b]),
               "MPI_Isend", NULL);
    }
    out++;
    pmon_region_end("io");
  }
  ex_check(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "MPI_Waitall", NULL);
  free(buf[0]);
  free(buf[1]);
  free(u);
}

/* The run of a dedicated rank: receive NOUT outputs of each rank that
 * sends to it, write each at its place in its own file PATH.  The file's
 * size at the end goes to *WRITTEN. */
static void run_dedicated(const struct opts *o, int nout, const char *path,
                          long long *written)
{
  int nsend = 0, left, *from, *step, *idx, fd;
  MPI_Request *req;
  MPI_Status *st;
  char **buf;
  struct stat sb;
  const struct timespec poll = {0, POLL_NS};

  for (int r = 0; r < size; r++)
    nsend += r != rank && target(o, r) == rank;
  from = malloc((size_t)nsend * sizeof *from);
  step = calloc((size_t)nsend, sizeof *step);
  idx = malloc((size_t)nsend * sizeof *idx);
  req = malloc((size_t)nsend * sizeof *req);
  st = malloc((size_t)nsend * sizeof *st);
  buf = calloc((size_t)nsend, sizeof *buf);
  if (nsend > 0 && (from == NULL || step == NULL || idx == NULL ||
                    req == NULL || st == NULL || buf == NULL)) {
    fprintf(stderr, PROG ": rank %d: out of memory\n", rank);
    ex_fail();
  }
  if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
    fprintf(stderr, PROG ": rank %d: open %s: %s\n", rank, path,
            strerror(errno));
    ex_fail();
  }
  nsend = 0;
  for (int r = 0; r < size; r++)
    if (r != rank && target(o, r) == rank)
      from[nsend++] = r;
  for (int s = 0; s < nsend; s++) {
    if ((buf[s] = malloc((size_t)o->size)) == NULL) {
      fprintf(stderr, PROG ": rank %d: out of memory\n", rank);
      ex_fail();
    }
    ex_check(MPI_Irecv(buf[s], (int)o->size, MPI_BYTE, from[s], 0,
                       MPI_COMM_WORLD, &req[s]),
             "MPI_Irecv", NULL);
  }
  left = nsend * nout;
  while (left > 0) {
    int done;

    ex_check(MPI_Testsome(nsend, req, &done, idx, st), "MPI_Testsome",
             NULL);
    if (done == 0 || done == MPI_UNDEFINED) {
      nanosleep(&poll, NULL);
      continue;
    }
    for (int d = 0; d < done; d++) {
      int s = idx[d], count;

      ex_check(MPI_Get_count(&st[d], MPI_BYTE, &count), "MPI_Get_count",
               NULL);
      if (count != o->size) {
        fprintf(stderr, PROG ": rank %d: output %d of rank %d: %d bytes, "
                        "expected %lld\n", rank, step[s], from[s], count,
                o->size);
        ex_fail();
      }
      pmon_region_begin("io");
      write_all(fd, buf[s], (size_t)o->size,
                ((off_t)step[s] * nsend + s) * (off_t)o->size, path);
      pmon_region_end("io");
      left--;
      if (++step[s] < nout)
        ex_check(MPI_Irecv(buf[s], (int)o->size, MPI_BYTE, from[s], step[s],
                           MPI_COMM_WORLD, &req[s]),
                 "MPI_Irecv", NULL);
    }
  }
  if (fstat(fd, &sb) != 0 || close(fd) != 0) {
    fprintf(stderr, PROG ": rank %d: %s: %s\n", rank, path, strerror(errno));
    ex_fail();
  }
  *written = (long long)sb.st_size;
  for (int s = 0; s < nsend; s++)
    free(buf[s]);
  free(buf);
  free(st);
  free(req);
  free(idx);
  free(step);
  free(from);
}

int main(int argc, char **argv)
{
  struct opts o;
  int rc, status = 0, dedicated, ncomp = 0, nout;
  long long written = 0, total = 0;
  double t0, t, tmax, c0, busy[2], busy_sum[2] = {0, 0};
  char path[4096];
  MPI_Comm comp = MPI_COMM_NULL;
  MPI_File fh = MPI_FILE_NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ex_init(PROG);
  if (parse(argc, argv, &o) != 0)
    return ex_finish(2);
  if (!ex_is_dir(o.dir)) {
    bad("--dir", o.dir, "not a directory");
    return ex_finish(2);
  }
  /* Started by the interposition library's MPI_Init (pmon-run): fine. */
  if ((rc = pmon_init()) != 0 && rc != PMON_EALREADY && rank == 0)
    fprintf(stderr, PROG ": pmon_init: %s\n", pmon_strerror(rc));

  dedicated = target(&o, rank) == rank;
  for (int r = 0; r < size; r++)
    ncomp += target(&o, r) != r;
  if (o.idle > 0)
    ncomp = 0;
  nout = o.approach == NONE ? 0 : o.iters / o.every;
  ex_check(MPI_Comm_split(MPI_COMM_WORLD, dedicated ? MPI_UNDEFINED : 0,
                          rank, &comp),
           "MPI_Comm_split", NULL);
  if (o.approach == TP) {
    snprintf(path, sizeof path, "%s/iomodes-tp.dat", o.dir);
    if (rank == 0)
      MPI_File_delete(path, MPI_INFO_NULL); /* an old one: its length */
    ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  } else if (dedicated)
    snprintf(path, sizeof path, "%s/iomodes-%d.dat", o.dir, rank);

  /* The calling thread only (Linux): pmon's and MPI's threads keep theirs. */
  if (o.nice > 0 && !dedicated && o.idle == 0 &&
      setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + o.nice) != 0)
    fprintf(stderr, PROG ": rank %d: setpriority: %s\n", rank,
            strerror(errno));
  ex_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", NULL);
  pmon_region_begin("run");
  t0 = now();
  c0 = cpu_now();
  if (o.idle > 0) {
    struct timespec ts = {(time_t)o.idle,
                          (long)((o.idle - floor(o.idle)) * 1e9)};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
      ;
  } else if (dedicated)
    run_dedicated(&o, nout, path, &written);
  else {
    if (o.approach == TP)
      ex_check(MPI_File_open(comp, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                             MPI_INFO_NULL, &fh),
               "MPI_File_open", path);
    run_compute(&o, comp, fh, &written);
    if (o.approach == TP) {
      /* Another rank's part may still be on its way to the file when
       * this rank's MPI_File_write_at_all returns (ROMIO's aggregators
       * write their own share): the size is read once every rank has
       * closed the file, which MPI-IO's consistency rules make final. */
      ex_check(MPI_File_close(&fh), "MPI_File_close", path);
      ex_check(MPI_Barrier(comp), "MPI_Barrier", NULL);
      written = 0;
      if (rank == 0) { /* the file, once */
        struct stat sb;

        if (stat(path, &sb) != 0) {
          fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
          ex_fail();
        }
        written = (long long)sb.st_size;
      }
    }
  }
  t = now() - t0;
  busy[0] = dedicated && t > 0 ? (cpu_now() - c0) / t : 0;
  busy[1] = dedicated;
  pmon_region_end("run");

  ex_check(MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  ex_check(MPI_Reduce(&written, &total, 1, MPI_LONG_LONG, MPI_SUM, 0,
                      MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  ex_check(MPI_Reduce(busy, busy_sum, 2, MPI_DOUBLE, MPI_SUM, 0,
                      MPI_COMM_WORLD),
           "MPI_Reduce", NULL);
  if (o.approach == TP && rank == 0)
    ex_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete", path);
  else if (dedicated && unlink(path) != 0) {
    fprintf(stderr, PROG ": rank %d: unlink %s: %s\n", rank, path,
            strerror(errno));
    status = 1;
  }
  if (comp != MPI_COMM_NULL)
    MPI_Comm_free(&comp);
  pmon_finalize();
  if (rank == 0) {
    long long expect = (long long)ncomp * nout * o.size;

    printf(PROG ": approach %s%s, nodes %d, ppn %d, compute ranks %d, "
                "iterations %d, %.3f s, %lld bytes written",
           o.name, o.idle > 0 ? " (idle)" : "", size / o.ppn, o.ppn, ncomp,
           o.idle > 0 ? 0 : o.iters, tmax, total);
    if (busy_sum[1] > 0)
      printf(", dedicated ranks busy %.1f %%",
             100 * busy_sum[0] / busy_sum[1]);
    putchar('\n');
    if (total != expect) {
      fprintf(stderr, PROG ": check: %lld bytes written, expected %lld "
                      "(%d compute ranks x %d outputs x %lld bytes)\n",
              total, expect, ncomp, nout, o.size);
      status = 1;
    }
  }
  return ex_finish(status);
}

/*
 * comm_kernels - communication kernels for the tests of the communication
 * wrappers (tests/comm-*.test).
 *
 *   comm_kernels pingpong|nonblocking|alltoall|allreduce M N [SECONDS]
 *   comm_kernels threads M N SECONDS
 *   comm_kernels intercomm M
 *   comm_kernels results
 *
 * The kernels run N times on messages of M bytes, spread over SECONDS
 * (default 0: back to back; iteration i starts SECONDS x i / N after the
 * first, so that a meter's readings see the calls all along), and time
 * each call
 * themselves with MPI_Wtime(); each rank prints, for each call it made,
 *   rank R CALL TIME_S BYTES
 * with the bytes that pass through its buffers as pmon-mpiio(7) counts
 * them.  pingpong and nonblocking need 2 ranks (rank 0 and 1 exchange, the
 * others wait).  "threads" runs under MPI_THREAD_MULTIPLE: rank 0 has N
 * threads, each waiting in one MPI_Recv of M bytes (tag its index) that
 * rank 1 sends SECONDS after the start; rank 0 prints its MPI_Recv line
 * with the threads' calls' time summed, and
 *   rank 0 union TIME_S
 * the time from the first thread's call to the last one's return.
 * With COMM_KERNELS_MULTIPLE set, every kernel runs under
 * MPI_THREAD_MULTIPLE.  "results" runs every wrapped call once or more, with
 * results, statuses and error classes, and prints what it got, line by
 * line prefixed with the rank: the output must be the same with and
 * without the interception library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <time.h>

#include <mpi.h>

static int rank, size;
static double pace_s, pace_t0; /* the seconds between iterations */

/* Wait for the start of iteration I, on the CPU, as a rank that computes
 * between its calls would: a rank asleep between the calls and busy in
 * them (MPI libraries poll) would, on a machine with fewer cores than
 * processes, leave the meter's reading thread and the feeder of the test's
 * counters the CPU between the calls only, and their readings would then
 * be late in the calls, and the calls' energy low, each time. */
static void pace(int i)
{
  double until = pace_t0 + pace_s * i;

  if (pace_s > 0)
    while (MPI_Wtime() < until)
      ;
}

static void say(const char *call, double t, double bytes)
{
  printf("rank %d %s %.9f %.0f\n", rank, call, t, bytes);
}

static void pingpong(char *buf, int m, int n)
{
  double ts = 0, tr = 0, t;

  for (int i = 0; i < n && rank < 2; i++) {
    pace(i);
    if (rank == i % 2) {
      t = MPI_Wtime();
      MPI_Send(buf, m, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD);
      ts += MPI_Wtime() - t;
    } else {
      t = MPI_Wtime();
      MPI_Recv(buf, m, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      tr += MPI_Wtime() - t;
    }
  }
  /* Each rank sent every other message, then the same again the other
   * way round: N messages each way. */
  for (int i = 0; i < n && rank < 2; i++) {
    pace(n + i);
    if (rank == (i + 1) % 2) {
      t = MPI_Wtime();
      MPI_Send(buf, m, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD);
      ts += MPI_Wtime() - t;
    } else {
      t = MPI_Wtime();
      MPI_Recv(buf, m, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      tr += MPI_Wtime() - t;
    }
  }
  if (rank < 2) {
    say("MPI_Send", ts, (double)n * m);
    say("MPI_Recv", tr, (double)n * m);
  }
}

static void nonblocking(char *buf, int m, int n)
{
  char *in = malloc(m > 0 ? (size_t)m : 1);
  double ti = 0, tr = 0, tw = 0, t;
  MPI_Request rq[2];

  for (int i = 0; i < n && rank < 2; i++) {
    pace(i);
    t = MPI_Wtime();
    MPI_Irecv(in, m, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, &rq[0]);
    tr += MPI_Wtime() - t;
    t = MPI_Wtime();
    MPI_Isend(buf, m, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, &rq[1]);
    ti += MPI_Wtime() - t;
    t = MPI_Wtime();
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    tw += MPI_Wtime() - t;
  }
  if (rank < 2) {
    say("MPI_Isend", ti, (double)n * m);
    say("MPI_Irecv", tr, (double)n * m);
    say("MPI_Waitall", tw, 0);
  }
  free(in);
}

static void alltoall(int m, int n)
{
  char *s = calloc((size_t)size, (size_t)m), *r = calloc((size_t)size, (size_t)m);
  double t = 0, t0;

  for (int i = 0; i < n; i++) {
    pace(i);
    t0 = MPI_Wtime();
    MPI_Alltoall(s, m, MPI_BYTE, r, m, MPI_BYTE, MPI_COMM_WORLD);
    t += MPI_Wtime() - t0;
  }
  say("MPI_Alltoall", t, 2.0 * n * size * m);
  free(s);
  free(r);
}

static void allreduce(char *buf, int m, int n)
{
  char *r = malloc(m > 0 ? (size_t)m : 1);
  double t = 0, t0;

  for (int i = 0; i < n; i++) {
    pace(i);
    t0 = MPI_Wtime();
    MPI_Allreduce(buf, r, m, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    t += MPI_Wtime() - t0;
  }
  say("MPI_Allreduce", t, 2.0 * n * m);
  free(r);
}

/* --- threads --- */

struct waiter {
  char *buf;
  int m, tag;
  double t0, t1;
};

static void *wait_one(void *arg)
{
  struct waiter *w = arg;

  w->t0 = MPI_Wtime();
  MPI_Recv(w->buf, w->m, MPI_BYTE, 1, w->tag, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  w->t1 = MPI_Wtime();
  return NULL;
}

static void threads(int m, int n, double seconds)
{
  if (rank == 0) {
    struct waiter w[16];
    pthread_t t[16];
    double sum = 0, first = 0, last = 0;

    n = n > 16 ? 16 : n;
    for (int i = 0; i < n; i++) {
      w[i].buf = calloc(m > 0 ? (size_t)m : 1, 1);
      w[i].m = m;
      w[i].tag = i;
      pthread_create(&t[i], NULL, wait_one, &w[i]);
    }
    for (int i = 0; i < n; i++) {
      pthread_join(t[i], NULL);
      sum += w[i].t1 - w[i].t0;
      first = i == 0 || w[i].t0 < first ? w[i].t0 : first;
      last = i == 0 || w[i].t1 > last ? w[i].t1 : last;
      free(w[i].buf);
    }
    say("MPI_Recv", sum, (double)n * m);
    printf("rank 0 union %.9f\n", last - first);
  } else if (rank == 1) {
    char *b = calloc(m > 0 ? (size_t)m : 1, 1);
    struct timespec ts = {(time_t)seconds,
                          (long)((seconds - (double)(time_t)seconds) * 1e9)};

    nanosleep(&ts, NULL);
    for (int i = 0; i < n && i < 16; i++)
      MPI_Send(b, m, MPI_BYTE, 0, i, MPI_COMM_WORLD);
    free(b);
  }
}

/* --- intercommunicators --- */

/*
 * 3 ranks or more.  Group A is ranks 0 and 1, group B the others, joined
 * by an intercommunicator.  In the rooted collectives A is the root's
 * group: rank 0 passes MPI_ROOT with a count of 7 and MPI_DATATYPE_NULL
 * for what is insignificant to it, rank 1 MPI_PROC_NULL with a count of 7
 * and MPI_BYTE for everything (Open MPI checks the datatype even there);
 * B passes the root's rank, 0, and 7, MPI_DATATYPE_NULL for the root's
 * arguments.  Buffers are never NULL (MPICH checks them even there).  Each rank prints each call's time and the bytes through its
 * buffers by the rule of pmon-comm(7).
 */
static void intercomm(int m)
{
  MPI_Comm local, inter;
  int a = rank < 2, lsize, rsize, me_l, *cnt, *dis, root;
  char *s, *r;
  double t;

  if (size < 3) {
    if (rank == 0)
      fprintf(stderr, "comm_kernels: intercomm needs 3 ranks or more\n");
    return;
  }
  MPI_Comm_split(MPI_COMM_WORLD, a, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 2 : 0, 9, &inter);
  MPI_Comm_size(local, &lsize);
  MPI_Comm_rank(local, &me_l);
  MPI_Comm_remote_size(inter, &rsize);
  root = a ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  s = calloc((size_t)m * 16, 1);
  r = calloc((size_t)m * 16, 1);
  cnt = malloc(16 * sizeof *cnt);
  dis = malloc(16 * sizeof *dis);
  for (int i = 0; i < 16; i++) {
    cnt[i] = m;
    dis[i] = i * m;
  }
#define TIMED(CALL, BYTES, ...)                                            \
  do {                                                                     \
    t = MPI_Wtime();                                                       \
    __VA_ARGS__;                                                           \
    say(CALL, MPI_Wtime() - t, (double)(BYTES));                           \
  } while (0)
  if (root == MPI_PROC_NULL) { /* every argument insignificant */
    TIMED("MPI_Bcast", 0, MPI_Bcast(s, 7, MPI_BYTE, root, inter));
    TIMED("MPI_Reduce", 0, MPI_Reduce(s, r, 7, MPI_BYTE,
                                      MPI_BOR, root, inter));
    TIMED("MPI_Gather", 0, MPI_Gather(s, 7, MPI_BYTE, r, 7,
                                      MPI_BYTE, root, inter));
    TIMED("MPI_Gatherv", 0, MPI_Gatherv(s, 7, MPI_BYTE, r,
                                        cnt, dis, MPI_BYTE, root,
                                        inter));
    TIMED("MPI_Scatter", 0, MPI_Scatter(s, 7, MPI_BYTE, r, 7,
                                        MPI_BYTE, root, inter));
    TIMED("MPI_Scatterv", 0, MPI_Scatterv(s, cnt, dis,
                                          MPI_BYTE, r, 7,
                                          MPI_BYTE, root, inter));
  } else if (root == MPI_ROOT) { /* receives the blocks, sends them */
    TIMED("MPI_Bcast", m, MPI_Bcast(s, m, MPI_BYTE, root, inter));
    TIMED("MPI_Reduce", m, MPI_Reduce(s, r, m, MPI_BYTE, MPI_BOR, root,
                                      inter));
    TIMED("MPI_Gather", rsize * m, MPI_Gather(s, 7, MPI_DATATYPE_NULL, r,
                                              m, MPI_BYTE, root, inter));
    TIMED("MPI_Gatherv", rsize * m, MPI_Gatherv(s, 7, MPI_DATATYPE_NULL,
                                                r, cnt, dis, MPI_BYTE, root,
                                                inter));
    TIMED("MPI_Scatter", rsize * m, MPI_Scatter(s, m, MPI_BYTE, r, 7,
                                                MPI_DATATYPE_NULL, root,
                                                inter));
    TIMED("MPI_Scatterv", rsize * m, MPI_Scatterv(s, cnt, dis, MPI_BYTE,
                                                  r, 7, MPI_DATATYPE_NULL,
                                                  root, inter));
  } else { /* group B: sends its block, receives one */
    TIMED("MPI_Bcast", m, MPI_Bcast(r, m, MPI_BYTE, root, inter));
    TIMED("MPI_Reduce", m, MPI_Reduce(s, r, m, MPI_BYTE, MPI_BOR, root,
                                      inter));
    TIMED("MPI_Gather", m, MPI_Gather(s, m, MPI_BYTE, r, 7,
                                      MPI_DATATYPE_NULL, root, inter));
    TIMED("MPI_Gatherv", m, MPI_Gatherv(s, m, MPI_BYTE, r, cnt, dis,
                                        MPI_DATATYPE_NULL, root, inter));
    TIMED("MPI_Scatter", m, MPI_Scatter(s, 7, MPI_DATATYPE_NULL, r, m,
                                        MPI_BYTE, root, inter));
    TIMED("MPI_Scatterv", m, MPI_Scatterv(s, cnt, dis,
                                          MPI_DATATYPE_NULL, r, m, MPI_BYTE,
                                          root, inter));
  }
  /* Reduce_scatter: its counts are the local group's, and the groups'
   * totals agree (A: m each, B: 2m over its ranks). */
  {
    int *rc = malloc((size_t)lsize * sizeof *rc); /* exactly: a read past
                                                      it is seen by ASan */

    for (int i = 0; i < lsize; i++)
      rc[i] = a ? m : 2 * m / lsize;
    TIMED("MPI_Reduce_scatter", 2 * m + rc[me_l],
          MPI_Reduce_scatter(s, r, rc, MPI_BYTE, MPI_BOR, inter));
    TIMED("MPI_Reduce_scatter_block", 2 * m + rc[me_l],
          MPI_Reduce_scatter_block(s, r, rc[0], MPI_BYTE, MPI_BOR, inter));
    free(rc);
  }
  TIMED("MPI_Allgather", m + rsize * m,
        MPI_Allgather(s, m, MPI_BYTE, r, m, MPI_BYTE, inter));
#undef TIMED
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  free(s);
  free(r);
  free(cnt);
  free(dis);
}

/* --- results --- */

static unsigned long sum(const void *p, size_t n)
{
  const unsigned char *s = p;
  unsigned long h = 5381;

  while (n-- > 0)
    h = h * 33 + *s++;
  return h;
}

static void st(const char *what, int rc, const MPI_Status *s)
{
  int n = -1, cls = -1;

  MPI_Error_class(rc, &cls);
  if (s != NULL && rc == MPI_SUCCESS)
    MPI_Get_count(s, MPI_INT, &n);
  printf("%d: %s: class %d source %d tag %d count %d\n", rank, what, cls,
         s != NULL && rc == MPI_SUCCESS ? s->MPI_SOURCE : -9,
         s != NULL && rc == MPI_SUCCESS ? s->MPI_TAG : -9, n);
}

static void res(const char *what, int rc, const void *p, size_t n)
{
  int cls = -1;

  MPI_Error_class(rc, &cls);
  printf("%d: %s: class %d sum %lu\n", rank, what, cls, sum(p, n));
}

static void results(void)
{
  enum { K = 8 };
  int a[K * 16], b[K * 16], c[16], d[16], cnt[16], dis[16], ix[4], flag, idx;
  int peer = (rank + 1) % size, from = (rank + size - 1) % size, rc, out;
  MPI_Datatype types[16];
  MPI_Request rq[4];
  MPI_Status s, ss[4];
  MPI_Comm comm;

  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  for (int i = 0; i < K * 16; i++)
    a[i] = rank * 1000 + i;
  for (int i = 0; i < 16; i++) {
    cnt[i] = K;
    dis[i] = i * K;
    types[i] = MPI_INT;
  }
  memset(b, 0, sizeof b);

  /* Point-to-point around a ring, each form. */
  rc = MPI_Sendrecv(a, K, MPI_INT, peer, 3, b, K, MPI_INT, from, 3, comm, &s);
  st("sendrecv", rc, &s);
  res("sendrecv data", rc, b, K * sizeof *b);
  memcpy(c, a, K * sizeof *c);
  rc = MPI_Sendrecv_replace(c, K, MPI_INT, peer, 4, from, 4, comm, &s);
  st("sendrecv_replace", rc, &s);
  res("sendrecv_replace data", rc, c, K * sizeof *c);
  if (rank % 2 == 0) {
    rc = MPI_Ssend(a, K, MPI_INT, peer, 5, comm);
    st("ssend", rc, NULL);
    rc = MPI_Recv(b, K * 2, MPI_INT, from, 5, comm, &s);
    st("recv", rc, &s);
  } else {
    rc = MPI_Recv(b, K * 2, MPI_INT, from, 5, comm, &s);
    st("recv", rc, &s);
    rc = MPI_Ssend(a, K, MPI_INT, peer, 5, comm);
    st("ssend", rc, NULL);
  }
  res("recv data", rc, b, K * sizeof *b);
  rc = MPI_Irecv(b, K, MPI_INT, from, 6, comm, &rq[0]);
  st("irecv", rc, NULL);
  rc = MPI_Isend(a, K, MPI_INT, peer, 6, comm, &rq[1]);
  st("isend", rc, NULL);
  rc = MPI_Waitany(2, rq, &idx, &s);
  printf("%d: waitany: rc %d\n", rank, rc);
  rc = MPI_Waitsome(2, rq, &out, ix, ss);
  printf("%d: waitsome: rc %d\n", rank, rc);
  res("irecv data", rc, b, K * sizeof *b);
  rc = MPI_Irecv(b, K, MPI_INT, from, 7, comm, &rq[0]);
  rc = MPI_Issend(a, K, MPI_INT, peer, 7, comm, &rq[1]);
  do
    rc = MPI_Testall(2, rq, &flag, ss);
  while (rc == MPI_SUCCESS && !flag);
  printf("%d: testall: rc %d source %d tag %d\n", rank, rc, ss[0].MPI_SOURCE,
         ss[0].MPI_TAG);
  rc = MPI_Irecv(b, K, MPI_INT, from, 8, comm, &rq[0]);
  rc = MPI_Irsend(a, 0, MPI_INT, MPI_PROC_NULL, 8, comm, &rq[2]);
  MPI_Barrier(comm);
  rc = MPI_Isend(a, K, MPI_INT, peer, 8, comm, &rq[1]);
  do
    rc = MPI_Test(&rq[1], &flag, &s);
  while (rc == MPI_SUCCESS && !flag);
  printf("%d: test: rc %d\n", rank, rc);
  do
    rc = MPI_Testany(1, rq, &idx, &flag, &s);
  while (rc == MPI_SUCCESS && !flag);
  st("testany", rc, &s);
  rc = MPI_Testsome(1, &rq[2], &out, ix, ss);
  printf("%d: testsome: rc %d out %d\n", rank, rc, out);
  rc = MPI_Wait(&rq[2], &s);
  printf("%d: wait: rc %d\n", rank, rc);

  /* Collectives, each once, with in-place forms. */
  rc = MPI_Bcast(a, K, MPI_INT, 0, comm);
  res("bcast", rc, a, K * sizeof *a);
  rc = MPI_Reduce(a, b, K, MPI_INT, MPI_SUM, 1 % size, comm);
  res("reduce", rc, b, K * sizeof *b);
  rc = MPI_Allreduce(a, b, K, MPI_INT, MPI_MAX, comm);
  res("allreduce", rc, b, K * sizeof *b);
  memcpy(b, a, K * sizeof *b);
  rc = MPI_Allreduce(MPI_IN_PLACE, b, K, MPI_INT, MPI_SUM, comm);
  res("allreduce in place", rc, b, K * sizeof *b);
  rc = MPI_Gather(a, K, MPI_INT, b, K, MPI_INT, 0, comm);
  res("gather", rc, b, (rank == 0 ? size : 1) * K * sizeof *b);
  rc = MPI_Gatherv(a, K, MPI_INT, b, cnt, dis, MPI_INT, 0, comm);
  res("gatherv", rc, b, (rank == 0 ? size : 1) * K * sizeof *b);
  rc = MPI_Scatter(a, K, MPI_INT, c, K, MPI_INT, 0, comm);
  res("scatter", rc, c, K * sizeof *c);
  rc = MPI_Scatterv(a, cnt, dis, MPI_INT, d, K, MPI_INT, 0, comm);
  res("scatterv", rc, d, K * sizeof *d);
  rc = MPI_Allgather(a, K, MPI_INT, b, K, MPI_INT, comm);
  res("allgather", rc, b, size * K * sizeof *b);
  rc = MPI_Allgatherv(a, K, MPI_INT, b, cnt, dis, MPI_INT, comm);
  res("allgatherv", rc, b, size * K * sizeof *b);
  rc = MPI_Alltoall(a, K, MPI_INT, b, K, MPI_INT, comm);
  res("alltoall", rc, b, size * K * sizeof *b);
  rc = MPI_Alltoallv(a, cnt, dis, MPI_INT, b, cnt, dis, MPI_INT, comm);
  res("alltoallv", rc, b, size * K * sizeof *b);
  for (int i = 0; i < 16; i++)
    dis[i] = i * K * (int)sizeof(int); /* bytes for Alltoallw */
  rc = MPI_Alltoallw(a, cnt, dis, types, b, cnt, dis, types, comm);
  res("alltoallw", rc, b, size * K * sizeof *b);
  for (int i = 0; i < 16; i++)
    dis[i] = i * K;
  rc = MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, comm);
  res("reduce_scatter", rc, b, K * sizeof *b);
  rc = MPI_Reduce_scatter_block(a, b, K, MPI_INT, MPI_SUM, comm);
  res("reduce_scatter_block", rc, b, K * sizeof *b);
  rc = MPI_Scan(a, b, K, MPI_INT, MPI_SUM, comm);
  res("scan", rc, b, K * sizeof *b);
  rc = MPI_Exscan(a, b, K, MPI_INT, MPI_SUM, comm);
  res("exscan", rc, b, rank > 0 ? K * sizeof *b : 0);
  rc = MPI_Ibarrier(comm, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  rc = MPI_Iallreduce(a, b, K, MPI_INT, MPI_MIN, comm, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  res("iallreduce", rc, b, K * sizeof *b);
  rc = MPI_Ialltoall(a, K, MPI_INT, b, K, MPI_INT, comm, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  res("ialltoall", rc, b, size * K * sizeof *b);
  rc = MPI_Ibcast(b, K, MPI_INT, 1 % size, comm, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  res("ibcast", rc, b, K * sizeof *b);

  /* Failing calls: the same error classes. */
  rc = MPI_Send(a, K, MPI_INT, size + 5, 0, comm);
  st("send to no rank", rc, NULL);
  rc = MPI_Recv(b, -1, MPI_INT, from, 0, comm, &s);
  st("recv of a negative count", rc, &s);
  rc = MPI_Bcast(a, K, MPI_INT, size + 5, comm);
  st("bcast from no root", rc, NULL);
  rc = MPI_Allreduce(a, b, K, MPI_DATATYPE_NULL, MPI_SUM, comm);
  st("allreduce of no type", rc, NULL);

  /* An intercommunicator: ranks 0 and 1 (0 the root, 1 MPI_PROC_NULL)
   * and the others, the rooted collectives and a Reduce_scatter. */
  if (size >= 3) {
    MPI_Comm local, inter;
    int g = rank < 2, root = g ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int ls, rs, one[16];

    MPI_Comm_split(comm, g, rank, &local);
    MPI_Intercomm_create(local, 0, comm, g ? 2 : 0, 11, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_size(local, &ls);
    MPI_Comm_remote_size(inter, &rs);
    memset(b, 0, sizeof b);
    rc = MPI_Bcast(g ? a : b, K, MPI_INT, root, inter);
    res("inter bcast", rc, b, K * sizeof *b);
    rc = MPI_Gather(a, K, MPI_INT, b, K, MPI_INT, root, inter);
    res("inter gather", rc, b, (size_t)(rank == 0 ? rs : 1) * K * sizeof *b);
    memset(b, 0, sizeof b);
    rc = MPI_Scatter(a, K, MPI_INT, b, K, MPI_INT, root, inter);
    res("inter scatter", rc, b, K * sizeof *b);
    for (int i = 0; i < ls; i++)
      one[i] = g ? K : 2 * K / ls;
    memset(b, 0, sizeof b);
    rc = MPI_Reduce_scatter(a, b, one, MPI_INT, MPI_SUM, inter);
    res("inter reduce_scatter", rc, b, (size_t)one[0] * sizeof *b);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
  }
  MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
  int m = argc > 2 ? atoi(argv[2]) : 0, n = argc > 3 ? atoi(argv[3]) : 0;
  char *buf;

  if (argc > 1 && (strcmp(argv[1], "threads") == 0 ||
                   getenv("COMM_KERNELS_MULTIPLE") != NULL)) {
    int provided = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "comm_kernels: no MPI_THREAD_MULTIPLE\n");
      MPI_Finalize();
      return 77;
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2 || size > 16 || m < 0 || n < 0) {
    if (rank == 0)
      fprintf(stderr, "usage: comm_kernels pingpong|nonblocking|alltoall|"
                      "allreduce M N [SECONDS] | results (at most 16 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  buf = calloc(m > 0 ? (size_t)m : 1, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  pace_t0 = MPI_Wtime();
  if (argc > 4 && n > 0 && strcmp(argv[1], "threads") != 0)
    pace_s = atof(argv[4]) / n;
  if (strcmp(argv[1], "pingpong") == 0)
    pingpong(buf, m, n);
  else if (strcmp(argv[1], "nonblocking") == 0)
    nonblocking(buf, m, n);
  else if (strcmp(argv[1], "alltoall") == 0)
    alltoall(m, n);
  else if (strcmp(argv[1], "allreduce") == 0)
    allreduce(buf, m, n);
  else if (strcmp(argv[1], "intercomm") == 0)
    intercomm(m);
  else if (strcmp(argv[1], "threads") == 0)
    threads(m, n, argc > 4 ? atof(argv[4]) : 1);
  else if (strcmp(argv[1], "results") == 0)
    results();
  free(buf);
  MPI_Finalize();
  return 0;
}

/*
 * slowio.c - a storage whose speed the test chooses: loaded with
 * LD_PRELOAD into a job, it makes every write(2)-like call on a file
 * under SLOWIO_PATH take SLOWIO_CALL_S + n x SLOWIO_BYTE_S seconds for
 * its n bytes (write, pwrite, pwrite64, writev, pwritev, pwritev64),
 * sleeping after the real call until then.  Whatever the MPI library's
 * I/O layer (Open MPI's OMPIO, MPICH's ROMIO) makes of an MPI_File_write,
 * its time is known, and so is its energy on a constant-power fixture
 * (tests/advise-sizes.test).  Without SLOWIO_PATH it changes nothing.
 * A call already slower than its target is not slowed further.
 *
 * With SLOWIO_SPREAD=R (0 to 0.5) each call's time is drawn: its target
 * times 1 + R u, u uniform over [-sqrt 3, sqrt 3] (mean 0, standard
 * deviation 1), from a generator seeded with SLOWIO_SEED (default 1)
 * plus the MPI rank (OMPI_COMM_WORLD_RANK or PMI_RANK): a storage whose
 * calls vary by a known spread, the same draws for the same seed
 * (tests/advise-spread.test).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The call's start when FD is a file under SLOWIO_PATH; -1 otherwise. */
static double start(int fd)
{
  const char *dir = getenv("SLOWIO_PATH");
  char link[64], path[4096];
  ssize_t n;

  if (dir == NULL || *dir == '\0')
    return -1;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink(link, path, sizeof path - 1);
  if (n <= 0)
    return -1;
  path[n] = '\0';
  return strncmp(path, dir, strlen(dir)) == 0 ? now() : -1;
}

/* The next of the seeded draws, uniform over [0, 1) (xorshift64*). */
static double draw(void)
{
  static uint64_t x;

  if (x == 0) {
    const char *s = getenv("SLOWIO_SEED"), *r = getenv("OMPI_COMM_WORLD_RANK");

    if (r == NULL)
      r = getenv("PMI_RANK");
    x = (uint64_t)(s ? atoll(s) : 1) * 0x9E3779B97F4A7C15u +
        (uint64_t)(r ? atoll(r) : 0) + 1;
  }
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  return (double)((x * 0x2545F4914F6CDD1Du) >> 11) * 0x1.0p-53;
}

/* Sleeps until T0 + (SLOWIO_CALL_S + BYTES x SLOWIO_BYTE_S) x the call's
 * draw (when T0 >= 0), keeping errno as the real call left it. */
static void finish(double t0, size_t bytes)
{
  const char *c = getenv("SLOWIO_CALL_S"), *b = getenv("SLOWIO_BYTE_S");
  const char *sp = getenv("SLOWIO_SPREAD");
  double until, left, k = 1;
  int saved = errno;

  if (t0 < 0)
    return;
  if (sp != NULL && atof(sp) > 0)
    k = 1 + atof(sp) * sqrt(3.0) * (2 * draw() - 1);
  until = t0 + ((c ? atof(c) : 0) + (double)bytes * (b ? atof(b) : 0)) * k;
  while ((left = until - now()) > 0) {
    struct timespec ts = {(time_t)left,
                          (long)((left - (double)(time_t)left) * 1e9)};
    nanosleep(&ts, NULL);
  }
  errno = saved;
}

static size_t iov_bytes(const struct iovec *iov, int n)
{
  size_t s = 0;

  for (int i = 0; i < n; i++)
    s += iov[i].iov_len;
  return s;
}

typedef ssize_t write_fn(int, const void *, size_t);
typedef ssize_t pwrite_fn(int, const void *, size_t, off_t);
typedef ssize_t pwrite64_fn(int, const void *, size_t, off64_t);
typedef ssize_t writev_fn(int, const struct iovec *, int);
typedef ssize_t pwritev_fn(int, const struct iovec *, int, off_t);
typedef ssize_t pwritev64_fn(int, const struct iovec *, int, off64_t);

/* NAME PARAMS: the next definition of NAME (libc's, looked up once)
 * called with ARGS, on file descriptor fd, paced for BYTES bytes. */
#define PACED(name, params, args, bytes)                                  \
  ssize_t name params                                                     \
  {                                                                       \
    static name##_fn *real;                                               \
    double t0 = start(fd);                                                \
    ssize_t r;                                                            \
                                                                          \
    if (real == NULL)                                                     \
      real = (name##_fn *)dlsym(RTLD_NEXT, #name);                        \
    r = real args;                                                        \
    finish(t0, bytes);                                                    \
    return r;                                                             \
  }

PACED(write, (int fd, const void *buf, size_t n), (fd, buf, n), n)
PACED(pwrite, (int fd, const void *buf, size_t n, off_t off),
      (fd, buf, n, off), n)
PACED(pwrite64, (int fd, const void *buf, size_t n, off64_t off),
      (fd, buf, n, off), n)
PACED(writev, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt),
      iov_bytes(iov, cnt))
PACED(pwritev, (int fd, const struct iovec *iov, int cnt, off_t off),
      (fd, iov, cnt, off), iov_bytes(iov, cnt))
PACED(pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t off),
      (fd, iov, cnt, off), iov_bytes(iov, cnt))

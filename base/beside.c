/*
 * beside.c - a new file beside a path (beside.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "beside.h"

int pmon__create_new(const char *before, const char *after, int mode,
                     char *tmp, size_t size)
{
  static const char digits[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  struct timespec ts;
  uint64_t x;

  clock_gettime(CLOCK_REALTIME, &ts);
  x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
      (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)tmp;
  for (int tries = 0; tries < 100; tries++) {
    char s[7];
    uint64_t z = (x += 0x9e3779b97f4a7c15u); /* splitmix64 */
    int fd;

    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u;
    z = (z ^ z >> 27) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    for (int i = 0; i < 6; i++, z /= 62)
      s[i] = digits[z % 62];
    s[6] = '\0';
    if ((size_t)snprintf(tmp, size, "%s%s%s", before, s, after) >= size) {
      errno = ENAMETOOLONG;
      return -1;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              (mode_t)mode);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

int pmon__create_beside(const char *path, int mode, char *tmp, size_t size)
{
  char before[PATH_MAX + 8];

  if ((size_t)snprintf(before, sizeof before, "%s.tmp.", path) >=
      sizeof before) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return pmon__create_new(before, "", mode, tmp, size);
}

int pmon__write_all(int fd, const char *buf, size_t len)
{
  size_t off = 0;

  while (off < len) {
    ssize_t n = write(fd, buf + off, len - off);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0) {
      errno = EIO;
      return -1;
    }
    off += (size_t)n;
  }
  return 0;
}

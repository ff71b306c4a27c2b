/*
 * createlog.c - what a file was like the moment it was made: loaded with
 * LD_PRELOAD, every open(2) that creates a file whose path contains
 * CREATELOG_MATCH appends a line "MODE PATH" to CREATELOG_FILE, MODE
 * being the new file's permission bits (octal) as fstat(2) gives them
 * right after the call, before the program can write or fchmod() it: the
 * window in which another user could open it (tests/metrics-mode.test).
 * Without both variables it changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int open_fn(const char *, int, ...);

static void note(int fd, const char *path, int flags)
{
  const char *match = getenv("CREATELOG_MATCH");
  const char *log = getenv("CREATELOG_FILE");
  struct stat st;
  char line[4200];
  int n, lfd;

  if (fd < 0 || !(flags & O_CREAT) || match == NULL || log == NULL ||
      strstr(path, match) == NULL || fstat(fd, &st) != 0)
    return;
  n = snprintf(line, sizeof line, "%03o %s\n", (unsigned)(st.st_mode & 07777),
               path);
  if ((lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0)
    return;
  if (write(lfd, line, (size_t)n) != n) {
    /* nothing to do: the test finds the line missing */
  }
  close(lfd);
}

static int call(const char *name, const char *path, int flags, mode_t mode)
{
  open_fn *real = (open_fn *)dlsym(RTLD_NEXT, name);
  int fd = real != NULL ? real(path, flags, mode) : -1;

  note(fd, path, flags);
  return fd;
}

int open(const char *path, int flags, ...)
{
  mode_t mode = 0;
  va_list ap;

  va_start(ap, flags);
  if (flags & O_CREAT)
    mode = (mode_t)va_arg(ap, int);
  va_end(ap);
  return call("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
  mode_t mode = 0;
  va_list ap;

  va_start(ap, flags);
  if (flags & O_CREAT)
    mode = (mode_t)va_arg(ap, int);
  va_end(ap);
  return call("open64", path, flags, mode);
}

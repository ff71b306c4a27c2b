/*
 * log.c - the error list, the last-error message and diagnostics.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmon.h"
#include "log.h"
#include "env.h"
#include "tty.h"

#define MSG_MAX 512

static _Thread_local char last_error[MSG_MAX];

const char *pmon_strerror(int err)
{
  switch (err) {
  case PMON_OK:
    return "success";
#define XX(name, val, msg)                                                   \
  case PMON_##name:                                                          \
    return msg;
    PMON_ERRNO_MAP(XX)
#undef XX
  default:
    return "unknown error";
  }
}

const char *pmon_err_name(int err)
{
  switch (err) {
  case PMON_OK:
    return "PMON_OK";
#define XX(name, val, msg)                                                   \
  case PMON_##name:                                                          \
    return "PMON_" #name;
    PMON_ERRNO_MAP(XX)
#undef XX
  default:
    return "PMON_EUNKNOWN";
  }
}

const char *pmon_errmsg(void)
{
  return last_error;
}

int pmon__fail(int code, const char *fmt, ...)
{
  va_list ap;
  int n = snprintf(last_error, sizeof last_error, "pmon: ");

  va_start(ap, fmt);
  vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
  va_end(ap);
  pmon__debug("%s", last_error + n);
  return code;
}

void pmon__clear_error(void)
{
  last_error[0] = '\0';
}

/* The line goes out escaped for a terminal (tty.h): what it quotes, a
 * region's name, a node's, a driver's message, is not pmon's own and
 * may hold control characters.  The line is cut at MSG_MAX bytes before
 * it is escaped, at TTY_MAX after, never inside an escape. */
#define TTY_MAX (2 * MSG_MAX)

static void vsay(const char *fmt, va_list ap)
{
  char line[MSG_MAX], out[TTY_MAX + 8];
  int n = snprintf(line, sizeof line, "pmon: ");
  int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  size_t len;

  if (m < 0)
    return;
  len = (size_t)n + (size_t)m;
  if (len > sizeof line - 1)
    len = sizeof line - 1;
  len = pmon__tty_escape_n(out, TTY_MAX, line, len);
  if (len > TTY_MAX - 1)
    len = strlen(out);
  out[len++] = '\n';
  /* One write, so that the lines of several ranks do not interleave. */
  while (write(STDERR_FILENO, out, len) < 0 && errno == EINTR)
    ;
}

void pmon__say(const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsay(fmt, ap);
  va_end(ap);
}

int pmon__debugging(void)
{
  static _Atomic int debugging = -1;

  if (debugging < 0) {
    const char *v = getenv(PMON_ENV_DEBUG);
    debugging = v != NULL && *v != '\0' && strcmp(v, "0") != 0;
  }
  return debugging;
}

void pmon__debug(const char *fmt, ...)
{
  va_list ap;

  if (!pmon__debugging())
    return;
  va_start(ap, fmt);
  vsay(fmt, ap);
  va_end(ap);
}

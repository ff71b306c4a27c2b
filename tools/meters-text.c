/*
 * meters-text.c - pmon-meters(1): the listing's wrapped text, used by the
 * listing (pmon-meters.c) and by the hints (meters-hint.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmon-meters.h"
#include "tty.h"

/* The buffers of meters_tty(), used in turn. */
#define TTY_BUFS 4
#define TTY_BUF PMON_TTY_SIZE(1024)

const char *meters_tty(const char *s)
{
  static _Thread_local char buf[TTY_BUFS][TTY_BUF];
  static _Thread_local unsigned next;
  char *b;

  if (s == NULL || pmon__tty_safe(s))
    return s;
  b = buf[next++ % TTY_BUFS];
  if (pmon__tty_escape(b, TTY_BUF - 3, s) >= TTY_BUF - 3)
    strcat(b, "...");
  return b;
}

/* The longest word meters_wrapf() can make. */
#define WORD_MAX 2048

void meters_wrap(const char *label, const char *text)
{
  int col = printf("  %-*s", METERS_INDENT - 3, label) + 1;
  const char *p = text;
  int first = 1;

  printf(" ");
  while (*p != '\0') {
    size_t n;

    if (*p == '\n') {
      printf("\n%*s", METERS_INDENT, "");
      col = METERS_INDENT;
      first = 1;
      for (p++; *p == ' '; p++)
        col += printf(" ");
      continue;
    }
    if (*p == ' ') {
      p++;
      continue;
    }
    n = strcspn(p, " \n");
    if (!first && col + 1 + (int)n > METERS_WIDTH) {
      printf("\n%*s", METERS_INDENT, "");
      col = METERS_INDENT;
    } else if (!first) {
      col += printf(" ");
    }
    {
      char word[PMON_TTY_SIZE(WORD_MAX)];

      /* Escaped: a path or a device's answer may hold anything. */
      pmon__tty_escape_n(word, sizeof word, p, n < WORD_MAX ? n : WORD_MAX);
      col += printf("%s", word);
    }
    first = 0;
    p += n;
  }
  printf("\n");
}

void meters_wrapf(const char *label, const char *fmt, ...)
{
  char buf[WORD_MAX];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  meters_wrap(label, buf);
}

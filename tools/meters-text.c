/*
 * meters-text.c - pmon-meters(1): the listing's wrapped text, used by the
 * listing (pmon-meters.c) and by the hints (meters-hint.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmon-meters.h"

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
    col += printf("%.*s", (int)n, p);
    first = 0;
    p += n;
  }
  printf("\n");
}

void meters_wrapf(const char *label, const char *fmt, ...)
{
  char buf[2048];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  meters_wrap(label, buf);
}

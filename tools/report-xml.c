/*
 * report-xml.c - what the SVG and the HTML outputs of pmon-report(1)
 * share: text from a report written safely into markup, figures in SI
 * units for people, and an output file that appears whole or not at all.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "beside.h"
#include "report.h"

/* Decodes the UTF-8 character at p into *c and returns its length in
 * bytes; a byte that does not begin a valid, shortest-form character of
 * U+0000 to U+10FFFF (surrogates excluded) decodes as U+FFFD, length 1. */
static size_t utf8_decode(const unsigned char *p, uint32_t *c) {
  static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  size_t len = *p < 0x80 ? 1 : *p >= 0xC2 && *p < 0xE0 ? 2
           : *p >= 0xE0 && *p < 0xF0 ? 3 : *p >= 0xF0 && *p < 0xF5 ? 4 : 0;
  uint32_t v;

  if (len == 1) {
    *c = *p;
    return 1;
  }
  if (len == 0)
    goto bad;
  v = *p & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80)
      goto bad;
    v = v << 6 | (p[i] & 0x3F);
  }
  if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    goto bad;
  *c = v;
  return len;
bad:
  *c = 0xFFFD;
  return 1;
}

/* Whether c may stand as it is in XML 1.0 and HTML text: not a control
 * character other than tab, line feed and carriage return, and not a
 * noncharacter. */
static int markup_char(uint32_t c) {
  if (c < 0x20)
    return c == '\t' || c == '\n' || c == '\r';
  if (c >= 0x7F && c <= 0x9F)
    return 0;
  if (c >= 0xFDD0 && c <= 0xFDEF)
    return 0;
  return (c & 0xFFFE) != 0xFFFE;
}

/* Writes the character c as UTF-8. */
static void put_utf8(FILE *out, uint32_t c) {
  if (c < 0x80) {
    putc((int)c, out);
  } else if (c < 0x800) {
    putc((int)(0xC0 | c >> 6), out);
    putc((int)(0x80 | (c & 0x3F)), out);
  } else if (c < 0x10000) {
    putc((int)(0xE0 | c >> 12), out);
    putc((int)(0x80 | (c >> 6 & 0x3F)), out);
    putc((int)(0x80 | (c & 0x3F)), out);
  } else {
    putc((int)(0xF0 | c >> 18), out);
    putc((int)(0x80 | (c >> 12 & 0x3F)), out);
    putc((int)(0x80 | (c >> 6 & 0x3F)), out);
    putc((int)(0x80 | (c & 0x3F)), out);
  }
}

void report_csv_field(FILE *out, const char *s) {
  s = report_tty(s);
  if (s == NULL || strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s ? s : "", out);
    return;
  }
  putc('"', out);
  for (; *s; s++) {
    if (*s == '"')
      putc('"', out);
    putc(*s, out);
  }
  putc('"', out);
}

size_t report_chars(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = 0;
  uint32_t c;

  while (p != NULL && *p) {
    p += utf8_decode(p, &c);
    n++;
  }
  return n;
}

void report_xml_text(FILE *out, const char *s, size_t max) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = 0, keep = max > 0 && report_chars(s) > max ? max - 1 : SIZE_MAX;
  uint32_t c;

  while (p != NULL && *p) {
    if (n++ == keep) {
      fputs("\xE2\x80\xA6", out); /* U+2026, the ellipsis */
      return;
    }
    p += utf8_decode(p, &c);
    switch (c) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&#39;", out); break;
    default: put_utf8(out, markup_char(c) ? c : 0xFFFD); break;
    }
  }
}

const char *report_si(char buf[CELL_MAX], double v, const char *unit) {
  static const char *const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  double mag = fabs(v);
  size_t p = 0;

  if (isnan(v))
    return NULL;
  while (mag >= 999.95 && p + 1 < COUNT_OF(prefixes)) {
    mag /= 1000;
    v /= 1000;
    p++;
  }
  snprintf(buf, CELL_MAX, "%.*f %s%s",
           mag >= 99.95 || (p == 0 && mag == floor(mag)) ? 0
           : mag >= 9.995 ? 1 : 2, v, prefixes[p], unit);
  return buf;
}

const char *report_duration(char buf[CELL_MAX], double s, int compact) {
  /* Hours and minutes within any job's time; seconds beyond it. */
  long long t = s >= 0 && s < 1e12 ? (long long)(s + 0.5) : 0;

  if (isnan(s))
    return NULL;
  if (t >= 3600)
    snprintf(buf, CELL_MAX, compact ? "%lldh %02lldm" : "%lld h %02lld min",
             t / 3600, t / 60 % 60);
  else if (t >= 60)
    snprintf(buf, CELL_MAX, compact ? "%lldm %02llds" : "%lld min %02lld s",
             t / 60, t % 60);
  else if (s < 1e12)
    snprintf(buf, CELL_MAX, "%.*f s", s < 10 ? 2 : 1, s);
  else
    snprintf(buf, CELL_MAX, "%.3g s", s);
  return buf;
}

/* ---- Output files ------------------------------------------------------ */

FILE *report_out_open(struct report_out *o, const char *path) {
  return report_out_open_mode(o, path, 0666);
}

FILE *report_out_open_mode(struct report_out *o, const char *path, int mode) {
  int fd;

  o->path = path;
  o->tmp[0] = '\0';
  if (strcmp(path, "-") == 0)
    return o->fp = stdout;
  if ((fd = pmon__create_beside(path, mode, o->tmp, sizeof o->tmp)) < 0) {
    fflush(stdout);
    fprintf(stderr, PROG ": %s: cannot create %s.tmp.*: %s\n", path, path,
            strerror(errno));
    o->tmp[0] = '\0';
    return o->fp = NULL;
  }
  if ((o->fp = fdopen(fd, "w")) == NULL) {
    int e = errno;
    close(fd);
    unlink(o->tmp);
    fflush(stdout);
    fprintf(stderr, PROG ": %s: cannot create: %s\n", o->tmp, strerror(e));
    o->tmp[0] = '\0';
  }
  return o->fp;
}

int report_out_close(struct report_out *o, int keep) {
  int e = 0;

  if (o->fp == NULL)
    return -1;
  errno = 0;
  if (fflush(o->fp) != 0 || ferror(o->fp))
    e = errno ? errno : EIO;
  if (o->fp == stdout) {
    o->fp = NULL;
    if (e == 0)
      return 0;
    fprintf(stderr, PROG ": standard output: write error: %s\n", strerror(e));
    return -1;
  }
  if (fclose(o->fp) != 0 && e == 0)
    e = errno ? errno : EIO;
  o->fp = NULL;
  if (keep && e == 0 && rename(o->tmp, o->path) != 0)
    e = errno;
  if (!keep || e != 0)
    unlink(o->tmp);
  if (e != 0) {
    fflush(stdout);
    fprintf(stderr, PROG ": %s: cannot write: %s\n", o->path, strerror(e));
    return -1;
  }
  return keep ? 0 : -1;
}

/*
 * tty.c - text from outside made safe for a terminal (tty.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tty.h"

/* The length of the valid UTF-8 character at the N bytes at S (N > 0),
 * 1 to 4; 0 when S[0] does not begin one (RFC 3629's table: no overlong
 * form, no surrogate, nothing past U+10FFFF, nothing cut short). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
  unsigned char lo = 0x80, hi = 0xBF;
  size_t len;

  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    len = 2;
  else if (s[0] >= 0xE0 && s[0] <= 0xEF)
    len = 3;
  else if (s[0] >= 0xF0 && s[0] <= 0xF4)
    len = 4;
  else
    return 0;
  if (s[0] == 0xE0)
    lo = 0xA0;
  else if (s[0] == 0xED)
    hi = 0x9F;
  else if (s[0] == 0xF0)
    lo = 0x90;
  else if (s[0] == 0xF4)
    hi = 0x8F;
  if (n < len || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < len; i++)
    if (s[i] < 0x80 || s[i] > 0xBF)
      return 0;
  return len;
}

/* The escape of the byte or control character at S (its LEN bytes) into
 * E (at least 7 bytes), NUL terminated; its length, 0 when it needs none. */
static size_t escape_of(const unsigned char *s, size_t len, char e[7])
{
  static const char hex[] = "0123456789abcdef";
  static const char named[] = "\aa\bb\tt\nn\vv\ff\rr\033e";
  const char *k;

  if (len == 2 && s[0] == 0xC2 && s[1] <= 0x9F) { /* C1 */
    memcpy(e, "\\u00", 4);
    e[4] = hex[s[1] >> 4];
    e[5] = hex[s[1] & 15];
    e[6] = '\0';
    return 6;
  }
  if (len == 1 && s[0] >= 0x20 && s[0] != 0x7F && s[0] < 0x80)
    return 0;
  if (len > 1)
    return 0;
  if (s[0] != 0 && (k = memchr(named, s[0], sizeof named - 1)) != NULL &&
      (k - named) % 2 == 0) {
    e[0] = '\\';
    e[1] = k[1];
    e[2] = '\0';
    return 2;
  }
  e[0] = '\\';
  e[1] = 'x';
  e[2] = hex[s[0] >> 4];
  e[3] = hex[s[0] & 15];
  e[4] = '\0';
  return 4;
}

size_t pmon__tty_escape_n(char *dst, size_t size, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t out = 0, i = 0;
  int full = 0; /* DST is full: the rest is only counted. */

  while (i < n) {
    size_t len = utf8_len(p + i, n - i);
    char e[7];
    size_t elen = escape_of(p + i, len ? len : 1, e);
    const char *piece = elen ? e : (const char *)p + i;
    size_t plen = elen ? elen : len;

    if (!full && size > 0 && out + plen < size)
      memcpy(dst + out, piece, plen);
    else if (!full) {
      full = 1;
      if (size > 0)
        dst[out] = '\0';
    }
    out += plen;
    i += len ? len : 1;
  }
  if (!full && size > 0)
    dst[out] = '\0';
  return out;
}

size_t pmon__tty_escape(char *dst, size_t size, const char *s)
{
  return pmon__tty_escape_n(dst, size, s ? s : "", s ? strlen(s) : 0);
}

int pmon__tty_safe(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t n = s ? strlen(s) : 0, i = 0;

  while (i < n) {
    size_t len = utf8_len(p + i, n - i);
    char e[7];

    if (len == 0 || escape_of(p + i, len, e) != 0)
      return 0;
    i += len;
  }
  return 1;
}

char *pmon__tty_dup(const char *s)
{
  size_t len;
  char *d;

  if (s == NULL)
    return NULL;
  len = pmon__tty_escape(NULL, 0, s);
  if ((d = malloc(len + 1)) != NULL)
    pmon__tty_escape(d, len + 1, s);
  return d;
}

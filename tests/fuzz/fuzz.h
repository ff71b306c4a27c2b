/*
 * tests/fuzz/fuzz.h - what the libFuzzer harnesses share.
 *
 * Each harness is one file, fuzz_NAME.c, built by tests/fuzz/fuzz.sh with
 * clang's -fsanitize=fuzzer,address,undefined against the library's own
 * sources.  A parser that is static in its file (a driver's) is reached by
 * including that file: the harness sees the function as the driver does,
 * and the library gains no entry point for testing.
 *
 * An input that stands for several texts (a sysfs directory, a spool
 * directory) is cut into pieces at each FUZZ_SEP line; the seed corpora in
 * tests/fuzz/NAME/ are written that way.
 */
#ifndef PMON_FUZZ_H
#define PMON_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SEP "\n%%\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_piece {
  const char *p;
  size_t n;
};

/* Cut DATA into at most MAX pieces at FUZZ_SEP; the pieces point into
 * DATA (not NUL-terminated, so that a read past one is caught).  The
 * last piece takes the rest.  Returns the number of pieces, 1 at least. */
static inline int fuzz_pieces(const uint8_t *data, size_t size,
                              struct fuzz_piece *out, int max)
{
  const char *p = (const char *)data, *end = p + size;
  size_t sl = sizeof FUZZ_SEP - 1;
  int n = 0;

  while (n < max - 1) {
    const char *q = p;

    while (q + sl <= end && memcmp(q, FUZZ_SEP, sl) != 0)
      q++;
    if (q + sl > end)
      break;
    out[n].p = p;
    out[n++].n = (size_t)(q - p);
    p = q + sl;
  }
  out[n].p = p;
  out[n++].n = (size_t)(end - p);
  return n;
}

/* PIECE as a NUL-terminated string in a new allocation of exactly its
 * length plus one (an embedded NUL ends it early, as it would a line read
 * from a device). */
static inline char *fuzz_text(const char *p, size_t n)
{
  char *s = malloc(n + 1);

  if (s == NULL)
    abort();
  memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

#endif

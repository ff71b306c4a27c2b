/*
 * tests/fuzz/fuzz_report.c - pmon-report's reader of reports: the input is
 * a report file.  What the reader accepts is then printed as every output
 * prints it (the text tables, CSV, the SVG drawing), so that a value the
 * reader lets through cannot upset a printer.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int fd = -1;
  static char path[64];
  static FILE *sink;
  struct report r;

  if (fd < 0) {
    if ((fd = memfd_create("report.json", 0)) < 0 ||
        (sink = fopen("/dev/null", "w")) == NULL)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
    abort();
  if (report_open(path, "fuzz.json", &r) != 0)
    return 0;
  report_text(sink, &r, SEC_ALL, SEC_ALL);
  report_csv(sink, &r, SEC_ALL);
  report_svg(sink, &r, "f", 1);
  report_free(&r);
  return 0;
}

/*
 * tests/fuzz/fuzz_site.c - the site file: the input is the file
 * (PMON_SITE_FILE, a memory file of mode 0600), read for the meters of two
 * node names and for the secrets a meter names.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"
#include "driver.h"
#include "fuzz.h"

static int fd = -1;

static void seen(void *arg, int lineno, const char *pattern, int match)
{
  (void)arg;
  (void)match;
  if (lineno < 1 || pattern == NULL)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const nodes[] = {"nid00012", "node0"};
  struct pmon_spec specs[PMON_METER_MAX], spec;
  int lines[PMON_METER_MAX];

  if (fd < 0) {
    char path[64];

    if ((fd = memfd_create("site.conf", 0)) < 0 || fchmod(fd, 0600) != 0)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    setenv("PMON_SITE_FILE", path, 1);
  }
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
    abort();
  for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
    int n = 0;

    if (pmon__site_meters_lines(nodes[k], specs, lines, PMON_METER_MAX, &n,
                                seen, NULL) == 0 &&
        (n < 0 || n > PMON_METER_MAX))
      abort();
    for (int i = 0; i < n; i++)
      if (lines[i] < 1 || specs[i].driver[0] == '\0')
        abort();
  }
  if (pmon__spec_parse("redfish://bmc.example/redfish/v1/Chassis/1?"
                       "secret=bmc&interval=2", &spec) != 0)
    abort();
  pmon__site_secrets(&spec);
  return 0;
}

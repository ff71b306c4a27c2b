/*
 * tests/fuzz/fuzz_spec.c - the meter specifications: one as the site file
 * and the drivers parse it (pmon__spec_parse: driver[:path][?key=value],
 * URIs with user information whose secrets are taken out), and the input
 * as a whole PMON_METERS list (pmon__meters_parse).
 */
#include "config.h"

#include <stdio.h>

#include "pmon.h"
#include "core.h"
#include "driver.h"
#include "fuzz.h"

/* Whether S, of at most MAX bytes, is a NUL-terminated string. */
static int is_string(const char *s, size_t max)
{
  return memchr(s, '\0', max) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const keys[] = {"interval", "community", "outlet",
                                     NULL};
  static struct pmon_spec spec;
  char *text = fuzz_text((const char *)data, size);

  pmon__clear_error();
  double d;

  if (pmon__spec_parse(text, &spec) == 0) {
    if (spec.driver[0] == '\0' || !is_string(spec.text, sizeof spec.text) ||
        !is_string(spec.path, sizeof spec.path) || spec.nparams < 0 ||
        spec.nparams > PMON_PARAM_MAX || spec.nsecrets < 0 ||
        spec.nsecrets > PMON_SECRET_MAX)
      abort();
    for (int i = 0; i < spec.nparams; i++)
      if (spec.params[i].key[0] == '\0')
        abort(); /* "=value" is refused */
    pmon__spec_get(&spec, "interval");
    pmon__spec_secret(&spec, "password");
    pmon__spec_double(&spec, "interval", 1, 0.001, 3600, &d);
    pmon__spec_check_keys(&spec, keys);
  } else if (pmon_errmsg()[0] == '\0') {
    abort(); /* a refusal always says why */
  }
  pmon__meters_parse(text);
  free(text);
  return 0;
}

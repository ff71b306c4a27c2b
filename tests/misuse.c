/*
 * misuse - one misuse of the API, named by the argument, for
 * tests/bad-input.test: prints "CALL RC" for the call that is wrong and,
 * on stderr, pmon_errmsg() after it, as a program would show it.
 *
 *   misuse CASE
 *
 * CASE: end-unopened, end-not-innermost, begin-null, begin-long,
 * begin-empty, init-twice, begin-uninit, finalize-uninit, read-null,
 * finalize-twice, end-null.
 */
#include <stdio.h>
#include <string.h>

#include "pmon.h"

static int show(const char *call, int rc)
{
  printf("%s %d\n", call, rc);
  if (rc != 0)
    fprintf(stderr, "%s\n", pmon_errmsg());
  return rc;
}

int main(int argc, char **argv)
{
  const char *c = argc > 1 ? argv[1] : "";
  char name[1024];
  double e, t;

  if (strcmp(c, "begin-uninit") == 0)
    return show("pmon_region_begin", pmon_region_begin("a")) == 0;
  if (strcmp(c, "finalize-uninit") == 0)
    return show("pmon_finalize", pmon_finalize()) == 0;
  if (pmon_init() != 0) {
    fprintf(stderr, "%s\n", pmon_errmsg());
    return 2;
  }
  if (strcmp(c, "end-unopened") == 0)
    show("pmon_region_end", pmon_region_end("a"));
  else if (strcmp(c, "end-not-innermost") == 0) {
    pmon_region_begin("a");
    pmon_region_begin("b");
    show("pmon_region_end", pmon_region_end("a"));
  } else if (strcmp(c, "begin-null") == 0)
    show("pmon_region_begin", pmon_region_begin(NULL));
  else if (strcmp(c, "end-null") == 0) {
    pmon_region_begin("a");
    show("pmon_region_end", pmon_region_end(NULL));
  } else if (strcmp(c, "begin-long") == 0) {
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    show("pmon_region_begin", pmon_region_begin(name));
  } else if (strcmp(c, "begin-empty") == 0)
    show("pmon_region_begin", pmon_region_begin(""));
  else if (strcmp(c, "init-twice") == 0)
    show("pmon_init", pmon_init());
  else if (strcmp(c, "read-null") == 0)
    show("pmon_read", pmon_read(NULL, &t));
  else if (strcmp(c, "finalize-twice") == 0) {
    pmon_finalize();
    show("pmon_finalize", pmon_finalize());
    return 0;
  } else {
    fprintf(stderr, "misuse: unknown case %s\n", c);
    return 2;
  }
  (void)e;
  pmon_finalize();
  return 0;
}

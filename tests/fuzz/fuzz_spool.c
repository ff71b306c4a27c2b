/*
 * tests/fuzz/fuzz_spool.c - "pmon-report rebuild", the reader of spools:
 * each piece of the input is one node's spool file (at most four, in a
 * directory of their own), rebuilt as the command does.  A report that
 * rebuild writes must be one that pmon-report reads, and rebuild must
 * never have to refuse one at its last check (what its reader of spools
 * let through would then be wrong): both are checked, and the report
 * printed.  The file is included for that flag.
 */
#include "../../tools/report-rebuild.c"

#include "fuzz.h"

static char dir[] = "/tmp/pmon-fuzz-spool.XXXXXX";

/* The directory and what the runs leave in it, at exit. */
static void remove_dir(void)
{
  char path[sizeof dir + 32];

  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/node%d.spool", dir, i);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/out.json", dir);
  unlink(path);
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char out[sizeof dir + 16];
  static FILE *sink;
  struct fuzz_piece piece[4];
  char *argv[] = {"rebuild", "-o", out, dir, NULL};
  struct report r;
  int n;

  if (sink == NULL) {
    if (mkdtemp(dir) == NULL || (sink = fopen("/dev/null", "w")) == NULL)
      abort();
    atexit(remove_dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
  }
  n = fuzz_pieces(data, size, piece, 4);
  for (int i = 0; i < 4; i++) {
    char path[sizeof dir + 32];
    FILE *f;

    snprintf(path, sizeof path, "%s/node%d.spool", dir, i);
    unlink(path);
    if (i < n && ((f = fopen(path, "wb")) == NULL ||
                  fwrite(piece[i].p, 1, piece[i].n, f) != piece[i].n ||
                  fclose(f) != 0))
      abort();
  }
  unlink(out);
  refused = 0;
  report_rebuild(4, argv);
  if (refused)
    abort(); /* a spool that read_spool() let through broke the report */
  if (access(out, F_OK) == 0) {
    if (report_open(out, "rebuilt", &r) != 0)
      abort(); /* rebuild wrote a report that pmon-report refuses */
    report_text(sink, &r, SEC_ALL, SEC_ALL);
    report_free(&r);
  }
  return 0;
}

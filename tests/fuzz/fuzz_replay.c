/*
 * tests/fuzz/fuzz_replay.c - "pmon-report replay", the reader of traces
 * (docs/trace-format.md): each piece of the input is one rank's trace
 * file of a node (at most three, in a directory of their own), replayed
 * as the command does, through the core's fold, region calls and record.
 * A report that replay writes must be one that pmon-report reads: that
 * is checked, and the report printed.  A second replay in the same
 * process must find the core's state as the first found it, which the
 * many runs of a fuzzer check.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "../../tools/report.h"

#include "fuzz.h"

static char dir[] = "/tmp/pmon-fuzz-replay.XXXXXX";

/* The directory and what the runs leave in it, at exit. */
static void remove_dir(void)
{
  char path[sizeof dir + 32];

  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/rank%d.jsonl", dir, i);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/out.json", dir);
  unlink(path);
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char out[sizeof dir + 16], path[3][sizeof dir + 32];
  static FILE *sink;
  struct fuzz_piece piece[3];
  char *argv[7] = {"replay", "-o", out};
  struct report r;
  int n;

  if (sink == NULL) {
    if (mkdtemp(dir) == NULL || (sink = fopen("/dev/null", "w")) == NULL)
      abort();
    atexit(remove_dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    for (int i = 0; i < 3; i++)
      snprintf(path[i], sizeof path[i], "%s/rank%d.jsonl", dir, i);
  }
  n = fuzz_pieces(data, size, piece, 3);
  for (int i = 0; i < n; i++) {
    FILE *f;

    if ((f = fopen(path[i], "wb")) == NULL ||
        fwrite(piece[i].p, 1, piece[i].n, f) != piece[i].n || fclose(f) != 0)
      abort();
    argv[3 + i] = path[i];
  }
  argv[3 + n] = NULL;
  unlink(out);
  report_replay(3 + n, argv);
  if (access(out, F_OK) == 0) {
    if (report_open(out, "replayed", &r) != 0)
      abort(); /* replay wrote a report that pmon-report refuses */
    report_text(sink, &r, SEC_ALL, SEC_ALL);
    report_free(&r);
  }
  return 0;
}

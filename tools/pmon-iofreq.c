/*
 * pmon-iofreq - the node's record of PMON_IO_FREQ, for a node epilog and
 * for a look (pmon-iofreq(8)).
 *
 *   pmon-iofreq [-n NODE] epilog JOBID
 *   pmon-iofreq [-n NODE] show
 *
 * It reads the record where the library writes it, with the library's
 * own code (lib/freqrec.c): one rule for both.  epilog takes JOBID out,
 * forgets the jobs whose leader is gone, and settles every CPU, only ever
 * raising a limit within its cpuinfo range (the record is the users').
 * Exit status 0, also when there is no record; 1 when it could not be
 * used (one line says why); 2 on bad use.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"
#include "freqrec.h"

static void usage(FILE *out)
{
  fprintf(out, "usage: pmon-iofreq [-n NODE] epilog JOBID\n"
               "       pmon-iofreq [-n NODE] show\n"
               "       pmon-iofreq -h | -V\n");
}

static int show(struct pmon_freqrec *r)
{
  int n = 0;

  for (int c = 0; c < PMON_CPUS_MAX; c++)
    if (r->orig[c] != 0) {
      printf("cpu %d limit before the jobs %u kHz\n", c, r->orig[c]);
      n++;
    }
  for (int i = 0; i < r->njobs; i++) {
    const struct pmon_freqrec_job *j = &r->job[i];
    int alive = pmon__freqrec_start_of(j->pid) == j->start;

    printf("job %s leader %ld%s cap %u kHz %s\n", j->id, j->pid,
           alive ? "" : " (gone)", j->cap_khz,
           j->active ? "in an I/O phase" : "out of I/O");
  }
  if (n == 0 && r->njobs == 0)
    printf("no job holds the clock\n");
  return 0;
}

int main(int argc, char **argv)
{
  struct pmon_freqrec *r;
  char node[256];
  const char *what;
  int opt, rc;

  pmon__node_name(node, sizeof node);
  while ((opt = getopt(argc, argv, "n:hV")) != -1) {
    switch (opt) {
    case 'n':
      snprintf(node, sizeof node, "%s", optarg);
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      printf("pmon-iofreq %s\n", pmon_version());
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  what = optind < argc ? argv[optind] : "";
  if (!((strcmp(what, "epilog") == 0 && argc - optind == 2) ||
        (strcmp(what, "show") == 0 && argc - optind == 1))) {
    usage(stderr);
    return 2;
  }
  if ((r = malloc(sizeof *r)) == NULL) {
    fprintf(stderr, "pmon-iofreq: out of memory\n");
    return 1;
  }
  rc = pmon__freqrec_lock(r, node, 0);
  if (rc == 1) { /* no record: nothing holds the clock */
    if (strcmp(what, "show") == 0)
      printf("no job holds the clock\n");
    free(r);
    return 0;
  }
  if (rc != 0) {
    fprintf(stderr, "%s\n", pmon_errmsg());
    free(r);
    return 1;
  }
  if (strcmp(what, "show") == 0) {
    show(r);
    rc = pmon__freqrec_unlock(r, 0);
  } else {
    struct pmon_freqrec_job *j = pmon__freqrec_find(r, argv[optind + 1]);
    int failed;

    if (j != NULL)
      pmon__freqrec_remove(r, j);
    pmon__freqrec_prune(r);
    failed = pmon__freqrec_settle(r, 1);
    rc = pmon__freqrec_unlock(r, 1);
    if (failed > 0)
      fprintf(stderr, "pmon-iofreq: %s: %d CPU limit(s) could not be "
                      "written back\n", r->path, failed);
    if (rc != 0)
      fprintf(stderr, "%s\n", pmon_errmsg());
    rc = rc != 0 || failed > 0;
  }
  free(r);
  return rc != 0;
}

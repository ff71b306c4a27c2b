/*
 * pmon-iofreq - the node's records of PMON_IO_FREQ, for a node's prolog
 * and epilog, run as root, and for a look (pmon-iofreq(8)).
 *
 *   pmon-iofreq [-n NODE] save
 *   pmon-iofreq [-n NODE] epilog JOBID
 *   pmon-iofreq [-n NODE] show
 *
 * It reads the records where the library writes them, with the
 * library's own code (lib/freqrec.c).  The jobs' record is their user's:
 * this program never writes it, and believes of it only the jobs whose
 * leader runs as its owner.  save records each CPU's limit now in the
 * caller's own file of limits (a CPU that a believed job caps keeps the
 * limit saved before); epilog raises each CPU that no believed job caps
 * back to that saved limit, never higher and never from a value a user
 * wrote, and removes a record that no running job holds.  Exit status 0
 * when done (show: also with no record), 1 when it could not be (one
 * line says why), 2 on bad use.
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
#include "tty.h"

static void usage(FILE *out)
{
  fprintf(out, "usage: pmon-iofreq [-n NODE] save\n"
               "       pmon-iofreq [-n NODE] epilog JOBID\n"
               "       pmon-iofreq [-n NODE] show\n"
               "       pmon-iofreq -h | -V\n");
}

/* CPU C is capped by a job of R that is believed, running and in a
 * phase, other than the job SKIP (NULL: none). */
static int held(const struct pmon_freqrec *r, int c, const char *skip)
{
  for (int i = 0; i < r->njobs; i++) {
    const struct pmon_freqrec_job *j = &r->job[i];

    if (j->believed && j->active && PMON_CPU_ISSET(c, j->cpus) &&
        (skip == NULL || strcmp(j->id, skip) != 0))
      return 1;
  }
  return 0;
}

static int show(const struct pmon_freqrec *r, const unsigned *lim, int nlim)
{
  int mine = r->owner == geteuid();

  if (nlim > 0) {
    printf("limits saved in %s:\n", r->limits);
    for (int c = 0; c < PMON_CPUS_MAX; c++)
      if (lim[c] != 0)
        printf("cpu %d limit %u kHz, now %u kHz\n", c, lim[c],
               pmon__freqrec_khz(c, "scaling_max_freq"));
  } else {
    printf("no limits saved (pmon-iofreq save, in the node's prolog)\n");
  }
  if (r->njobs == 0) {
    printf("no job holds the clock\n");
    return 0;
  }
  printf("record %s, uid %u's\n", r->path, (unsigned)r->owner);
  for (int c = 0; c < PMON_CPUS_MAX && mine; c++)
    if (r->orig[c] != 0)
      printf("cpu %d limit before the jobs %u kHz\n", c, r->orig[c]);
  for (int i = 0; i < r->njobs; i++) {
    const struct pmon_freqrec_job *j = &r->job[i];

    char id[PMON_TTY_SIZE(sizeof j->id)];

    pmon__tty_escape(id, sizeof id, j->id);
    printf("job %s leader %ld%s cap %u kHz %s\n", id, j->pid,
           !j->alive      ? " (gone)"
           : !j->believed ? " (not believed: not the record owner's process)"
                          : "",
           j->cap_khz, j->active ? "in an I/O phase" : "out of I/O");
  }
  return 0;
}

/* Each CPU's limit now, where no believed job caps it; the saved one
 * where one does. */
static int save(const struct pmon_freqrec *r, unsigned *lim)
{
  int n = 0;

  for (int c = 0; c < PMON_CPUS_MAX; c++) {
    unsigned now = pmon__freqrec_khz(c, "scaling_max_freq");

    if (now == 0) {
      lim[c] = 0;
      continue;
    }
    if (!held(r, c, NULL))
      lim[c] = now;
    n += lim[c] != 0;
  }
  if (n == 0) {
    fprintf(stderr, "pmon-iofreq: %s: no CPU with a scaling_max_freq under "
                    "%s/devices/system/cpu: nothing saved\n",
            r->limits, pmon__sysfs_root());
    return 1;
  }
  if (pmon__freqrec_limits_save(r, lim) != 0) {
    fprintf(stderr, "%s\n", pmon_errmsg());
    return 1;
  }
  return 0;
}

/* Every CPU that no believed job but JOB caps back up to its saved
 * limit, within its cpuinfo range; the record removed when no believed
 * job is left. */
static int epilog(struct pmon_freqrec *r, const unsigned *lim, int nlim,
                  const char *job)
{
  int failed = 0, left = 0;

  for (int c = 0; c < PMON_CPUS_MAX; c++) {
    unsigned now;

    if (lim[c] == 0 || held(r, c, job))
      continue;
    now = pmon__freqrec_khz(c, "scaling_max_freq");
    if (now != 0 && now < lim[c] &&
        lim[c] <= pmon__freqrec_khz(c, "cpuinfo_max_freq") &&
        pmon__freqrec_set_khz(c, lim[c]) != 0)
      failed++;
  }
  for (int i = 0; i < r->njobs; i++)
    left += r->job[i].believed && strcmp(r->job[i].id, job) != 0;
  if (left == 0)
    pmon__freqrec_drop(r);
  else
    pmon__freqrec_unlock(r, 0);
  if (failed > 0)
    fprintf(stderr, "pmon-iofreq: %d CPU limit(s) could not be written "
                    "back\n", failed);
  if (nlim == 0)
    fprintf(stderr, "pmon-iofreq: %s: no limits saved (pmon-iofreq save, "
                    "in the node's prolog): no CPU raised\n", r->limits);
  return failed > 0 || nlim == 0;
}

int main(int argc, char **argv)
{
  struct pmon_freqrec *r;
  unsigned *lim;
  char node[256];
  const char *what;
  int opt, rc, nlim;

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
        ((strcmp(what, "show") == 0 || strcmp(what, "save") == 0) &&
         argc - optind == 1))) {
    usage(stderr);
    return 2;
  }
  r = malloc(sizeof *r);
  lim = calloc(PMON_CPUS_MAX, sizeof *lim);
  if (r == NULL || lim == NULL) {
    fprintf(stderr, "pmon-iofreq: out of memory\n");
    free(r);
    free(lim);
    return 1;
  }
  rc = pmon__freqrec_peek(r, node);
  if (rc < 0) {
    /* An unreadable record holds no job that is believed. */
    fprintf(stderr, "%s\n", pmon_errmsg());
    r->njobs = 0;
    r->lock_fd = -1;
  }
  nlim = pmon__freqrec_limits(r, lim);
  if (nlim < 0) {
    fprintf(stderr, "%s\n", pmon_errmsg());
    nlim = 0;
  }
  if (strcmp(what, "show") == 0) {
    rc = show(r, lim, nlim);
    pmon__freqrec_unlock(r, 0);
  } else if (strcmp(what, "save") == 0) {
    rc = save(r, lim);
    pmon__freqrec_unlock(r, 0);
  } else {
    rc = epilog(r, lim, nlim, argv[optind + 1]);
  }
  free(lim);
  free(r);
  return rc != 0;
}

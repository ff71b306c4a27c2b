/*
 * serial_region - a program without MPI: one region of SECONDS seconds
 * between pmon_init and pmon_finalize.  Prints pmon's return codes.
 * It takes the locale of its environment (setlocale(LC_ALL, "")), as many
 * programs do, once it has read SECONDS.
 *   serial_region [SECONDS]
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pmon.h"

int main(int argc, char **argv)
{
  double s = argc > 1 ? atof(argv[1]) : 1.0;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  int rc;

  setlocale(LC_ALL, "");
  rc = pmon_init();

  printf("init %d\n", rc);
  pmon_region_begin("r");
  nanosleep(&ts, NULL);
  pmon_region_end("r");
  printf("finalize %d\n", pmon_finalize());
  return 0;
}

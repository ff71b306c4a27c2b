/*
 * markers.c - pmon_marker.h compiles both ways with the same arguments:
 * built once with -DPMON_MARKERS (linked with libpmon) and once without
 * (linked with nothing of pmon).  Each build runs a region and exits 0.
 */
#include <stdio.h>

#include "pmon_marker.h"

int main(void)
{
  const char *name = "marked";
  int calls = 0;

  PMON_MARKER_INIT();
  PMON_MARKER_BEGIN(name);
  calls++;
  PMON_MARKER_END(name);
  PMON_MARKER_FINALIZE();
#ifdef PMON_MARKERS
  printf("markers on: %d\n", calls);
#else
  printf("markers off: %d\n", calls);
#endif
  return calls == 1 ? 0 : 1;
}

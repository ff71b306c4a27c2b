/*
 * drivers.c - the table of built-in drivers.  The core reaches the
 * drivers through it; no driver reaches back (they stand on driver.c and
 * base/ only).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "driver.h"

extern const struct pmon_driver pmon__driver_pm_counters;
extern const struct pmon_driver pmon__driver_hwmon;
extern const struct pmon_driver pmon__driver_rapl;
extern const struct pmon_driver pmon__driver_nvml;
extern const struct pmon_driver pmon__driver_eaton;
extern const struct pmon_driver pmon__driver_keithley;
extern const struct pmon_driver pmon__driver_redfish;
extern const struct pmon_driver pmon__driver_estimate;

/*
 * In the order "auto" tries them.  Optional drivers get one #ifdef line
 * each.  The estimate is last: it is the fallback.
 */
const struct pmon_driver *const pmon__drivers[] = {
  &pmon__driver_pm_counters,
  &pmon__driver_hwmon,
  &pmon__driver_rapl,
  &pmon__driver_nvml,
#ifdef PMON_HAVE_EATON
  &pmon__driver_eaton,
#endif
#ifdef PMON_HAVE_KEITHLEY
  &pmon__driver_keithley,
#endif
#ifdef PMON_HAVE_REDFISH
  &pmon__driver_redfish,
#endif
  &pmon__driver_estimate,
  NULL
};

const struct pmon_driver *pmon__driver_find(const char *name)
{
  for (int i = 0; pmon__drivers[i] != NULL; i++)
    if (strcmp(pmon__drivers[i]->name, name) == 0)
      return pmon__drivers[i];
  return NULL;
}

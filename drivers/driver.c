/*
 * driver.c - what driver.h gives every driver beside the ground floor:
 * adding a channel to its meter, and the domains' names.  It calls
 * nothing of the core.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pmon.h"
#include "driver.h"

int pmon__meter_add_channel(struct pmon_meter *m, const char *name,
                            enum pmon_domain domain, unsigned flags,
                            double scale, uint64_t range)
{
  struct pmon_channel *c;

  if (m->nch == PMON_CH_MAX)
    return -1;
  c = &m->ch[m->nch];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name); /* cut to fit */
  c->domain = domain;
  c->flags = flags;
  c->scale = scale;
  c->range = range;
  return m->nch++;
}

static const char *const domain_names[] = {"node",  "cpu",   "memory",
                                           "accel", "other", "module"};

const char *pmon__domain_name(enum pmon_domain d)
{
  return (unsigned)d < sizeof domain_names / sizeof *domain_names
           ? domain_names[d]
           : "other";
}

int pmon__domain_parse(const char *name)
{
  for (unsigned d = 0; d < sizeof domain_names / sizeof *domain_names; d++)
    if (strcmp(name, domain_names[d]) == 0)
      return (int)d;
  return -1;
}

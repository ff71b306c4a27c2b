/*
 * spec.h - a meter specification, parsed: driver[:path][?key=value&...],
 * and the secrets that go with it (base/spec.c).  The core parses one
 * per meter of PMON_METERS and the site file; a driver reads its
 * parameters and secrets from it.
 */
#ifndef PMON_SPEC_H
#define PMON_SPEC_H

#define PMON_SPEC_MAX 512 /* a meter specification, with its NUL */
#define PMON_PARAM_MAX 16 /* key=value parameters per specification */
#define PMON_SECRET_MAX 8 /* secrets per specification */

/*
 * A parsed meter specification: driver[:path][?key=value[&key=value]].
 * A path of the form //USERINFO@HOST... (a URI's authority) loses its
 * USERINFO to the secrets: "user" (and "password" after a ':'), so that
 * TEXT and PATH, which messages and the report show, hold no secret.  The
 * site file adds more secrets (pmon-site(5)).  A driver reads them with
 * pmon__spec_secret() and never copies them anywhere that is shown.
 */
struct pmon_spec {
  char text[PMON_SPEC_MAX];   /* as written, less secrets: for messages */
  char driver[32];
  char path[PMON_SPEC_MAX];   /* "" when absent */
  int nparams;
  struct {
    char key[32];
    char value[128];
  } params[PMON_PARAM_MAX];
  int nsecrets;
  struct {
    char key[32];
    char value[256];
  } secrets[PMON_SECRET_MAX];
};

/* Parse TEXT into *SPEC.  PMON_ECONFIG with a message when malformed. */
int pmon__spec_parse(const char *text, struct pmon_spec *spec);

/* The value of parameter KEY, or NULL. */
const char *pmon__spec_get(const struct pmon_spec *spec, const char *key);

/* The secret KEY ("user", "password", "community", ...), or NULL. */
const char *pmon__spec_secret(const struct pmon_spec *spec, const char *key);

/* Add the secret KEY=VALUE to SPEC (a later one of the same KEY wins).
 * PMON_ECONFIG when there is no room; the message names KEY only. */
int pmon__spec_add_secret(struct pmon_spec *spec, const char *key,
                          const char *value);

/*
 * Parameter KEY as a number in [LO, HI] into *OUT; DEF when absent.
 * PMON_ECONFIG with a message when it is not such a number.
 */
int pmon__spec_double(const struct pmon_spec *spec, const char *key,
                      double def, double lo, double hi, double *out);

/* Fail with PMON_ECONFIG when SPEC has a parameter not in KNOWN (NULL
 * terminated) nor one that every meter takes ("accuracy"). */
int pmon__spec_check_keys(const struct pmon_spec *spec,
                          const char *const *known);

/*
 * The parameter "accuracy": the meter's accuracy as the site states it,
 * "R%", "AW" or "R%+AW" (a share of the reading and a power, added, as a
 * datasheet's +-(1 % + 2 W)), into *REL (a fraction) and *WATTS.  0 when
 * given; 1 when absent (*REL and *WATTS untouched); PMON_ECONFIG with a
 * message when malformed.
 */
int pmon__spec_accuracy(const struct pmon_spec *spec, double *rel,
                        double *watts);

#endif /* PMON_SPEC_H */

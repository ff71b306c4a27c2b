/*
 * site.c - the site file: which external meters measure which nodes, the
 * secrets they need, share models and clock calibrations (pmon-site(5)).
 *
 *   # comment
 *   meter  PATTERN  SPEC      the nodes whose name matches PATTERN (an
 *                             fnmatch(3) pattern) are measured by SPEC
 *   secret NAME KEY=VALUE...  secrets of the meters whose SPEC says
 *                             secret=NAME
 *   share  PATTERN MODEL      the share model of the nodes whose name
 *                             matches PATTERN: cpu-time or off (the
 *                             first such line; PMON_SHARE comes first)
 *   calibration PATTERN FILE  the clock calibration (pmon-meters
 *                             --calibrate-clock) of those nodes, an
 *                             absolute path (the first such line): the
 *                             node record names it for pmon-report advise
 *
 * The file is PMON_SITE_FILE, or PMON_SITECONF (set by configure from
 * $(sysconfdir)) when that is unset; a missing default file is no error.
 * A file that holds a secret (a secret line, or a meter line whose URI
 * has user information) must be readable by its owner only, and that
 * owner must be the user running the program: otherwise it is refused
 * whole, with the reason, rather than used and exposed.
 *
 * Secrets go only into struct pmon_spec's secrets, never into its text,
 * and no message here quotes a secret line.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"
#include "env.h"

#ifndef PMON_SITECONF
#define PMON_SITECONF "/etc/pmon/site.conf"
#endif

#define SITE_LINE 1024

const char *pmon__site_path(int *is_default)
{
  const char *v = getenv(PMON_ENV_SITE_FILE);

  *is_default = v == NULL || *v == '\0';
  return *is_default ? PMON_SITECONF : v;
}

/* Open the site file; *F = NULL when there is none to read.  QUIET: a
 * default file this user may not read is no event (the meters' reading
 * of it says so once). */
static int site_open(FILE **f, const char **path, int quiet)
{
  int dflt;

  *path = pmon__site_path(&dflt);
  if ((*f = fopen(*path, "r")) != NULL)
    return 0;
  if (dflt && errno == ENOENT)
    return 0;
  if (dflt && errno == EACCES && quiet)
    return 0;
  if (dflt && errno == EACCES) {
    /* The site's own business; the program runs on without it. */
    pmon__event(pmon__now_ns(), -1, "site_file",
                "%s: not readable by this user: its meters are not used",
                *path);
    return 0;
  }
  return pmon__fail(PMON_ECONFIG, "site file %s: cannot read: %s", *path,
                    strerror(errno));
}

/* The words of LINE (split in place at blanks), at most MAX; their number. */
static int words(char *line, char **w, int max)
{
  int n = 0;

  char *save = NULL;

  for (char *p = strtok_r(line, " \t\r\n", &save); p != NULL && n < max;
       p = strtok_r(NULL, " \t\r\n", &save))
    w[n++] = p;
  return n;
}

/* Whether the file F at PATH, which holds secrets, is safe to use. */
static int secrets_allowed(FILE *f, const char *path)
{
  struct stat st;

  if (fstat(fileno(f), &st) != 0)
    return pmon__fail(PMON_ECONFIG, "site file %s: cannot stat: %s", path,
                      strerror(errno));
  if ((st.st_mode & 077) != 0)
    return pmon__fail(PMON_ECONFIG,
                      "site file %s: holds secrets but is readable by "
                      "others (mode %04o): make it chmod 600",
                      path, (unsigned)(st.st_mode & 07777));
  if (st.st_uid != geteuid())
    return pmon__fail(PMON_ECONFIG,
                      "site file %s: holds secrets but belongs to another "
                      "user (uid %u)",
                      path, (unsigned)st.st_uid);
  return 0;
}

/* What a reading of the site file is after; every member may be 0. */
struct scan {
  const char *node;         /* the node whose lines are wanted */
  struct pmon_spec *specs;  /* its meter lines' specs, *n of max */
  int *lines, max, *n;      /* their line numbers, when lines != NULL */
  pmon__site_line_fn *seen; /* called for every meter line */
  void *arg;
  const char *name;         /* the secret line wanted, into spec */
  struct pmon_spec *spec;
  int *found;
  const char **model;       /* the node's share model */
  char *cal;                /* the node's clock calibration, calsize */
  size_t calsize;
};

/*
 * Read the whole file: check its syntax; with NODE, append the specs of
 * NODE's meter lines to SPECS (*N of MAX so far), their line numbers to
 * LINES when not NULL, and call SEEN (when not NULL) for every meter line;
 * with SPEC, add the secrets of the secret line named NAME to SPEC; with
 * MODEL or CAL, the node's share model or clock calibration.
 */
static int site_scan(const struct scan *q)
{
  const char *node = q->node, *name = q->name, **model = q->model;
  struct pmon_spec *specs = q->specs, *spec = q->spec;
  int *lines = q->lines, *n = q->n, max = q->max;
  char line[SITE_LINE], *w[2 + PMON_SECRET_MAX + 1];
  const char *path;
  int rc, lineno = 0, checked = 0;
  FILE *f;

  if ((rc = site_open(&f, &path, model != NULL || q->cal != NULL)) != 0 ||
      f == NULL)
    return rc;
  while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
    int nw;

    lineno++;
    if (strchr(line, '\n') == NULL && !feof(f)) {
      rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: line too long", path,
                      lineno);
      break;
    }
    nw = words(line, w, (int)(sizeof w / sizeof w[0]));
    if (nw == 0 || w[0][0] == '#')
      continue;
    if (strcmp(w[0], "meter") == 0 && nw == 3) {
      int match = node != NULL && fnmatch(w[1], node, 0) == 0;
      const char *auth = strstr(w[2], "://");

      /* A URI's user information (user:password@, community@) is a
       * secret too, whichever node the line is for. */
      if (!checked && auth != NULL && strchr(auth, '@') != NULL) {
        if ((rc = secrets_allowed(f, path)) != 0)
          break;
        checked = 1;
      }
      if (node != NULL && q->seen != NULL)
        q->seen(q->arg, lineno, w[1], match);
      /* Only a reading for the meters collects them (the share's and
       * the calibration's readings check the line's syntax above). */
      if (!match || specs == NULL)
        continue;
      if (*n == max) {
        rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: more than %d meters "
                        "for node %s", path, lineno, max, node);
      } else if ((rc = pmon__spec_parse(w[2], &specs[*n])) == 0) {
        if (pmon__driver_find(specs[*n].driver) == NULL)
          rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: meter \"%s\": "
                          "no driver \"%s\" in this build", path, lineno,
                          specs[*n].text, specs[*n].driver);
        else if (lines != NULL)
          lines[(*n)++] = lineno;
        else
          (*n)++;
      }
    } else if (strcmp(w[0], "share") == 0 && nw == 3) {
      static const char *const models[] = {"cpu-time", "off"};
      int k = 0;

      while (k < 2 && strcmp(w[2], models[k]) != 0)
        k++;
      if (k == 2)
        rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: share %.40s: "
                        "\"%.40s\": not cpu-time or off", path, lineno,
                        w[1], w[2]);
      else if (model != NULL && *model == NULL && node != NULL &&
               fnmatch(w[1], node, 0) == 0)
        *model = models[k];
    } else if (strcmp(w[0], "calibration") == 0 && nw == 3) {
      if (w[2][0] != '/')
        rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: calibration %.40s: "
                        "\"%.80s\": not an absolute path", path, lineno,
                        w[1], w[2]);
      else if (q->cal != NULL && q->cal[0] == '\0' && node != NULL &&
               fnmatch(w[1], node, 0) == 0 &&
               (size_t)snprintf(q->cal, q->calsize, "%s", w[2]) >=
                 q->calsize)
        q->cal[0] = '\0';
    } else if (strcmp(w[0], "secret") == 0 && nw >= 3) {
      if (!checked && (rc = secrets_allowed(f, path)) != 0)
        break;
      checked = 1;
      if (name == NULL || strcmp(w[1], name) != 0)
        continue;
      *q->found = 1;
      for (int k = 2; k < nw && rc == 0; k++) {
        char *eq = strchr(w[k], '=');

        if (eq == NULL || eq == w[k]) {
          rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: secret %s: "
                          "expected KEY=VALUE after the name", path, lineno,
                          name);
          break;
        }
        *eq = '\0';
        rc = pmon__spec_add_secret(spec, w[k], eq + 1);
      }
    } else {
      /* Say which line, never what it holds: it may be a secret. */
      rc = pmon__fail(PMON_ECONFIG, "site file %s:%d: expected \"meter "
                      "PATTERN SPEC\", \"share PATTERN MODEL\", "
                      "\"calibration PATTERN FILE\" or \"secret "
                      "NAME KEY=VALUE...\"",
                      path, lineno);
    }
  }
  explicit_bzero(line, sizeof line);
  fclose(f);
  return rc;
}

int pmon__site_meters(const char *node, struct pmon_spec *specs, int max,
                      int *n)
{
  struct scan q = {.node = node, .specs = specs, .max = max, .n = n};

  return site_scan(&q);
}

int pmon__site_meters_lines(const char *node, struct pmon_spec *specs,
                            int *lines, int max, int *n,
                            pmon__site_line_fn *seen, void *arg)
{
  struct scan q = {.node = node, .specs = specs, .lines = lines,
                   .max = max, .n = n, .seen = seen, .arg = arg};

  return site_scan(&q);
}

int pmon__site_secrets(struct pmon_spec *spec)
{
  const char *name = pmon__spec_get(spec, "secret");
  char copy[sizeof spec->params[0].value];
  int found = 0, rc, k, j;
  struct scan q = {.name = copy, .spec = spec, .found = &found};

  if (name == NULL)
    return 0;
  snprintf(copy, sizeof copy, "%s", name);
  /* The parameter is the core's, not the driver's. */
  for (k = j = 0; k < spec->nparams; k++)
    if (strcmp(spec->params[k].key, "secret") != 0)
      spec->params[j++] = spec->params[k];
  spec->nparams = j;
  if ((rc = site_scan(&q)) != 0)
    return rc;
  if (!found) {
    int dflt;

    return pmon__fail(PMON_ECONFIG, "meter \"%s\": secret=%s: no such "
                      "secret in the site file %s", spec->text, copy,
                      pmon__site_path(&dflt));
  }
  return 0;
}

int pmon__site_share(const char *node, const char **model)
{
  int n = 0;
  struct scan q = {.node = node, .n = &n, .model = model};

  *model = NULL;
  return site_scan(&q);
}

int pmon__site_calibration(const char *node, char *path, size_t size)
{
  int n = 0;
  struct scan q = {.node = node, .n = &n, .cal = path, .calsize = size};

  path[0] = '\0';
  return site_scan(&q);
}

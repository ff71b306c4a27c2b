/*
 * spec.c - the meter-specification parser and its secrets (spec.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "env.h"
#include "log.h"
#include "spec.h"

static int copy(char *dst, size_t size, const char *src, size_t len)
{
  if (len >= size)
    return -1;
  memcpy(dst, src, len);
  dst[len] = '\0';
  return 0;
}

int pmon__spec_add_secret(struct pmon_spec *spec, const char *key,
                          const char *value)
{
  int i;

  for (i = 0; i < spec->nsecrets; i++)
    if (strcmp(spec->secrets[i].key, key) == 0)
      break;
  if (i == PMON_SECRET_MAX ||
      copy(spec->secrets[i].key, sizeof spec->secrets[i].key, key,
           strlen(key)) != 0 ||
      copy(spec->secrets[i].value, sizeof spec->secrets[i].value, value,
           strlen(value)) != 0)
    return pmon__fail(PMON_ECONFIG,
                      "meter \"%s\": secret \"%.31s\": too many or too long",
                      spec->text, key);
  if (i == spec->nsecrets)
    spec->nsecrets++;
  return 0;
}

const char *pmon__spec_secret(const struct pmon_spec *spec, const char *key)
{
  for (int i = 0; i < spec->nsecrets; i++)
    if (strcmp(spec->secrets[i].key, key) == 0)
      return spec->secrets[i].value;
  return NULL;
}

/* Decode the %XX escapes of S in place (RFC 3986); a '%' not followed by
 * two hex digits stays as it is. */
static void percent_decode(char *s)
{
  static const char hex[] = "0123456789abcdef0123456789ABCDEF";
  char *out = s;

  for (; *s != '\0'; s++) {
    const char *h1, *h2;

    if (s[0] == '%' && s[1] != '\0' && s[2] != '\0' &&
        (h1 = strchr(hex, s[1])) != NULL &&
        (h2 = strchr(hex, s[2])) != NULL) {
      *out++ = (char)(((h1 - hex) % 16) * 16 + (h2 - hex) % 16);
      s += 2;
    } else {
      *out++ = *s;
    }
  }
  *out = '\0';
}

/*
 * TEXT without the USERINFO@ of a //USERINFO@HOST authority, into SPEC's
 * text, and USERINFO into its secrets ("user", and "password" after the
 * first ':'), %XX escapes decoded.  The user information ends at the LAST
 * '@' of the text: a password may then hold '/', '?', '#' or '@' as they
 * are, and nothing of it is left in the text that messages show, whatever
 * it holds.  (An '@' after the host must be written %40.)
 */
static int take_userinfo(const char *text, struct pmon_spec *spec)
{
  const char *auth = strstr(text, "://"), *at, *colon;
  char user[256];

  if (auth == NULL || (at = strrchr(auth + 3, '@')) == NULL)
    return copy(spec->text, sizeof spec->text, text, strlen(text));
  auth += 3;
  if ((size_t)(auth - text) + strlen(at + 1) >= sizeof spec->text ||
      (size_t)(at - auth) >= sizeof user)
    return -1;
  memcpy(spec->text, text, (size_t)(auth - text));
  strcpy(spec->text + (auth - text), at + 1);
  memcpy(user, auth, (size_t)(at - auth));
  user[at - auth] = '\0';
  if ((colon = strchr(user, ':')) != NULL) {
    user[colon - user] = '\0';
    percent_decode(user + (colon - user) + 1);
    if (pmon__spec_add_secret(spec, "password", colon + 1) != 0)
      return -1;
  }
  percent_decode(user);
  return pmon__spec_add_secret(spec, "user", user) != 0 ? -1 : 0;
}

int pmon__spec_parse(const char *text_in, struct pmon_spec *spec)
{
  const char *p, *q, *end, *text;
  size_t n;

  memset(spec, 0, sizeof *spec);
  if (take_userinfo(text_in, spec) != 0) {
    memset(spec, 0, sizeof *spec);
    return pmon__fail(PMON_ECONFIG,
                      "%s: a meter specification: too long, or too many "
                      "secrets in it",
                      PMON_ENV_METERS);
  }
  text = spec->text;
  n = strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_");
  if (n == 0 || n >= sizeof spec->driver ||
      (text[n] != '\0' && text[n] != ':' && text[n] != '?'))
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": expected driver[:path][?key=value]",
                      PMON_ENV_METERS, text);
  copy(spec->driver, sizeof spec->driver, text, n);
  p = text + n;
  if (*p == ':') {
    p++;
    q = strchr(p, '?');
    end = q != NULL ? q : p + strlen(p);
    if (end == p)
      return pmon__fail(PMON_ECONFIG, "%s: meter \"%s\": empty path after ':'",
                        PMON_ENV_METERS, text);
    copy(spec->path, sizeof spec->path, p, (size_t)(end - p));
    p = end;
  }
  if (*p != '?')
    return 0;
  p++;
  while (*p != '\0') {
    const char *amp = strchr(p, '&');
    const char *eq;
    size_t len = amp != NULL ? (size_t)(amp - p) : strlen(p);

    eq = memchr(p, '=', len);
    if (eq == NULL || eq == p)
      return pmon__fail(PMON_ECONFIG,
                        "%s: meter \"%s\": parameter \"%.*s\" is not key=value",
                        PMON_ENV_METERS, text, (int)len, p);
    if (spec->nparams == PMON_PARAM_MAX ||
        copy(spec->params[spec->nparams].key, sizeof spec->params[0].key, p,
             (size_t)(eq - p)) != 0 ||
        copy(spec->params[spec->nparams].value, sizeof spec->params[0].value,
             eq + 1, len - (size_t)(eq + 1 - p)) != 0)
      return pmon__fail(PMON_ECONFIG,
                        "%s: meter \"%s\": too many or too long parameters",
                        PMON_ENV_METERS, text);
    spec->nparams++;
    p += len;
    if (*p == '&')
      p++;
  }
  return 0;
}

const char *pmon__spec_get(const struct pmon_spec *spec, const char *key)
{
  for (int i = spec->nparams - 1; i >= 0; i--)
    if (strcmp(spec->params[i].key, key) == 0)
      return spec->params[i].value;
  return NULL;
}

int pmon__spec_double(const struct pmon_spec *spec, const char *key,
                      double def, double lo, double hi, double *out)
{
  const char *v = pmon__spec_get(spec, key);
  char *end;
  double d;

  if (v == NULL) {
    *out = def;
    return 0;
  }
  errno = 0;
  d = strtod(v, &end);
  if (end == v || *end != '\0' || errno != 0 || !isfinite(d) || d < lo ||
      d > hi)
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": %s=%s: not a number from %g to %g",
                      PMON_ENV_METERS, spec->text, key, v, lo, hi);
  *out = d;
  return 0;
}

/* Parameters every meter takes, whatever its driver (read by the core). */
static const char *const common_keys[] = {"accuracy", NULL};

/* One term of an accuracy: a number, then "%" or "W"; *END past it. */
static int accuracy_term(const char *p, const char **end, double *v,
                         char *unit)
{
  char *e;

  if ((*p < '0' || *p > '9') && *p != '.')
    return -1; /* no sign, blank, "inf" or "nan" */
  errno = 0;
  *v = strtod(p, &e);
  if (e == p || errno != 0 || !isfinite(*v) || *v < 0 ||
      (*e != '%' && *e != 'W'))
    return -1;
  *unit = *e;
  *end = e + 1;
  return 0;
}

int pmon__spec_accuracy(const struct pmon_spec *spec, double *rel,
                        double *watts)
{
  const char *v = pmon__spec_get(spec, "accuracy"), *p = v;
  double r = 0, w = 0, x;
  unsigned seen = 0, bit;
  char unit;

  if (v == NULL)
    return 1;
  for (;;) {
    if (accuracy_term(p, &p, &x, &unit) != 0)
      break;
    bit = unit == '%' ? 1u : 2u;
    if ((seen & bit) || (unit == '%' && x > 100))
      break;
    seen |= bit;
    if (unit == '%')
      r = x / 100;
    else
      w = x;
    if (*p == '\0') {
      *rel = r;
      *watts = w;
      return 0;
    }
    if (*p++ != '+')
      break;
  }
  return pmon__fail(PMON_ECONFIG,
                    "%s: meter \"%s\": accuracy=%s: not R%%, AW or R%%+AW "
                    "(a share of the reading up to 100 %% and a power, as "
                    "1%%+2W)", PMON_ENV_METERS, spec->text, v);
}

int pmon__spec_check_keys(const struct pmon_spec *spec,
                          const char *const *known)
{
  for (int i = 0; i < spec->nparams; i++) {
    int ok = 0;

    for (int k = 0; common_keys[k] != NULL; k++)
      ok |= strcmp(spec->params[i].key, common_keys[k]) == 0;
    for (int k = 0; known != NULL && known[k] != NULL; k++)
      ok |= strcmp(spec->params[i].key, known[k]) == 0;
    if (!ok)
      return pmon__fail(PMON_ECONFIG, "%s: meter \"%s\": unknown parameter %s",
                        PMON_ENV_METERS, spec->text, spec->params[i].key);
  }
  return 0;
}

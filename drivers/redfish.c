/*
 * redfish.c - a server's chassis power, read from its baseboard management
 * controller (BMC) over Redfish.
 *
 * Hardware: any BMC with a Redfish service (DMTF DSP0266): iDRAC, iLO,
 * XCC, OpenBMC and others.  Written against the DMTF schemas and mockups,
 * see research notes section 6; it runs against a loopback HTTP server in
 * tests.
 *
 * Sources, per chassis, in the order source=auto tries them:
 *   energy  EnvironmentMetrics EnergyJoules.Reading: cumulative joules, a
 *           counter meter.  Raw counts are millijoules, 64 bits, no wrap;
 *           the BMC's ResetMetrics action sends the counter back, which
 *           the core treats as a restart.
 *   power   EnvironmentMetrics PowerWatts.Reading: watts, sampled.
 *   legacy  Power PowerControl[].PowerConsumedWatts: watts, sampled.  The
 *           entries for the whole chassis add up to the node; an entry
 *           whose PhysicalContext names a part (CPU, Memory, GPU ...)
 *           is a channel of its own beside the node, never added to it.
 *
 * One GET per reading, on one libcurl easy handle per meter that keeps its
 * connection open, bounded by the timeout parameter; HTTP basic
 * authentication with the secrets "user" and "password", which no message
 * shows: URLs carry no user information, and libcurl's error text is
 * dropped when a secret is in it.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "pmon.h"
#include "driver.h"
#include "log.h"

#define BODY_MAX (1024 * 1024)  /* the largest response accepted, bytes */
#define BASE_MAX 300            /* scheme://host:port */
#define PATH_LEN 256           /* a resource path below the base */
#define ENTRIES_MAX 32          /* PowerControl entries looked at */
#define JOULES_MAX 1.8e16       /* EnergyJoules that fit in uint64 mJ */
#define WATTS_MAX 1e7           /* a plausible chassis reading, W */
#define STALE_MIN_S 10.0        /* energy: a counter still this long ... */
#define STALE_READINGS 10       /* ... or this many readings, if longer,
                                   is a BMC that stopped refreshing */

enum source { SRC_ENERGY, SRC_POWER, SRC_LEGACY, SRC_AUTO };

static const char *const source_names[] = {"energy", "power", "legacy",
                                           "auto"};

/* PowerControl entries by PhysicalContext: NULL channel for the whole
 * chassis (the node channel), else the part's channel.  Contexts not in
 * this table are not read. */
static const struct {
  const char *context;
  const char *channel;
  enum pmon_domain domain;
} contexts[] = {
  {"", NULL, PMON_DOM_NODE}, /* no PhysicalContext */
  {"Chassis", NULL, PMON_DOM_NODE},
  {"PowerSupply", NULL, PMON_DOM_NODE},
  {"PowerSubsystem", NULL, PMON_DOM_NODE},
  {"ACInput", NULL, PMON_DOM_NODE},
  {"CPU", "cpu", PMON_DOM_CPU},
  {"CPUSubsystem", "cpu", PMON_DOM_CPU},
  {"Memory", "memory", PMON_DOM_MEMORY},
  {"MemorySubsystem", "memory", PMON_DOM_MEMORY},
  {"GPU", "accel", PMON_DOM_ACCEL},
  {"GPUSubsystem", "accel", PMON_DOM_ACCEL},
  {"Accelerator", "accel", PMON_DOM_ACCEL},
  {"StorageDevice", "storage", PMON_DOM_OTHER},
  {"NetworkingDevice", "network", PMON_DOM_OTHER},
};
#define NCONTEXTS (sizeof contexts / sizeof contexts[0])

struct rf_priv {
  CURL *curl;
  struct curl_slist *headers;
  int global;                 /* curl_global_init() done */
  char err[CURL_ERROR_SIZE];  /* libcurl's error text of the last call */
  char *body;                 /* the last response, NUL-terminated */
  size_t len, cap;
  int too_big;                /* the last response passed BODY_MAX */
  const char *user, *password; /* secrets, for keeping them out of text */
  char base[BASE_MAX];        /* scheme://host[:port], no user info */
  char path[PATH_LEN];       /* the resource read() gets */
  enum source src;
  int nentries;               /* legacy: PowerControl entries ... */
  signed char channel[ENTRIES_MAX]; /* ... and the channel of each, or -1 */
  uint64_t prev_mj;           /* energy: the previous reading */
  int primed;
};

/* Whether TEXT shows one of the secrets. */
static int shows_secret(const struct rf_priv *p, const char *text)
{
  return (p->user != NULL && p->user[0] != '\0' &&
          strstr(text, p->user) != NULL) ||
         (p->password != NULL && p->password[0] != '\0' &&
          strstr(text, p->password) != NULL);
}

/* libcurl's write callback: append to the body, up to BODY_MAX. */
static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
  struct rf_priv *p = arg;
  size_t len = size * n;

  if (len > BODY_MAX - p->len) {
    p->too_big = 1;
    return 0;
  }
  if (p->len + len + 1 > p->cap) {
    size_t cap = p->cap * 2 > p->len + len + 1 ? p->cap * 2
                                                : p->len + len + 1;
    char *b = realloc(p->body, cap);

    if (b == NULL)
      return 0;
    p->body = b;
    p->cap = cap;
  }
  memcpy(p->body + p->len, data, len);
  p->len += len;
  p->body[p->len] = '\0';
  return len;
}

/*
 * Run F(P->curl) with SIGPIPE blocked in this thread, and take back a
 * SIGPIPE that it raised: a peer that closes the connection must not end
 * the program (CURLOPT_NOSIGNAL stops libcurl from doing this itself).
 */
static CURLcode without_sigpipe(struct rf_priv *p, CURLcode (*f)(CURL *))
{
  sigset_t sigpipe, old, pending;
  struct timespec zero = {0, 0};
  int was_pending;
  CURLcode e;

  sigemptyset(&sigpipe);
  sigaddset(&sigpipe, SIGPIPE);
  sigpending(&pending);
  was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &sigpipe, &old);
  e = f(p->curl);
  if (!was_pending)
    while (sigtimedwait(&sigpipe, NULL, &zero) < 0 && errno == EINTR)
      ;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return e;
}

static CURLcode cleanup(CURL *c)
{
  curl_easy_cleanup(c);
  return CURLE_OK;
}

/*
 * GET P->base + PATH into *DOC, a JSON object the caller releases.  0, or
 * a PMON_E* code with the reason recorded: PMON_ENOMETER for HTTP 404,
 * PMON_EFORMAT for a body that is not a JSON object, PMON_EIO otherwise.
 */
static int get(struct rf_priv *p, const char *path, json_t **doc)
{
  char url[BASE_MAX + PATH_LEN];
  json_error_t jerr;
  long status = 0;
  CURLcode e;

  *doc = NULL;
  snprintf(url, sizeof url, "%s%s", p->base, path);
  p->len = 0;
  p->too_big = 0;
  p->err[0] = '\0';
  if (p->body != NULL)
    p->body[0] = '\0';
  curl_easy_setopt(p->curl, CURLOPT_URL, url);
  e = without_sigpipe(p, curl_easy_perform);
  if (e != CURLE_OK) {
    const char *why = p->err[0] != '\0' ? p->err : curl_easy_strerror(e);

    if (p->too_big || e == CURLE_FILESIZE_EXCEEDED)
      why = "the response is larger than 1 MiB";
    else if (shows_secret(p, why))
      why = curl_easy_strerror(e);
    return pmon__fail(PMON_EIO, "redfish: %s: GET: %s", url, why);
  }
  curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 401 || status == 403)
    return pmon__fail(PMON_EIO,
                      "redfish: %s: GET: HTTP %ld: credentials %s "
                      "(the user and password of the meter, in its URI or "
                      "the site file)",
                      url, status,
                      p->user != NULL || p->password != NULL ? "rejected"
                                                             : "required");
  if (status == 404)
    return pmon__fail(PMON_ENOMETER, "redfish: %s: GET: HTTP 404: no such "
                      "resource on this BMC", url);
  if (status != 200)
    return pmon__fail(PMON_EIO, "redfish: %s: GET: HTTP %ld", url, status);
  *doc = json_loadb(p->len > 0 ? p->body : "", p->len, 0, &jerr);
  if (*doc == NULL)
    return pmon__fail(PMON_EFORMAT, "redfish: %s: not JSON: %s",
                      url, shows_secret(p, jerr.text) ? "" : jerr.text);
  if (!json_is_object(*doc)) {
    json_decref(*doc);
    *doc = NULL;
    return pmon__fail(PMON_EFORMAT, "redfish: %s: not a JSON object", url);
  }
  return 0;
}

/*
 * The number DOC[OBJ][KEY] into *OUT, or, when OBJ is NULL, DOC[KEY].  0,
 * or PMON_EFORMAT with a message that names the property and says
 * whether it is missing, null (the BMC has no reading) or not a number.
 */
static int number(const struct rf_priv *p, json_t *doc, const char *obj,
                  const char *key, double *out)
{
  json_t *o = obj != NULL ? json_object_get(doc, obj) : doc;
  json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
  const char *why = v == NULL      ? "missing"
                    : json_is_null(v) ? "null: the BMC has no reading now"
                                      : "not a number";

  if (json_is_number(v) && isfinite(json_number_value(v))) {
    *out = json_number_value(v);
    return 0;
  }
  return pmon__fail(PMON_EFORMAT, "redfish: %s%s: %s%s%s: %s", p->base,
                    p->path, obj != NULL ? obj : "", obj != NULL ? "." : "",
                    key, why);
}

/* A reading from a watts figure: in range, or PMON_EFORMAT. */
static int watts(const struct rf_priv *p, const char *what, double w,
                 double *out)
{
  if (w < 0 || w > WATTS_MAX)
    return pmon__fail(PMON_EFORMAT, "redfish: %s%s: %s: %g W is not a "
                      "power reading", p->base, p->path, what, w);
  *out += w;
  return 0;
}

/* Fill R from DOC, the resource at P->path, as P->src says. */
static int value(struct rf_priv *p, json_t *doc, struct pmon_reading *r)
{
  json_t *pc;
  double v;
  int rc;

  switch (p->src) {
  case SRC_ENERGY:
    if ((rc = number(p, doc, "EnergyJoules", "Reading", &v)) != 0)
      return rc;
    if (v < 0 || v > JOULES_MAX)
      return pmon__fail(PMON_EFORMAT, "redfish: %s%s: EnergyJoules.Reading: "
                        "%g J is out of range", p->base, p->path, v);
    r->raw[0] = (uint64_t)(v * 1000 + 0.5);
    return 0;
  case SRC_POWER:
    if ((rc = number(p, doc, "PowerWatts", "Reading", &v)) != 0)
      return rc;
    return watts(p, "PowerWatts.Reading", v, &r->watts[0]);
  default:
    pc = json_object_get(doc, "PowerControl");
    if (!json_is_array(pc) || (int)json_array_size(pc) != p->nentries)
      return pmon__fail(PMON_EFORMAT, "redfish: %s%s: PowerControl: not an "
                        "array of %d entries as it was at open",
                        p->base, p->path, p->nentries);
    for (int i = 0; i < p->nentries; i++) {
      char what[64];

      if (p->channel[i] < 0)
        continue;
      snprintf(what, sizeof what, "PowerControl[%d]", i);
      if ((rc = number(p, json_array_get(pc, (size_t)i), NULL,
                       "PowerConsumedWatts", &v)) != 0 ||
          (rc = watts(p, what, v, &r->watts[(int)p->channel[i]])) != 0)
        return rc;
    }
    return 0;
  }
}

/* Legacy: choose the PowerControl entries of DOC that M reads, and add
 * M's channels, "node" first.  0, or PMON_ENOMETER when none measures the
 * whole chassis. */
static int plan_legacy(struct pmon_meter *m, json_t *doc)
{
  struct rf_priv *p = m->priv;
  json_t *pc = json_object_get(doc, "PowerControl");
  int node = 0;

  m->nch = 0;
  pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1.0, 0);
  p->nentries = json_is_array(pc) ? (int)json_array_size(pc) : 0;
  if (p->nentries > ENTRIES_MAX)
    p->nentries = 0;
  for (int i = 0; i < p->nentries; i++) {
    json_t *e = json_array_get(pc, (size_t)i);
    const char *ctx = json_string_value(json_object_get(e, "PhysicalContext"));
    size_t k;

    p->channel[i] = -1;
    if (!json_is_number(json_object_get(e, "PowerConsumedWatts")))
      continue;
    for (k = 0; k < NCONTEXTS; k++)
      if (strcmp(contexts[k].context, ctx != NULL ? ctx : "") == 0)
        break;
    if (k == NCONTEXTS)
      continue;
    if (contexts[k].channel == NULL) {
      p->channel[i] = 0;
      node++;
      continue;
    }
    for (int c = 1; c < m->nch && p->channel[i] < 0; c++)
      if (strcmp(m->ch[c].name, contexts[k].channel) == 0)
        p->channel[i] = (signed char)c;
    if (p->channel[i] < 0)
      p->channel[i] = (signed char)pmon__meter_add_channel(
          m, contexts[k].channel, contexts[k].domain, 0, 1.0, 0);
  }
  if (node == 0)
    return pmon__fail(PMON_ENOMETER, "redfish: %s%s: PowerControl: no "
                      "entry with a PowerConsumedWatts reading for the "
                      "whole chassis", p->base, p->path);
  return 0;
}

/* The path of DOC[NAME]["@odata.id"] into PATH when it is a plain path
 * below /redfish/v1/; PATH unchanged otherwise. */
static void link_of(json_t *doc, const char *name, char *path, size_t size)
{
  const char *id = json_string_value(
      json_object_get(json_object_get(doc, name), "@odata.id"));

  if (id != NULL && strncmp(id, "/redfish/v1/", 12) == 0 &&
      strlen(id) < size &&
      id[strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789-._~!$&'()*+,;=:@/%")] == '\0')
    snprintf(path, size, "%s", id);
}

static void release(struct rf_priv *p)
{
  if (p->curl != NULL)
    without_sigpipe(p, cleanup);
  p->curl = NULL;
  curl_slist_free_all(p->headers);
  p->headers = NULL;
  free(p->body);
  p->body = NULL;
  if (p->global)
    curl_global_cleanup();
  p->global = 0;
}

static void rf_close(struct pmon_meter *m)
{
  release(m->priv);
}

/*
 * Split SPEC's path //HOST[:PORT]/CHASSIS_ID into P->base (with SCHEME)
 * and CHASSIS.  0, or PMON_ECONFIG.
 */
static int parse_path(const struct pmon_spec *spec, const char *scheme,
                      struct rf_priv *p, char *chassis, size_t size,
                      int *loopback)
{
  const char *h = spec->path, *end, *slash;
  size_t hlen;

  if (strncmp(h, "//", 2) != 0)
    goto bad;
  h += 2;
  slash = strchr(h, '/');
  if (slash == NULL || slash[1] == '\0')
    goto bad;
  if (*h == '[') { /* [IPv6] */
    end = h + 1 + strspn(h + 1, "0123456789abcdefABCDEF:.");
    if (*end != ']' || end == h + 1)
      goto bad;
    end++;
  } else {
    end = h + strspn(h, "abcdefghijklmnopqrstuvwxyz"
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
  }
  hlen = (size_t)(end - h);
  if (hlen == 0 || hlen > 255)
    goto bad;
  if (*end == ':') {
    char *e;
    long port;

    errno = 0;
    port = strtol(end + 1, &e, 10);
    if (end[1] < '0' || end[1] > '9' || e != slash || errno != 0 ||
        port < 1 || port > 65535)
      goto bad;
  } else if (end != slash) {
    goto bad;
  }
  slash++;
  if (strlen(slash) >= size || strchr(slash, '/') != NULL ||
      slash[strspn(slash, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                          "WXYZ0123456789-._~%")] != '\0')
    goto bad;
  snprintf(chassis, size, "%s", slash);
  snprintf(p->base, sizeof p->base, "%s://%.*s", scheme,
           (int)(slash - 1 - h), h);
  *loopback = (hlen == 9 && strncmp(h, "localhost", 9) == 0) ||
              (strncmp(h, "127.", 4) == 0 &&
               strspn(h, "0123456789.") == hlen) ||
              (hlen == 5 && strncmp(h, "[::1]", 5) == 0);
  return 0;
bad:
  return pmon__fail(PMON_ECONFIG,
                    "%s: meter \"%s\": expected "
                    "redfish://[USER[:PASSWORD]@]HOST[:PORT]/CHASSIS_ID",
                    "PMON_METERS", spec->text);
}

/* Check and apply the parameters of M; set up P->curl.  0, or PMON_E*. */
static int configure(struct pmon_meter *m)
{
  static const char *const keys[] = {"scheme", "cacert", "insecure",
                                     "timeout", "interval", "source", NULL};
  struct rf_priv *p = m->priv;
  const struct pmon_spec *s = &m->spec;
  const char *scheme = pmon__spec_get(s, "scheme");
  const char *cacert = pmon__spec_get(s, "cacert");
  const char *insecure = pmon__spec_get(s, "insecure");
  const char *source = pmon__spec_get(s, "source");
  char chassis[128];
  double interval, timeout;
  int rc, loopback, ok = 1, https;
  long ms;

  if ((rc = pmon__spec_check_keys(s, keys)) != 0)
    return rc;
  if (scheme == NULL)
    scheme = "https";
  https = strcmp(scheme, "https") == 0;
  if (!https && strcmp(scheme, "http") != 0)
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": scheme=%s: "
                      "expected https or http", s->text, scheme);
  if ((rc = parse_path(s, scheme, p, chassis, sizeof chassis,
                       &loopback)) != 0)
    return rc;
  p->src = SRC_AUTO;
  for (int i = 0; source != NULL && i <= SRC_AUTO; i++)
    if (strcmp(source, source_names[i]) == 0)
      p->src = (enum source)i;
  if (source != NULL && strcmp(source, source_names[p->src]) != 0)
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": source=%s: "
                      "expected auto, energy, power or legacy",
                      s->text, source);
  if (insecure != NULL && strcmp(insecure, "0") != 0 &&
      strcmp(insecure, "1") != 0)
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": insecure=%s:"
                      " expected 0 or 1", s->text, insecure);
  if (insecure != NULL && strcmp(insecure, "1") != 0)
    insecure = NULL;
  if (!https && (cacert != NULL || insecure != NULL))
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": cacert and "
                      "insecure apply to scheme=https only", s->text);
  if (cacert != NULL && insecure != NULL)
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": cacert and "
                      "insecure=1 contradict each other", s->text);
  if (cacert != NULL && access(cacert, R_OK) != 0)
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": cacert=%s: "
                      "cannot read: %s", s->text, cacert, strerror(errno));
  if ((rc = pmon__spec_double(s, "interval", m->interval_s, 0.01, 3600,
                              &interval)) != 0 ||
      (rc = pmon__spec_double(s, "timeout", interval < 1 ? interval : 1,
                              0.01, 60, &timeout)) != 0)
    return rc;
  m->interval_s = interval;
  p->user = pmon__spec_secret(s, "user");
  p->password = pmon__spec_secret(s, "password");
  if (!https && !loopback && (p->user != NULL || p->password != NULL))
    return pmon__fail(PMON_ECONFIG, "PMON_METERS: meter \"%s\": scheme=http "
                      "would send the credentials in clear text: use https "
                      "(http with credentials is for the loopback "
                      "interface only)", s->text);
  snprintf(p->path, sizeof p->path, "/redfish/v1/Chassis/%s", chassis);

  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return pmon__fail(PMON_EIO, "redfish: %s: libcurl: cannot initialise",
                      p->base);
  p->global = 1;
  p->cap = 16384;
  if ((p->curl = curl_easy_init()) == NULL ||
      (p->body = malloc(p->cap)) == NULL)
    return pmon__fail(PMON_ENOMEM, "redfish: %s: out of memory", p->base);
  p->headers = curl_slist_append(NULL, "Accept: application/json");
  if (p->headers != NULL)
    p->headers = curl_slist_append(p->headers, "OData-Version: 4.0");
  ms = (long)ceil(timeout * 1000);
  /* A library inside a threaded program: no signals, every wait bounded,
   * no proxy from the environment, HTTP(S) only, no redirects. */
  ok &= curl_easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, ms) == CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, ms) == CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_PROXY, "") == CURLE_OK;
#if LIBCURL_VERSION_NUM >= 0x075500
  ok &= curl_easy_setopt(p->curl, CURLOPT_PROTOCOLS_STR, scheme) == CURLE_OK;
#else
  ok &= curl_easy_setopt(p->curl, CURLOPT_PROTOCOLS,
                         https ? CURLPROTO_HTTPS : CURLPROTO_HTTP) == CURLE_OK;
#endif
  ok &= curl_easy_setopt(p->curl, CURLOPT_MAXFILESIZE, (long)BODY_MAX) ==
        CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, on_body) == CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_WRITEDATA, p) == CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_ERRORBUFFER, p->err) == CURLE_OK;
  ok &= p->headers != NULL &&
        curl_easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers) == CURLE_OK;
  ok &= curl_easy_setopt(p->curl, CURLOPT_USERAGENT,
                         "pmon/" PACKAGE_VERSION) == CURLE_OK;
  if (p->user != NULL || p->password != NULL) {
    ok &= curl_easy_setopt(p->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC) ==
          CURLE_OK;
    ok &= curl_easy_setopt(p->curl, CURLOPT_USERNAME,
                           p->user != NULL ? p->user : "") == CURLE_OK;
    ok &= curl_easy_setopt(p->curl, CURLOPT_PASSWORD,
                           p->password != NULL ? p->password : "") ==
          CURLE_OK;
  }
  if (https) {
    ok &= curl_easy_setopt(p->curl, CURLOPT_SSL_VERIFYPEER,
                           insecure != NULL ? 0L : 1L) == CURLE_OK;
    ok &= curl_easy_setopt(p->curl, CURLOPT_SSL_VERIFYHOST,
                           insecure != NULL ? 0L : 2L) == CURLE_OK;
    if (cacert != NULL)
      ok &= curl_easy_setopt(p->curl, CURLOPT_CAINFO, cacert) == CURLE_OK;
  }
  if (!ok)
    return pmon__fail(PMON_EIO, "redfish: %s: libcurl: an option was "
                      "refused (a libcurl without %s?)", p->base, scheme);
  return 0;
}

/*
 * Open: check the parameters, GET the chassis, choose the source (the one
 * named, or the first of energy, power, legacy that gives a reading now),
 * add the channels.  Requests are bounded by the timeout; open() makes at
 * most three.
 */
static int rf_open(struct pmon_meter *m)
{
  struct rf_priv *p = m->priv;
  char chassis[PATH_LEN], paths[2][PATH_LEN];
  json_t *doc = NULL, *docs[2] = {NULL, NULL};
  int rc, want, got[2] = {0, 0}; /* got: the GET's code, once made */
  struct pmon_reading r;

  if ((rc = configure(m)) != 0) {
    release(p);
    return rc;
  }
  want = p->src;
  snprintf(chassis, sizeof chassis, "%s", p->path);
  if ((rc = get(p, chassis, &doc)) != 0) {
    release(p);
    return rc;
  }
  /* [0] EnvironmentMetrics, [1] Power: where the chassis links them, else
   * where DSP0266 puts them. */
  snprintf(paths[0], sizeof paths[0], "%.200s/EnvironmentMetrics",
           chassis);
  snprintf(paths[1], sizeof paths[1], "%.200s/Power", chassis);
  link_of(doc, "EnvironmentMetrics", paths[0], sizeof paths[0]);
  link_of(doc, "Power", paths[1], sizeof paths[1]);
  json_decref(doc);
  rc = PMON_ENOMETER;
  for (int s = SRC_ENERGY; s <= SRC_LEGACY && rc != 0; s++) {
    int d = s == SRC_LEGACY;

    if (want != SRC_AUTO && want != s)
      continue;
    p->src = (enum source)s;
    snprintf(p->path, sizeof p->path, "%s", paths[d]);
    if (docs[d] == NULL && got[d] == 0)
      got[d] = get(p, p->path, &docs[d]);
    if (docs[d] == NULL) {
      rc = got[d];
      if (rc != PMON_ENOMETER && rc != PMON_EFORMAT)
        break; /* no answer, or refused: the next would be the same */
      continue;
    }
    memset(&r, 0, sizeof r);
    rc = s == SRC_LEGACY ? plan_legacy(m, docs[d]) : 0;
    if (rc == 0)
      rc = value(p, docs[d], &r);
  }
  json_decref(docs[0]);
  json_decref(docs[1]);
  if (rc != 0) {
    if (want == SRC_AUTO && (rc == PMON_ENOMETER || rc == PMON_EFORMAT))
      rc = pmon__fail(PMON_ENOMETER, "redfish: %s%s: no power reading: "
                      "neither EnvironmentMetrics EnergyJoules or PowerWatts"
                      " nor Power PowerControl gave one",
                      p->base, chassis);
    release(p);
    return rc;
  }
  m->flags = (m->flags & ~(PMON_DRV_COUNTER | PMON_DRV_SAMPLED)) |
             (p->src == SRC_ENERGY ? PMON_DRV_COUNTER : PMON_DRV_SAMPLED);
  if (p->src != SRC_LEGACY) {
    m->nch = 0;
    pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL,
                            p->src == SRC_ENERGY ? 1e-3 : 1.0, 0);
  }
  /* A BMC refreshes once a second or slower, and the interval is set to
   * about its refresh: an energy counter that has not moved for ten
   * intervals, and ten seconds at least (two refreshes of a BMC that
   * refreshes every five), is a BMC that stopped refreshing.  A wattage
   * that repeats cannot be told from a constant load: no limit. */
  if (p->src == SRC_ENERGY)
    m->stale_s = STALE_READINGS * m->interval_s > STALE_MIN_S
                   ? STALE_READINGS * m->interval_s
                   : STALE_MIN_S;
  return 0;
}

static int rf_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct rf_priv *p = m->priv;
  json_t *doc;
  int rc;

  if ((rc = get(p, p->path, &doc)) != 0)
    return rc;
  rc = value(p, doc, r);
  json_decref(doc);
  if (rc != 0 || p->src != SRC_ENERGY)
    return rc;
  /* A counter that has not moved brings nothing new: the BMC updates it
   * less often than it is read. */
  r->stale = p->primed && r->raw[0] == p->prev_mj;
  p->prev_mj = r->raw[0];
  p->primed = 1;
  return 0;
}

/* "auto" passes no BMC address: this driver is used only when named. */
static int rf_probe(const struct pmon_spec *spec)
{
  if (spec->path[0] == '\0')
    return pmon__fail(PMON_ENOMETER, "redfish: no BMC named: give "
                      "redfish://HOST/CHASSIS_ID in PMON_METERS");
  return 0;
}

const struct pmon_driver pmon__driver_redfish = {
  .name = "redfish",
  .description = "a server's chassis power from its BMC over Redfish (HTTPS)",
  .flags = PMON_DRV_SAMPLED | PMON_DRV_EXTERNAL, /* open() may choose COUNTER */
  .priv_size = sizeof(struct rf_priv),
  .interval_s = 1.0,
  .probe = rf_probe,
  .open = rf_open,
  .read = rf_read,
  .close = rf_close,
};

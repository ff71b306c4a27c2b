/*
 * eaton.c - EATON ePDU outlet and inlet power over SNMP, with net-snmp.
 *
 * Hardware: EATON ePDUs that answer EATON-EPDU-MIB (enterprise 534, root
 * 1.3.6.1.4.1.534.6.6.7): the G2 ("Marlin") and G3 ("Shark") outlet-metered
 * and managed models, stand-alone or daisy-chained.  Every table is
 * indexed first by the unit's place in the chain (strappingIndex, 0 for a
 * stand-alone PDU or the chain's master), then by outlet or input.
 * Written against the MIB and NUT's mapping of it (research notes, section
 * 2) and tested against net-snmp's snmpd playing a PDU; no PDU was at hand.
 *
 * Units: outletWatts, inputTotalWatts and inputWatts are whole watts
 * (Integer32; the MIB says negative when there is no reading).  This is a
 * sampled meter: one channel per outlet, or one for the inlet, all of them
 * the node's total (a node with two power supplies sums its two outlets).
 * The PDU refreshes its figures about once a second, hence the 1 s period.
 * No stale limit (m->stale_s stays 0): an agent that answers the same
 * cached value cannot be told from a constant load.
 * Wrap: not applicable.  outletWh and inputTotalWh (Unsigned32 watt-hours
 * that any SNMP writer can reset) are read at open and at close only, as a
 * cross-check of the integrated energy on long runs: 1 Wh is 3600 J, far
 * too coarse for regions.
 *
 * One GET per reading carries every channel's OID; a reading fails as a
 * whole when one value is missing, negative or implausible.  A request
 * waits at most timeout x (retries + 1), which open() keeps below the
 * period; at open a try waits OPEN_TIMEOUT at least, and is sent twice.  net-snmp is initialised once per process without its
 * configuration files, persistent state, MIB files or logging
 * (library_init()).
 */
#include "config.h"

/* net-snmp's own configuration header may define autoconf's PACKAGE_*
 * macros too; this file does not use ours. */
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmon.h"
#include "driver.h"
#include "log.h"
#include "env.h"

#define DEFAULT_PORT 161
#define UNIT_MAX 23        /* strappingIndex: 0 .. 23 */
#define INDEX_MAX 64       /* outlets 1 .. 64; inputs fewer */
#define ROWS_MAX 12        /* inputPowerIndex: 1 .. 12 */
#define MEAS_TOTAL 4       /* inputPowerMeasType total(4) */
#define EATON_OID_MAX 20   /* sub-identifiers in the longest OID used */
#define WH_J 3600.0        /* joules per watt-hour */

/* The defaults and limits of the parameters. */
#define TIMEOUT_DEF 0.5
#define TIMEOUT_MIN 0.01
#define TIMEOUT_MAX 5.0
#define RETRIES_DEF 1
#define RETRIES_MAX 3
#define INTERVAL_DEF 1.0
#define INTERVAL_MIN 0.05
#define INTERVAL_MAX 3600.0
#define WORST_SHARE 0.9    /* a default timeout leaves 10 % of the period */
/* The requests at open wait longer: there is no period to keep yet, and
 * an agent's first answers (a v3 engine's discovery, a loaded host) come
 * slower than the readings'.  A PDU that does not answer then delays
 * pmon_init() by OPEN_TIMEOUT x 2 at least (1 s). */
#define OPEN_TIMEOUT 0.5
#define OPEN_RETRIES 1

/*
 * The cross-check: the Wh counters' rise against the integral of the
 * readings, over the same span.  The rise is exact to one step of each
 * counter (3600 J); the readings are whole watts, the PDU's accuracy is
 * about 1 %.  Below CHECK_MIN_STEPS steps per counter a run is too short
 * to judge.
 */
#define CHECK_SHARE 0.05
#define CHECK_MIN_STEPS 10

/* The OID columns, before their indices. */
#define EATON_EPDU 1, 3, 6, 1, 4, 1, 534, 6, 6, 7
static const oid outlet_count_col[] = {EATON_EPDU, 1, 2, 1, 22};
static const oid meas_type_col[] = {EATON_EPDU, 3, 4, 1, 2};
static const oid input_watts_col[] = {EATON_EPDU, 3, 4, 1, 4};
static const oid input_wh_col[] = {EATON_EPDU, 3, 4, 1, 5};
static const oid input_total_watts_col[] = {EATON_EPDU, 3, 5, 1, 4};
static const oid input_total_wh_col[] = {EATON_EPDU, 3, 5, 1, 5};
static const oid outlet_watts_col[] = {EATON_EPDU, 6, 5, 1, 3};
static const oid outlet_wh_col[] = {EATON_EPDU, 6, 5, 1, 4};
#define COL(c) c, sizeof c / sizeof c[0]

/* What a meter measures: outlets, or one inlet. */
static const struct kind {
  const char *word; /* in the URI path, messages and channel names */
  double max_w;     /* above this a reading is not believed */
} kinds[] = {
  /* An outlet is at most a C19 socket, 16 A (20 A in North America) at
   * up to 250 V: 5 kW.  Twice that is no reading. */
  {"outlet", 10000.0},
  /* An inlet is at most three phases of 63 A at 415 V: 45 kW. */
  {"input", 100000.0},
};
enum { KIND_OUTLET, KIND_INPUT };

struct eaton_oid {
  oid id[EATON_OID_MAX];
  size_t len;
};

/* The meter's address and channels, from the URI's path. */
struct eaton_target {
  char host[256]; /* without the brackets of an IPv6 address */
  int ipv6;
  unsigned port;
  int kind;       /* KIND_* */
  int n;          /* channels */
  int index[PMON_CH_MAX];
};

/* The state of a value in an answer. */
enum {
  V_OK,              /* an integer */
  V_NOSUCHOBJECT,    /* the agent has no such column */
  V_NOSUCHINSTANCE,  /* ... no such row (SNMP v1: either, noSuchName) */
  V_ENDOFMIBVIEW,
  V_TYPE             /* some other type */
};

struct eaton_val {
  int state;
  int type;   /* ASN type as answered */
  long value; /* V_OK: as a signed integer; Gauge32 is never negative */
};

/* The Wh cross-check (see check_finish()). */
enum {
  CHECK_NONE,     /* no channel has a Wh counter */
  CHECK_PENDING,  /* counters read at open */
  CHECK_FAILED,   /* the counters could not be read at close */
  CHECK_NODATA,   /* fewer than two readings */
  CHECK_RESET,    /* a counter went back: it was reset */
  CHECK_SHORT,    /* too few steps to judge */
  CHECK_AGREE,
  CHECK_DISAGREE
};

struct eaton_check {
  int state;
  int has[PMON_CH_MAX];        /* the channel has a Wh counter */
  unsigned long wh_open[PMON_CH_MAX], wh_close[PMON_CH_MAX];
  uint64_t t_open, t_close;    /* CLOCK_MONOTONIC ns of the Wh reads */
  uint64_t t_first, t_last;    /* of the first and last reading */
  double w_first[PMON_CH_MAX], w_last[PMON_CH_MAX];
  double joules[PMON_CH_MAX];  /* trapezoid of the readings */
  unsigned long readings;
  double counter_j;            /* results, over the channels that count */
  double integral_j;
  double tolerance_j;
};

/* Per-instance state: allocated and zeroed by the core (priv_size). */
struct eaton_priv {
  void *sess;                  /* snmp_sess_open() handle, NULL if none */
  char where[300];             /* "host:port" for messages */
  char peer[300];              /* the transport address for net-snmp */
  long version;                /* SNMP_VERSION_* */
  double timeout_s;
  int retries;
  int kind;
  int unit;
  int n;
  int index[PMON_CH_MAX];
  struct eaton_oid watts[PMON_CH_MAX];
  struct eaton_oid wh[PMON_CH_MAX];
  struct eaton_check check;
};

static uint64_t now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* COL followed by the indices IDX[0 .. NIDX-1], into *O. */
static void make_oid(struct eaton_oid *o, const oid *col, size_t len,
                     const long *idx, int nidx)
{
  memcpy(o->id, col, len * sizeof *col);
  for (int i = 0; i < nidx; i++)
    o->id[len + (size_t)i] = (oid)idx[i];
  o->len = len + (size_t)nidx;
}

/* O in dotted decimal, into BUF. */
static const char *oid_text(const oid *id, size_t len, char *buf, size_t size)
{
  size_t used = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < len && used < size; i++) {
    int w = snprintf(buf + used, size - used, "%s%lu", i > 0 ? "." : "",
                     (unsigned long)id[i]);

    if (w < 0)
      break;
    used += (size_t)w;
  }
  return buf;
}

/* ---- The specification ---------------------------------------------- */

#define URI_FORM                                                             \
  "eaton://[community@]host[:port]/outlet/N[+M...] or "                     \
  "eaton://[community@]host[:port]/input/N"

static int bad_uri(const struct pmon_spec *spec, const char *why)
{
  return pmon__fail(PMON_ECONFIG, "%s: meter \"%s\": %s: expected %s",
                    PMON_ENV_METERS, spec->text, why, URI_FORM);
}

/* A decimal number from 1 to MAX at *P, which moves past it; -1 if none. */
static long number(const char **p, long max)
{
  long v = 0;
  const char *q = *p;

  if (*q < '0' || *q > '9')
    return -1;
  for (; *q >= '0' && *q <= '9'; q++) {
    v = v * 10 + (*q - '0');
    if (v > max)
      return -1;
  }
  *p = q;
  return v >= 1 ? v : -1;
}

/*
 * Parse the specification's path, //host[:port]/outlet/N[+M...] or
 * //host[:port]/input/N (the user information is already among the
 * secrets), into *T.  0, or PMON_ECONFIG with a message.
 */
static int parse_target(const struct pmon_spec *spec, struct eaton_target *t)
{
  const char *p = spec->path;
  size_t len;
  long v;

  memset(t, 0, sizeof *t);
  t->port = DEFAULT_PORT;
  if (strncmp(p, "//", 2) != 0)
    return bad_uri(spec, "no //host");
  p += 2;
  if (*p == '[') { /* an IPv6 address */
    const char *end = strchr(p, ']');

    len = end != NULL ? (size_t)(end - p - 1) : 0;
    if (len == 0 || len >= sizeof t->host ||
        strspn(p + 1, "0123456789abcdefABCDEF:.") != len)
      return bad_uri(spec, "malformed [IPv6 address]");
    memcpy(t->host, p + 1, len);
    t->ipv6 = 1;
    p = end + 1;
  } else {
    len = strcspn(p, ":/");
    if (len == 0)
      return bad_uri(spec, "no host");
    if (len >= sizeof t->host ||
        strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789.-_") < len)
      return bad_uri(spec, "malformed host");
    memcpy(t->host, p, len);
    p += len;
  }
  if (*p == ':') {
    p++;
    if ((v = number(&p, 65535)) < 0)
      return bad_uri(spec, "port: not a number from 1 to 65535");
    t->port = (unsigned)v;
  }
  if (*p != '/')
    return bad_uri(spec, "nothing after the host");
  p++;
  t->kind = -1;
  for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++) {
    len = strlen(kinds[k].word);
    if (strncmp(p, kinds[k].word, len) == 0 && p[len] == '/') {
      t->kind = k;
      p += len + 1;
    }
  }
  if (t->kind < 0)
    return bad_uri(spec, "the path is neither /outlet/N nor /input/N");
  for (;;) {
    if ((v = number(&p, INDEX_MAX)) < 0)
      return bad_uri(spec, t->kind == KIND_OUTLET
                             ? "an outlet is a number from 1 to 64"
                             : "an input is a number from 1 to 64");
    for (int i = 0; i < t->n; i++)
      if (t->index[i] == v)
        return bad_uri(spec, "an outlet is named twice");
    if (t->n == PMON_CH_MAX)
      return bad_uri(spec, "more than 16 outlets");
    t->index[t->n++] = (int)v;
    if (*p == '\0')
      break;
    if (*p != '+')
      return bad_uri(spec, "unexpected text after a number");
    p++;
  }
  if (t->kind == KIND_INPUT && t->n > 1)
    return bad_uri(spec, "one input per meter");
  return 0;
}

/* Parameter KEY, a whole number from LO to HI (DEF when absent). */
static int whole(const struct pmon_spec *spec, const char *key, double def,
                 double lo, double hi, int *out)
{
  double d;
  int rc = pmon__spec_double(spec, key, def, lo, hi, &d);

  if (rc != 0)
    return rc;
  if (d != floor(d))
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": %s=%s: not a whole number",
                      PMON_ENV_METERS, spec->text, key,
                      pmon__spec_get(spec, key));
  *out = (int)d;
  return 0;
}

/* unit, version, timeout, retries and interval, into EP and M. */
static int parse_params(struct pmon_meter *m, struct eaton_priv *ep)
{
  const struct pmon_spec *spec = &m->spec;
  const char *v = pmon__spec_get(spec, "version");
  double interval, worst;
  int rc;

  if ((rc = whole(spec, "unit", 0, 0, UNIT_MAX, &ep->unit)) != 0 ||
      (rc = whole(spec, "retries", RETRIES_DEF, 0, RETRIES_MAX,
                  &ep->retries)) != 0 ||
      (rc = pmon__spec_double(spec, "interval", INTERVAL_DEF, INTERVAL_MIN,
                              INTERVAL_MAX, &interval)) != 0 ||
      (rc = pmon__spec_double(spec, "timeout", TIMEOUT_DEF, TIMEOUT_MIN,
                              TIMEOUT_MAX, &ep->timeout_s)) != 0)
    return rc;
  if (v == NULL || strcmp(v, "2c") == 0)
    ep->version = SNMP_VERSION_2c;
  else if (strcmp(v, "1") == 0)
    ep->version = SNMP_VERSION_1;
  else if (strcmp(v, "3") == 0)
    ep->version = SNMP_VERSION_3;
  else
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": version=%s: expected 1, 2c or 3",
                      PMON_ENV_METERS, spec->text, v);
  /* A reading must be over before the next is due: at worst it waits
   * timeout x (retries + 1).  The default timeout shrinks to fit; one
   * that is given must fit. */
  worst = ep->timeout_s * (ep->retries + 1);
  if (pmon__spec_get(spec, "timeout") == NULL &&
      worst > WORST_SHARE * interval) {
    ep->timeout_s = WORST_SHARE * interval / (ep->retries + 1);
    if (ep->timeout_s < TIMEOUT_MIN)
      ep->timeout_s = TIMEOUT_MIN;
    worst = ep->timeout_s * (ep->retries + 1);
  }
  if (worst >= interval)
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": timeout %g s x %d tr%s = %g s: a "
                      "reading could outlast the interval of %g s; make "
                      "the timeout or the retries smaller, or the interval "
                      "longer",
                      PMON_ENV_METERS, spec->text, ep->timeout_s,
                      ep->retries + 1, ep->retries == 0 ? "y" : "ies", worst,
                      interval);
  m->interval_s = interval;
  return 0;
}

/* ---- net-snmp -------------------------------------------------------- */

/* The one mutable static of this file: net-snmp's state is per process,
 * so it is initialised once, whatever the number of meters. */
static pthread_once_t library_once = PTHREAD_ONCE_INIT;

/*
 * Initialise net-snmp so that it prints nothing, reads no configuration
 * (snmp.conf, ~/.snmp), loads no MIB file, and neither reads nor writes
 * persistent state: the persistent directory is /dev/null, under which
 * nothing can be created, because init_snmp() makes a cert_indexes
 * directory there whatever the flags say.  init_snmp() also sets the
 * locale's LC_CTYPE from the environment and reseeds random(); both are
 * put back as the program had them.
 */
static void library_init_once(void)
{
  char scratch[64], *random_state, locale[256] = "";
  const char *l = setlocale(LC_CTYPE, NULL);

  if (l != NULL && strlen(l) < sizeof locale)
    strcpy(locale, l);
  /* First: without a handler net-snmp logs to stderr. */
  netsnmp_register_loghandler(NETSNMP_LOGHANDLER_NONE, LOG_DEBUG);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
  netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_PERSISTENT_DIR,
                        "/dev/null");
  netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS, "");
  /* random() runs on a scratch state meanwhile: the program's sequence
   * goes on as if net-snmp had not seeded it. */
  random_state = initstate(1, scratch, sizeof scratch);
  init_snmp("pmon");
  setstate(random_state);
  if (locale[0] != '\0')
    setlocale(LC_CTYPE, locale);
}

static void library_init(void)
{
  pthread_once(&library_once, library_init_once);
}

/* Overwrite N bytes at P in a way the compiler keeps. */
static void wipe(void *p, size_t n)
{
  volatile unsigned char *q = p;

  while (n-- > 0)
    *q++ = 0;
}

/* The secret KEY, or NULL; "" counts as absent. */
static const char *secret(const struct pmon_spec *spec, const char *key)
{
  const char *s = pmon__spec_secret(spec, key);

  return s != NULL && *s != '\0' ? s : NULL;
}

/* Fill S's community (v1, v2c) or USM user and keys (v3) from the
 * specification's secrets.  PMON_ECONFIG, naming the secret and never its
 * value, when they do not make sense. */
static int credentials(const struct pmon_spec *spec, netsnmp_session *s,
                       char *community, size_t size)
{
  const char *user = secret(spec, "user"), *pw = secret(spec, "password");

  if (s->version != SNMP_VERSION_3) {
    const char *c = secret(spec, "community");
    const char *u = pmon__spec_secret(spec, "user");
    const char *p = pmon__spec_secret(spec, "password");

    /* The URI's user information is the community, a ':' included; then
     * the secret community; then "public". */
    if (u != NULL || p != NULL)
      snprintf(community, size, "%s%s%s", u != NULL ? u : "",
               p != NULL ? ":" : "", p != NULL ? p : "");
    else
      snprintf(community, size, "%s", c != NULL ? c : "public");
    if (community[0] == '\0')
      return pmon__fail(PMON_ECONFIG,
                        "%s: meter \"%s\": the community is empty",
                        PMON_ENV_METERS, spec->text);
    s->community = (u_char *)community;
    s->community_len = strlen(community);
    return 0;
  }
  {
    const char *auth_proto = secret(spec, "auth_proto");
    const char *auth_pass = secret(spec, "auth_pass");
    const char *priv_proto = secret(spec, "priv_proto");
    const char *priv_pass = secret(spec, "priv_pass");
    const char *why = NULL;

    if (user == NULL)
      why = "SNMP v3 needs a user name: eaton://USER@host/... or the "
            "secret user";
    else if (pw != NULL)
      why = "with SNMP v3 the URI names only the user: give the "
            "passphrases as the secrets auth_pass and priv_pass";
    else if (auth_pass == NULL && auth_proto != NULL)
      why = "secret auth_proto without auth_pass";
    else if (priv_pass == NULL && priv_proto != NULL)
      why = "secret priv_proto without priv_pass";
    else if (priv_pass != NULL && auth_pass == NULL)
      why = "secret priv_pass without auth_pass: privacy needs "
            "authentication";
    else if ((auth_pass != NULL && strlen(auth_pass) < USM_LENGTH_P_MIN) ||
             (priv_pass != NULL && strlen(priv_pass) < USM_LENGTH_P_MIN))
      why = "a passphrase (auth_pass, priv_pass) is shorter than 8 "
            "characters";
    if (why != NULL)
      return pmon__fail(PMON_ECONFIG, "%s: meter \"%s\": %s",
                        PMON_ENV_METERS, spec->text, why);
    s->securityName = (char *)user;
    s->securityNameLen = strlen(user);
    s->securityModel = SNMP_SEC_MODEL_USM;
    s->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
    if (auth_pass != NULL) {
      if (auth_proto == NULL || strcasecmp(auth_proto, "SHA") == 0) {
        s->securityAuthProto = usmHMACSHA1AuthProtocol;
        s->securityAuthProtoLen = USM_AUTH_PROTO_SHA_LEN;
#ifndef NETSNMP_DISABLE_MD5
      } else if (strcasecmp(auth_proto, "MD5") == 0) {
        s->securityAuthProto = usmHMACMD5AuthProtocol;
        s->securityAuthProtoLen = USM_AUTH_PROTO_MD5_LEN;
#endif
      } else {
        return pmon__fail(PMON_ECONFIG,
                          "%s: meter \"%s\": secret auth_proto: expected "
                          "MD5 or SHA",
                          PMON_ENV_METERS, spec->text);
      }
      s->securityAuthKeyLen = USM_AUTH_KU_LEN;
      if (generate_Ku(s->securityAuthProto, (u_int)s->securityAuthProtoLen,
                      (const u_char *)auth_pass, strlen(auth_pass),
                      s->securityAuthKey,
                      &s->securityAuthKeyLen) != SNMPERR_SUCCESS)
        return pmon__fail(PMON_ECONFIG,
                          "%s: meter \"%s\": secret auth_pass: net-snmp "
                          "cannot make a key of it",
                          PMON_ENV_METERS, spec->text);
      s->securityLevel = SNMP_SEC_LEVEL_AUTHNOPRIV;
    }
    if (priv_pass != NULL) {
      if (priv_proto == NULL || strcasecmp(priv_proto, "AES") == 0) {
        s->securityPrivProto = usmAESPrivProtocol;
        s->securityPrivProtoLen = USM_PRIV_PROTO_AES_LEN;
#ifndef NETSNMP_DISABLE_DES
      } else if (strcasecmp(priv_proto, "DES") == 0) {
        s->securityPrivProto = usmDESPrivProtocol;
        s->securityPrivProtoLen = USM_PRIV_PROTO_DES_LEN;
#endif
      } else {
        return pmon__fail(PMON_ECONFIG,
                          "%s: meter \"%s\": secret priv_proto: expected "
                          "DES or AES",
                          PMON_ENV_METERS, spec->text);
      }
      s->securityPrivKeyLen = USM_PRIV_KU_LEN;
      if (generate_Ku(s->securityAuthProto, (u_int)s->securityAuthProtoLen,
                      (const u_char *)priv_pass, strlen(priv_pass),
                      s->securityPrivKey,
                      &s->securityPrivKeyLen) != SNMPERR_SUCCESS)
        return pmon__fail(PMON_ECONFIG,
                          "%s: meter \"%s\": secret priv_pass: net-snmp "
                          "cannot make a key of it",
                          PMON_ENV_METERS, spec->text);
      s->securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
    }
  }
  return 0;
}

/* Open EP's session to T.  The keys and the community are wiped from
 * this function's copies, whatever happens; net-snmp keeps its own. */
static int session_open(const struct pmon_spec *spec, struct eaton_priv *ep)
{
  netsnmp_session s;
  char community[2 * 256 + 2];
  int rc;

  snmp_sess_init(&s);
  s.peername = ep->peer;
  s.version = ep->version;
  s.timeout = (long)(ep->timeout_s * 1e6 + 0.5);
  s.retries = ep->retries;
  rc = credentials(spec, &s, community, sizeof community);
  if (rc == 0 && (ep->sess = snmp_sess_open(&s)) == NULL) {
    char *err = NULL;

    snmp_error(&s, NULL, NULL, &err);
    rc = pmon__fail(PMON_ENOMETER,
                    "eaton: %s: cannot open an SNMP session: %s", ep->where,
                    err != NULL && *err != '\0' ? err : "unknown error");
    free(err);
  }
  wipe(community, sizeof community);
  wipe(&s, sizeof s);
  return rc;
}

/* Why a request got no answer, for messages. */
static int no_answer(const struct eaton_priv *ep, const char *what)
{
  return pmon__fail(PMON_EIO,
                    "eaton: %s: %s: no answer in %.3g s (%d tr%s of %.3g s): "
                    "the PDU is down or unreachable%s",
                    ep->where, what, ep->timeout_s * (ep->retries + 1),
                    ep->retries + 1, ep->retries == 0 ? "y" : "ies",
                    ep->timeout_s,
                    ep->version == SNMP_VERSION_3
                      ? ""
                      : ", or it does not take the community (an agent "
                        "does not answer a wrong one)");
}

/*
 * Send one request of type CMD (GET or GETNEXT) for the N OIDs of OIDS and
 * wait for its answer, into *RESP.  0, or a PMON_E* code with a message;
 * an error-status in the answer is left to the caller.
 */
static int request(struct eaton_priv *ep, int cmd,
                   const struct eaton_oid *const *oids, int n,
                   const char *what, netsnmp_pdu **resp)
{
  netsnmp_pdu *pdu = snmp_pdu_create(cmd);
  int status;

  *resp = NULL;
  if (pdu == NULL)
    return pmon__fail(PMON_ENOMEM, "eaton: %s: out of memory", ep->where);
  for (int i = 0; i < n; i++)
    snmp_add_null_var(pdu, oids[i]->id, oids[i]->len);
  /* The PDU is the library's now, sent or not. */
  status = snmp_sess_synch_response(ep->sess, pdu, resp);
  if (status == STAT_SUCCESS && *resp != NULL)
    return 0;
  if (*resp != NULL)
    snmp_free_pdu(*resp);
  *resp = NULL;
  if (status == STAT_TIMEOUT)
    return no_answer(ep, what);
  {
    char *err = NULL;
    int rc, clib = 0, snmperr = 0;

    snmp_sess_error(ep->sess, &clib, &snmperr, &err);
    /* SNMP v3 first asks for the agent's engine ID: no answer to that is
     * an error, not a STAT_TIMEOUT, but the same trouble. */
    if (snmperr == SNMPERR_TIMEOUT) {
      free(err);
      return no_answer(ep, what);
    }
    rc = pmon__fail(PMON_EIO, "eaton: %s: %s: %s", ep->where, what,
                    err != NULL && *err != '\0' ? err : "request failed");
    free(err);
    return rc;
  }
}

/* The message for an error-status in an answer to a request for OIDS. */
static int error_status(const struct eaton_priv *ep, const netsnmp_pdu *resp,
                        const struct eaton_oid *const *oids, int n,
                        const char *what)
{
  char buf[200] = "";

  if (resp->errindex >= 1 && resp->errindex <= n)
    oid_text(oids[resp->errindex - 1]->id, oids[resp->errindex - 1]->len,
             buf, sizeof buf);
  if (resp->errstat == SNMP_ERR_AUTHORIZATIONERROR)
    return pmon__fail(PMON_EIO,
                      "eaton: %s: %s: authorizationError: the agent does "
                      "not let this %s read the EATON MIB",
                      ep->where, what,
                      ep->version == SNMP_VERSION_3 ? "user" : "community");
  return pmon__fail(PMON_EIO, "eaton: %s: %s: the agent answered %s%s%s",
                    ep->where, what, snmp_errstring((int)resp->errstat),
                    buf[0] != '\0' ? " for " : "", buf);
}

/* The state of VB, and its value into *V. */
static void take(const netsnmp_variable_list *vb, struct eaton_val *v)
{
  v->type = vb->type;
  v->value = 0;
  switch (vb->type) {
  case SNMP_NOSUCHOBJECT:
    v->state = V_NOSUCHOBJECT;
    break;
  case SNMP_NOSUCHINSTANCE:
    v->state = V_NOSUCHINSTANCE;
    break;
  case SNMP_ENDOFMIBVIEW:
    v->state = V_ENDOFMIBVIEW;
    break;
  case ASN_INTEGER:
    v->state = V_OK;
    v->value = *vb->val.integer;
    break;
  case ASN_GAUGE: /* and Unsigned32 */
  case ASN_COUNTER:
    v->state = V_OK;
    v->value = (long)(*(const unsigned long *)vb->val.integer & 0xffffffffUL);
    break;
  default:
    v->state = V_TYPE;
  }
}

/*
 * GET the N OIDs of OIDS in one request, into VAL.  0, or a PMON_E* code
 * with a message.  A missing value is a state of VAL, not a failure: SNMP
 * v2c and v3 agents say so per value.  A v1 agent fails the whole request
 * with noSuchName and the index of one missing value: when V1_AGAIN, that
 * one is marked and the request made again without it, else it fails.
 */
static int get(struct eaton_priv *ep, const struct eaton_oid *const *oids,
               int n, struct eaton_val *val, const char *what, int v1_again)
{
  const struct eaton_oid *ask[3 * PMON_CH_MAX];
  int map[3 * PMON_CH_MAX], skip[3 * PMON_CH_MAX] = {0};

  for (int attempt = 0; attempt <= n; attempt++) {
    netsnmp_pdu *resp;
    const netsnmp_variable_list *vb;
    int k = 0, rc;

    for (int i = 0; i < n; i++)
      if (!skip[i]) {
        ask[k] = oids[i];
        map[k++] = i;
      }
    if (k == 0)
      return 0;
    if ((rc = request(ep, SNMP_MSG_GET, ask, k, what, &resp)) != 0)
      return rc;
    if (resp->errstat == SNMP_ERR_NOSUCHNAME && v1_again &&
        resp->errindex >= 1 && resp->errindex <= k) {
      int i = map[resp->errindex - 1];

      val[i].state = V_NOSUCHINSTANCE;
      val[i].type = 0;
      skip[i] = 1;
      snmp_free_pdu(resp);
      continue;
    }
    if (resp->errstat != SNMP_ERR_NOERROR) {
      rc = error_status(ep, resp, ask, k, what);
      snmp_free_pdu(resp);
      return rc;
    }
    vb = resp->variables;
    for (int j = 0; j < k && rc == 0; j++) {
      char want[200], got[200];

      if (vb == NULL)
        rc = pmon__fail(PMON_EFORMAT,
                        "eaton: %s: %s: the answer has %d values for %d "
                        "asked",
                        ep->where, what, j, k);
      else if (snmp_oid_compare(vb->name, vb->name_length, ask[j]->id,
                                ask[j]->len) != 0)
        rc = pmon__fail(PMON_EFORMAT,
                        "eaton: %s: %s: the answer names %s for %s",
                        ep->where, what,
                        oid_text(vb->name, vb->name_length, got, sizeof got),
                        oid_text(ask[j]->id, ask[j]->len, want, sizeof want));
      else
        take(vb, &val[map[j]]);
      if (vb != NULL) /* an answer may hold fewer values than asked */
        vb = vb->next_variable;
    }
    if (rc == 0 && vb != NULL)
      rc = pmon__fail(PMON_EFORMAT,
                      "eaton: %s: %s: the answer has more values than the "
                      "%d asked",
                      ep->where, what, k);
    snmp_free_pdu(resp);
    return rc;
  }
  return pmon__fail(PMON_EIO, "eaton: %s: %s: the agent keeps failing it",
                    ep->where, what);
}

/* "outlet 7" or "unit 1 outlet 7", for messages. */
static const char *label(const struct eaton_priv *ep, int c, char *buf,
                         size_t size)
{
  if (ep->unit != 0)
    snprintf(buf, size, "unit %d %s %d", ep->unit, kinds[ep->kind].word,
             ep->index[c]);
  else
    snprintf(buf, size, "%s %d", kinds[ep->kind].word, ep->index[c]);
  return buf;
}

/* Why value V of OID O, for channel C, is no reading: PMON_E* and a
 * message; 0 when it is one. */
static int judge(const struct eaton_priv *ep, int c, const struct eaton_oid *o,
                 const struct eaton_val *v, int code)
{
  char name[64], id[200];
  const char *why;
  char tmp[96];

  switch (v->state) {
  case V_OK:
    if (v->value < 0) {
      snprintf(tmp, sizeof tmp,
               "%ld W: negative, the PDU has no reading for it", v->value);
      why = tmp;
    } else if ((double)v->value > kinds[ep->kind].max_w) {
      snprintf(tmp, sizeof tmp, "%ld W: above %.0f W, not a plausible reading",
               v->value, kinds[ep->kind].max_w);
      why = tmp;
    } else {
      return 0;
    }
    code = PMON_EFORMAT;
    break;
  case V_NOSUCHOBJECT:
    why = "noSuchObject: the agent has no such column (an EATON ePDU "
          "that does not meter it?)";
    break;
  case V_NOSUCHINSTANCE:
    why = ep->version == SNMP_VERSION_1
            ? "noSuchName: the PDU has no such value"
            : "noSuchInstance: no such unit or outlet, or the PDU does not "
              "meter it";
    break;
  case V_ENDOFMIBVIEW:
    why = "endOfMibView: the agent has nothing there";
    break;
  default:
    snprintf(tmp, sizeof tmp, "a value of ASN type 0x%02x, not an integer",
             (unsigned)v->type);
    why = tmp;
    code = PMON_EFORMAT;
  }
  return pmon__fail(code, "eaton: %s: %s (%s): %s", ep->where,
                    label(ep, c, name, sizeof name),
                    oid_text(o->id, o->len, id, sizeof id), why);
}

/* ---- The Wh cross-check ---------------------------------------------- */

/* Keep the readings' own integral, per channel, for the cross-check. */
static void check_add(struct eaton_check *k, int n, uint64_t t,
                      const double *w)
{
  if (k->readings == 0) {
    k->t_first = t;
    memcpy(k->w_first, w, (size_t)n * sizeof *w);
  } else {
    double dt = (double)(t - k->t_last) * 1e-9;

    for (int c = 0; c < n; c++)
      k->joules[c] += 0.5 * (k->w_last[c] + w[c]) * dt;
  }
  memcpy(k->w_last, w, (size_t)n * sizeof *w);
  k->t_last = t;
  k->readings++;
}

/*
 * Compare the counters' rise from open to close with the integral of the
 * readings over the same span: from the first reading to the last,
 * extended at each end by the nearest reading to the instants the counters
 * were read.  The verdict goes into K->state.
 */
static void check_judge(struct eaton_check *k, int n)
{
  int counted = 0;

  k->counter_j = k->integral_j = 0;
  if (k->readings < 2) {
    k->state = CHECK_NODATA;
    return;
  }
  for (int c = 0; c < n; c++) {
    if (!k->has[c])
      continue;
    if (k->wh_close[c] < k->wh_open[c]) {
      k->state = CHECK_RESET;
      return;
    }
    counted++;
    k->counter_j += (double)(k->wh_close[c] - k->wh_open[c]) * WH_J;
    k->integral_j +=
      k->joules[c] +
      k->w_first[c] * (double)(k->t_first - k->t_open) * 1e-9 +
      k->w_last[c] * (double)(k->t_close - k->t_last) * 1e-9;
  }
  /* Each counter's rise is off by less than one step. */
  k->tolerance_j = counted * WH_J + CHECK_SHARE * k->integral_j;
  if (fmax(k->counter_j, k->integral_j) < counted * CHECK_MIN_STEPS * WH_J)
    k->state = CHECK_SHORT;
  else
    k->state = fabs(k->counter_j - k->integral_j) <= k->tolerance_j
                 ? CHECK_AGREE
                 : CHECK_DISAGREE;
}

/* Read the Wh counters again, at close, and judge. */
static void check_finish(struct eaton_priv *ep)
{
  struct eaton_check *k = &ep->check;
  const struct eaton_oid *oids[PMON_CH_MAX] = {NULL};
  struct eaton_val val[PMON_CH_MAX];
  int n = 0, map[PMON_CH_MAX];

  for (int c = 0; c < ep->n; c++)
    if (k->has[c]) {
      oids[n] = &ep->wh[c];
      map[n++] = c;
    }
  k->t_close = now_ns();
  if (get(ep, oids, n, val, "GET of the Wh counters at close", 0) != 0) {
    k->state = CHECK_FAILED;
    return;
  }
  for (int i = 0; i < n; i++) {
    if (val[i].state != V_OK || val[i].value < 0) {
      k->state = CHECK_FAILED;
      return;
    }
    k->wh_close[map[i]] = (unsigned long)val[i].value;
  }
  check_judge(k, ep->n);
}

/* The cross-check's verdict in words, into BUF: the meter's cross_check
 * event (see the man page). */
static const char *check_text(const struct eaton_check *k, char *buf,
                              size_t size)
{
  switch (k->state) {
  case CHECK_NONE:
    snprintf(buf, size, "no Wh counter");
    break;
  case CHECK_PENDING:
    snprintf(buf, size, "Wh counters read at open only");
    break;
  case CHECK_FAILED:
    snprintf(buf, size, "the Wh counters could not be read at close");
    break;
  case CHECK_NODATA:
    snprintf(buf, size, "fewer than two readings");
    break;
  case CHECK_RESET:
    snprintf(buf, size, "a Wh counter went back: it was reset");
    break;
  default:
    snprintf(buf, size,
             "%s: the Wh counters rose by %.0f J, the readings integrate "
             "to %.0f J (tolerance %.0f J)",
             k->state == CHECK_SHORT      ? "too short to judge"
             : k->state == CHECK_AGREE    ? "agree"
                                          : "disagree",
             k->counter_j, k->integral_j, k->tolerance_j);
  }
  return buf;
}

/* ---- Opening --------------------------------------------------------- */

/* Outlets: the unit's outlet count, each outlet's watts and Wh, in one
 * GET; the watts must be there, the rest may not. */
static int open_outlets(struct eaton_priv *ep)
{
  const struct eaton_oid *oids[1 + 2 * PMON_CH_MAX];
  struct eaton_val val[1 + 2 * PMON_CH_MAX];
  struct eaton_oid count;
  long u = ep->unit;
  int rc;

  make_oid(&count, COL(outlet_count_col), &u, 1);
  oids[0] = &count;
  for (int c = 0; c < ep->n; c++) {
    long idx[2] = {ep->unit, ep->index[c]};

    make_oid(&ep->watts[c], COL(outlet_watts_col), idx, 2);
    make_oid(&ep->wh[c], COL(outlet_wh_col), idx, 2);
    oids[1 + c] = &ep->watts[c];
    oids[1 + ep->n + c] = &ep->wh[c];
  }
  ep->check.t_open = now_ns();
  if ((rc = get(ep, oids, 1 + 2 * ep->n, val, "GET at open", 1)) != 0)
    return rc;
  for (int c = 0; c < ep->n; c++) {
    const struct eaton_val *w = &val[1 + c], *wh = &val[1 + ep->n + c];
    char id[200], id2[200], name[64];

    /* Why the watts are missing: the outlet count, when there is one,
     * says whether the outlet or the unit exists. */
    if (w->state == V_TYPE)
      return judge(ep, c, &ep->watts[c], w, PMON_EFORMAT);
    if (w->state != V_OK && val[0].state == V_OK &&
        ep->index[c] > val[0].value)
      return pmon__fail(PMON_ENOMETER,
                        "eaton: %s: %s: the unit has %ld outlets", ep->where,
                        label(ep, c, name, sizeof name), val[0].value);
    if (w->state != V_OK && val[0].state != V_OK)
      return pmon__fail(PMON_ENOMETER,
                        "eaton: %s: %s (%s): no value, and no outletCount "
                        "(%s): no unit %d in the daisy chain, or not an "
                        "EATON ePDU",
                        ep->where, label(ep, c, name, sizeof name),
                        oid_text(ep->watts[c].id, ep->watts[c].len, id,
                                 sizeof id),
                        oid_text(count.id, count.len, id2, sizeof id2),
                        ep->unit);
    if (w->state != V_OK)
      return judge(ep, c, &ep->watts[c], w, PMON_ENOMETER);
    ep->check.has[c] = wh->state == V_OK && wh->value >= 0;
    ep->check.wh_open[c] = (unsigned long)wh->value;
  }
  return 0;
}

/*
 * The inlet's total power row, in a G2 PDU's inputPowerTable: the row
 * of input N whose inputPowerMeasType is total(4), else the only row.
 * Walked with GETNEXT, which stops at the first answer outside the input's
 * rows, or at endOfMibView, noSuchObject or noSuchInstance.  The row into
 * *ROW, 0 when there is none.
 */
static int find_total_row(struct eaton_priv *ep, long input, long *row)
{
  long idx[2] = {ep->unit, input};
  struct eaton_oid prefix, at;
  const struct eaton_oid *ask[1] = {&at};
  int rows = 0;
  long only = 0;

  *row = 0;
  make_oid(&prefix, COL(meas_type_col), idx, 2);
  at = prefix;
  for (int step = 0; step <= ROWS_MAX; step++) {
    netsnmp_pdu *resp;
    const netsnmp_variable_list *vb;
    struct eaton_val v;
    int rc;

    if ((rc = request(ep, SNMP_MSG_GETNEXT, ask, 1, "GETNEXT at open",
                      &resp)) != 0)
      return rc;
    vb = resp->variables;
    if (resp->errstat == SNMP_ERR_NOSUCHNAME || vb == NULL) { /* v1: end */
      snmp_free_pdu(resp);
      break;
    }
    if (resp->errstat != SNMP_ERR_NOERROR) {
      rc = error_status(ep, resp, ask, 1, "GETNEXT at open");
      snmp_free_pdu(resp);
      return rc;
    }
    take(vb, &v);
    if (v.state != V_OK || vb->name_length != prefix.len + 1 ||
        snmp_oid_compare(vb->name, prefix.len, prefix.id, prefix.len) != 0) {
      snmp_free_pdu(resp);
      break;
    }
    memcpy(at.id, vb->name, vb->name_length * sizeof(oid));
    at.len = vb->name_length;
    snmp_free_pdu(resp);
    rows++;
    only = (long)at.id[at.len - 1];
    if (v.value == MEAS_TOTAL) {
      *row = only;
      return 0;
    }
  }
  if (rows == 1)
    *row = only;
  return 0;
}

/* The inlet: inputTotalWatts and inputTotalWh (G3), else the total row
 * of inputPowerTable (G2). */
static int open_input(struct eaton_priv *ep)
{
  const struct eaton_oid *oids[2] = {&ep->watts[0], &ep->wh[0]};
  struct eaton_val val[2];
  long idx[3] = {ep->unit, ep->index[0], 0};
  char id[200], id2[200], name[64];
  int rc;

  make_oid(&ep->watts[0], COL(input_total_watts_col), idx, 2);
  make_oid(&ep->wh[0], COL(input_total_wh_col), idx, 2);
  ep->check.t_open = now_ns();
  if ((rc = get(ep, oids, 2, val, "GET at open", 1)) != 0)
    return rc;
  if (val[0].state == V_TYPE)
    return judge(ep, 0, &ep->watts[0], &val[0], PMON_EFORMAT);
  if (val[0].state != V_OK) {
    if ((rc = find_total_row(ep, idx[1], &idx[2])) != 0)
      return rc;
    if (idx[2] == 0) {
      struct eaton_oid prefix;

      make_oid(&prefix, COL(meas_type_col), idx, 2);
      return pmon__fail(PMON_ENOMETER,
                        "eaton: %s: %s: neither inputTotalWatts (%s) nor a "
                        "total row under inputPowerMeasType (%s): no such "
                        "unit or input, or not an EATON ePDU",
                        ep->where, label(ep, 0, name, sizeof name),
                        oid_text(ep->watts[0].id, ep->watts[0].len, id,
                                 sizeof id),
                        oid_text(prefix.id, prefix.len, id2, sizeof id2));
    }
    make_oid(&ep->watts[0], COL(input_watts_col), idx, 3);
    make_oid(&ep->wh[0], COL(input_wh_col), idx, 3);
    ep->check.t_open = now_ns();
    if ((rc = get(ep, oids, 2, val, "GET at open", 1)) != 0)
      return rc;
    if (val[0].state != V_OK)
      return judge(ep, 0, &ep->watts[0], &val[0], PMON_ENOMETER);
  }
  ep->check.has[0] = val[1].state == V_OK && val[1].value >= 0;
  ep->check.wh_open[0] = (unsigned long)val[1].value;
  return 0;
}

/* The specification into EP and M's interval, without the network.  A
 * wrong specification is PMON_ECONFIG. */
static int configure(struct pmon_meter *m, struct eaton_priv *ep)
{
  static const char *const keys[] = {"unit", "version", "timeout",
                                     "retries", "interval", NULL};
  struct eaton_target t;
  int rc;

  if ((rc = pmon__spec_check_keys(&m->spec, keys)) != 0 ||
      (rc = parse_target(&m->spec, &t)) != 0 ||
      (rc = parse_params(m, ep)) != 0)
    return rc;
  ep->kind = t.kind;
  ep->n = t.n;
  memcpy(ep->index, t.index, sizeof ep->index);
  if (t.ipv6) {
    snprintf(ep->where, sizeof ep->where, "[%s]:%u", t.host, t.port);
    snprintf(ep->peer, sizeof ep->peer, "udp6:[%s]:%u", t.host, t.port);
  } else {
    /* A name is looked up once, when the session opens, for IPv4. */
    snprintf(ep->where, sizeof ep->where, "%s:%u", t.host, t.port);
    snprintf(ep->peer, sizeof ep->peer, "udp:%s:%u", t.host, t.port);
  }
  return 0;
}

static int eaton_open(struct pmon_meter *m)
{
  struct eaton_priv *ep = m->priv;
  int rc;

  /* Every check that can say PMON_ECONFIG comes before the network. */
  if ((rc = configure(m, ep)) != 0)
    return rc;
  library_init();
  if ((rc = session_open(&m->spec, ep)) != 0)
    return rc;
  {
    /* The readings' timeout and retries, and the open's patience. */
    netsnmp_session *ss = snmp_sess_session(ep->sess);
    double timeout_s = ep->timeout_s;
    int retries = ep->retries;

    ep->timeout_s = timeout_s > OPEN_TIMEOUT ? timeout_s : OPEN_TIMEOUT;
    ep->retries = retries > OPEN_RETRIES ? retries : OPEN_RETRIES;
    if (ss != NULL) {
      ss->timeout = (long)(ep->timeout_s * 1e6 + 0.5);
      ss->retries = ep->retries;
    }
    rc = ep->kind == KIND_OUTLET ? open_outlets(ep) : open_input(ep);
    ep->timeout_s = timeout_s;
    ep->retries = retries;
    if (ss != NULL) {
      ss->timeout = (long)(timeout_s * 1e6 + 0.5);
      ss->retries = retries;
    }
  }
  if (rc != 0) {
    snmp_sess_close(ep->sess);
    ep->sess = NULL;
    return rc;
  }
  ep->check.state = CHECK_NONE;
  for (int c = 0; c < ep->n; c++) {
    char name[PMON_CH_NAME_MAX];

    if (ep->check.has[c])
      ep->check.state = CHECK_PENDING;
    snprintf(name, sizeof name, "%s%d", kinds[ep->kind].word,
             ep->index[c]);
    /* Watts: scale 1, no wrap, whole watts (the MIB's unit).  Every
     * outlet counts: a node with two power supplies draws through both. */
    int ch = pmon__meter_add_channel(m, name, PMON_DOM_NODE, PMON_CH_TOTAL,
                                     1.0, 0);

    if (ch >= 0)
      m->ch[ch].res_w = 1.0;
  }
  return 0;
}

/* ---- Reading and closing --------------------------------------------- */

static int eaton_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct eaton_priv *ep = m->priv;
  const struct eaton_oid *oids[PMON_CH_MAX];
  struct eaton_val val[PMON_CH_MAX];
  uint64_t t0, t1;
  int rc;

  for (int c = 0; c < ep->n; c++)
    oids[c] = &ep->watts[c];
  t0 = now_ns();
  if ((rc = get(ep, oids, ep->n, val, "GET", 0)) != 0)
    return rc;
  t1 = now_ns();
  for (int c = 0; c < ep->n; c++) {
    if ((rc = judge(ep, c, &ep->watts[c], &val[c], PMON_EIO)) != 0)
      return rc;
    r->watts[c] = (double)val[c].value; /* the core integrates */
  }
  if (ep->check.state == CHECK_PENDING)
    check_add(&ep->check, ep->n, t0 + (t1 - t0) / 2, r->watts);
  return 0;
}

/* The Wh counters read again and judged: the verdict is the note. */
static int eaton_finish(struct pmon_meter *m, char *note, size_t size)
{
  struct eaton_priv *ep = m->priv;

  if (ep->sess == NULL || ep->check.state == CHECK_NONE)
    return 0;
  if (ep->check.state == CHECK_PENDING)
    check_finish(ep);
  check_text(&ep->check, note, size);
  return 1;
}

static void eaton_close(struct pmon_meter *m)
{
  struct eaton_priv *ep = m->priv;

  if (ep->sess == NULL)
    return;
  snmp_sess_close(ep->sess);
  ep->sess = NULL;
}

/* "auto" has no address to try: an ePDU is named, never guessed. */
static int eaton_probe(const struct pmon_spec *spec)
{
  (void)spec;
  return pmon__fail(PMON_ENOMETER,
                    "eaton: not detected: name the PDU in %s, as in "
                    "eaton://host/outlet/N",
                    PMON_ENV_METERS);
}

const struct pmon_driver pmon__driver_eaton = {
  .name = "eaton",                          /* MUST: PMON_METERS=eaton://... */
  .description = "EATON ePDU outlet or inlet power over SNMP", /* MUST */
  .flags = PMON_DRV_SAMPLED | PMON_DRV_EXTERNAL, /* read() gives watts */
  .priv_size = sizeof(struct eaton_priv),   /* MAY be 0 */
  .interval_s = INTERVAL_DEF,               /* MUST: the PDU's refresh */
  .probe = eaton_probe,                     /* MAY: auto never uses it */
  .open = eaton_open,                       /* MUST */
  .read = eaton_read,                       /* MUST */
  .finish = eaton_finish,                   /* MAY: the Wh cross-check */
  .close = eaton_close,                     /* MAY: the session */
};

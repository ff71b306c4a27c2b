/*
 * check_eaton.c - the eaton driver without a PDU: its URI and parameters,
 * its SNMP credentials, how it judges values, the Wh cross-check, and a
 * silent agent (a UDP socket that never answers).  The agent that answers
 * is in eaton-errors.test and eaton.test.
 *
 * The driver file is included so that the tests reach its parsers.
 */
#include "../drivers/eaton.c"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* Table-driven: each row carries its line, so a failure names it. */
static const struct {
  int line;
  const char *text;
  int rc;
  const char *host; /* the rest only when rc == 0 */
  unsigned port;
  int ipv6;
  int kind;
  int n;
  int index[3];
  const char *message; /* rc != 0: a part of the message */
} uri_rows[] = {
  {__LINE__, "eaton://pdu/outlet/7", 0, "pdu", 161, 0, KIND_OUTLET, 1, {7},
   NULL},
  {__LINE__, "eaton://pdu-1.example.org:1161/outlet/7+8", 0,
   "pdu-1.example.org", 1161, 0, KIND_OUTLET, 2, {7, 8}, NULL},
  {__LINE__, "eaton://s3cr@t@10.0.0.5/input/1", 0, "10.0.0.5", 161, 0,
   KIND_INPUT, 1, {1}, NULL},
  {__LINE__, "eaton://[::1]:1161/outlet/1+64+2", 0, "::1", 1161, 1,
   KIND_OUTLET, 3, {1, 64, 2}, NULL},
  {__LINE__, "eaton://[fe80::1]/outlet/007", 0, "fe80::1", 161, 1,
   KIND_OUTLET, 1, {7}, NULL},
  {__LINE__, "eaton://pdu:65535/outlet/1?version=3", 0, "pdu", 65535, 0,
   KIND_OUTLET, 1, {1}, NULL},
  {__LINE__, "eaton", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0}, "no //host"},
  {__LINE__, "eaton:pdu/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "no //host"},
  {__LINE__, "eaton:///outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "no host"},
  {__LINE__, "eaton://pdu", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "nothing after the host"},
  {__LINE__, "eaton://pdu:/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "port: not a number from 1 to 65535"},
  {__LINE__, "eaton://pdu:0/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "port"},
  {__LINE__, "eaton://pdu:65536/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0,
   {0}, "port"},
  {__LINE__, "eaton://pdu:161x/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0,
   {0}, "nothing after the host"},
  {__LINE__, "eaton://pd%20u/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "malformed host"},
  {__LINE__, "eaton://[::1/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "malformed [IPv6 address]"},
  {__LINE__, "eaton://[pdu]/outlet/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "malformed [IPv6 address]"},
  {__LINE__, "eaton://pdu/outlets/1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "neither /outlet/N nor /input/N"},
  {__LINE__, "eaton://pdu/outlet", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "neither /outlet/N nor /input/N"},
  {__LINE__, "eaton://pdu/outlet/", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an outlet is a number from 1 to 64"},
  {__LINE__, "eaton://pdu/outlet/0", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an outlet is a number from 1 to 64"},
  {__LINE__, "eaton://pdu/outlet/65", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an outlet is a number from 1 to 64"},
  {__LINE__, "eaton://pdu/outlet/-1", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an outlet is a number from 1 to 64"},
  {__LINE__, "eaton://pdu/outlet/7+", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an outlet is a number from 1 to 64"},
  {__LINE__, "eaton://pdu/outlet/7+7", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an outlet is named twice"},
  {__LINE__, "eaton://pdu/outlet/7/", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "unexpected text after a number"},
  {__LINE__, "eaton://pdu/outlet/7,8", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "unexpected text after a number"},
  {__LINE__, "eaton://pdu/input/1+2", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "one input per meter"},
  {__LINE__, "eaton://pdu/input/0", PMON_ECONFIG, NULL, 0, 0, 0, 0, {0},
   "an input is a number from 1 to 64"},
  {__LINE__,
   "eaton://pdu/outlet/1+2+3+4+5+6+7+8+9+10+11+12+13+14+15+16+17",
   PMON_ECONFIG, NULL, 0, 0, 0, 0, {0}, "more than 16 outlets"},
};

START_TEST(test_uri)
{
  struct pmon_spec spec;
  struct eaton_target t;
  int rc;

  ck_assert_int_eq(pmon__spec_parse(uri_rows[_i].text, &spec), 0);
  rc = parse_target(&spec, &t);
  ck_assert_msg(rc == uri_rows[_i].rc, "row at line %d: rc %d",
                uri_rows[_i].line, rc);
  if (rc != 0) {
    ck_assert_msg(strstr(pmon_errmsg(), uri_rows[_i].message) != NULL,
                  "row at line %d: message %s", uri_rows[_i].line,
                  pmon_errmsg());
    ck_assert_msg(strstr(pmon_errmsg(), "expected eaton://") != NULL,
                  "row at line %d: message %s", uri_rows[_i].line,
                  pmon_errmsg());
    ck_assert_msg(strstr(pmon_errmsg(), "s3cr") == NULL,
                  "row at line %d: a secret in %s", uri_rows[_i].line,
                  pmon_errmsg());
    return;
  }
  ck_assert_msg(strcmp(t.host, uri_rows[_i].host) == 0 &&
                  t.port == uri_rows[_i].port &&
                  t.ipv6 == uri_rows[_i].ipv6 &&
                  t.kind == uri_rows[_i].kind && t.n == uri_rows[_i].n,
                "row at line %d: %s %u %d %d %d", uri_rows[_i].line, t.host,
                t.port, t.ipv6, t.kind, t.n);
  for (int i = 0; i < t.n; i++)
    ck_assert_msg(t.index[i] == uri_rows[_i].index[i],
                  "row at line %d: index %d is %d", uri_rows[_i].line, i,
                  t.index[i]);
}
END_TEST

/* Parameters: the values taken, or PMON_ECONFIG. */
static const struct {
  int line;
  const char *query; /* after eaton://pdu:1161/outlet/1+2 */
  int rc;
  double interval, timeout;
  int retries, unit;
  long version;
  const char *message;
} param_rows[] = {
  {__LINE__, "", 0, 1.0, 0.45, 1, 0, SNMP_VERSION_2c, NULL},
  {__LINE__, "?interval=2", 0, 2.0, 0.5, 1, 0, SNMP_VERSION_2c, NULL},
  {__LINE__, "?interval=0.2", 0, 0.2, 0.09, 1, 0, SNMP_VERSION_2c, NULL},
  {__LINE__, "?retries=0", 0, 1.0, 0.5, 0, 0, SNMP_VERSION_2c, NULL},
  {__LINE__, "?retries=3&timeout=0.2", 0, 1.0, 0.2, 3, 0, SNMP_VERSION_2c,
   NULL},
  {__LINE__, "?interval=0.05&retries=3", 0, 0.05, 0.01125, 3, 0,
   SNMP_VERSION_2c, NULL},
  {__LINE__, "?timeout=5&interval=10&retries=0", 0, 10.0, 5.0, 0, 0,
   SNMP_VERSION_2c, NULL},
  {__LINE__, "?unit=23&version=1", 0, 1.0, 0.45, 1, 23, SNMP_VERSION_1,
   NULL},
  {__LINE__, "?version=2c&unit=0", 0, 1.0, 0.45, 1, 0, SNMP_VERSION_2c,
   NULL},
  {__LINE__, "?version=3", 0, 1.0, 0.45, 1, 0, SNMP_VERSION_3, NULL},
  {__LINE__, "?timeout=0.5", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "timeout 0.5 s x 2 tries = 1 s: a reading could outlast the interval "
   "of 1 s"},
  {__LINE__, "?timeout=0.2&retries=3&interval=0.8", PMON_ECONFIG, 0, 0, 0,
   0, 0, "outlast the interval"},
  {__LINE__, "?timeout=6", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "timeout=6: not a number from 0.01 to 5"},
  {__LINE__, "?timeout=0", PMON_ECONFIG, 0, 0, 0, 0, 0, "timeout=0"},
  {__LINE__, "?retries=4", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "retries=4: not a number from 0 to 3"},
  {__LINE__, "?retries=1.5", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "retries=1.5: not a whole number"},
  {__LINE__, "?unit=24", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "unit=24: not a number from 0 to 23"},
  {__LINE__, "?unit=x", PMON_ECONFIG, 0, 0, 0, 0, 0, "unit=x"},
  {__LINE__, "?interval=0.01", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "interval=0.01: not a number from 0.05 to 3600"},
  {__LINE__, "?version=2", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "version=2: expected 1, 2c or 3"},
  {__LINE__, "?version=v3", PMON_ECONFIG, 0, 0, 0, 0, 0, "version=v3"},
  {__LINE__, "?community=public", PMON_ECONFIG, 0, 0, 0, 0, 0,
   "unknown parameter community"},
};

static struct pmon_meter meter;
static struct eaton_priv priv;

static int meter_spec(const char *text)
{
  memset(&meter, 0, sizeof meter);
  memset(&priv, 0, sizeof priv);
  meter.drv = &pmon__driver_eaton;
  meter.priv = &priv;
  meter.flags = meter.drv->flags;
  meter.interval_s = meter.drv->interval_s;
  return pmon__spec_parse(text, &meter.spec);
}

START_TEST(test_params)
{
  char text[256];
  int rc;

  snprintf(text, sizeof text, "eaton://pdu:1161/outlet/1+2%s",
           param_rows[_i].query);
  ck_assert_int_eq(meter_spec(text), 0);
  rc = configure(&meter, &priv);
  ck_assert_msg(rc == param_rows[_i].rc, "row at line %d: rc %d (%s)",
                param_rows[_i].line, rc, pmon_errmsg());
  if (rc != 0) {
    ck_assert_msg(strstr(pmon_errmsg(), param_rows[_i].message) != NULL,
                  "row at line %d: message %s", param_rows[_i].line,
                  pmon_errmsg());
    return;
  }
  ck_assert_msg(fabs(meter.interval_s - param_rows[_i].interval) < 1e-9 &&
                  fabs(priv.timeout_s - param_rows[_i].timeout) < 1e-9 &&
                  priv.retries == param_rows[_i].retries &&
                  priv.unit == param_rows[_i].unit &&
                  priv.version == param_rows[_i].version,
                "row at line %d: interval %g timeout %g retries %d unit %d "
                "version %ld",
                param_rows[_i].line, meter.interval_s, priv.timeout_s,
                priv.retries, priv.unit, priv.version);
  ck_assert_msg(priv.timeout_s * (priv.retries + 1) < meter.interval_s,
                "row at line %d: a reading could outlast the interval",
                param_rows[_i].line);
  ck_assert_str_eq(priv.where, "pdu:1161");
  ck_assert_str_eq(priv.peer, "udp:pdu:1161");
}
END_TEST

START_TEST(test_ipv6_peer)
{
  ck_assert_int_eq(meter_spec("eaton://[::1]/outlet/1"), 0);
  ck_assert_int_eq(configure(&meter, &priv), 0);
  ck_assert_str_eq(priv.where, "[::1]:161");
  ck_assert_str_eq(priv.peer, "udp6:[::1]:161");
}
END_TEST

/* Credentials: the community or the USM level taken, or PMON_ECONFIG,
 * whose message never shows a secret. */
#define PASS8 "sec-pass-1"
static const struct {
  int line;
  const char *text;
  const char *secrets[4]; /* key=value, from the site file */
  int rc;
  const char *community; /* v1, v2c */
  int level;             /* v3 */
  const char *message;
} cred_rows[] = {
  {__LINE__, "eaton://pdu/outlet/1", {NULL}, 0, "public", 0, NULL},
  {__LINE__, "eaton://c0mm@pdu/outlet/1", {NULL}, 0, "c0mm", 0, NULL},
  {__LINE__, "eaton://c0:mm@pdu/outlet/1", {NULL}, 0, "c0:mm", 0, NULL},
  {__LINE__, "eaton://pdu/outlet/1?version=1", {"community=fromsite"}, 0,
   "fromsite", 0, NULL},
  {__LINE__, "eaton://c0mm@pdu/outlet/1", {"community=fromsite"}, 0, "c0mm",
   0, NULL},
  {__LINE__, "eaton://@pdu/outlet/1", {NULL}, PMON_ECONFIG, NULL, 0,
   "the community is empty"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3", {NULL}, 0, NULL,
   SNMP_SEC_LEVEL_NOAUTH, NULL},
  {__LINE__, "eaton://pdu/outlet/1?version=3", {"user=u5er"}, 0, NULL,
   SNMP_SEC_LEVEL_NOAUTH, NULL},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3", {"auth_pass=" PASS8},
   0, NULL, SNMP_SEC_LEVEL_AUTHNOPRIV, NULL},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3",
   {"auth_pass=" PASS8, "auth_proto=md5"}, 0, NULL,
   SNMP_SEC_LEVEL_AUTHNOPRIV, NULL},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3",
   {"auth_pass=" PASS8, "priv_pass=" PASS8}, 0, NULL,
   SNMP_SEC_LEVEL_AUTHPRIV, NULL},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3",
   {"auth_pass=" PASS8, "priv_pass=" PASS8, "priv_proto=DES",
    "auth_proto=SHA"},
   0, NULL, SNMP_SEC_LEVEL_AUTHPRIV, NULL},
  {__LINE__, "eaton://pdu/outlet/1?version=3", {NULL}, PMON_ECONFIG, NULL, 0,
   "SNMP v3 needs a user name"},
  {__LINE__, "eaton://u5er:" PASS8 "@pdu/outlet/1?version=3", {NULL},
   PMON_ECONFIG, NULL, 0, "with SNMP v3 the URI names only the user"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3", {"auth_proto=SHA"},
   PMON_ECONFIG, NULL, 0, "secret auth_proto without auth_pass"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3",
   {"auth_pass=" PASS8, "priv_proto=AES"}, PMON_ECONFIG, NULL, 0,
   "secret priv_proto without priv_pass"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3", {"priv_pass=" PASS8},
   PMON_ECONFIG, NULL, 0, "secret priv_pass without auth_pass"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3", {"auth_pass=shrt-pw"},
   PMON_ECONFIG, NULL, 0, "shorter than 8 characters"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3",
   {"auth_pass=" PASS8, "auth_proto=SHA-256"}, PMON_ECONFIG, NULL, 0,
   "secret auth_proto: expected MD5 or SHA"},
  {__LINE__, "eaton://u5er@pdu/outlet/1?version=3",
   {"auth_pass=" PASS8, "priv_pass=" PASS8, "priv_proto=3DES"},
   PMON_ECONFIG, NULL, 0, "secret priv_proto: expected DES or AES"},
};

START_TEST(test_credentials)
{
  netsnmp_session s;
  char community[600];
  int rc;

  ck_assert_int_eq(meter_spec(cred_rows[_i].text), 0);
  for (int k = 0; k < 4 && cred_rows[_i].secrets[k] != NULL; k++) {
    char kv[128], *eq;

    snprintf(kv, sizeof kv, "%s", cred_rows[_i].secrets[k]);
    eq = strchr(kv, '=');
    *eq = '\0';
    ck_assert_int_eq(pmon__spec_add_secret(&meter.spec, kv, eq + 1), 0);
  }
  ck_assert_int_eq(configure(&meter, &priv), 0);
  library_init();
  snmp_sess_init(&s);
  s.version = priv.version;
  rc = credentials(&meter.spec, &s, community, sizeof community);
  ck_assert_msg(rc == cred_rows[_i].rc, "row at line %d: rc %d (%s)",
                cred_rows[_i].line, rc, pmon_errmsg());
  if (rc != 0) {
    ck_assert_msg(strstr(pmon_errmsg(), cred_rows[_i].message) != NULL,
                  "row at line %d: message %s", cred_rows[_i].line,
                  pmon_errmsg());
    ck_assert_msg(strstr(pmon_errmsg(), "sec-pass") == NULL &&
                    strstr(pmon_errmsg(), "shrt-pw") == NULL &&
                    strstr(pmon_errmsg(), "u5er") == NULL,
                  "row at line %d: a secret in %s", cred_rows[_i].line,
                  pmon_errmsg());
    return;
  }
  if (cred_rows[_i].community != NULL) {
    ck_assert_msg(s.community_len == strlen(cred_rows[_i].community) &&
                    memcmp(s.community, cred_rows[_i].community,
                           s.community_len) == 0,
                  "row at line %d: community %s", cred_rows[_i].line,
                  community);
  } else {
    ck_assert_msg(s.securityLevel == cred_rows[_i].level,
                  "row at line %d: level %d", cred_rows[_i].line,
                  s.securityLevel);
    ck_assert_str_eq(s.securityName, "u5er");
    if (s.securityLevel >= SNMP_SEC_LEVEL_AUTHNOPRIV)
      ck_assert_uint_gt(s.securityAuthKeyLen, 0);
    if (s.securityLevel == SNMP_SEC_LEVEL_AUTHPRIV)
      ck_assert_uint_gt(s.securityPrivKeyLen, 0);
  }
}
END_TEST

/* How a value is judged: a reading, or an error that names the outlet
 * and its OID. */
static const struct {
  int line;
  int state;
  long value;
  int rc;
  const char *message;
} judge_rows[] = {
  {__LINE__, V_OK, 0, 0, NULL},
  {__LINE__, V_OK, 10000, 0, NULL},
  {__LINE__, V_OK, 10001, PMON_EFORMAT,
   "10001 W: above 10000 W, not a plausible reading"},
  {__LINE__, V_OK, -1, PMON_EFORMAT,
   "-1 W: negative, the PDU has no reading for it"},
  {__LINE__, V_NOSUCHOBJECT, 0, PMON_EIO, "noSuchObject"},
  {__LINE__, V_NOSUCHINSTANCE, 0, PMON_EIO, "noSuchInstance"},
  {__LINE__, V_ENDOFMIBVIEW, 0, PMON_EIO, "endOfMibView"},
  {__LINE__, V_TYPE, 0, PMON_EFORMAT, "a value of ASN type 0x04"},
};

START_TEST(test_judge)
{
  struct eaton_val v = {judge_rows[_i].state, ASN_OCTET_STR,
                        judge_rows[_i].value};
  int rc;

  ck_assert_int_eq(meter_spec("eaton://pdu/outlet/7?unit=2"), 0);
  ck_assert_int_eq(configure(&meter, &priv), 0);
  {
    long idx[2] = {2, 7};

    make_oid(&priv.watts[0], COL(outlet_watts_col), idx, 2);
  }
  rc = judge(&priv, 0, &priv.watts[0], &v, PMON_EIO);
  ck_assert_msg(rc == judge_rows[_i].rc, "row at line %d: rc %d",
                judge_rows[_i].line, rc);
  if (rc != 0) {
    ck_assert_msg(strstr(pmon_errmsg(), judge_rows[_i].message) != NULL,
                  "row at line %d: message %s", judge_rows[_i].line,
                  pmon_errmsg());
    ck_assert_msg(strstr(pmon_errmsg(),
                         "pmon: eaton: pdu:161: unit 2 outlet 7 "
                         "(1.3.6.1.4.1.534.6.6.7.6.5.1.3.2.7): ") != NULL,
                  "row at line %d: message %s", judge_rows[_i].line,
                  pmon_errmsg());
  }
}
END_TEST

/* The Wh cross-check over 100 s of two outlets: the readings integrate to
 * JOULES each; the counters rise by WH each. */
static const struct {
  int line;
  double watts;       /* both outlets, constant */
  unsigned long wh0, wh1;
  unsigned long readings;
  int state;
} check_rows[] = {
  /* 400 W for 100 s: 11.1 Wh each, counters 11 or 12 Wh up: agree. */
  {__LINE__, 400, 1000, 1011, 101, CHECK_AGREE},
  {__LINE__, 400, 1000, 1012, 101, CHECK_AGREE},
  {__LINE__, 400, 1000, 1013, 101, CHECK_DISAGREE},
  {__LINE__, 400, 1000, 1009, 101, CHECK_DISAGREE},
  {__LINE__, 400, 1000, 1000, 101, CHECK_DISAGREE},
  /* 100 W for 100 s is 2.8 Wh: too few steps to tell. */
  {__LINE__, 100, 1000, 1003, 101, CHECK_SHORT},
  {__LINE__, 400, 1000, 999, 101, CHECK_RESET},
  {__LINE__, 400, 1000, 1011, 1, CHECK_NODATA},
};

START_TEST(test_check)
{
  struct eaton_check k;
  double w[2] = {check_rows[_i].watts, check_rows[_i].watts};

  memset(&k, 0, sizeof k);
  k.state = CHECK_PENDING;
  k.has[0] = k.has[1] = 1;
  k.wh_open[0] = k.wh_open[1] = check_rows[_i].wh0;
  k.wh_close[0] = k.wh_close[1] = check_rows[_i].wh1;
  k.t_open = 1000000000u;
  for (unsigned long r = 0; r < check_rows[_i].readings; r++)
    check_add(&k, 2, k.t_open + r * 1000000000u, w);
  k.t_close = k.t_open + (uint64_t)100 * 1000000000u;
  check_judge(&k, 2);
  ck_assert_msg(k.state == check_rows[_i].state, "row at line %d: state %d",
                check_rows[_i].line, k.state);
  if (k.state >= CHECK_SHORT) {
    char text[200];

    ck_assert_msg(fabs(k.integral_j - 2 * 100 * check_rows[_i].watts) < 1e-6,
                  "row at line %d: integral %g", check_rows[_i].line,
                  k.integral_j);
    check_text(&k, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "the Wh counters rose by"));
  }
}
END_TEST

/* A channel without a counter is left out of the check. */
START_TEST(test_check_partial)
{
  struct eaton_check k;
  double w[2] = {400, 100};

  memset(&k, 0, sizeof k);
  k.has[0] = 1;
  k.wh_open[0] = 50;
  k.wh_close[0] = 61;
  k.wh_open[1] = 500; /* no counter: ignored */
  for (int r = 0; r <= 100; r++)
    check_add(&k, 2, (uint64_t)r * 1000000000u, w);
  k.t_close = (uint64_t)100 * 1000000000u;
  check_judge(&k, 2);
  ck_assert_int_eq(k.state, CHECK_AGREE);
  ck_assert(fabs(k.integral_j - 40000) < 1e-6);
}
END_TEST

/* A PDU that never answers: the meter fails to open with PMON_EIO in
 * 0.5 s x (retries + 1) (the open's patience, above timeout=), and the
 * message names the address, not the community. */
START_TEST(test_silent_agent)
{
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  char text[200];
  uint64_t t0;
  double took;
  int rc;

  ck_assert_int_ge(fd, 0);
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  snprintf(text, sizeof text,
           "eaton://c0mmunity@127.0.0.1:%u/outlet/1?timeout=0.05&retries=2",
           (unsigned)ntohs(a.sin_port));
  ck_assert_int_eq(meter_spec(text), 0);
  t0 = now_ns();
  rc = pmon__driver_eaton.open(&meter);
  took = (double)(now_ns() - t0) * 1e-9;
  ck_assert_int_eq(rc, PMON_EIO);
  /* The open's patience: 0.5 s a try, whatever the timeout; bounded. */
  ck_assert_msg(took >= 1.5 && took < 10, "took %g s", took);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "no answer in 1.5 s (3 tries "
                                              "of 0.5 s)"));
  ck_assert_ptr_null(strstr(pmon_errmsg(), "c0mmunity"));
  ck_assert_ptr_null(priv.sess);
  close(fd);
}
END_TEST

/* auto never opens an ePDU: there is no address to try. */
START_TEST(test_probe)
{
  struct pmon_spec spec;

  ck_assert_int_eq(pmon__spec_parse("eaton", &spec), 0);
  ck_assert_int_eq(pmon__driver_eaton.probe(&spec), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "not detected"));
  ck_assert_ptr_eq(pmon__driver_find("eaton"), &pmon__driver_eaton);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("eaton");
  TCase *parse = tcase_create("parse");
  TCase *snmp = tcase_create("snmp");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(parse, test_uri, 0,
                      sizeof uri_rows / sizeof uri_rows[0]);
  tcase_add_loop_test(parse, test_params, 0,
                      sizeof param_rows / sizeof param_rows[0]);
  tcase_add_test(parse, test_ipv6_peer);
  tcase_add_loop_test(parse, test_judge, 0,
                      sizeof judge_rows / sizeof judge_rows[0]);
  tcase_add_loop_test(parse, test_check, 0,
                      sizeof check_rows / sizeof check_rows[0]);
  tcase_add_test(parse, test_check_partial);
  tcase_add_test(parse, test_probe);
  suite_add_tcase(s, parse);
  tcase_add_loop_test(snmp, test_credentials, 0,
                      sizeof cred_rows / sizeof cred_rows[0]);
  tcase_add_test(snmp, test_silent_agent);
  suite_add_tcase(s, snmp);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

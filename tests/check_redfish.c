/*
 * check_redfish.c - the redfish driver without a BMC: specifications that
 * open() must refuse, a BMC that is not there, and the reading of Redfish
 * documents (sources, PowerControl channels, malformed values).
 *
 * The driver file is included so that the tests reach its static
 * functions.  The tests with a live peer are the redfish-*.test scripts.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../drivers/redfish.c"

#define USER "us3rname"
#define PASS "pa55word"

/* Open TEXT as a meter into *M (its priv allocated).  The code. */
static int open_text(const char *text, struct pmon_meter *m)
{
  memset(m, 0, sizeof *m);
  ck_assert_int_eq(pmon__spec_parse(text, &m->spec), 0);
  m->drv = &pmon__driver_redfish;
  m->flags = m->drv->flags;
  m->interval_s = m->drv->interval_s;
  m->priv = calloc(1, m->drv->priv_size);
  ck_assert_ptr_nonnull(m->priv);
  return m->drv->open(m);
}

/* Specifications and what open() says, without a BMC to answer: nothing
 * listens on port 1 of the loopback addresses. */
static const struct {
  int line;
  const char *text;
  int rc;
  const char *message; /* a part of pmon_errmsg() */
} open_rows[] = {
  {__LINE__, "redfish", PMON_ECONFIG, "expected redfish://"},
  {__LINE__, "redfish://127.0.0.1", PMON_ECONFIG, "expected redfish://"},
  {__LINE__, "redfish://127.0.0.1/", PMON_ECONFIG, "expected redfish://"},
  {__LINE__, "redfish://127.0.0.1/a/b", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://127.0.0.1/a b", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish:127.0.0.1/1U", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://127.0.0.1:0/1U", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://127.0.0.1:65536/1U", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://127.0.0.1:+80/1U", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://127.0.0.1:/1U", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://[::1/1U", PMON_ECONFIG, "expected"},
  {__LINE__, "redfish://h/1U?scheme=ftp", PMON_ECONFIG,
   "scheme=ftp: expected https or http"},
  {__LINE__, "redfish://h/1U?source=watts", PMON_ECONFIG, "source=watts"},
  {__LINE__, "redfish://h/1U?insecure=yes", PMON_ECONFIG,
   "insecure=yes: expected 0 or 1"},
  {__LINE__, "redfish://h/1U?scheme=http&insecure=1", PMON_ECONFIG,
   "apply to scheme=https only"},
  {__LINE__, "redfish://h/1U?cacert=/dev/null&insecure=1", PMON_ECONFIG,
   "contradict"},
  {__LINE__, "redfish://h/1U?cacert=/nonexistent/ca.pem", PMON_ECONFIG,
   "cannot read"},
  {__LINE__, "redfish://h/1U?timeout=61", PMON_ECONFIG, "timeout=61"},
  {__LINE__, "redfish://h/1U?interval=0", PMON_ECONFIG, "interval=0"},
  {__LINE__, "redfish://h/1U?user=x", PMON_ECONFIG, "unknown parameter"},
  {__LINE__, "redfish://" USER ":" PASS "@192.0.2.1/1U?scheme=http",
   PMON_ECONFIG, "clear text"},
  {__LINE__, "redfish://" USER ":" PASS "@127.1.example/1U?scheme=http",
   PMON_ECONFIG, "clear text"},
  {__LINE__, "redfish://" USER ":" PASS "@127.0.0.1:1/1U?scheme=http",
   PMON_EIO, "redfish: http://127.0.0.1:1/redfish/v1/Chassis/1U: GET: "},
  {__LINE__, "redfish://" USER ":" PASS "@localhost:1/1U?scheme=http",
   PMON_EIO, "redfish: http://localhost:1/redfish/v1/Chassis/1U: GET: "},
  {__LINE__, "redfish://" USER ":" PASS "@127.0.0.1:1/1U", PMON_EIO,
   "redfish: https://127.0.0.1:1/redfish/v1/Chassis/1U: GET: "},
  {__LINE__, "redfish://127.0.0.1:1/1U?insecure=1&timeout=0.5", PMON_EIO,
   "GET: "},
};

START_TEST(test_open)
{
  struct pmon_meter m;
  int rc = open_text(open_rows[_i].text, &m);
  const char *msg = pmon_errmsg();

  ck_assert_msg(rc == open_rows[_i].rc, "row at line %d: rc %d, message %s",
                open_rows[_i].line, rc, msg);
  ck_assert_msg(strstr(msg, open_rows[_i].message) != NULL,
                "row at line %d: message %s", open_rows[_i].line, msg);
  ck_assert_msg(strstr(msg, USER) == NULL && strstr(msg, PASS) == NULL,
                "row at line %d: a secret in %s", open_rows[_i].line, msg);
  ck_assert_msg(strstr(m.spec.text, PASS) == NULL, "row at line %d",
                open_rows[_i].line);
  free(m.priv);
}
END_TEST

START_TEST(test_probe)
{
  struct pmon_spec spec;

  ck_assert_int_eq(pmon__spec_parse("redfish", &spec), 0);
  ck_assert_int_eq(rf_probe(&spec), PMON_ENOMETER);
  ck_assert_int_eq(pmon__spec_parse("redfish://bmc/1", &spec), 0);
  ck_assert_int_eq(rf_probe(&spec), 0);
}
END_TEST

/* One document, one source: the reading or the error. */
static const struct {
  int line;
  enum source src;
  const char *json;
  int rc;
  double value;        /* watts[0], or raw[0] in millijoules */
  const char *message; /* on failure */
} value_rows[] = {
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {\"Reading\": 1234.5678}}", 0,
   1234568, NULL},
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {\"Reading\": 7}}", 0, 7000,
   NULL},
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {\"Reading\": null}}",
   PMON_EFORMAT, 0, "EnergyJoules.Reading: null"},
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {}}", PMON_EFORMAT, 0,
   "EnergyJoules.Reading: missing"},
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {\"Reading\": \"7\"}}",
   PMON_EFORMAT, 0, "not a number"},
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {\"Reading\": -1}}",
   PMON_EFORMAT, 0, "out of range"},
  {__LINE__, SRC_ENERGY, "{\"EnergyJoules\": {\"Reading\": 2e16}}",
   PMON_EFORMAT, 0, "out of range"},
  {__LINE__, SRC_ENERGY, "{\"PowerWatts\": {\"Reading\": 300}}",
   PMON_EFORMAT, 0, "missing"},
  {__LINE__, SRC_POWER, "{\"PowerWatts\": {\"Reading\": 374.5}}", 0, 374.5,
   NULL},
  {__LINE__, SRC_POWER, "{\"PowerWatts\": {\"Reading\": -3}}", PMON_EFORMAT,
   0, "is not a power reading"},
  {__LINE__, SRC_POWER, "{\"PowerWatts\": 374}", PMON_EFORMAT, 0,
   "PowerWatts.Reading: missing"},
};

START_TEST(test_value)
{
  struct rf_priv p;
  struct pmon_reading r;
  json_t *doc = json_loads(value_rows[_i].json, 0, NULL);
  int rc;

  memset(&p, 0, sizeof p);
  memset(&r, 0, sizeof r);
  p.src = value_rows[_i].src;
  ck_assert_ptr_nonnull(doc);
  rc = value(&p, doc, &r);
  json_decref(doc);
  ck_assert_msg(rc == value_rows[_i].rc, "row at line %d: rc %d (%s)",
                value_rows[_i].line, rc, pmon_errmsg());
  if (rc != 0)
    ck_assert_msg(strstr(pmon_errmsg(), value_rows[_i].message) != NULL,
                  "row at line %d: %s", value_rows[_i].line, pmon_errmsg());
  else if (p.src == SRC_ENERGY)
    ck_assert_msg(r.raw[0] == (uint64_t)value_rows[_i].value,
                  "row at line %d: %llu", value_rows[_i].line,
                  (unsigned long long)r.raw[0]);
  else
    ck_assert_msg(r.watts[0] == value_rows[_i].value, "row at line %d: %g",
                  value_rows[_i].line, r.watts[0]);
}
END_TEST

/* PowerControl entries by PhysicalContext: the whole chassis adds up to
 * the node, parts are channels beside it, the rest is not read. */
START_TEST(test_legacy_channels)
{
  static const char *const json =
      "{\"PowerControl\": ["
      "{\"PowerConsumedWatts\": 300},"
      "{\"PhysicalContext\": \"CPU\", \"PowerConsumedWatts\": 120},"
      "{\"PhysicalContext\": \"Memory\", \"PowerConsumedWatts\": 30},"
      "{\"PhysicalContext\": \"CPU\", \"PowerConsumedWatts\": 110},"
      "{\"PhysicalContext\": \"Intake\", \"PowerConsumedWatts\": 5},"
      "{\"PhysicalContext\": \"Chassis\", \"PowerConsumedWatts\": 50},"
      "{\"PowerLimit\": {\"LimitInWatts\": 500}}]}";
  struct pmon_meter m;
  struct rf_priv p;
  struct pmon_reading r;
  json_t *doc = json_loads(json, 0, NULL);

  memset(&m, 0, sizeof m);
  memset(&p, 0, sizeof p);
  memset(&r, 0, sizeof r);
  m.priv = &p;
  p.src = SRC_LEGACY;
  ck_assert_ptr_nonnull(doc);
  ck_assert_int_eq(plan_legacy(&m, doc), 0);
  ck_assert_int_eq(m.nch, 3);
  ck_assert_str_eq(m.ch[0].name, "node");
  ck_assert_uint_eq(m.ch[0].flags, PMON_CH_TOTAL);
  ck_assert_str_eq(m.ch[1].name, "cpu");
  ck_assert_int_eq(m.ch[1].domain, PMON_DOM_CPU);
  ck_assert_uint_eq(m.ch[1].flags, 0);
  ck_assert_str_eq(m.ch[2].name, "memory");
  ck_assert_int_eq(value(&p, doc, &r), 0);
  ck_assert_double_eq(r.watts[0], 350);
  ck_assert_double_eq(r.watts[1], 230);
  ck_assert_double_eq(r.watts[2], 30);
  json_decref(doc);

  /* An entry fewer than at open: refused, not misread. */
  doc = json_loads("{\"PowerControl\": [{\"PowerConsumedWatts\": 300}]}", 0,
                   NULL);
  ck_assert_int_eq(value(&p, doc, &r), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "7 entries as it was at open"));
  json_decref(doc);

  /* Parts only: no node. */
  doc = json_loads("{\"PowerControl\": [{\"PhysicalContext\": \"CPU\", "
                   "\"PowerConsumedWatts\": 120}]}", 0, NULL);
  ck_assert_int_eq(plan_legacy(&m, doc), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "whole chassis"));
  json_decref(doc);
}
END_TEST

START_TEST(test_links)
{
  json_t *doc = json_loads(
      "{\"EnvironmentMetrics\": {\"@odata.id\": \"/redfish/v1/Chassis/A/EM\"},"
      " \"Power\": {\"@odata.id\": \"https://elsewhere/redfish/v1/x\"},"
      " \"Thermal\": {\"@odata.id\": \"/redfish/v1/a?b\"}}", 0, NULL);
  char path[PATH_LEN];

  strcpy(path, "default");
  link_of(doc, "EnvironmentMetrics", path, sizeof path);
  ck_assert_str_eq(path, "/redfish/v1/Chassis/A/EM");
  strcpy(path, "default");
  link_of(doc, "Power", path, sizeof path);
  ck_assert_str_eq(path, "default");
  link_of(doc, "Thermal", path, sizeof path);
  ck_assert_str_eq(path, "default");
  link_of(doc, "Sensors", path, sizeof path);
  ck_assert_str_eq(path, "default");
  json_decref(doc);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("redfish");
  TCase *spec = tcase_create("spec");
  TCase *doc = tcase_create("documents");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(spec, test_open, 0,
                      sizeof open_rows / sizeof open_rows[0]);
  tcase_add_test(spec, test_probe);
  suite_add_tcase(s, spec);
  tcase_add_loop_test(doc, test_value, 0,
                      sizeof value_rows / sizeof value_rows[0]);
  tcase_add_test(doc, test_legacy_channels);
  tcase_add_test(doc, test_links);
  suite_add_tcase(s, doc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

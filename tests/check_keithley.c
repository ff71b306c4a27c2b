/*
 * check_keithley.c - the keithley driver's parsing: readings, the power
 * formula, and the meter specification.  The driver file is included so
 * that the tests reach its static functions; the line itself is tested
 * against tests/keithley_emu by the keithley-*.test scripts.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../drivers/keithley.c"

/* Table-driven: each row carries its line, so a failure names it. */
static const struct {
  int line;
  const char *text;
  int why; /* 0: accepted, else REJ_* */
  double volts;
} reading_rows[] = {
  {__LINE__, "+1.23456789E-03", 0, 1.23456789e-3},
  {__LINE__, "1.5", 0, 1.5},
  {__LINE__, "+0.00000000E+00", 0, 0},
  {__LINE__, ".25", 0, 0.25},
  {__LINE__, "+1.23456789E-03VAC", 0, 1.23456789e-3},
  {__LINE__, "+1.23456789E-03VAC,+11.664SECS,+236RDNG#", 0, 1.23456789e-3},
  {__LINE__, "+4.5E-02,+11.664SECS", 0, 4.5e-2},
  {__LINE__, "+1.0E-03VDC, +11.664SECS, +236RDNG, 000, 0000LIMITS",
   REJ_GARBAGE, 0},
  {__LINE__, "+1.0E-03VAC, +11.664SECS, +236RDNG, 000, 0000LIMITS", 0,
   1.0e-3},
  {__LINE__, "+1.0E-03,", REJ_GARBAGE, 0},
  {__LINE__, "+1.23456789E-03VDC", REJ_GARBAGE, 0},
  {__LINE__, "+1.2E-03 V", REJ_GARBAGE, 0},
  {__LINE__, "#%&GARBLED", REJ_GARBAGE, 0},
  {__LINE__, "KEITHLEY INSTRUMENTS INC.,MODEL 2701", REJ_GARBAGE, 0},
  {__LINE__, "0,\"No error\"", REJ_GARBAGE, 0},
  {__LINE__, " 1.0", REJ_GARBAGE, 0},
  {__LINE__, "", REJ_GARBAGE, 0},
  {__LINE__, "+", REJ_GARBAGE, 0},
  {__LINE__, "nan", REJ_GARBAGE, 0},
  {__LINE__, "+nan", REJ_GARBAGE, 0},
  {__LINE__, "+inf", REJ_OVERFLOW, 0},
  {__LINE__, "+9.9E37", REJ_OVERFLOW, 0},
  {__LINE__, "+9.90000000E+37VAC", REJ_OVERFLOW, 0},
  {__LINE__, "-9.9E37", REJ_OVERFLOW, 0},
  {__LINE__, "1e999", REJ_OVERFLOW, 0},
  {__LINE__, "-1.0E-03", REJ_NEGATIVE, 0},
  {__LINE__, "-0.5VAC", REJ_NEGATIVE, 0},
};

START_TEST(test_reading)
{
  double v = -1;
  int why = parse_reading(reading_rows[_i].text, &v);

  ck_assert_msg(why == reading_rows[_i].why, "row at line %d: why %d",
                reading_rows[_i].line, why);
  if (why == 0)
    ck_assert_msg(v == reading_rows[_i].volts, "row at line %d: %g",
                  reading_rows[_i].line, v);
}
END_TEST

START_TEST(test_power)
{
  struct kt_priv kp = {.shunt = 0.01, .line = 230};

  /* 300 W at 230 V through 0.01 ohm: 1.304 A, 13.04 mV. */
  ck_assert_double_eq_tol(power_of(&kp, 300 * 0.01 / 230), 300, 1e-9);
  ck_assert_double_eq(power_of(&kp, 0), 0);
  kp.shunt = 0.1, kp.line = 120;
  ck_assert_double_eq_tol(power_of(&kp, 0.5), 600, 1e-9);
}
END_TEST

static const struct {
  int line;
  const char *spec;
  int rc;                   /* of kt_params */
  double interval, timeout; /* when rc is 0 */
  double range, nplc;
  int band, xonxoff;
  const char *eol;
  const char *message; /* in the error, when rc is not 0 */
} spec_rows[] = {
  {__LINE__, "keithley:/dev/ttyUSB0?shunt=0.05&line=120", 0, 1, 0.8, 0, 1,
   30, 0, "\r", NULL},
  {__LINE__, "keithley:/dev/x?shunt=0.01&line=230&rate=10", 0, 0.1, 0.08, 0,
   1, 30, 0, "\r", NULL},
  {__LINE__, "keithley:/dev/x?shunt=0.01&line=230&rate=0.5", 0, 2, 1, 0, 1,
   30, 0, "\r", NULL},
  {__LINE__,
   "keithley:/dev/x?shunt=0.01&line=230&rate=60&baud=19200&timeout=0.015", 0,
   1.0 / 60, 0.015, 0, 12.5 / 60, 30, 0, "\r", NULL},
  {__LINE__, "keithley:/dev/x?shunt=0.01&line=230&rate=40", 0, 0.025,
   230.0 / 9600, 0, 12.5 / 40, 30, 0, "\r", NULL},
  {__LINE__,
   "keithley:/dev/x?shunt=1&line=230&range=0.2&band=300&flow=xonxoff&eol=crlf",
   0, 1, 0.8, 0.2, 1, 300, 1, "\r\n", NULL},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&range=auto&eol=lf&flow=none", 0,
   1, 0.8, 0, 1, 30, 0, "\n", NULL},
  {__LINE__, "keithley?shunt=1&line=230", PMON_ECONFIG, 0, 0, 0, 0, 0, 0, NULL,
   "expected keithley:DEVICE?shunt=OHMS&line=VOLTS"},
  {__LINE__, "keithley:/dev/x?line=230", PMON_ECONFIG, 0, 0, 0, 0, 0, 0, NULL,
   "expected keithley:DEVICE?shunt=OHMS&line=VOLTS"},
  {__LINE__, "keithley:/dev/x?shunt=1", PMON_ECONFIG, 0, 0, 0, 0, 0, 0, NULL,
   "expected keithley:DEVICE?shunt=OHMS&line=VOLTS"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&bogus=1", PMON_ECONFIG, 0, 0, 0,
   0, 0, 0, NULL, "unknown parameter bogus"},
  {__LINE__, "keithley:/dev/x?shunt=-1&line=230", PMON_ECONFIG, 0, 0, 0, 0, 0,
   0, NULL, "shunt=-1: not a number"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230V", PMON_ECONFIG, 0, 0, 0, 0, 0,
   0, NULL, "line=230V: not a number"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&baud=9601", PMON_ECONFIG, 0, 0,
   0, 0, 0, 0, NULL, "baud=9601: expected 300"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&rate=61", PMON_ECONFIG, 0, 0, 0,
   0, 0, 0, NULL, "rate=61: not a number from 0.01 to 60"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&rate=0", PMON_ECONFIG, 0, 0, 0,
   0, 0, 0, NULL, "rate=0: not a number"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&rate=50", PMON_ECONFIG, 0, 0, 0,
   0, 0, 0, NULL, "rate=50: 9600 baud carries at most 41 readings a second"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&timeout=1.5", PMON_ECONFIG, 0,
   0, 0, 0, 0, 0, NULL, "timeout=1.5: not a number"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&baud=300&timeout=0.5",
   PMON_ECONFIG, 0, 0, 0, 0, 0, 0, NULL, "timeout=0.5: not a number from"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&range=800", PMON_ECONFIG, 0, 0,
   0, 0, 0, 0, NULL, "range=800: not a number"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&band=10", PMON_ECONFIG, 0, 0, 0,
   0, 0, 0, NULL, "band=10: expected 3, 30 or 300"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&flow=rtscts", PMON_ECONFIG, 0,
   0, 0, 0, 0, 0, NULL, "flow=rtscts: expected none or xonxoff"},
  {__LINE__, "keithley:/dev/x?shunt=1&line=230&eol=nul", PMON_ECONFIG, 0, 0, 0,
   0, 0, 0, NULL, "eol=nul: expected cr, lf or crlf"},
};

START_TEST(test_spec)
{
  struct pmon_meter m;
  struct kt_priv kp;
  int rc;

  memset(&m, 0, sizeof m);
  memset(&kp, 0, sizeof kp);
  ck_assert_int_eq(pmon__spec_parse(spec_rows[_i].spec, &m.spec), 0);
  m.interval_s = pmon__driver_keithley.interval_s;
  rc = kt_params(&m, &kp);
  ck_assert_msg(rc == spec_rows[_i].rc, "row at line %d: rc %d (%s)",
                spec_rows[_i].line, rc, pmon_errmsg());
  if (rc != 0) {
    ck_assert_msg(strstr(pmon_errmsg(), spec_rows[_i].message) != NULL,
                  "row at line %d: %s", spec_rows[_i].line, pmon_errmsg());
    return;
  }
  ck_assert_msg(fabs(m.interval_s - spec_rows[_i].interval) < 1e-9 &&
                  fabs(kp.timeout - spec_rows[_i].timeout) < 1e-9 &&
                  kp.range == spec_rows[_i].range &&
                  fabs(kp.nplc - spec_rows[_i].nplc) < 1e-9 &&
                  kp.band == spec_rows[_i].band &&
                  kp.xonxoff == spec_rows[_i].xonxoff &&
                  strcmp(kp.eol, spec_rows[_i].eol) == 0,
                "row at line %d: interval %g timeout %g range %g nplc %g "
                "band %d xonxoff %d",
                spec_rows[_i].line, m.interval_s, kp.timeout, kp.range,
                kp.nplc, kp.band, kp.xonxoff);
}
END_TEST

/* *IDN? answers: the models whose commands the driver sends. */
static const struct {
  int line;
  const char *idn;
  int known;
} idn_rows[] = {
  {__LINE__, "KEITHLEY INSTRUMENTS INC.,MODEL 2701,0000000,A01  /A01", 1},
  {__LINE__, "KEITHLEY INSTRUMENTS INC.,MODEL 2000,1234567,A19 /A02", 1},
  {__LINE__, "Keithley Instruments Inc.,Model 2750,1,B", 1},
  {__LINE__, "KEITHLEY INSTRUMENTS INC.,MODEL 2700,1,B", 1},
  {__LINE__, "KEITHLEY INSTRUMENTS INC.,MODEL 2400,1,C", 0},
  {__LINE__, "FLUKE,8846A,1234,1.0", 0},
  {__LINE__, "MODEL 2701", 0},
  {__LINE__, "", 0},
};

START_TEST(test_idn)
{
  ck_assert_msg(known_model(idn_rows[_i].idn) == idn_rows[_i].known,
                "row at line %d", idn_rows[_i].line);
}
END_TEST

/* A device that is not there: open() fails without PMON_ECONFIG, so the
 * node goes on without the meter; one that is not a terminal likewise. */
START_TEST(test_open_missing)
{
  struct pmon_meter m;
  struct kt_priv kp;

  memset(&m, 0, sizeof m);
  memset(&kp, 0, sizeof kp);
  m.priv = &kp;
  ck_assert_int_eq(pmon__spec_parse("keithley:/nonexistent/tty?shunt=0.01"
                                    "&line=230",
                                    &m.spec),
                   0);
  ck_assert_int_eq(kt_open(&m), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "keithley: /nonexistent/tty: "
                                              "cannot open: No such file"));
  ck_assert_int_eq(kp.fd, -1);
  memset(&kp, 0, sizeof kp);
  ck_assert_int_eq(pmon__spec_parse("keithley:/dev/null?shunt=0.01&line=230",
                                    &m.spec),
                   0);
  ck_assert_int_eq(kt_open(&m), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "not a serial line"));
  ck_assert_int_eq(kp.fd, -1);
}
END_TEST

START_TEST(test_probe)
{
  struct pmon_spec spec;

  pmon__spec_parse("keithley", &spec);
  ck_assert_int_eq(kt_probe(&spec), PMON_ENOMETER);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("keithley");
  TCase *tc = tcase_create("parse");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(tc, test_reading, 0,
                      sizeof reading_rows / sizeof reading_rows[0]);
  tcase_add_test(tc, test_power);
  tcase_add_loop_test(tc, test_spec, 0,
                      sizeof spec_rows / sizeof spec_rows[0]);
  tcase_add_loop_test(tc, test_idn, 0, sizeof idn_rows / sizeof idn_rows[0]);
  tcase_add_test(tc, test_open_missing);
  tcase_add_test(tc, test_probe);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

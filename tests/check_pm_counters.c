/*
 * check_pm_counters.c - the pm_counters driver against fixture trees.
 *
 * The driver file is included so that the tests can reach its parser and
 * replace its pread() seam to play a controller that publishes mid-read.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../drivers/pm_counters.c"

/* Table-driven: each row carries its line, so a failure names it. */
static const struct {
  int line;
  const char *text;
  size_t len; /* 0: strlen(text) */
  const char *unit;
  int ok;
  uint64_t value;
} parse_rows[] = {
  {__LINE__, "85 W\n", 0, "W", 1, 85},
  {__LINE__, "598732067 J\n", 0, "J", 1, 598732067},
  {__LINE__, "100 J 1734094386462336 us", 0, "J", 1, 100},
  {__LINE__, "100 J 1734094386462336 us\n", 0, "J", 1, 100},
  {__LINE__, "42 J\n\0\0\0\0\0\0", 11, "J", 1, 42},
  {__LINE__, "7\n", 0, NULL, 1, 7},
  {__LINE__, "7 1734094386462336 us\n", 0, NULL, 1, 7},
  {__LINE__, "18446744073709551615 J", 0, "J", 1, UINT64_MAX},
  {__LINE__, "18446744073709551616 J", 0, "J", 0, 0},
  {__LINE__, "85W\n", 0, "W", 0, 0},
  {__LINE__, "85\n", 0, "J", 0, 0},
  {__LINE__, "85 W\n", 0, "J", 0, 0},
  {__LINE__, "", 0, "J", 0, 0},
  {__LINE__, "\0\0\0\0", 4, "J", 0, 0},
  {__LINE__, "-5 J", 0, "J", 0, 0},
  {__LINE__, "abc", 0, NULL, 0, 0},
  {__LINE__, "100 J 17 ms", 0, "J", 0, 0},
  {__LINE__, "100 J garbage", 0, "J", 0, 0},
  {__LINE__, "5 J\nextra", 0, "J", 0, 0},
};

START_TEST(test_parse)
{
  uint64_t v = 0;
  size_t len = parse_rows[_i].len ? parse_rows[_i].len
                                  : strlen(parse_rows[_i].text);
  int rc = parse_counter(parse_rows[_i].text, len, parse_rows[_i].unit, &v);

  ck_assert_msg((rc == 0) == parse_rows[_i].ok, "row at line %d: rc %d",
                parse_rows[_i].line, rc);
  if (parse_rows[_i].ok)
    ck_assert_msg(v == parse_rows[_i].value, "row at line %d: %llu",
                  parse_rows[_i].line, (unsigned long long)v);
}
END_TEST

static char dir[64];

static void put(const char *file, const char *text)
{
  char path[256];
  FILE *f;

  snprintf(path, sizeof path, "%s/%s", dir, file);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static void tree_setup(void)
{
  strcpy(dir, "/tmp/check_pm.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  put("energy", "1000 J\n");
  put("cpu_energy", "600 J\n");
  put("memory_energy", "200 J\n");
  put("freshness", "5\n");
  put("startup", "1\n");
  put("generation", "1\n");
  put("raw_scan_hz", "10\n");
}

static void tree_teardown(void)
{
  char cmd[128];

  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static struct pmon_meter meter;
static struct pm_priv priv;

static int open_meter(void)
{
  char text[128];

  memset(&meter, 0, sizeof meter);
  memset(&priv, 0, sizeof priv);
  meter.priv = &priv;
  meter.interval_s = pmon__driver_pm_counters.interval_s;
  snprintf(text, sizeof text, "pm_counters:%s", dir);
  ck_assert_int_eq(pmon__spec_parse(text, &meter.spec), 0);
  return pmon__driver_pm_counters.open(&meter);
}

START_TEST(test_channels)
{
  ck_assert_int_eq(open_meter(), 0);
  ck_assert_int_eq(meter.nch, 3);
  ck_assert_str_eq(meter.ch[0].name, "node");
  ck_assert_uint_eq(meter.ch[0].flags & PMON_CH_TOTAL, PMON_CH_TOTAL);
  ck_assert_str_eq(meter.ch[1].name, "cpu");
  ck_assert_uint_eq(meter.ch[1].flags & PMON_CH_TOTAL, 0);
  ck_assert_str_eq(meter.ch[2].name, "memory");
  /* raw_scan_hz 10, read five times per publication. */
  ck_assert_double_eq_tol(meter.interval_s, 0.02, 1e-9);
  pm_close(&meter);
}
END_TEST

START_TEST(test_accel_and_missing_optional)
{
  char path[256];

  snprintf(path, sizeof path, "%s/cpu_energy", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/freshness", dir);
  unlink(path);
  put("accel0_energy", "5 J 1734094386462336 us\n");
  put("accel1_energy", "6 J 1734094386462336 us\n");
  ck_assert_int_eq(open_meter(), 0);
  ck_assert_int_eq(meter.nch, 4);
  ck_assert_str_eq(meter.ch[2].name, "accel0");
  ck_assert_int_eq(meter.ch[2].domain, PMON_DOM_ACCEL);
  {
    struct pmon_reading r = {0};

    ck_assert_int_eq(pm_read(&meter, &r), 0);
    ck_assert_uint_eq(r.raw[0], 1000);
    ck_assert_uint_eq(r.raw[3], 6);
    ck_assert_int_eq(r.stale, 0); /* no freshness: every reading is new */
  }
  pm_close(&meter);
}
END_TEST

START_TEST(test_missing_energy)
{
  char path[256];

  snprintf(path, sizeof path, "%s/energy", dir);
  unlink(path);
  ck_assert_int_eq(open_meter(), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "/energy: cannot open"));
}
END_TEST

START_TEST(test_malformed)
{
  put("energy", "12W\n");
  ck_assert_int_eq(open_meter(), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "pm_counters: "));
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "/energy: malformed content"));
}
END_TEST

START_TEST(test_unknown_parameter)
{
  char text[128];

  memset(&meter, 0, sizeof meter);
  meter.priv = &priv;
  snprintf(text, sizeof text, "pm_counters:%s?rate=5", dir);
  ck_assert_int_eq(pmon__spec_parse(text, &meter.spec), 0);
  ck_assert_int_eq(pmon__driver_pm_counters.open(&meter), PMON_ECONFIG);
}
END_TEST

/* A controller that publishes while the driver reads: the first TORN reads
 * of "energy" are followed by a publication (freshness and energy move). */
static int torn_left;
static int fd_fresh_seen;

static ssize_t torn_pread(int fd, void *buf, size_t len, off_t off)
{
  ssize_t n = pread(fd, buf, len, off);

  if (fd == priv.fd[0] && torn_left > 0) {
    static uint64_t f = 5, e = 1000;

    torn_left--;
    f++;
    e += 10;
    char text[32];
    snprintf(text, sizeof text, "%llu\n", (unsigned long long)f);
    put("freshness", text);
    snprintf(text, sizeof text, "%llu J\n", (unsigned long long)e);
    put("energy", text);
    fd_fresh_seen++;
  }
  return n;
}

START_TEST(test_torn_read_retried)
{
  struct pmon_reading r = {0};

  ck_assert_int_eq(open_meter(), 0);
  priv.pread = torn_pread;
  torn_left = 3;
  ck_assert_int_eq(pm_read(&meter, &r), 0);
  ck_assert_int_eq(fd_fresh_seen, 3);
  ck_assert_uint_eq(priv.torn, 3);
  /* The reading is the one after the last publication. */
  ck_assert_uint_eq(r.raw[0], 1030);
  /* More publications in a row than the driver tries: no reading. */
  torn_left = 1000;
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(pm_read(&meter, &r), PMON_EAGAIN);
  pm_close(&meter);
}
END_TEST

START_TEST(test_stale_startup_generation)
{
  struct pmon_reading r = {0};

  ck_assert_int_eq(open_meter(), 0);
  ck_assert_int_eq(pm_read(&meter, &r), 0);
  ck_assert_int_eq(r.stale, 0);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(pm_read(&meter, &r), 0);
  ck_assert_int_eq(r.stale, 1); /* freshness did not move */
  put("freshness", "6\n");
  put("startup", "2\n");
  put("energy", "3 J\n");
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(pm_read(&meter, &r), 0);
  ck_assert_int_eq(r.stale, 0);
  ck_assert_uint_eq(r.events & PMON_EV_RESET, PMON_EV_RESET);
  ck_assert_ptr_nonnull(strstr(r.detail, "startup 1 -> 2"));
  put("freshness", "7\n");
  put("generation", "2\n");
  put("power_cap", "450 W\n");
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(pm_read(&meter, &r), 0);
  ck_assert_uint_eq(r.events, PMON_EV_POWER_CAP);
  ck_assert_ptr_nonnull(strstr(r.detail, "power cap now 450 W"));
  pm_close(&meter);
}
END_TEST

START_TEST(test_probe)
{
  struct pmon_spec spec;
  char text[128];

  snprintf(text, sizeof text, "pm_counters:%s", dir);
  pmon__spec_parse(text, &spec);
  ck_assert_int_eq(pm_probe(&spec), 0);
  pmon__spec_parse("pm_counters:/nonexistent/pm", &spec);
  ck_assert_int_eq(pm_probe(&spec), PMON_ENOMETER);
  /* The default directory is under PMON_SYSFS_ROOT. */
  setenv("PMON_SYSFS_ROOT", "/nonexistent-root", 1);
  pmon__spec_parse("pm_counters", &spec);
  ck_assert_int_eq(pm_probe(&spec), PMON_ENOMETER);
  ck_assert_ptr_nonnull(
    strstr(pmon_errmsg(), "/nonexistent-root/cray/pm_counters/energy"));
}
END_TEST

/* A URI's user information goes to the secrets, out of text and path. */
START_TEST(test_spec_secrets)
{
  struct pmon_spec spec;

  ck_assert_int_eq(
    pmon__spec_parse("eaton://s3cr@t@pdu-1:1161/outlet/7+8?version=2c",
                     &spec), 0);
  ck_assert_str_eq(spec.text, "eaton://pdu-1:1161/outlet/7+8?version=2c");
  ck_assert_str_eq(spec.driver, "eaton");
  ck_assert_str_eq(spec.path, "//pdu-1:1161/outlet/7+8");
  ck_assert_str_eq(pmon__spec_secret(&spec, "user"), "s3cr@t");
  ck_assert_ptr_null(pmon__spec_secret(&spec, "password"));
  ck_assert_str_eq(pmon__spec_get(&spec, "version"), "2c");

  ck_assert_int_eq(
    pmon__spec_parse("redfish://admin:pa:ss@bmc/Chassis/1", &spec), 0);
  ck_assert_str_eq(spec.text, "redfish://bmc/Chassis/1");
  ck_assert_str_eq(pmon__spec_secret(&spec, "user"), "admin");
  ck_assert_str_eq(pmon__spec_secret(&spec, "password"), "pa:ss");

  /* The last '@' ends the user information, whatever the password
   * holds; %XX escapes are decoded; an '@' after the host is %40. */
  ck_assert_int_eq(
    pmon__spec_parse("redfish://admin:pa/s?s#@bmc/1?scheme=http", &spec), 0);
  ck_assert_str_eq(spec.text, "redfish://bmc/1?scheme=http");
  ck_assert_str_eq(pmon__spec_secret(&spec, "user"), "admin");
  ck_assert_str_eq(pmon__spec_secret(&spec, "password"), "pa/s?s#");
  ck_assert_int_eq(
    pmon__spec_parse("redfish://ad%3amin:p%40ss%zz@bmc/1", &spec), 0);
  ck_assert_str_eq(spec.text, "redfish://bmc/1");
  ck_assert_str_eq(pmon__spec_secret(&spec, "user"), "ad:min");
  ck_assert_str_eq(pmon__spec_secret(&spec, "password"), "p@ss%zz");
  ck_assert_int_eq(pmon__spec_parse("redfish://bmc/a%40b", &spec), 0);
  ck_assert_str_eq(spec.text, "redfish://bmc/a%40b");
  ck_assert_int_eq(spec.nsecrets, 0);

  ck_assert_int_eq(pmon__spec_add_secret(&spec, "community", "x"), 0);
  ck_assert_int_eq(pmon__spec_add_secret(&spec, "community", "y"), 0);
  ck_assert_int_eq(spec.nsecrets, 1);
  ck_assert_str_eq(pmon__spec_secret(&spec, "community"), "y");

  /* A message about a malformed specification shows no secret. */
  ck_assert_int_eq(pmon__spec_parse("eaton://hidden@pdu?x", &spec),
                   PMON_ECONFIG);
  ck_assert_ptr_null(strstr(pmon_errmsg(), "hidden"));
}
END_TEST

/* accuracy=: R%, AW or R%+AW, any meter; absent, the values stay. */
START_TEST(test_spec_accuracy)
{
  static const char *const bad[] = {"1", "1%+", "+2W", "1%+2%",
                                    "2W+3W", "101%", "-1%", "1%2W",
                                    "1%+2Wx", "nan%", "inf W"};
  struct pmon_spec spec;
  double r = -1, w = -1;

  ck_assert_int_eq(pmon__spec_parse("pm_counters", &spec), 0);
  ck_assert_int_eq(pmon__spec_accuracy(&spec, &r, &w), 1);
  ck_assert(r == -1 && w == -1);
  ck_assert_int_eq(
    pmon__spec_parse("pm_counters:/x?accuracy=1.5%+2W", &spec), 0);
  ck_assert_int_eq(pmon__spec_check_keys(&spec, NULL), 0);
  ck_assert_int_eq(pmon__spec_accuracy(&spec, &r, &w), 0);
  ck_assert(fabs(r - 0.015) < 1e-12 && w == 2);
  ck_assert_int_eq(pmon__spec_parse("hwmon?accuracy=3W", &spec), 0);
  ck_assert_int_eq(pmon__spec_accuracy(&spec, &r, &w), 0);
  ck_assert(r == 0 && w == 3);
  ck_assert_int_eq(pmon__spec_parse("hwmon?accuracy=2W+5%", &spec), 0);
  ck_assert_int_eq(pmon__spec_accuracy(&spec, &r, &w), 0);
  ck_assert(fabs(r - 0.05) < 1e-12 && w == 2);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[64];

    snprintf(text, sizeof text, "hwmon?accuracy=%s", bad[i]);
    ck_assert_int_eq(pmon__spec_parse(text, &spec), 0);
    r = w = -1;
    ck_assert_msg(pmon__spec_accuracy(&spec, &r, &w) == PMON_ECONFIG,
                  "accuracy=%s taken", bad[i]);
    ck_assert(r == -1 && w == -1);
    ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "accuracy="));
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("pm_counters");
  TCase *parse = tcase_create("parse");
  TCase *tree = tcase_create("tree");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(parse, test_parse, 0,
                      sizeof parse_rows / sizeof parse_rows[0]);
  tcase_add_test(parse, test_spec_secrets);
  tcase_add_test(parse, test_spec_accuracy);
  suite_add_tcase(s, parse);
  tcase_add_checked_fixture(tree, tree_setup, tree_teardown);
  tcase_add_test(tree, test_channels);
  tcase_add_test(tree, test_accel_and_missing_optional);
  tcase_add_test(tree, test_missing_energy);
  tcase_add_test(tree, test_malformed);
  tcase_add_test(tree, test_unknown_parameter);
  tcase_add_test(tree, test_torn_read_retried);
  tcase_add_test(tree, test_stale_startup_generation);
  tcase_add_test(tree, test_probe);
  suite_add_tcase(s, tree);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

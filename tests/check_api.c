/*
 * check_api.c - the public API without MPI: misuse gives error codes and
 * never a crash, regions nest and count, threads, the serial report, the
 * estimate labelled and computed from a fixture /proc/stat.
 * Fork mode: every test starts with a fresh process.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"

static char out[64], stat_path[64];

static void nap(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

  nanosleep(&ts, NULL);
}

static void write_stat(unsigned long long busy, unsigned long long idle)
{
  char text[128];
  int fd, n;

  /* In place, as the kernel's file changes: the driver keeps it open. */
  n = snprintf(text, sizeof text,
               "cpu  %llu 0 0 %llu 0 0 0 0 0 0\ncpu0 1 2 3 4\n", busy, idle);
  fd = open(stat_path, O_WRONLY | O_CREAT, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(pwrite(fd, text, (size_t)n, 0), n);
  close(fd);
}

static void setup(void)
{
  char meters[160];

  snprintf(out, sizeof out, "/tmp/check_api.%ld.json", (long)getpid());
  snprintf(stat_path, sizeof stat_path, "/tmp/check_api.%ld.stat",
           (long)getpid());
  write_stat(1000, 1000);
  snprintf(meters, sizeof meters, "estimate?stat=%s&idle=100&max=300",
           stat_path);
  setenv("PMON_METERS", meters, 1);
  setenv("PMON_OUTPUT", out, 1);
  setenv("PMON_QUIET", "1", 1);
  unsetenv("PMON_DISABLE");
  unsetenv("PMON_NODE");
}

static void teardown(void)
{
  unlink(out);
  unlink(stat_path);
}

static json_t *report(void)
{
  json_error_t err;
  json_t *doc = json_load_file(out, 0, &err);

  ck_assert_msg(doc != NULL, "%s: %s", out, err.text);
  return doc;
}

START_TEST(test_before_init)
{
  double e;

  ck_assert_int_eq(pmon_region_begin("a"), PMON_ENOINIT);
  ck_assert_int_eq(pmon_region_end("a"), PMON_ENOINIT);
  ck_assert_int_eq(pmon_read(&e, NULL), PMON_ENOINIT);
  ck_assert_int_eq(pmon_finalize(), PMON_ENOINIT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "pmon: pmon_finalize"));
}
END_TEST

START_TEST(test_init_twice_finalize_twice)
{
  ck_assert_int_eq(pmon_init(), 0);
  ck_assert_int_eq(pmon_init(), PMON_EALREADY);
  ck_assert_int_eq(pmon_finalize(), 0);
  ck_assert_int_eq(pmon_finalize(), PMON_EFINALIZED);
  ck_assert_int_eq(pmon_region_begin("a"), PMON_EFINALIZED);
  ck_assert_int_eq(pmon_region_end("a"), PMON_EFINALIZED);
  ck_assert_int_eq(pmon_init(), PMON_EFINALIZED);
  ck_assert_int_eq(access(out, R_OK), 0);
}
END_TEST

START_TEST(test_bad_names)
{
  char *big = malloc(10001);

  memset(big, 'x', 10000);
  big[10000] = '\0';
  ck_assert_int_eq(pmon_init(), 0);
  ck_assert_int_eq(pmon_region_begin(NULL), PMON_EINVAL);
  ck_assert_int_eq(pmon_region_end(NULL), PMON_EINVAL);
  ck_assert_int_eq(pmon_region_begin(""), PMON_EINVAL);
  ck_assert_int_eq(pmon_region_begin(big), PMON_ENAMETOOLONG);
  ck_assert_int_eq(pmon_region_end(big), PMON_ENAMETOOLONG);
  big[PMON_NAME_MAX] = '\0';
  ck_assert_int_eq(pmon_region_begin(big), 0);
  ck_assert_int_eq(pmon_region_end(big), 0);
  ck_assert_int_eq(pmon_region_end("never"), PMON_ENOREGION);
  ck_assert_int_eq(pmon_finalize(), 0);
  free(big);
}
END_TEST

START_TEST(test_nesting)
{
  json_t *doc;

  ck_assert_int_eq(pmon_init(), 0);
  ck_assert_int_eq(pmon_region_begin("outer"), 0);
  ck_assert_int_eq(pmon_region_begin("inner"), 0);
  ck_assert_int_eq(pmon_region_end("outer"), PMON_ENEST);
  ck_assert_int_eq(pmon_region_end("other"), PMON_ENOREGION);
  ck_assert_int_eq(pmon_region_end("inner"), 0);
  /* Recursion of one name counts the outermost pair. */
  ck_assert_int_eq(pmon_region_begin("outer"), 0);
  ck_assert_int_eq(pmon_region_end("outer"), 0);
  ck_assert_int_eq(pmon_region_end("outer"), 0);
  ck_assert_int_eq(pmon_region_end("outer"), PMON_ENOREGION);
  ck_assert_int_eq(pmon_region_begin("left open"), 0);
  ck_assert_int_eq(pmon_finalize(), 0);
  doc = report();
  ck_assert_int_eq(json_array_size(json_object_get(doc, "regions")), 3);
  {
    json_t *r = json_array_get(json_object_get(doc, "regions"), 0);

    ck_assert_str_eq(json_string_value(json_object_get(r, "name")), "outer");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "count")), 1);
    r = json_array_get(json_object_get(doc, "regions"), 2);
    ck_assert_str_eq(json_string_value(json_object_get(r, "name")),
                     "left open");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "count")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "unclosed")), 1);
  }
  json_decref(doc);
}
END_TEST

START_TEST(test_bad_meters)
{
  setenv("PMON_METERS", "bogus", 1);
  ck_assert_int_eq(pmon_init(), PMON_ECONFIG);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "unknown driver \"bogus\""));
  ck_assert_int_eq(pmon_region_begin("a"), PMON_ENOINIT);
  ck_assert_int_eq(pmon_finalize(), PMON_ENOINIT);
  setenv("PMON_METERS", "estimate?idle=lots", 1);
  ck_assert_int_eq(pmon_init(), PMON_ECONFIG);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "idle=lots"));
  setenv("PMON_METERS", "estimate?idle=300&max=100", 1);
  ck_assert_int_eq(pmon_init(), PMON_ECONFIG);
  setenv("PMON_METERS", "auto,estimate", 1);
  ck_assert_int_eq(pmon_init(), PMON_ECONFIG);
  setenv("PMON_METERS", "pm_counters:", 1);
  ck_assert_int_eq(pmon_init(), PMON_ECONFIG);
  ck_assert_int_eq(access(out, F_OK), -1);
}
END_TEST

START_TEST(test_disabled)
{
  double e;

  setenv("PMON_DISABLE", "1", 1);
  ck_assert_int_eq(pmon_init(), 0);
  ck_assert_int_eq(pmon_region_begin("a"), 0);
  ck_assert_int_eq(pmon_region_end("a"), 0);
  ck_assert_int_eq(pmon_read(&e, NULL), PMON_ENODATA);
  ck_assert_int_eq(pmon_finalize(), 0);
  ck_assert_int_eq(access(out, F_OK), -1);
}
END_TEST

START_TEST(test_errors_listed)
{
  for (int e = PMON_ERRNO_MIN; e <= 0; e++) {
    ck_assert_str_ne(pmon_strerror(e), "unknown error");
    ck_assert_str_ne(pmon_err_name(e), "PMON_EUNKNOWN");
    for (int f = e + 1; f <= 0; f++)
      ck_assert_str_ne(pmon_strerror(e), pmon_strerror(f));
  }
  ck_assert_str_eq(pmon_strerror(PMON_ERRNO_MIN - 1), "unknown error");
  ck_assert_str_eq(pmon_strerror(1), "unknown error");
  ck_assert_str_eq(pmon_err_name(PMON_ENEST), "PMON_ENEST");
  ck_assert_str_eq(pmon_version(), PMON_VERSION_STRING);
  ck_assert(PMON_AT_LEAST_VERSION(0, 0, 1));
}
END_TEST

static void *worker(void *arg)
{
  (void)arg;
  for (int i = 0; i < 100; i++) {
    ck_assert_int_eq(pmon_region_begin("threaded"), 0);
    ck_assert_int_eq(pmon_region_end("threaded"), 0);
  }
  return NULL;
}

START_TEST(test_threads)
{
  pthread_t t[4];
  json_t *doc, *r;

  ck_assert_int_eq(pmon_init(), 0);
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  ck_assert_int_eq(pmon_finalize(), 0);
  doc = report();
  r = json_array_get(json_object_get(doc, "regions"), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(r, "count")), 400);
  json_decref(doc);
}
END_TEST

/* The estimate over a fixture stat file: idle (u = 0), then busy (u = 1). */
START_TEST(test_estimate)
{
  double e, t, e2, t2;
  json_t *doc, *node, *r;
  unsigned long long busy = 1000;

  ck_assert_int_eq(pmon_init(), 0);
  nap(0.6);
  ck_assert_int_eq(pmon_read(&e, &t), 0);
  ck_assert_msg(t > 0.3 && e > 0.9 * 100 * t && e < 1.1 * 100 * t,
                "idle: %g J in %g s", e, t);
  ck_assert_int_eq(pmon_region_begin("busy"), 0);
  for (int i = 0; i < 20; i++) {
    busy += 10;
    write_stat(busy, 1000);
    nap(0.05);
  }
  ck_assert_int_eq(pmon_region_end("busy"), 0);
  ck_assert_int_eq(pmon_read(&e2, &t2), 0);
  ck_assert_int_eq(pmon_finalize(), 0);
  doc = report();
  ck_assert(json_is_true(json_object_get(doc, "estimated")));
  node = json_array_get(json_object_get(doc, "nodes"), 0);
  ck_assert(json_is_true(json_object_get(node, "estimated")));
  ck_assert_int_eq(json_integer_value(json_object_get(doc, "job") ?
                     json_object_get(json_object_get(doc, "job"), "ranks")
                     : NULL), 1);
  r = json_array_get(json_object_get(doc, "regions"), 0);
  {
    double re = json_number_value(json_object_get(r, "energy_j"));
    double rt = json_number_value(json_object_get(r, "time_s"));

    /* Busy at 300 W, give or take the first and last sample interval. */
    ck_assert_msg(re > 0.75 * 300 * rt && re < 1.05 * 300 * rt,
                  "busy region: %g J in %g s", re, rt);
  }
  json_decref(doc);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("serial");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_before_init);
  tcase_add_test(tc, test_init_twice_finalize_twice);
  tcase_add_test(tc, test_bad_names);
  tcase_add_test(tc, test_nesting);
  tcase_add_test(tc, test_bad_meters);
  tcase_add_test(tc, test_disabled);
  tcase_add_test(tc, test_errors_listed);
  tcase_add_test(tc, test_threads);
  tcase_add_test(tc, test_estimate);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

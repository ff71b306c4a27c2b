/*
 * check_regions.c - region names at scale, without MPI: PMON_MAX_REGIONS
 * folds the names beyond it into "(other)" and loses no pair; threads
 * sharing names count once; a name costs a bounded number of bytes; and
 * the records that carry regions up the trees merge by the rules of
 * docs/report-format.md, through their messages too.
 * Fork mode: every test starts with a fresh process.
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmon.h"
#include "core.h"
#include "rtab.h"

static char out[64];

static void setup(void)
{
  snprintf(out, sizeof out, "/tmp/check_regions.%ld.json", (long)getpid());
  setenv("PMON_METERS", "estimate", 1);
  setenv("PMON_OUTPUT", out, 1);
  setenv("PMON_QUIET", "1", 1);
  unsetenv("PMON_DISABLE");
  unsetenv("PMON_NODE");
  unsetenv("PMON_MAX_REGIONS");
  unsetenv("PMON_REGION_NODES");
}

static void teardown(void)
{
  unlink(out);
}

static void pair(const char *name)
{
  ck_assert_msg(pmon_region_begin(name) == 0, "begin %s: %s", name,
                pmon_errmsg());
  ck_assert_msg(pmon_region_end(name) == 0, "end %s: %s", name,
                pmon_errmsg());
}

/* This process's regions as a table (after resolving them). */
static void table(struct pmon_rtab *t)
{
  pmon__regions_resolve();
  pmon__rtab_init(t, PMON_RT_NODE, 0);
  ck_assert_int_eq(pmon__regions_table(t), 0);
}

static struct pmon_rrec *rec(struct pmon_rtab *t, const char *name)
{
  int created;
  struct pmon_rrec *r = pmon__rtab_get(t, name, strlen(name), &created);

  ck_assert_msg(!created, "no record of %s", name);
  return r;
}

START_TEST(test_fold)
{
  struct pmon_rtab t;
  char name[32];
  json_t *doc;

  setenv("PMON_MAX_REGIONS", "50", 1);
  ck_assert_int_eq(pmon_init(), 0);
  for (int i = 0; i < 120; i++) {
    snprintf(name, sizeof name, "n-%d", i);
    pair(name);
  }
  /* Folded names nest, and their ends are matched by name. */
  ck_assert_int_eq(pmon_region_begin("n-200"), 0);
  ck_assert_int_eq(pmon_region_begin("n-201"), 0);
  ck_assert_int_eq(pmon_region_end("n-200"), PMON_ENEST);
  ck_assert_int_eq(pmon_region_end("n-201"), 0);
  ck_assert_int_eq(pmon_region_end("n-202"), PMON_ENOREGION);
  ck_assert_int_eq(pmon_region_end("n-200"), 0);
  /* A name with an entry inside a folded one, and the other way. */
  ck_assert_int_eq(pmon_region_begin("n-300"), 0);
  ck_assert_int_eq(pmon_region_begin("n-0"), 0);
  ck_assert_int_eq(pmon_region_end("n-300"), PMON_ENEST);
  ck_assert_int_eq(pmon_region_end("n-0"), 0);
  ck_assert_int_eq(pmon_region_begin("n-1"), 0);
  ck_assert_int_eq(pmon_region_begin("n-301"), 0);
  ck_assert_int_eq(pmon_region_end("n-301"), 0);
  ck_assert_int_eq(pmon_region_end("n-1"), 0);
  ck_assert_int_eq(pmon_region_end("n-300"), 0);
  /* A folded name used again is not counted again. */
  pair("n-60");
  table(&t);
  /* 50 names with records, "(other)" for the rest. */
  ck_assert_uint_eq(t.n, 51);
  ck_assert_uint_eq(rec(&t, "n-49")->count, 1);
  ck_assert_uint_eq(rec(&t, "n-0")->count, 2);
  /* n-50..n-119, n-200, n-201, n-300, n-301, n-60 again. */
  ck_assert_uint_eq(rec(&t, "(other)")->count, 70 + 4 + 1);
  /* Its spans for the timeline: outermost pairs only (n-201 and n-301
   * are inside others), from n-50's to n-60's. */
  {
    const struct pmon_rrec *o = rec(&t, "(other)"), *a = rec(&t, "n-49");

    ck_assert_uint_eq(o->mcount, 70 + 1 + 1 + 1);
    ck_assert_uint_gt(o->span[0], a->span[1]);
    ck_assert_uint_le(o->span[0], o->span[1]);
    ck_assert_uint_lt(o->span[1], o->span[2]);
    ck_assert_uint_le(o->span[2], o->span[3]);
    ck_assert_uint_eq(a->mcount, 1);
    ck_assert_uint_eq(a->span[0], a->span[2]);
    ck_assert_uint_eq(a->span[1], a->span[3]);
  }
  ck_assert_uint_eq(t.folded, 74);
  ck_assert(!t.folded_lower);
  pmon__rtab_free(&t);
  ck_assert_int_eq(pmon_finalize(), 0);
  doc = json_load_file(out, 0, NULL);
  ck_assert_ptr_nonnull(doc);
  ck_assert_int_eq(json_integer_value(json_object_get(
                     json_object_get(doc, "job"), "region_names_folded")),
                   74);
  ck_assert_int_eq(json_integer_value(json_object_get(
                     json_object_get(doc, "job"), "region_names_limit")),
                   50);
  ck_assert_uint_eq(json_array_size(json_object_get(doc, "regions")), 51);
  json_decref(doc);
}
END_TEST

/* The first pair of "(other)" has a folded pair inside it, completed or
 * closed at finalize: its span is the outer one's. */
START_TEST(test_other_spans)
{
  struct pmon_rtab t;
  const struct pmon_rrec *o;
  uint64_t t0;

  setenv("PMON_MAX_REGIONS", "1", 1);
  ck_assert_int_eq(pmon_init(), 0);
  t0 = pmon__now_ns();
  pair("a");
  ck_assert_int_eq(pmon_region_begin("b"), 0);
  pair("c");
  ck_assert_int_eq(pmon_region_end("b"), 0);
  table(&t);
  o = rec(&t, "(other)");
  ck_assert_uint_eq(o->count, 2);
  ck_assert_uint_eq(o->mcount, 1);
  ck_assert_uint_ge(o->span[0], t0);
  ck_assert_uint_ge(o->span[1], o->span[0]);
  ck_assert_uint_eq(o->span[2], o->span[0]);
  ck_assert_uint_eq(o->span[3], o->span[1]);
  pmon__rtab_free(&t);
  /* Open at finalize: closed there, a span all the same. */
  ck_assert_int_eq(pmon_region_begin("d"), 0);
  ck_assert_int_eq(pmon_region_begin("e"), 0);
  pmon__regions_close_all(pmon__now_ns());
  table(&t);
  o = rec(&t, "(other)");
  ck_assert_uint_eq(o->mcount, 2);
  ck_assert_uint_ge(o->span[3], o->span[2]);
  ck_assert_uint_gt(o->span[2], o->span[1]);
  pmon__rtab_free(&t);
  ck_assert_int_eq(pmon_finalize(), 0);
}
END_TEST

static void *shared_names(void *arg)
{
  char name[32];

  (void)arg;
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "shared-%d", i);
    pair(name);
  }
  return NULL;
}

/* The limit counts names, not names times threads. */
START_TEST(test_threads_share_names)
{
  struct pmon_rtab t;
  pthread_t th[4];
  char name[32];

  setenv("PMON_MAX_REGIONS", "50", 1);
  ck_assert_int_eq(pmon_init(), 0);
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, shared_names, NULL);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < 20; i++) {
    snprintf(name, sizeof name, "own-%d", i);
    pair(name);
  }
  table(&t);
  ck_assert_uint_eq(rec(&t, "shared-39")->count, 4);
  ck_assert_uint_eq(rec(&t, "own-9")->count, 1);
  ck_assert_uint_eq(rec(&t, "(other)")->count, 10);
  ck_assert_uint_eq(t.folded, 10);
  pmon__rtab_free(&t);
  ck_assert_int_eq(pmon_finalize(), 0);
}
END_TEST

/* A new name costs its thread at most 320 bytes plus the name (one meter
 * of one channel), the process's registry included. */
START_TEST(test_bytes_per_name)
{
  const int n = 20000;
  char name[48];
  struct mallinfo2 before, after;
  double per;

  setenv("PMON_MAX_REGIONS", "100000", 1);
  ck_assert_int_eq(pmon_init(), 0);
  pair("warm-up");
  before = mallinfo2();
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "memory-test-name-%05d", i);
    pair(name);
  }
  after = mallinfo2();
  /* The heap's blocks, and the large tables that malloc maps apart. */
  per = ((double)after.uordblks - (double)before.uordblks +
         (double)after.hblkhd - (double)before.hblkhd) / n;
  fprintf(stderr, "check_regions: %.1f bytes per name of %zu bytes\n", per,
          strlen(name));
  ck_assert_msg(per <= 320 + (double)strlen(name) + 1,
                "%.1f bytes per name of %zu bytes", per, strlen(name));
  ck_assert_int_eq(pmon_finalize(), 0);
}
END_TEST

START_TEST(test_bad_settings)
{
  static const char *const bad[][2] = {
    {"PMON_MAX_REGIONS", "0"},
    {"PMON_MAX_REGIONS", "12x"},
    {"PMON_REGION_NODES", "-1"},
    {"PMON_REGION_NODES", "lots"},
  };

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setup();
    setenv(bad[i][0], bad[i][1], 1);
    ck_assert_int_eq(pmon_init(), PMON_ECONFIG);
    ck_assert_msg(strstr(pmon_errmsg(), bad[i][0]) != NULL, "%s",
                  pmon_errmsg());
  }
  /* Empty is the default. */
  setup();
  setenv("PMON_MAX_REGIONS", "", 1);
  ck_assert_int_eq(pmon_init(), 0);
  ck_assert_int_eq(pmon_finalize(), 0);
}
END_TEST

/* A record of node level as a rank makes it. */
static struct pmon_rrec *node_rec(struct pmon_rtab *t, const char *name,
                                  int rank, double e, double time_s)
{
  int created;
  struct pmon_rrec *r = pmon__rtab_get(t, name, strlen(name), &created);

  ck_assert_ptr_nonnull(r);
  r->count = 1;
  r->time_s = r->mtime_s = time_s;
  r->first_s = rank;
  r->energy_j = e;
  r->coverage = 1;
  r->rank = rank;
  return r;
}

/* Pack A and merge the message into B, as a step of a tree does. */
static void send(const struct pmon_rtab *a, struct pmon_rtab *b)
{
  char *buf;
  size_t len;

  ck_assert_int_eq(pmon__rtab_pack(a, &buf, &len), 0);
  ck_assert_int_eq(pmon__rtab_unpack(b, buf, len), 0);
  free(buf);
}

START_TEST(test_node_merge)
{
  struct pmon_rtab a, b;
  struct pmon_rrec *r;

  pmon__rtab_init(&a, PMON_RT_NODE, 4);
  pmon__rtab_init(&b, PMON_RT_NODE, 4);
  node_rec(&a, "x", 0, 10, 2);
  node_rec(&a, "only0", 0, 1, 1);
  node_rec(&b, "x", 1, 99, 5);
  node_rec(&b, "only1", 1, 7, 3);
  b.folded = 3;
  send(&b, &a);
  ck_assert_uint_eq(a.n, 3);
  ck_assert_uint_eq(a.folded, 3);
  r = rec(&a, "x");
  /* Pairs add up, the longest time counts, the lowest rank measures. */
  ck_assert_uint_eq(r->count, 2);
  ck_assert_double_eq(r->time_s, 5);
  ck_assert_double_eq(r->energy_j, 10);
  ck_assert_double_eq(r->mtime_s, 2);
  ck_assert_int_eq(r->rank, 0);
  ck_assert_double_eq(r->first_s, 0);
  ck_assert_double_eq(rec(&a, "only1")->energy_j, 7);
  pmon__rtab_free(&a);
  pmon__rtab_free(&b);
}
END_TEST

/* Four nodes measure 1, 2, 3 and (in the last) nothing; a fifth enters
 * another region only. */
static void job_of(struct pmon_rtab *t, int node, double e, int list_max)
{
  pmon__rtab_init(t, PMON_RT_NODE, list_max);
  node_rec(t, "r", node, e, node + 1.0);
  pmon__rtab_to_job(t, node);
}

START_TEST(test_job_merge)
{
  struct pmon_rtab t[4], all;
  struct pmon_rrec *r;
  const double e[4] = {1, 2, 3, NAN};

  for (int list_max = 3; list_max <= 4; list_max++) {
    for (int i = 0; i < 4; i++)
      job_of(&t[i], i, e[i], list_max);
    /* The tree: 1 into 0, 3 into 2, then 2 into 0. */
    send(&t[1], &t[0]);
    send(&t[3], &t[2]);
    send(&t[2], &t[0]);
    r = rec(&t[0], "r");
    ck_assert_uint_eq(r->count, 4);
    ck_assert_uint_eq(r->nodes, 4);
    ck_assert_uint_eq(r->no_energy, 1);
    ck_assert_double_eq(r->energy_j, 6);
    ck_assert_double_eq_tol(r->power_w, 1 / 1.0 + 2 / 2.0 + 3 / 3.0, 1e-12);
    ck_assert_double_eq(r->time_s, 4);
    ck_assert_uint_eq(r->se.n, 3);
    ck_assert_double_eq_tol(r->se.mean, 2, 1e-12);
    ck_assert_double_eq_tol(sqrt(r->se.m2 / r->se.n), sqrt(2.0 / 3), 1e-12);
    ck_assert_int_eq(r->se.imin, 0);
    ck_assert_int_eq(r->se.imax, 2);
    ck_assert_uint_eq(r->st.n, 4);
    ck_assert_double_eq_tol(r->st.mean, 2.5, 1e-12);
    ck_assert_int_eq(r->st.imax, 3);
    /* Listed while they fit. */
    if (list_max == 3) {
      ck_assert_int_eq(r->listed, -1);
    } else {
      ck_assert_int_eq(r->listed, 4);
      for (int i = 0; i < 4; i++)
        ck_assert_int_eq(r->list[i].node, i);
    }
    for (int i = 0; i < 4; i++)
      pmon__rtab_free(&t[i]);
  }
  /* A job of one node lists it. */
  job_of(&all, 0, 5, 32);
  r = rec(&all, "r");
  ck_assert_int_eq(r->listed, 1);
  ck_assert_double_eq(r->list[0].power_w, 5);
  pmon__rtab_free(&all);
}
END_TEST

START_TEST(test_bad_messages)
{
  struct pmon_rtab a, b;
  char *buf;
  size_t len;

  pmon__rtab_init(&a, PMON_RT_NODE, 4);
  pmon__rtab_init(&b, PMON_RT_NODE, 4);
  node_rec(&a, "x", 0, 10, 2);
  node_rec(&a, "y", 0, 10, 2);
  ck_assert_int_eq(pmon__rtab_pack(&a, &buf, &len), 0);
  /* Cut short, or from the other level: refused and counted, never a
   * crash; what parsed before the cut is kept. */
  ck_assert_int_eq(pmon__rtab_unpack(&b, buf, len - 3), PMON_EFORMAT);
  ck_assert_int_eq(b.lost, 1);
  ck_assert_int_eq(pmon__rtab_unpack(&b, buf, 5), PMON_EFORMAT);
  b.level = PMON_RT_JOB;
  ck_assert_int_eq(pmon__rtab_unpack(&b, buf, len), PMON_EFORMAT);
  ck_assert_int_eq(b.lost, 3);
  free(buf);
  pmon__rtab_free(&a);
  pmon__rtab_free(&b);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("regions");
  TCase *tc = tcase_create("regions");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_fold);
  tcase_add_test(tc, test_other_spans);
  tcase_add_test(tc, test_threads_share_names);
  tcase_add_test(tc, test_bytes_per_name);
  tcase_add_test(tc, test_bad_settings);
  tcase_add_test(tc, test_node_merge);
  tcase_add_test(tc, test_job_merge);
  tcase_add_test(tc, test_bad_messages);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

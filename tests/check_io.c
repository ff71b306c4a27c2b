/*
 * check_io.c - the MPI-IO accounting of lib/io.c, fed with calls whose
 * times and sizes are chosen here: the phase budget never drops I/O time,
 * file records by name and by handle, the node's union of its ranks'
 * phases and its energy from the node history, and the job's figures.
 *
 * Every test runs in its own process (Check forks), so each starts with
 * fresh state.  The TSC is kept out (PMON_PROC_ROOT names an empty
 * directory), so stamps are nanoseconds and can be chosen exactly.
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmon.h"
#include "core.h"
#include "preload.h"

#define MS 1000000ull /* ns */
#define T0 (1000 * MS) /* pmon's start, in the tests' clock */

static void setup(void)
{
  setenv("PMON_PROC_ROOT", "/nonexistent", 1);
  unsetenv("PMON_IO_GAP");
  unsetenv("PMON_IO_FILES");
  pmon__g.t_init_ns = T0;
  atomic_store(&pmon__g.phase, PMON_PHASE_RUNNING);
}

static void start(void)
{
  ck_assert_int_eq(pmon__io_config(), 0);
  ck_assert_int_eq(pmon__io_start(0), PMON_IO_NS);
}

static json_int_t iget(json_t *o, const char *k)
{
  return json_integer_value(json_object_get(o, k));
}

static double rget(json_t *o, const char *k)
{
  return json_number_value(json_object_get(o, k));
}

static json_t *file_named(json_t *files, const char *name)
{
  json_t *f;
  size_t i;

  json_array_foreach(files, i, f)
    if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0)
      return f;
  return NULL;
}

START_TEST(test_off)
{
  /* Outside a running pmon nothing is counted. */
  atomic_store(&pmon__g.phase, PMON_PHASE_DISABLED);
  ck_assert_int_eq(pmon__io_config(), 0);
  ck_assert_int_eq(pmon__io_start(0), PMON_IO_OFF);
  pmon__io_open(1, "a", T0, T0 + 1, 1);
  ck_assert(json_is_null(pmon__io_json()));
}
END_TEST

START_TEST(test_bad_config)
{
  setenv("PMON_IO_GAP", "soon", 1);
  ck_assert_int_eq(pmon__io_config(), PMON_ECONFIG);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "PMON_IO_GAP"));
  setenv("PMON_IO_GAP", "-1", 1);
  ck_assert_int_eq(pmon__io_config(), PMON_ECONFIG);
  setenv("PMON_IO_GAP", "0.5", 1);
  setenv("PMON_IO_FILES", "many", 1);
  ck_assert_int_eq(pmon__io_config(), PMON_ECONFIG);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "PMON_IO_FILES"));
  setenv("PMON_IO_FILES", "7", 1);
  ck_assert_int_eq(pmon__io_config(), 0);
}
END_TEST

/* Bytes by kind, errors, the _end halves, and the handle's file. */
START_TEST(test_counts)
{
  json_t *o, *a, *b;

  start();
  pmon__io_open(0x10, "a", T0 + 1 * MS, T0 + 2 * MS, 1);
  pmon__io_call(0x10, PMON_IO_WRITE, 100, T0 + 3 * MS, T0 + 4 * MS, 1);
  pmon__io_call(0x10, PMON_IO_READ, 40, T0 + 5 * MS, T0 + 6 * MS, 1);
  pmon__io_call(0x10, PMON_IO_WRITE, 999, T0 + 7 * MS, T0 + 8 * MS, 0);
  pmon__io_call(0x10, PMON_IO_END, 0, T0 + 8 * MS, T0 + 9 * MS, 1);
  pmon__io_close(0x10, T0 + 9 * MS, T0 + 10 * MS, 1);
  /* The same handle again, for another file. */
  pmon__io_open(0x10, "b", T0 + 11 * MS, T0 + 12 * MS, 1);
  pmon__io_call(0x10, PMON_IO_WRITE, 7, T0 + 13 * MS, T0 + 14 * MS, 1);
  /* A handle pmon never saw opened. */
  pmon__io_call(0x20, PMON_IO_READ, 5, T0 + 15 * MS, T0 + 16 * MS, 1);
  pmon__io_open(0, "c", T0 + 17 * MS, T0 + 18 * MS, 0); /* a failed delete */
  o = pmon__io_json();
  ck_assert_int_eq(iget(o, "bytes_written"), 107);
  ck_assert_int_eq(iget(o, "bytes_read"), 45);
  ck_assert_int_eq(iget(o, "writes"), 3);
  ck_assert_int_eq(iget(o, "reads"), 2);
  ck_assert_int_eq(iget(o, "meta_ops"), 4);
  ck_assert_int_eq(iget(o, "errors"), 2);
  ck_assert_int_eq(iget(o, "time_ns"), 10 * MS);
  a = file_named(json_object_get(o, "files"), "a");
  b = file_named(json_object_get(o, "files"), "b");
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(iget(a, "bytes_written"), 100);
  ck_assert_int_eq(iget(a, "bytes_read"), 40);
  ck_assert_int_eq(iget(a, "meta_ops"), 2);
  ck_assert_int_eq(iget(b, "bytes_written"), 7);
  ck_assert_int_eq(iget(file_named(json_object_get(o, "files"), "c"),
                        "errors"), 1);
  /* Calls 1 ms apart are one phase with the default gap of 10 ms. */
  ck_assert_int_eq(json_array_size(json_object_get(o, "phases")), 1);
  ck_assert_int_eq(
    json_integer_value(json_array_get(
      json_array_get(json_object_get(o, "phases"), 0), 1)), 18 * MS);
  /* Counting stopped. */
  pmon__io_call(0x10, PMON_IO_WRITE, 1, T0 + 20 * MS, T0 + 21 * MS, 1);
  json_decref(o);
  o = pmon__io_json();
  ck_assert_int_eq(iget(o, "bytes_written"), 107);
  json_decref(o);
}
END_TEST

/* 5000 calls 2 ms apart with a 1 ms gap: the budget fills, the gap grows,
 * and every call's time stays inside a phase. */
START_TEST(test_phase_budget)
{
  json_t *o, *ph;
  size_t n, k = 0;
  double covered = 0;

  setenv("PMON_IO_GAP", "0.001", 1);
  start();
  pmon__io_open(0x10, "a", T0, T0 + 1000, 1);
  for (int i = 1; i <= 5000; i++)
    pmon__io_call(0x10, PMON_IO_WRITE, 1, T0 + (uint64_t)i * 2 * MS,
                  T0 + (uint64_t)i * 2 * MS + 500000, 1);
  o = pmon__io_json();
  ph = json_object_get(o, "phases");
  n = json_array_size(ph);
  ck_assert_uint_le(n, 1024);
  ck_assert(rget(o, "gap_s") > 0.0015);
  for (size_t i = 0; i < n; i++) {
    json_t *p = json_array_get(ph, i);
    uint64_t a = (uint64_t)json_integer_value(json_array_get(p, 0));
    uint64_t b = (uint64_t)json_integer_value(json_array_get(p, 1));

    ck_assert_uint_le(a, b);
    covered += (double)(b - a);
  }
  /* Each call [2i ms, 2i ms + 0.5 ms] lies inside some phase. */
  for (int i = 1; i <= 5000; i++) {
    uint64_t a = (uint64_t)i * 2 * MS, b = a + 500000;
    int in = 0;

    for (size_t j = 0; j < n && !in; j++) {
      json_t *p = json_array_get(ph, (k + j) % n);

      in = (uint64_t)json_integer_value(json_array_get(p, 0)) <= a &&
           (uint64_t)json_integer_value(json_array_get(p, 1)) >= b;
      if (in)
        k = (k + j) % n;
    }
    ck_assert_msg(in, "call %d outside every phase", i);
  }
  ck_assert(covered >= 5000 * 500000.0);
  ck_assert_int_eq(iget(o, "writes"), 5000);
  json_decref(o);
}
END_TEST

/* More names than a rank tells apart: the rest share one record. */
START_TEST(test_many_names)
{
  json_t *o, *files, *other;
  char name[32];
  json_int_t sum = 0;
  size_t i;
  json_t *f;

  start();
  for (int k = 0; k < 5000; k++) {
    snprintf(name, sizeof name, "f%d", k);
    pmon__io_open((uintptr_t)k + 16, name, T0 + 1, T0 + 2, 1);
    pmon__io_call((uintptr_t)k + 16, PMON_IO_WRITE, 3, T0 + 2, T0 + 3, 1);
    pmon__io_close((uintptr_t)k + 16, T0 + 3, T0 + 4, 1);
  }
  o = pmon__io_json();
  files = json_object_get(o, "files");
  ck_assert_uint_eq(json_array_size(files), 4097);
  other = file_named(files, "(other files)");
  ck_assert_ptr_nonnull(other);
  ck_assert_int_eq(iget(other, "bytes_written"), 3 * (5000 - 4096));
  json_array_foreach(files, i, f)
    sum += iget(f, "bytes_written");
  ck_assert_int_eq(sum, 15000);
  ck_assert_int_eq(iget(o, "bytes_written"), 15000);
  json_decref(o);
}
END_TEST

/* A node of two ranks whose phases overlap, at 100 W. */
START_TEST(test_node_union)
{
  json_t *ranks, *io, *files = NULL;

  start();
  pmon__g.total_meter = 0;
  for (int k = 0; k <= 40; k++) /* 100 W for 4 s, a point every 0.1 s */
    pmon__hist_add(T0 + (uint64_t)k * 100 * MS, 100 * 0.1 * k,
                   (uint64_t)k * 100 * MS, NULL);
  ranks = json_loads(
    "[{\"rank\": 0, \"io\": {\"bytes_read\": 10, \"bytes_written\": 20,"
    " \"reads\": 1, \"writes\": 2, \"meta_ops\": 2, \"errors\": 0,"
    " \"time_ns\": 900000000, \"gap_s\": 0.01,"
    " \"phases\": [[100000000, 600000000], [2000000000, 2250000000]],"
    " \"files\": [{\"name\": \"x\", \"bytes_read\": 10, \"bytes_written\": 20,"
    " \"reads\": 1, \"writes\": 2, \"meta_ops\": 2, \"errors\": 0,"
    " \"time_ns\": 900000000}]}},"
    " {\"rank\": 1, \"io\": {\"bytes_read\": 0, \"bytes_written\": 5,"
    " \"reads\": 0, \"writes\": 1, \"meta_ops\": 2, \"errors\": 1,"
    " \"time_ns\": 400000000, \"gap_s\": 0.02,"
    " \"phases\": [[450000000, 850000000]],"
    " \"files\": [{\"name\": \"x\", \"bytes_read\": 0, \"bytes_written\": 5,"
    " \"reads\": 0, \"writes\": 1, \"meta_ops\": 2, \"errors\": 1,"
    " \"time_ns\": 400000000}]}},"
    " {\"rank\": 2, \"io\": null}]",
    0, NULL);
  ck_assert_ptr_nonnull(ranks);
  io = pmon__io_node(ranks, &files, 1);
  /* Union: [0.1, 0.85] and [2.0, 2.25] s: 1.0 s, 100 J. */
  ck_assert_int_eq(iget(io, "phases"), 2);
  ck_assert_double_eq_tol(rget(io, "phase_time_s"), 1.0, 1e-9);
  ck_assert_double_eq_tol(rget(io, "energy_j"), 100.0, 1e-6);
  ck_assert_double_eq_tol(rget(io, "power_w"), 100.0, 1e-6);
  ck_assert_double_eq_tol(rget(io, "time_s"), 0.9, 1e-9);
  ck_assert_double_eq_tol(rget(io, "gap_s"), 0.02, 1e-12);
  ck_assert_int_eq(iget(io, "bytes_written"), 25);
  ck_assert_int_eq(iget(io, "ops"), 8);
  ck_assert_int_eq(iget(io, "errors"), 1);
  ck_assert_uint_eq(json_array_size(files), 1);
  ck_assert_int_eq(iget(json_array_get(files, 0), "ranks"), 2);
  ck_assert_int_eq(iget(json_array_get(files, 0), "bytes_written"), 25);
  ck_assert_double_eq_tol(rget(json_array_get(files, 0), "time_s"), 0.9,
                          1e-9);
  json_decref(io);
  json_decref(files);
  json_decref(ranks);
  pmon__hist_free();
}
END_TEST

/* The job: sums over nodes and the rates. */
START_TEST(test_job)
{
  json_t *nodes, *io;

  ck_assert_int_eq(pmon__io_config(), 0);
  nodes = json_loads(
    "[{\"name\": \"n0\", \"estimated\": false, \"io\": {\"bytes_read\": 0,"
    " \"bytes_written\": 2000000, \"reads\": 0, \"writes\": 4,"
    " \"meta_ops\": 2, \"errors\": 0, \"ops\": 6, \"time_s\": 2.0,"
    " \"phases\": 1, \"phase_time_s\": 2.0, \"energy_j\": 400.0,"
    " \"power_w\": 200.0, \"gap_s\": 0.01},"
    " \"io_files\": [{\"name\": \"f\", \"bytes_read\": 0,"
    " \"bytes_written\": 2000000, \"reads\": 0, \"writes\": 4,"
    " \"meta_ops\": 2, \"ops\": 6, \"time_s\": 2.0, \"ranks\": 2}]},"
    " {\"name\": \"n1\", \"estimated\": false, \"io\": {\"bytes_read\": 0,"
    " \"bytes_written\": 2000000, \"reads\": 0, \"writes\": 4,"
    " \"meta_ops\": 2, \"errors\": 0, \"ops\": 6, \"time_s\": 1.0,"
    " \"phases\": 2, \"phase_time_s\": 1.0, \"energy_j\": 300.0,"
    " \"power_w\": 300.0, \"gap_s\": 0.01},"
    " \"io_files\": [{\"name\": \"f\", \"bytes_read\": 0,"
    " \"bytes_written\": 2000000, \"reads\": 0, \"writes\": 4,"
    " \"meta_ops\": 2, \"ops\": 6, \"time_s\": 1.0, \"ranks\": 2}]},"
    " {\"name\": \"n2\", \"io\": null}]",
    0, NULL);
  ck_assert_ptr_nonnull(nodes);
  io = pmon__io_job(nodes);
  ck_assert_int_eq(iget(io, "bytes_written"), 4000000);
  ck_assert_double_eq_tol(rget(io, "time_s"), 2.0, 1e-12);
  ck_assert_int_eq(iget(io, "phases"), 3);
  ck_assert_double_eq_tol(rget(io, "energy_j"), 700, 1e-9);
  ck_assert_double_eq_tol(rget(io, "power_w"), 500, 1e-9);
  ck_assert_double_eq_tol(rget(io, "mb_per_s"), 2.0, 1e-12);
  ck_assert_double_eq_tol(rget(io, "mb_per_j"), 4.0 / 700, 1e-12);
  ck_assert_double_eq_tol(rget(io, "mb_per_s_per_w"), 2.0 / 500, 1e-12);
  ck_assert_double_eq_tol(rget(io, "j_per_byte"), 700 / 4e6, 1e-15);
  ck_assert_int_eq(iget(io, "nodes_without_energy"), 0);
  ck_assert_uint_eq(json_array_size(json_object_get(io, "files")), 1);
  ck_assert_int_eq(iget(json_array_get(json_object_get(io, "files"), 0),
                        "ranks"), 4);
  ck_assert_ptr_null(json_object_get(json_array_get(nodes, 0), "io_files"));
  json_decref(io);
  json_decref(nodes);
}
END_TEST

/* A node without energy: no rate per joule for the job. */
START_TEST(test_job_unmeasured)
{
  json_t *nodes, *io;

  ck_assert_int_eq(pmon__io_config(), 0);
  nodes = json_loads(
    "[{\"name\": \"n0\", \"io\": {\"bytes_read\": 0,"
    " \"bytes_written\": 1000000, \"reads\": 0, \"writes\": 1,"
    " \"meta_ops\": 0, \"errors\": 0, \"ops\": 1, \"time_s\": 1.0,"
    " \"phases\": 1, \"phase_time_s\": 1.0, \"energy_j\": 100.0,"
    " \"power_w\": 100.0, \"gap_s\": 0.01, \"files_omitted\": 3}},"
    " {\"name\": \"n1\", \"io\": {\"bytes_read\": 0,"
    " \"bytes_written\": 1000000, \"reads\": 0, \"writes\": 1,"
    " \"meta_ops\": 0, \"errors\": 0, \"ops\": 1, \"time_s\": 1.0,"
    " \"phases\": 1, \"phase_time_s\": 1.0, \"energy_j\": null,"
    " \"power_w\": null, \"gap_s\": 0.01, \"files_omitted\": 2}}]",
    0, NULL);
  ck_assert_ptr_nonnull(nodes);
  io = pmon__io_job(nodes);
  ck_assert_double_eq_tol(rget(io, "energy_j"), 100, 1e-9);
  ck_assert_int_eq(iget(io, "nodes_without_energy"), 1);
  ck_assert(json_is_null(json_object_get(io, "mb_per_j")));
  ck_assert(json_is_null(json_object_get(io, "mb_per_s_per_w")));
  ck_assert(json_is_null(json_object_get(io, "j_per_byte")));
  ck_assert_double_eq_tol(rget(io, "mb_per_s"), 2.0, 1e-12);
  ck_assert_int_eq(iget(io, "files_omitted"), 5);
  json_decref(io);
  json_decref(nodes);
}
END_TEST

/* Energy only inside the history. */
START_TEST(test_hist_span)
{
  pmon__hist_add(T0, 0, 0, NULL);
  pmon__hist_add(T0 + 1000 * MS, 50, 1000 * MS, NULL);
  ck_assert_double_eq_tol(pmon__hist_energy(T0 + 250 * MS, T0 + 750 * MS),
                          25, 1e-9);
  ck_assert(isnan(pmon__hist_energy(T0 - 1, T0 + 10)));
  ck_assert(isnan(pmon__hist_energy(T0, T0 + 1001 * MS)));
  pmon__hist_free();
  ck_assert(isnan(pmon__hist_energy(T0, T0 + 10)));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("io");
  TCase *tc = tcase_create("io");
  SRunner *sr;
  int failed;

  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_off);
  tcase_add_test(tc, test_bad_config);
  tcase_add_test(tc, test_counts);
  tcase_add_test(tc, test_phase_budget);
  tcase_add_test(tc, test_many_names);
  tcase_add_test(tc, test_node_union);
  tcase_add_test(tc, test_job);
  tcase_add_test(tc, test_job_unmeasured);
  tcase_add_test(tc, test_hist_span);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

/*
 * check_nvml.c - the nvml driver against tests/nvml_stub.c, a stand-in
 * for libnvidia-ml.so.1 driven by PMON_STUB_NVML_* variables.
 *
 * The driver file is included so that the tests reach its private block.
 * NVML_STUB and NVML_STUB_OLD are the paths of the two builds of the
 * stand-in (the -old one has no _v2 names and no energy counter).  Every
 * test forks, so the variables one sets end with it.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../drivers/nvml.c"

enum lib { STUB, OLD, ABSENT, NOT_NVML };

static const char *lib_path(enum lib lib)
{
  switch (lib) {
  case STUB: return NVML_STUB;
  case OLD: return NVML_STUB_OLD;
  case ABSENT: return "/nonexistent/libnvidia-ml.so.1";
  default: return "libm.so.6";
  }
}

/* Set the stand-in's variables from "KEY=VALUE KEY=VALUE", each KEY
 * after PMON_STUB_NVML_. */
static void stub_env(const char *env)
{
  char buf[256], *save = NULL;

  snprintf(buf, sizeof buf, "%s", env);
  for (char *kv = strtok_r(buf, " ", &save); kv != NULL;
       kv = strtok_r(NULL, " ", &save)) {
    char name[64], *eq = strchr(kv, '=');

    ck_assert_ptr_nonnull(eq);
    *eq = '\0';
    snprintf(name, sizeof name, "PMON_STUB_NVML_%s", kv);
    ck_assert_int_eq(setenv(name, eq + 1, 1), 0);
  }
}

/* Whether the library at PATH is loaded in this process now. */
static int loaded(const char *path)
{
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

  if (h != NULL)
    dlclose(h);
  return h != NULL;
}

static struct pmon_meter meter;
static struct nvml_priv priv;

/* Open "nvml?lib=LIB" + TAIL as the global meter, after ENV. */
static int open_meter(enum lib lib, const char *tail, const char *env)
{
  char text[PMON_SPEC_MAX];

  stub_env(env);
  memset(&meter, 0, sizeof meter);
  memset(&priv, 0, sizeof priv);
  meter.drv = &pmon__driver_nvml;
  meter.priv = &priv;
  meter.flags = pmon__driver_nvml.flags;
  meter.interval_s = pmon__driver_nvml.interval_s;
  snprintf(text, sizeof text, "nvml?lib=%s%s", lib_path(lib), tail);
  ck_assert_int_eq(pmon__spec_parse(text, &meter.spec), 0);
  return pmon__driver_nvml.open(&meter);
}

static double now_s(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
  struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

  while (nanosleep(&ts, &ts) != 0)
    ;
}

/*
 * Opening, table-driven: the library, the specification's tail, the
 * stand-in's variables; then what open() returns and, when 0, the meter's
 * kind, its channels and a piece of its note ("" for none), else a piece
 * of the message.
 */
static const struct open_row {
  int line;
  enum lib lib;
  const char *tail, *env;
  int rc;
  const char *kind, *channels, *text;
} open_rows[] = {
  {__LINE__, STUB, "", "", 0, "counter", "gpu0 gpu1", ""},
  {__LINE__, STUB, "&gpus=1", "", 0, "counter", "gpu1", ""},
  {__LINE__, STUB, "&gpus=2,0", "GPUS=4", 0, "counter", "gpu2 gpu0", ""},
  {__LINE__, STUB, "", "ENERGY=0", 0, "sampled", "gpu0 gpu1",
   "gpu0: energy counter not supported (pre-Volta): integrating power"},
  {__LINE__, STUB, "", "ENERGY=1,0", 0, "sampled", "gpu0 gpu1",
   "gpu1: energy counter not supported (pre-Volta): integrating power"},
  {__LINE__, STUB, "&gpus=0", "ENERGY=1,0", 0, "counter", "gpu0", ""},
  {__LINE__, STUB, "", "GPUS=20", 0, "counter",
   "gpu0 gpu1 gpu2 gpu3 gpu4 gpu5 gpu6 gpu7 gpu8 gpu9 gpu10 gpu11 gpu12 "
   "gpu13 gpu14 gpu15",
   "gpu16 to gpu19: not measured: a meter has at most 16 channels"},
  {__LINE__, STUB, "", "GPUS=3 DENY=1", 0, "counter", "gpu0 gpu2",
   "gpu1: no permission (another job's GPUs?): not measured"},
  {__LINE__, STUB, "&interval=0.5", "", 0, "counter", "gpu0 gpu1", ""},
  {__LINE__, OLD, "", "", 0, "sampled", "gpu0 gpu1",
   "no nvmlDeviceGetTotalEnergyConsumption (an old NVIDIA driver): "
   "integrating power"},

  {__LINE__, STUB, "&gpus=1", "DENY=1", PMON_EIO, NULL, NULL,
   "pmon: nvml: gpu1: nvmlDeviceGetHandleByIndex: Insufficient Permissions "
   "(NVML_ERROR_NO_PERMISSION, 4): the GPU's device file is not "
   "accessible"},
  {__LINE__, STUB, "", "DENY=0,1", PMON_ENOMETER, NULL, NULL,
   "no GPU that this process may read: gpu0, gpu1: no permission"},
  {__LINE__, STUB, "&gpus=5", "", PMON_ENOMETER, NULL, NULL,
   "pmon: nvml: gpus=5: GPU 5: no such GPU: this node has 2 (0 to 1)"},
  {__LINE__, STUB, "", "GPUS=0", PMON_ENOMETER, NULL, NULL,
   "no NVIDIA GPU on this node"},
  {__LINE__, STUB, "", "INIT=9", PMON_ENOMETER, NULL, NULL,
   ": nvmlInit: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED, 9): the "
   "NVIDIA kernel driver is not loaded on this node"},
  {__LINE__, STUB, "", "INIT=4", PMON_EIO, NULL, NULL,
   ": nvmlInit: Insufficient Permissions (NVML_ERROR_NO_PERMISSION, 4)"},
  {__LINE__, STUB, "", "INIT=999", PMON_EIO, NULL, NULL,
   ": nvmlInit: Unknown Error (NVML_ERROR_UNKNOWN, 999)"},
  {__LINE__, STUB, "", "LOST=1:0", PMON_EIO, NULL, NULL,
   "nvml: gpu1: nvmlDeviceGetHandleByIndex: GPU is lost "
   "(NVML_ERROR_GPU_IS_LOST, 15): the GPU fell off the bus"},
  {__LINE__, ABSENT, "", "", PMON_ENOMETER, NULL, NULL,
   "pmon: nvml: /nonexistent/libnvidia-ml.so.1: cannot load: cannot open "
   "shared object file: No such file or directory"},
  {__LINE__, NOT_NVML, "", "", PMON_ENOMETER, NULL, NULL,
   "pmon: nvml: libm.so.6: nvmlInit_v2 nor nvmlInit: no such function: "
   "not an NVML library"},

  {__LINE__, STUB, "&gpus=", "", PMON_ECONFIG, NULL, NULL,
   "gpus=: expected GPU indices"},
  {__LINE__, STUB, "&gpus=a", "", PMON_ECONFIG, NULL, NULL,
   "gpus=a: expected GPU indices"},
  {__LINE__, STUB, "&gpus=0,,1", "", PMON_ECONFIG, NULL, NULL,
   "gpus=0,,1: expected"},
  {__LINE__, STUB, "&gpus=1,", "", PMON_ECONFIG, NULL, NULL,
   "gpus=1,: expected"},
  {__LINE__, STUB, "&gpus=-1", "", PMON_ECONFIG, NULL, NULL,
   "gpus=-1: expected"},
  {__LINE__, STUB, "&gpus=1,1", "", PMON_ECONFIG, NULL, NULL,
   "gpus=1,1: GPU 1 twice"},
  {__LINE__, STUB, "&gpus=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "",
   PMON_ECONFIG, NULL, NULL, "more than 16 GPUs in one meter"},
  {__LINE__, STUB, "&rate=3", "", PMON_ECONFIG, NULL, NULL,
   "unknown parameter rate"},
  {__LINE__, STUB, "&interval=0", "", PMON_ECONFIG, NULL, NULL,
   "interval=0: not a number from"},
  {__LINE__, STUB, "&lib=", "", PMON_ECONFIG, NULL, NULL,
   "expected nvml[?lib=PATH&gpus=LIST&interval=S]"},
};

START_TEST(test_open)
{
  const struct open_row *row = &open_rows[_i];
  int rc = open_meter(row->lib, row->tail, row->env);
  char names[256] = "";

  ck_assert_msg(rc == row->rc, "row at line %d: open: %d, %s", row->line,
                rc, pmon_errmsg());
  if (rc != 0) {
    ck_assert_msg(strstr(pmon_errmsg(), row->text) != NULL,
                  "row at line %d: message \"%s\"", row->line,
                  pmon_errmsg());
    ck_assert_msg(row->lib == NOT_NVML || !loaded(lib_path(row->lib)),
                  "row at line %d: still loaded after a failed open",
                  row->line);
    return;
  }
  for (int c = 0; c < meter.nch; c++) {
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
             c > 0 ? " " : "", meter.ch[c].name);
    ck_assert_int_eq(meter.ch[c].domain, PMON_DOM_ACCEL);
    ck_assert_uint_eq(meter.ch[c].flags, PMON_CH_TOTAL);
    ck_assert_uint_eq(meter.ch[c].range, 0);
    ck_assert_double_eq(meter.ch[c].max_watts, 300.0);
    ck_assert_double_eq(meter.ch[c].scale,
                        meter.flags & PMON_DRV_COUNTER ? 1e-3 : 1.0);
  }
  ck_assert_msg(strcmp(names, row->channels) == 0,
                "row at line %d: channels \"%s\"", row->line, names);
  ck_assert_msg(strcmp(row->kind, meter.flags & PMON_DRV_COUNTER
                                    ? "counter"
                                    : "sampled") == 0,
                "row at line %d: flags %#x", row->line, meter.flags);
  ck_assert_uint_eq(meter.flags & PMON_DRV_PART, PMON_DRV_PART);
  ck_assert_uint_eq(!(meter.flags & PMON_DRV_COUNTER),
                    !!(meter.flags & PMON_DRV_SAMPLED));
  ck_assert_msg(row->text[0] == '\0' ? meter.note[0] == '\0'
                                     : strstr(meter.note, row->text) != NULL,
                "row at line %d: note \"%s\"", row->line, meter.note);
  ck_assert_msg(strcmp(meter.source,
                       row->lib == OLD ? "nvml power"
                       : meter.flags & PMON_DRV_COUNTER
                         ? "nvml energy, driver 550.54.15-stub"
                         : "nvml power, driver 550.54.15-stub") == 0,
                "row at line %d: source \"%s\"", row->line, meter.source);
  ck_assert_double_eq(meter.interval_s,
                      strstr(row->tail, "interval=0.5") ? 0.5 : 0.1);
  {
    struct pmon_reading r = {0};

    ck_assert_int_eq(nvml_read(&meter, &r), 0);
  }
  nvml_close(&meter);
  ck_assert_ptr_null(priv.dl);
  ck_assert_msg(!loaded(lib_path(row->lib)), "row at line %d: still loaded "
                "after close", row->line);
}
END_TEST

/* A specification with a path, which the driver has no use for. */
START_TEST(test_path_refused)
{
  memset(&meter, 0, sizeof meter);
  meter.priv = &priv;
  ck_assert_int_eq(pmon__spec_parse("nvml:/usr/lib/libnvidia-ml.so.1",
                                    &meter.spec), 0);
  ck_assert_int_eq(nvml_open(&meter), PMON_ECONFIG);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "expected nvml[?lib=PATH"));
}
END_TEST

/* Energy counters: millijoules that rise as the waveforms say. */
START_TEST(test_read_energy)
{
  struct pmon_reading a = {0}, b = {0};
  double t0, t1;

  ck_assert_int_eq(open_meter(STUB, "", "WAVE=const:100,const:250"), 0);
  t0 = now_s();
  ck_assert_int_eq(nvml_read(&meter, &a), 0);
  sleep_s(0.3);
  t1 = now_s();
  ck_assert_int_eq(nvml_read(&meter, &b), 0);
  /* 123456789 mJ before the first nvmlInit, then the waveform's. */
  ck_assert_uint_ge(a.raw[0], 123456789);
  ck_assert_double_eq_tol((double)(b.raw[0] - a.raw[0]) * 1e-3 / (t1 - t0),
                          100.0, 1.0);
  ck_assert_double_eq_tol((double)(b.raw[1] - a.raw[1]) * 1e-3 / (t1 - t0),
                          250.0, 2.5);
  ck_assert_int_eq(a.stale, 0);
  ck_assert_int_eq(b.stale, 0);
  ck_assert_uint_eq(b.events, 0);
  nvml_close(&meter);
}
END_TEST

/* Power: milliwatts become watts. */
START_TEST(test_read_power)
{
  struct pmon_reading r = {0};

  ck_assert_int_eq(open_meter(STUB, "", "ENERGY=0 WAVE=const:87.5"), 0);
  ck_assert_int_eq(nvml_read(&meter, &r), 0);
  ck_assert_double_eq(r.watts[0], 87.5);
  ck_assert_double_eq(r.watts[1], 87.5);
  ck_assert_uint_eq(r.raw[0], 0);
  nvml_close(&meter);
}
END_TEST

/* A power reading no GPU draws is rejected. */
START_TEST(test_power_implausible)
{
  struct pmon_reading r = {0};

  ck_assert_int_eq(open_meter(STUB, "", "ENERGY=0 WAVE=const:100,const:20000"),
                   0);
  ck_assert_int_eq(nvml_read(&meter, &r), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "nvml: gpu1: "
                               "nvmlDeviceGetPowerUsage: 20000000 mW is "
                               "not a GPU's power"));
  nvml_close(&meter);
}
END_TEST

/* Counters that have not moved bring nothing new. */
START_TEST(test_stale)
{
  struct pmon_reading a = {0}, b = {0};

  ck_assert_int_eq(open_meter(STUB, "", "WAVE=const:0"), 0);
  ck_assert_int_eq(nvml_read(&meter, &a), 0);
  sleep_s(0.05);
  ck_assert_int_eq(nvml_read(&meter, &b), 0);
  ck_assert_int_eq(a.stale, 0);
  ck_assert_int_eq(b.stale, 1);
  nvml_close(&meter);
}
END_TEST

/* A counter that starts again: a reset event that names the GPU, once. */
START_TEST(test_reset)
{
  struct pmon_reading a = {0}, b = {0}, c = {0};

  ck_assert_int_eq(open_meter(STUB, "", "RESET=1:0.2"), 0);
  ck_assert_int_eq(nvml_read(&meter, &a), 0);
  sleep_s(0.3);
  ck_assert_int_eq(nvml_read(&meter, &b), 0);
  ck_assert_uint_eq(b.events, PMON_EV_RESET);
  ck_assert_msg(strncmp(b.detail, "gpu1: energy counter went back", 30) == 0,
                "detail \"%s\"", b.detail);
  ck_assert_uint_lt(b.raw[1], a.raw[1]);
  ck_assert_uint_gt(b.raw[0], a.raw[0]);
  sleep_s(0.05);
  ck_assert_int_eq(nvml_read(&meter, &c), 0);
  ck_assert_uint_eq(c.events, 0);
  ck_assert_uint_gt(c.raw[1], b.raw[1]);
  nvml_close(&meter);
}
END_TEST

/* A GPU lost mid-run: each reading fails at once and says why. */
START_TEST(test_lost)
{
  struct pmon_reading r = {0};
  double t;

  ck_assert_int_eq(open_meter(STUB, "", "LOST=0:0.2"), 0);
  ck_assert_int_eq(nvml_read(&meter, &r), 0);
  sleep_s(0.3);
  for (int i = 0; i < 3; i++) {
    memset(&r, 0, sizeof r);
    t = now_s();
    ck_assert_int_eq(nvml_read(&meter, &r), PMON_EIO);
    ck_assert_double_lt(now_s() - t, 0.05);
    ck_assert_msg(strstr(pmon_errmsg(), "pmon: nvml: gpu0: "
                         "nvmlDeviceGetTotalEnergyConsumption: GPU is lost "
                         "(NVML_ERROR_GPU_IS_LOST, 15): the GPU fell off "
                         "the bus or stopped answering") != NULL,
                  "message \"%s\"", pmon_errmsg());
  }
  nvml_close(&meter);
  ck_assert(!loaded(NVML_STUB));
}
END_TEST

/* No power limit: max_watts stays 0 (the core's default). */
START_TEST(test_no_limit)
{
  ck_assert_int_eq(open_meter(STUB, "", "LIMIT=0"), 0);
  ck_assert_double_eq(meter.ch[0].max_watts, 0.0);
  nvml_close(&meter);
}
END_TEST

/* A costly counter (NVIDIA's driver 580 spends about 4 ms of processor
 * time a call on an H200): the period grows so that the readings take at
 * most 1 % of a core, unless interval= chose it; the note says so. */
START_TEST(test_costly)
{
  ck_assert_int_eq(open_meter(STUB, "", "GPUS=2 COST_US=0"), 0);
  ck_assert_double_eq(meter.interval_s, 0.1);
  ck_assert_str_eq(meter.note, "");
  nvml_close(&meter);

  /* 2 GPUs x 2 ms: 0.4 s (a slow machine adds processor time, and with
   * it a step of 0.05 s or two). */
  ck_assert_int_eq(open_meter(STUB, "", "GPUS=2 COST_US=2000"), 0);
  ck_assert_double_ge(meter.interval_s, 0.4 - 1e-9);
  ck_assert_double_le(meter.interval_s, 0.6);
  ck_assert_double_ge(meter.stale_s, 5 * meter.interval_s - 1e-9);
  ck_assert_ptr_nonnull(strstr(meter.note, "a reading takes 4."));
  ck_assert_ptr_nonnull(strstr(meter.note, "ms of processor time: read "
                                           "every 0."));
  ck_assert_ptr_nonnull(strstr(meter.note, "not 0.1 s, to take at most 1 % "
                                           "of a core (interval= chooses)"));
  nvml_close(&meter);

  ck_assert_int_eq(open_meter(STUB, "&interval=0.1", "GPUS=2 COST_US=2000"),
                   0);
  ck_assert_double_eq(meter.interval_s, 0.1);
  ck_assert_ptr_nonnull(strstr(meter.note, "every 0.1 s as interval= asks, "
                                           "4."));
  nvml_close(&meter);
}
END_TEST

/* Two meters in one process: NVML's init is counted, so closing one
 * leaves the other reading. */
START_TEST(test_two_meters)
{
  struct pmon_meter m2;
  struct nvml_priv p2;
  struct pmon_reading r = {0};
  char text[PMON_SPEC_MAX];

  ck_assert_int_eq(open_meter(STUB, "&gpus=0", ""), 0);
  memset(&m2, 0, sizeof m2);
  memset(&p2, 0, sizeof p2);
  m2.priv = &p2;
  m2.flags = pmon__driver_nvml.flags;
  m2.interval_s = pmon__driver_nvml.interval_s;
  snprintf(text, sizeof text, "nvml?lib=%s&gpus=1", NVML_STUB);
  ck_assert_int_eq(pmon__spec_parse(text, &m2.spec), 0);
  ck_assert_int_eq(nvml_open(&m2), 0);
  ck_assert_str_eq(m2.ch[0].name, "gpu1");
  nvml_close(&meter);
  ck_assert(loaded(NVML_STUB));
  ck_assert_int_eq(nvml_read(&m2, &r), 0);
  ck_assert_uint_gt(r.raw[0], 0);
  nvml_close(&m2);
  ck_assert(!loaded(NVML_STUB));
}
END_TEST

/* probe(): whether a GPU is there, leaving nothing loaded. */
static const struct {
  int line;
  enum lib lib;
  const char *env;
  int rc;
  const char *text;
} probe_rows[] = {
  {__LINE__, STUB, "", 0, NULL},
  {__LINE__, OLD, "", 0, NULL},
  {__LINE__, STUB, "GPUS=0", PMON_ENOMETER, "no NVIDIA GPU on this node"},
  {__LINE__, STUB, "INIT=9", PMON_ENOMETER, "NVML_ERROR_DRIVER_NOT_LOADED"},
  {__LINE__, ABSENT, "", PMON_ENOMETER, "cannot load"},
};

START_TEST(test_probe)
{
  struct pmon_spec spec;
  char text[PMON_SPEC_MAX];
  int rc;

  stub_env(probe_rows[_i].env);
  snprintf(text, sizeof text, "nvml?lib=%s", lib_path(probe_rows[_i].lib));
  ck_assert_int_eq(pmon__spec_parse(text, &spec), 0);
  rc = nvml_probe(&spec);
  ck_assert_msg(rc == probe_rows[_i].rc, "row at line %d: %d, %s",
                probe_rows[_i].line, rc, pmon_errmsg());
  if (rc != 0)
    ck_assert_msg(strstr(pmon_errmsg(), probe_rows[_i].text) != NULL,
                  "row at line %d: \"%s\"", probe_rows[_i].line,
                  pmon_errmsg());
  ck_assert_msg(!loaded(lib_path(probe_rows[_i].lib)),
                "row at line %d: still loaded", probe_rows[_i].line);
}
END_TEST

/* Without lib=, the driver loads PMON_NVML_LIB, else libnvidia-ml.so.1
 * (whatever this host has: the test never loads that one).  A library
 * that cannot be loaded says so. */
START_TEST(test_default_lib)
{
  struct pmon_spec spec;

  ck_assert_int_eq(unsetenv("PMON_NVML_LIB"), 0);
  ck_assert_str_eq(default_lib(), "libnvidia-ml.so.1");
  ck_assert_int_eq(setenv("PMON_NVML_LIB", "", 1), 0);
  ck_assert_str_eq(default_lib(), "libnvidia-ml.so.1");

  ck_assert_int_eq(setenv("PMON_NVML_LIB", NVML_STUB, 1), 0);
  ck_assert_int_eq(pmon__spec_parse("nvml", &spec), 0);
  ck_assert_int_eq(nvml_probe(&spec), 0);

  ck_assert_int_eq(setenv("PMON_NVML_LIB", "libnvidia-ml-none.so.1", 1), 0);
  ck_assert_int_eq(nvml_probe(&spec), PMON_ENOMETER);
  ck_assert_msg(strstr(pmon_errmsg(), "pmon: nvml: libnvidia-ml-none.so.1: "
                       "cannot load: ") != NULL &&
                  strstr(pmon_errmsg(), ": no NVIDIA driver on this node") !=
                    NULL,
                "message \"%s\"", pmon_errmsg());
}
END_TEST

int main(void)
{
  Suite *s = suite_create("nvml");
  TCase *tc = tcase_create("stub");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(tc, test_open, 0,
                      sizeof open_rows / sizeof open_rows[0]);
  tcase_add_loop_test(tc, test_probe, 0,
                      sizeof probe_rows / sizeof probe_rows[0]);
  tcase_add_test(tc, test_path_refused);
  tcase_add_test(tc, test_read_energy);
  tcase_add_test(tc, test_read_power);
  tcase_add_test(tc, test_power_implausible);
  tcase_add_test(tc, test_stale);
  tcase_add_test(tc, test_reset);
  tcase_add_test(tc, test_lost);
  tcase_add_test(tc, test_no_limit);
  tcase_add_test(tc, test_costly);
  tcase_add_test(tc, test_two_meters);
  tcase_add_test(tc, test_default_lib);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

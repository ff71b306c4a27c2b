/*
 * check_hwmon.c - the hwmon driver: its parsers and rules, and its choice
 * of chips and channels in fixture trees.
 *
 * The driver file is included so that the tests reach its static
 * functions and replace its pread() seam.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../drivers/hwmon.c"

/* Table-driven: each row carries its line, so a failure names it. */
static const struct {
  int line;
  const char *text;
  size_t len; /* 0: strlen(text) */
  int ok;
  uint64_t value;
} value_rows[] = {
  {__LINE__, "123456\n", 0, 1, 123456},
  {__LINE__, "0", 0, 1, 0},
  {__LINE__, "42\n\0\0\0\0", 7, 1, 42},
  {__LINE__, "18446744073709551615", 0, 1, UINT64_MAX},
  {__LINE__, "18446744073709551616", 0, 0, 0},
  {__LINE__, "", 0, 0, 0},
  {__LINE__, "\n", 0, 0, 0},
  {__LINE__, "\0\0\0", 3, 0, 0},
  {__LINE__, "-5000000\n", 0, 0, 0},
  {__LINE__, "12.5\n", 0, 0, 0},
  {__LINE__, "12 W\n", 0, 0, 0},
  {__LINE__, " 12\n", 0, 0, 0},
  {__LINE__, "12\n\n", 0, 0, 0},
  {__LINE__, "12\nx", 0, 0, 0},
};

START_TEST(test_parse_value)
{
  uint64_t v = 0;
  size_t len = value_rows[_i].len ? value_rows[_i].len
                                  : strlen(value_rows[_i].text);
  int rc = parse_value(value_rows[_i].text, len, &v);

  ck_assert_msg((rc == 0) == value_rows[_i].ok, "row at line %d: rc %d",
                value_rows[_i].line, rc);
  if (value_rows[_i].ok)
    ck_assert_msg(v == value_rows[_i].value, "row at line %d: %llu",
                  value_rows[_i].line, (unsigned long long)v);
}
END_TEST

static const struct {
  int line;
  const char *label;
  int rail; /* -1: not a Grace rail */
  int socket;
} rail_rows[] = {
  {__LINE__, "Module Power Socket 0", RAIL_MODULE, 0},
  {__LINE__, "Grace Power Socket 1", RAIL_GRACE, 1},
  {__LINE__, "CPU Power Socket 3", 2, 3},
  {__LINE__, "SysIO Power Socket 12", 3, 12},
  {__LINE__, "Module Power Socket ", -1, 0},
  {__LINE__, "Module Power Socket 0x", -1, 0},
  {__LINE__, "Module Power Socket 1000", -1, 0},
  {__LINE__, "module Power Socket 0", -1, 0},
  {__LINE__, "GPU Power Socket 0", -1, 0},
  {__LINE__, "Module Power", -1, 0},
  {__LINE__, "", -1, 0},
  {__LINE__, "Fixture Meter 1.0", -1, 0},
};

START_TEST(test_grace_rail)
{
  int socket = -7, r = grace_rail(rail_rows[_i].label, &socket);

  ck_assert_msg(r == rail_rows[_i].rail, "row at line %d: rail %d",
                rail_rows[_i].line, r);
  if (r >= 0)
    ck_assert_msg(socket == rail_rows[_i].socket, "row at line %d: %d",
                  rail_rows[_i].line, socket);
}
END_TEST

static const struct {
  int line;
  const char *label, *name;
} sanitise_rows[] = {
  {__LINE__, "Composite", "composite"},
  {__LINE__, "VDD CPU (core)", "vdd-cpu-core"},
  {__LINE__, "  PSU 1  ", "psu-1"},
  {__LINE__, "in_0.5V_rail", "in_0.5v_rail"},
  {__LINE__, "***", ""},
  {__LINE__, "", ""},
  {__LINE__, "a-very-long-label-that-goes-on-and-on-beyond-31",
   "a-very-long-label-that-goes-on"},
  {__LINE__, "abcdefghijklmnopqrstuvwxyz01234 56", "abcdefghijklmnopqrstuvwxyz01234"},
};

START_TEST(test_sanitise)
{
  char name[PMON_CH_NAME_MAX];

  sanitise(sanitise_rows[_i].label, name);
  ck_assert_msg(strcmp(name, sanitise_rows[_i].name) == 0,
                "row at line %d: \"%s\"", sanitise_rows[_i].line, name);
}
END_TEST

static const struct {
  int line;
  const char *a, *b;
  int sign;
} order_rows[] = {
  {__LINE__, "/s/hwmon2", "/s/hwmon10", -1},
  {__LINE__, "/s/hwmon10", "/s/hwmon2", 1},
  {__LINE__, "/s/hwmon02", "/s/hwmon2", 0},
  {__LINE__, "/s/a/hwmon9", "/s/b/hwmon1", -1},
  {__LINE__, "/s/hwmon1", "/s/hwmon1x", -1},
  {__LINE__, "", "", 0},
};

START_TEST(test_natural_order)
{
  int d = natural_cmp(order_rows[_i].a, order_rows[_i].b);

  ck_assert_msg((d > 0) - (d < 0) == order_rows[_i].sign,
                "row at line %d: %d", order_rows[_i].line, d);
}
END_TEST

static const struct {
  int line;
  const char *chip, *label;
  const char *name;
  enum pmon_domain domain;
  unsigned flags;
  const char *overlaps;
  int wanted;
} class_rows[] = {
  {__LINE__, "power_meter", "", "node", PMON_DOM_NODE, PMON_CH_TOTAL, "", 1},
  {__LINE__, "power_meter", "Dell PSU meter", "node", PMON_DOM_NODE,
   PMON_CH_TOTAL, "", 1},
  {__LINE__, "power_meter", "Module Power Socket 1", "module-1",
   PMON_DOM_MODULE, PMON_CH_TOTAL, "", 1},
  {__LINE__, "power_meter", "Grace Power Socket 0", "grace-0", PMON_DOM_CPU,
   PMON_CH_TOTAL, "", 1},
  {__LINE__, "other_name", "CPU Power Socket 0", "cpu-0", PMON_DOM_CPU, 0,
   "grace-0", 1},
  {__LINE__, "power_meter", "SysIO Power Socket 1", "sysio-1",
   PMON_DOM_OTHER, 0, "grace-1", 1},
  {__LINE__, "amd_energy", "Esocket1", "socket-1", PMON_DOM_CPU,
   PMON_CH_TOTAL, "", 1},
  {__LINE__, "amd_energy", "Ecore007", "core-007", PMON_DOM_CPU, 0, "", 0},
  {__LINE__, "amd_energy", "Esocket1x", "esocket1x", PMON_DOM_OTHER,
   PMON_CH_TOTAL, "", 1},
  {__LINE__, "amd_energy", "Esocket-1", "esocket-1", PMON_DOM_OTHER,
   PMON_CH_TOTAL, "", 1},
  {__LINE__, "amd_energy", "Ecore", "ecore", PMON_DOM_OTHER, PMON_CH_TOTAL,
   "", 1},
  {__LINE__, "other", "Esocket0", "esocket0", PMON_DOM_OTHER, PMON_CH_TOTAL,
   "", 1},
  {__LINE__, "nvme", "Composite", "composite", PMON_DOM_OTHER,
   PMON_CH_TOTAL, "", 1},
  {__LINE__, "both", "", "", PMON_DOM_OTHER, PMON_CH_TOTAL, "", 1},
};

START_TEST(test_classify)
{
  struct cand k;

  memset(&k, 0, sizeof k);
  snprintf(k.label, sizeof k.label, "%s", class_rows[_i].label);
  classify(&k, class_rows[_i].chip);
  ck_assert_msg(strcmp(k.name, class_rows[_i].name) == 0 &&
                  k.domain == class_rows[_i].domain &&
                  k.flags == class_rows[_i].flags &&
                  strcmp(k.overlaps, class_rows[_i].overlaps) == 0 &&
                  k.wanted == class_rows[_i].wanted,
                "row at line %d: %s %d %u \"%s\" %d", class_rows[_i].line,
                k.name, k.domain, k.flags, k.overlaps, k.wanted);
}
END_TEST

/* Fixture trees: ROOT/class/hwmon/... */

static char root[64];

/* Write TEXT to ROOT/PATH, making its directories. */
static void put(const char *path, const char *text)
{
  char full[512];
  FILE *f;

  snprintf(full, sizeof full, "%s/%s", root, path);
  for (char *s = full + strlen(root) + 1; *s != '\0'; s++)
    if (*s == '/') {
      *s = '\0';
      mkdir(full, 0755);
      *s = '/';
    }
  f = fopen(full, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static void tree_setup(void)
{
  strcpy(root, "/tmp/check_hwmon.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(root));
  setenv("PMON_SYSFS_ROOT", root, 1);
  put("class/hwmon/hwmon0/name", "coretemp\n");
  put("class/hwmon/hwmon0/temp1_input", "45000\n");
}

static void tree_teardown(void)
{
  char cmd[128];

  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  ck_assert_int_eq(system(cmd), 0);
}

static struct pmon_meter meter;
static struct hw_priv priv;

static int open_spec(const char *text)
{
  memset(&meter, 0, sizeof meter);
  memset(&priv, 0, sizeof priv);
  meter.priv = &priv;
  meter.flags = pmon__driver_hwmon.flags;
  meter.interval_s = pmon__driver_hwmon.interval_s;
  ck_assert_int_eq(pmon__spec_parse(text, &meter.spec), 0);
  return pmon__driver_hwmon.open(&meter);
}

static int probe(void)
{
  struct pmon_spec spec;

  ck_assert_int_eq(pmon__spec_parse("hwmon", &spec), 0);
  return pmon__driver_hwmon.probe(&spec);
}

/* An ACPI power meter in the older layout: everything in device/, the
 * name too, and at hwmon5. */
START_TEST(test_acpi_device_subdir)
{
  struct pmon_reading r = {0};

  put("class/hwmon/hwmon5/device/name", "power_meter\n");
  put("class/hwmon/hwmon5/device/power1_average", "123456789\n");
  put("class/hwmon/hwmon5/device/power1_average_interval", "250\n");
  put("class/hwmon/hwmon5/device/power1_oem_info", "Fixture Meter\n");
  ck_assert_int_eq(probe(), 0);
  ck_assert_int_eq(open_spec("hwmon"), 0);
  ck_assert_int_eq(meter.nch, 1);
  ck_assert_str_eq(meter.ch[0].name, "node");
  ck_assert_int_eq(meter.ch[0].domain, PMON_DOM_NODE);
  ck_assert_uint_eq(meter.ch[0].flags, PMON_CH_TOTAL);
  ck_assert_uint_eq(meter.flags, PMON_DRV_SAMPLED);
  ck_assert_double_eq_tol(meter.ch[0].scale, 1.0, 1e-15);
  /* an average over 0.25 s is windowed: read 20 times a window */
  ck_assert_double_eq_tol(meter.window_s, 0.25, 1e-12);
  ck_assert_double_eq_tol(meter.interval_s, 0.0125, 1e-12);
  ck_assert_str_eq(meter.source, "power_meter");
  ck_assert_str_eq(meter.note, "");
  ck_assert_ptr_nonnull(strstr(priv.path[0], "hwmon5/device/power1_average"));
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  ck_assert_double_eq_tol(r.watts[0], 123.456789, 1e-9);
  ck_assert_int_eq(r.stale, 0);
  hw_close(&meter);
}
END_TEST

/* power<i>_average wins over power<i>_input; a short interval is taken
 * as 0.05 s; interval= overrides; power<i>_input alone is read at 0.1 s. */
START_TEST(test_average_and_intervals)
{
  struct pmon_reading r = {0};

  put("class/hwmon/hwmon1/name", "power_meter\n");
  put("class/hwmon/hwmon1/power1_input", "1000000\n");
  put("class/hwmon/hwmon1/power1_average", "2000000\n");
  put("class/hwmon/hwmon1/power1_average_interval", "10\n");
  ck_assert_int_eq(open_spec("hwmon"), 0);
  ck_assert_double_eq_tol(meter.interval_s, 0.05, 1e-12);
  ck_assert(meter.window_s == 0); /* too short to be windowed */
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  ck_assert_double_eq_tol(r.watts[0], 2.0, 1e-12);
  hw_close(&meter);
  /* window= states one (read 20 times a window), or none */
  ck_assert_int_eq(open_spec("hwmon?window=2"), 0);
  ck_assert_double_eq_tol(meter.window_s, 2, 1e-12);
  ck_assert_double_eq_tol(meter.interval_s, 0.1, 1e-12);
  hw_close(&meter);
  ck_assert_int_eq(open_spec("hwmon?window=0"), 0);
  ck_assert(meter.window_s == 0);
  hw_close(&meter);
  ck_assert_int_eq(open_spec("hwmon?window=-1"), PMON_ECONFIG);
  ck_assert_int_eq(open_spec("hwmon?interval=0.5"), 0);
  ck_assert_double_eq_tol(meter.interval_s, 0.5, 1e-12);
  hw_close(&meter);
  ck_assert_int_eq(open_spec("hwmon?interval=0"), PMON_ECONFIG);
  put("class/hwmon/hwmon2/name", "ina3221\n");
  put("class/hwmon/hwmon2/power1_input", "3000000\n");
  ck_assert_int_eq(open_spec("hwmon:ina3221"), 0);
  ck_assert_double_eq_tol(meter.interval_s, 0.1, 1e-12);
  ck_assert_str_eq(meter.ch[0].name, "power1");
  ck_assert_uint_eq(meter.ch[0].flags, PMON_CH_TOTAL);
  hw_close(&meter);
}
END_TEST

static void amd_chip(const char *dir, int cores, int sockets)
{
  char path[128], text[32];
  int ch = 1;

  snprintf(path, sizeof path, "%s/name", dir);
  put(path, "amd_energy\n");
  for (int i = 0; i < cores + sockets; i++, ch++) {
    snprintf(path, sizeof path, "%s/energy%d_label", dir, ch);
    if (i < cores)
      snprintf(text, sizeof text, "Ecore%03d\n", i);
    else
      snprintf(text, sizeof text, "Esocket%d\n", i - cores);
    put(path, text);
    snprintf(path, sizeof path, "%s/energy%d_input", dir, ch);
    snprintf(text, sizeof text, "%d\n", 1000 * ch);
    put(path, text);
  }
}

START_TEST(test_amd_sockets_and_cores)
{
  struct pmon_reading r = {0};

  amd_chip("class/hwmon/hwmon3", 4, 2);
  ck_assert_int_eq(probe(), PMON_ENOMETER); /* no node, no module */
  ck_assert_int_eq(open_spec("hwmon:amd_energy"), 0);
  ck_assert_int_eq(meter.nch, 2);
  ck_assert_uint_eq(meter.flags, PMON_DRV_COUNTER);
  ck_assert_str_eq(meter.ch[0].name, "socket-0");
  ck_assert_str_eq(meter.ch[1].name, "socket-1");
  ck_assert_uint_eq(meter.ch[1].flags, PMON_CH_TOTAL);
  ck_assert_double_eq_tol(meter.ch[0].scale, 1e-6, 1e-18);
  ck_assert_uint_eq(meter.ch[0].range, 0);
  ck_assert_double_eq_tol(meter.interval_s, 0.1, 1e-12);
  ck_assert_str_eq(meter.source, "amd_energy");
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  ck_assert_uint_eq(r.raw[0], 5000);
  ck_assert_uint_eq(r.raw[1], 6000);
  hw_close(&meter);

  /* Cores by label; with two sockets a core's is not known. */
  ck_assert_int_eq(open_spec("hwmon:amd_energy?label=Ecore00[12]"), 0);
  ck_assert_int_eq(meter.nch, 2);
  ck_assert_str_eq(meter.ch[0].name, "core-001");
  ck_assert_uint_eq(meter.ch[0].flags, 0);
  ck_assert_str_eq(meter.ch[0].overlaps, "all");
  hw_close(&meter);
}
END_TEST

START_TEST(test_amd_one_socket)
{
  amd_chip("class/hwmon/hwmon3", 2, 1);
  ck_assert_int_eq(open_spec("hwmon:amd_*?label=E*"), 0);
  ck_assert_int_eq(meter.nch, 3);
  ck_assert_str_eq(meter.ch[0].name, "core-000");
  ck_assert_str_eq(meter.ch[0].overlaps, "socket-0");
  ck_assert_str_eq(meter.ch[2].name, "socket-0");
  ck_assert_uint_eq(meter.ch[2].flags, PMON_CH_TOTAL);
  hw_close(&meter);
}
END_TEST

/* Grace Hopper: each rail a chip whose files are in device/. */
static void grace_rails(int modules)
{
  static const char *const words[] = {"Module", "Grace", "CPU", "SysIO"};
  char path[128], text[64];
  int n = 1;

  for (int s = 0; s < 2; s++)
    for (int r = modules ? 0 : 1; r < 4; r++, n++) {
      snprintf(path, sizeof path, "class/hwmon/hwmon%d/name", n);
      put(path, "power_meter\n");
      snprintf(path, sizeof path, "class/hwmon/hwmon%d/device/power1_oem_info",
               n);
      snprintf(text, sizeof text, "%s Power Socket %d\n", words[r], s);
      put(path, text);
      snprintf(path, sizeof path, "class/hwmon/hwmon%d/device/power1_average",
               n);
      snprintf(text, sizeof text, "%d\n", (100 + 10 * n) * 1000000);
      put(path, text);
    }
}

START_TEST(test_grace_hopper)
{
  grace_rails(1);
  ck_assert_int_eq(probe(), 0);
  ck_assert_int_eq(open_spec("hwmon"), 0);
  ck_assert_int_eq(meter.nch, 8);
  ck_assert_str_eq(meter.ch[0].name, "module-0");
  ck_assert_int_eq(meter.ch[0].domain, PMON_DOM_MODULE);
  ck_assert_uint_eq(meter.ch[0].flags, PMON_CH_TOTAL);
  ck_assert_str_eq(meter.ch[1].name, "grace-0");
  ck_assert_uint_eq(meter.ch[1].flags, 0);
  ck_assert_str_eq(meter.ch[1].overlaps, "module-0");
  ck_assert_str_eq(meter.ch[2].name, "cpu-0");
  ck_assert_str_eq(meter.ch[2].overlaps, "grace-0");
  ck_assert_str_eq(meter.ch[3].name, "sysio-0");
  ck_assert_int_eq(meter.ch[3].domain, PMON_DOM_OTHER);
  ck_assert_str_eq(meter.ch[4].name, "module-1");
  ck_assert_uint_eq(meter.ch[4].flags, PMON_CH_TOTAL);
  /* No averaging interval: 0.1 s. */
  ck_assert_double_eq_tol(meter.interval_s, 0.1, 1e-12);
  hw_close(&meter);

  /* Without its Module rail among the chosen, Grace is the total. */
  ck_assert_int_eq(open_spec("hwmon?label=Grace*"), 0);
  ck_assert_int_eq(meter.nch, 2);
  ck_assert_str_eq(meter.ch[0].name, "grace-0");
  ck_assert_uint_eq(meter.ch[0].flags, PMON_CH_TOTAL);
  ck_assert_str_eq(meter.ch[0].overlaps, "");
  hw_close(&meter);
}
END_TEST

START_TEST(test_grace_grace)
{
  grace_rails(0);
  ck_assert_int_eq(probe(), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "no Module rail"));
  /* Named, it opens: Grace per socket is the total. */
  ck_assert_int_eq(open_spec("hwmon"), 0);
  ck_assert_int_eq(meter.nch, 6);
  ck_assert_str_eq(meter.ch[0].name, "grace-0");
  ck_assert_uint_eq(meter.ch[0].flags, PMON_CH_TOTAL);
  ck_assert_str_eq(meter.ch[3].name, "grace-1");
  ck_assert_uint_eq(meter.ch[3].flags, PMON_CH_TOTAL);
  hw_close(&meter);
}
END_TEST

/* A whole-node meter beside other chips: it alone is the total. */
START_TEST(test_node_wins)
{
  grace_rails(1);
  put("class/hwmon/hwmon20/name", "power_meter\n");
  put("class/hwmon/hwmon20/power1_average", "2000000000\n");
  put("class/hwmon/hwmon21/name", "power_meter\n");
  put("class/hwmon/hwmon21/power1_input", "1000000000\n");
  ck_assert_int_eq(open_spec("hwmon"), 0);
  ck_assert_int_eq(meter.nch, 10);
  ck_assert_str_eq(meter.ch[0].name, "module-0");
  ck_assert_uint_eq(meter.ch[0].flags, 0);
  ck_assert_str_eq(meter.ch[0].overlaps, "node");
  ck_assert_str_eq(meter.ch[2].overlaps, "grace-0"); /* cpu-0 as it was */
  ck_assert_str_eq(meter.ch[8].name, "node");
  ck_assert_uint_eq(meter.ch[8].flags, PMON_CH_TOTAL);
  ck_assert_str_eq(meter.ch[9].name, "node-2");
  ck_assert_uint_eq(meter.ch[9].flags, 0);
  ck_assert_str_eq(meter.ch[9].overlaps, "node");
  ck_assert_ptr_nonnull(strstr(meter.note, "2 ACPI power meters"));
  hw_close(&meter);
}
END_TEST

/* Energy and power of one chip: paired by label, or unlabelled by index;
 * counters when each channel has energy, else power for all. */
START_TEST(test_energy_and_power)
{
  put("class/hwmon/hwmon4/name", "psu\n");
  put("class/hwmon/hwmon4/energy1_input", "5000000\n");
  put("class/hwmon/hwmon4/power1_input", "50000000\n");
  put("class/hwmon/hwmon4/energy2_input", "7000000\n");
  put("class/hwmon/hwmon4/energy2_label", "PSU 2\n");
  put("class/hwmon/hwmon4/power3_input", "70000000\n");
  put("class/hwmon/hwmon4/power3_label", "PSU 2\n");
  ck_assert_int_eq(open_spec("hwmon:psu"), 0);
  ck_assert_uint_eq(meter.flags, PMON_DRV_COUNTER);
  ck_assert_int_eq(meter.nch, 2);
  ck_assert_str_eq(meter.ch[0].name, "energy1");
  ck_assert_str_eq(meter.ch[1].name, "psu-2");
  ck_assert_str_eq(meter.note, "");
  hw_close(&meter);

  /* A power channel without energy: all read as power. */
  put("class/hwmon/hwmon4/power4_input", "1000000\n");
  ck_assert_int_eq(open_spec("hwmon:psu"), 0);
  ck_assert_uint_eq(meter.flags, PMON_DRV_SAMPLED);
  ck_assert_int_eq(meter.nch, 3);
  ck_assert_str_eq(meter.ch[0].name, "power1");
  ck_assert_str_eq(meter.ch[1].name, "psu-2");
  ck_assert_str_eq(meter.ch[2].name, "power4");
  ck_assert_ptr_nonnull(strstr(meter.note, "energy files not used"));
  ck_assert_ptr_nonnull(strstr(priv.path[1], "power3_input"));
  hw_close(&meter);

  /* And an energy channel without power: left out, and said so. */
  put("class/hwmon/hwmon4/energy5_input", "1\n");
  put("class/hwmon/hwmon4/energy5_label", "lonely\n");
  ck_assert_int_eq(open_spec("hwmon:psu"), 0);
  ck_assert_int_eq(meter.nch, 3);
  ck_assert_ptr_nonnull(strstr(meter.note, "1 channel left out (energy "
                                           "only"));
  ck_assert_ptr_nonnull(strstr(meter.note, "lonely"));
  hw_close(&meter);

  /* label= picks it alone: counters again. */
  ck_assert_int_eq(open_spec("hwmon:psu?label=lonely"), 0);
  ck_assert_uint_eq(meter.flags, PMON_DRV_COUNTER);
  ck_assert_int_eq(meter.nch, 1);
  hw_close(&meter);
  /* label= matches an unlabelled channel by its file. */
  ck_assert_int_eq(open_spec("hwmon:psu?label=power4"), 0);
  ck_assert_uint_eq(meter.flags, PMON_DRV_SAMPLED);
  ck_assert_str_eq(meter.ch[0].name, "power4");
  hw_close(&meter);
}
END_TEST

/* More than 16 channels: the first 16, the others named in the note. */
START_TEST(test_too_many)
{
  char path[128], text[32];

  put("class/hwmon/hwmon1/name", "big\n");
  for (int i = 1; i <= 20; i++) {
    snprintf(path, sizeof path, "class/hwmon/hwmon1/power%d_input", i);
    put(path, "1000000\n");
    snprintf(path, sizeof path, "class/hwmon/hwmon1/power%d_label", i);
    snprintf(text, sizeof text, "Rail %02d\n", i);
    put(path, text);
  }
  ck_assert_int_eq(open_spec("hwmon:big"), 0);
  ck_assert_int_eq(meter.nch, PMON_CH_MAX);
  ck_assert_str_eq(meter.ch[15].name, "rail-16");
  ck_assert_ptr_nonnull(strstr(meter.note, "4 channels left out (at most "
                                           "16 per meter"));
  ck_assert_ptr_nonnull(strstr(meter.note, "rail-17, rail-18, rail-19, "
                                           "rail-20"));
  hw_close(&meter);
}
END_TEST

/* Two chips of one name are both taken; equal names are made unique. */
START_TEST(test_same_names)
{
  put("class/hwmon/hwmon2/name", "nvme\n");
  put("class/hwmon/hwmon2/power1_input", "3000000\n");
  put("class/hwmon/hwmon2/power1_label", "Composite\n");
  put("class/hwmon/hwmon9/name", "nvme\n");
  put("class/hwmon/hwmon9/power1_input", "4000000\n");
  put("class/hwmon/hwmon9/power1_label", "Composite\n");
  ck_assert_int_eq(open_spec("hwmon:nvme"), 0);
  ck_assert_int_eq(meter.nch, 2);
  ck_assert_str_eq(meter.ch[0].name, "composite");
  ck_assert_str_eq(meter.ch[1].name, "composite-2");
  ck_assert_str_eq(meter.source, "nvme");
  hw_close(&meter);
}
END_TEST

START_TEST(test_failures)
{
  put("class/hwmon/hwmon1/name", "power_meter\n");
  put("class/hwmon/hwmon1/power1_average", "abc\n");
  ck_assert_int_eq(open_spec("hwmon"), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "pmon: hwmon: "));
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(),
                               "/class/hwmon/hwmon1/power1_average: malformed "
                               "content \"abc\": expected a whole number of "
                               "microwatts"));
  put("class/hwmon/hwmon1/power1_average", "-5\n");
  ck_assert_int_eq(open_spec("hwmon"), PMON_EFORMAT);
  put("class/hwmon/hwmon1/power1_average", "2000000000000000\n");
  ck_assert_int_eq(open_spec("hwmon"), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "implausible"));
  put("class/hwmon/hwmon1/power1_average", "5\n");
  put("class/hwmon/hwmon1/power1_average_interval", "soon\n");
  ck_assert_int_eq(open_spec("hwmon"), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "milliseconds"));
  put("class/hwmon/hwmon1/power1_average_interval", "1000\n");
  ck_assert_int_eq(open_spec("hwmon"), 0);
  ck_assert_double_eq_tol(meter.window_s, 1, 1e-12);
  ck_assert_double_eq_tol(meter.interval_s, 0.05, 1e-12);
  hw_close(&meter);

  ck_assert_int_eq(open_spec("hwmon?rate=5"), PMON_ECONFIG);
  ck_assert_int_eq(open_spec("hwmon:nothing"), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "no chip named \"nothing\""));
  ck_assert_int_eq(open_spec("hwmon:coretemp"), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "no power or energy channel"));
  ck_assert_int_eq(open_spec("hwmon?label=PSU*"), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "label matching PSU*"));
  setenv("PMON_SYSFS_ROOT", "/nonexistent-root", 1);
  ck_assert_int_eq(open_spec("hwmon"), PMON_ENOMETER);
  ck_assert_int_eq(probe(), PMON_ENOMETER);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "/nonexistent-root/class/hwmon"));
}
END_TEST

/* Unreadable files: as root, an open() of a 0000 file still works, so
 * the permission check is the shell test's (hwmon-perm.test, as nobody);
 * here the message of open_fail(). */
START_TEST(test_permission_message)
{
  ck_assert_int_eq(open_fail("/sys/x/energy1_input", EACCES), PMON_EIO);
  ck_assert_str_eq(pmon_errmsg(),
                   "pmon: hwmon: /sys/x/energy1_input: cannot open: "
                   "Permission denied: run as root, or make it 0444 with a "
                   "udev rule or a sysfsutils mode line");
  ck_assert_int_eq(open_fail("/sys/x/power1_input", ENOENT), PMON_ENOMETER);
}
END_TEST

/* A pread() that fails once, for the read path. */
static int fail_next;

static ssize_t failing_pread(int fd, void *buf, size_t len, off_t off)
{
  if (fail_next) {
    fail_next = 0;
    errno = ENODEV;
    return -1;
  }
  return pread(fd, buf, len, off);
}

START_TEST(test_read_stale_and_errors)
{
  struct pmon_reading r;

  amd_chip("class/hwmon/hwmon1", 0, 2);
  ck_assert_int_eq(open_spec("hwmon:amd_energy"), 0);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  ck_assert_int_eq(r.stale, 0);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  ck_assert_int_eq(r.stale, 1); /* no counter moved */
  put("class/hwmon/hwmon1/energy2_input", "2001\n");
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  ck_assert_int_eq(r.stale, 0);
  ck_assert_uint_eq(r.raw[1], 2001);
  /* A failed read names the file; the next one works. */
  priv.pread = failing_pread;
  fail_next = 1;
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(hw_read(&meter, &r), PMON_EIO);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(),
                               "hwmon1/energy1_input: read: No such device"));
  ck_assert_int_eq(hw_read(&meter, &r), 0);
  /* Content gone bad after open: PMON_EFORMAT. */
  put("class/hwmon/hwmon1/energy1_input", "x\n");
  ck_assert_int_eq(hw_read(&meter, &r), PMON_EFORMAT);
  ck_assert_ptr_nonnull(strstr(pmon_errmsg(), "microjoules"));
  hw_close(&meter);
  for (int c = 0; c < PMON_CH_MAX; c++)
    ck_assert_int_eq(priv.fd[c], -1);
}
END_TEST

/* Chips match by name and channels by label, wherever hwmonN is; probe
 * takes only power_meter chips and Grace rails. */
START_TEST(test_probe)
{
  ck_assert_int_eq(probe(), PMON_ENOMETER); /* only coretemp */
  put("class/hwmon/hwmon7/name", "power_meter\n");
  ck_assert_int_eq(probe(), PMON_ENOMETER); /* no power file */
  put("class/hwmon/hwmon7/device/power1_average", "1\n");
  ck_assert_int_eq(probe(), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("hwmon");
  TCase *rules = tcase_create("rules");
  TCase *tree = tcase_create("tree");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(rules, test_parse_value, 0,
                      sizeof value_rows / sizeof value_rows[0]);
  tcase_add_loop_test(rules, test_grace_rail, 0,
                      sizeof rail_rows / sizeof rail_rows[0]);
  tcase_add_loop_test(rules, test_sanitise, 0,
                      sizeof sanitise_rows / sizeof sanitise_rows[0]);
  tcase_add_loop_test(rules, test_natural_order, 0,
                      sizeof order_rows / sizeof order_rows[0]);
  tcase_add_loop_test(rules, test_classify, 0,
                      sizeof class_rows / sizeof class_rows[0]);
  tcase_add_test(rules, test_permission_message);
  suite_add_tcase(s, rules);
  tcase_add_checked_fixture(tree, tree_setup, tree_teardown);
  tcase_add_test(tree, test_acpi_device_subdir);
  tcase_add_test(tree, test_average_and_intervals);
  tcase_add_test(tree, test_amd_sockets_and_cores);
  tcase_add_test(tree, test_amd_one_socket);
  tcase_add_test(tree, test_grace_hopper);
  tcase_add_test(tree, test_grace_grace);
  tcase_add_test(tree, test_node_wins);
  tcase_add_test(tree, test_energy_and_power);
  tcase_add_test(tree, test_too_many);
  tcase_add_test(tree, test_same_names);
  tcase_add_test(tree, test_failures);
  tcase_add_test(tree, test_read_stale_and_errors);
  tcase_add_test(tree, test_probe);
  suite_add_tcase(s, tree);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

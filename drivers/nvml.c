/*
 * nvml.c - NVIDIA GPUs' board power, through NVML (libnvidia-ml.so.1).
 *
 * Hardware: any NVIDIA GPU that the NVIDIA driver's NVML library manages.
 * Written against NVML's documented API, see research notes section 7,
 * and first run on an H200 with NVIDIA's driver 580 (docs/hardware.md,
 * tests/gpu-check.sh).  In tests it runs against a stand-in library
 * (tests/nvml_stub.c) loaded with lib=PATH.
 *
 * The library is loaded with dlopen() when the meter is opened, so pmon
 * builds and runs on nodes without it; this file declares the few NVML
 * types it needs instead of including nvml.h.  The versioned symbols
 * (nvmlInit_v2 ...) are resolved first, as nvml.h maps the plain names to
 * them, and the plain ones are the fallback.
 *
 * One channel per GPU, "gpuN" with N NVML's device index (as nvidia-smi
 * shows it, which need not be CUDA's), in the accelerator domain; their
 * sum is what this meter measures: the GPUs' boards, memory included,
 * never the node.  Two ways to read them:
 *   energy  nvmlDeviceGetTotalEnergyConsumption: millijoules since the
 *           NVIDIA driver was loaded (Volta and newer), a counter meter.
 *           64 bits, no wrap; it starts again from 0 when the driver is
 *           reloaded, which the core treats as a restart (range 0), and
 *           this driver names the GPU in the reset event.
 *   power   nvmlDeviceGetPowerUsage: milliwatts, a sampled meter, when
 *           some selected GPU has no energy counter (pre-Volta).  A
 *           1-second average on Ampere (but GA100) and newer, instantaneous
 *           before.
 * The energy counter is used when every selected GPU has it.
 *
 * NVML keeps no state of ours: the library handle and its functions are in
 * the meter's private block, and nvmlInit/nvmlShutdown are reference
 * counted by NVML, so two meters (two gpus= lists) work side by side.
 * NVML calls have no timeout of their own: a GPU that hangs can hold a
 * reading up, which the core's poller thread keeps from the program.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmon.h"
#include "driver.h"
#include "log.h"
#include "env.h"

#define DEFAULT_LIB "libnvidia-ml.so.1" /* the SONAME the driver installs */
#define WATTS_MAX 10000.0               /* a plausible board reading, W */
#define STALE_MIN_S 1.0  /* energy: no counter moving this long: frozen */
#define STALE_READINGS 5 /* ... or this many readings, if longer */
#define CORE_SHARE 0.01  /* the most of a core the readings may take */
#define INTERVAL_STEP 0.05 /* a lengthened interval, rounded up to this */

/* NVML's types, as far as pmon uses them (nvml.h: an opaque device handle;
 * nvmlReturn_t is an enum, int-sized). */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlReturn_t;

/* NVML's return codes, the same in every nvml.h checked (research notes
 * section 7); names for messages. */
enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_GPU_IS_LOST = 15
};

static const struct {
  nvmlReturn_t code;
  const char *name;
  const char *hint; /* what it means for pmon, or NULL */
} nvml_errors[] = {
  {0, "NVML_SUCCESS", NULL},
  {1, "NVML_ERROR_UNINITIALIZED", NULL},
  {2, "NVML_ERROR_INVALID_ARGUMENT", NULL},
  {3, "NVML_ERROR_NOT_SUPPORTED", "this GPU does not offer it"},
  {4, "NVML_ERROR_NO_PERMISSION",
   "the GPU's device file is not accessible (a container, or a cgroup that "
   "gives the GPU to another job)"},
  {6, "NVML_ERROR_NOT_FOUND", NULL},
  {7, "NVML_ERROR_INSUFFICIENT_SIZE", "more processes than pmon asks for"},
  {9, "NVML_ERROR_DRIVER_NOT_LOADED",
   "the NVIDIA kernel driver is not loaded on this node"},
  {12, "NVML_ERROR_LIBRARY_NOT_FOUND", NULL},
  {13, "NVML_ERROR_FUNCTION_NOT_FOUND", NULL},
  {15, "NVML_ERROR_GPU_IS_LOST",
   "the GPU fell off the bus or stopped answering: it needs a reset"},
  {999, "NVML_ERROR_UNKNOWN", NULL},
};
#define NERRORS (sizeof nvml_errors / sizeof nvml_errors[0])

/* The NVML functions pmon calls.  The NULL ones are optional. */
struct nvml_api {
  nvmlReturn_t (*init)(void);
  nvmlReturn_t (*shutdown)(void);
  nvmlReturn_t (*count)(unsigned int *n);
  nvmlReturn_t (*handle)(unsigned int index, nvmlDevice_t *dev);
  nvmlReturn_t (*energy)(nvmlDevice_t dev, unsigned long long *mj);
  nvmlReturn_t (*power)(nvmlDevice_t dev, unsigned int *mw);
  nvmlReturn_t (*limit)(nvmlDevice_t dev, unsigned int *mw);
  nvmlReturn_t (*enforced)(nvmlDevice_t dev, unsigned int *mw);
  const char *(*errstr)(nvmlReturn_t rc);
  nvmlReturn_t (*version)(char *buf, unsigned int size);
  nvmlReturn_t (*procs)(nvmlDevice_t dev, unsigned int *n, void *infos);
  nvmlReturn_t (*procs_v1)(nvmlDevice_t dev, unsigned int *n, void *infos);
};

/* A compute process as NVML lists it: nvmlProcessInfo_v2_t for the _v3
 * and _v2 calls, nvmlProcessInfo_v1_t for the plain one; the pid first in
 * both (research notes section 7). */
struct nvml_proc {
  unsigned int pid;
  unsigned long long used_memory;
  unsigned int gpu_instance, compute_instance;
};
struct nvml_proc_v1 {
  unsigned int pid;
  unsigned long long used_memory;
};
#define USERS_MAX 64 /* a GPU's processes asked for at a time */

/* Symbol -> slot of struct nvml_api: the versioned name, the plain one
 * to fall back on (or NULL), and whether open() needs it. */
static const struct {
  const char *name, *fallback;
  size_t offset;
  int required;
} symbols[] = {
  {"nvmlInit_v2", "nvmlInit", offsetof(struct nvml_api, init), 1},
  {"nvmlShutdown", NULL, offsetof(struct nvml_api, shutdown), 1},
  {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount",
   offsetof(struct nvml_api, count), 1},
  {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex",
   offsetof(struct nvml_api, handle), 1},
  {"nvmlDeviceGetTotalEnergyConsumption", NULL,
   offsetof(struct nvml_api, energy), 0},
  {"nvmlDeviceGetPowerUsage", NULL, offsetof(struct nvml_api, power), 0},
  {"nvmlDeviceGetPowerManagementLimit", NULL,
   offsetof(struct nvml_api, limit), 0},
  {"nvmlDeviceGetEnforcedPowerLimit", NULL,
   offsetof(struct nvml_api, enforced), 0},
  {"nvmlErrorString", NULL, offsetof(struct nvml_api, errstr), 0},
  {"nvmlSystemGetDriverVersion", NULL, offsetof(struct nvml_api, version),
   0},
  {"nvmlDeviceGetComputeRunningProcesses_v3",
   "nvmlDeviceGetComputeRunningProcesses_v2", offsetof(struct nvml_api, procs),
   0},
  {"nvmlDeviceGetComputeRunningProcesses", NULL,
   offsetof(struct nvml_api, procs_v1), 0},
};
#define NSYMBOLS (sizeof symbols / sizeof symbols[0])

/* load() stores dlsym()'s void * in those slots, as POSIX allows. */
_Static_assert(sizeof(void *) == sizeof(nvmlReturn_t (*)(void)),
               "a function pointer is the size of a void *");

/* Per-instance state: allocated and zeroed by the core. */
struct nvml_priv {
  void *dl;              /* dlopen()'s handle; NULL when closed */
  struct nvml_api api;   /* valid while dl is */
  char lib[PATH_MAX];    /* what was loaded, for messages */
  int energy;            /* 1: energy counters, 0: power */
  nvmlDevice_t dev[PMON_CH_MAX]; /* per channel */
  uint64_t prev[PMON_CH_MAX];    /* energy: the previous good reading */
  double read_cpu_s;             /* energy: processor time a reading of
                                    every chosen GPU took at open() */
  int primed;                    /* prev[] holds one */
};

/* The library to load without lib=: PMON_NVML_LIB, else the driver's
 * SONAME, which the dynamic loader finds. */
static const char *default_lib(void)
{
  const char *v = getenv(PMON_ENV_NVML_LIB);

  return v != NULL && v[0] != '\0' ? v : DEFAULT_LIB;
}

/* "NVML's text (NVML_ERROR_NAME, CODE)" for RC into BUF. */
static const char *why(const struct nvml_api *api, nvmlReturn_t rc,
                       char *buf, size_t size)
{
  const char *text = api->errstr != NULL ? api->errstr(rc) : NULL;
  const char *name = "an NVML error", *hint = NULL;

  for (size_t i = 0; i < NERRORS; i++)
    if (nvml_errors[i].code == rc) {
      name = nvml_errors[i].name;
      hint = nvml_errors[i].hint;
      break;
    }
  snprintf(buf, size, "%.60s%s(%s, %d)%s%s", text != NULL ? text : "",
           text != NULL ? " " : "", name, rc, hint != NULL ? ": " : "",
           hint != NULL ? hint : "");
  return buf;
}

/* Record "nvml: WHERE: CALL: why" for the NVML error RC; returns the
 * PMON_E* code: PMON_ENOMETER when the driver is not there, else
 * PMON_EIO. */
static int fail_nvml(const struct nvml_api *api, const char *where,
                     const char *call, nvmlReturn_t rc)
{
  char buf[200];

  return pmon__fail(rc == NVML_ERROR_DRIVER_NOT_LOADED ||
                        rc == NVML_ERROR_LIBRARY_NOT_FOUND
                      ? PMON_ENOMETER
                      : PMON_EIO,
                    "nvml: %s: %s: %s", where, call,
                    why(api, rc, buf, sizeof buf));
}

/* Shut NVML down and unload it: the reverse of load(). */
static void unload(void **dl, struct nvml_api *api)
{
  if (*dl == NULL)
    return;
  api->shutdown();
  dlclose(*dl);
  *dl = NULL;
  memset(api, 0, sizeof *api);
}

/*
 * Load LIB (NULL: the default), resolve the API into *API and initialise
 * NVML.  0 with *DL the handle, or a PMON_E* code with the reason
 * recorded and nothing held (*DL NULL).
 */
static int load(const char *lib, void **dl, struct nvml_api *api)
{
  const char *path = lib != NULL ? lib : default_lib();
  nvmlReturn_t rc;

  memset(api, 0, sizeof *api);
  dlerror();
  if ((*dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    const char *e = dlerror();
    size_t n = strlen(path);

    /* glibc's text starts with the path again. */
    if (e != NULL && strncmp(e, path, n) == 0 && strncmp(e + n, ": ", 2) == 0)
      e += n + 2;
    return pmon__fail(PMON_ENOMETER, "nvml: %s: cannot load: %s%s", path,
                      e != NULL ? e : "unknown error",
                      lib == NULL ? ": no NVIDIA driver on this node" : "");
  }
  for (size_t i = 0; i < NSYMBOLS; i++) {
    void *sym = dlsym(*dl, symbols[i].name);

    if (sym == NULL && symbols[i].fallback != NULL)
      sym = dlsym(*dl, symbols[i].fallback);
    if (sym == NULL && symbols[i].required) {
      dlclose(*dl);
      *dl = NULL;
      return pmon__fail(PMON_ENOMETER,
                        "nvml: %s: %s%s%s: no such function: not an NVML "
                        "library, or one too old",
                        path, symbols[i].name,
                        symbols[i].fallback != NULL ? " nor " : "",
                        symbols[i].fallback != NULL ? symbols[i].fallback
                                                    : "");
    }
    /* POSIX makes dlsym()'s void * hold a function's address; the slot
     * is a function pointer of the same size. */
    memcpy((char *)api + symbols[i].offset, &sym, sizeof sym);
  }
  if ((rc = api->init()) != NVML_SUCCESS) {
    int code = fail_nvml(api, path, "nvmlInit", rc);

    dlclose(*dl);
    *dl = NULL;
    memset(api, 0, sizeof *api);
    return code;
  }
  return 0;
}

/* Whether the library loads, initialises and sees a GPU; nothing stays
 * loaded. */
static int nvml_probe(const struct pmon_spec *spec)
{
  const char *lib = pmon__spec_get(spec, "lib");
  const char *path = lib != NULL ? lib : default_lib();
  struct nvml_api api;
  unsigned int n = 0;
  nvmlReturn_t e;
  void *dl;
  int rc;

  if ((rc = load(lib, &dl, &api)) != 0)
    return rc;
  if ((e = api.count(&n)) != NVML_SUCCESS)
    rc = fail_nvml(&api, path, "nvmlDeviceGetCount", e);
  else if (n == 0)
    rc = pmon__fail(PMON_ENOMETER, "nvml: %s: no NVIDIA GPU on this node",
                    path);
  unload(&dl, &api);
  return rc;
}

static void nvml_close(struct pmon_meter *m)
{
  struct nvml_priv *p = m->priv;

  unload(&p->dl, &p->api);
}

/*
 * Parse LIST ("0,2,3"), the gpus= parameter, into INDEX[] (*N of them).
 * 0, or PMON_ECONFIG: not numbers, a repeat, or more than PMON_CH_MAX.
 */
static int parse_gpus(const struct pmon_spec *spec, const char *list,
                      unsigned *index, int *n)
{
  const char *p = list;

  *n = 0;
  for (;;) {
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(p, &end, 10);
    if (end == p || *p < '0' || *p > '9' || errno != 0 || v > 1023 ||
        (*end != ',' && *end != '\0'))
      return pmon__fail(PMON_ECONFIG,
                        "PMON_METERS: meter \"%s\": gpus=%s: expected GPU "
                        "indices, as nvidia-smi numbers them, separated by "
                        "commas",
                        spec->text, list);
    for (int i = 0; i < *n; i++)
      if (index[i] == v)
        return pmon__fail(PMON_ECONFIG,
                          "PMON_METERS: meter \"%s\": gpus=%s: GPU %lu "
                          "twice",
                          spec->text, list, v);
    if (*n == PMON_CH_MAX)
      return pmon__fail(PMON_ECONFIG,
                        "PMON_METERS: meter \"%s\": gpus=%s: more than %d "
                        "GPUs in one meter: split them in two",
                        spec->text, list, PMON_CH_MAX);
    index[(*n)++] = (unsigned)v;
    if (*end == '\0')
      return 0;
    p = end + 1;
  }
}

/* Append TEXT to M's note, after a "; " when it has one already. */
static void note(struct pmon_meter *m, const char *text)
{
  size_t n = strlen(m->note);

  snprintf(m->note + n, sizeof m->note - n, "%s%s", n > 0 ? "; " : "",
           text);
}

/*
 * Choose the GPUs: those LIST names (N of them, N > 0), else every GPU
 * NVML sees up to PMON_CH_MAX, less those it refuses us (another job's).
 * Fills P->dev[] and M's channels, and M's note with what was
 * left out.  0, or PMON_E* with the reason recorded.
 */
static int choose_gpus(struct pmon_meter *m, const unsigned *list, int n)
{
  struct nvml_priv *p = m->priv;
  char denied[120] = "", over[80] = "", text[260];
  unsigned int count = 0;
  nvmlReturn_t rc;

  if ((rc = p->api.count(&count)) != NVML_SUCCESS)
    return fail_nvml(&p->api, p->lib, "nvmlDeviceGetCount", rc);
  if (count == 0)
    return pmon__fail(PMON_ENOMETER, "nvml: %s: no NVIDIA GPU on this node",
                      p->lib);
  for (int i = 0; i < (n > 0 ? n : (int)count); i++) {
    unsigned idx = n > 0 ? list[i] : (unsigned)i;
    nvmlDevice_t dev;
    char name[PMON_CH_NAME_MAX];

    if (idx >= count)
      return pmon__fail(PMON_ENOMETER,
                        "nvml: gpus=%s: GPU %u: no such GPU: this node has "
                        "%u (0 to %u)",
                        pmon__spec_get(&m->spec, "gpus"), idx, count,
                        count - 1);
    snprintf(name, sizeof name, "gpu%u", idx);
    if ((rc = p->api.handle(idx, &dev)) != NVML_SUCCESS) {
      size_t k = strlen(denied);

      if (n > 0 || rc != NVML_ERROR_NO_PERMISSION)
        return fail_nvml(&p->api, name, "nvmlDeviceGetHandleByIndex", rc);
      snprintf(denied + k, sizeof denied - k, "%s%s", k > 0 ? ", " : "",
               name);
      continue;
    }
    if (m->nch == PMON_CH_MAX) {
      snprintf(over, sizeof over, "gpu%u to gpu%u", idx, count - 1);
      break;
    }
    p->dev[m->nch] = dev;
    pmon__meter_add_channel(m, name, PMON_DOM_ACCEL, PMON_CH_TOTAL, 1.0, 0);
  }
  if (denied[0] != '\0') {
    snprintf(text, sizeof text,
             "%s: no permission (another job's GPUs?): not measured",
             denied);
    note(m, text);
  }
  if (over[0] != '\0') {
    snprintf(text, sizeof text,
             "%s: not measured: a meter has at most %d channels (gpus= in "
             "a second nvml meter measures them)",
             over, PMON_CH_MAX);
    note(m, text);
  }
  if (m->nch == 0)
    return pmon__fail(PMON_ENOMETER, "nvml: %s: no GPU that this process "
                      "may read: %s", p->lib, m->note);
  return 0;
}

/* This thread's processor time, in seconds (0 where it cannot be read). */
static double cpu_s(void)
{
  struct timespec ts;

  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The period of a costly counter.  NVIDIA's driver 580 takes about 4 ms of
 * processor time for one nvmlDeviceGetTotalEnergyConsumption on an H200
 * (docs/hardware.md), busy all along: read every 0.1 s, that is 4 % of a
 * core taken from the node's ranks.  When a reading of the chosen GPUs
 * costs more than CORE_SHARE of a core at M's period and interval= did
 * not choose it, the period grows until it costs CORE_SHARE, rounded up to
 * INTERVAL_STEP; the note says so either way.  The counter is exact over
 * any period: a longer one only blurs where the energy falls in time.
 */
static void pace(struct pmon_meter *m)
{
  struct nvml_priv *p = m->priv;
  double cost = p->read_cpu_s, want;
  char text[200];

  if (!p->energy || cost <= CORE_SHARE * m->interval_s)
    return;
  want = ceil(cost / CORE_SHARE / INTERVAL_STEP - 1e-9) * INTERVAL_STEP;
  if (pmon__spec_get(&m->spec, "interval") != NULL) {
    snprintf(text, sizeof text, "a reading takes %.1f ms of processor "
             "time: every %g s as interval= asks, %.1f %% of a core",
             cost * 1e3, m->interval_s, cost / m->interval_s * 100);
  } else {
    snprintf(text, sizeof text, "a reading takes %.1f ms of processor "
             "time: read every %g s, not %g s, to take at most %g %% of a "
             "core (interval= chooses)",
             cost * 1e3, want, m->interval_s, CORE_SHARE * 100);
    m->interval_s = want;
  }
  note(m, text);
}

/*
 * Energy counters when every chosen GPU has one, else power: set
 * M->flags, the channels' scale, P->energy.  0, or PMON_E* when neither
 * can be read on some GPU.
 */
static int choose_source(struct pmon_meter *m)
{
  struct nvml_priv *p = m->priv;
  int c, no_energy;
  nvmlReturn_t rc;
  char text[200];

  for (c = 0; c < m->nch && p->api.energy != NULL; c++) {
    unsigned long long mj;

    if ((rc = p->api.energy(p->dev[c], &mj)) == NVML_ERROR_NOT_SUPPORTED)
      break;
    if (rc != NVML_SUCCESS)
      return fail_nvml(&p->api, m->ch[c].name,
                       "nvmlDeviceGetTotalEnergyConsumption", rc);
  }
  if (p->api.energy != NULL && c == m->nch) {
    /* What a reading costs: the lesser of two more readings of every
     * GPU, the first call having set up whatever NVML sets up once (on
     * an H200 one call took from 3 to 7 ms). */
    p->read_cpu_s = -1;
    for (int k = 0; k < 2; k++) {
      double t0 = cpu_s(), t;

      for (c = 0; c < m->nch; c++) {
        unsigned long long mj;

        if ((rc = p->api.energy(p->dev[c], &mj)) != NVML_SUCCESS)
          return fail_nvml(&p->api, m->ch[c].name,
                           "nvmlDeviceGetTotalEnergyConsumption", rc);
      }
      t = cpu_s() - t0;
      p->read_cpu_s = p->read_cpu_s < 0 || t < p->read_cpu_s ? t
                                                             : p->read_cpu_s;
    }
    p->energy = 1;
    m->flags = (m->flags & ~(unsigned)PMON_DRV_SAMPLED) | PMON_DRV_COUNTER;
    for (c = 0; c < m->nch; c++)
      m->ch[c].scale = 1e-3; /* mJ */
    return 0;
  }
  no_energy = c;
  if (p->api.power == NULL)
    return pmon__fail(PMON_ENOMETER, "nvml: %s: neither "
                      "nvmlDeviceGetTotalEnergyConsumption nor "
                      "nvmlDeviceGetPowerUsage: nothing to measure with",
                      p->lib);
  for (c = 0; c < m->nch; c++) {
    unsigned int mw;

    if ((rc = p->api.power(p->dev[c], &mw)) != NVML_SUCCESS)
      return fail_nvml(&p->api, m->ch[c].name, "nvmlDeviceGetPowerUsage",
                       rc);
  }
  p->energy = 0;
  m->flags = (m->flags & ~(unsigned)PMON_DRV_COUNTER) | PMON_DRV_SAMPLED;
  if (p->api.energy == NULL)
    snprintf(text, sizeof text,
             "%.100s: no nvmlDeviceGetTotalEnergyConsumption (an old NVIDIA "
             "driver): integrating power",
             p->lib);
  else
    snprintf(text, sizeof text, "%s: energy counter not supported "
             "(pre-Volta): integrating power", m->ch[no_energy].name);
  note(m, text);
  return 0;
}

/* Fill the channels' max_watts from the power limits, where NVML has
 * them: the most a GPU may draw, for the core's wrap guard. */
static void power_limits(struct pmon_meter *m)
{
  struct nvml_priv *p = m->priv;

  for (int c = 0; c < m->nch; c++) {
    unsigned int mw = 0;

    if ((p->api.limit != NULL &&
         p->api.limit(p->dev[c], &mw) == NVML_SUCCESS && mw > 0) ||
        (p->api.enforced != NULL &&
         p->api.enforced(p->dev[c], &mw) == NVML_SUCCESS && mw > 0))
      m->ch[c].max_watts = mw / 1000.0;
  }
}

static int nvml_open(struct pmon_meter *m)
{
  static const char *const keys[] = {"lib", "gpus", "interval", NULL};
  struct nvml_priv *p = m->priv;
  const char *lib = pmon__spec_get(&m->spec, "lib");
  const char *gpus = pmon__spec_get(&m->spec, "gpus");
  unsigned list[PMON_CH_MAX];
  char version[96];
  int n = 0, rc;

  if ((rc = pmon__spec_check_keys(&m->spec, keys)) != 0)
    return rc;
  if (m->spec.path[0] != '\0' || (lib != NULL && lib[0] == '\0'))
    return pmon__fail(PMON_ECONFIG,
                      "PMON_METERS: meter \"%s\": expected "
                      "nvml[?lib=PATH&gpus=LIST&interval=S]",
                      m->spec.text);
  if ((gpus != NULL && (rc = parse_gpus(&m->spec, gpus, list, &n)) != 0) ||
      (rc = pmon__spec_double(&m->spec, "interval", m->interval_s, 0.01,
                              3600, &m->interval_s)) != 0)
    return rc;
  snprintf(p->lib, sizeof p->lib, "%s", lib != NULL ? lib : default_lib());
  if ((rc = load(lib, &p->dl, &p->api)) != 0)
    return rc;
  m->nch = 0;
  if ((rc = choose_gpus(m, list, n)) != 0 ||
      (rc = choose_source(m)) != 0) {
    nvml_close(m);
    return rc;
  }
  power_limits(m);
  pace(m);
  /* NVML updates the energy counters every 20 to 100 ms while the GPU is
   * powered, idle included: none moving for a second, or five readings
   * when they are further apart, is a frozen source.  A power reading that
   * repeats cannot be told from a constant load: no limit. */
  if (p->energy)
    m->stale_s = STALE_READINGS * m->interval_s > STALE_MIN_S
                   ? STALE_READINGS * m->interval_s
                   : STALE_MIN_S;
  if (p->api.version == NULL ||
      p->api.version(version, sizeof version) != NVML_SUCCESS)
    version[0] = '\0';
  version[sizeof version - 1] = '\0';
  snprintf(m->source, sizeof m->source, "nvml %s%s%.40s",
           p->energy ? "energy" : "power",
           version[0] != '\0' ? ", driver " : "", version);
  return 0;
}

static int nvml_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct nvml_priv *p = m->priv;
  int stale = p->primed, back = 0;
  nvmlReturn_t rc;

  for (int c = 0; c < m->nch; c++) {
    if (p->energy) {
      unsigned long long mj;

      if ((rc = p->api.energy(p->dev[c], &mj)) != NVML_SUCCESS)
        return fail_nvml(&p->api, m->ch[c].name,
                         "nvmlDeviceGetTotalEnergyConsumption", rc);
      r->raw[c] = mj;
    } else {
      unsigned int mw;

      if ((rc = p->api.power(p->dev[c], &mw)) != NVML_SUCCESS)
        return fail_nvml(&p->api, m->ch[c].name, "nvmlDeviceGetPowerUsage",
                         rc);
      r->watts[c] = mw / 1000.0;
      if (r->watts[c] > WATTS_MAX)
        return pmon__fail(PMON_EFORMAT, "nvml: %s: nvmlDeviceGetPowerUsage: "
                          "%u mW is not a GPU's power", m->ch[c].name, mw);
    }
  }
  if (!p->energy)
    return 0;
  /* A counter that went back started again: the NVIDIA driver was
   * reloaded or the GPU reset.  The core drops the interval; the event
   * says which GPU. */
  for (int c = 0; c < m->nch && p->primed; c++) {
    size_t k = strlen(r->detail);

    stale &= r->raw[c] == p->prev[c];
    if (r->raw[c] >= p->prev[c])
      continue;
    snprintf(r->detail + k, sizeof r->detail - k, "%s%s", back ? ", " : "",
             m->ch[c].name);
    back = 1;
  }
  if (back) {
    size_t k = strlen(r->detail);

    r->events |= PMON_EV_RESET;
    snprintf(r->detail + k, sizeof r->detail - k,
             ": energy counter went back (NVIDIA driver reloaded or GPU "
             "reset): the interval before is not counted");
  }
  /* Nothing moved on any GPU: NVML has not updated its counters (every
   * 20 to 100 ms) since the previous reading. */
  r->stale = stale;
  memcpy(p->prev, r->raw, sizeof p->prev);
  p->primed = 1;
  return 0;
}

/*
 * The GPU's compute processes, as nvidia-smi lists them: the processes
 * with a CUDA context on it, not those that only ask NVML (pmon itself).
 * Graphics processes are not asked for: an HPC node runs none.  The pids
 * are the host's when NVML runs in the host's pid namespace; in a
 * container they may not be the container's (not tested).
 */
static int nvml_users(struct pmon_meter *m, int ch, int *pids, int max)
{
  struct nvml_priv *p = m->priv;
  union {
    struct nvml_proc v2[USERS_MAX];
    struct nvml_proc_v1 v1[USERS_MAX];
  } buf;
  unsigned int n = USERS_MAX;
  nvmlReturn_t rc;
  int v1 = p->api.procs == NULL;

  if (ch < 0 || ch >= m->nch)
    return pmon__fail(PMON_EINVAL, "nvml: channel %d: no such GPU", ch);
  if (v1 && p->api.procs_v1 == NULL)
    return pmon__fail(PMON_ENOTSUP, "nvml: %s: no "
                      "nvmlDeviceGetComputeRunningProcesses: this NVML cannot "
                      "say which processes use a GPU", p->lib);
  rc = v1 ? p->api.procs_v1(p->dev[ch], &n, buf.v1)
          : p->api.procs(p->dev[ch], &n, buf.v2);
  if (rc != NVML_SUCCESS)
    return fail_nvml(&p->api, m->ch[ch].name,
                     v1 ? "nvmlDeviceGetComputeRunningProcesses"
                        : "nvmlDeviceGetComputeRunningProcesses_v3",
                     rc);
  if (n > USERS_MAX)
    n = USERS_MAX;
  for (unsigned int i = 0; i < n && (int)i < max; i++)
    pids[i] = (int)(v1 ? buf.v1[i].pid : buf.v2[i].pid);
  return (int)n < max ? (int)n : max;
}

const struct pmon_driver pmon__driver_nvml = {
  .name = "nvml",                                 /* MUST */
  .description = "NVIDIA GPUs' board power and energy (NVML)", /* MUST */
  /* MUST.  COUNTER: the energy counters; open() chooses SAMPLED (power)
   * when a GPU has none.  PART: the GPUs, never the whole node. */
  .flags = PMON_DRV_COUNTER | PMON_DRV_PART,
  .priv_size = sizeof(struct nvml_priv), /* MAY */
  .accuracy_w = 5.0, /* MAY: per GPU, nvidia-smi(1) on power.draw:
                        "accurate to within +/- 5 watts" (no generation
                        named; NVML's own +-5 % is Fermi and Kepler's) */
  .interval_s = 0.1,  /* MUST: NVML updates the counter every 20-100 ms
                         (100 ms on an H200); pace() lengthens it where a
                         reading is costly */
  .probe = nvml_probe, /* MAY: auto: the library loads and sees a GPU */
  .open = nvml_open,   /* MUST */
  .read = nvml_read,   /* MUST */
  .finish = NULL,      /* MAY: no second figure to judge against */
  .users = nvml_users, /* MAY: a GPU's compute processes */
  .close = nvml_close, /* MAY: nvmlShutdown, then dlclose */
};

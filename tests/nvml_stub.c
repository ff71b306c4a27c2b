/*
 * nvml_stub.c - a stand-in for NVIDIA's libnvidia-ml.so.1, for the tests
 * of the nvml driver: GPUs whose power follows tests/wave.h waveforms.
 *
 * Built for the tests only, as a shared library the driver loads with
 * PMON_METERS=nvml?lib=PATH; never installed.  It exports the NVML
 * functions the driver resolves, versioned and plain; built with
 * -DSTUB_OLD it plays an old driver instead: no _v2 names, no
 * nvmlDeviceGetTotalEnergyConsumption, no nvmlSystemGetDriverVersion.
 * Its types and return codes are NVML's (research notes section 7).
 *
 * Driven by the environment, read at each nvmlInit that finds NVML shut
 * down ("S" below is seconds after the first nvmlInit since the library
 * was loaded, which a test reads back from the log):
 *
 *   PMON_STUB_NVML_GPUS=N         GPUs (default 2, at most 64)
 *   PMON_STUB_NVML_WAVE=W[,W...]  each GPU's power, a tests/wave.h
 *                                 waveform (default const:100); the last
 *                                 one given serves the GPUs after it
 *   PMON_STUB_NVML_ORIGIN=NS      the waveforms' origin, CLOCK_MONOTONIC
 *                                 ns (default: the first nvmlInit)
 *   PMON_STUB_NVML_ENERGY=B[,B..] 1 when a GPU has the energy counter,
 *                                 0 for NVML_ERROR_NOT_SUPPORTED (default
 *                                 1); the last serves the GPUs after it
 *   PMON_STUB_NVML_INIT=CODE      what nvmlInit returns (default 0)
 *   PMON_STUB_NVML_LOST=GPU:S     from S on, every call about GPU returns
 *                                 NVML_ERROR_GPU_IS_LOST
 *   PMON_STUB_NVML_RESET=GPU:S    at S, GPU's energy counter starts again
 *                                 from 0 (the NVIDIA driver reloaded)
 *   PMON_STUB_NVML_DENY=GPU[,GPU] their handles: NVML_ERROR_NO_PERMISSION
 *   PMON_STUB_NVML_LIMIT=MW       the power limit (default 300000 mW; 0:
 *                                 NVML_ERROR_NOT_SUPPORTED)
 *   PMON_STUB_NVML_COST_US=US     each nvmlDeviceGetTotalEnergyConsumption
 *                                 spins US microseconds of the caller's
 *                                 processor time (default 0), as the
 *                                 NVIDIA driver 580 does on an H200:
 *                                 about 4 ms (docs/hardware.md)
 *   PMON_STUB_NVML_USERS=DIR      GPU N's compute processes: the PIDs
 *                                 of the files DIR/N.PID whose process
 *                                 is alive (a test marks a process as a
 *                                 GPU's user by creating one; read at
 *                                 each call)
 *   PMON_STUB_NVML_LOG=PATH       append "init NS", then "lost GPU NS"
 *                                 and "reset GPU NS" (the instants the
 *                                 faults are due), and at shutdown
 *                                 "shutdown NS energy_calls N power_calls
 *                                 N"
 *
 * The energy counter is the exact integral of the waveform since the
 * first nvmlInit (or since the reset), in whole millijoules, plus an
 * offset of 123456789 mJ before any reset, as a driver loaded long ago;
 * the power is the waveform's at the instant of the call, in milliwatts.
 * Time is CLOCK_MONOTONIC, as tests/wave's.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wave.h"

#define GPUS_MAX 64
#define ENERGY_BASE 123456789ULL /* mJ counted before the first init */
#define VERSION "550.54.15-stub"

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlReturn_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_UNKNOWN = 999
};

struct nvmlDevice_st {
  int index;
};

/* A test library stands for one process-wide library: its state is
 * process-wide too, behind one lock. */
static struct {
  pthread_mutex_t lock;
  int refs;             /* nvmlInit calls not yet shut down */
  long long epoch;      /* the first nvmlInit since loading, ns; 0: none */
  long long origin;     /* the waveforms', ns */
  int ngpu;
  struct wave wave[GPUS_MAX];
  int energy[GPUS_MAX]; /* has the energy counter */
  int deny[GPUS_MAX];
  double lost_at;       /* S of PMON_STUB_NVML_LOST, < 0: never */
  int lost_gpu;
  double reset_at;      /* S of PMON_STUB_NVML_RESET, < 0: never */
  int reset_gpu;
  unsigned limit_mw;
  long cost_ns; /* processor time an energy call spins */
  char log[PATH_MAX];
  char users[PATH_MAX]; /* PMON_STUB_NVML_USERS, "" when unset */
  unsigned long energy_calls, power_calls;
  struct nvmlDevice_st dev[GPUS_MAX];
} st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The exported functions, declared for -Wmissing-prototypes. */
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlDeviceGetCount(unsigned int *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw);
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d,
                                               unsigned int *mw);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d,
                                             unsigned int *mw);
const char *nvmlErrorString(nvmlReturn_t rc);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d,
                                                  unsigned int *n,
                                                  void *infos);
#ifndef STUB_OLD
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d,
                                                     unsigned int *n,
                                                     void *infos);
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d,
                                                 unsigned long long *mj);
nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int size);
#endif

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Append a line to the log, when there is one. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
  va_list ap;
  FILE *f;

  if (st.log[0] == '\0' || (f = fopen(st.log, "a")) == NULL)
    return;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fclose(f);
}

/* The I-th item of the comma-separated LIST into BUF; the last item when
 * there are fewer. */
static void item(const char *list, int i, char *buf, size_t size)
{
  const char *p = list;

  for (; i > 0 && strchr(p, ',') != NULL; i--)
    p = strchr(p, ',') + 1;
  snprintf(buf, size, "%.*s", (int)strcspn(p, ","), p);
}

/* "GPU:S" of VAR into *GPU and *AT; *AT < 0 when unset. */
static void fault(const char *var, int *gpu, double *at)
{
  const char *v = getenv(var);

  *at = -1;
  if (v != NULL && sscanf(v, "%d:%lf", gpu, at) != 2)
    *at = -1;
}

/* Read the environment: the lock held, NVML shut down. */
static void configure(void)
{
  const char *v;
  char buf[128];

  v = getenv("PMON_STUB_NVML_GPUS");
  st.ngpu = v != NULL ? atoi(v) : 2;
  if (st.ngpu < 0 || st.ngpu > GPUS_MAX)
    st.ngpu = GPUS_MAX;
  for (int i = 0; i < GPUS_MAX; i++) {
    st.dev[i].index = i;
    v = getenv("PMON_STUB_NVML_WAVE");
    item(v != NULL ? v : "const:100", i, buf, sizeof buf);
    if (wave_parse(buf, &st.wave[i]) != 0)
      wave_parse("const:100", &st.wave[i]);
    v = getenv("PMON_STUB_NVML_ENERGY");
    item(v != NULL ? v : "1", i, buf, sizeof buf);
    st.energy[i] = atoi(buf) != 0;
    st.deny[i] = 0;
  }
  if ((v = getenv("PMON_STUB_NVML_DENY")) != NULL)
    for (const char *p = v; *p != '\0'; p += strcspn(p, ","),
                    p += *p == ',') {
      int g = atoi(p);

      if (g >= 0 && g < GPUS_MAX)
        st.deny[g] = 1;
    }
  fault("PMON_STUB_NVML_LOST", &st.lost_gpu, &st.lost_at);
  fault("PMON_STUB_NVML_RESET", &st.reset_gpu, &st.reset_at);
  v = getenv("PMON_STUB_NVML_LIMIT");
  st.limit_mw = v != NULL ? (unsigned)strtoul(v, NULL, 10) : 300000;
  v = getenv("PMON_STUB_NVML_COST_US");
  st.cost_ns = v != NULL ? atol(v) * 1000 : 0;
  v = getenv("PMON_STUB_NVML_LOG");
  snprintf(st.log, sizeof st.log, "%s", v != NULL ? v : "");
  v = getenv("PMON_STUB_NVML_USERS");
  snprintf(st.users, sizeof st.users, "%s", v != NULL ? v : "");
}

/* Seconds of waveform at instant T (ns). */
static double x_of(long long t)
{
  return (double)(t - st.origin) * 1e-9;
}

static long long at_ns(double s)
{
  return st.epoch + (long long)(s * 1e9);
}

/* The device D as an index, checking NVML's state and D's: 0 and *I, or
 * the error to return.  The lock held. */
static nvmlReturn_t device(nvmlDevice_t d, int *i)
{
  if (st.refs == 0)
    return NVML_ERROR_UNINITIALIZED;
  if (d == NULL || d < st.dev || d >= st.dev + st.ngpu)
    return NVML_ERROR_INVALID_ARGUMENT;
  *i = d->index;
  if (st.lost_at >= 0 && *i == st.lost_gpu && now_ns() >= at_ns(st.lost_at))
    return NVML_ERROR_GPU_IS_LOST;
  return NVML_SUCCESS;
}

static nvmlReturn_t init(void)
{
  nvmlReturn_t rc = NVML_SUCCESS;
  const char *v;

  pthread_mutex_lock(&st.lock);
  if (st.refs == 0) {
    configure();
    v = getenv("PMON_STUB_NVML_INIT");
    rc = v != NULL ? atoi(v) : NVML_SUCCESS;
  }
  if (rc == NVML_SUCCESS && st.refs++ == 0 && st.epoch == 0) {
    st.epoch = now_ns();
    v = getenv("PMON_STUB_NVML_ORIGIN");
    st.origin = v != NULL ? atoll(v) : st.epoch;
    say("init %lld\n", st.epoch);
    if (st.lost_at >= 0)
      say("lost %d %lld\n", st.lost_gpu, at_ns(st.lost_at));
    if (st.reset_at >= 0)
      say("reset %d %lld\n", st.reset_gpu, at_ns(st.reset_at));
  }
  pthread_mutex_unlock(&st.lock);
  return rc;
}

nvmlReturn_t nvmlInit(void)
{
  return init();
}

nvmlReturn_t nvmlShutdown(void)
{
  nvmlReturn_t rc = NVML_SUCCESS;

  pthread_mutex_lock(&st.lock);
  if (st.refs == 0)
    rc = NVML_ERROR_UNINITIALIZED;
  else if (--st.refs == 0)
    say("shutdown %lld energy_calls %lu power_calls %lu\n", now_ns(),
        st.energy_calls, st.power_calls);
  pthread_mutex_unlock(&st.lock);
  return rc;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *n)
{
  nvmlReturn_t rc = NVML_SUCCESS;

  pthread_mutex_lock(&st.lock);
  if (st.refs == 0)
    rc = NVML_ERROR_UNINITIALIZED;
  else if (n == NULL)
    rc = NVML_ERROR_INVALID_ARGUMENT;
  else
    *n = (unsigned)st.ngpu;
  pthread_mutex_unlock(&st.lock);
  return rc;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d)
{
  nvmlReturn_t rc = NVML_SUCCESS;
  int k;

  pthread_mutex_lock(&st.lock);
  if (st.refs == 0)
    rc = NVML_ERROR_UNINITIALIZED;
  else if (d == NULL || i >= (unsigned)st.ngpu)
    rc = NVML_ERROR_INVALID_ARGUMENT;
  else if (st.deny[i])
    rc = NVML_ERROR_NO_PERMISSION;
  else if ((rc = device(&st.dev[i], &k)) == NVML_SUCCESS)
    *d = &st.dev[i];
  pthread_mutex_unlock(&st.lock);
  return rc;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
  nvmlReturn_t rc;
  int i;

  pthread_mutex_lock(&st.lock);
  st.power_calls++;
  if ((rc = device(d, &i)) == NVML_SUCCESS)
    *mw = (unsigned)(wave_power(&st.wave[i], x_of(now_ns())) * 1000 + 0.5);
  pthread_mutex_unlock(&st.lock);
  return rc;
}

static nvmlReturn_t limit(nvmlDevice_t d, unsigned int *mw)
{
  nvmlReturn_t rc;
  int i;

  pthread_mutex_lock(&st.lock);
  if ((rc = device(d, &i)) == NVML_SUCCESS) {
    if (st.limit_mw == 0)
      rc = NVML_ERROR_NOT_SUPPORTED;
    else
      *mw = st.limit_mw;
  }
  pthread_mutex_unlock(&st.lock);
  return rc;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d,
                                               unsigned int *mw)
{
  return limit(d, mw);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d,
                                             unsigned int *mw)
{
  return limit(d, mw);
}

/* NVML's texts for its codes. */
const char *nvmlErrorString(nvmlReturn_t rc)
{
  switch (rc) {
  case NVML_SUCCESS: return "Success";
  case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
  case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
  case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
  case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
  case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
  case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
  default: return "Unknown Error";
  }
}

#ifndef STUB_OLD
nvmlReturn_t nvmlInit_v2(void)
{
  return init();
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
  return nvmlDeviceGetCount(n);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
  return nvmlDeviceGetHandleByIndex(i, d);
}

/* Spin NS nanoseconds of this thread's processor time. */
static void spin(long ns)
{
  struct timespec a, b;

  if (ns <= 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a) != 0)
    return;
  do
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d,
                                                 unsigned long long *mj)
{
  long long t = now_ns(), from;
  unsigned long long base = ENERGY_BASE;
  nvmlReturn_t rc;
  double j;
  int i;

  pthread_mutex_lock(&st.lock);
  st.energy_calls++;
  if ((rc = device(d, &i)) == NVML_SUCCESS && !st.energy[i])
    rc = NVML_ERROR_NOT_SUPPORTED;
  if (rc == NVML_SUCCESS) {
    from = st.epoch;
    if (st.reset_at >= 0 && i == st.reset_gpu && t >= at_ns(st.reset_at)) {
      from = at_ns(st.reset_at);
      base = 0;
    }
    j = wave_cumulative(&st.wave[i], x_of(t)) -
        wave_cumulative(&st.wave[i], x_of(from));
    *mj = base + (unsigned long long)(j > 0 ? j * 1000 : 0);
  }
  long cost = st.cost_ns;
  pthread_mutex_unlock(&st.lock);
  spin(cost);
  return rc;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int size)
{
  if (buf == NULL || size < sizeof VERSION)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(buf, VERSION, sizeof VERSION);
  return NVML_SUCCESS;
}
#endif

/* NVML's nvmlProcessInfo_v2_t (the _v2 and _v3 calls) and
 * nvmlProcessInfo_v1_t (the plain one). */
struct proc_v2 {
  unsigned int pid;
  unsigned long long used_memory;
  unsigned int gpu_instance, compute_instance;
};
struct proc_v1 {
  unsigned int pid;
  unsigned long long used_memory;
};

/* GPU D's users from PMON_STUB_NVML_USERS into INFOS (*N of them, V2 or
 * v1 records), as NVML: NVML_ERROR_INSUFFICIENT_SIZE with the count
 * needed in *N when they do not fit. */
static nvmlReturn_t procs(nvmlDevice_t d, unsigned int *n, void *infos,
                          int v2)
{
  unsigned int k = 0;
  nvmlReturn_t rc;
  DIR *dir;
  struct dirent *e;
  int i;

  pthread_mutex_lock(&st.lock);
  rc = device(d, &i);
  if (rc == NVML_SUCCESS && n == NULL)
    rc = NVML_ERROR_INVALID_ARGUMENT;
  if (rc == NVML_SUCCESS && st.users[0] != '\0' &&
      (dir = opendir(st.users)) != NULL) {
    while ((e = readdir(dir)) != NULL) {
      int gpu, pid;
      char end;

      if (sscanf(e->d_name, "%d.%d%c", &gpu, &pid, &end) != 2 || gpu != i ||
          pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM))
        continue;
      if (k < *n && infos != NULL) {
        if (v2) {
          struct proc_v2 *p = (struct proc_v2 *)infos + k;

          p->pid = (unsigned)pid;
          p->used_memory = 1ULL << 30;
          p->gpu_instance = p->compute_instance = 0xFFFFFFFFu;
        } else {
          struct proc_v1 *p = (struct proc_v1 *)infos + k;

          p->pid = (unsigned)pid;
          p->used_memory = 1ULL << 30;
        }
      }
      k++;
    }
    closedir(dir);
  }
  if (rc == NVML_SUCCESS) {
    if (k > *n)
      rc = NVML_ERROR_INSUFFICIENT_SIZE;
    *n = k;
  }
  pthread_mutex_unlock(&st.lock);
  return rc;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d,
                                                  unsigned int *n, void *infos)
{
  return procs(d, n, infos, 0);
}

#ifndef STUB_OLD
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d,
                                                     unsigned int *n,
                                                     void *infos)
{
  return procs(d, n, infos, 1);
}
#endif

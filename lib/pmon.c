/*
 * pmon.c - the public entry points: init, regions, read, finalize.
 *
 * The life of a process: NONE -> (pmon_init) RUNNING -> (pmon_finalize)
 * FINALIZED, or NONE -> DISABLED with PMON_DISABLE.  A failed init leaves
 * NONE.  Region calls check the phase with one atomic load and never take
 * a lock held by anything slow.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "job.h"
#include "preload.h"
#include "rtab.h"
#include "trace.h"

/* One lock for the phase changes (init, finalize), never for regions. */
static pthread_mutex_t life = PTHREAD_MUTEX_INITIALIZER;

static int env_flag(const char *name)
{
  const char *v = getenv(name);

  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

static void sanitise(char *s)
{
  for (; *s != '\0'; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_'))
      *s = '_';
}

/* The job id from the batch system, else made up from time, host, pid. */
static void job_id(void)
{
  struct pmon_state *g = &pmon__g;
  const char *var, *v = pmon__batch_job_id(&var);

  if (v != NULL) {
    snprintf(g->jobid, sizeof g->jobid, "%s", v);
    snprintf(g->jobid_source, sizeof g->jobid_source, "%s", var);
    sanitise(g->jobid);
    return;
  }
  {
    struct tm tm;
    char host[64] = "host";

    gethostname(host, sizeof host - 1);
    host[strcspn(host, ".")] = '\0';
    gmtime_r(&g->wall_start.tv_sec, &tm);
    snprintf(g->jobid, sizeof g->jobid, "%04d%02d%02dT%02d%02d%02d-%s-%ld",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, host, (long)getpid());
    snprintf(g->jobid_source, sizeof g->jobid_source, "generated");
    sanitise(g->jobid);
  }
}

/* A key of PMON_TAGS: letters, digits, '.', '-', '_'. */
static int key_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

/*
 * PMON_LABEL, the run's name (job.label), and PMON_TAGS, key=value pairs
 * separated by commas (job.tags), so that runs and sweeps can be told
 * apart without parsing file names.  Checked here, on every rank; rank 0
 * writes its own into the report.
 */
static int label_config(void)
{
  struct pmon_state *g = &pmon__g;
  const char *l = getenv(PMON_ENV_LABEL), *t = getenv(PMON_ENV_TAGS), *p;
  json_t *ok;

  g->label[0] = g->tags[0] = '\0';
  if (l != NULL && *l != '\0') {
    if (strlen(l) > PMON_LABEL_MAX)
      return pmon__fail(PMON_ECONFIG, "%s: longer than %d bytes",
                        PMON_ENV_LABEL, PMON_LABEL_MAX);
    for (p = l; *p != '\0'; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f)
        return pmon__fail(PMON_ECONFIG, "%s: holds a control character",
                          PMON_ENV_LABEL);
    if ((ok = json_string(l)) == NULL)
      return pmon__fail(PMON_ECONFIG, "%s: not valid UTF-8", PMON_ENV_LABEL);
    json_decref(ok);
    snprintf(g->label, sizeof g->label, "%s", l);
  }
  if (t == NULL || *t == '\0')
    return 0;
  if (strlen(t) > PMON_TAGS_MAX)
    return pmon__fail(PMON_ECONFIG, "%s: longer than %d bytes", PMON_ENV_TAGS,
                      PMON_TAGS_MAX);
  for (p = t;;) {
    size_t klen = 0, vlen;
    const char *q;

    while (key_char(p[klen]))
      klen++;
    if (klen == 0 || klen > PMON_TAG_KEY_MAX || p[klen] != '=')
      return pmon__fail(PMON_ECONFIG,
                        "%s: \"%.40s\": not key=value (a key of 1 to %d "
                        "letters, digits, '.', '-' or '_')",
                        PMON_ENV_TAGS, p, PMON_TAG_KEY_MAX);
    vlen = strcspn(p + klen + 1, ",");
    for (q = t; q < p; q += strcspn(q, ",") + 1)
      if (strncmp(q, p, klen + 1) == 0)
        return pmon__fail(PMON_ECONFIG, "%s: the key \"%.*s\" is given twice",
                          PMON_ENV_TAGS, (int)klen, p);
    for (q = p + klen + 1; q < p + klen + 1 + vlen; q++)
      if ((unsigned char)*q < 0x20 || *q == 0x7f)
        return pmon__fail(PMON_ECONFIG,
                          "%s: the value of \"%.*s\" holds a control "
                          "character",
                          PMON_ENV_TAGS, (int)klen, p);
    p += klen + 1 + vlen;
    if (*p == '\0')
      break;
    p++; /* the comma */
  }
  if ((ok = json_string(t)) == NULL)
    return pmon__fail(PMON_ECONFIG, "%s: not valid UTF-8", PMON_ENV_TAGS);
  json_decref(ok);
  snprintf(g->tags, sizeof g->tags, "%s", t);
  return 0;
}

static void node_barrier(void)
{
  if (pmon__g.mpi)
    PMPI_Barrier(pmon__g.node);
}

static void teardown(void)
{
  struct pmon_state *g = &pmon__g;

  pmon__spool_stop();
  pmon__spool_done(0);
  pmon__metrics_done(0);
  pmon__sampler_stop();
  pmon__share_close(); /* its thread asks the meters who uses the GPUs */
  if (g->leader)
    pmon__meters_close();
  pmon__regions_free();
  pmon__trace_close(); /* after every thread that writes it */
  pmon__pub_free();
  pmon__io_free();
  pmon__comm_free();
  pmon__cpufreq_close();
  pmon__iofreq_stop();
  pmon__iofreq_close();
  pmon__node_teardown();
}

/*
 * MPI_Finalize frees MPI_COMM_SELF first, while MPI still works, calling
 * the delete function of its attributes: a program that forgot
 * pmon_finalize() still gets its report.
 */
static int self_delete(MPI_Comm comm, int key, void *val, void *extra)
{
  (void)comm;
  (void)key;
  (void)val;
  (void)extra;
  if (atomic_load(&pmon__g.phase) == PMON_PHASE_RUNNING)
    pmon_finalize();
  return MPI_SUCCESS;
}

static int init_locked(int by_preload)
{
  struct pmon_state *g = &pmon__g;
  int phase = atomic_load(&g->phase), rc, cfg, any;
  const char *meters;

  if (phase == PMON_PHASE_DISABLED)
    return 0;
  if (phase == PMON_PHASE_RUNNING) {
    if (g->by_preload && !by_preload && !g->adopted) {
      g->adopted = 1;
      return 0;
    }
    return pmon__fail(PMON_EALREADY, "pmon_init: called twice");
  }
  if (phase == PMON_PHASE_FINALIZED)
    return pmon__fail(PMON_EFINALIZED,
                      "pmon_init: pmon was finalised and cannot restart");
  if (env_flag(PMON_ENV_DISABLE)) {
    atomic_store(&g->phase, PMON_PHASE_DISABLED);
    return 0;
  }
  g->quiet = env_flag(PMON_ENV_QUIET);
  clock_gettime(CLOCK_REALTIME, &g->wall_start);
  meters = getenv(PMON_ENV_METERS);
  cfg = pmon__meters_parse(meters != NULL ? meters : "auto");
  if (cfg == 0)
    cfg = pmon__io_config();
  if (cfg == 0)
    cfg = pmon__comm_config();
  if (cfg == 0)
    cfg = pmon__share_config();
  if (cfg == 0)
    cfg = pmon__iofreq_config();
  if (cfg == 0)
    cfg = pmon__timeline_config();
  if (cfg == 0)
    cfg = pmon__regions_config();
  if (cfg == 0)
    cfg = label_config();
  if (cfg == 0)
    cfg = pmon__spool_config();
  if (cfg == 0)
    cfg = pmon__metrics_config();
  if (cfg == 0)
    cfg = pmon__trace_config();
  if ((rc = pmon__node_setup()) != 0) {
    pmon__node_teardown();
    pmon__trace_close();
    return rc;
  }
  pmon__share_open(); /* the leader learns its ranks' pids */
  if (cfg == 0 && g->leader) {
    cfg = pmon__meters_open() == PMON_ECONFIG ? PMON_ECONFIG : 0;
    pmon__cpufreq_open(g->cpus);
  }
  /* Every rank returns the same: one bad configuration anywhere stops all. */
  any = cfg;
  if (g->mpi)
    PMPI_Allreduce(&cfg, &any, 1, MPI_INT, MPI_MIN, g->world);
  if (any != 0) {
    if (g->rank == 0)
      pmon__say("%s", cfg != 0 ? pmon_errmsg() + strlen("pmon: ")
                               : "PMON_METERS: invalid on some node");
    teardown();
    return cfg != 0 ? cfg : pmon__fail(PMON_ECONFIG, "invalid configuration");
  }
  if ((rc = pmon__node_share()) != 0) {
    teardown();
    return rc;
  }
  pmon__iofreq_open(); /* before the last barrier: nobody caps yet */
  if (g->leader) {
    struct pmon_tl_sample s;
    int tm = g->total_meter;

    pmon__trace_meters();
    g->t_init_ns = pmon__now_ns();
    g->t_end_ns = 0;
    pmon__meters_sample_all(g->t_init_ns);
    /* Time is counted from the first sample of the node total, where its
     * energy starts. */
    if (tm >= 0 && pmon__tl_get(&g->sh->tl[tm], 0, &s) == 0)
      g->t_init_ns = s.t_ns;
    g->sh->t_init_ns = g->t_init_ns;
    rc = pmon__sampler_start();
    pmon__share_start(); /* the job's CPU time, on a thread of its own */
  }
  atomic_thread_fence(memory_order_seq_cst);
  node_barrier();
  g->t_init_ns = g->sh->t_init_ns;
  pmon__trace_span("init", g->t_init_ns);
  pmon__regions_layout(); /* the segment is whole now */
  pmon__pub_start();
  if (g->rank == 0)
    job_id();
  if (g->mpi) {
    int key;

    PMPI_Bcast(g->jobid, sizeof g->jobid, MPI_CHAR, 0, g->world);
    PMPI_Bcast(g->jobid_source, sizeof g->jobid_source, MPI_CHAR, 0,
               g->world);
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &key,
                                NULL) == MPI_SUCCESS)
      PMPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
  }
  pmon__trace_named(); /* the job has its name */
  if (g->leader)
    pmon__share_named(g->jobid); /* the other jobs of the node see it */
  pmon__spool_start(); /* the leader's spool, the others' wait for it */
  g->by_preload = by_preload;
  atomic_store(&g->phase, PMON_PHASE_RUNNING);
  if (rc == 0)
    pmon__clear_error(); /* what auto-detection tried is no error */
  return rc;
}

/* The pipe to pmon-run in PMON_RUN_FD, or -1; the variable is removed, so
 * that the process's children do not write to that number. */
static int run_fd_take(void)
{
  const char *v = getenv(PMON_ENV_RUN_FD);
  char *end;
  long fd;

  if (v == NULL || *v == '\0')
    return -1;
  fd = strtol(v, &end, 10);
  unsetenv(PMON_ENV_RUN_FD);
  return *end == '\0' && fd > 2 && fd < 65536 ? (int)fd : -1;
}

/* WHAT (NULL: nothing) and a newline to FD (run_fd_take()), which is
 * closed; nothing for -1. */
static void run_fd_tell(int fd, const char *what)
{
  char line[16];
  int n = what != NULL ? snprintf(line, sizeof line, "%s\n", what) : 0;

  if (fd < 0)
    return;
  if (n > 0 && (size_t)n < sizeof line)
    while (write(fd, line, (size_t)n) < 0 && errno == EINTR)
      ;
  close(fd);
}

void pmon__tell_pmon_run(const char *what)
{
  run_fd_tell(run_fd_take(), what);
}

int pmon__init(int by_preload)
{
  int rc, run_fd;

  pthread_mutex_lock(&life);
  pmon__clear_error();
  /* A program's own pmon_init() under pmon-run that is not an MPI rank's
   * (a serial program, a Python script) reports itself, with its
   * regions, so pmon-run gives up its measurement of the process.  The
   * variable is taken before init starts pmon's threads (unsetenv()
   * beside threads that read the environment is a race); the pipe closed
   * unwritten, as by a program that never calls pmon, when it fails. */
  run_fd = by_preload || atomic_load(&pmon__g.phase) != PMON_PHASE_NONE
             ? -1
             : run_fd_take();
  rc = init_locked(by_preload);
  run_fd_tell(run_fd, rc == 0 && atomic_load(&pmon__g.phase) ==
                                   PMON_PHASE_RUNNING ? "self" : NULL);
  pthread_mutex_unlock(&life);
  return rc;
}

int pmon_init(void)
{
  return pmon__init(0);
}

/* The first error of two. */
static int keep_first(int rc, int next)
{
  return rc != 0 ? rc : next;
}

static int rtab_pack(void *t, char **buf, size_t *len)
{
  return pmon__rtab_pack(t, buf, len);
}

static int rtab_unpack(void *t, const char *buf, size_t len)
{
  return pmon__rtab_unpack(t, buf, len);
}

/* Merge the region tables of COMM's ranks into rank 0's T. */
static int regions_up(MPI_Comm comm, struct pmon_rtab *t)
{
  const struct pmon_reducer how = {"region records", rtab_pack, rtab_unpack,
                                   t};

  return pmon__tree_reduce(comm, &how);
}

static int finalize_locked(void)
{
  struct pmon_state *g = &pmon__g;
  int phase = atomic_load(&g->phase), rc = 0, wrote = -1;
  json_t *mine, *ranks = NULL, *nodes = NULL;
  struct pmon_rtab regions;

  if (phase == PMON_PHASE_DISABLED)
    return 0;
  if (phase == PMON_PHASE_NONE)
    return pmon__fail(PMON_ENOINIT, "pmon_finalize: pmon_init was not called "
                                    "or failed");
  if (phase == PMON_PHASE_FINALIZED)
    return pmon__fail(PMON_EFINALIZED, "pmon_finalize: called twice");
  if (g->mpi) {
    int fini = 0;

    PMPI_Finalized(&fini);
    if (fini)
      return pmon__fail(PMON_EMPI, "pmon_finalize: must be called before "
                                   "MPI_Finalize");
  }
  atomic_store(&g->phase, PMON_PHASE_FINALIZED);
  pmon__comm_stop(); /* pmon's own traffic is not the program's */
  pmon__iofreq_stop(); /* this rank restores the CPUs if it is the last */
  g->t_fin_ns = pmon__now_ns();
  clock_gettime(CLOCK_REALTIME, &g->wall_end);
  pmon__regions_close_all(g->t_fin_ns);
  node_barrier();
  if (g->leader) {
    /* Every rank of the node has called pmon_finalize(): its run ends
     * here, and a reading after it lets the report cut its energy here
     * (lib/report.c).  The spool's thread reads t_end_ns in its
     * snapshots: it is stored once that thread has ended. */
    uint64_t t_end = pmon__now_ns();

    pmon__iofreq_finish(); /* every rank of the node has stopped */
    pmon__spool_stop();
    pmon__sampler_stop();
    g->t_end_ns = t_end;
    pmon__trace_span("node_end", t_end);
    pmon__meters_sample_all(g->t_end_ns);
    pmon__meters_finish();
    pmon__share_finish();
  }
  atomic_thread_fence(memory_order_seq_cst);
  node_barrier();
  pmon__regions_resolve();

  /* Regions: every rank's table merged up the node's tree; I/O: every
   * rank's records gathered to the leader. */
  pmon__rtab_init(&regions, PMON_RT_NODE, pmon__regions_list_max());
  rc = pmon__regions_table(&regions);
  rc = keep_first(rc, regions_up(g->mpi ? g->node : MPI_COMM_NULL, &regions));
  mine = json_pack("[{s:i, s:i, s:o, s:o}]", "rank", g->rank, "local",
                   g->local_rank, "io", pmon__io_json(), "comm",
                   pmon__comm_json());
  if (mine == NULL)
    mine = json_array();
  pmon__trace_record(json_array_get(mine, 0));
  rc = keep_first(rc, pmon__tree_gather(g->mpi ? g->node : MPI_COMM_NULL,
                                        mine, &ranks));
  /* The node records and the job's regions up the leaders' tree. */
  if (g->leader) {
    json_t *rec, *one;
    double f, f_err;
    int node = 0;

    /* On a shared node, the job's share of every energy (lib/share.c). */
    if (pmon__share_factor(&f, &f_err) == 1)
      pmon__rtab_share(&regions, f, f_err);
    rec = pmon__node_record(ranks, &regions);
    one = json_array();

    /* The metrics' last values, the job ended on this node. */
    pmon__metrics_write(rec, &regions, 0);
    pmon__metrics_done(0);
    if (rec != NULL)
      json_array_append_new(one, rec);
    else
      rc = keep_first(rc, pmon__fail(PMON_ENOMEM, "finalize: cannot build "
                                                  "the node record"));
    rc = keep_first(rc, pmon__tree_gather(g->mpi ? g->leaders : MPI_COMM_NULL,
                                          one, &nodes));
    if (g->mpi)
      PMPI_Comm_rank(g->leaders, &node);
    pmon__rtab_to_job(&regions, node);
    rc = keep_first(rc, regions_up(g->mpi ? g->leaders : MPI_COMM_NULL,
                                   &regions));
  }
  json_decref(ranks);
  if (g->rank == 0 && nodes != NULL)
    rc = keep_first(rc, wrote = pmon__report(nodes, &regions, pmon__spool_dir()));
  /* The spool goes once the report is whole: rank 0 says so. */
  if (g->leader) {
    int ok = g->rank == 0 && nodes != NULL && wrote == 0;

    if (g->mpi)
      PMPI_Bcast(&ok, 1, MPI_INT, 0, g->leaders);
    pmon__spool_done(ok);
    if (g->mpi)
      PMPI_Barrier(g->leaders);
    if (ok)
      pmon__spool_rmdir(); /* each node's, where the directory is local */
  }
  pmon__rtab_free(&regions);
  json_decref(nodes);
  teardown();
  return rc;
}

int pmon_finalize(void)
{
  int rc;

  pthread_mutex_lock(&life);
  pmon__clear_error();
  rc = finalize_locked();
  pthread_mutex_unlock(&life);
  return rc;
}

int pmon__finalize_discard(void)
{
  struct pmon_state *g = &pmon__g;

  pthread_mutex_lock(&life);
  if (atomic_load(&g->phase) == PMON_PHASE_RUNNING) {
    atomic_store(&g->phase, PMON_PHASE_FINALIZED);
    /* Nothing of this measurement is wanted: its spool neither. */
    pmon__spool_stop();
    pmon__spool_done(1);
    pmon__spool_rmdir();
    pmon__metrics_done(1);
    teardown();
  }
  pthread_mutex_unlock(&life);
  return 0;
}

static int running(const char *what)
{
  switch (atomic_load_explicit(&pmon__g.phase, memory_order_acquire)) {
  case PMON_PHASE_RUNNING:
    return 0;
  case PMON_PHASE_DISABLED:
    return 1;
  case PMON_PHASE_FINALIZED:
    return pmon__fail(PMON_EFINALIZED, "%s: called after pmon_finalize",
                      what);
  default:
    return pmon__fail(PMON_ENOINIT, "%s: called before pmon_init", what);
  }
}

int pmon_region_begin(const char *name)
{
  int rc = running("pmon_region_begin");

  if (rc != 0)
    return rc > 0 ? 0 : rc;
  return pmon__region_begin(name);
}

int pmon_region_end(const char *name)
{
  int rc = running("pmon_region_end");

  if (rc != 0)
    return rc > 0 ? 0 : rc;
  return pmon__region_end(name);
}

int pmon_read(double *energy_j, double *time_s)
{
  const struct pmon_shared *sh;
  struct pmon_tl_sample s;
  int rc = running("pmon_read");
  double e = 0;

  if (rc != 0)
    return rc > 0 ? pmon__fail(PMON_ENODATA, "pmon_read: pmon is disabled")
                  : rc;
  sh = pmon__g.sh;
  /* The node total: the latest sample of each meter in it; the time is
   * that of the first such meter's. */
  for (int i = sh->nmeters - 1; i >= 0; i--) {
    if (sh->total_mask[i] == 0)
      continue;
    if (pmon__tl_seq(&sh->tl[i]) == 0 ||
        pmon__tl_get(&sh->tl[i], pmon__tl_seq(&sh->tl[i]) - 1, &s) != 0)
      return pmon__fail(PMON_ENODATA,
                        "pmon_read: no energy data on this node yet");
    for (int c = 0; c < sh->nch[i]; c++)
      if (sh->total_mask[i] & (1u << c))
        e += s.e[c];
  }
  if (sh->total_meter < 0)
    return pmon__fail(PMON_ENODATA, "pmon_read: no energy data on this node");
  if (energy_j != NULL)
    *energy_j = e;
  if (time_s != NULL)
    *time_s = (double)(s.t_ns - sh->t_init_ns) * 1e-9;
  return 0;
}

const char *pmon_version(void)
{
  return PMON_VERSION_STRING;
}

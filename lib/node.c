/*
 * node.c - ranks, nodes and leaders; the node-shared segment; the tree
 * that brings records to rank 0.
 *
 * A node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups, split
 * further by PMON_NODE when it is set (ranks of one host with the same
 * value form one emulated node; ranks on different hosts never share one).
 * The leader of a node is its local rank 0.  All of pmon's MPI traffic goes
 * through the PMPI_ entry points on private communicators, so neither the
 * program nor other PMPI tools see it.
 */
#define _GNU_SOURCE /* sched_getaffinity() */
#include "config.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"

#define TAG_GATHER 7301

void pmon__node_name(char *buf, size_t size)
{
  const char *v = getenv(PMON_ENV_NODE);

  if (v != NULL && *v != '\0') {
    snprintf(buf, size, "%s", v);
    return;
  }
  if (gethostname(buf, size) != 0)
    snprintf(buf, size, "localhost");
  buf[size - 1] = '\0';
}

static int mpi_fail(int rc, const char *what)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;

  PMPI_Error_string(rc, msg, &len);
  return pmon__fail(PMON_EMPI, "MPI: %s: %s", what, msg);
}

/* This process's CPUs into g->cpus. */
static void own_cpus(void)
{
  cpu_set_t set;

  memset(pmon__g.cpus, 0, sizeof pmon__g.cpus);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return;
  for (int c = 0; c < CPU_SETSIZE && c < PMON_CPUS_MAX; c++)
    if (CPU_ISSET(c, &set))
      pmon__g.cpus[c / (8 * sizeof(unsigned long))] |=
        1UL << (c % (8 * sizeof(unsigned long)));
}

int pmon__node_setup(void)
{
  struct pmon_state *g = &pmon__g;
  int init = 0, fini = 0, rc, nl, color;
  MPI_Comm host = MPI_COMM_NULL;
  char (*names)[sizeof g->node_name] = NULL;

  g->world = g->node = g->leaders = MPI_COMM_NULL;
  g->win = MPI_WIN_NULL;
  pmon__node_name(g->node_name, sizeof g->node_name);
  PMPI_Initialized(&init);
  if (init)
    PMPI_Finalized(&fini);
  g->mpi = init && !fini;
  own_cpus();
  if (!g->mpi) {
    g->rank = g->local_rank = 0;
    g->size = g->local_size = g->nnodes = 1;
    g->leader = 1;
    return 0;
  }
  if ((rc = PMPI_Comm_dup(MPI_COMM_WORLD, &g->world)) != MPI_SUCCESS)
    return mpi_fail(rc, "MPI_Comm_dup");
  PMPI_Comm_set_errhandler(g->world, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(g->world, &g->rank);
  PMPI_Comm_size(g->world, &g->size);
  if ((rc = PMPI_Comm_split_type(g->world, MPI_COMM_TYPE_SHARED, g->rank,
                                 MPI_INFO_NULL, &host)) != MPI_SUCCESS)
    return mpi_fail(rc, "MPI_Comm_split_type");
  /* Emulated nodes: colour each rank of the host by the lowest host rank
   * that has the same node name. */
  {
    int hrank, hsize;

    PMPI_Comm_rank(host, &hrank);
    PMPI_Comm_size(host, &hsize);
    if ((names = calloc((size_t)hsize, sizeof *names)) == NULL) {
      PMPI_Comm_free(&host);
      return pmon__fail(PMON_ENOMEM, "node: out of memory");
    }
    rc = PMPI_Allgather(g->node_name, (int)sizeof *names, MPI_CHAR, names,
                        (int)sizeof *names, MPI_CHAR, host);
    for (color = 0; rc == MPI_SUCCESS && color < hrank; color++)
      if (strcmp(names[color], g->node_name) == 0)
        break;
    free(names);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Comm_split(host, color, g->rank, &g->node);
    PMPI_Comm_free(&host);
    if (rc != MPI_SUCCESS)
      return mpi_fail(rc, "node communicator");
  }
  PMPI_Comm_set_errhandler(g->node, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(g->node, &g->local_rank);
  PMPI_Comm_size(g->node, &g->local_size);
  /* The node's CPUs, for the leader's cpufreq readings. */
  if ((rc = PMPI_Allreduce(MPI_IN_PLACE, g->cpus, (int)PMON_CPU_WORDS,
                           MPI_UNSIGNED_LONG, MPI_BOR, g->node)) != MPI_SUCCESS)
    return mpi_fail(rc, "MPI_Allreduce");
  g->leader = g->local_rank == 0;
  if ((rc = PMPI_Comm_split(g->world, g->leader ? 0 : MPI_UNDEFINED, g->rank,
                            &g->leaders)) != MPI_SUCCESS)
    return mpi_fail(rc, "leader communicator");
  if (g->leaders != MPI_COMM_NULL)
    PMPI_Comm_set_errhandler(g->leaders, MPI_ERRORS_RETURN);
  nl = g->leader;
  if ((rc = PMPI_Allreduce(&nl, &g->nnodes, 1, MPI_INT, MPI_SUM, g->world)) !=
      MPI_SUCCESS)
    return mpi_fail(rc, "MPI_Allreduce");
  return 0;
}

/* Meter I's terms of the error bars into SH, over M's channels in the
 * node total (docs/report-format.md, "Error bars"). */
static void error_terms(struct pmon_shared *sh, int i,
                        const struct pmon_meter *m)
{
  int n = 0;
  double res_w = 0;

  for (int c = 0; c < m->nch; c++) {
    if (!(sh->total_mask[i] & (1u << c)))
      continue;
    n++;
    if (m->flags & PMON_DRV_COUNTER)
      sh->res_j[i] += m->ch[c].scale;
    else
      res_w += m->ch[c].res_w;
  }
  /* An estimate's error is its model's, which it does not state: its
   * bars are unknown (NAN) unless the site states it (accuracy=). */
  sh->acc_rel[i] = (m->flags & PMON_DRV_ESTIMATED) && m->accuracy_from == NULL
                     ? NAN
                     : m->accuracy_rel;
  /* A power meter's resolution is off alike over the time measured, as
   * the stated watts are: it adds to them. */
  sh->acc_w[i] = m->accuracy_w * n + res_w;
}

/* Where the slot of local rank R begins in its part of the segment, of
 * SZ bytes at BASE; HEAD is the leader's part before its slot. */
static struct pmon_pub *slot_at(char *base, MPI_Aint sz, size_t head)
{
  return base != NULL &&
             sz >= (MPI_Aint)(head + PMON_PUB_BYTES + pmon__pub_comm_bytes())
           ? (struct pmon_pub *)(base + head)
           : NULL;
}

int pmon__node_share(void)
{
  struct pmon_state *g = &pmon__g;
  int nmeters = g->leader ? g->nmeters : 0, rc;
  size_t size, head, slot;
  void *base;

  if (g->mpi &&
      (rc = PMPI_Bcast(&nmeters, 1, MPI_INT, 0, g->node)) != MPI_SUCCESS)
    return mpi_fail(rc, "MPI_Bcast");
  size = offsetof(struct pmon_shared, tl) +
         (size_t)nmeters * sizeof(struct pmon_tl);
  /* Each rank's slot for the spool and the metrics follows, while
   * either is on, and after it the rank's communication rows, which the
   * writer reads in place. */
  head = g->leader ? (size + 63) & ~(size_t)63 : 0;
  slot = pmon__g.pub_interval_s > 0
           ? PMON_PUB_BYTES + pmon__pub_comm_bytes()
           : 0;
  if (g->leader && (g->pubs = calloc(g->local_size > 1 ? (size_t)g->local_size
                                                       : 1,
                                     sizeof *g->pubs)) == NULL)
    return pmon__fail(PMON_ENOMEM, "node: out of memory");
  if (g->mpi) {
    MPI_Aint sz;
    int du;
    char *mine;

    rc = PMPI_Win_allocate_shared((MPI_Aint)(head + slot), 1, MPI_INFO_NULL,
                                  g->node, &mine, &g->win);
    if (rc != MPI_SUCCESS) {
      g->win = MPI_WIN_NULL;
      return mpi_fail(rc, "MPI_Win_allocate_shared");
    }
    g->pub = slot > 0 ? (struct pmon_pub *)(mine + head) : NULL;
    PMPI_Win_shared_query(g->win, 0, &sz, &du, &base);
    for (int r = 0; g->leader && r < g->local_size; r++) {
      char *b;

      if (PMPI_Win_shared_query(g->win, r, &sz, &du, &b) == MPI_SUCCESS)
        g->pubs[r] = slot_at(b, sz, r == 0 ? head : 0);
    }
  } else if ((base = g->sh_local = calloc(1, head + slot)) == NULL) {
    return pmon__fail(PMON_ENOMEM, "node: out of memory");
  } else {
    g->pub = slot > 0 ? (struct pmon_pub *)((char *)base + head) : NULL;
    g->pubs[0] = g->pub;
  }
  if (g->pub != NULL) {
    memset(g->pub, 0, sizeof *g->pub);
    g->pub->rank = g->rank;
    g->pub_pid = (int)getpid();
  }
  g->sh = base;
  if (g->leader) {
    struct pmon_shared *sh = g->sh;

    memset(sh, 0, size);
    sh->nmeters = nmeters;
    sh->total_meter = g->total_meter;
    for (int i = 0; i < nmeters; i++) {
      sh->nch[i] = g->ms[i].m.nch;
      sh->total_mask[i] = g->total_mask[i];
      error_terms(sh, i, &g->ms[i].m);
    }
  }
  return 0;
}

void pmon__node_teardown(void)
{
  struct pmon_state *g = &pmon__g;

  if (g->win != MPI_WIN_NULL)
    PMPI_Win_free(&g->win);
  free(g->sh_local);
  free(g->pubs);
  g->sh_local = NULL;
  g->pubs = NULL;
  g->pub = NULL;
  g->sh = NULL;
  if (g->leaders != MPI_COMM_NULL)
    PMPI_Comm_free(&g->leaders);
  if (g->node != MPI_COMM_NULL)
    PMPI_Comm_free(&g->node);
  if (g->world != MPI_COMM_NULL)
    PMPI_Comm_free(&g->world);
}

/*
 * The binomial tree: in round k (mask = 2^k) a rank with that bit set
 * sends what it holds to rank - mask and stops; the others receive from
 * rank + mask, if it exists, and merge.  Merging in mask order keeps the
 * ranks in ascending order.  A message is sized with MPI_Probe.
 */
int pmon__tree_reduce(MPI_Comm comm, const struct pmon_reducer *how)
{
  int rank, size, rc = 0;

  if (comm == MPI_COMM_NULL)
    return 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (int mask = 1; mask < size; mask <<= 1) {
    if (rank & mask) {
      char *buf = NULL;
      size_t len = 0;

      if (how->pack(how->acc, &buf, &len) != 0 || len > INT_MAX) {
        rc = pmon__fail(PMON_ENOMEM, "gather: cannot pack %s%s", how->what,
                        len > INT_MAX ? " (over 2 GiB)" : "");
        len = 0; /* an empty message: the parent goes on */
      }
      if (PMPI_Send(buf, (int)len, MPI_BYTE, rank - mask, TAG_GATHER,
                    comm) != MPI_SUCCESS)
        rc = pmon__fail(PMON_EMPI, "gather: MPI_Send of %s failed", how->what);
      free(buf);
      return rc;
    }
    if (rank + mask < size) {
      MPI_Status st;
      char *buf;
      int n = 0;

      PMPI_Probe(rank + mask, TAG_GATHER, comm, &st);
      PMPI_Get_count(&st, MPI_BYTE, &n);
      if ((buf = malloc(n > 0 ? (size_t)n : 1)) == NULL) {
        PMPI_Recv(NULL, 0, MPI_BYTE, rank + mask, TAG_GATHER, comm,
                  MPI_STATUS_IGNORE);
        rc = pmon__fail(PMON_ENOMEM, "gather: out of memory for the %s of "
                                     "ranks %d+",
                        how->what, rank + mask);
        continue;
      }
      if (PMPI_Recv(buf, n, MPI_BYTE, rank + mask, TAG_GATHER, comm,
                    MPI_STATUS_IGNORE) != MPI_SUCCESS || n == 0 ||
          how->merge(how->acc, buf, (size_t)n) != 0)
        rc = pmon__fail(PMON_EMPI, "gather: lost %s of ranks %d+", how->what,
                        rank + mask);
      free(buf);
    }
  }
  return rc;
}

/* A JSON array, as compact text with its NUL.  Records too large for
 * one message (INT_MAX bytes) together lose their timelines (a node
 * record's "timeline" text, up to PMON_TIMELINE_MAX slices each), which
 * become null, rather than every record being lost. */
static int json_pack_text(void *acc, char **buf, size_t *len)
{
  json_t *a = *(json_t **)acc, *rec;
  size_t i, dropped = 0;

  if (a == NULL || (*buf = json_dumps(a, JSON_COMPACT)) == NULL)
    return -1;
  *len = strlen(*buf) + 1;
  if (*len <= INT_MAX)
    return 0;
  json_array_foreach(a, i, rec)
    if (json_is_string(json_object_get(rec, "timeline"))) {
      json_object_set_new(rec, "timeline", json_null());
      dropped++;
    }
  if (dropped == 0)
    return 0; /* too large all the same: the caller says so */
  pmon__debug("gather: %zu node records over 2 GiB: their timelines are "
              "left out",
              json_array_size(a));
  free(*buf);
  if ((*buf = json_dumps(a, JSON_COMPACT)) == NULL)
    return -1;
  *len = strlen(*buf) + 1;
  return 0;
}

static int json_merge_text(void *acc, const char *buf, size_t len)
{
  json_t **a = acc, *got;
  int rc;

  if (*a == NULL || buf[len - 1] != '\0' ||
      (got = json_loads(buf, 0, NULL)) == NULL)
    return -1;
  rc = json_array_extend(*a, got);
  json_decref(got);
  return rc;
}

int pmon__tree_gather(MPI_Comm comm, json_t *mine, json_t **all)
{
  json_t *acc = mine;
  const struct pmon_reducer how = {"records", json_pack_text,
                                   json_merge_text, &acc};
  int rank = 0, rc;

  *all = NULL;
  if (comm != MPI_COMM_NULL)
    PMPI_Comm_rank(comm, &rank);
  rc = pmon__tree_reduce(comm, &how);
  if (rank != 0) {
    json_decref(acc); /* sent */
    return rc;
  }
  *all = acc;
  return rc;
}

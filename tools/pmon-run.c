/*
 * pmon-run - measure a command: pmon-run [options] [--] COMMAND [ARG...]
 *
 * The command runs with libpmon-mpiio.so preloaded.  If it is an MPI
 * program (each rank of "mpirun -n N pmon-run -- ./app"), the preloaded
 * library reports the job at MPI_Finalize and tells us so through the pipe
 * named by PMON_RUN_FD; otherwise pmon-run measures the command as one
 * process on one node and reports it when it ends.  Without the library
 * under an MPI launcher, the command runs unmeasured: N one-rank reports
 * of one job, each claiming the whole node, would be wrong.  The exit
 * status is the command's (128 + signal when a signal ended it).  See
 * pmon-run(1).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmon.h"
#include "preload.h"

static volatile sig_atomic_t child;

static void forward(int sig)
{
  if (child > 0)
    kill((pid_t)child, sig);
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: pmon-run [options] [--] COMMAND [ARG...]\n"
          "Run COMMAND and report the energy it used (pmon-run(1)).\n"
          "  -o, --output=FILE   write the report to FILE (PMON_OUTPUT)\n"
          "  -m, --meters=LIST   meters to use (PMON_METERS), default auto\n"
          "  -n, --node=NAME     node name for this process (PMON_NODE)\n"
          "  -q, --quiet         no summary at the end (PMON_QUIET)\n"
          "  -l, --label=NAME    the run's name in the report (PMON_LABEL)\n"
          "  -t, --tag=KEY=VALUE a tag in the report (PMON_TAGS); repeatable\n"
          "      --no-preload    do not preload libpmon-mpiio.so\n"
          "  -h, --help          this help\n"
          "  -V, --version       the version\n");
}

static int set(const char *var, const char *val)
{
  if (setenv(var, val, 1) != 0) {
    fprintf(stderr, "pmon-run: %s: %s\n", var, strerror(errno));
    return -1;
  }
  return 0;
}

/* Cut SUFFIX off the end of S: nonzero when S ended with it. */
static int cut(char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);

  if (n < k || strcmp(s + n - k, suffix) != 0)
    return 0;
  s[n - k] = '\0';
  return 1;
}

/* The library to preload, in BUF: PMON_PRELOAD_LIB when it is set, else
 * the one found from this program's own path (/proc/self/exe), else the
 * installed one.  From the path:
 *  - in a build tree (tools/.libs/pmon-run behind libtool's wrapper, or
 *    tools/pmon-run), the library of that tree, mpiio/.libs, so that the
 *    build tree never preloads another build's library, or none;
 *  - installed in BINDIR, or under a copy of the installed tree such as
 *    DESTDIR (STAGE/usr/local/bin/pmon-run), LIBDIR under the same root.
 * Where the library found from the path cannot be read, the installed one
 * is named. */
static void find_lib(char *buf, size_t size)
{
  static const char lib[] = PMON_PRELOAD_LIB;
  const char *env = getenv("PMON_PRELOAD_LIB");
  char dir[4096], *slash;
  ssize_t n;
  int len = -1;

  if (env != NULL && *env != '\0') {
    snprintf(buf, size, "%s", env);
    return;
  }
  n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n > 0 && (size_t)n < sizeof dir - 1) {
    dir[n] = '\0';
    if ((slash = strrchr(dir, '/')) != NULL) {
      *slash = '\0';
      if (cut(dir, "/tools/.libs") || cut(dir, "/tools"))
        len = snprintf(buf, size, "%s/mpiio/.libs/libpmon-mpiio.so", dir);
      else if (cut(dir, PMON_BINDIR))
        len = snprintf(buf, size, "%s%s", dir, lib);
    }
  }
  if (len < 0 || (size_t)len >= size || access(buf, R_OK) != 0)
    snprintf(buf, size, "%s", lib);
}

/* Whether this process is one rank of several that an MPI launcher
 * started: the variable that shows it, as NAME=VALUE in BUF, or NULL.  A
 * launcher's size says so (a size of 1 is a job of one process, which
 * pmon-run measures rightly); without one, a rank variable does (the
 * rank on the node, for MPI_LOCALRANKID).  A launcher this list misses
 * is learnt from the program itself: the preloaded library says so
 * through PMON_RUN_FD once MPI_Init has run.  Slurm's
 * SLURM_PROCID and SLURM_NTASKS are not enough: a batch script has them
 * too, and "pmon-run -- mpirun ..." in it is one process on one node;
 * srun alone sets SLURM_STEP_NUM_TASKS for its tasks.  *RANK receives the
 * rank when a variable gives it, else -1. */
static const char *mpi_launcher(char *buf, size_t size, long *rank)
{
  static const char *const sizes[][2] = {
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, /* Open MPI */
    {"PMI_SIZE", "PMI_RANK"},                         /* Hydra: MPICH, Intel */
    {"MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"},   /* MVAPICH2 */
    {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID"},         /* srun */
  };
  static const char *const ranks[] = {
    "PMIX_RANK",       /* PMIx: Open MPI 5, srun --mpi=pmix */
    "PMI_RANK",        /* PMI-1 and PMI-2 */
    "MPI_LOCALRANKID", /* Hydra: MPICH, Intel MPI (the rank on its node) */
    "PALS_RANKID",     /* HPE Cray PALS (mpiexec on a Cray EX under PBS) */
    "ALPS_APP_PE",     /* Cray ALPS (aprun) */
  };
  const char *v, *r;

  *rank = -1;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if ((v = getenv(sizes[i][0])) == NULL || *v == '\0')
      continue;
    if (strtol(v, NULL, 10) <= 1)
      return NULL;
    if ((r = getenv(sizes[i][1])) != NULL && *r != '\0')
      *rank = strtol(r, NULL, 10);
    snprintf(buf, size, "%s=%s", sizes[i][0], v);
    return buf;
  }
  for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
    if ((v = getenv(ranks[i])) != NULL && *v != '\0') {
      *rank = strtol(v, NULL, 10);
      snprintf(buf, size, "%s=%s", ranks[i], v);
      return buf;
    }
  return NULL;
}

/* Whether COMMAND is an MPI launcher (by its name): measured as a command,
 * its ranks measured too through the preload, the node's energy would be
 * claimed twice and two reports written. */
static int is_launcher(const char *command)
{
  static const char *const names[] = {
    "mpirun", "mpiexec", "orterun", "mpiexec.hydra", "mpirun.openmpi",
    "mpiexec.openmpi", "mpirun.mpich", "mpiexec.mpich", "srun", "aprun",
    "prun", "jsrun", "mpirun_rsh"};
  const char *base = strrchr(command, '/');

  base = base != NULL ? base + 1 : command;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(base, names[i]) == 0)
      return 1;
  return 0;
}

/* Put the library in front of LD_PRELOAD: 0, 1 when it cannot be read and
 * the command is then to run unmeasured (under an MPI launcher, where each
 * rank would otherwise report itself as a whole job, all to one file), or
 * -1 on an error. */
static int preload(void)
{
  const char *old = getenv("LD_PRELOAD");
  char lib[4096 + 64], how[128], *v;
  long rank;
  int rc;

  find_lib(lib, sizeof lib);
  if (access(lib, R_OK) != 0) {
    int e = errno;

    if (mpi_launcher(how, sizeof how, &rank) != NULL) {
      if (rank <= 0) /* said once, by rank 0 or where ranks are unknown */
        fprintf(stderr,
                "pmon-run: %s: %s: under an MPI launcher (%s) each rank "
                "would report itself as a whole job: not measured\n",
                lib, strerror(e), how);
      return 1;
    }
    fprintf(stderr,
            "pmon-run: %s: %s: an MPI command will be measured as one "
            "process\n",
            lib, strerror(e));
    return 0;
  }
  if (old == NULL || *old == '\0')
    return set("LD_PRELOAD", lib);
  if ((v = malloc(strlen(lib) + strlen(old) + 2)) == NULL)
    return -1;
  sprintf(v, "%s:%s", lib, old);
  rc = set("LD_PRELOAD", v);
  free(v);
  return rc;
}

/* Run the command as it is, in place of pmon-run. */
static int run_unmeasured(char **argv)
{
  int e;

  execvp(argv[0], argv);
  e = errno;
  fprintf(stderr, "pmon-run: %s: cannot run: %s\n", argv[0], strerror(e));
  return e == ENOENT ? 127 : 126;
}

/* Add KV (key=value) to PMON_TAGS, after the tags it already holds;
 * pmon_init checks them. */
static int add_tag(const char *kv)
{
  const char *old = getenv("PMON_TAGS");
  size_t n = (old != NULL ? strlen(old) : 0) + strlen(kv) + 2;
  char *all;
  int rc;

  if (strchr(kv, '=') == NULL || strchr(kv, ',') != NULL) {
    fprintf(stderr, "pmon-run: --tag: \"%s\": not KEY=VALUE (a value "
                    "holds no comma)\n", kv);
    return -1;
  }
  if ((all = malloc(n)) == NULL) {
    fprintf(stderr, "pmon-run: --tag: out of memory\n");
    return -1;
  }
  snprintf(all, n, "%s%s%s", old != NULL ? old : "",
           old != NULL && *old != '\0' ? "," : "", kv);
  rc = set("PMON_TAGS", all);
  free(all);
  return rc;
}

int main(int argc, char **argv)
{
  static const struct option opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"meters", required_argument, NULL, 'm'},
    {"node", required_argument, NULL, 'n'},
    {"quiet", no_argument, NULL, 'q'},
    {"label", required_argument, NULL, 'l'},
    {"tag", required_argument, NULL, 't'},
    {"no-preload", no_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};
  int c, fds[2], measuring, mpi = 0, status = 0, use_preload = 1, done = 0;
  char fdbuf[16];
  pid_t pid;

  while ((c = getopt_long(argc, argv, "+o:m:n:ql:t:hV", opts, NULL)) != -1) {
    switch (c) {
    case 'o':
      if (set("PMON_OUTPUT", optarg) != 0)
        return 2;
      break;
    case 'm':
      if (set("PMON_METERS", optarg) != 0)
        return 2;
      break;
    case 'n':
      if (set("PMON_NODE", optarg) != 0)
        return 2;
      break;
    case 'q':
      if (set("PMON_QUIET", "1") != 0)
        return 2;
      break;
    case 'l':
      if (set("PMON_LABEL", optarg) != 0)
        return 2;
      break;
    case 't':
      if (add_tag(optarg) != 0)
        return 2;
      break;
    case 'P':
      use_preload = 0;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      printf("pmon-run %s\n", pmon_version());
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (optind == argc) {
    fprintf(stderr, "pmon-run: no command given\n");
    usage(stderr);
    return 2;
  }
  if (is_launcher(argv[optind])) {
    const char *base = strrchr(argv[optind], '/');

    fprintf(stderr,
            "pmon-run: %s: an MPI launcher: run pmon-run under it, once per "
            "rank (%s [OPTIONS] pmon-run -- PROGRAM [ARGS]), so that the "
            "job is measured once\n",
            argv[optind], base != NULL ? base + 1 : argv[optind]);
    return 2;
  }
  if (use_preload && (c = preload()) != 0)
    return c > 0 ? run_unmeasured(argv + optind) : 2;
  if (pipe(fds) != 0) {
    fprintf(stderr, "pmon-run: pipe: %s\n", strerror(errno));
    return 2;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);

  /* Whole-process measurement; pmon prints its own line if it fails.
   * Under an MPI launcher it is provisional (each rank's pmon-run runs
   * one, given up when the program turns out to be MPI), so it keeps no
   * spool: the program's node leader writes the node's, at the same
   * path, and N pmon-runs of a node would all write it too. */
  {
    const char *iv = getenv("PMON_SPOOL_INTERVAL");
    char *saved = iv != NULL ? strdup(iv) : NULL, how[128];
    long rank;
    int launched = mpi_launcher(how, sizeof how, &rank) != NULL;

    if (launched && setenv("PMON_SPOOL_INTERVAL", "0", 1) != 0)
      launched = 0;
    measuring = pmon_init() == 0;
    if (launched) { /* the command gets the user's setting */
      if (saved != NULL)
        setenv("PMON_SPOOL_INTERVAL", saved, 1);
      else
        unsetenv("PMON_SPOOL_INTERVAL");
    }
    free(saved);
  }
  /* After our own pmon_init(), which would tell us itself. */
  snprintf(fdbuf, sizeof fdbuf, "%d", fds[1]);
  if (set("PMON_RUN_FD", fdbuf) != 0)
    return 2;
  pid = fork();
  if (pid < 0) {
    fprintf(stderr, "pmon-run: fork: %s\n", strerror(errno));
    return 2;
  }
  if (pid == 0) {
    int e;

    close(fds[0]);
    execvp(argv[optind], argv + optind);
    e = errno;
    fprintf(stderr, "pmon-run: %s: cannot run: %s\n", argv[optind],
            strerror(e));
    if (write(fds[1], "exec\n", 5) < 0)
      _exit(127);
    _exit(e == ENOENT ? 127 : 126);
  }
  child = pid;
  close(fds[1]);
  unsetenv("LD_PRELOAD");
  signal(SIGINT, forward);
  signal(SIGTERM, forward);
  signal(SIGHUP, forward);
  signal(SIGQUIT, forward);

  /* Listen on the pipe until the command says what it is or goes away,
   * and look for its end now and then (it may leave children holding the
   * pipe). */
  while (fds[0] >= 0) {
    struct pollfd p = {.fd = fds[0], .events = POLLIN};

    if (poll(&p, 1, 200) > 0) {
      char buf[64];
      ssize_t n = read(fds[0], buf, sizeof buf - 1);

      if (n > 0) {
        buf[n] = '\0';
        /* "mpi", "self": the command reports itself; "exec": it did
         * not start */
        mpi = strstr(buf, "mpi") != NULL || strstr(buf, "self") != NULL ||
              strstr(buf, "exec") != NULL;
      }
      if (n == 0 || mpi) {
        close(fds[0]);
        fds[0] = -1;
      }
      if (mpi && measuring) {
        pmon__finalize_discard();
        measuring = 0;
      }
    }
    if (waitpid(pid, &status, WNOHANG) == pid) {
      done = 1;
      break;
    }
  }
  while (!done && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  child = 0;
  if (measuring)
    pmon_finalize();
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

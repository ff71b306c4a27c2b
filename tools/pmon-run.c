/*
 * pmon-run - measure a command: pmon-run [options] [--] COMMAND [ARG...]
 *
 * The command runs with libpmon-mpiio.so preloaded.  If it is an MPI
 * program (each rank of "mpirun -n N pmon-run -- ./app"), the preloaded
 * library reports the job at MPI_Finalize and tells us so through the pipe
 * named by PMON_RUN_FD; otherwise pmon-run measures the command as one
 * process on one node and reports it when it ends.  The exit status is the
 * command's (128 + signal when a signal ended it).  See pmon-run(1).
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

static int preload(void)
{
  const char *lib = getenv("PMON_PRELOAD_LIB");
  const char *old = getenv("LD_PRELOAD");
  char *v;
  int rc;

  if (lib == NULL || *lib == '\0')
    lib = PMON_PRELOAD_LIB;
  if (access(lib, R_OK) != 0) {
    fprintf(stderr,
            "pmon-run: %s: %s: an MPI command will be measured as one "
            "process\n",
            lib, strerror(errno));
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

int main(int argc, char **argv)
{
  static const struct option opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"meters", required_argument, NULL, 'm'},
    {"node", required_argument, NULL, 'n'},
    {"quiet", no_argument, NULL, 'q'},
    {"no-preload", no_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};
  int c, fds[2], measuring, mpi = 0, status = 0, use_preload = 1, done = 0;
  char fdbuf[16];
  pid_t pid;

  while ((c = getopt_long(argc, argv, "+o:m:n:qhV", opts, NULL)) != -1) {
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
  if (pipe(fds) != 0) {
    fprintf(stderr, "pmon-run: pipe: %s\n", strerror(errno));
    return 2;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  snprintf(fdbuf, sizeof fdbuf, "%d", fds[1]);
  if (set("PMON_RUN_FD", fdbuf) != 0 || (use_preload && preload() != 0))
    return 2;

  /* Whole-process measurement; pmon prints its own line if it fails. */
  measuring = pmon_init() == 0;
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
        mpi = strstr(buf, "mpi") != NULL || strstr(buf, "exec") != NULL;
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

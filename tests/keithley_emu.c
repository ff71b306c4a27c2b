/*
 * keithley_emu - a pseudo-terminal that plays a Keithley 2701 reading the
 * AC voltage across a shunt, for the tests of the keithley driver.
 *
 *   keithley_emu -l LINK -w WAVE -o ORIGIN_NS [-L VOLTS] [-r OHMS]
 *                [-c FILE] [-i IDN] [-g N] [-O N] [-n N]
 *                [-s AT:FOR] [-x AT] [-b BACK] [-t FILE]
 *
 *   -l LINK   make LINK a symbolic link to the terminal (the driver's
 *             device path); removed at exit
 *   -w WAVE   the power it plays, a tests/wave.h SPEC, from ORIGIN_NS
 *             (-o, CLOCK_MONOTONIC): each READ? answers the shunt volts
 *             VOLTS x V / OHMS = the power at the moment of the query
 *   -L, -r    line volts (230) and shunt ohms (0.01)
 *   -c FILE   where the counts go, at exit and on SIGUSR1 (below)
 *   -i IDN    the answer to *IDN? (a Keithley 2701 by default)
 *   -g, -O, -n N   every Nth reading is garbage, the overflow +9.9E37,
 *             or negative (garbage first, then overflow, when they meet)
 *   -s AT:FOR from AT seconds after the first READ? on, read and drop
 *             everything for FOR seconds (a stalled instrument)
 *   -x AT     at AT seconds after the first READ?, vanish: close the
 *             terminal and remove LINK (SIGUSR2 does it at once)
 *   -b BACK   come back BACK seconds after vanishing, on a new terminal
 *             with LINK made again
 *   -t FILE   log each READ? answered: "NS WATTS" a line, the instant
 *             (CLOCK_MONOTONIC) its value was taken and the power it
 *             stands for, so that a test can hold each stamp of the
 *             driver's to the instant its value truly held
 *
 * It speaks the SCPI subset the driver uses: *IDN?, *RST, *CLS, *OPC?,
 * :SYST:ERR?, :SENS:FUNC, the :SENS:VOLT:AC settings, :FORM:ELEM,
 * :INIT:CONT, :TRIG:SOUR, :TRIG:COUN, :SAMP:COUN and READ?, commands ended
 * by CR or LF, several in a line separated by ';'.  An unknown command
 * puts -113 in the error queue.  As after *RST, READ? measures DC volts (0
 * across an AC shunt) until :SENS:FUNC 'VOLT:AC', and answers the long
 * format until :FORM:ELEM READ.
 *
 * The count file holds "KEY VALUE" lines: readings (READ? answered),
 * queries (all answered), idn, garbage, overflow, negative, and the
 * CLOCK_MONOTONIC ns of first_read, vanished, returned, stall_from and
 * stall_to (0 when it did not happen).  It prints nothing; exit status 0
 * on SIGTERM or SIGINT, 1 on trouble, 2 on bad usage.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "wave.h"

#define CMD_MAX 512

struct emu {
  const char *link, *count_file, *idn;
  FILE *log; /* -t */
  struct wave wave;
  long long origin;
  double line, shunt;
  long every_garbage, every_overflow, every_negative;
  double stall_at, stall_for, vanish_at, back;
  int master, slave; /* -1 while vanished */
  char cmd[CMD_MAX];
  size_t ncmd;
  /* The instrument's state. */
  int volt_ac, bare, errors[16], nerrors;
  /* Counts and instants. */
  long readings, queries, idns, garbage, overflow, negative;
  long long first_read, vanished, returned, stall_from, stall_to;
};

static volatile sig_atomic_t got_term, got_usr1, got_usr2;

static void on_signal(int sig)
{
  if (sig == SIGUSR1)
    got_usr1 = 1;
  else if (sig == SIGUSR2)
    got_usr2 = 1;
  else
    got_term = 1;
}

static long long now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void write_counts(const struct emu *e)
{
  char tmp[4096];
  FILE *f;

  if (e->count_file == NULL)
    return;
  snprintf(tmp, sizeof tmp, "%s.tmp", e->count_file);
  if ((f = fopen(tmp, "w")) == NULL)
    return;
  fprintf(f,
          "readings %ld\nqueries %ld\nidn %ld\ngarbage %ld\noverflow %ld\n"
          "negative %ld\nfirst_read %lld\nvanished %lld\nreturned %lld\n"
          "stall_from %lld\nstall_to %lld\n",
          e->readings, e->queries, e->idns, e->garbage, e->overflow,
          e->negative, e->first_read, e->vanished, e->returned,
          e->stall_from, e->stall_to);
  fclose(f);
  rename(tmp, e->count_file);
}

/* A new terminal, raw, with LINK pointing at it.  0, or -1. */
static int appear(struct emu *e)
{
  char tmp[4096];
  struct termios t;
  const char *name;

  e->master = posix_openpt(O_RDWR | O_NOCTTY);
  /* Non-blocking: an answer nobody reads is lost, never waited on. */
  if (e->master < 0 || fcntl(e->master, F_SETFL, O_NONBLOCK) != 0 ||
      grantpt(e->master) != 0 ||
      unlockpt(e->master) != 0 || (name = ptsname(e->master)) == NULL)
    return -1;
  /* Holding the other end open keeps the terminal alive while the driver
   * closes and opens it again. */
  if ((e->slave = open(name, O_RDWR | O_NOCTTY)) < 0 ||
      tcgetattr(e->slave, &t) != 0)
    return -1;
  cfmakeraw(&t);
  if (tcsetattr(e->slave, TCSANOW, &t) != 0)
    return -1;
  snprintf(tmp, sizeof tmp, "%s.new", e->link);
  unlink(tmp);
  if (symlink(name, tmp) != 0 || rename(tmp, e->link) != 0)
    return -1;
  return 0;
}

static void vanish(struct emu *e)
{
  unlink(e->link);
  if (e->master >= 0)
    close(e->master);
  if (e->slave >= 0)
    close(e->slave);
  e->master = e->slave = -1;
  e->ncmd = 0;
  e->vanished = now_ns();
}

static void reset(struct emu *e)
{
  e->volt_ac = 0;
  e->bare = 0;
}

static void push_error(struct emu *e, int code)
{
  if (e->nerrors < (int)(sizeof e->errors / sizeof e->errors[0]))
    e->errors[e->nerrors++] = code;
}

static void answer(struct emu *e, const char *text)
{
  char out[256];
  int n = snprintf(out, sizeof out, "%s\r\n", text);

  e->queries++;
  if (write(e->master, out, (size_t)n) != n)
    push_error(e, -363); /* input buffer overrun, as near as it gets */
}

static void reading(struct emu *e)
{
  long long now = now_ns();
  long k = ++e->readings;
  double watts = wave_power(&e->wave, (double)(now - e->origin) * 1e-9);
  double volts = e->volt_ac ? watts * e->shunt / e->line : 0;
  char text[128];

  if (e->first_read == 0)
    e->first_read = now;
  if (e->every_garbage > 0 && k % e->every_garbage == 0) {
    e->garbage++;
    answer(e, "#%&GARBLED\x7f");
    return;
  }
  if (e->every_overflow > 0 && k % e->every_overflow == 0) {
    e->overflow++;
    volts = 9.9e37;
  } else if (e->every_negative > 0 && k % e->every_negative == 0) {
    e->negative++;
    volts = -volts - 1e-3;
  }
  if (e->log != NULL)
    fprintf(e->log, "%lld %.9g\n", now, watts);
  if (e->bare)
    snprintf(text, sizeof text, "%+.8E", volts);
  else
    snprintf(text, sizeof text, "%+.8E%s,%+.3fSECS,%+ldRDNG#", volts,
             e->volt_ac ? "VAC" : "VDC", (double)(now - e->origin) * 1e-9,
             k);
  answer(e, text);
}

/* Whether HEAD (upper case, no leading ':') is one of the settings the
 * emulator accepts and ignores. */
static int setting(const char *head)
{
  static const char *const known[] = {
    "SENS:VOLT:AC:RANG",     "SENS:VOLT:AC:RANG:AUTO", "SENS:VOLT:AC:NPLC",
    "SENS:VOLT:AC:DET:BAND", "INIT:CONT",              "TRIG:SOUR",
    "TRIG:COUN",             "SAMP:COUN",
  };

  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(head, known[i]) == 0)
      return 1;
  return 0;
}

static void command(struct emu *e, char *c)
{
  char head[64], *arg;
  size_t n;

  c += strspn(c, " \t");
  if (*c == ':')
    c++;
  if (*c == '\0')
    return;
  n = strcspn(c, " \t");
  if (n >= sizeof head) {
    push_error(e, -113);
    return;
  }
  for (size_t i = 0; i < n; i++)
    head[i] = (char)(c[i] >= 'a' && c[i] <= 'z' ? c[i] - 32 : c[i]);
  head[n] = '\0';
  arg = c + n + strspn(c + n, " \t");
  if (strcmp(head, "*IDN?") == 0) {
    e->idns++;
    answer(e, e->idn);
  } else if (strcmp(head, "*RST") == 0) {
    reset(e);
  } else if (strcmp(head, "*CLS") == 0) {
    e->nerrors = 0;
  } else if (strcmp(head, "*OPC?") == 0) {
    answer(e, "1");
  } else if (strcmp(head, "SYST:ERR?") == 0) {
    char text[64];

    if (e->nerrors == 0) {
      answer(e, "0,\"No error\"");
      return;
    }
    snprintf(text, sizeof text, "%d,\"%s\"", e->errors[0],
             e->errors[0] == -113 ? "Undefined header" : "Error");
    memmove(e->errors, e->errors + 1, sizeof e->errors[0] * (size_t)--e->nerrors);
    answer(e, text);
  } else if (strcmp(head, "SENS:FUNC") == 0) {
    if (strcasecmp(arg, "'VOLT:AC'") == 0 || strcasecmp(arg, "\"VOLT:AC\"") == 0)
      e->volt_ac = 1;
    else
      push_error(e, -224); /* illegal parameter value */
  } else if (strcmp(head, "FORM:ELEM") == 0) {
    e->bare = strcasecmp(arg, "READ") == 0;
  } else if (strcmp(head, "READ?") == 0) {
    reading(e);
  } else if (!setting(head)) {
    push_error(e, -113);
  }
}

/* Take the bytes waiting on the terminal; act on each whole line. */
static void take_input(struct emu *e, long long now)
{
  char chunk[256];
  ssize_t n = read(e->master, chunk, sizeof chunk);

  if (n <= 0)
    return;
  if (now < e->stall_to)
    return; /* stalled: what comes in is lost */
  for (ssize_t i = 0; i < n; i++) {
    char ch = chunk[i];

    if (ch != '\r' && ch != '\n') {
      if (e->ncmd < CMD_MAX - 1)
        e->cmd[e->ncmd++] = ch;
      continue;
    }
    e->cmd[e->ncmd] = '\0';
    for (char *save = NULL, *c = strtok_r(e->cmd, ";", &save); c != NULL;
         c = strtok_r(NULL, ";", &save))
      command(e, c);
    e->ncmd = 0;
  }
}

static int usage(void)
{
  fprintf(stderr,
          "usage: keithley_emu -l LINK -w WAVE -o ORIGIN_NS [-L VOLTS] "
          "[-r OHMS]\n"
          "         [-c FILE] [-i IDN] [-g N] [-O N] [-n N] [-s AT:FOR] "
          "[-x AT] [-b BACK] [-t FILE]\n");
  return 2;
}

int main(int argc, char **argv)
{
  struct emu e = {
    .idn = "KEITHLEY INSTRUMENTS INC.,MODEL 2701,0000000,A01  /A01",
    .line = 230,
    .shunt = 0.01,
    .master = -1,
    .slave = -1,
    .stall_at = -1,
    .vanish_at = -1,
    .back = -1,
  };
  const char *wave = NULL;
  struct sigaction sa;
  int opt, stalled = 0, gone = 0;

  while ((opt = getopt(argc, argv, "l:w:o:L:r:c:i:g:O:n:s:x:b:t:")) != -1) {
    switch (opt) {
    case 'l': e.link = optarg; break;
    case 'w': wave = optarg; break;
    case 'o': e.origin = atoll(optarg); break;
    case 'L': e.line = atof(optarg); break;
    case 'r': e.shunt = atof(optarg); break;
    case 'c': e.count_file = optarg; break;
    case 'i': e.idn = optarg; break;
    case 'g': e.every_garbage = atol(optarg); break;
    case 'O': e.every_overflow = atol(optarg); break;
    case 'n': e.every_negative = atol(optarg); break;
    case 's':
      if (sscanf(optarg, "%lf:%lf", &e.stall_at, &e.stall_for) != 2)
        return usage();
      break;
    case 'x': e.vanish_at = atof(optarg); break;
    case 'b': e.back = atof(optarg); break;
    case 't':
      if ((e.log = fopen(optarg, "w")) == NULL) {
        perror(optarg);
        return 1;
      }
      setvbuf(e.log, NULL, _IOLBF, 0);
      break;
    default: return usage();
    }
  }
  if (e.link == NULL || wave == NULL || wave_parse(wave, &e.wave) != 0 ||
      e.origin <= 0 || e.line <= 0 || e.shunt <= 0 || optind != argc)
    return usage();
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns at once */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
  if (appear(&e) != 0) {
    perror("keithley_emu: a pseudo-terminal");
    return 1;
  }
  while (!got_term) {
    struct pollfd pfd = {e.master, POLLIN, 0};
    long long now = now_ns();
    double since = e.first_read ? (double)(now - e.first_read) * 1e-9 : -1;

    if (got_usr1) {
      got_usr1 = 0;
      write_counts(&e);
    }
    if (!stalled && e.stall_at >= 0 && since >= e.stall_at) {
      stalled = 1;
      e.stall_from = now;
      e.stall_to = now + (long long)(e.stall_for * 1e9);
    }
    if (!gone && (got_usr2 || (e.vanish_at >= 0 && since >= e.vanish_at))) {
      gone = 1;
      vanish(&e);
    }
    if (e.master < 0 && e.back >= 0 && e.returned == 0 &&
        now >= e.vanished + (long long)(e.back * 1e9)) {
      if (appear(&e) != 0) {
        perror("keithley_emu: a pseudo-terminal again");
        return 1;
      }
      e.returned = now_ns();
    }
    /* Short naps: the scheduled events above are seen within 5 ms. */
    if (poll(&pfd, e.master >= 0 ? 1 : 0, 5) > 0 && (pfd.revents & POLLIN))
      take_input(&e, now_ns());
  }
  write_counts(&e);
  if (e.master >= 0)
    unlink(e.link);
  return 0;
}

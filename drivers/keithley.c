/*
 * keithley.c - a Keithley bench multimeter that reads the AC voltage across
 * a shunt resistor in a node's mains feed, SCPI over a serial line.
 *
 * Hardware: the Keithley 2000 and the 27xx family (2700, 2701, 2750),
 * whose SCPI commands for AC volts agree (research notes section 3), on
 * RS-232 through a USB adapter or a real port.  Written against the
 * manuals and a pseudo-terminal that plays the instrument
 * (tests/keithley_emu.c); not yet run on an instrument.
 *
 * Units: the instrument reads the shunt's RMS voltage in volts.  Power is
 * line volts x shunt volts / shunt ohms: APPARENT power, volt-amperes
 * reported as watts, which overstates real power by the load's power
 * factor.  A sampled meter; nothing wraps.
 *
 * No stale limit (m->stale_s stays 0): each READ? triggers a new
 * measurement, so the instrument has no published value to freeze, and
 * one that stops measuring stops answering, which is a failed read.
 *
 * Each reading is one READ? (trigger, measure, answer) on a raw 8N1 line.
 * Every wait is a poll(2) bounded by the meter's timeout.  A timeout, an
 * I/O error or a hang-up closes the line; later reads open it again, one
 * handshake step at a time (*IDN? check, then the set-up), so the meter
 * comes back with the instrument.  The first reading after that carries
 * PMON_EV_RESET: the interval before it was not measured.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pmon.h"
#include "driver.h"
#include "log.h"
#include "env.h"

#define IDN_WAIT_S 0.5   /* how long the answer to *IDN? may take */
#define SETUP_WAIT_S 2.0 /* and the set-up, *RST included */
#define REPLY_MAX 256   /* the longest reply kept, with its NUL */
#define QUERY_BITS 230  /* "READ?" and its answer: 23 characters of 10 bits */
#define OVERFLOW_V 1e37 /* the instrument's overflow reading is +9.9E37 */

static const struct {
  unsigned baud;
  speed_t speed;
} bauds[] = {
  {300, B300},     {600, B600},     {1200, B1200},   {2400, B2400},
  {4800, B4800},   {9600, B9600},   {19200, B19200}, {38400, B38400},
  {57600, B57600}, {115200, B115200},
};
#define NBAUDS (sizeof bauds / sizeof bauds[0])

/* What *IDN? must name, after "KEITHLEY": the models whose commands are
 * the ones sent below. */
static const char *const models[] = {"MODEL 2000", "MODEL 2700", "MODEL 2701",
                                     "MODEL 2750"};
#define NMODELS (sizeof models / sizeof models[0])

/* Line terminators the instrument may be set to accept. */
static const struct {
  const char *name, *eol;
} eols[] = {{"cr", "\r"}, {"lf", "\n"}, {"crlf", "\r\n"}};
#define NEOLS (sizeof eols / sizeof eols[0])

/* Where the line stands: each state waits for one answer, except READY. */
enum line_state { LINE_CLOSED, LINE_IDN, LINE_SETUP, LINE_READY };

/* Why a reading was rejected: never 0, which is a good reading. */
enum { REJ_GARBAGE = 1, REJ_OVERFLOW, REJ_NEGATIVE, REJ_N };
static const char *const rej_names[REJ_N] = {NULL, "not a number",
                                             "overflow", "negative"};

struct kt_priv {
  const char *path;     /* m->spec.path */
  speed_t speed;
  int xonxoff;
  const char *eol;
  double shunt, line;   /* ohms, volts */
  double range;         /* AC volts range, 0 for auto */
  double nplc;          /* integration time, power-line cycles */
  int band;             /* AC detector bandwidth, Hz */
  double timeout;       /* seconds one read() may take */
  int fd;               /* -1 while LINE_CLOSED */
  enum line_state state;
  uint64_t since_ns;    /* when the answer awaited was asked for */
  uint64_t lost_ns;     /* when the line was lost, 0 when it was not */
  char idn[REPLY_MAX];  /* the first *IDN? answer: a re-open wants it */
  char buf[REPLY_MAX];  /* bytes received, not yet a whole reply */
  size_t nbuf;
  unsigned long rejected[REJ_N];
};

static uint64_t now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* TEXT made printable, at most 40 characters, into OUT (>= 44 bytes). */
static const char *quote(const char *text, char *out)
{
  size_t i;

  for (i = 0; text[i] != '\0' && i < 40; i++)
    out[i] = isprint((unsigned char)text[i]) ? text[i] : '?';
  strcpy(out + i, text[i] != '\0' ? "..." : "");
  return out;
}

/*
 * Classify one reading: 0 and *VOLTS, or REJ_*.  A reading is a number,
 * optionally followed by the unit VAC and by more comma-separated fields
 * that start as numbers (the instrument's long format), e.g.
 * "+1.23456789E-03" or "+1.23456789E-03VAC,+11.664SECS,+236RDNG#".
 */
static int parse_reading(const char *text, double *volts)
{
  const char *p = text;
  char *end;
  double v;

  if (!(*p == '+' || *p == '-' || *p == '.' || isdigit((unsigned char)*p)))
    return REJ_GARBAGE;
  errno = 0;
  v = strtod(p, &end);
  if (end == p || isnan(v))
    return REJ_GARBAGE;
  if (strncmp(end, "VAC", 3) == 0)
    end += 3;
  if (*end == ',') { /* more fields: numbers with units, "+11.664SECS" */
    const char *f = end + 1 + strspn(end + 1, " ");

    if (!(*f == '+' || *f == '-' || isdigit((unsigned char)*f)))
      return REJ_GARBAGE;
  } else if (*end != '\0') {
    return REJ_GARBAGE;
  }
  if (errno == ERANGE && fabs(v) > 1)
    return REJ_OVERFLOW;
  if (fabs(v) >= OVERFLOW_V || isinf(v))
    return REJ_OVERFLOW;
  if (v < 0)
    return REJ_NEGATIVE;
  *volts = v;
  return 0;
}

/* The power that a shunt voltage means: apparent power, watts. */
static double power_of(const struct kt_priv *kp, double volts)
{
  return kp->line * volts / kp->shunt;
}

static void line_close(struct kt_priv *kp)
{
  if (kp->fd >= 0)
    close(kp->fd);
  kp->fd = -1;
  kp->state = LINE_CLOSED;
  kp->nbuf = 0;
  kp->buf[0] = '\0';
}

/* Close the line after trouble in a reading: the next good reading says
 * that the time since was not measured. */
static void line_lost(struct kt_priv *kp)
{
  line_close(kp);
  if (kp->lost_ns == 0)
    kp->lost_ns = now_ns();
}

/* Milliseconds to DEADLINE, rounded up; 0 when it has passed. */
static int ms_left(uint64_t deadline)
{
  uint64_t now = now_ns();

  return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

/* Send CMD and the terminator by DEADLINE.  0, or a failure recorded. */
static int send_cmd(struct kt_priv *kp, const char *cmd, uint64_t deadline)
{
  char out[REPLY_MAX * 2];
  size_t len, done = 0;

  len = (size_t)snprintf(out, sizeof out, "%s%s", cmd, kp->eol);
  while (done < len) {
    struct pollfd pfd = {kp->fd, POLLOUT, 0};
    ssize_t n = write(kp->fd, out + done, len - done);

    if (n > 0) {
      done += (size_t)n;
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR)
      return pmon__fail(PMON_EIO, "keithley: %s: write: %s", kp->path,
                        errno == EIO ? "the line hung up" : strerror(errno));
    if (poll(&pfd, 1, ms_left(deadline)) == 0)
      return pmon__fail(PMON_EAGAIN,
                        "keithley: %s: write: the line takes no more "
                        "characters (flow control?)",
                        kp->path);
  }
  return 0;
}

/*
 * The next non-empty reply, ended by CR or LF, into OUT (REPLY_MAX bytes),
 * waiting until DEADLINE.  XON and XOFF characters are dropped.  0, or
 * PMON_EAGAIN when nothing whole came in time (what came is kept for the
 * next call), or another failure; each recorded, naming WHAT was asked.
 */
static int get_reply(struct kt_priv *kp, const char *what, char *out,
                     uint64_t deadline)
{
  for (;;) {
    struct pollfd pfd = {kp->fd, POLLIN, 0};
    char chunk[REPLY_MAX];
    ssize_t n;
    size_t end;
    int rc;

    end = strcspn(kp->buf, "\r\n");
    if (end < kp->nbuf) {
      memcpy(out, kp->buf, end);
      out[end] = '\0';
      while (end < kp->nbuf && (kp->buf[end] == '\r' || kp->buf[end] == '\n'))
        end++;
      kp->nbuf -= end;
      memmove(kp->buf, kp->buf + end, kp->nbuf + 1);
      if (out[0] != '\0')
        return 0;
      continue;
    }
    if (kp->nbuf == REPLY_MAX - 1) {
      kp->nbuf = 0;
      kp->buf[0] = '\0';
      return pmon__fail(PMON_EFORMAT,
                        "keithley: %s: %s: answer longer than %d bytes",
                        kp->path, what, REPLY_MAX - 1);
    }
    rc = poll(&pfd, 1, ms_left(deadline));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc == 0)
      return pmon__fail(PMON_EAGAIN, "keithley: %s: %s: no answer in time",
                        kp->path, what);
    n = read(kp->fd, chunk, REPLY_MAX - 1 - kp->nbuf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      continue;
    if ((n < 0 && errno == EIO) ||
        (n == 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))))
      return pmon__fail(PMON_EIO, "keithley: %s: %s: the line hung up",
                        kp->path, what);
    if (n < 0)
      return pmon__fail(PMON_EIO, "keithley: %s: %s: read: %s", kp->path,
                        what, strerror(errno));
    for (ssize_t i = 0; i < n; i++)
      if (chunk[i] != 0x11 && chunk[i] != 0x13 && chunk[i] != '\0')
        kp->buf[kp->nbuf++] = chunk[i];
    kp->buf[kp->nbuf] = '\0';
  }
}

/* Open the line, set it up raw, and ask *IDN? by DEADLINE.  0, or a
 * failure recorded. */
static int line_open(struct kt_priv *kp, uint64_t deadline)
{
  struct termios t;
  int e;

  kp->fd = open(kp->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (kp->fd < 0) {
    e = errno;
    return pmon__fail(e == ENOENT ? PMON_ENOMETER : PMON_EIO,
                      "keithley: %s: cannot open: %s", kp->path, strerror(e));
  }
  if (flock(kp->fd, LOCK_EX | LOCK_NB) != 0) {
    e = errno;
    line_close(kp);
    return pmon__fail(PMON_EIO, "keithley: %s: cannot lock: %s", kp->path,
                      e == EWOULDBLOCK ? "in use by another process"
                                       : strerror(e));
  }
  if (tcgetattr(kp->fd, &t) != 0) {
    e = errno;
    line_close(kp);
    return pmon__fail(PMON_ENOMETER, "keithley: %s: not a serial line: %s",
                      kp->path, strerror(e));
  }
  t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR |
                           IGNCR | ICRNL | IXON | IXOFF | IXANY | INPCK);
  if (kp->xonxoff)
    t.c_iflag |= IXON | IXOFF;
  t.c_oflag &= ~(tcflag_t)OPOST;
  t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
  t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
  t.c_cflag |= CS8 | CREAD | CLOCAL;
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  cfsetispeed(&t, kp->speed);
  cfsetospeed(&t, kp->speed);
  if (tcsetattr(kp->fd, TCSANOW, &t) != 0) {
    e = errno;
    line_close(kp);
    return pmon__fail(PMON_EIO, "keithley: %s: cannot set the line up: %s",
                      kp->path, strerror(e));
  }
  tcflush(kp->fd, TCIOFLUSH);
  kp->state = LINE_IDN;
  kp->since_ns = now_ns();
  return send_cmd(kp, "*IDN?", deadline);
}

/* The set-up for AC volts, one reading per trigger, bare readings, ended
 * by a query of the error queue that answers when all of it is done. */
static int send_setup(struct kt_priv *kp, uint64_t deadline)
{
  char range[64], nplc[64], band[64];
  const char *cmds[] = {
    "*RST", "*CLS", ":SENS:FUNC 'VOLT:AC'", range, nplc, band,
    ":FORM:ELEM READ", ":INIT:CONT OFF", ":TRIG:SOUR IMM", ":TRIG:COUN 1",
    ":SAMP:COUN 1", ":SYST:ERR?",
  };
  int rc = 0;

  if (kp->range > 0)
    snprintf(range, sizeof range, ":SENS:VOLT:AC:RANG %g", kp->range);
  else
    snprintf(range, sizeof range, ":SENS:VOLT:AC:RANG:AUTO ON");
  snprintf(nplc, sizeof nplc, ":SENS:VOLT:AC:NPLC %.2f", kp->nplc);
  snprintf(band, sizeof band, ":SENS:VOLT:AC:DET:BAND %d", kp->band);
  for (size_t i = 0; rc == 0 && i < sizeof cmds / sizeof cmds[0]; i++)
    rc = send_cmd(kp, cmds[i], deadline);
  return rc;
}

/* Whether the *IDN? answer names a model this driver knows. */
static int known_model(const char *idn)
{
  char up[REPLY_MAX];
  size_t i;

  for (i = 0; idn[i] != '\0'; i++)
    up[i] = (char)toupper((unsigned char)idn[i]);
  up[i] = '\0';
  if (strstr(up, "KEITHLEY") == NULL)
    return 0;
  for (i = 0; i < NMODELS; i++)
    if (strstr(up, models[i]) != NULL)
      return 1;
  return 0;
}

/*
 * Drive the handshake towards LINE_READY, waiting until DEADLINE at most.
 * 0 when ready; PMON_EAGAIN when an answer is still awaited and may come
 * in a later call (IDN_WAIT_S or SETUP_WAIT_S after its question); any
 * other failure, recorded, closes the line.
 */
static int handshake(struct kt_priv *kp, uint64_t deadline)
{
  char reply[REPLY_MAX], q[48];
  int rc;

  for (;;) {
    const char *what;
    double wait;
    uint64_t limit;

    if (kp->state == LINE_READY)
      return 0;
    if (kp->state == LINE_CLOSED) {
      if ((rc = line_open(kp, deadline)) != 0) {
        line_close(kp);
        return rc;
      }
      continue;
    }
    what = kp->state == LINE_IDN ? "*IDN?" : "the set-up";
    wait = kp->state == LINE_IDN ? IDN_WAIT_S : SETUP_WAIT_S;
    limit = kp->since_ns + (uint64_t)(wait * 1e9);
    rc = get_reply(kp, what, reply, deadline < limit ? deadline : limit);
    if (rc == PMON_EAGAIN) {
      if (now_ns() < limit)
        return rc;
      line_close(kp);
      return pmon__fail(PMON_EIO, "keithley: %s: no answer to %s within %g s",
                        kp->path, what, wait);
    }
    if (rc != 0) {
      line_close(kp);
      return rc;
    }
    if (kp->state == LINE_IDN) {
      if (!known_model(reply)) {
        line_close(kp);
        return pmon__fail(PMON_ENOMETER,
                          "keithley: %s: *IDN? answered \"%s\": not a "
                          "Keithley 2000, 2700, 2701 or 2750",
                          kp->path, quote(reply, q));
      }
      /* The path may now name another instrument (a USB adapter's
       * number given to another one): its figures are not this node's. */
      if (kp->idn[0] != '\0' && strcmp(reply, kp->idn) != 0) {
        line_close(kp);
        return pmon__fail(PMON_ENOMETER,
                          "keithley: %s: *IDN? answered \"%s\": another "
                          "instrument than the one opened",
                          kp->path, quote(reply, q));
      }
      strcpy(kp->idn, reply);
      if ((rc = send_setup(kp, deadline)) != 0) {
        line_close(kp);
        return rc;
      }
      kp->state = LINE_SETUP;
      kp->since_ns = now_ns();
    } else {
      /* "0,\"No error\"" on the 2000 and 27xx, "+0,..." on others. */
      if (strtol(reply, NULL, 10) != 0 || strchr(reply, ',') == NULL) {
        line_close(kp);
        return pmon__fail(PMON_EIO,
                          "keithley: %s: set-up refused: the error queue "
                          "says \"%s\"",
                          kp->path, quote(reply, q));
      }
      kp->state = LINE_READY;
    }
  }
}

/* The index in NAMES (N of them) of parameter KEY into *INDEX; DEF when
 * absent.  0, or PMON_ECONFIG recorded. */
static int spec_choice(const struct pmon_spec *spec, const char *key,
                       const char *const *names, size_t n, size_t def,
                       size_t *index)
{
  const char *v = pmon__spec_get(spec, key);
  char list[128] = "";

  *index = def;
  if (v == NULL)
    return 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(v, names[i]) == 0) {
      *index = i;
      return 0;
    }
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             i == 0 ? "" : (i + 1 == n ? " or " : ", "), names[i]);
  }
  return pmon__fail(PMON_ECONFIG, "%s: meter \"%s\": %s=%s: expected %s",
                    PMON_ENV_METERS, spec->text, key, v, list);
}

/* Read the parameters of M into KP.  0, or PMON_ECONFIG recorded. */
static int kt_params(struct pmon_meter *m, struct kt_priv *kp)
{
  static const char *const keys[] = {"shunt", "line",    "baud",
                                     "range", "rate",    "timeout",
                                     "band",  "flow",    "eol",
                                     NULL};
  static const char *const flows[] = {"none", "xonxoff"};
  static const char *const bands[] = {"3", "30", "300"};
  const char *eol_names[NEOLS];
  const struct pmon_spec *spec = &m->spec;
  double baud, rate, max_rate, min_timeout;
  size_t i, k;
  int rc;

  if ((rc = pmon__spec_check_keys(spec, keys)) != 0)
    return rc;
  if (spec->path[0] == '\0' || pmon__spec_get(spec, "shunt") == NULL ||
      pmon__spec_get(spec, "line") == NULL)
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": expected "
                      "keithley:DEVICE?shunt=OHMS&line=VOLTS[&...]",
                      PMON_ENV_METERS, spec->text);
  kp->path = spec->path;
  if ((rc = pmon__spec_double(spec, "shunt", 0, 1e-6, 1e3, &kp->shunt)) ||
      (rc = pmon__spec_double(spec, "line", 0, 1, 1000, &kp->line)) ||
      (rc = pmon__spec_double(spec, "baud", 9600, 300, 115200, &baud)) ||
      (rc = pmon__spec_double(spec, "rate", 1, 0.01, 60, &rate)))
    return rc;
  for (i = 0; i < NBAUDS && bauds[i].baud != baud; i++)
    ;
  if (i == NBAUDS)
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": baud=%g: expected 300, 600, 1200, "
                      "2400, 4800, 9600, 19200, 38400, 57600 or 115200",
                      PMON_ENV_METERS, spec->text, baud);
  kp->speed = bauds[i].speed;
  max_rate = baud / QUERY_BITS;
  if (rate > max_rate)
    return pmon__fail(PMON_ECONFIG,
                      "%s: meter \"%s\": rate=%g: %g baud carries at most "
                      "%.0f readings a second",
                      PMON_ENV_METERS, spec->text, rate, baud,
                      floor(max_rate));
  m->interval_s = 1 / rate;
  /* Long enough for the characters, never past the next reading. */
  min_timeout = QUERY_BITS / baud;
  if ((rc = pmon__spec_double(spec, "timeout",
                              fmax(min_timeout,
                                   fmin(1.0, 0.8 * m->interval_s)),
                              min_timeout, m->interval_s,
                              &kp->timeout)) != 0)
    return rc;
  if (pmon__spec_get(spec, "range") != NULL &&
      strcmp(pmon__spec_get(spec, "range"), "auto") == 0)
    kp->range = 0;
  else if ((rc = pmon__spec_double(spec, "range", 0, 0.001, 757.5,
                                   &kp->range)) != 0)
    return rc;
  if ((rc = spec_choice(spec, "flow", flows, 2, 0, &k)) != 0)
    return rc;
  kp->xonxoff = k == 1;
  if ((rc = spec_choice(spec, "band", bands, 3, 1, &k)) != 0)
    return rc;
  kp->band = atoi(bands[k]);
  for (i = 0; i < NEOLS; i++)
    eol_names[i] = eols[i].name;
  if ((rc = spec_choice(spec, "eol", eol_names, NEOLS, 0, &k)) != 0)
    return rc;
  kp->eol = eols[k].eol;
  /* Integrate for at most a quarter of the interval (at 50 Hz mains). */
  kp->nplc = fmax(0.01, fmin(1.0, 12.5 / rate));
  return 0;
}

/* A serial meter is never found by looking: it must be named. */
static int kt_probe(const struct pmon_spec *spec)
{
  return pmon__fail(PMON_ENOMETER,
                    "keithley: not probed: name the serial line in %s",
                    PMON_ENV_METERS);
}

static int kt_open(struct pmon_meter *m)
{
  struct kt_priv *kp = m->priv;
  uint64_t deadline;
  int rc;

  kp->fd = -1;
  if ((rc = kt_params(m, kp)) != 0)
    return rc;
  /* Past the limits of both steps: each waits until its own. */
  deadline = now_ns() + (uint64_t)((IDN_WAIT_S + SETUP_WAIT_S + 1) * 1e9);
  if ((rc = handshake(kp, deadline)) == PMON_EAGAIN) {
    line_close(kp);
    rc = pmon__fail(PMON_EIO, "keithley: %s: no answer in time", kp->path);
  }
  if (rc != 0)
    return rc;
  pmon__meter_add_channel(m, "node", PMON_DOM_NODE, PMON_CH_TOTAL, 1.0, 0);
  return 0;
}

static int kt_read(struct pmon_meter *m, struct pmon_reading *r)
{
  struct kt_priv *kp = m->priv;
  uint64_t deadline = now_ns() + (uint64_t)(kp->timeout * 1e9);
  char reply[REPLY_MAX], q[48];
  double volts = 0;
  int rc, why;

  /* A handshake step takes this whole read: the reading waits for the
   * next period, so that its time stamp is that of its measurement. */
  if (kp->state != LINE_READY) {
    if ((rc = handshake(kp, deadline)) != 0)
      return rc;
    return pmon__fail(PMON_EAGAIN,
                      "keithley: %s: set up again: reading from the next "
                      "period on",
                      kp->path);
  }
  tcflush(kp->fd, TCIFLUSH); /* a late answer must not pass for this one */
  kp->nbuf = 0;
  kp->buf[0] = '\0';
  if ((rc = send_cmd(kp, "READ?", deadline)) == 0)
    rc = get_reply(kp, "READ?", reply, deadline);
  if (rc != 0) {
    line_lost(kp);
    return rc;
  }
  if ((why = parse_reading(reply, &volts)) != 0) {
    kp->rejected[why]++;
    return pmon__fail(PMON_EFORMAT,
                      "keithley: %s: reading \"%s\" rejected: %s (so far: "
                      "%lu not a number, %lu overflow, %lu negative)",
                      kp->path, quote(reply, q), rej_names[why],
                      kp->rejected[REJ_GARBAGE], kp->rejected[REJ_OVERFLOW],
                      kp->rejected[REJ_NEGATIVE]);
  }
  r->watts[0] = power_of(kp, volts);
  if (kp->lost_ns != 0) {
    r->events |= PMON_EV_RESET;
    snprintf(r->detail, sizeof r->detail,
             "the line was lost %.3f s ago and set up again: the interval "
             "before this reading was not measured",
             (double)(now_ns() - kp->lost_ns) * 1e-9);
    kp->lost_ns = 0;
  }
  return 0;
}

static void kt_close(struct pmon_meter *m)
{
  line_close(m->priv);
}

const struct pmon_driver pmon__driver_keithley = {
  .name = "keithley", /* MUST: PMON_METERS=keithley:DEVICE?... */
  .description = "Keithley 2000/27xx multimeter across a mains shunt, "
                 "serial line (apparent power)", /* MUST */
  .flags = PMON_DRV_SAMPLED | PMON_DRV_EXTERNAL, /* read() gives watts */
  .priv_size = sizeof(struct kt_priv),    /* MAY */
  .interval_s = 1.0,                      /* MUST: rate=1 */
  .probe = kt_probe,                      /* MAY: never detected by auto */
  .open = kt_open,                        /* MUST */
  .read = kt_read,                        /* MUST */
  .close = kt_close,                      /* MAY */
};

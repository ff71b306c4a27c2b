/*
 * tests/fuzz/fuzz_scpi.c - the keithley driver's side of the serial line.
 * The first piece of the input is the meter's specification
 * (keithley:PATH?shunt=...), read as kt_open() reads it; the rest is what
 * the instrument sends, put on a socket that stands for the line: the
 * handshake (*IDN? answer, error queue after the set-up), then READ?
 * answers, until the bytes run out.  Nothing waits: the time allowed for
 * each answer is zero, so an incomplete answer is "no answer yet".
 */
#include "../../drivers/keithley.c"

#include <sys/socket.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fuzz_piece piece[2];
  struct pmon_meter m;
  struct kt_priv kp;
  struct pmon_reading r;
  char *spec;
  int sv[2], np;

  np = fuzz_pieces(data, size, piece, 2);
  memset(&m, 0, sizeof m);
  memset(&kp, 0, sizeof kp);
  m.priv = &kp;
  kp.fd = -1;
  spec = fuzz_text(piece[0].p, piece[0].n);
  if (pmon__spec_parse(spec, &m.spec) != 0 || kt_params(&m, &kp) != 0) {
    /* The answers are still read, by a meter with the defaults. */
    if (pmon__spec_parse("keithley:/fuzz/tty?shunt=0.01&line=230",
                         &m.spec) != 0 ||
        kt_params(&m, &kp) != 0)
      abort();
  }
  free(spec);
  if (kp.shunt <= 0 || kp.line <= 0)
    abort(); /* kt_params refuses a shunt or a line of 0 */
  kp.timeout = 0;
  if (np < 2 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
    return 0;
  if (piece[1].n > 0 && write(sv[1], piece[1].p, piece[1].n) < 0)
    abort();
  kp.fd = sv[0];
  kp.state = LINE_IDN;
  kp.since_ns = now_ns();
  /* The handshake, then readings while the line is up. */
  for (int i = 0; i < 64 && kp.fd >= 0; i++) {
    int rc;

    memset(&r, 0, sizeof r);
    rc = kp.state == LINE_READY ? kt_read(&m, &r) : handshake(&kp, now_ns());
    if (rc == 0 && kp.state == LINE_READY &&
        (!isfinite(r.watts[0]) || r.watts[0] < 0))
      abort(); /* a reading is a finite, non-negative power */
    if (rc == PMON_EAGAIN && kp.state != LINE_READY)
      break; /* the rest of an answer would be awaited */
  }
  if (kp.fd >= 0)
    close(kp.fd);
  close(sv[1]);
  return 0;
}

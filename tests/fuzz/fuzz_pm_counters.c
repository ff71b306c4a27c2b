/*
 * tests/fuzz/fuzz_pm_counters.c - the pm_counters driver's reading of its
 * sysfs files: each piece of the input is one file's content, as pread()
 * returns it, in the order the driver reads them (energy, cpu_energy,
 * freshness, startup, generation, power_cap, over and over).  Every piece
 * is also parsed on its own with each unit the driver asks for.
 */
#include "../../drivers/pm_counters.c"
#include "fuzz.h"

static struct fuzz_piece piece[16];
static int npieces, next_piece;

/* pread(2) as the driver sees it: the next piece, cut to LEN. */
static ssize_t fake_pread(int fd, void *buf, size_t len, off_t off)
{
  const struct fuzz_piece *p = &piece[next_piece++ % npieces];
  size_t n = p->n < len ? p->n : len;

  (void)fd;
  (void)off;
  if (p->n == 1 && p->p[0] == '!') { /* a piece "!" is a failed read */
    errno = EIO;
    return -1;
  }
  memcpy(buf, p->p, n);
  return (ssize_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const units[] = {"J", "W", NULL};
  struct pmon_meter m;
  struct pm_priv pp;
  struct pmon_reading r;
  uint64_t v;

  npieces = fuzz_pieces(data, size, piece, 16);
  for (int i = 0; i < npieces; i++)
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
      if (parse_counter(piece[i].p, piece[i].n, units[u], &v) == 0 &&
          units[u] != NULL && piece[i].n > 0 &&
          (piece[i].p[0] < '0' || piece[i].p[0] > '9'))
        abort(); /* a value must start with a digit */

  memset(&m, 0, sizeof m);
  memset(&pp, 0, sizeof pp);
  m.priv = &pp;
  m.nch = 2;
  snprintf(pp.dir, sizeof pp.dir, "/fuzz/pm_counters");
  pp.pread = fake_pread;
  pp.fd[0] = pp.fd[1] = 100;
  pp.file[0] = "energy";
  pp.file[1] = "cpu_energy";
  pp.fd_freshness = pp.fd_startup = pp.fd_generation = pp.fd_power_cap = 100;
  next_piece = 0;
  for (int i = 0; i < 4; i++) {
    memset(&r, 0, sizeof r);
    pm_read(&m, &r);
    if (memchr(r.detail, '\0', sizeof r.detail) == NULL)
      abort(); /* the detail is always a string */
  }
  return 0;
}

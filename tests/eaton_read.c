/*
 * eaton_read - the eaton driver on its own, for its tests: open a meter,
 * take readings, close it, and say what happened.
 *
 *   eaton_read [-n N] [-p SECONDS] [-s KEY=VALUE]... SPEC
 *
 * -n: readings to take (default 3); -p: pause between them (default the
 * meter's interval); -s: a secret added to the specification, as the site
 * file adds them (auth_pass=..., community=...).  Prints
 *
 *   open ok CHANNEL... interval S timeout S retries N
 *   open err PMON_E... MESSAGE
 *   read SECONDS W...             (SECONDS: how long read() took)
 *   read SECONDS err PMON_E... MESSAGE
 *   close SECONDS check VERDICT   (the Wh cross-check, in words; "- "
 *                                 first when finish() gave no event)
 *
 * Exit status 0 when the meter opened, 1 when it did not, 2 on bad usage.
 * The driver's file is included, so that its state can be shown.
 */
#include "../drivers/eaton.c"

#include <unistd.h>

static double seconds(uint64_t t0)
{
  return (double)(now_ns() - t0) * 1e-9;
}

int main(int argc, char **argv)
{
  struct pmon_meter m;
  struct eaton_priv priv;
  double pause = -1;
  int n = 3, opt, rc;
  uint64_t t0;
  char text[400];

  memset(&m, 0, sizeof m);
  memset(&priv, 0, sizeof priv);
  while ((opt = getopt(argc, argv, "n:p:s:")) != -1) {
    char *eq;

    switch (opt) {
    case 'n':
      n = atoi(optarg);
      break;
    case 'p':
      pause = atof(optarg);
      break;
    case 's': /* taken below, once the specification is parsed */
      if ((eq = strchr(optarg, '=')) == NULL)
        return 2;
      *eq = '\0';
      break;
    default:
      return 2;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "usage: eaton_read [-n N] [-p S] [-s KEY=VALUE]... "
                    "SPEC\n");
    return 2;
  }
  if (pmon__spec_parse(argv[optind], &m.spec) != 0) {
    printf("open err %s %s\n", pmon_err_name(PMON_ECONFIG), pmon_errmsg());
    return 1;
  }
  /* The secrets, split at their '=' above. */
  optind = 1;
  while ((opt = getopt(argc, argv, "n:p:s:")) != -1)
    if (opt == 's' && pmon__spec_add_secret(&m.spec, optarg,
                                            optarg + strlen(optarg) + 1) != 0)
      return 2;
  m.drv = &pmon__driver_eaton;
  m.priv = &priv;
  m.flags = m.drv->flags;
  m.interval_s = m.drv->interval_s;
  rc = m.drv->open(&m);
  if (rc != 0) {
    printf("open err %s %s\n", pmon_err_name(rc), pmon_errmsg());
    return 1;
  }
  printf("open ok");
  for (int c = 0; c < m.nch; c++)
    printf(" %s", m.ch[c].name);
  printf(" interval %g timeout %g retries %d\n", m.interval_s,
         priv.timeout_s, priv.retries);
  if (pause < 0)
    pause = m.interval_s;
  for (int i = 0; i < n; i++) {
    struct pmon_reading r;

    if (i > 0)
      usleep((useconds_t)(pause * 1e6));
    memset(&r, 0, sizeof r);
    t0 = now_ns();
    rc = m.drv->read(&m, &r);
    printf("read %.3f", seconds(t0));
    if (rc != 0)
      printf(" err %s %s", pmon_err_name(rc), pmon_errmsg());
    else
      for (int c = 0; c < m.nch; c++)
        printf(" %g", r.watts[c]);
    printf("\n");
    fflush(stdout);
  }
  t0 = now_ns();
  text[0] = '\0';
  /* No event from finish(): "- " and the state it left, in words. */
  if (m.drv->finish(&m, text, sizeof text) != 1) {
    memcpy(text, "- ", 3);
    check_text(&priv.check, text + 2, sizeof text - 2);
  }
  m.drv->close(&m);
  printf("close %.3f check %s\n", seconds(t0), text);
  return 0;
}

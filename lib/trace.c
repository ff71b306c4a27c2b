/*
 * trace.c - PMON_RECORD: what the library saw, as JSON Lines
 * (docs/trace-format.md), for pmon-report replay.
 *
 * One stream per process, behind one mutex: the pollers' readings, the
 * region calls of every thread, init's and finalize's lines.  Until init
 * knows the job's name the stream is in memory (open_memstream); then
 * the file is made, O_EXCL and O_NOFOLLOW in the user's directory, and
 * what was in memory goes first.  Lines are written with stdio's buffer
 * and flushed at the end: a reading's line costs its poller a formatted
 * write, a region call its thread the same (make bench: region_cost).
 * A write that fails ends the trace with one line; the job goes on.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "pmon.h"
#include "core.h"
#include "env.h"
#include "trace.h"

#define TRACE_FORMAT 1

int pmon__tracing;

static struct {
  pthread_mutex_t lock;
  FILE *f;        /* the file, or the memory stream until it is named */
  char *mem;      /* the memory stream's buffer */
  size_t memlen;
  int named;      /* f is the file */
  char dir[PATH_MAX];
  char path[PATH_MAX];
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

int pmon__trace_config(void)
{
  const char *dir = getenv(PMON_ENV_RECORD);
  struct stat st;

  if (dir == NULL || *dir == '\0')
    return 0;
  if (strlen(dir) >= sizeof tr.dir - 64)
    return pmon__fail(PMON_ECONFIG, "%s: %.64s...: too long a path",
                      PMON_ENV_RECORD, dir);
  if (stat(dir, &st) != 0)
    return pmon__fail(PMON_ECONFIG, "%s: %s: cannot record there: %s",
                      PMON_ENV_RECORD, dir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return pmon__fail(PMON_ECONFIG, "%s: %s: cannot record there: not a "
                      "directory", PMON_ENV_RECORD, dir);
  snprintf(tr.dir, sizeof tr.dir, "%s", dir);
  tr.named = 0;
  if ((tr.f = open_memstream(&tr.mem, &tr.memlen)) == NULL)
    return pmon__fail(PMON_ENOMEM, "%s: out of memory", PMON_ENV_RECORD);
  pmon__tracing = 1;
  return 0;
}

/* End the trace after a failure to write, WHY, saying so once. */
static void trace_lost(const char *why)
{
  if (tr.f == NULL)
    return;
  pmon__say("%s: %s: the trace ends here: %s", PMON_ENV_RECORD,
            tr.named ? tr.path : tr.dir, why);
  fclose(tr.f);
  tr.f = NULL;
  free(tr.mem);
  tr.mem = NULL;
}

/* S as a JSON string, to F. */
static void put_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;

    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* A number of seconds or watts with every digit a double has. */
static void put_double(FILE *f, double v)
{
  fprintf(f, "%.17g", v);
}

/* ", KEY: V", where V is above 0 (a number) or not empty (a string):
 * what a meter or a channel states, absent where it states nothing. */
static void put_num(FILE *f, const char *key, double v)
{
  if (v > 0) {
    fprintf(f, ", \"%s\": ", key);
    put_double(f, v);
  }
}

static void put_str(FILE *f, const char *key, const char *v)
{
  if (v != NULL && *v != '\0') {
    fprintf(f, ", \"%s\": ", key);
    put_string(f, v);
  }
}

static void put_seq(FILE *f, const uint64_t *seq, int n)
{
  fputs(", \"seq\": [", f);
  for (int m = 0; m < n; m++)
    fprintf(f, "%s%llu", m > 0 ? ", " : "", (unsigned long long)seq[m]);
  fputc(']', f);
}

static void put_meter(FILE *f, int i)
{
  const struct pmon_state *g = &pmon__g;
  const struct pmon_mstate *ms = &g->ms[i];
  const struct pmon_meter *m = &ms->m;

  fprintf(f, "{\"meter\": %d, \"uri\": ", i);
  put_string(f, m->spec.text);
  fputs(", \"driver\": ", f);
  put_string(f, m->drv->name);
  fprintf(f, ", \"kind\": \"%s\", \"total\": %s, \"estimated\": %s",
          (m->flags & PMON_DRV_COUNTER) ? "counter" : "power",
          g->total_mask[i] != 0 ? "true" : "false",
          ms->estimated ? "true" : "false");
  fputs(", \"interval_s\": ", f);
  put_double(f, m->interval_s);
  put_num(f, "pace_s", m->pace_s);
  put_num(f, "window_s", m->window_s);
  put_num(f, "stale_s", m->stale_s);
  if (m->accuracy_from != NULL) {
    fputs(", \"accuracy\": {\"rel\": ", f);
    put_double(f, m->accuracy_rel);
    fputs(", \"watts\": ", f);
    put_double(f, m->accuracy_w);
    fputs(", \"from\": ", f);
    put_string(f, m->accuracy_from);
    fputc('}', f);
  }
  put_str(f, "source", m->source);
  put_str(f, "note", m->note);
  fputs(", \"channels\": [", f);
  for (int c = 0; c < m->nch; c++) {
    const struct pmon_channel *ch = &m->ch[c];

    fputs(c > 0 ? ", {\"name\": " : "{\"name\": ", f);
    put_string(f, ch->name);
    fprintf(f, ", \"domain\": \"%s\", \"total\": %s, \"scale\": ",
            pmon__domain_name(ch->domain),
            (g->total_mask[i] >> c) & 1 ? "true" : "false");
    put_double(f, ch->scale);
    fprintf(f, ", \"range\": %llu", (unsigned long long)ch->range);
    put_num(f, "max_watts", ch->max_watts);
    put_num(f, "res_w", ch->res_w);
    put_str(f, "overlaps", ch->overlaps);
    fputc('}', f);
  }
  fputs("]}\n", f);
}

void pmon__trace_meters(void)
{
  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  for (int i = 0; tr.f != NULL && i < pmon__g.nmeters; i++)
    put_meter(tr.f, i);
  pthread_mutex_unlock(&tr.lock);
}

void pmon__trace_named(void)
{
  const struct pmon_state *g = &pmon__g;
  FILE *f;
  int fd;

  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.f == NULL || tr.named)
    goto out;
  fflush(tr.f);
  if (snprintf(tr.path, sizeof tr.path, "%s/pmtrace-%s-%s-%d.jsonl", tr.dir,
               g->jobid, g->node_name, g->rank) >= (int)sizeof tr.path) {
    tr.named = 1;
    trace_lost("the file's name is too long");
    goto out;
  }
  fd = open(tr.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
            0644);
  if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
    char why[160];

    snprintf(why, sizeof why, "cannot make the file: %s", strerror(errno));
    if (fd >= 0)
      close(fd);
    tr.named = 1;
    trace_lost(why);
    goto out;
  }
  fprintf(f, "{\"pmtrace\": %d, \"job\": ", TRACE_FORMAT);
  put_string(f, g->jobid);
  fputs(", \"node\": ", f);
  put_string(f, g->node_name);
  fprintf(f, ", \"rank\": %d, \"ranks\": %d, \"leader\": %s, "
          "\"meters\": %d, \"pmon\": \"%s\"}\n", g->rank, g->size,
          g->leader ? "true" : "false", g->leader ? g->nmeters : 0,
          PACKAGE_VERSION);
  fwrite(tr.mem, 1, tr.memlen, f);
  fclose(tr.f);
  free(tr.mem);
  tr.mem = NULL;
  tr.f = f;
  tr.named = 1;
out:
  pthread_mutex_unlock(&tr.lock);
}

/* A CLOCK_REALTIME instant in ns. */
static unsigned long long wall_ns(const struct timespec *ts)
{
  return (unsigned long long)ts->tv_sec * 1000000000ull +
         (unsigned long long)ts->tv_nsec;
}

void pmon__trace_span(const char *what, uint64_t t)
{
  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.f == NULL)
    ;
  else if (strcmp(what, "init") == 0)
    fprintf(tr.f, "{\"init\": %llu, \"wall\": %llu, \"mpi\": %s}\n",
            (unsigned long long)t, wall_ns(&pmon__g.wall_start),
            pmon__g.mpi ? "true" : "false");
  else
    fprintf(tr.f, "{\"%s\": %llu}\n", what, (unsigned long long)t);
  pthread_mutex_unlock(&tr.lock);
}

void pmon__trace_finalize(uint64_t t, const uint64_t *seq, int nmeters)
{
  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL) {
    fprintf(tr.f, "{\"finalize\": %llu, \"wall\": %llu",
            (unsigned long long)t, wall_ns(&pmon__g.wall_end));
    put_seq(tr.f, seq, nmeters);
    fputs("}\n", tr.f);
  }
  pthread_mutex_unlock(&tr.lock);
}

/* The thread holds tr.lock through pmon__trace_lock(): a sample its
 * fold publishes meanwhile is written without taking it again. */
static _Thread_local int held;

void pmon__trace_lock(void)
{
  pthread_mutex_lock(&tr.lock);
  held = 1;
}

void pmon__trace_unlock(void)
{
  held = 0;
  pthread_mutex_unlock(&tr.lock);
}

void pmon__trace_sample(int i, uint64_t seq, uint64_t t, double err_s)
{
  if (!pmon__tracing)
    return;
  if (!held)
    pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL) {
    fprintf(tr.f, "{\"sample\": %d, \"seq\": %llu, \"at\": %llu, "
                  "\"err_s\": ",
            i, (unsigned long long)seq, (unsigned long long)t);
    put_double(tr.f, err_s);
    fputs("}\n", tr.f);
  }
  if (!held)
    pthread_mutex_unlock(&tr.lock);
}

static void put_try(FILE *f, int i, const struct pmon_try *t, int k, int n,
                    int force)
{
  const struct pmon_meter *m = &pmon__g.ms[i].m;

  fprintf(f, "{\"read\": %d, \"t0\": %llu, \"t1\": %llu", i,
          (unsigned long long)t->t0, (unsigned long long)t->t1);
  if (n > 1)
    fprintf(f, ", \"try\": %d", k);
  if (force && k == 0)
    fputs(", \"force\": true", f);
  if (t->rc != 0) {
    const char *why = pmon_errmsg();

    if (strncmp(why, "pmon: ", 6) == 0)
      why += 6;
    fprintf(f, ", \"error\": ");
    put_string(f, why);
    fprintf(f, ", \"code\": %d}\n", t->rc);
    return;
  }
  fputs((m->flags & PMON_DRV_COUNTER) ? ", \"raw\": [" : ", \"watts\": [", f);
  for (int c = 0; c < m->nch; c++) {
    if (c > 0)
      fputs(", ", f);
    if (m->flags & PMON_DRV_COUNTER)
      fprintf(f, "%llu", (unsigned long long)t->r.raw[c]);
    else
      put_double(f, t->r.watts[c]);
  }
  fputc(']', f);
  if (t->r.stale)
    fputs(", \"stale\": true", f);
  if (t->r.events != 0) {
    fprintf(f, ", \"events\": [%s%s%s]",
            (t->r.events & PMON_EV_RESET) ? "\"reset\"" : "",
            (t->r.events & PMON_EV_RESET) && (t->r.events & PMON_EV_POWER_CAP)
              ? ", "
              : "",
            (t->r.events & PMON_EV_POWER_CAP) ? "\"power_cap\"" : "");
    fputs(", \"detail\": ", f);
    put_string(f, t->r.detail);
  }
  fputs("}\n", f);
}

void pmon__trace_read(int i, const struct pmon_try *t, int n, int force)
{
  /* The caller holds tr.lock (pmon__trace_lock()). */
  for (int k = 0; tr.f != NULL && k < n; k++)
    put_try(tr.f, i, &t[k], k, n, force);
  if (tr.f != NULL && ferror(tr.f))
    trace_lost(strerror(errno));
}

void pmon__trace_wait(int i, uint64_t now)
{
  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL)
    fprintf(tr.f, "{\"wait\": %d, \"t\": %llu}\n", i,
            (unsigned long long)now);
  pthread_mutex_unlock(&tr.lock);
}

void pmon__trace_waited(int i)
{
  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL)
    fprintf(tr.f, "{\"waited\": %d}\n", i);
  pthread_mutex_unlock(&tr.lock);
}

/* Append to B (at *N, room enough) V in decimal, S, or NAME as a JSON
 * string: the region line is made on the caller's stack, outside the
 * lock, with no stdio formatting (make bench-record). */
static void cat_u64(char *b, size_t *n, uint64_t v)
{
  char d[20];
  int k = 0;

  do
    d[k++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (k > 0)
    b[(*n)++] = d[--k];
}

static void cat_s(char *b, size_t *n, const char *s)
{
  size_t len = strlen(s);

  memcpy(b + *n, s, len);
  *n += len;
}

static void cat_name(char *b, size_t *n, const char *name)
{
  static const char hex[] = "0123456789abcdef";

  b[(*n)++] = '"';
  for (; *name != '\0'; name++) {
    unsigned char c = (unsigned char)*name;

    if (c == '"' || c == '\\') {
      b[(*n)++] = '\\';
      b[(*n)++] = (char)c;
    } else if (c < 0x20 || c == 0x7f) {
      cat_s(b, n, "\\u00");
      b[(*n)++] = hex[c >> 4];
      b[(*n)++] = hex[c & 15];
    } else {
      b[(*n)++] = (char)c;
    }
  }
  b[(*n)++] = '"';
}

void pmon__trace_region(int tid, int begin, const char *name, uint64_t t,
                        const uint64_t *seq, int nmeters)
{
  /* The name (PMON_NAME_MAX bytes, each at most 6 escaped), the numbers
   * (20 digits each) and the keys. */
  char b[6 * PMON_NAME_MAX + 24 * (PMON_METER_MAX + 2) + 64];
  size_t n = 0;

  cat_s(b, &n, "{\"tid\": ");
  cat_u64(b, &n, (uint64_t)tid);
  cat_s(b, &n, begin ? ", \"begin\": " : ", \"end\": ");
  cat_name(b, &n, name);
  if (t != 0) {
    cat_s(b, &n, ", \"t\": ");
    cat_u64(b, &n, t);
    cat_s(b, &n, ", \"seq\": [");
    for (int m = 0; m < nmeters; m++) {
      if (m > 0)
        cat_s(b, &n, ", ");
      cat_u64(b, &n, seq[m]);
    }
    b[n++] = ']';
  }
  cat_s(b, &n, "}\n");
  pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL)
    fwrite_unlocked(b, 1, n, tr.f); /* tr.lock is the stream's lock */
  pthread_mutex_unlock(&tr.lock);
}

/* {"KEY": V} as one line of this rank's trace. */
static void trace_json(const char *key, json_t *v)
{
  char *text;

  if (!pmon__tracing)
    return;
  /* Reals to 17 digits: the replay's figures are the job's, to 1e-9. */
  text = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17) |
                         JSON_ENCODE_ANY);
  pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL && text == NULL)
    trace_lost("out of memory");
  else if (tr.f != NULL)
    fprintf(tr.f, "{\"%s\": %s}\n", key, text);
  pthread_mutex_unlock(&tr.lock);
  free(text);
}

void pmon__trace_record(json_t *rank)
{
  trace_json("record", rank);
}

void pmon__trace_share(json_t *share)
{
  trace_json("share", share);
}

void pmon__trace_close(void)
{
  if (!pmon__tracing)
    return;
  pthread_mutex_lock(&tr.lock);
  if (tr.f != NULL) {
    if (!tr.named) /* init never ended: nothing to name it by */
      ;
    else if (fflush(tr.f) != 0 || ferror(tr.f))
      pmon__say("%s: %s: cannot write: %s", PMON_ENV_RECORD, tr.path,
                strerror(errno));
    fclose(tr.f);
    tr.f = NULL;
  }
  free(tr.mem);
  tr.mem = NULL;
  tr.memlen = 0;
  tr.named = 0;
  pmon__tracing = 0;
  pthread_mutex_unlock(&tr.lock);
}

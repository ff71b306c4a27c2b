/*
 * rtab.c - region records, merged across threads, ranks and nodes
 * (rtab.h has the contract).
 *
 * A table is an open-addressing hash of records keyed by name; merging a
 * record or a whole message costs one lookup per record, so each step of
 * the trees is O(R) for R distinct names and the final ordering by first
 * use O(R log R).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pmon.h"
#include "bar.h"
#include "rtab.h"

#define RT_MAGIC 0x70727431u /* "prt1" */
#define RT_LIST_CAP (1 << 20) /* entries a message may list per record */

/* What a message starts with. */
struct wire_head {
  uint32_t magic, level;
  uint64_t n, folded;
  uint32_t folded_lower, lost;
};

/* A record travels as its fixed part (up to LIST), LEN, the name without
 * its NUL, then LISTED entries. */
#define FIXED offsetof(struct pmon_rrec, list)

uint64_t pmon__name_hash(const char *name, size_t len)
{
  uint64_t h = 14695981039346656037u; /* FNV-1a */

  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)name[i]) * 1099511628211u;
  return h != 0 ? h : 1;
}

void pmon__rtab_init(struct pmon_rtab *t, int level, int list_max)
{
  memset(t, 0, sizeof *t);
  t->level = level;
  t->list_max = list_max;
}

void pmon__rtab_free(struct pmon_rtab *t)
{
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i] != NULL) {
      free(t->slot[i]->list);
      free(t->slot[i]);
    }
  free(t->slot);
  t->slot = NULL;
  t->cap = t->n = 0;
}

static int grow(struct pmon_rtab *t)
{
  size_t cap = t->cap ? 2 * t->cap : 64;
  struct pmon_rrec **s = calloc(cap, sizeof *s);

  if (s == NULL)
    return -1;
  for (size_t i = 0; i < t->cap; i++) {
    struct pmon_rrec *r = t->slot[i];
    size_t k;

    if (r == NULL)
      continue;
    for (k = r->hash & (cap - 1); s[k] != NULL; k = (k + 1) & (cap - 1))
      ;
    s[k] = r;
  }
  free(t->slot);
  t->slot = s;
  t->cap = cap;
  return 0;
}

struct pmon_rrec *pmon__rtab_get(struct pmon_rtab *t, const char *name,
                                 size_t len, int *created)
{
  uint64_t h = pmon__name_hash(name, len);
  struct pmon_rrec *r;
  size_t k;

  *created = 0;
  if (t->cap > 0)
    for (k = h & (t->cap - 1); (r = t->slot[k]) != NULL;
         k = (k + 1) & (t->cap - 1))
      if (r->hash == h && r->len == len && memcmp(r->name, name, len) == 0)
        return r;
  if ((2 * (t->n + 1) > t->cap && grow(t) != 0) ||
      (r = calloc(1, sizeof *r + len + 1)) == NULL)
    return NULL;
  r->hash = h;
  r->len = (uint32_t)len;
  memcpy(r->name, name, len);
  r->time_s = r->mtime_s = 0;
  r->first_s = INFINITY;
  r->energy_j = r->energy_err_j = r->energy_err_max_j = NAN;
  r->coverage = r->power_w = NAN;
  r->rank = INT32_MAX;
  for (k = h & (t->cap - 1); t->slot[k] != NULL; k = (k + 1) & (t->cap - 1))
    ;
  t->slot[k] = r;
  t->n++;
  *created = 1;
  return r;
}

/* A + B where NAN is "not measured": NAN only when both are. */
static double add_measured(double a, double b)
{
  if (isnan(a))
    return b;
  return isnan(b) ? a : a + b;
}

static double least_measured(double a, double b)
{
  if (isnan(a))
    return b;
  return isnan(b) || a <= b ? a : b;
}

static void stat_merge(struct pmon_stat *a, const struct pmon_stat *b)
{
  double d, n;

  if (b->n == 0)
    return;
  if (a->n == 0) {
    *a = *b;
    return;
  }
  n = (double)a->n + (double)b->n;
  d = b->mean - a->mean;
  a->mean += d * (double)b->n / n;
  a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
  a->n += b->n;
  if (b->min < a->min || (b->min == a->min && b->imin < a->imin))
    a->min = b->min, a->imin = b->imin;
  if (b->max > a->max || (b->max == a->max && b->imax < a->imax))
    a->max = b->max, a->imax = b->imax;
}

static void stat_one(struct pmon_stat *s, double v, int node)
{
  memset(s, 0, sizeof *s);
  if (isnan(v))
    return;
  s->n = 1;
  s->imin = s->imax = node;
  s->mean = s->min = s->max = v;
}

static int copy_list(struct pmon_rrec *a, const struct pmon_rrec *b)
{
  a->list = NULL;
  a->listed = b->listed;
  if (b->listed <= 0)
    return 0;
  if ((a->list = malloc((size_t)b->listed * sizeof *a->list)) == NULL) {
    a->listed = -1;
    return PMON_ENOMEM;
  }
  memcpy(a->list, b->list, (size_t)b->listed * sizeof *a->list);
  return 0;
}

/* A's list followed by B's, while they fit in LIST_MAX. */
static int join_lists(struct pmon_rrec *a, const struct pmon_rrec *b,
                      int list_max)
{
  struct pmon_rnode *l;
  size_t n;

  if (a->listed < 0)
    return 0;
  if (b->listed < 0 || (long)a->listed + b->listed > list_max) {
    free(a->list);
    a->list = NULL;
    a->listed = -1;
    return 0;
  }
  if (b->listed == 0)
    return 0;
  n = (size_t)a->listed + (size_t)b->listed;
  if ((l = realloc(a->list, n * sizeof *l)) == NULL) {
    free(a->list);
    a->list = NULL;
    a->listed = -1;
    return PMON_ENOMEM;
  }
  memcpy(l + a->listed, b->list, (size_t)b->listed * sizeof *l);
  a->list = l;
  a->listed = (int32_t)n;
  return 0;
}

int pmon__rtab_merge(struct pmon_rtab *t, const struct pmon_rrec *b)
{
  int created;
  struct pmon_rrec *a = pmon__rtab_get(t, b->name, b->len, &created);

  if (a == NULL) {
    t->lost++;
    return PMON_ENOMEM;
  }
  if (created) {
    memcpy(a, b, FIXED);
    a->hash = pmon__name_hash(b->name, b->len);
    return copy_list(a, b);
  }
  a->count += b->count;
  a->unclosed += b->unclosed;
  a->time_s = b->time_s > a->time_s ? b->time_s : a->time_s;
  a->first_s = b->first_s < a->first_s ? b->first_s : a->first_s;
  if (t->level == PMON_RT_NODE) {
    /* The lowest rank that entered the region measures it. */
    if (b->rank < a->rank) {
      a->energy_j = b->energy_j;
      a->energy_err_j = b->energy_err_j;
      a->energy_err_max_j = b->energy_err_max_j;
      a->coverage = b->coverage;
      a->mtime_s = b->mtime_s;
      a->rank = b->rank;
      a->mcount = b->mcount;
      a->fitted = b->fitted;
      memcpy(a->span, b->span, sizeof a->span);
    }
    return 0;
  }
  a->energy_j = add_measured(a->energy_j, b->energy_j);
  a->energy_err_j = add_measured(a->energy_err_j, b->energy_err_j);
  a->energy_err_max_j = add_measured(a->energy_err_max_j, b->energy_err_max_j);
  a->power_w = add_measured(a->power_w, b->power_w);
  a->coverage = least_measured(a->coverage, b->coverage);
  a->no_energy += b->no_energy;
  a->fitted += b->fitted;
  a->nodes += b->nodes;
  stat_merge(&a->se, &b->se);
  stat_merge(&a->st, &b->st);
  return join_lists(a, b, t->list_max);
}

void pmon__rtab_share(struct pmon_rtab *t, double f, double f_err)
{
  for (size_t i = 0; i < t->cap; i++) {
    struct pmon_rrec *r = t->slot[i];

    if (r == NULL || !isfinite(r->energy_j))
      continue;
    r->energy_err_j = hypot(f * r->energy_err_j, r->energy_j * f_err);
    r->energy_err_max_j = pmon__share_max(f, f_err, r->energy_j,
                                          r->energy_err_max_j);
    r->energy_j *= f;
  }
}

void pmon__rtab_to_job(struct pmon_rtab *t, int node)
{
  for (size_t i = 0; i < t->cap; i++) {
    struct pmon_rrec *r = t->slot[i];
    int measured;

    if (r == NULL)
      continue;
    measured = !isnan(r->energy_j);
    /* Power over the measuring rank's own time in the region. */
    r->power_w = measured && r->mtime_s > 0 ? r->energy_j / r->mtime_s : NAN;
    r->no_energy = !measured;
    r->nodes = 1;
    stat_one(&r->se, r->energy_j, node);
    stat_one(&r->st, r->time_s, node);
    free(r->list);
    r->list = NULL;
    r->listed = -1;
    if (t->list_max > 0 && (r->list = malloc(sizeof *r->list)) != NULL) {
      r->list[0] = (struct pmon_rnode){
        node,        r->rank,           r->count,   r->time_s,
        r->energy_j, r->energy_err_j,   r->energy_err_max_j,
        r->power_w,  r->coverage};
      r->listed = 1;
    }
  }
  t->level = PMON_RT_JOB;
}

int pmon__rtab_pack(const struct pmon_rtab *t, char **buf, size_t *len)
{
  struct wire_head h = {RT_MAGIC, (uint32_t)t->level, t->n, t->folded,
                        (uint32_t)t->folded_lower, (uint32_t)t->lost};
  size_t size = sizeof h;
  char *p;

  for (size_t i = 0; i < t->cap; i++) {
    const struct pmon_rrec *r = t->slot[i];

    if (r != NULL)
      size += FIXED + sizeof r->len + r->len +
              (r->listed > 0 ? (size_t)r->listed * sizeof *r->list : 0);
  }
  if ((*buf = p = malloc(size)) == NULL)
    return PMON_ENOMEM;
  memcpy(p, &h, sizeof h);
  p += sizeof h;
  for (size_t i = 0; i < t->cap; i++) {
    const struct pmon_rrec *r = t->slot[i];

    if (r == NULL)
      continue;
    memcpy(p, r, FIXED);
    p += FIXED;
    memcpy(p, &r->len, sizeof r->len);
    p += sizeof r->len;
    memcpy(p, r->name, r->len);
    p += r->len;
    if (r->listed > 0) {
      memcpy(p, r->list, (size_t)r->listed * sizeof *r->list);
      p += (size_t)r->listed * sizeof *r->list;
    }
  }
  *len = size;
  return 0;
}

int pmon__rtab_unpack(struct pmon_rtab *t, const char *buf, size_t len)
{
  const char *p = buf, *end = buf + len;
  struct wire_head h;
  struct pmon_rrec *b;
  int rc = 0;

  if (len < sizeof h)
    goto bad;
  memcpy(&h, p, sizeof h);
  p += sizeof h;
  if (h.magic != RT_MAGIC || h.level != (uint32_t)t->level)
    goto bad;
  if ((b = malloc(sizeof *b + PMON_NAME_MAX + 1)) == NULL) {
    t->lost++;
    return PMON_ENOMEM;
  }
  t->folded += h.folded;
  t->folded_lower |= h.folded_lower != 0;
  t->lost += (int)h.lost;
  for (uint64_t i = 0; i < h.n; i++) {
    size_t nl;

    if ((size_t)(end - p) < FIXED + sizeof b->len)
      break;
    memcpy(b, p, FIXED);
    p += FIXED;
    memcpy(&b->len, p, sizeof b->len);
    p += sizeof b->len;
    if (b->len > PMON_NAME_MAX || (size_t)(end - p) < b->len ||
        b->listed > RT_LIST_CAP)
      break;
    memcpy(b->name, p, b->len);
    b->name[b->len] = '\0';
    p += b->len;
    nl = b->listed > 0 ? (size_t)b->listed : 0;
    if ((size_t)(end - p) < nl * sizeof *b->list)
      break;
    b->list = NULL;
    if (nl > 0 && (b->list = malloc(nl * sizeof *b->list)) == NULL)
      b->listed = -1; /* the record is kept, its list is not */
    else if (nl > 0)
      memcpy(b->list, p, nl * sizeof *b->list);
    p += nl * sizeof *b->list;
    if (pmon__rtab_merge(t, b) != 0)
      rc = PMON_ENOMEM;
    free(b->list);
  }
  free(b);
  if (p == end)
    return rc;
bad:
  t->lost++;
  return PMON_EFORMAT;
}

static int by_first_use(const void *a, const void *b)
{
  const struct pmon_rrec *x = *(const struct pmon_rrec *const *)a;
  const struct pmon_rrec *y = *(const struct pmon_rrec *const *)b;

  if (x->first_s != y->first_s)
    return x->first_s < y->first_s ? -1 : 1;
  return strcmp(x->name, y->name);
}

struct pmon_rrec **pmon__rtab_sorted(const struct pmon_rtab *t)
{
  struct pmon_rrec **v;
  size_t n = 0;

  if (t->n == 0 || (v = malloc(t->n * sizeof *v)) == NULL)
    return NULL;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i] != NULL)
      v[n++] = t->slot[i];
  qsort(v, n, sizeof *v, by_first_use);
  return v;
}

static json_t *num(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

/* An energy's error bar: null when the energy is not measured. */
static json_t *err_num(double e, double err)
{
  return isfinite(e) ? num(err) : json_null();
}

static json_t *node_name(json_t *nodes, int32_t i)
{
  const char *s =
    json_string_value(json_object_get(json_array_get(nodes, (size_t)i), "name"));

  return s != NULL ? json_string(s) : json_null();
}

/* {"min", "max", "mean", "stddev", "min_node", "max_node"}, all null
 * when S holds no value. */
static json_t *stat_json(const struct pmon_stat *s, json_t *nodes)
{
  if (s->n == 0)
    return json_pack("{s:n, s:n, s:n, s:n, s:n, s:n}", "min", "max", "mean",
                     "stddev", "min_node", "max_node");
  return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "min", num(s->min),
                   "max", num(s->max), "mean", num(s->mean), "stddev",
                   num(sqrt(s->m2 / s->n)), "min_node",
                   node_name(nodes, s->imin), "max_node",
                   node_name(nodes, s->imax));
}

static int by_node(const void *a, const void *b)
{
  const struct pmon_rnode *x = a, *y = b;

  return (x->node > y->node) - (x->node < y->node);
}

const char *pmon__rtab_method(const struct pmon_rrec *r)
{
  uint32_t measured = r->nodes - r->no_energy;

  if (isnan(r->energy_j) || measured == 0)
    return "none";
  return r->fitted == 0 ? "interpolation"
         : r->fitted >= measured ? "fit" : "mixed";
}

json_t *pmon__rtab_rec_json(struct pmon_rrec *r, json_t *nodes)
{
  json_t *o = json_pack(
    "{s:s, s:I, s:f, s:o, s:o, s:o, s:I, s:f, s:I, s:{s:I, s:o, s:o}}",
    "name", r->name, "count", (json_int_t)r->count, "time_s", r->time_s,
    "energy_j", num(r->energy_j), "power_w", num(r->power_w), "coverage",
    num(r->coverage), "unclosed", (json_int_t)r->unclosed, "first_s",
    isfinite(r->first_s) ? r->first_s : 0.0, "nodes_without_energy",
    (json_int_t)r->no_energy, "node_stats", "nodes", (json_int_t)r->nodes,
    "energy_j", stat_json(&r->se, nodes), "time_s", stat_json(&r->st, nodes));
  json_t *list;

  if (o != NULL) {
    json_object_set_new(o, "energy_err_j",
                        err_num(r->energy_j, r->energy_err_j));
    json_object_set_new(o, "energy_err_max_j",
                        err_num(r->energy_j, r->energy_err_max_j));
    json_object_set_new(o, "energy_method",
                        json_string(pmon__rtab_method(r)));
  }
  if (o == NULL || r->listed < 0)
    return o;
  list = json_array();
  qsort(r->list, (size_t)r->listed, sizeof *r->list, by_node);
  for (int32_t i = 0; i < r->listed; i++) {
    const struct pmon_rnode *e = &r->list[i];

    json_array_append_new(
      list,
      json_pack("{s:o, s:I, s:f, s:o, s:o, s:o, s:o, s:o, s:i}", "name",
                node_name(nodes, e->node), "count", (json_int_t)e->count,
                "time_s", e->time_s, "energy_j", num(e->energy_j),
                "energy_err_j", err_num(e->energy_j, e->energy_err_j),
                "energy_err_max_j", err_num(e->energy_j, e->energy_err_max_j),
                "power_w", num(e->power_w), "coverage", num(e->coverage),
                "rank", (int)e->rank));
  }
  json_object_set_new(o, "nodes", list);
  return o;
}

/*
 * report-html.c - one self-contained HTML page of one or more pmon reports
 * (pmon-report --html).
 *
 * Per report, a section: the summary as a row of cards, the power over
 * time (report-svg.c, inline), the energy per region and per node as bars,
 * the I/O figures, the meters and what the nodes' totals cover, and the
 * events.  Every figure that an estimated meter touched carries an
 * ESTIMATE badge.  With several reports, a table at the top compares them.
 *
 * The page fetches nothing: no script, no external style sheet, font or
 * image; a Content-Security-Policy says so, and a browser that finds the
 * page asking for anything logs the refusal.  It is written as
 * well-formed XML as well as HTML5 (a "polyglot" page) so that xmllint
 * checks it, and its size is bounded whatever the job's: the lists of
 * regions, nodes, files and events are cut to their largest or first
 * entries, and many nodes become a histogram.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define MAX_REGIONS 30    /* Regions listed, the largest energy first. */
#define MAX_NODE_BARS 64  /* Beyond, a histogram and the extremes. */
#define NODE_EXTREMES 8   /* Nodes listed at each end beyond that. */
#define HIST_BINS 24
#define MAX_FILES 10
#define MAX_EVENTS 20
#define MAX_TYPES 16      /* Event types counted apart. */
#define MAX_TOTALS 8      /* Kinds of node total listed. */

/* What the overview table needs of a report once its section is written
 * and the report released. */
struct jobline {
  char *id;
  const char *file;
  double nodes, ranks, wall_s, energy_j, power_w;
  int estimated;
};

/* A section written to memory, and the summary line of its report. */
struct part {
  char *html;
  size_t len;
  struct jobline job;
};

const char report_html_style[] =
  ":root{--ink:#1a1a1a;--muted:#5a5a5a;--line:#dcdcdc;--soft:#f5f6f7;"
  "--accent:#0072B2;--est:#B34700}\n"
  "*{box-sizing:border-box}\n"
  "body{margin:0;background:#fff;color:var(--ink);font:15px/1.45 "
  "system-ui,-apple-system,\"Segoe UI\",\"DejaVu Sans\",Roboto,Helvetica,"
  "Arial,sans-serif}\n"
  "main{max-width:1040px;margin:0 auto;padding:24px 28px 48px}\n"
  "header.page{border-bottom:3px solid var(--ink);margin-bottom:8px;"
  "padding-bottom:10px}\n"
  "header.page h1{font-size:15px;letter-spacing:.08em;text-transform:"
  "uppercase;margin:0;color:var(--muted)}\n"
  "header.page p{margin:2px 0 0;color:var(--muted);font-size:13px}\n"
  "h2{font-size:27px;margin:28px 0 2px}\n"
  "h2 small{font-size:14px;font-weight:normal;color:var(--muted);"
  "margin-left:8px}\n"
  "h3{font-size:17px;margin:30px 0 8px;padding-bottom:4px;border-bottom:"
  "1px solid var(--line)}\n"
  "h3 small{font-weight:normal;color:var(--muted);font-size:13px;"
  "margin-left:6px}\n"
  "p.file{margin:0 0 14px;color:var(--muted);font-size:13px}\n"
  "code,.mono{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;"
  "font-size:.92em}\n"
  ".cards{display:grid;grid-template-columns:repeat(auto-fill,"
  "minmax(150px,1fr));gap:10px;margin:10px 0 4px}\n"
  ".card{border:1px solid var(--line);border-radius:6px;padding:9px 12px;"
  "background:var(--soft)}\n"
  ".card .k{font-size:12px;color:var(--muted);text-transform:uppercase;"
  "letter-spacing:.05em}\n"
  ".card .v{font-size:22px;font-weight:600;line-height:1.25;"
  "font-variant-numeric:tabular-nums}\n"
  ".card .s{font-size:12px;color:var(--muted)}\n"
  ".card.warn{border-color:#E69F00;background:#fffaeb}\n"
  ".card.alert{border-color:var(--est);background:#fff6ee}\n"
  ".card .v.t{font-size:18px;padding-top:3px;white-space:normal}\n"
  ".est{display:inline-block;font-size:10px;font-weight:700;letter-spacing:"
  ".06em;color:var(--est);border:1px solid var(--est);border-radius:3px;"
  "padding:0 4px;margin-left:5px;vertical-align:2px;background:#fff6ee;"
  "line-height:1.5}\n"
  "figure{margin:0}\n"
  "svg.pmon-timeline{width:100%;height:auto;display:block}\n"
  "p.missing{border:1px dashed #a0a0a0;background:repeating-linear-gradient("
  "-45deg,#f4f4f4 0 6px,#fff 6px 12px);padding:22px;text-align:center;"
  "font-size:16px;border-radius:6px}\n"
  "table{border-collapse:collapse;width:100%;font-size:14px;"
  "font-variant-numeric:tabular-nums}\n"
  "th,td{padding:4px 8px;border-bottom:1px solid var(--line);"
  "text-align:left;vertical-align:middle}\n"
  "th{font-size:12px;color:var(--muted);font-weight:600;text-transform:"
  "uppercase;letter-spacing:.04em;border-bottom:2px solid var(--ink)}\n"
  "td.n,th.n{text-align:right;white-space:nowrap}\n"
  "td.name{max-width:260px;overflow-wrap:anywhere}\n"
  "td.bar{width:34%;min-width:120px;position:relative}\n"
  ".bar i{position:absolute;top:50%;height:7px;margin-top:-4px;"
  "border:solid var(--ink);border-width:0 1px;box-sizing:border-box}\n"
  ".bar i:after{content:'';position:absolute;left:0;right:0;top:3px;"
  "border-top:1px solid var(--ink)}\n"
  ".bar span{display:block;height:14px;border-radius:2px;"
  "background:var(--accent);min-width:1px}\n"
  ".bar span.e{background:repeating-linear-gradient(45deg,var(--est) 0 3px,"
  "#f3c9a8 3px 6px)}\n"
  "tr.more td{color:var(--muted);font-style:italic}\n"
  "td.muted,.muted{color:var(--muted)}\n"
  ".note{color:var(--muted);font-size:13px;margin:6px 0}\n"
  "p.sub{font-weight:600;font-size:14px;margin:18px 0 4px}\n"
  ".chips span{display:inline-block;border:1px solid var(--line);"
  "border-radius:12px;padding:1px 10px;margin:0 6px 6px 0;font-size:13px;"
  "background:var(--soft)}\n"
  "footer{margin-top:36px;color:var(--muted);font-size:12px;border-top:"
  "1px solid var(--line);padding-top:8px}\n"
  "section.report+section.report{margin-top:56px;border-top:3px solid "
  "var(--ink)}\n"
  "a{color:var(--accent)}\n"
  "@media print{body{font-size:10pt}main{max-width:none;padding:0}"
  "section.report+section.report{break-before:page;border-top:none;"
  "margin-top:0}figure,.cards,tr{break-inside:avoid}h3{break-after:avoid}"
  ".card,.bar span,.est,p.missing{-webkit-print-color-adjust:exact;"
  "print-color-adjust:exact}a{color:inherit;text-decoration:none}}\n";

/* ---- Small pieces ------------------------------------------------------ */

/* Writes s escaped; "-" for NULL. */
static void esc(FILE *out, const char *s) {
  report_xml_text(out, s ? s : "-", 0);
}

/* The ESTIMATE badge, when est is positive. */
static void badge(FILE *out, int est) {
  if (est > 0)
    fputs("<span class=\"est\" title=\"from a model (the estimate meter), "
          "not measured\">ESTIMATE</span>", out);
}

/* Writes a figure formatted here (markup of ours, never text from the
 * report), or an en dash when it has none. */
static void fig(FILE *out, const char *s) {
  fputs(s ? s : "\xE2\x80\x93", out); /* an en dash for a missing figure */
}

/* Opens a card titled key, marked as a warning (1: a shortfall, 2: the
 * figures are not what they seem), with the ESTIMATE badge when est is
 * positive; the caller writes its value. */
static void card_open(FILE *out, const char *key, int warn, int est) {
  fprintf(out, "<div class=\"card%s\"><div class=\"k\">%s",
          warn == 2 ? " alert" : warn ? " warn" : "", key);
  badge(out, est);
  fputs("</div><div class=\"v\">", out);
}

/* Closes the value of a card, writes its subline (escaped) and closes it. */
static void card_close(FILE *out, const char *sub) {
  fputs("</div>", out);
  if (sub != NULL) {
    fputs("<div class=\"s\">", out);
    esc(out, sub);
    fputs("</div>", out);
  }
  fputs("</div>\n", out);
}

/* A cell holding a bar of v / max, hatched when est; empty when v is
 * NAN. */
static void bar_cell(FILE *out, double v, double err, double max, int est) {
  double pct = max > 0 && v > 0 ? 100 * v / max : 0;
  if (isnan(v)) {
    fputs("<td class=\"bar\"></td>", out);
    return;
  }
  fprintf(out, "<td class=\"bar\"><span%s style=\"width:%.1f%%\"></span>",
          est > 0 ? " class=\"e\"" : "", pct > 100 ? 100 : pct);
  /* The error bar: a whisker from v - err to v + err, inside the cell
   * (the bar's width is the cell's less its padding: 8 px each side). */
  if (isfinite(err) && err > 0 && max > 0) {
    double lo = 100 * (v - err) / max, hi = 100 * (v + err) / max;
    lo = lo < 0 ? 0 : lo > 100 ? 100 : lo;
    hi = hi < 0 ? 0 : hi > 100 ? 100 : hi;
    fprintf(out, "<i title=\"%s %.3g J\" style=\"left:calc(8px + "
            "(100%% - 16px) * %.4f);width:calc((100%% - 16px) * %.4f)\">"
            "</i>", "\u00b1", err, lo / 100, (hi - lo) / 100);
  }
  fputs("</td>", out);
}

/* A right-aligned cell with an energy and its error bar ("? " when
 * unknown), and the ESTIMATE badge when est is positive. */
static void energy_cell(FILE *out, double v, double err, int est) {
  char a[CELL_MAX], b[CELL_MAX];

  fputs("<td class=\"n\">", out);
  fig(out, report_si(a, v, "J"));
  if (!isnan(v))
    fprintf(out, " <span class=\"muted\">%s%s</span>", "\u00b1",
            isnan(err) ? "?" : report_si(b, err, "J"));
  badge(out, est);
  fputs("</td>", out);
}

/* A right-aligned cell with a figure as fig() writes it, and the ESTIMATE
 * badge when est is positive. */
static void num_cell(FILE *out, const char *s, int est) {
  fputs("<td class=\"n\">", out);
  fig(out, s);
  badge(out, est);
  fputs("</td>", out);
}

static const char *plain(char buf[CELL_MAX], double v, int decimals) {
  if (isnan(v))
    return NULL;
  snprintf(buf, CELL_MAX, "%.*f", decimals, v);
  return buf;
}

static const char *percent(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return NULL;
  snprintf(buf, CELL_MAX, "%.1f %%", v);
  return buf;
}

/* Three significant digits, for ratios. */
static const char *ratio(char buf[CELL_MAX], double v) {
  if (isnan(v))
    return NULL;
  snprintf(buf, CELL_MAX, fabs(v) >= 1000 ? "%.0f" : "%.3g", v);
  return buf;
}

/* Formats v, a small figure, with the SI prefix (milli, micro, nano,
 * pico) that leaves 1 to 999 before the point: "5.29 <small>uJ/B</small>"
 * with a micro sign. */
static const char *tiny(char buf[CELL_MAX], double v, const char *unit) {
  static const char *const prefixes[] = {"", "m", "\xC2\xB5", "n", "p"};
  size_t p = 0;

  if (isnan(v))
    return NULL;
  while (v != 0 && fabs(v) < 0.9995 && p + 1 < COUNT_OF(prefixes)) {
    v *= 1000;
    p++;
  }
  snprintf(buf, CELL_MAX, "%.3g <small>%s%s</small>", v, prefixes[p], unit);
  return buf;
}

/* ---- The summary ------------------------------------------------------- */

/* The least energy coverage of the nodes, NAN when none has one; *short_
 * gets the nodes measured over less than 99.5 % of their run. */
static double least_coverage(const struct report *r, size_t *short_) {
  double least = NAN;
  *short_ = 0;
  for (size_t i = 0; i < r->nnodes; i++) {
    double c = r->nodes[i].energy_coverage;
    if (isnan(c))
      continue;
    least = isnan(least) || c < least ? c : least;
    *short_ += c < 0.995;
  }
  return least;
}

/* Whether some node record of R has the key KEY, null or not. */
static int nodes_have(const struct report *r, const char *key) {
  json_t *nodes = json_object_get(r->root, "nodes"), *node;
  size_t i;

  json_array_foreach(nodes, i, node) {
    if (json_object_get(node, key) != NULL)
      return 1;
  }
  return 0;
}

/* Formats into buf the wall time in seconds and when the job ran, from
 * its ISO 8601 start and end: "612.418 s, 2026-11-21, 10:15:02 to
 * 10:25:14 UTC" when they are on one day. */
static const char *when(char buf[160], double wall_s, const char *start,
                        const char *end) {
  size_t ls = start ? strlen(start) : 0, le = end ? strlen(end) : 0;
  int n = isnan(wall_s) ? snprintf(buf, 160, "-")
                        : snprintf(buf, 160, "%.3f s", wall_s);

  if (start == NULL && end == NULL)
    return buf;
  if (ls == 20 && le == 20 && start[10] == 'T' && end[10] == 'T' &&
      start[19] == 'Z' && end[19] == 'Z' && strncmp(start, end, 10) == 0)
    snprintf(buf + n, (size_t)(160 - n), ", %.10s, %.8s to %.8s UTC", start,
             start + 11, end + 11);
  else
    snprintf(buf + n, (size_t)(160 - n), ", %.60s to %.60s",
             start ? start : "?", end ? end : "?");
  return buf;
}

/* ---- Shared nodes ------------------------------------------------------ */

/* The note of shared nodes (nodes[].sharing): the energies are the
 * job's share of the nodes' (all the nodes' meters saw, in a report from
 * before the split); each shared node's share by its model, for the
 * first few.  Nothing when no node was shared. */
static void shared_note(FILE *out, const struct report *r) {
  size_t n = report_shared_nodes(r), shown = 0;
  int done = report_shares_applied(r) == n;

  if (n == 0)
    return;
  fprintf(out, "<p class=\"note\"><span class=\"est\">SHARED</span> %zu of "
               "%zu node%s shared with other work: %s.",
          n, r->nnodes, r->nnodes == 1 ? " was" : "s were",
          done ? "every energy here is this job's share of the node's"
               : "every energy here is all the node's meters saw, not this "
                 "job's alone");
  for (size_t i = 0; i < r->nnodes && shown < 4; i++) {
    const struct node *nd = &r->nodes[i];
    const struct sharing *sh = &nd->sharing;
    double err, part = report_share_part(nd, &err);

    if (sh->shared <= 0 || !isfinite(sh->share))
      continue;
    fputs(shown++ == 0 ? " This job's share: " : "; ", out);
    esc(out, nd->name);
    fprintf(out, " %.0f %s %.0f %% by ", 100 * sh->share, report_pm(),
            isfinite(sh->share_err) ? 100 * sh->share_err : NAN);
    esc(out, sh->share_model != NULL ? sh->share_model : "?");
    if (isfinite(part) && isfinite(err))
      fprintf(out, ", %.1f %s %.1f J of %s %.1f J", part, report_pm(), err,
              done ? "the node's" : "its",
              done ? nd->node_energy_j : nd->energy_j);
    else if (isfinite(part))
      fprintf(out, ", %.1f %s? J of %s %.1f J", part, report_pm(),
              done ? "the node's" : "its",
              done ? nd->node_energy_j : nd->energy_j);
  }
  fputs(shown > 0 && !done ? " (not applied to the figures).</p>\n"
                           : shown > 0 ? ".</p>\n" : "</p>\n",
        out);
}

static void summary(FILE *out, const struct report *r) {
  char a[CELL_MAX], b[CELL_MAX], sub[160];
  size_t short_ = 0, est = 0;
  double cov = least_coverage(r, &short_);
  int partial = r->covers && strcmp(r->covers, "node") != 0;

  for (size_t i = 0; i < r->nnodes; i++)
    est += r->nodes[i].estimated > 0;
  fputs("<div class=\"cards\">\n", out);
  card_open(out, "Energy", 0, r->estimated);
  fig(out, report_si(a, r->energy_j, "J"));
  if (isnan(r->energy_err_j) && r->estimated)
    snprintf(sub, sizeof sub, "%s J, estimated: no error bar",
             plain(b, r->energy_j, 1) ? b : "-");
  else if (isnan(r->energy_err_j))
    snprintf(sub, sizeof sub, "%s J %s?", plain(b, r->energy_j, 1) ? b : "-",
             "\u00b1");
  else
    snprintf(sub, sizeof sub, "%s %s %.1f J",
             plain(b, r->energy_j, 1) ? b : "-", "\u00b1", r->energy_err_j);
  card_close(out, isnan(r->energy_j) ? "not measured" : sub);

  card_open(out, "Mean power", 0, r->estimated);
  fig(out, report_si(a, r->power_w, "W"));
  card_close(out, "energy / wall time");

  card_open(out, "Wall time", 0, 0);
  fig(out, report_duration(a, r->job.wall_s, 1));
  card_close(out, when(sub, r->job.wall_s, r->job.start, r->job.end));

  card_open(out, "Nodes", 0, 0);
  fig(out, plain(a, r->job.nodes, 0));
  snprintf(sub, sizeof sub, "%s rank%s%s", plain(b, r->job.ranks, 0) ? b
           : "-", r->job.ranks == 1 ? "" : "s",
           r->job.mpi == 0 ? ", without MPI" : "");
  card_close(out, sub);

  card_open(out, "Covers", partial ? 2 : 0, 0);
  fputs("<span class=\"v t\">", out);
  if (r->covers == NULL)
    fig(out, NULL);
  else if (!partial)
    fputs("whole nodes", out);
  else
    esc(out, r->covers);
  fputs("</span>", out);
  /* A key present but null: a current report whose nodes measured
   * nothing; absent: a report from before the key. */
  card_close(out, r->covers == NULL
                  ? json_object_get(r->root, "covers") != NULL
                      ? "no node measured its energy"
                      : "not said (an older report)"
                  : partial ? "only: not the whole nodes' energy"
                  : r->estimated ? "a model of the whole node, not a meter"
                            : "a meter of the whole node");

  /* What a meter measured: a model's figures are none of it. */
  card_open(out, "Coverage", short_ > 0 || est > 0, 0);
  if (est > 0 && est == r->nnodes) {
    fputs("<span class=\"v t\">nothing measured</span>", out);
    snprintf(sub, sizeof sub, "a model estimated %s of the run",
             percent(b, isnan(cov) ? NAN : 100 * cov));
  } else {
    fig(out, percent(a, isnan(cov) ? NAN : 100 * cov));
    if (isnan(cov))
      snprintf(sub, sizeof sub, "%s", nodes_have(r, "energy_coverage")
                                          ? "no node measured its energy"
                                          : "not in this report");
    else if (est > 0)
      snprintf(sub, sizeof sub, "least of the nodes; %zu of %zu nodes "
               "estimated, not measured", est, r->nnodes);
    else
      snprintf(sub, sizeof sub, short_ ? "least of the nodes; %zu below "
               "99.5 %%" : "of the run measured, least of the nodes", short_);
  }
  card_close(out, sub);
  fputs("</div>\n", out);
  if (r->estimated > 0) {
    fputs("<p class=\"note\"><span class=\"est\">ESTIMATE</span> ", out);
    if (est > 0 && est < r->nnodes)
      fprintf(out, "The power of %zu of the %zu nodes", est, r->nnodes);
    else
      fputs("Every figure", out);
    fputs(" comes from a model (the <code>estimate</code> meter), not from "
          "a meter: every figure it touches is marked.</p>\n", out);
  }
  shared_note(out, r);
}

/* ---- Advice ------------------------------------------------------------ */

#define MAX_ADVICE 8 /* items on the page; pmon-report advise has them all */

/* What would have cost less (pmon-report advise), the largest saving
 * first, each with its bar and what it assumes. */
static void advice(FILE *out, const struct report *r) {
  struct report_advice it[MAX_ADVICE];
  size_t n = report_advice(r, it, MAX_ADVICE);
  char a[CELL_MAX];

  fputs("<h3>What would have cost less", out);
  badge(out, r->estimated);
  fprintf(out, "<small>%zu change%s that the figures support, the largest "
               "saving first (pmon-report advise)</small></h3>\n",
          n, n == 1 ? "" : "s");
  if (n == 0) {
    fputs("<p class=\"note\">None: no change whose saving this report's "
          "figures show above its bar (pmon-report(1), ADVISE).</p>\n", out);
    return;
  }
  fputs("<table><thead><tr><th>kind</th><th>seen</th><th>change</th>"
        "<th class=\"n\">saving</th><th class=\"n\">of the job</th>"
        "<th class=\"n\">time</th></tr></thead><tbody>\n", out);
  for (size_t i = 0; i < n; i++) {
    fputs("<tr title=\"", out);
    esc(out, it[i].assumes);
    fputs("\"><td class=\"mono\">", out);
    esc(out, it[i].kind);
    fputs("</td><td>", out);
    esc(out, it[i].what);
    fputs("</td><td class=\"mono\">", out);
    esc(out, it[i].setting);
    fputs("</td>", out);
    energy_cell(out, it[i].saving_j, it[i].saving_err_j, r->estimated);
    if (r->energy_j > 0)
      snprintf(a, sizeof a, "%.2g %%", 100 * it[i].saving_j / r->energy_j);
    else
      snprintf(a, sizeof a, "\xE2\x80\x93");
    num_cell(out, a, 0);
    if (isfinite(it[i].time_change_s))
      snprintf(a, sizeof a, "%+.3g s", it[i].time_change_s);
    else
      snprintf(a, sizeof a, "\xE2\x80\x93");
    num_cell(out, a, 0);
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table>\n<p class=\"note\">Each saving is a prediction "
        "from this run's own figures; what it assumes is in its "
        "row's tooltip and in <code>pmon-report advise</code>, and "
        "<code>pmon-report advise --check</code> checks it on the next "
        "run.</p>\n", out);
}

/* ---- Regions and nodes ------------------------------------------------- */

static void regions(FILE *out, const struct report *r) {
  struct region *sorted;
  double max = 0, rest_j = 0, rest_n = 0;
  size_t shown;
  char a[CELL_MAX];

  fputs("<h3>Energy per region", out);
  fprintf(out, "<small>%zu region%s, the largest first</small></h3>\n",
          r->nregions, r->nregions == 1 ? "" : "s");
  if (r->nregions == 0) {
    fputs("<p class=\"note\">No regions: the program marked none "
          "(pmon_region_begin(3)).</p>\n", out);
    return;
  }
  sorted = report_xcalloc(r->nregions, sizeof *sorted);
  memcpy(sorted, r->regions, r->nregions * sizeof *sorted);
  qsort(sorted, r->nregions, sizeof *sorted, report_by_energy);
  shown = r->nregions < MAX_REGIONS ? r->nregions : MAX_REGIONS;
  for (size_t i = 0; i < r->nregions; i++) {
    max = sorted[i].energy_j > max ? sorted[i].energy_j : max;
    if (i >= shown && !isnan(sorted[i].energy_j)) {
      rest_j += sorted[i].energy_j;
      rest_n++;
    }
  }
  fputs("<table class=\"regions\"><thead><tr><th>region</th><th>energy</th>"
        "<th class=\"n\">joules</th><th class=\"n\">share</th>"
        "<th class=\"n\">pairs</th><th class=\"n\">time</th>"
        "<th class=\"n\">power</th></tr></thead><tbody>\n", out);
  for (size_t i = 0; i < shown; i++) {
    const struct region *g = &sorted[i];
    fputs("<tr><td class=\"name\">", out);
    esc(out, g->name);
    if (g->coverage < 0.995)
      fprintf(out, " <span class=\"muted\">(measured over %.0f %% of its "
              "time)</span>", 100 * g->coverage);
    if (g->unclosed > 0)
      fprintf(out, " <span class=\"muted\">(open at the end %.0f "
              "time%s)</span>", g->unclosed, g->unclosed == 1 ? "" : "s");
    if (g->energy_method != NULL && (strcmp(g->energy_method, "fit") == 0 ||
                                     strcmp(g->energy_method, "mixed") == 0))
      fprintf(out, " <span class=\"muted\" title=\"energy_method %s: "
              "pmon(7), Short regions\">(fitted over the meter's "
              "intervals%s)</span>", g->energy_method,
              strcmp(g->energy_method, "mixed") == 0 ? " on some nodes" : "");
    fputs("</td>", out);
    bar_cell(out, g->energy_j, g->energy_err_j, max, r->estimated);
    energy_cell(out, g->energy_j, g->energy_err_j, r->estimated);
    num_cell(out, percent(a, g->share), 0);
    num_cell(out, plain(a, g->count, 0), 0);
    num_cell(out, report_duration(a, g->time_s, 0), 0);
    num_cell(out, report_si(a, g->power_w, "W"), r->estimated);
    fputs("</tr>\n", out);
  }
  if (shown < r->nregions)
    fprintf(out, "<tr class=\"more\"><td colspan=\"7\">%zu more regions, "
            "%.0f with energy: %s together</td></tr>\n",
            r->nregions - shown, rest_n, report_si(a, rest_j, "J"));
  fputs("</tbody></table>\n", out);
  free(sorted);
}

/* One row of the node table. */
static void node_row(FILE *out, const struct node *n, double max) {
  char a[CELL_MAX];

  fputs("<tr><td class=\"name\">", out);
  esc(out, n->name);
  fputs("</td>", out);
  bar_cell(out, n->energy_j, n->energy_err_j, max, n->estimated);
  energy_cell(out, n->energy_j, n->energy_err_j, n->estimated);
  num_cell(out, report_si(a, n->power_w, "W"), n->estimated);
  num_cell(out, report_duration(a, n->wall_s, 0), 0);
  num_cell(out, percent(a, 100 * n->energy_coverage), 0);
  num_cell(out, plain(a, n->nevents, 0), 0);
  fputs("</tr>\n", out);
}

static void node_head(FILE *out) {
  fputs("<table class=\"nodes\"><thead><tr><th>node</th><th>energy</th>"
        "<th class=\"n\">joules</th><th class=\"n\">power</th>"
        "<th class=\"n\">wall time</th><th class=\"n\">coverage</th>"
        "<th class=\"n\">events</th></tr></thead><tbody>\n", out);
}

/* Orders nodes by energy, largest first, those without a figure last. */
static int node_by_energy(const void *a, const void *b) {
  const struct node *x = *(const struct node *const *)a;
  const struct node *y = *(const struct node *const *)b;
  if (isnan(x->energy_j) != isnan(y->energy_j))
    return isnan(x->energy_j) ? 1 : -1;
  return x->energy_j > y->energy_j ? -1 : x->energy_j < y->energy_j;
}

/* A histogram of the nodes' energy: HIST_BINS bars between the least and
 * the largest, as a small SVG drawing. */
static void histogram(FILE *out, const struct report *r, double lo,
                      double hi) {
  size_t bins[HIST_BINS] = {0}, top = 1;
  double w = (hi - lo) / HIST_BINS;
  char a[CELL_MAX], b[CELL_MAX];

  for (size_t i = 0; i < r->nnodes; i++) {
    double e = r->nodes[i].energy_j;
    size_t k;
    if (isnan(e))
      continue;
    k = w > 0 ? (size_t)((e - lo) / w) : 0;
    k = k >= HIST_BINS ? HIST_BINS - 1 : k;
    top = ++bins[k] > top ? bins[k] : top;
  }
  fputs("<figure><svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
        "class=\"histogram\" width=\"960\" height=\"190\" "
        "viewBox=\"0 0 960 190\" role=\"img\" font-size=\"12\" "
        "font-family=\"DejaVu Sans, Verdana, Helvetica, Arial, sans-serif\" "
        "style=\"width:100%;height:auto\">"
        "<title>nodes by energy</title>\n", out);
  for (size_t k = 0; k < HIST_BINS; k++) {
    double h = 130.0 * (double)bins[k] / (double)top;
    fprintf(out, "<rect class=\"hist-bin\" x=\"%.1f\" y=\"%.1f\" "
            "width=\"%.1f\" height=\"%.1f\" fill=\"#0072B2\"><title>%zu "
            "node%s, %s to %s</title></rect>", 60 + k * 36.0, 150 - h, 32.0,
            h, bins[k], bins[k] == 1 ? "" : "s",
            report_si(a, lo + k * w, "J"), report_si(b, lo + (k + 1) * w,
                                                     "J"));
    if (bins[k])
      fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
              "fill=\"#1a1a1a\">%zu</text>", 76 + k * 36.0, 145 - h,
              bins[k]);
    fputs("\n", out);
  }
  fprintf(out, "<line x1=\"56\" x2=\"928\" y1=\"150.5\" y2=\"150.5\" "
          "stroke=\"#333\"/><text x=\"60\" y=\"168\" fill=\"#1a1a1a\">%s"
          "</text><text x=\"924\" y=\"168\" text-anchor=\"end\" "
          "fill=\"#1a1a1a\">%s</text><text x=\"492\" y=\"184\" "
          "text-anchor=\"middle\" fill=\"#5a5a5a\">node energy (nodes per "
          "bar)</text></svg></figure>\n", report_si(a, lo, "J"),
          report_si(b, hi, "J"));
}

static void nodes(FILE *out, const struct report *r) {
  const struct node **by = report_xcalloc(r->nnodes, sizeof *by);
  double max = 0, lo = INFINITY;
  size_t with = 0;

  for (size_t i = 0; i < r->nnodes; i++) {
    by[i] = &r->nodes[i];
    if (!isnan(r->nodes[i].energy_j)) {
      max = r->nodes[i].energy_j > max ? r->nodes[i].energy_j : max;
      lo = r->nodes[i].energy_j < lo ? r->nodes[i].energy_j : lo;
      with++;
    }
  }
  fprintf(out, "<h3>Energy per node<small>%zu node%s", r->nnodes,
          r->nnodes == 1 ? "" : "s");
  if (r->nnodes > MAX_NODE_BARS)
    fprintf(out, ": how they spread, the %d highest and the %d lowest",
            NODE_EXTREMES, NODE_EXTREMES);
  fputs("</small></h3>\n", out);
  if (r->nnodes <= MAX_NODE_BARS) {
    node_head(out);
    for (size_t i = 0; i < r->nnodes; i++)
      node_row(out, &r->nodes[i], max);
    fputs("</tbody></table>\n", out);
    free(by);
    return;
  }
  if (with > 0)
    histogram(out, r, lo, max);
  qsort(by, r->nnodes, sizeof *by, node_by_energy);
  node_head(out);
  for (size_t i = 0; i < NODE_EXTREMES; i++)
    node_row(out, by[i], max);
  fprintf(out, "<tr class=\"more\"><td colspan=\"7\">%zu nodes between"
          "</td></tr>\n", r->nnodes - 2 * NODE_EXTREMES);
  for (size_t i = r->nnodes - NODE_EXTREMES; i < r->nnodes; i++)
    node_row(out, by[i], max);
  fputs("</tbody></table>\n", out);
  free(by);
}

/* ---- I/O, meters, events ----------------------------------------------- */

static void io(FILE *out, const struct report *r) {
  const struct io *x = &r->io;
  char a[CELL_MAX], sub[96];
  double moved = x->bytes_read + x->bytes_written;
  int est = x->estimated > 0;

  fputs("<h3>I/O<small>MPI-IO calls, MB = 10<sup>6</sup> bytes</small>"
        "</h3>\n", out);
  if (!r->has_io) {
    fprintf(out, "<p class=\"note\">No MPI-IO calls recorded: %s.</p>\n",
            report_no_io_reason(r));
    return;
  }
  fputs("<div class=\"cards\">\n", out);
  card_open(out, "Read", 0, 0);
  fig(out, report_si(a, x->bytes_read, "B"));
  snprintf(sub, sizeof sub, "%.0f read calls", x->reads);
  card_close(out, isnan(x->reads) ? NULL : sub);
  card_open(out, "Written", 0, 0);
  fig(out, report_si(a, x->bytes_written, "B"));
  snprintf(sub, sizeof sub, "%.0f write calls", x->writes);
  card_close(out, isnan(x->writes) ? NULL : sub);
  card_open(out, "Rate", 0, 0);
  fig(out, ratio(a, x->mb_per_s));
  fputs(" <small>MB/s</small>", out);
  card_close(out, "on the slowest rank's I/O time");
  card_open(out, "I/O energy", 0, est);
  fig(out, report_si(a, x->energy_j, "J"));
  snprintf(sub, sizeof sub, "%.0f node%s without a figure",
           x->nodes_without_energy, x->nodes_without_energy == 1 ? "" : "s");
  card_close(out, x->nodes_without_energy > 0 ? sub
                  : "the nodes' energy in their phases");
  card_open(out, "I/O power", 0, est);
  fig(out, report_si(a, x->power_w, "W"));
  card_close(out, "during the phases");
  card_open(out, "Data per joule", 0, est);
  fig(out, ratio(a, x->mb_per_j));
  fputs(" <small>MB/J</small>", out);
  card_close(out, NULL);
  card_open(out, "Rate per watt", 0, est);
  fig(out, ratio(a, x->mb_per_s_per_w));
  fputs(" <small>MB/s/W</small>", out);
  card_close(out, NULL);
  card_open(out, "Energy per byte", 0, est);
  fig(out, tiny(a, x->j_per_byte, "J/B"));
  card_close(out, NULL);
  card_open(out, "Phases", 0, 0);
  fig(out, plain(a, x->phases, 0));
  snprintf(sub, sizeof sub, "%s on the longest node",
           report_duration(a, x->phase_time_s, 0) ? a : "-");
  card_close(out, sub);
  card_open(out, "Calls", 0, 0);
  fig(out, plain(a, x->ops, 0));
  snprintf(sub, sizeof sub, "%.0f failed, %s in calls", x->errors,
           report_duration(a, x->time_s, 0) ? a : "-");
  card_close(out, isnan(x->errors) ? NULL : sub);
  fputs("</div>\n", out);
  if (moved > 0 && x->nfiles > 0) {
    size_t n = x->nfiles < MAX_FILES ? x->nfiles : MAX_FILES;
    fputs("<table class=\"files\"><thead><tr><th>file</th>"
          "<th class=\"n\">read</th><th class=\"n\">written</th>"
          "<th class=\"n\">calls</th><th class=\"n\">time</th>"
          "<th class=\"n\">ranks</th></tr></thead><tbody>\n", out);
    for (size_t i = 0; i < n; i++) {
      const struct iofile *f = &x->files[i];
      fputs("<tr><td class=\"name mono\">", out);
      esc(out, f->name);
      fputs("</td>", out);
      num_cell(out, report_si(a, f->bytes_read, "B"), 0);
      num_cell(out, report_si(a, f->bytes_written, "B"), 0);
      num_cell(out, plain(a, f->ops, 0), 0);
      num_cell(out, report_duration(a, f->time_s, 0), 0);
      num_cell(out, plain(a, f->ranks, 0), 0);
      fputs("</tr>\n", out);
    }
    if (x->nfiles > n || x->files_omitted > 0)
      fprintf(out, "<tr class=\"more\"><td colspan=\"6\">%.0f more files"
              "</td></tr>\n", (double)(x->nfiles - n) +
              (isnan(x->files_omitted) ? 0 : x->files_omitted));
    fputs("</tbody></table>\n", out);
  }
}

/* ---- Communication ----------------------------------------------------- */


#define PLOT_W 420
#define PLOT_H 260
#define PLOT_L 64 /* left margin, for the y labels */
#define PLOT_B 36 /* bottom margin, for the x labels */
#define PLOT_T 12
#define PLOT_R 12
#define MAX_COMM_ROWS 64

static const char *const call_colours[] = {
  "#1f6fb2", "#d1495b", "#2a9d8f", "#e09f3e", "#6d597a",
  "#3d405b", "#8ab17d", "#b5651d", "#00798c", "#9b2226"};

/* One log-log plot of the per-byte figure at offset OFF of struct commrow
 * (s/B or J/B) against the size bin, one line per call; the bins of no
 * bytes and the rows without the figure are left out.  ID names it. */
static void comm_plot(FILE *out, const struct comm *c, size_t off,
                      const char *title, const char *id) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  const double w = PLOT_W - PLOT_L - PLOT_R, h = PLOT_H - PLOT_T - PLOT_B;
  size_t ncalls = 0;

  for (size_t i = 0; i < c->nrows; i++) {
    const struct commrow *w_ = &c->rows[i];
    double y = *(const double *)(const void *)((const char *)w_ + off);
    if (!(w_->size_min > 0) || !(y > 0))
      continue;
    xlo = fmin(xlo, log2(w_->size_min));
    xhi = fmax(xhi, log2(w_->size_min));
    ylo = fmin(ylo, floor(log10(y)));
    yhi = fmax(yhi, ceil(log10(y)));
  }
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" "
          "class=\"comm-plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
          "%d\" role=\"img\"><title>", id, PLOT_W, PLOT_H, PLOT_W, PLOT_H);
  esc(out, title);
  fputs("</title>\n", out);
  if (!isfinite(xlo) || !isfinite(ylo)) {
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\">no figure to "
            "draw</text></svg>\n", PLOT_L, PLOT_H / 2);
    return;
  }
  if (xhi <= xlo)
    xhi = xlo + 1;
  if (yhi <= ylo)
    yhi = ylo + 1;
  /* Axes, decades of y and powers of 4 of x. */
  fputs("<g font-size=\"11\" fill=\"#555\" stroke=\"none\">\n", out);
  for (double d = ylo; d <= yhi; d++) {
    double y = PLOT_T + h - (d - ylo) / (yhi - ylo) * h;
    fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%.0f"
            "</text><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#e3e3e3\"/>\n", PLOT_L - 4, y + 4, d, PLOT_L,
            PLOT_W - PLOT_R, y, y);
  }
  for (double e = ceil(xlo); e <= xhi; e += xhi - xlo > 12 ? 4 : 2) {
    char lab[16];
    double x = PLOT_L + (e - xlo) / (xhi - xlo) * w;
    report_size_text(lab, sizeof lab, ldexp(1, (int)e));
    fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s"
            "</text>\n", x, PLOT_H - PLOT_B + 16, lab);
  }
  fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">bytes "
          "per call</text></g>\n", PLOT_L + w / 2, PLOT_H - 4);
  fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" "
          "fill=\"none\" stroke=\"#999\"/>\n", PLOT_L, PLOT_T, w, h);
  /* One line per call, in the order of the rows. */
  for (size_t i = 0; i < c->nrows; i++) {
    const char *call = c->rows[i].call;
    const char *colour;
    size_t n = 0;
    int seen = 0;
    for (size_t j = 0; j < i; j++)
      seen |= call != NULL && c->rows[j].call != NULL &&
              strcmp(c->rows[j].call, call) == 0;
    if (seen || call == NULL)
      continue;
    colour = call_colours[ncalls % COUNT_OF(call_colours)];
    for (size_t j = i; j < c->nrows; j++) {
      const struct commrow *w_ = &c->rows[j];
      double y = *(const double *)(const void *)((const char *)w_ + off);
      double px, py;
      if (w_->call == NULL || strcmp(w_->call, call) != 0 ||
          !(w_->size_min > 0) || !(y > 0))
        continue;
      px = PLOT_L + (log2(w_->size_min) - xlo) / (xhi - xlo) * w;
      py = PLOT_T + h - (log10(y) - ylo) / (yhi - ylo) * h;
      if (n++ == 0) {
        fprintf(out, "<g class=\"call\" stroke=\"%s\" fill=\"%s\"><title>",
                colour, colour);
        esc(out, call);
        fputs("</title><polyline fill=\"none\" stroke-width=\"1.5\" "
              "points=\"", out);
      }
      fprintf(out, "%s%.1f,%.1f", n > 1 ? " " : "", px, py);
    }
    if (n == 0)
      continue;
    fputs("\"/></g>\n", out);
    fprintf(out, "<text x=\"%d\" y=\"%zu\" font-size=\"11\" fill=\"%s\">",
            PLOT_W - PLOT_R - 120, PLOT_T + 12 + 13 * ncalls, colour);
    esc(out, call);
    fputs("</text>\n", out);
    ncalls++;
  }
  fputs("</svg>\n", out);
}

/* The job's communication calls: cards, the plots of s/B and J/B against
 * the message size, and the rows. */
static void comm(FILE *out, const struct report *r, size_t index) {
  const struct comm *c = &r->comm;
  char a[CELL_MAX], id[32];
  int est = c->estimated > 0;
  size_t n = c->nrows < MAX_COMM_ROWS ? c->nrows : MAX_COMM_ROWS;

  fputs("<h3>Communication<small>MPI calls, by call and bytes per call"
        "</small></h3>\n", out);
  if (!r->has_comm) {
    fprintf(out, "<p class=\"note\">No communication calls recorded: %s."
            "</p>\n", report_no_comm_reason(r));
    return;
  }
  fputs("<div class=\"cards\">\n", out);
  card_open(out, "Calls", 0, 0);
  fig(out, plain(a, c->calls, 0));
  card_close(out, NULL);
  card_open(out, "Bytes", 0, 0);
  fig(out, report_si(a, c->bytes, "B"));
  card_close(out, "through the ranks' buffers");
  card_open(out, "Time in calls", 0, 0);
  fig(out, report_duration(a, c->time_s, 0));
  card_close(out, "summed over the ranks");
  card_open(out, "Energy", 0, est);
  fig(out, report_si(a, c->energy_j, "J"));
  card_close(out, "each rank's share of its node's");
  card_open(out, "Energy per byte", 0, est);
  fig(out, tiny(a, c->j_per_byte, "J/B"));
  card_close(out, NULL);
  fputs("</div>\n<figure class=\"comm\">\n", out);
  snprintf(id, sizeof id, "r%zu-comm-s", index);
  comm_plot(out, c, offsetof(struct commrow, s_per_byte),
            "seconds per byte against bytes per call", id);
  snprintf(id, sizeof id, "r%zu-comm-j", index);
  comm_plot(out, c, offsetof(struct commrow, j_per_byte),
            "joules per byte against bytes per call", id);
  fputs("<figcaption>Delay (s/B, left) and energy (J/B, right) per byte, "
        "against the bytes of a call, one line per call; both axes "
        "logarithmic.</figcaption></figure>\n", out);
  fputs("<table class=\"comm\"><thead><tr><th>call</th><th>bytes/call</th>"
        "<th class=\"n\">calls</th><th class=\"n\">bytes</th>"
        "<th class=\"n\">time</th><th class=\"n\">energy</th>"
        "<th class=\"n\">s/B</th><th class=\"n\">J/B</th></tr></thead>"
        "<tbody>\n", out);
  for (size_t i = 0; i < n; i++) {
    const struct commrow *w = &c->rows[i];
    fputs("<tr><td class=\"mono\">", out);
    esc(out, w->call);
    fputs("</td><td class=\"mono\">", out);
    esc(out, w->size);
    fputs("</td>", out);
    num_cell(out, plain(a, w->calls, 0), 0);
    num_cell(out, report_si(a, w->bytes, "B"), 0);
    num_cell(out, report_duration(a, w->time_s, 0), 0);
    num_cell(out, report_si(a, w->energy_j, "J"), est);
    num_cell(out, tiny(a, w->s_per_byte, "s/B"), 0);
    num_cell(out, tiny(a, w->j_per_byte, "J/B"), est);
    fputs("</tr>\n", out);
  }
  if (c->nrows > n)
    fprintf(out, "<tr class=\"more\"><td colspan=\"8\">%zu more rows"
            "</td></tr>\n", c->nrows - n);
  fputs("</tbody></table>\n", out);
}

/* Whether two strings that may be NULL are equal. */
static int same(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether nodes a and b have the same kind of total. */
static int same_total(const struct node *a, const struct node *b) {
  return same(a->covers, b->covers) && same(a->total_how, b->total_how) &&
         same(a->total_from, b->total_from) &&
         (a->estimated > 0) == (b->estimated > 0);
}

/* The meters, then the kinds of node total: what each covers and how it
 * was formed, with how many nodes have it. */
static void meters(FILE *out, const struct report *r) {
  const struct node *kinds[MAX_TOTALS];
  size_t count[MAX_TOTALS] = {0}, nkinds = 0, other = 0;
  char a[CELL_MAX];

  fprintf(out, "<h3>Meters<small>%zu meter%s</small></h3>\n", r->nmeters,
          r->nmeters == 1 ? "" : "s");
  fputs("<table class=\"meters\"><thead><tr><th>driver</th><th>meter</th>"
        "<th>kind</th><th class=\"n\">every</th><th>channels (in the "
        "total)</th></tr></thead><tbody>\n", out);
  for (size_t i = 0; i < r->nmeters; i++) {
    const struct meter *m = &r->meters[i];
    size_t nc = 0;
    fputs("<tr><td>", out);
    esc(out, m->driver);
    badge(out, m->estimated);
    fputs("</td><td class=\"name mono\">", out);
    esc(out, m->spec);
    fputs("</td><td>", out);
    esc(out, m->kind);
    fputs("</td>", out);
    snprintf(a, sizeof a, "%g s", m->interval_s);
    num_cell(out, isnan(m->interval_s) ? NULL : a, 0);
    fputs("<td>", out);
    for (size_t c = 0; c < r->nchannels; c++) {
      const struct channel *ch = &r->channels[c];
      if (ch->meter != i)
        continue;
      fputs(nc++ ? ", " : "", out);
      fputs(ch->total > 0 ? "<b>" : "", out);
      esc(out, ch->name);
      fputs(ch->total > 0 ? "</b>" : "", out);
    }
    fputs("</td></tr>\n", out);
  }
  fputs("</tbody></table>\n", out);

  for (size_t i = 0; i < r->nnodes; i++) {
    const struct node *n = &r->nodes[i];
    size_t k = 0;
    while (k < nkinds && !same_total(kinds[k], n))
      k++;
    if (k == nkinds && nkinds == MAX_TOTALS) {
      other++;
      continue;
    }
    if (k == nkinds)
      kinds[nkinds++] = n;
    count[k]++;
  }
  if (nkinds == 0)
    return;
  fputs("<p class=\"sub\">What the nodes' totals cover</p>\n"
        "<table class=\"totals\"><thead><tr><th class=\"n\">nodes</th>"
        "<th>the node total covers</th><th>formed from</th></tr></thead>"
        "<tbody>\n", out);
  for (size_t k = 0; k < nkinds; k++) {
    const struct node *n = kinds[k];
    fprintf(out, "<tr><td class=\"n\">%zu</td><td>", count[k]);
    if (n->covers && strcmp(n->covers, "node") != 0) {
      esc(out, n->covers);
      fputs(" <span class=\"muted\">(not the whole node)</span>", out);
    } else
      esc(out, n->covers ? "the whole node" : NULL);
    badge(out, n->estimated);
    fputs("</td><td>", out);
    esc(out, n->total_how ? n->total_how : n->total_from);
    fputs("</td></tr>\n", out);
  }
  if (other > 0)
    fprintf(out, "<tr class=\"more\"><td colspan=\"3\">%zu nodes with "
            "other totals</td></tr>\n", other);
  fputs("</tbody></table>\n", out);
}

static void events(FILE *out, const struct report *r) {
  const char *types[MAX_TYPES];
  size_t count[MAX_TYPES] = {0}, ntypes = 0, shown;

  fprintf(out, "<h3>Events<small>%zu event%s</small></h3>\n", r->nevents,
          r->nevents == 1 ? "" : "s");
  if (r->nevents == 0) {
    fputs("<p class=\"note\">None: no reset, gap, read error or other "
          "event on any node.</p>\n", out);
    return;
  }
  for (size_t i = 0; i < r->nevents; i++) {
    const char *t = r->events[i].type ? r->events[i].type : "-";
    size_t k = 0;
    while (k < ntypes && strcmp(types[k], t) != 0)
      k++;
    if (k == ntypes && ntypes < MAX_TYPES)
      types[ntypes++] = t;
    if (k < ntypes)
      count[k]++;
  }
  fputs("<p class=\"chips\">", out);
  for (size_t k = 0; k < ntypes; k++) {
    fprintf(out, "<span>%zu \xC3\x97 ", count[k]);
    esc(out, types[k]);
    fputs("</span>", out);
  }
  fputs("</p>\n<table class=\"events\"><thead><tr><th>node</th>"
        "<th class=\"n\">time</th><th>event</th><th>meter</th>"
        "<th>detail</th></tr></thead><tbody>\n", out);
  shown = r->nevents < MAX_EVENTS ? r->nevents : MAX_EVENTS;
  for (size_t i = 0; i < shown; i++) {
    const struct event *ev = &r->events[i];
    fputs("<tr><td class=\"name\">", out);
    esc(out, ev->node);
    fprintf(out, "</td><td class=\"n\">%.3f s</td><td>", ev->t_s);
    esc(out, ev->type);
    fputs("</td><td class=\"mono\">", out);
    esc(out, ev->meter);
    fputs("</td><td>", out);
    esc(out, ev->detail);
    fputs("</td></tr>\n", out);
  }
  if (shown < r->nevents)
    fprintf(out, "<tr class=\"more\"><td colspan=\"5\">%zu more events "
            "(pmon-report -s events)</td></tr>\n", r->nevents - shown);
  fputs("</tbody></table>\n", out);
}

/* ---- A report's section, and the page ---------------------------------- */

static void section(FILE *out, const struct report *r, const char *name,
                    size_t index) {
  char id[32], why[96];
  const char *missing = report_no_timeline(r, NULL, why);

  fprintf(out, "<section class=\"report\" id=\"r%zu\">\n<h2>Job ", index);
  esc(out, r->job.id);
  if (r->job.id_source != NULL) {
    fputs("<small>", out);
    esc(out, r->job.id_source);
    fputs("</small>", out);
  }
  badge(out, r->estimated);
  fputs("</h2>\n<p class=\"file\">", out);
  esc(out, name);
  fprintf(out, " \xC2\xB7 report format %lld", r->version);
  if (r->pmon_version != NULL) {
    fputs(", written by pmon ", out);
    esc(out, r->pmon_version);
  }
  fputs("</p>\n", out);
  summary(out, r);

  fputs("<h3>Power over time", out);
  badge(out, r->estimated);
  fputs("</h3>\n", out);
  if (missing != NULL) {
    fputs("<p class=\"missing\">timeline ", out);
    esc(out, missing);
    fputs("</p>\n", out);
  } else {
    snprintf(id, sizeof id, "r%zu-tl", index);
    fputs("<figure>\n", out);
    report_svg(out, r, id, 0);
    fputs("</figure>\n", out);
  }
  regions(out, r);
  nodes(out, r);
  if (r->has_io || r->job.mpi > 0)
    io(out, r);
  if (r->has_comm || r->job.mpi > 0)
    comm(out, r, index);
  advice(out, r);
  meters(out, r);
  events(out, r);
  fputs("</section>\n", out);
}

/* The table that compares the reports of a page. */
static void overview(FILE *out, const struct part *parts, size_t n) {
  char a[CELL_MAX];

  fputs("<h3>Jobs on this page</h3>\n<table class=\"overview\"><thead><tr>"
        "<th>job</th><th>file</th><th class=\"n\">nodes</th>"
        "<th class=\"n\">ranks</th><th class=\"n\">wall time</th>"
        "<th class=\"n\">energy</th><th class=\"n\">mean power</th></tr>"
        "</thead><tbody>\n", out);
  for (size_t i = 0; i < n; i++) {
    const struct jobline *j = &parts[i].job;
    if (parts[i].html == NULL)
      continue;
    fprintf(out, "<tr><td><a href=\"#r%zu\">", i + 1);
    esc(out, j->id);
    fputs("</a></td><td class=\"name mono\" title=\"", out);
    esc(out, j->file);
    fputs("\">", out);
    esc(out, strrchr(j->file, '/') && strrchr(j->file, '/')[1]
                 ? strrchr(j->file, '/') + 1 : j->file);
    fputs("</td>", out);
    num_cell(out, plain(a, j->nodes, 0), 0);
    num_cell(out, plain(a, j->ranks, 0), 0);
    num_cell(out, report_duration(a, j->wall_s, 0), 0);
    num_cell(out, report_si(a, j->energy_j, "J"), j->estimated);
    num_cell(out, report_si(a, j->power_w, "W"), j->estimated);
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table>\n", out);
}

/* Writes the page of the parts that have a section. */
static void page(FILE *out, const struct part *parts, size_t n, size_t ok) {
  size_t first = 0;

  while (parts[first].html == NULL)
    first++;
  fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
        "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
        "'none'; style-src 'unsafe-inline'\"/>\n"
        "<meta name=\"viewport\" content=\"width=device-width, "
        "initial-scale=1\"/>\n<meta name=\"generator\" content=\"" PROG " "
        PACKAGE_VERSION "\"/>\n<title>", out);
  if (ok == 1) {
    fputs("pmon: job ", out);
    esc(out, parts[first].job.id);
  } else
    fprintf(out, "pmon: %zu jobs", ok);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n"
          "<header class=\"page\"><h1>pmon energy report</h1>"
          "<p>%zu job%s, drawn by " PROG " " PACKAGE_VERSION " from the "
          "report%s that pmon wrote at the end of each job</p></header>\n",
          report_html_style, ok, ok == 1 ? "" : "s", ok == 1 ? "" : "s");
  if (ok > 1)
    overview(out, parts, n);
  for (size_t i = 0; i < n; i++)
    if (parts[i].html != NULL)
      fwrite(parts[i].html, 1, parts[i].len, out);
  fputs("<footer>Energy in joules (J), power in watts (W), 1 kJ = 1000 J, "
        "1 MB = 10<sup>6</sup> bytes. A dash is a figure that was not "
        "measured. <span class=\"est\">ESTIMATE</span> marks a figure from "
        "a model. The reports' format: pmon-report(5).</footer>\n"
        "</main>\n</body>\n</html>\n", out);
}

int report_html(const char *file, char *const *paths, size_t n) {
  struct part *parts = report_xcalloc(n, sizeof *parts);
  struct report_out o;
  size_t ok = 0;
  int status = 0;
  FILE *out;

  for (size_t i = 0; i < n; i++) {
    const char *name = strcmp(paths[i], "-") ? paths[i] : "(standard input)";
    struct report r;
    FILE *mem;
    if (report_open(paths[i], name, &r)) {
      status = 1;
      continue;
    }
    if ((mem = open_memstream(&parts[i].html, &parts[i].len)) == NULL) {
      fputs(PROG ": out of memory\n", stderr);
      exit(1);
    }
    section(mem, &r, name, i + 1);
    if (fclose(mem) != 0) {
      fputs(PROG ": out of memory\n", stderr);
      exit(1);
    }
    parts[i].job = (struct jobline){
      strdup(r.job.id ? r.job.id : "-"), name, r.job.nodes, r.job.ranks,
      r.job.wall_s, r.energy_j, r.power_w, r.estimated};
    if (parts[i].job.id == NULL) {
      fputs(PROG ": out of memory\n", stderr);
      exit(1);
    }
    report_free(&r);
    ok++;
  }
  /* A page of nothing would hide the errors above: none is written. */
  if (ok > 0 && (out = report_out_open(&o, file)) != NULL) {
    page(out, parts, n, ok);
    status |= report_out_close(&o, 1) ? 1 : 0;
  } else {
    status = 1;
  }
  for (size_t i = 0; i < n; i++) {
    free(parts[i].html);
    free(parts[i].job.id);
  }
  free(parts);
  return status;
}

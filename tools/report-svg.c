/*
 * report-svg.c - the power over time of a pmon report as an SVG 1.1
 * drawing (pmon-report --svg, and the picture of --html).
 *
 * The drawing is written with fprintf, element by element, from the nodes'
 * timelines (nodes[].timeline, format 3): the power of each node as a line
 * of steps, one step per slice (each slice's figure is an average over it),
 * broken where a slice was not measured, which is shaded grey; the CPU use
 * below it; the I/O phases shaded over the plot; the region spans in one
 * lane per region name below the time axis; the events as marks on the
 * plot's top edge; a legend that names every mark.  More nodes than
 * MAX_LINES are drawn as bands over the nodes (min-max, the middle half
 * and the median) on a common time grid instead, and then only the first
 * node's phases and regions are drawn.
 *
 * Colours are the Okabe-Ito palette, safe for the colour-blind, and no
 * mark relies on colour alone: node lines differ in dashes too, phases and
 * gaps in hatching, and every shape has a <title> (a tooltip) that says
 * what it is.  Dark text on white, for print.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define SVG_W 960     /* The drawing's width, in pixels. */
#define MARGIN_L 136  /* Left of the plot: tick labels, region names. */
#define MARGIN_R 24
#define PLOT_H 280    /* The power plot. */
#define CPU_H 56      /* The CPU use below it. */
#define MAX_LINES 16  /* Beyond, bands over the nodes. */
#define LANE_NODES 4  /* Up to this many nodes, each has a row per lane. */
#define MAX_LANES 24  /* Region lanes drawn. */
#define BAND_CELLS 480
#define MAX_EVENTS 100
#define LEGEND_COLS 4
#define NAME_MAX_CHARS 18 /* Region names in the lanes. */

/* Okabe & Ito's palette without its yellow, too light on white: node i is
 * drawn in colour i % 7 with dashes i % 4, distinct for 28 nodes. */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73",
                                      "#CC79A7", "#000000", "#E69F00",
                                      "#56B4E9"};
static const char *const dashes[] = {"", "7 3", "2 2.5", "9 3 2 3"};
#define IO_COLOUR "#56B4E9"
#define BAND_COLOUR "#0072B2"
#define TEXT "#1a1a1a"
#define MUTED "#555555"
#define GRID "#e2e2e2"

/* One entry of the legend. */
enum mark {
  MK_NODE, MK_MEDIAN, MK_IQR, MK_RANGE, MK_IO, MK_IO_MERGED, MK_GAP,
  MK_SPAN, MK_BETWEEN, MK_EVENT
};

struct legend_item {
  enum mark mark;
  size_t node; /* For MK_NODE: the index in svg.nodes. */
};

/* The drawing being made: what is drawn and where. */
struct svg {
  FILE *out;
  const struct report *r;
  const char *id;
  const struct node **nodes; /* The nodes with slices, in report order. */
  size_t nnodes;
  int bands;                 /* Bands over the nodes, not a line each. */
  size_t io_nodes;           /* The first io_nodes have their phases... */
  size_t lane_nodes;         /* ...and lane_nodes their regions drawn. */
  const char *lanes[MAX_LANES];
  size_t nlanes, lanes_omitted;
  double x0, x1;             /* The plot's left and right edges. */
  double top, bottom;        /* The power plot's edges. */
  double cpu_top, cpu_bottom; /* The CPU plot's; equal when it has none. */
  double axis_y;             /* The time axis labels' baseline. */
  double lanes_top, lane_h;
  double legend_top, notes_top, height;
  double tmax, tunit, tstep; /* Seconds drawn; the unit and tick step. */
  const char *tunit_name;
  double pmax, pstep;        /* Watts at the top; the tick step. */
  double *band[5];           /* BAND_CELLS each: min, q1, median, q3, max */
  double *band_cpu;          /* The median CPU use of each cell. */
  struct legend_item legend[MAX_LINES + 16];
  size_t nlegend;
  size_t events;             /* Whether events are drawn. */
  int has_cpu, has_gaps, has_io, has_merged, has_between;
  int standalone;            /* Its own title; else the page has one. */
};

/* ---- Scales ------------------------------------------------------------ */

/* A step of 1, 2, 2.5 or 5 times a power of ten that cuts range into
 * about ticks parts. */
static double nice_step(double range, int ticks) {
  double raw = range / ticks, mag, norm;

  if (!(raw > 0))
    return 1;
  mag = pow(10, floor(log10(raw)));
  norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5
          : norm <= 5 ? 5 : 10) * mag;
}

/* The decimals that print every multiple of step exactly. */
static int step_decimals(double step) {
  int d = 0;
  while (d < 6 && fabs(step * pow(10, d) - floor(step * pow(10, d) + 0.5)) >
                      1e-6)
    d++;
  return d;
}

static double x_of(const struct svg *g, double t) {
  double x = g->x0 + t / g->tmax * (g->x1 - g->x0);
  return x < g->x0 ? g->x0 : x > g->x1 ? g->x1 : x;
}

static double y_of(const struct svg *g, double w) {
  double y = g->bottom - w / g->pmax * (g->bottom - g->top);
  return y < g->top ? g->top : y > g->bottom ? g->bottom : y;
}

static double ycpu_of(const struct svg *g, double u) {
  u = u < 0 ? 0 : u > 1 ? 1 : u;
  return g->cpu_bottom - u * (g->cpu_bottom - g->cpu_top);
}

/* The width of a shape from x to x2, at least min pixels. */
static double width_of(double x, double x2, double min) {
  return x2 - x < min ? min : x2 - x;
}

/* ---- Writing ----------------------------------------------------------- */

/* Writes s escaped (report_xml_text()). */
static void text(const struct svg *g, const char *s) {
  report_xml_text(g->out, s ? s : "-", 0);
}

/* Opens the <title> of a shape of node n with "NODE: "; the caller writes
 * the rest and closes it. */
static void node_title_open(const struct svg *g, const struct node *n) {
  fputs("<title>", g->out);
  text(g, n->name);
  fputs(": ", g->out);
}

/* The style attributes of node k's line. */
static void line_style(const struct svg *g, size_t k, double width) {
  fprintf(g->out, " fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
          "stroke-linejoin=\"round\"", colours[k % COUNT_OF(colours)], width);
  if (*dashes[k % COUNT_OF(dashes)])
    fprintf(g->out, " stroke-dasharray=\"%s\"", dashes[k % COUNT_OF(dashes)]);
}

/* Writes the d attribute's steps for values v of slices starting at t_s,
 * step wide, through y(): a run of values is one subpath, a NAN ends it. */
static void steps(const struct svg *g, const double *t_s, const double *v,
                  size_t n, double step,
                  double (*y)(const struct svg *, double)) {
  double last = NAN;

  for (size_t i = 0; i < n; i++) {
    double xa, xb;
    if (isnan(t_s[i]) || isnan(v[i])) {
      last = NAN;
      continue;
    }
    xa = x_of(g, t_s[i]);
    xb = x_of(g, t_s[i] + step);
    if (isnan(last) || fabs(xa - last) > 0.75)
      fprintf(g->out, "M%.1f %.1f", xa, y(g, v[i]));
    else
      fprintf(g->out, "V%.1f", y(g, v[i]));
    fprintf(g->out, "H%.1f", xb);
    last = xb;
  }
}

/* ---- Layout ------------------------------------------------------------ */

/* The region named name in node n's timeline, or NULL. */
static const struct tlregion *find_region(const struct node *n,
                                          const char *name) {
  for (size_t i = 0; i < n->tl.nregions; i++)
    if (n->tl.regions[i].name && strcmp(n->tl.regions[i].name, name) == 0)
      return &n->tl.regions[i];
  return NULL;
}

/* Chooses the lanes: the region names of the lane nodes, in order of
 * first use on the first of them, at most MAX_LANES. */
static void choose_lanes(struct svg *g) {
  for (size_t k = 0; k < g->lane_nodes; k++) {
    const struct timeline *t = &g->nodes[k]->tl;
    for (size_t i = 0; i < t->nregions; i++) {
      const char *name = t->regions[i].name;
      size_t j = 0;
      if (name == NULL)
        continue;
      while (j < g->nlanes && strcmp(g->lanes[j], name) != 0)
        j++;
      if (j < g->nlanes)
        continue;
      if (g->nlanes < MAX_LANES)
        g->lanes[g->nlanes++] = name;
      else
        g->lanes_omitted++;
    }
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The value of node n's array v at time t, NAN outside its slices. */
static double value_at(const struct node *n, const double *v, double t) {
  const struct timeline *tl = &n->tl;
  double j = floor((t - tl->t_s[0]) / tl->step_s);
  if (isnan(j) || j < 0 || j >= (double)tl->n)
    return NAN;
  return v[(size_t)j];
}

/* Computes the bands: for each of BAND_CELLS cells of the time axis, the
 * least, the quartiles, the median and the largest power of the nodes at
 * its middle, and their median CPU use; NAN where no node has a figure. */
static void compute_bands(struct svg *g) {
  double *vals = report_xcalloc(g->nnodes, sizeof *vals);
  double *cpu = report_xcalloc(g->nnodes, sizeof *cpu);

  for (int b = 0; b < 5; b++)
    g->band[b] = report_xcalloc(BAND_CELLS, sizeof *g->band[b]);
  g->band_cpu = report_xcalloc(BAND_CELLS, sizeof *g->band_cpu);
  for (size_t c = 0; c < BAND_CELLS; c++) {
    double t = (c + 0.5) * g->tmax / BAND_CELLS;
    size_t m = 0, mc = 0;
    for (size_t k = 0; k < g->nnodes; k++) {
      double p = value_at(g->nodes[k], g->nodes[k]->tl.power_w, t);
      double u = value_at(g->nodes[k], g->nodes[k]->tl.cpu_util, t);
      if (!isnan(p))
        vals[m++] = p;
      if (!isnan(u))
        cpu[mc++] = u;
    }
    qsort(vals, m, sizeof *vals, by_value);
    qsort(cpu, mc, sizeof *cpu, by_value);
    for (int b = 0; b < 5; b++)
      g->band[b][c] = m ? vals[(size_t)(b / 4.0 * (m - 1) + 0.5)] : NAN;
    g->band_cpu[c] = mc ? cpu[(mc - 1) / 2] : NAN;
    g->has_gaps |= m == 0;
  }
  free(vals);
  free(cpu);
}

/* Whether node n has a timeline that can be drawn. */
static int drawable(const struct node *n) {
  return n->tl.n > 0 && n->tl.step_s > 0;
}

/* Whether the event ev is drawn: one of a node drawn, at a known time. */
static int event_drawn(const struct svg *g, const struct event *ev) {
  return !isnan(ev->t_s) && drawable(&g->r->nodes[ev->node_index]);
}

/* Decides what is drawn and where, and the drawing's height. */
static void layout(struct svg *g) {
  double pmax = 0;

  g->bands = g->nnodes > MAX_LINES;
  g->io_nodes = g->bands ? 1 : g->nnodes;
  g->lane_nodes = g->nnodes <= LANE_NODES ? g->nnodes : 1;
  g->tmax = 0;
  for (size_t k = 0; k < g->nnodes; k++) {
    const struct node *n = g->nodes[k];
    const struct timeline *t = &n->tl;
    double end = t->t_s[t->n - 1] + t->step_s;
    g->tmax = end > g->tmax ? end : g->tmax;
    g->tmax = n->wall_s > g->tmax ? n->wall_s : g->tmax;
    for (size_t i = 0; i < t->n; i++) {
      if (t->power_w[i] > pmax)
        pmax = t->power_w[i];
      g->has_gaps |= !g->bands && isnan(t->power_w[i]);
      g->has_cpu |= !isnan(t->cpu_util[i]);
    }
    if (k < g->io_nodes) {
      g->has_io |= t->nphases > 0;
      g->has_merged |= t->between_count > 0;
    }
  }
  if (!(g->tmax > 0))
    g->tmax = 1;
  g->tunit = g->tmax > 7200 ? 3600 : g->tmax > 600 ? 60 : 1;
  g->tunit_name = g->tunit == 3600 ? "h" : g->tunit == 60 ? "min" : "s";
  g->tstep = nice_step(g->tmax / g->tunit, 8);
  g->pstep = nice_step(pmax > 0 ? pmax * 1.04 : 100, 6);
  g->pmax = ceil((pmax > 0 ? pmax * 1.04 : 100) / g->pstep) * g->pstep;
  if (g->bands)
    compute_bands(g);
  choose_lanes(g);
  for (size_t k = 0; k < g->lane_nodes; k++)
    for (size_t i = 0; i < g->nodes[k]->tl.nregions; i++)
      g->has_between |= g->nodes[k]->tl.regions[i].count > 2;

  g->x0 = MARGIN_L;
  g->x1 = SVG_W - MARGIN_R;
  g->top = g->standalone ? 84 : g->r->estimated > 0 ? 50 : 32;
  g->bottom = g->top + PLOT_H;
  g->cpu_top = g->cpu_bottom = g->bottom;
  if (g->has_cpu) {
    g->cpu_top = g->bottom + 14;
    g->cpu_bottom = g->cpu_top + CPU_H;
  }
  g->axis_y = g->cpu_bottom + 18;
  g->lane_h = (double)g->lane_nodes * 12 + 8;
  g->lanes_top = g->axis_y + 46;
  g->legend_top = g->lanes_top + (g->nlanes ? g->nlanes * g->lane_h + 28 : 0);

  /* The legend: the lines or bands, then the other marks in use. */
  if (g->bands) {
    g->legend[g->nlegend++].mark = MK_MEDIAN;
    g->legend[g->nlegend++].mark = MK_IQR;
    g->legend[g->nlegend++].mark = MK_RANGE;
  } else {
    for (size_t k = 0; k < g->nnodes; k++) {
      g->legend[g->nlegend].mark = MK_NODE;
      g->legend[g->nlegend++].node = k;
    }
  }
  if (g->has_io)
    g->legend[g->nlegend++].mark = MK_IO;
  if (g->has_merged)
    g->legend[g->nlegend++].mark = MK_IO_MERGED;
  if (g->has_gaps)
    g->legend[g->nlegend++].mark = MK_GAP;
  if (g->nlanes)
    g->legend[g->nlegend++].mark = MK_SPAN;
  if (g->has_between)
    g->legend[g->nlegend++].mark = MK_BETWEEN;
  for (size_t i = 0; i < g->r->nevents && g->events == 0; i++)
    g->events += event_drawn(g, &g->r->events[i]);
  if (g->events > 0)
    g->legend[g->nlegend++].mark = MK_EVENT;
  g->notes_top = g->legend_top +
                 (double)((g->nlegend + LEGEND_COLS - 1) / LEGEND_COLS) * 22 +
                 8;
}

/* ---- The parts of the drawing ------------------------------------------ */

static void defs(const struct svg *g) {
  FILE *out = g->out;
  const char *id = g->id;

  fputs("<defs>\n", out);
  /* I/O phases: a light fill hatched at 45 degrees; those not listed,
   * lighter and cross-hatched; unmeasured time, grey, hatched the other
   * way. */
  fprintf(out,
          "<pattern id=\"%s-io\" width=\"6\" height=\"6\" "
          "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
          "<rect width=\"6\" height=\"6\" fill=\"" IO_COLOUR "\" "
          "fill-opacity=\"0.16\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
          "stroke=\"" IO_COLOUR "\" stroke-width=\"2.2\" "
          "stroke-opacity=\"0.6\"/></pattern>\n", id);
  fprintf(out,
          "<pattern id=\"%s-iom\" width=\"8\" height=\"8\" "
          "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
          "<rect width=\"8\" height=\"8\" fill=\"" IO_COLOUR "\" "
          "fill-opacity=\"0.07\"/><path d=\"M0 0V8M0 0H8\" "
          "stroke=\"" IO_COLOUR "\" stroke-width=\"1.2\" "
          "stroke-opacity=\"0.45\"/></pattern>\n", id);
  fprintf(out,
          "<pattern id=\"%s-gap\" width=\"5\" height=\"5\" "
          "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(-45)\">"
          "<rect width=\"5\" height=\"5\" fill=\"#f0f0f0\"/>"
          "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"#a0a0a0\" "
          "stroke-width=\"1.2\"/></pattern>\n", id);
  /* The pairs between a region's first and last: hatched in the colour of
   * the node whose lane row they are in. */
  for (size_t k = 0; k < g->lane_nodes; k++)
    fprintf(out,
            "<pattern id=\"%s-bw%zu\" width=\"5\" height=\"5\" "
            "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            "<rect width=\"5\" height=\"5\" fill=\"#ffffff\"/>"
            "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"%s\" "
            "stroke-width=\"1.6\"/></pattern>\n",
            id, k, colours[k % COUNT_OF(colours)]);
  fputs("</defs>\n", out);
}

/* The title (of a standalone drawing), and a line that says what the
 * figures are. */
static void heading(const struct svg *g) {
  const struct report *r = g->r;
  FILE *out = g->out;
  char a[CELL_MAX], b[CELL_MAX];
  double smin = INFINITY, smax = 0;

  if (g->standalone) {
    fputs("<text x=\"24\" y=\"32\" font-size=\"19\" font-weight=\"bold\" "
          "fill=\"" TEXT "\">Job ", out);
    text(g, r->job.id);
    fputs(": power over time", out);
    if (r->estimated > 0)
      fputs("<tspan fill=\"#B34700\"> \xE2\x80\x94 ESTIMATED, not "
            "measured</tspan>", out);
    fputs("</text>\n", out);
  } else if (r->estimated > 0) {
    fputs("<text x=\"24\" y=\"13\" font-size=\"13\" font-weight=\"bold\" "
          "fill=\"#B34700\">ESTIMATED by a model, not measured</text>\n",
          out);
  }

  for (size_t k = 0; k < g->nnodes; k++) {
    double s = g->nodes[k]->tl.step_s;
    smin = s < smin ? s : smin;
    smax = s > smax ? s : smax;
  }
  fprintf(out, "<text x=\"24\" y=\"%.0f\" font-size=\"13\" "
          "fill=\"" MUTED "\">", g->top - 16);
  fprintf(out, "%zu node%s, %s", g->nnodes, g->nnodes == 1 ? "" : "s",
          report_duration(a, g->tmax, 0) ? a : "-");
  if (smax > 0) {
    if (smax - smin > 0.01 * smax)
      fprintf(out, ", slices of %s to %s", report_si(a, smin, "s"),
              report_si(b, smax, "s"));
    else
      fprintf(out, ", slices of %s", report_si(a, smax, "s"));
  }
  if (r->covers == NULL || strcmp(r->covers, "node") == 0)
    fputs(r->covers ? "; the power of whole nodes" : "", out);
  else {
    fputs("; the power of ", out);
    text(g, r->covers);
    fputs(" only, not of the whole nodes", out);
  }
  if (g->bands)
    fprintf(out, "; bands over the %zu nodes", g->nnodes);
  fputs("</text>\n", out);
}

/* The grid, the axes and their labels. */
static void axes(const struct svg *g) {
  FILE *out = g->out;
  int pd = step_decimals(g->pstep), td = step_decimals(g->tstep);

  fputs("<g class=\"grid\" stroke=\"" GRID "\" stroke-width=\"1\">\n", out);
  for (double w = g->pstep; w <= g->pmax + g->pstep / 2; w += g->pstep)
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
            g->x0, g->x1, y_of(g, w), y_of(g, w));
  for (double t = g->tstep; t * g->tunit <= g->tmax + 1e-9;
       t += g->tstep) {
    double x = x_of(g, t * g->tunit);
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
            x, x, g->top, g->bottom);
    if (g->has_cpu)
      fprintf(out,
              "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", x,
              x, g->cpu_top, g->cpu_bottom);
  }
  fputs("</g>\n", out);

  fputs("<g class=\"axes\" fill=\"" TEXT "\" font-size=\"12\">\n", out);
  for (double w = 0; w <= g->pmax + g->pstep / 2; w += g->pstep)
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f"
            "</text>\n", g->x0 - 8, y_of(g, w) + 4, pd, w);
  fprintf(out, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" "
          "text-anchor=\"middle\" font-size=\"13\">power (W)</text>\n",
          g->x0 - 58, (g->top + g->bottom) / 2);
  if (g->has_cpu) {
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">100</text>\n",
            g->x0 - 8, g->cpu_bottom + 4, g->x0 - 8, g->cpu_top + 9);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
            "font-size=\"13\">CPU use (%%)</text>\n", g->x0 - 34,
            (g->cpu_top + g->cpu_bottom) / 2 + 4);
  }
  for (double t = 0; t * g->tunit <= g->tmax + 1e-9; t += g->tstep)
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f"
            "</text>\n", x_of(g, t * g->tunit), g->axis_y, td, t);
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
          "font-size=\"13\">time since the start (%s)</text>\n",
          (g->x0 + g->x1) / 2, g->axis_y + 20, g->tunit_name);
  fputs("</g>\n", out);
  /* The frames, over the grid. */
  fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"none\" stroke=\"#333333\"/>\n", g->x0, g->top,
          g->x1 - g->x0, g->bottom - g->top);
  if (g->has_cpu)
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\" fill=\"none\" stroke=\"#333333\"/>\n", g->x0,
            g->cpu_top, g->x1 - g->x0, g->cpu_bottom - g->cpu_top);
}

/* The I/O phases of the first io_nodes nodes, shaded over the plot: one
 * rect per phase listed, one lighter rect with a count for those that are
 * not. */
static void phases(const struct svg *g) {
  FILE *out = g->out;
  char a[CELL_MAX];

  for (size_t k = 0; k < g->io_nodes; k++) {
    const struct node *n = g->nodes[k];
    const struct timeline *t = &n->tl;
    for (size_t i = 0; i < t->nphases; i++) {
      const struct tlphase *p = &t->phases[i];
      double x = x_of(g, p->start_s);
      fprintf(out, "<rect class=\"io-phase\" data-node=\"");
      text(g, n->name);
      fprintf(out, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
              "fill=\"url(#%s-io)\">", x, g->top,
              width_of(x, x_of(g, p->end_s), 1), g->bottom - g->top, g->id);
      node_title_open(g, n);
      fprintf(out, "I/O phase, %.3f to %.3f s, %s</title></rect>\n",
              p->start_s, p->end_s,
              report_si(a, p->bytes, "B") ? a : "bytes unknown");
    }
    if (t->between_count > 0) {
      double x = x_of(g, t->between.start_s);
      double w = width_of(x, x_of(g, t->between.end_s), 1);
      fprintf(out, "<g class=\"io-phase-merged\" data-node=\"");
      text(g, n->name);
      fprintf(out, "\" data-count=\"%.0f\"><rect x=\"%.1f\" y=\"%.1f\" "
              "width=\"%.1f\" height=\"%.1f\" fill=\"url(#%s-iom)\" "
              "stroke=\"" IO_COLOUR "\" stroke-opacity=\"0.6\" "
              "stroke-dasharray=\"3 2\"/>", t->between_count, x, g->top, w,
              g->bottom - g->top, g->id);
      node_title_open(g, n);
      fprintf(out, "%.0f I/O phases between %.3f and %.3f s, not listed "
              "one by one (%s)</title></g>\n", t->between_count,
              t->between.start_s, t->between.end_s,
              report_si(a, t->between.bytes, "B") ? a : "bytes unknown");
    }
  }
}

/* Labels the spans of the I/O phases not listed, over the lines: how many
 * phases (and whose, with several nodes). */
static void phase_labels(const struct svg *g) {
  FILE *out = g->out;
  size_t row = 0;

  for (size_t k = 0; k < g->io_nodes; k++) {
    const struct node *n = g->nodes[k];
    const struct timeline *t = &n->tl;
    double x, w;
    if (!(t->between_count > 0))
      continue;
    x = x_of(g, t->between.start_s);
    w = x_of(g, t->between.end_s) - x;
    if (w < 60)
      continue;
    fprintf(out, "<text class=\"io-count\" x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\" font-size=\"11\" fill=\"#0b5d8a\" "
            "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">"
            "\xC3\x97%.0f I/O phases", x + w / 2,
            g->bottom - 8 - 14 * (double)(row++ % 4), t->between_count);
    if (g->io_nodes > 1) {
      fputs(", ", out);
      report_xml_text(out, n->name, 12);
    }
    fputs("</text>\n", out);
  }
}

/* Shades the slices that were not measured: of each node, or with bands
 * the cells where no node was. */
static void gaps(const struct svg *g) {
  FILE *out = g->out;

  if (g->bands) {
    for (size_t c = 0; c < BAND_CELLS; c++) {
      size_t e = c;
      double xa, xb;
      if (!isnan(g->band[2][c]))
        continue;
      while (e + 1 < BAND_CELLS && isnan(g->band[2][e + 1]))
        e++;
      xa = x_of(g, c * g->tmax / BAND_CELLS);
      xb = x_of(g, (e + 1) * g->tmax / BAND_CELLS);
      fprintf(out, "<rect class=\"gap\" x=\"%.1f\" y=\"%.1f\" "
              "width=\"%.1f\" height=\"%.1f\" fill=\"url(#%s-gap)\">"
              "<title>no node measured %.3f to %.3f s</title></rect>\n",
              xa, g->top, width_of(xa, xb, 1), g->bottom - g->top, g->id,
              c * g->tmax / BAND_CELLS, (e + 1) * g->tmax / BAND_CELLS);
      c = e;
    }
    return;
  }
  for (size_t k = 0; k < g->nnodes; k++) {
    const struct node *n = g->nodes[k];
    const struct timeline *t = &n->tl;
    for (size_t i = 0; i < t->n; i++) {
      size_t e = i;
      double xa, xb;
      if (!isnan(t->power_w[i]) || isnan(t->t_s[i]))
        continue;
      while (e + 1 < t->n && isnan(t->power_w[e + 1]))
        e++;
      xa = x_of(g, t->t_s[i]);
      xb = x_of(g, t->t_s[i] + (double)(e - i + 1) * t->step_s);
      fprintf(out, "<rect class=\"gap\" data-node=\"");
      text(g, n->name);
      fprintf(out, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
              "fill=\"url(#%s-gap)\">", xa, g->top, width_of(xa, xb, 1.5),
              g->bottom - g->top, g->id);
      node_title_open(g, n);
      fprintf(out, "not measured, %.3f to %.3f s</title></rect>\n",
              t->t_s[i], t->t_s[i] + (double)(e - i + 1) * t->step_s);
      i = e;
    }
  }
}

/* A line per node: its power, and its CPU use in the panel below. */
/* The error band of node K's power: each slice's power +- its energy's
 * bar over the slice, one closed subpath per run of slices that have
 * both; nothing when no slice has a bar (a report before them). */
static void err_band(const struct svg *g, size_t k) {
  const struct node *n = g->nodes[k];
  const struct timeline *t = &n->tl;
  size_t any = 0;

  for (size_t i = 0; i < t->n; i++)
    any += !isnan(t->energy_err_j[i]) && !isnan(t->power_w[i]);
  if (any == 0 || !(t->step_s > 0))
    return;
  fprintf(g->out, "<path class=\"errband\" data-node=\"");
  text(g, n->name);
  fprintf(g->out, "\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" "
          "d=\"", colours[k % COUNT_OF(colours)]);
  for (size_t c = 0; c < t->n; c++) {
    size_t e = c;
#define ERR_OK(i)                                                             \
  (!isnan(t->energy_err_j[i]) && !isnan(t->power_w[i]) && !isnan(t->t_s[i]))
    if (!ERR_OK(c))
      continue;
    while (e + 1 < t->n && ERR_OK(e + 1))
      e++;
#undef ERR_OK
    fprintf(g->out, "M%.1f %.1f", x_of(g, t->t_s[c]),
            y_of(g, t->power_w[c] + t->energy_err_j[c] / t->step_s));
    for (size_t i = c; i <= e; i++)
      fprintf(g->out, "V%.1fH%.1f",
              y_of(g, t->power_w[i] + t->energy_err_j[i] / t->step_s),
              x_of(g, t->t_s[i] + t->step_s));
    for (size_t i = e + 1; i-- > c;) {
      double lo = t->power_w[i] - t->energy_err_j[i] / t->step_s;
      fprintf(g->out, "V%.1fH%.1f", y_of(g, lo > 0 ? lo : 0),
              x_of(g, t->t_s[i]));
    }
    fputs("Z", g->out);
    c = e;
  }
  fputs("\">", g->out);
  node_title_open(g, n);
  fputs("the power's error bar: each slice's energy +- its bar, over the "
        "slice</title></path>\n", g->out);
}

static void traces(const struct svg *g) {
  FILE *out = g->out;
  char a[CELL_MAX];

  for (size_t k = 0; k < g->nnodes; k++) {
    const struct node *n = g->nodes[k];
    const struct timeline *t = &n->tl;
    double peak = NAN, at = NAN;
    for (size_t i = 0; i < t->n; i++)
      if (!isnan(t->power_w[i]) && !(t->power_w[i] <= peak)) {
        peak = t->power_w[i];
        at = t->t_s[i];
      }
    err_band(g, k);
    fputs("<path class=\"trace\" data-node=\"", out);
    text(g, n->name);
    fputs("\"", out);
    line_style(g, k, 1.7);
    fputs(" d=\"", out);
    steps(g, t->t_s, t->power_w, t->n, t->step_s, y_of);
    fputs("\">", out);
    node_title_open(g, n);
    fprintf(out, "power%s, %s", n->estimated > 0 ? " (ESTIMATED)" : "",
            report_si(a, n->power_w, "W") ? a : "-");
    fprintf(out, " on average, %.1f W at most (%.3f s)</title></path>\n",
            peak, at);
    if (!g->has_cpu)
      continue;
    fputs("<path class=\"cpu\" data-node=\"", out);
    text(g, n->name);
    fputs("\"", out);
    line_style(g, k, 1.1);
    fputs(" d=\"", out);
    steps(g, t->t_s, t->cpu_util, t->n, t->step_s, ycpu_of);
    fputs("\">", out);
    node_title_open(g, n);
    fputs("CPU use</title></path>\n", out);
  }
}

/* Writes the d attribute of the area between the band rows lo and hi: one
 * closed subpath per run of cells that have figures. */
static void band_area(const struct svg *g, const double *lo,
                      const double *hi) {
  double cw = g->tmax / BAND_CELLS;

  for (size_t c = 0; c < BAND_CELLS; c++) {
    size_t e = c;
    if (isnan(hi[c]))
      continue;
    while (e + 1 < BAND_CELLS && !isnan(hi[e + 1]))
      e++;
    fprintf(g->out, "M%.1f %.1f", x_of(g, c * cw), y_of(g, hi[c]));
    for (size_t i = c; i <= e; i++)
      fprintf(g->out, "V%.1fH%.1f", y_of(g, hi[i]), x_of(g, (i + 1) * cw));
    for (size_t i = e + 1; i-- > c;)
      fprintf(g->out, "V%.1fH%.1f", y_of(g, lo[i]), x_of(g, i * cw));
    fputs("Z", g->out);
    c = e;
  }
}

/* Bands over the nodes: min-max, the middle half, the median line; the
 * median CPU use in the panel below. */
static void bands(const struct svg *g) {
  FILE *out = g->out;
  double t_s[BAND_CELLS], cw = g->tmax / BAND_CELLS;

  for (size_t c = 0; c < BAND_CELLS; c++)
    t_s[c] = c * cw;
  fputs("<path class=\"band band-range\" fill=\"" BAND_COLOUR "\" "
        "fill-opacity=\"0.14\" stroke=\"none\" d=\"", out);
  band_area(g, g->band[0], g->band[4]);
  fprintf(out, "\"><title>the least to the largest power of the %zu nodes"
          "</title></path>\n", g->nnodes);
  fputs("<path class=\"band band-iqr\" fill=\"" BAND_COLOUR "\" "
        "fill-opacity=\"0.32\" stroke=\"none\" d=\"", out);
  band_area(g, g->band[1], g->band[3]);
  fputs("\"><title>the middle half of the nodes (25 to 75 %)</title>"
        "</path>\n", out);
  fputs("<path class=\"band band-median\"", out);
  line_style(g, 0, 1.8);
  fputs(" d=\"", out);
  steps(g, t_s, g->band[2], BAND_CELLS, cw, y_of);
  fprintf(out, "\"><title>the median power of the %zu nodes</title>"
          "</path>\n", g->nnodes);
  if (g->has_cpu) {
    fputs("<path class=\"cpu band-median\"", out);
    line_style(g, 0, 1.1);
    fputs(" d=\"", out);
    steps(g, t_s, g->band_cpu, BAND_CELLS, cw, ycpu_of);
    fputs("\"><title>the median CPU use of the nodes</title></path>\n", out);
  }
}

/* The events of the nodes drawn (of every node, with bands), at most
 * MAX_EVENTS, as marks on the top edge of the plot. */
static void events(const struct svg *g) {
  const struct report *r = g->r;
  FILE *out = g->out;
  size_t drawn = 0;

  for (size_t i = 0; i < r->nevents && drawn < MAX_EVENTS; i++) {
    const struct event *ev = &r->events[i];
    double x;
    if (!event_drawn(g, ev))
      continue;
    x = x_of(g, ev->t_s);
    fprintf(out, "<path class=\"event\" d=\"M%.1f %.1fl-5 -9h10z\" "
            "fill=\"#333333\"><title>", x, g->top - 1);
    text(g, ev->node);
    fprintf(out, ", %.3f s: ", ev->t_s);
    text(g, ev->type);
    fputs(" (", out);
    text(g, ev->meter);
    fputs("): ", out);
    text(g, ev->detail);
    fputs("</title></path>\n", out);
    drawn++;
  }
}

/* A rect of a region lane. */
static void span(const struct svg *g, const struct node *n, const char *cls,
                 const char *name, double a, double b, double y, double h,
                 const char *fill) {
  double x = x_of(g, a);
  fprintf(g->out, "<rect class=\"%s\" data-region=\"", cls);
  text(g, name);
  fputs("\" data-node=\"", g->out);
  text(g, n->name);
  fprintf(g->out, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"%s\">", x, y, width_of(x, x_of(g, b), 1.5), h, fill);
}

/* The region lanes: a lane per region name, a row per lane node in it: the
 * first and the last pair as solid rects, those between as a hatched rect
 * that says how many. */
static void lanes(const struct svg *g) {
  FILE *out = g->out;
  char fill[64];

  if (g->nlanes == 0)
    return;
  fprintf(out, "<text x=\"24\" y=\"%.1f\" font-size=\"13\" "
          "font-weight=\"bold\" fill=\"" TEXT "\">Regions</text>",
          g->lanes_top - 12);
  fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
          "fill=\"" MUTED "\">first and last pair of the rank that measured "
          "each", g->x0, g->lanes_top - 12);
  if (g->lane_nodes > 1) {
    fputs("; rows: ", out);
    for (size_t k = 0; k < g->lane_nodes; k++) {
      fputs(k ? ", " : "", out);
      report_xml_text(out, g->nodes[k]->name, 16);
    }
  } else if (g->r->nnodes > 1) {
    fputs(", on ", out);
    text(g, g->nodes[0]->name);
    fprintf(out, " only (the first of %zu nodes)", g->r->nnodes);
  }
  fputs("</text>\n", out);
  for (size_t l = 0; l < g->nlanes; l++) {
    double y = g->lanes_top + (double)l * g->lane_h;
    fprintf(out, "<g class=\"lane\"><rect x=\"%.1f\" y=\"%.1f\" "
            "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", g->x0, y,
            g->x1 - g->x0, g->lane_h - 4, l % 2 ? "#ffffff" : "#f4f4f4");
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
            "font-size=\"12\" fill=\"" TEXT "\">", g->x0 - 8,
            y + (g->lane_h - 4) / 2 + 4);
    report_xml_text(out, g->lanes[l], NAME_MAX_CHARS);
    fputs("<title>", out);
    text(g, g->lanes[l]);
    fputs("</title></text>\n", out);
    for (size_t k = 0; k < g->lane_nodes; k++) {
      const struct node *n = g->nodes[k];
      const struct tlregion *rg = find_region(n, g->lanes[l]);
      const char *colour = colours[k % COUNT_OF(colours)];
      double ry = y + 2 + 12 * (double)k, h = 10;
      if (rg == NULL || isnan(rg->first[0]))
        continue;
      span(g, n, "region-span", rg->name, rg->first[0], rg->first[1], ry, h,
           colour);
      node_title_open(g, n);
      text(g, rg->name);
      fprintf(out, ", rank %.0f: first pair, %.3f to %.3f s (%.0f in all)"
              "</title></rect>\n", rg->rank, rg->first[0], rg->first[1],
              rg->count);
      if (rg->count > 2) {
        double xa = x_of(g, rg->first[1]), xb = x_of(g, rg->last[0]);
        snprintf(fill, sizeof fill, "url(#%s-bw%zu)", g->id, k);
        span(g, n, "region-between", rg->name, rg->first[1], rg->last[0],
             ry, h, fill);
        node_title_open(g, n);
        text(g, rg->name);
        fprintf(out, ": %.0f pairs between the first and the last, not "
                "listed</title></rect>\n", rg->count - 2);
        if (xb - xa >= 30)
          fprintf(out, "<text class=\"region-count\" x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"middle\" font-size=\"10\" "
                  "font-weight=\"bold\" fill=\"" TEXT "\" stroke=\"#ffffff\" "
                  "stroke-width=\"3\" paint-order=\"stroke\">\xC3\x97%.0f"
                  "</text>\n", (xa + xb) / 2, ry + 8.5, rg->count - 2);
      }
      if (rg->count > 1 && !isnan(rg->last[0])) {
        span(g, n, "region-span", rg->name, rg->last[0], rg->last[1], ry, h,
             colour);
        node_title_open(g, n);
        text(g, rg->name);
        fprintf(out, ", rank %.0f: last pair, %.3f to %.3f s</title>"
                "</rect>\n", rg->rank, rg->last[0], rg->last[1]);
      }
    }
    fputs("</g>\n", out);
  }
}

/* Writes the swatch of legend item it at (x, y), the middle of its row. */
static void swatch(const struct svg *g, const struct legend_item *it,
                   double x, double y) {
  FILE *out = g->out;
  const char *id = g->id;

  switch (it->mark) {
  case MK_NODE:
  case MK_MEDIAN:
    fprintf(out, "<path d=\"M%.1f %.1fh30\"", x, y);
    line_style(g, it->mark == MK_NODE ? it->node : 0, 2.2);
    fputs("/>", out);
    break;
  case MK_IQR:
  case MK_RANGE:
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"30\" height=\"12\" "
            "fill=\"" BAND_COLOUR "\" fill-opacity=\"%s\"/>", x, y - 6,
            it->mark == MK_IQR ? "0.46" : "0.14");
    break;
  case MK_IO:
  case MK_IO_MERGED:
  case MK_GAP:
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"30\" height=\"12\" "
            "fill=\"url(#%s-%s)\" stroke=\"#999999\"/>", x, y - 6, id,
            it->mark == MK_IO ? "io" : it->mark == MK_GAP ? "gap" : "iom");
    break;
  case MK_SPAN:
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" "
            "fill=\"%s\"/><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
            "height=\"10\" fill=\"%s\"/>", x, y - 5, colours[0], x + 18,
            y - 5, colours[0]);
    break;
  case MK_BETWEEN:
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"30\" height=\"10\" "
            "fill=\"url(#%s-bw0)\"/>", x, y - 5, id);
    break;
  case MK_EVENT:
    fprintf(out, "<path d=\"M%.1f %.1fl-5 -9h10z\" fill=\"#333333\"/>",
            x + 15, y + 4);
    break;
  }
}

/* The legend, then the notes that say what is not drawn. */
static void legend(const struct svg *g) {
  const struct report *r = g->r;
  FILE *out = g->out;
  double colw = (SVG_W - 48.0) / LEGEND_COLS, y = g->notes_top;
  size_t without = 0, est = 0;
  char why[96];
  const char *reason = NULL;

  fputs("<g class=\"legend\" font-size=\"12\" fill=\"" TEXT "\">\n", out);
  for (size_t i = 0; i < g->nlegend; i++) {
    const struct legend_item *it = &g->legend[i];
    double x = 24 + colw * (double)(i % LEGEND_COLS);
    double ly = g->legend_top + 22 * (double)(i / LEGEND_COLS);
    swatch(g, it, x, ly);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 38, ly + 4);
    switch (it->mark) {
    case MK_NODE:
      report_xml_text(out, g->nodes[it->node]->name,
                      g->nodes[it->node]->estimated > 0 ? 14 : 26);
      if (g->nodes[it->node]->estimated > 0)
        fputs(" (ESTIMATED)", out);
      break;
    case MK_MEDIAN:
      fprintf(out, "median of %zu nodes", g->nnodes);
      break;
    case MK_IQR: fputs("middle half of the nodes", out); break;
    case MK_RANGE: fputs("least to largest", out); break;
    case MK_IO: fputs("I/O phase", out); break;
    case MK_IO_MERGED: fputs("I/O phases not listed (\xC3\x97N)", out); break;
    case MK_GAP: fputs("not measured", out); break;
    case MK_SPAN: fputs("region: first, last pair", out); break;
    case MK_BETWEEN: fputs("pairs between (\xC3\x97N)", out); break;
    case MK_EVENT: fputs("event (reset, gap...)", out); break;
    }
    fputs("</text>\n", out);
  }
  fputs("</g>\n", out);

  /* Notes, each one line. */
  fputs("<g class=\"notes\" font-size=\"12\" fill=\"" MUTED "\">\n", out);
  for (size_t i = 0; i < r->nnodes; i++) {
    est += r->nodes[i].estimated > 0;
    if (r->nodes[i].tl.n == 0 && without++ == 0)
      reason = report_no_timeline(r, &r->nodes[i], why);
  }
  if (r->estimated > 0) {
    fprintf(out, "<text x=\"24\" y=\"%.1f\" fill=\"#B34700\" "
            "font-weight=\"bold\">ESTIMATED: ", y);
    if (est > 0 && est < r->nnodes)
      fprintf(out, "the power of %zu of the %zu nodes", est, r->nnodes);
    else
      fputs("every figure", out);
    fputs(" comes from a model, not from a meter</text>\n", out);
    y += 18;
  }
  if (g->bands) {
    fprintf(out, "<text x=\"24\" y=\"%.1f\">%zu nodes: bands over the "
            "nodes at %d times; I/O phases and regions of ", y, g->nnodes,
            BAND_CELLS);
    report_xml_text(out, g->nodes[0]->name, 24);
    fputs(" only</text>\n", out);
    y += 18;
  }
  if (g->lanes_omitted > 0) {
    fprintf(out, "<text x=\"24\" y=\"%.1f\">%zu more region%s not drawn"
            "</text>\n", y, g->lanes_omitted,
            g->lanes_omitted == 1 ? "" : "s");
    y += 18;
  }
  if (without > 0) {
    fprintf(out, "<text x=\"24\" y=\"%.1f\">%zu node%s not drawn: "
            "timeline ", y, without, without == 1 ? "" : "s");
    text(g, reason);
    fputs("</text>\n", out);
  }
  fputs("</g>\n", out);
}

/* The number of note lines legend() writes. */
static size_t notes(const struct svg *g) {
  size_t n = (g->r->estimated > 0) + (size_t)g->bands +
             (g->lanes_omitted > 0);
  for (size_t i = 0; i < g->r->nnodes; i++)
    if (g->r->nodes[i].tl.n == 0)
      return n + 1;
  return n;
}

/* The opening of the drawing, height pixels high, with its title. */
static void open_svg(const struct svg *g, double height, int standalone) {
  FILE *out = g->out;

  if (standalone)
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
          "class=\"pmon-timeline\" width=\"%d\" height=\"%.0f\" "
          "viewBox=\"0 0 %d %.0f\" role=\"img\" aria-labelledby=\"%s-t\" "
          "font-family=\"DejaVu Sans, Verdana, Helvetica, Arial, sans-serif\" "
          "font-size=\"12\">\n", SVG_W, height, SVG_W, height, g->id);
  fprintf(out, "<title id=\"%s-t\">Job ", g->id);
  text(g, g->r->job.id);
  fputs(": power over time", out);
  if (g->r->estimated > 0)
    fputs(" (ESTIMATED)", out);
  fputs("</title>\n", out);
  fprintf(out, "<rect width=\"%d\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
          SVG_W, height);
}

/* The drawing of a report whose nodes have no timeline: why. */
static void draw_missing(struct svg *g, int standalone) {
  FILE *out = g->out;
  const char *why_missing;
  char why[96];

  open_svg(g, 150, standalone);
  defs(g);
  fputs("<text x=\"24\" y=\"32\" font-size=\"19\" font-weight=\"bold\" "
        "fill=\"" TEXT "\">Job ", out);
  text(g, g->r->job.id);
  fputs(": power over time</text>\n", out);
  fprintf(out, "<rect class=\"missing\" x=\"24\" y=\"50\" width=\"%d\" "
          "height=\"76\" fill=\"url(#%s-gap)\" stroke=\"#a0a0a0\" "
          "stroke-dasharray=\"4 3\"/>\n", SVG_W - 48, g->id);
  fprintf(out, "<text x=\"%d\" y=\"94\" text-anchor=\"middle\" "
          "font-size=\"15\" fill=\"" TEXT "\" stroke=\"#ffffff\" "
          "stroke-width=\"5\" paint-order=\"stroke\">timeline ", SVG_W / 2);
  why_missing = report_no_timeline(g->r, NULL, why);
  text(g, why_missing ? why_missing : "unusable (no slice width)");
  fputs("</text>\n", out);
}

void report_svg(FILE *out, const struct report *r, const char *id,
                int standalone) {
  struct svg g;

  memset(&g, 0, sizeof g);
  g.standalone = standalone;
  g.out = out;
  g.r = r;
  g.id = id;
  g.nodes = report_xcalloc(r->nnodes, sizeof *g.nodes);
  for (size_t i = 0; i < r->nnodes; i++)
    if (drawable(&r->nodes[i]))
      g.nodes[g.nnodes++] = &r->nodes[i];
  if (g.nnodes == 0) {
    draw_missing(&g, standalone);
  } else {
    layout(&g);
    g.height = g.notes_top + 18 * (double)notes(&g) + 12;
    open_svg(&g, g.height, standalone);
    defs(&g);
    heading(&g);
    axes(&g);
    phases(&g);
    gaps(&g);
    if (g.bands)
      bands(&g);
    else
      traces(&g);
    phase_labels(&g);
    events(&g);
    lanes(&g);
    legend(&g);
  }
  fputs("</svg>\n", out);
  for (int b = 0; b < 5; b++)
    free(g.band[b]);
  free(g.band_cpu);
  free(g.nodes);
}

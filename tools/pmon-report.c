/*
 * pmon-report - print the energy reports that pmon jobs write.
 *
 * Reads one or more report files (JSON, described in pmon-report(5) and
 * docs/report-format.md) and prints each one as text tables for people, as
 * CSV tables, or as normalised JSON.  A file is loaded and checked
 * completely before anything is printed for it, so a bad file gives exactly
 * one line on stderr, "pmon-report: FILE: <what>: <why>", and nothing on
 * stdout; the other files are still processed.
 *
 * Exit status: 0 when every file was read, 1 when one was not (or stdout
 * could not be written), 2 on a usage error.
 *
 * "pmon-report compare FILE..." compares runs (report-compare.c);
 * "pmon-report model ..." calibrates, predicts and validates the energy
 * model of I/O approaches (report-model.c); "pmon-report metrics REPORT"
 * prints it as Prometheus metrics (report-metrics.c).
 *
 * This file holds the command line and the JSON output; report-load.c reads
 * and checks a report, report-text.c prints it as text or CSV,
 * report-svg.c draws its power over time, report-html.c makes a web page
 * of several, and report-xml.c holds what those two share (report.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "report-model.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

enum output { OUT_TEXT, OUT_CSV, OUT_JSON, OUT_SVG, OUT_HTML };

/* The names of --section: name i is the SEC_* bit 1 << i (report.h). */
static const char *const section_names[] = {"summary", "nodes", "regions",
                                            "events", "io", "timeline",
                                            "comm"};

/* The command line, once parsed: the program's only settings. */
struct options {
  enum output output;
  unsigned sections; /* SEC_* bits. */
  unsigned asked;    /* The SEC_* bits that --section named. */
  const char *file;  /* The file that --svg or --html writes. */
};

/* ---- JSON output ------------------------------------------------------- */

/* The fewest significant digits, 15 to 17, that print d back exactly. */
static int digits_needed(double d) {
  char buf[40];
  for (int p = 15; p < 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, d);
    if (strtod(buf, NULL) == d)
      return p;
  }
  return 17;
}

/* The fewest digits that print every real number in v back exactly, so
 * that --json changes no value yet shows 612.4, not 612.39999999999998,
 * when the writer used 15 digits or fewer. */
static int real_precision(json_t *v) {
  int p = json_is_real(v) ? digits_needed(json_real_value(v)) : 15, q;
  const char *key;
  json_t *e;
  size_t i;

  if (json_is_array(v)) {
    json_array_foreach(v, i, e) {
      q = real_precision(e);
      p = q > p ? q : p;
    }
  } else if (json_is_object(v)) {
    json_object_foreach(v, key, e) {
      q = real_precision(e);
      p = q > p ? q : p;
    }
  }
  return p;
}

/* Prints r's document with two-space indentation, keys in file order. */
static int print_json(FILE *out, const struct report *r, const char *name) {
  size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                 JSON_REAL_PRECISION(real_precision(r->root));
  char *s = json_dumps(r->root, flags);
  if (s == NULL) {
    report_file_error(name, "cannot print JSON: out of memory");
    return -1;
  }
  fprintf(out, "%s\n", s);
  free(s);
  return 0;
}

/* ---- Command line ------------------------------------------------------ */

static void usage(FILE *out) {
  fputs("Usage: " PROG " [OPTION]... FILE...\n"
        "  or:  " PROG " COMMAND [OPTION]... (" PROG " COMMAND --help)\n"
        "Print the energy reports FILE... that pmon jobs wrote, as text\n"
        "tables, CSV or JSON, or draw them as a web page or a picture.\n"
        "A FILE of - is standard input.  The commands:\n"
        "  compare FILE FILE...    runs side by side, with what differs\n"
        "  rebuild SPOOLDIR        the report of a job that was killed,\n"
        "                          from its spool\n"
        "  watch [SPOOLDIR]        a running job, from its spool\n"
        "  metrics REPORT          a report as Prometheus metrics\n"
        "  replay TRACE...         a node's report made again from the\n"
        "                          trace its job recorded (PMON_RECORD)\n"
        "  advise REPORT           what would have cost less, with bars\n"
        "  model calibrate|predict|validate\n"
        "                          the I/O approaches' energy model\n"
        "\n"
        "  -c, --csv            print CSV tables: nodes, regions, events,\n"
        "                       io, io_nodes, io_files, timeline, comm,\n"
        "                       comm_calls\n"
        "  -j, --json           print each report as indented JSON\n"
        "  -H, --html=PAGE      write one self-contained HTML page of every\n"
        "                       FILE to PAGE (- for standard output)\n"
        "      --svg=PICTURE    draw the power over time of one FILE as an\n"
        "                       SVG picture in PICTURE (- for standard\n"
        "                       output)\n"
        "  -s, --section=LIST   print only the sections in LIST, a comma-\n"
        "                       separated list of summary, nodes, regions,\n"
        "                       events, io, timeline, comm (default: all)\n"
        "  -h, --help           print this help and exit\n"
        "  -V, --version        print the version and exit\n"
        "\n"
        "Exit status: 0 when every FILE was read, 1 when one was not,\n"
        "2 on a usage error.  See pmon-report(1) and pmon-report(5).\n",
        out);
}

/* Prints a usage error and returns the usage exit status, 2. */
PRINTF_LIKE(1, 2)
static int usage_error(const char *fmt, ...) {
  va_list ap;
  fputs(PROG ": ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry '" PROG " --help' for more information.\n", stderr);
  return 2;
}

/* Parses LIST, a comma-separated list of section names, into *out.
 * Returns 0, or the usage exit status. */
static int parse_sections(const char *list, unsigned *out) {
  const char *p = list;
  *out = 0;
  for (;;) {
    size_t len = strcspn(p, ","), i = 0;
    while (i < COUNT_OF(section_names) &&
           (strlen(section_names[i]) != len ||
            strncmp(section_names[i], p, len) != 0))
      i++;
    if (i == COUNT_OF(section_names))
      return usage_error("--section: unknown section '%.*s' (choose from "
                         "summary, nodes, regions, events, io, timeline, "
                         "comm)",
                         (int)len, p);
    *out |= 1u << i;
    if (p[len] == '\0')
      return 0;
    p += len + 1;
  }
}

/* Parses argv into *opt.  Returns -1 to go on with the files from optind,
 * or the exit status to end with now. */
static int parse_args(int argc, char **argv, struct options *opt) {
  static const struct option longopts[] = {
    {"csv", no_argument, NULL, 'c'},
    {"json", no_argument, NULL, 'j'},
    {"html", required_argument, NULL, 'H'},
    {"svg", required_argument, NULL, 'G'},
    {"section", required_argument, NULL, 's'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
  };
  int c, csv = 0, json = 0, html = 0, svg = 0;

  opterr = 0; /* Our messages name the program, not argv[0]. */
  while ((c = getopt_long(argc, argv, ":cjH:s:hV", longopts, NULL)) != -1) {
    switch (c) {
    case 'c': csv = 1; break;
    case 'j': json = 1; break;
    case 'H': html = 1; opt->file = optarg; break;
    case 'G': svg = 1; opt->file = optarg; break;
    case 's':
      if (parse_sections(optarg, &opt->sections))
        return 2;
      opt->asked = opt->sections;
      break;
    case 'h': usage(stdout); return 0;
    case 'V':
      printf(PROG " (pmon) %s\nreads report format versions 1 to %d\n",
             PACKAGE_VERSION, FORMAT_VERSION);
      return 0;
    case ':':
      return usage_error("%s: option needs an argument", argv[optind - 1]);
    default:
      if (optopt == 0 || strncmp(argv[optind - 1], "--", 2) == 0)
        return usage_error("%s: invalid option", argv[optind - 1]);
      return usage_error("-%c: invalid option", optopt);
    }
  }
  if (csv + json + html + svg > 1)
    return usage_error("%s: choose one output format",
                       csv && json ? "--csv and --json"
                       : html && svg ? "--html and --svg"
                       : "--csv, --json, --html and --svg");
  opt->output = csv    ? OUT_CSV
                : json ? OUT_JSON
                : html ? OUT_HTML
                : svg  ? OUT_SVG
                       : OUT_TEXT;
  if ((html || svg) && *opt->file == '\0')
    return usage_error("--%s: the output file name is empty",
                       html ? "html" : "svg");
  if (optind == argc)
    return usage_error("no report file given");
  /* A picture is of one job; a page holds several. */
  if (svg && argc - optind > 1)
    return usage_error("--svg draws one report: give one FILE (%d given), "
                       "or use --html", argc - optind);
  return -1;
}

/* Draws the report at path (shown as name) into the picture file; the
 * exit status. */
static int write_svg(const char *file, const char *path, const char *name) {
  struct report_out o;
  struct report r;
  FILE *out;

  if (report_open(path, name, &r))
    return 1;
  if ((out = report_out_open(&o, file)) == NULL) {
    report_free(&r);
    return 1;
  }
  report_svg(out, &r, "pmon", 1);
  report_free(&r);
  return report_out_close(&o, 1) ? 1 : 0;
}

/* "pmon-report model": argv[0] is "model", the subcommand (calibrate,
 * predict, validate), its options and files follow; the exit status. */
static int model(int argc, char **argv) {
  const char *sub = argc > 1 ? argv[1] : "";
  int status;

  if (strcmp(sub, "calibrate") == 0)
    status = model_calibrate(argc - 1, argv + 1);
  else if (strcmp(sub, "predict") == 0)
    status = model_predict(argc - 1, argv + 1);
  else if (strcmp(sub, "validate") == 0)
    status = model_validate(argc - 1, argv + 1);
  else if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
    printf("%s%s%s", model_calibrate_usage, model_predict_usage,
           model_validate_usage);
    return 0;
  } else {
    return model_complain(2, "%s%s: not a subcommand: calibrate, predict or "
                          "validate (" PROG " model --help)",
                          *sub ? "" : "(none)", sub);
  }
  if (fflush(stdout) != 0 || ferror(stdout))
    return model_complain(1, "standard output: write error: %s",
                          strerror(errno));
  return status;
}

int main(int argc, char **argv) {
  struct options opt = {OUT_TEXT, SEC_ALL, 0, ""};
  int status, many;
  size_t shown = 0;

  /* A subcommand, as git's builtins: its own options follow it. */
  if (argc > 1 && strcmp(argv[1], "compare") == 0)
    return report_compare(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "model") == 0)
    return model(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "rebuild") == 0)
    return report_rebuild(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "metrics") == 0)
    return report_metrics(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "replay") == 0)
    return report_replay(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "watch") == 0)
    return report_watch(argc - 1, argv + 1);
  if (argc > 1 && strcmp(argv[1], "advise") == 0)
    return report_advise(argc - 1, argv + 1);
  status = parse_args(argc, argv, &opt);
  if (status >= 0)
    return status;
  if (opt.output == OUT_SVG)
    return write_svg(opt.file, argv[optind],
                     strcmp(argv[optind], "-") ? argv[optind]
                                               : "(standard input)");
  if (opt.output == OUT_HTML)
    return report_html(opt.file, argv + optind, (size_t)(argc - optind));
  status = 0;
  many = argc - optind > 1;
  for (int i = optind; i < argc; i++) {
    const char *name = strcmp(argv[i], "-") ? argv[i] : "(standard input)";
    struct report r;
    char why[96];
    if (report_open(argv[i], name, &r)) {
      status = 1;
      continue;
    }
    if (many && opt.output == OUT_TEXT)
      printf("%s== %s ==\n", shown ? "\n" : "", report_tty(name));
    else if (many && opt.output == OUT_CSV)
      printf("# file %s\n", report_tty(name));
    if (opt.output == OUT_JSON)
      status |= print_json(stdout, &r, name) ? 1 : 0;
    else if (opt.output == OUT_CSV) {
      report_csv(stdout, &r, opt.sections);
      /* The tables stay machine-readable; the reason goes beside them. */
      if ((opt.asked & SEC_IO) && !r.has_io)
        fprintf(stderr, PROG ": %s: no MPI-IO calls recorded: %s%s\n",
                report_tty(name),
                report_no_io_reason(&r),
                r.job.mpi == 0 ? "" : " (pmon-run(1), pmon-mpiio(7))");
      if ((opt.asked & SEC_COMM) && !r.has_comm)
        fprintf(stderr, PROG ": %s: no communication calls recorded: %s\n",
                report_tty(name), report_no_comm_reason(&r));
      if ((opt.asked & SEC_TIMELINE) && r.timelines == 0)
        fprintf(stderr, PROG ": %s: timeline %s\n", report_tty(name),
                report_no_timeline(&r, NULL, why));
    } else
      report_text(stdout, &r, opt.sections, opt.asked);
    shown++;
    report_free(&r);
    report_tty_release();
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, PROG ": standard output: write error: %s\n",
            strerror(errno));
    return 1;
  }
  return status;
}

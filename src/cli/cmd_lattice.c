/* cli/cmd_lattice.c — `parac lattice INPUT -o FILE`: the covering edges of
 * the concept lattice as Graphviz dot, GraphML or JSON (and an SVG through
 * Graphviz's `dot` when it is installed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/timer.h"

typedef enum lattice_format { LATTICE_DOT, LATTICE_GRAPHML, LATTICE_JSON } lattice_format;

/* Writes an intent as "a b c" (names when the context has them), or "0,1,2" for JSON. */
static void write_intent(FILE *out, const parac_fca_context *context, const uint32_t *ids, size_t size,
                         int quoted_json)
{
    for (size_t i = 0; i < size; i++) {
        const char *name = parac_fca_context_attribute_name(context, ids[i]);
        if (quoted_json) fprintf(out, "%s", i ? "," : "");
        else if (i) fputc(' ', out);
        if (quoted_json) {
            cli_write_uint(out, ids[i]);
            continue;
        }
        if (name) {
            for (const char *p = name; *p; p++)
                if (*p != '"' && *p != '<' && *p != '>' && *p != '&' && *p != '\\') fputc(*p, out);
        } else {
            cli_write_uint(out, ids[i]);
        }
    }
}

/* The lattice written as the library streams it: the head, every concept (node) in canonical
 * order, then every edge by (upper, lower), then the tail. */
typedef struct lattice_writer {
    FILE *out;
    lattice_format format;
    const parac_fca_context *context;
    uint64_t concepts, edges;
    int tail_started; /* JSON: the "edges" key is written */
} lattice_writer;

static int stop_writing(FILE *out) { return ferror(out) || cli_interrupted(); } /* full disk, Ctrl-C */

static void write_head(lattice_writer *writer)
{
    static const char *heads[] = {"digraph lattice {\n  rankdir=BT;\n  node [shape=box];\n",
                                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                  "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                                  "  <key id=\"intent\" for=\"node\" attr.name=\"intent\" attr.type=\"string\"/>\n"
                                  "  <key id=\"extent_size\" for=\"node\" attr.name=\"extent_size\" attr.type=\"int\"/>\n"
                                  "  <graph id=\"lattice\" edgedefault=\"directed\">\n",
                                  "{\"concepts\":["};
    fputs(heads[writer->format], writer->out);
}

static int write_node(void *user, const uint32_t *intent, size_t size)
{
    lattice_writer *writer = user;
    FILE *out = writer->out;
    uint64_t c = writer->concepts++;
    size_t support = parac_fca_context_extent(writer->context, intent, size, NULL, 0);
    if (writer->format == LATTICE_DOT) fprintf(out, "  c%llu [label=\"", (unsigned long long)c);
    else if (writer->format == LATTICE_GRAPHML)
        fprintf(out, "    <node id=\"c%llu\"><data key=\"intent\">", (unsigned long long)c);
    else fprintf(out, "%s{\"id\":%llu,\"intent\":[", c ? "," : "", (unsigned long long)c);
    write_intent(out, writer->context, intent, size, writer->format == LATTICE_JSON);
    if (writer->format == LATTICE_DOT) fprintf(out, "\\n(%zu)\"];\n", support);
    else if (writer->format == LATTICE_GRAPHML)
        fprintf(out, "</data><data key=\"extent_size\">%zu</data></node>\n", support);
    else fprintf(out, "],\"extent_size\":%zu}", support);
    return stop_writing(out);
}

static void start_edges(lattice_writer *writer)
{
    if (writer->format == LATTICE_JSON && !writer->tail_started) fputs("],\"edges\":[", writer->out);
    writer->tail_started = 1;
}

static int write_edge(void *user, uint64_t upper, uint64_t lower)
{
    lattice_writer *writer = user;
    FILE *out = writer->out;
    unsigned long long u = (unsigned long long)upper, l = (unsigned long long)lower;
    start_edges(writer);
    if (writer->format == LATTICE_DOT) fprintf(out, "  c%llu -> c%llu;\n", l, u);
    else if (writer->format == LATTICE_GRAPHML) fprintf(out, "    <edge source=\"c%llu\" target=\"c%llu\"/>\n", l, u);
    else fprintf(out, "%s[%llu,%llu]", writer->edges ? "," : "", u, l);
    writer->edges++;
    return stop_writing(out);
}

static void write_tail(lattice_writer *writer)
{
    start_edges(writer);
    fputs(writer->format == LATTICE_DOT       ? "}\n"
          : writer->format == LATTICE_GRAPHML ? "  </graph>\n</graphml>\n"
                                              : "]}\n",
          writer->out);
}

/* Runs Graphviz on a dot file into a temporary file renamed over svg_path; a warning (not an error)
 * when Graphviz is missing. */
static parac_status draw_svg(const cli_common *common, const char *dot_path, const char *svg_path, parac_error *error)
{
    char command[3 * 4096];
    cli_output svg;
    parac_status status;
    if (system("command -v dot >/dev/null 2>&1") != 0) {
        cli_warn(common, "lattice: Graphviz 'dot' is not installed; no SVG written");
        return PARAC_OK;
    }
    if ((status = cli_output_begin(&svg, svg_path, error)) != PARAC_OK) return status;
    if (strchr(dot_path, '\'') || strchr(svg.path, '\'')) {
        cli_output_abort(&svg, NULL);
        return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, svg_path, 0, "paths with ' cannot be handed to Graphviz");
    }
    snprintf(command, sizeof command, "dot -Tsvg '%s' -o '%s'", dot_path, svg.path);
    if (system(command) != 0) {
        cli_output_abort(&svg, NULL);
        return parac_fail_at(error, PARAC_ERR_IO, svg_path, 0, "Graphviz failed to draw the lattice");
    }
    return cli_output_commit(&svg, error);
}

static int finish(parac_error *error, parac_fca_context *context)
{
    parac_fca_context_destroy(context);
    return error ? cli_report(error) : CLI_EXIT_OK;
}

/* Streams the lattice into -o; non-zero after filling *error. */
static int stream_lattice(lattice_writer *writer, const char *output, const parac_fca_options *options,
                          parac_error *error)
{
    cli_output written;
    parac_status status;
    writer->out = cli_output_open(&written, output, error);
    if (!writer->out) return 1;
    write_head(writer);
    status = parac_fca_lattice_enumerate(writer->context, options, write_node, write_edge, writer, error);
    if (status == PARAC_OK) write_tail(writer);
    else if (!(status == PARAC_ERR_CANCELLED && stop_writing(writer->out))) {
        cli_output_abort(&written, NULL);
        return 1;
    }
    return cli_output_commit(&written, error) != PARAC_OK;
}

int cli_lattice(int argc, char **argv)
{
    const char *output = NULL, *format_text = "dot", *svg = NULL, *max_memory = NULL;
    int64_t min_support = 0;
    cli_option table[] = {
        {"--output", 'o', CLI_STRING, &output, "FILE", "where to write the lattice (default stdout)"},
        {"--format", 0, CLI_STRING, &format_text, "F", "dot (default), graphml or json"},
        {"--svg", 0, CLI_STRING, &svg, "FILE", "also draw it as SVG with Graphviz (needs -o, format dot)"},
        {"--min-support", 0, CLI_INT64, &min_support, "N", "iceberg lattice: concepts with >= N objects"},
        {"--max-memory", 0, CLI_STRING, &max_memory, "BYTES",
         "cap on host memory for concepts and edges (suffix K/M/G; default a quarter of RAM); beyond it they "
         "spill to $TMPDIR"},
    };
    cli_command command = {"lattice", "INPUT -o FILE [--format dot|graphml|json] [--svg FILE] [--max-memory BYTES]",
                           "Covering edges (Hasse diagram) of the concept lattice (Lindig's neighbour test). Edges point from the\n"
                           "more specific concept to the more general one. Concepts and edges are streamed: a lattice larger\n"
                           "than --max-memory goes through sorted runs in $TMPDIR.",
                           table, sizeof table / sizeof table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    lattice_writer writer = {0};
    parac_fca_context *context = NULL;
    parac_fca_options options;
    parac_error error = {0};
    const char *outputs[2];
    uint64_t max_host_bytes = 0;
    double started = parac_now_seconds();
    if (code != CLI_CONTINUE) return code;
    if (strcmp(format_text, "dot") == 0) writer.format = LATTICE_DOT;
    else if (strcmp(format_text, "graphml") == 0) writer.format = LATTICE_GRAPHML;
    else if (strcmp(format_text, "json") == 0) writer.format = LATTICE_JSON;
    else return cli_usage_error("lattice", "unknown --format '%s' (dot, graphml, json)", format_text);
    if (svg && (!output || writer.format != LATTICE_DOT)) return cli_usage_error("lattice", "--svg needs -o FILE and --format dot");
    if (min_support < 0) return cli_bad_value("lattice", "--min-support must be >= 0");
    if (max_memory && (code = cli_byte_size_option("lattice", "--max-memory", max_memory, &max_host_bytes)) != CLI_CONTINUE)
        return code;
    outputs[0] = output;
    outputs[1] = svg;
    if (cli_check_outputs(outputs, 2, positionals, 1, &error) != PARAC_OK) return cli_report(&error);
    memset(&options, 0, sizeof options);
    options.exec = common.exec;
    options.min_support = (uint64_t)min_support;
    options.max_host_bytes = max_host_bytes;
    if (parac_fca_context_read(positionals[0], PARAC_FCA_FORMAT_AUTO, &context, &error) != PARAC_OK)
        return finish(&error, context);
    writer.context = context;
    if (stream_lattice(&writer, output, &options, &error) || (svg && draw_svg(&common, output, svg, &error) != PARAC_OK))
        return finish(&error, context);
    if (common.json) {
        parac_json_writer json;
        cli_summary_begin(&json, "lattice", &common, cli_resolved_device(&common), parac_now_seconds() - started);
        parac_json_field_uint(&json, "concepts", writer.concepts);
        parac_json_field_uint(&json, "edges", writer.edges);
        cli_summary_end(&json);
    }
    return finish(NULL, context);
}

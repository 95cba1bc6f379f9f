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

/* Writes the intent of concept c as "a b c" (names when the context has them). */
static void write_intent(FILE *out, const parac_fca_context *context, const parac_fca_concepts *concepts, size_t c,
                         uint32_t *ids, int quoted_json)
{
    size_t size = parac_fca_concept_intent(concepts, c, ids, parac_fca_context_attributes(context));
    for (size_t i = 0; i < size; i++) {
        const char *name = parac_fca_context_attribute_name(context, ids[i]);
        if (quoted_json) fprintf(out, "%s", i ? "," : "");
        else if (i) fputc(' ', out);
        if (quoted_json) {
            fprintf(out, "%u", ids[i]);
            continue;
        }
        if (name) {
            for (const char *p = name; *p; p++)
                if (*p != '"' && *p != '<' && *p != '>' && *p != '&' && *p != '\\') fputc(*p, out);
        } else {
            fprintf(out, "%u", ids[i]);
        }
    }
}

static void write_lattice(FILE *out, lattice_format format, const parac_fca_context *context,
                          const parac_fca_concepts *concepts, const parac_fca_lattice *lattice, uint32_t *ids)
{
    size_t count = parac_fca_concepts_size(concepts), edges = parac_fca_lattice_edge_count(lattice);
    static const char *heads[] = {"digraph lattice {\n  rankdir=BT;\n  node [shape=box];\n",
                                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                  "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                                  "  <key id=\"intent\" for=\"node\" attr.name=\"intent\" attr.type=\"string\"/>\n"
                                  "  <key id=\"extent_size\" for=\"node\" attr.name=\"extent_size\" attr.type=\"int\"/>\n"
                                  "  <graph id=\"lattice\" edgedefault=\"directed\">\n",
                                  "{\"concepts\":["};
    fputs(heads[format], out);
    for (size_t c = 0; c < count && !ferror(out) && !cli_interrupted(); c++) { /* full disk, Ctrl-C: stop */
        size_t support = parac_fca_concept_extent(context, concepts, c, NULL, 0);
        if (format == LATTICE_DOT) fprintf(out, "  c%zu [label=\"", c);
        else if (format == LATTICE_GRAPHML) fprintf(out, "    <node id=\"c%zu\"><data key=\"intent\">", c);
        else fprintf(out, "%s{\"id\":%zu,\"intent\":[", c ? "," : "", c);
        write_intent(out, context, concepts, c, ids, format == LATTICE_JSON);
        if (format == LATTICE_DOT) fprintf(out, "\\n(%zu)\"];\n", support);
        else if (format == LATTICE_GRAPHML)
            fprintf(out, "</data><data key=\"extent_size\">%zu</data></node>\n", support);
        else fprintf(out, "],\"extent_size\":%zu}", support);
    }
    if (format == LATTICE_JSON) fputs("],\"edges\":[", out);
    for (size_t e = 0; e < edges && !ferror(out) && !cli_interrupted(); e++) {
        size_t upper, lower;
        parac_fca_lattice_edge(lattice, e, &upper, &lower);
        if (format == LATTICE_DOT) fprintf(out, "  c%zu -> c%zu;\n", lower, upper);
        else if (format == LATTICE_GRAPHML)
            fprintf(out, "    <edge source=\"c%zu\" target=\"c%zu\"/>\n", lower, upper);
        else fprintf(out, "%s[%zu,%zu]", e ? "," : "", upper, lower);
    }
    fputs(format == LATTICE_DOT ? "}\n" : format == LATTICE_GRAPHML ? "  </graph>\n</graphml>\n" : "]}\n", out);
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

static int finish(parac_error *error, parac_fca_context *context, parac_fca_concepts *concepts,
                  parac_fca_lattice *lattice, uint32_t *ids)
{
    free(ids);
    parac_fca_lattice_destroy(lattice);
    parac_fca_concepts_destroy(concepts);
    parac_fca_context_destroy(context);
    return error ? cli_report(error) : CLI_EXIT_OK;
}

int cli_lattice(int argc, char **argv)
{
    const char *output = NULL, *format_text = "dot", *svg = NULL;
    int64_t min_support = 0;
    cli_option table[] = {
        {"--output", 'o', CLI_STRING, &output, "FILE", "where to write the lattice (default stdout)"},
        {"--format", 0, CLI_STRING, &format_text, "F", "dot (default), graphml or json"},
        {"--svg", 0, CLI_STRING, &svg, "FILE", "also draw it as SVG with Graphviz (needs -o, format dot)"},
        {"--min-support", 0, CLI_INT64, &min_support, "N", "iceberg lattice: concepts with >= N objects"},
    };
    cli_command command = {"lattice", "INPUT -o FILE [--format dot|graphml|json] [--svg FILE]",
                           "Covering edges (Hasse diagram) of the concept lattice (Lindig's neighbour test). Edges point from the\n"
                           "more specific concept to the more general one.",
                           table, sizeof table / sizeof table[0], 1, 1};
    cli_common common;
    const char *positionals[1];
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    lattice_format format;
    parac_fca_context *context = NULL;
    parac_fca_concepts *concepts = NULL;
    parac_fca_lattice *lattice = NULL;
    parac_fca_options options;
    parac_error error = {0};
    uint32_t *ids = NULL;
    cli_output written;
    const char *outputs[2];
    FILE *out;
    double started = parac_now_seconds();
    if (code != CLI_CONTINUE) return code;
    if (strcmp(format_text, "dot") == 0) format = LATTICE_DOT;
    else if (strcmp(format_text, "graphml") == 0) format = LATTICE_GRAPHML;
    else if (strcmp(format_text, "json") == 0) format = LATTICE_JSON;
    else return cli_usage_error("lattice", "unknown --format '%s' (dot, graphml, json)", format_text);
    if (svg && (!output || format != LATTICE_DOT)) return cli_usage_error("lattice", "--svg needs -o FILE and --format dot");
    if (min_support < 0) return cli_bad_value("lattice", "--min-support must be >= 0");
    outputs[0] = output;
    outputs[1] = svg;
    if (cli_check_outputs(outputs, 2, positionals, 1, &error) != PARAC_OK) return cli_report(&error);
    memset(&options, 0, sizeof options);
    options.exec = common.exec;
    options.min_support = (uint64_t)min_support;
    if (parac_fca_context_read(positionals[0], PARAC_FCA_FORMAT_AUTO, &context, &error) != PARAC_OK ||
        parac_fca_compute(context, &options, &concepts, &error) != PARAC_OK ||
        parac_fca_lattice_create(context, concepts, options.min_support, &lattice, &error) != PARAC_OK)
        return finish(&error, context, concepts, lattice, ids);
    ids = malloc((parac_fca_context_attributes(context) + 1) * sizeof *ids);
    if (!ids) parac_fail_no_memory(&error, "intent ids", (parac_fca_context_attributes(context) + 1) * sizeof *ids);
    out = ids ? cli_output_open(&written, output, &error) : NULL;
    if (!out) return finish(&error, context, concepts, lattice, ids);
    write_lattice(out, format, context, concepts, lattice, ids);
    if (cli_output_commit(&written, &error) != PARAC_OK ||
        (svg && draw_svg(&common, output, svg, &error) != PARAC_OK))
        return finish(&error, context, concepts, lattice, ids);
    if (common.json) {
        parac_json_writer json;
        cli_summary_begin(&json, "lattice", &common, cli_resolved_device(&common), parac_now_seconds() - started);
        parac_json_field_uint(&json, "concepts", parac_fca_concepts_size(concepts));
        parac_json_field_uint(&json, "edges", parac_fca_lattice_edge_count(lattice));
        cli_summary_end(&json);
    }
    return finish(NULL, context, concepts, lattice, ids);
}

/* bench/bench_ac.c — arc consistency: the paper-shaped table (Li, Li & Li) and GPU SAC.
 *
 *   bench_ac [--device cpu|cuda|all] [--quick]
 *
 * Rows: the shared XCSP instances, then random model-B networks generated in
 * memory up to 10^8 N-E edges (parac_csp_generate). Columns: N-E nodes and
 * edges, parse (or generate) time, build time, then AC4 and AC3bit+rm (CPU,
 * serial) and AC4-GPU, AC4-GPU+ (each in the "edges" and the "rows" layout,
 * PARAC_AC_VARIANT=edges|rows for one) and gpu-bitset (GPU), each end to end
 * after parsing: parac_ac_enforce's whole call, so the CUDA context, model
 * build, uploads, BuildNE / transposition, propagation and the copy back are
 * all inside (the GPU is warmed up once first); and the rounds of the N-E algorithms. Every algorithm must
 * report the same values_after, else the program fails. Last: GPU SAC against
 * SAC1 on a network with >= 10^4 values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>
#include <parac/devices.h>

#include "bench_util.h"
#include "core/timer.h"

/* The N-E algorithms are timed in both layouts (parac_ac_variant): "edges" is the paper's edge arrays,
 * "rows" the implicit edges with batched rounds. PARAC_AC_VARIANT=edges|rows times one layout only. */
enum {
    COLUMN_AC4,
    COLUMN_AC3BIT,
    COLUMN_AC4_GPU_EDGES,
    COLUMN_AC4_GPU_ROWS,
    COLUMN_AC4_GPU_PLUS_EDGES,
    COLUMN_AC4_GPU_PLUS_ROWS,
    COLUMN_GPU_BITSET,
    COLUMN_COUNT
};
#define COLUMN_FIRST_GPU COLUMN_AC4_GPU_EDGES
static const parac_ac_algorithm COLUMN_ALGORITHM[COLUMN_COUNT] = {
    PARAC_AC_AC4,          PARAC_AC_AC3BIT,       PARAC_AC_AC4_GPU,   PARAC_AC_AC4_GPU,
    PARAC_AC_AC4_GPU_PLUS, PARAC_AC_AC4_GPU_PLUS, PARAC_AC_GPU_BITSET};
static const parac_ac_variant COLUMN_VARIANT[COLUMN_COUNT] = {
    PARAC_AC_VARIANT_AUTO,  PARAC_AC_VARIANT_AUTO, PARAC_AC_VARIANT_EDGES, PARAC_AC_VARIANT_ROWS,
    PARAC_AC_VARIANT_EDGES, PARAC_AC_VARIANT_ROWS, PARAC_AC_VARIANT_AUTO};

typedef struct bench_settings {
    int cpu, cuda, quick;
    int variant_only; /* PARAC_AC_VARIANT: time only this N-E layout (0: both) */
} bench_settings;

typedef struct table_row {
    char name[64];
    uint64_t nodes, edges;
    double parse_seconds, build_seconds;
    double seconds[COLUMN_COUNT], column_build_seconds[COLUMN_COUNT];
    uint64_t iterations[COLUMN_COUNT], values_after[COLUMN_COUNT];
    int ran[COLUMN_COUNT];
} table_row;

typedef struct generated_case {
    uint32_t variables, domain;
    uint64_t constraints;
    double tightness;
    int in_quick;
} generated_case;

static int mismatches;

/* Median end-to-end seconds of parac_ac_enforce; stats of the last run. */
static int time_enforce(const parac_csp *csp, parac_ac_algorithm algorithm, parac_ac_variant variant,
                        parac_device device, int singleton, int repeats, double *seconds, parac_ac_stats *stats)
{
    parac_ac_options options = {{device, device == PARAC_DEVICE_CPU ? 1 : 0, 0, NULL, NULL, NULL}, algorithm, singleton,
                                variant};
    parac_error error = {0};
    double times[16];
    if (repeats > 16) repeats = 16;
    for (int r = 0; r < repeats; r++) {
        double start = parac_now_seconds();
        if (parac_ac_enforce(csp, &options, NULL, stats, &error) != PARAC_OK) {
            fprintf(stderr, "bench_ac: %s: %s\n", parac_ac_algorithm_name(algorithm), error.message);
            return 1;
        }
        times[r] = parac_now_seconds() - start;
    }
    *seconds = bench_median(times, repeats);
    return 0;
}

static int repeats_for(uint64_t edges)
{
    return bench_repeats(edges <= 1000000 ? 5 : edges <= 20000000 ? 3 : 1);
}

static void emit_column(bench_report *report, const table_row *row, int column)
{
    bench_result result;
    int gpu = column >= COLUMN_FIRST_GPU;
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "ac");
    snprintf(result.case_name, sizeof result.case_name, "%s/%s%s%s", row->name,
             parac_ac_algorithm_name(COLUMN_ALGORITHM[column]), COLUMN_VARIANT[column] ? "/" : "",
             COLUMN_VARIANT[column] ? parac_ac_variant_name(COLUMN_VARIANT[column]) : "");
    snprintf(result.device, sizeof result.device, "%s", gpu ? "cuda" : "cpu");
    result.threads = gpu ? 0 : 1;
    result.seconds = row->seconds[column];
    snprintf(result.metric, sizeof result.metric, "ne_edges_per_s");
    result.value = row->seconds[column] > 0 ? (double)row->edges / row->seconds[column] : 0.0;
    snprintf(result.unit, sizeof result.unit, "edges/s");
    snprintf(result.extra, sizeof result.extra,
             "\"ne_nodes\":%llu,\"ne_edges\":%llu,\"iterations\":%llu,\"values_after\":%llu,"
             "\"build_seconds\":%.6f,\"speedup_vs_ac4\":%.4g,\"speedup_vs_ac3bit\":%.4g",
             (unsigned long long)row->nodes, (unsigned long long)row->edges,
             (unsigned long long)row->iterations[column], (unsigned long long)row->values_after[column],
             row->column_build_seconds[column],
             row->ran[COLUMN_AC4] ? row->seconds[COLUMN_AC4] / row->seconds[column] : 0.0,
             row->ran[COLUMN_AC3BIT] ? row->seconds[COLUMN_AC3BIT] / row->seconds[column] : 0.0);
    bench_emit(report, &result);
}

static void run_row(const parac_csp *csp, table_row *row, const bench_settings *settings, bench_report *report)
{
    int repeats = repeats_for(parac_csp_ne_edge_count(csp));
    row->nodes = parac_csp_value_count(csp);
    row->edges = parac_csp_ne_edge_count(csp);
    for (int column = 0; column < COLUMN_COUNT; column++) {
        int gpu = column >= COLUMN_FIRST_GPU;
        parac_ac_stats stats;
        if ((gpu && !settings->cuda) || (!gpu && !settings->cpu)) continue;
        if (settings->variant_only && COLUMN_VARIANT[column] && (int)COLUMN_VARIANT[column] != settings->variant_only)
            continue;
        if (time_enforce(csp, COLUMN_ALGORITHM[column], COLUMN_VARIANT[column],
                         gpu ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU, 0, repeats, &row->seconds[column], &stats))
            continue;
        row->ran[column] = 1;
        row->column_build_seconds[column] = stats.build_seconds;
        row->iterations[column] = stats.iterations;
        row->values_after[column] = stats.values_after;
        if (column == COLUMN_AC4 || column == COLUMN_AC4_GPU_PLUS_ROWS) row->build_seconds = stats.build_seconds;
    }
    for (int column = 0; column < COLUMN_COUNT; column++) {
        if (!row->ran[column]) continue;
        for (int other = 0; other < column; other++)
            if (row->ran[other] && row->values_after[other] != row->values_after[column]) {
                fprintf(stderr, "bench_ac: MISMATCH on %s: %s keeps %llu values, %s %llu\n", row->name,
                        parac_ac_algorithm_name(COLUMN_ALGORITHM[other]), (unsigned long long)row->values_after[other],
                        parac_ac_algorithm_name(COLUMN_ALGORITHM[column]),
                        (unsigned long long)row->values_after[column]);
                mismatches++;
            }
        emit_column(report, row, column);
    }
}

static void print_cell(const table_row *row, int column)
{
    if (row->ran[column]) printf(" %11.4f", row->seconds[column]);
    else printf(" %11s", "-");
}

static void print_paper_table(const table_row *rows, int count)
{
    printf("\n%-28s %10s %12s %9s %9s %11s %11s %11s %11s %11s %11s %11s %s\n", "instance", "N-E nodes",
           "N-E edges", "parse s", "build s", "AC4 s", "AC3bit+rm s", "GPU edges", "GPU rows", "GPU+ edges",
           "GPU+ rows", "gpu-bitset", "rounds GPU/GPU+");
    for (int i = 0; i < count; i++) {
        const table_row *row = &rows[i];
        printf("%-28s %10llu %12llu %9.4f %9.4f", row->name, (unsigned long long)row->nodes,
               (unsigned long long)row->edges, row->parse_seconds, row->build_seconds);
        for (int column = 0; column < COLUMN_COUNT; column++) print_cell(row, column);
        printf(" %llu/%llu\n", (unsigned long long)row->iterations[COLUMN_AC4_GPU_ROWS],
               (unsigned long long)row->iterations[COLUMN_AC4_GPU_PLUS_ROWS]);
    }
}

/* $PARAC_DATA, else ../shared/data from the project root or ../../shared/data from a build directory. */
static const char *shared_data_dir(void)
{
    FILE *probe;
    if (getenv("PARAC_DATA")) return getenv("PARAC_DATA");
    probe = fopen("../shared/data/csp/ace-root-ac.tsv", "r");
    if (probe) {
        fclose(probe);
        return "../shared/data";
    }
    return "../../shared/data";
}

static int bench_shared_instances(const bench_settings *settings, table_row *rows, int *count, bench_report *report)
{
    static const char *const FILES[] = {"Rlfap-graph-01.xml",  "composed-25-01-25-0.xml", "composed-25-01-25-1.xml",
                                        "composed-75-01-02-0.xml", "ehi-85-297-00.xml",   "rand-2-23-23-253-131-0.xml"};
    const char *data = shared_data_dir();
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        char path[1024];
        parac_csp *csp = NULL;
        parac_error error = {0};
        table_row *row = &rows[(*count)++];
        double start = parac_now_seconds();
        memset(row, 0, sizeof *row);
        snprintf(path, sizeof path, "%s/csp/%s", data, FILES[i]);
        snprintf(row->name, sizeof row->name, "%.27s", FILES[i]);
        if (parac_csp_load(path, NULL, &csp, &error) != PARAC_OK) {
            fprintf(stderr, "bench_ac: %s\n", error.message);
            (*count)--;
            continue;
        }
        row->parse_seconds = parac_now_seconds() - start;
        run_row(csp, row, settings, report);
        parac_csp_destroy(csp);
    }
    return 0;
}

static parac_csp *generate(const generated_case *c, double *seconds)
{
    parac_csp_generate_options options;
    parac_csp *csp = NULL;
    parac_error error = {0};
    double start = parac_now_seconds();
    parac_csp_generate_options_default(&options);
    options.model = PARAC_CSP_MODEL_B;
    options.variables = c->variables;
    options.domain = c->domain;
    options.constraints = c->constraints;
    options.tightness = c->tightness;
    options.seed = 42;
    if (parac_csp_generate(&options, &csp, &error) != PARAC_OK) {
        fprintf(stderr, "bench_ac: generate: %s\n", error.message);
        return NULL;
    }
    *seconds = parac_now_seconds() - start;
    return csp;
}

static void bench_generated(const bench_settings *settings, table_row *rows, int *count, bench_report *report)
{
    /* N-E edges = constraints * domain^2: 10^6, 10^7 and 10^8, each with light propagation (T = 0.90),
     * heavy propagation without wipe-out (10^7: 0.95 removes ~1,400 values; 10^8: 0.93 ~1,800) and a
     * wipe-out (0.96 / 0.95), measured with seed 42 on the development machine. */
    static const generated_case CASES[] = {
        {100, 100, 100, 0.90, 1},    {300, 100, 1000, 0.90, 0},   {300, 100, 1000, 0.95, 0},
        {300, 100, 1000, 0.96, 0},   {500, 100, 10000, 0.90, 0},  {500, 100, 10000, 0.93, 0},
        {500, 100, 10000, 0.95, 0}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        table_row *row = &rows[*count];
        parac_csp *csp;
        if (settings->quick && !CASES[i].in_quick) continue;
        memset(row, 0, sizeof *row);
        snprintf(row->name, sizeof row->name, "gen-B-%u-%u-%llu-%.2f", CASES[i].variables, CASES[i].domain,
                 (unsigned long long)CASES[i].constraints, CASES[i].tightness);
        csp = generate(&CASES[i], &row->parse_seconds);
        if (!csp) continue;
        (*count)++;
        run_row(csp, row, settings, report);
        parac_csp_destroy(csp);
    }
}

static void emit_sac(bench_report *report, const char *name, const char *device, double seconds, double speedup,
                     const parac_ac_stats *stats)
{
    bench_result result;
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "ac");
    snprintf(result.case_name, sizeof result.case_name, "%s/sac", name);
    snprintf(result.device, sizeof result.device, "%s", device);
    result.threads = strcmp(device, "cpu") == 0 ? 1 : 0;
    result.seconds = seconds;
    snprintf(result.metric, sizeof result.metric, "values_per_s");
    result.value = seconds > 0 ? (double)stats->values_before / seconds : 0.0;
    snprintf(result.unit, sizeof result.unit, "values/s");
    snprintf(result.extra, sizeof result.extra,
             "\"values_before\":%llu,\"values_after\":%llu,\"passes\":%llu,\"speedup_vs_sac1\":%.4g",
             (unsigned long long)stats->values_before, (unsigned long long)stats->values_after,
             (unsigned long long)stats->iterations, speedup);
    bench_emit(report, &result);
}

/* GPU SAC against SAC1 on 200 variables x 50 values = 10^4 values (T = 0.75: AC removes
 * nothing, SAC removes some values in two passes); --quick: 2,000 values. */
static void bench_sac(const bench_settings *settings, bench_report *report)
{
    generated_case c = settings->quick ? (generated_case){100, 20, 600, 0.75, 1} : (generated_case){200, 50, 1500, 0.75, 0};
    double generate_seconds, cpu_seconds = 0, gpu_seconds = 0;
    parac_ac_stats cpu_stats, gpu_stats;
    char name[64];
    snprintf(name, sizeof name, "gen-B-%u-%u-%llu-%.2f", c.variables, c.domain, (unsigned long long)c.constraints,
             c.tightness);
    parac_csp *csp = generate(&c, &generate_seconds);
    int cpu_ok = 0, gpu_ok = 0;
    if (!csp) return;
    if (settings->cpu && !time_enforce(csp, PARAC_AC_AUTO, PARAC_AC_VARIANT_AUTO, PARAC_DEVICE_CPU, 1,
                                       bench_repeats(1), &cpu_seconds, &cpu_stats))
        cpu_ok = 1, emit_sac(report, name, "cpu", cpu_seconds, 1.0, &cpu_stats);
    if (settings->cuda && !time_enforce(csp, PARAC_AC_AUTO, PARAC_AC_VARIANT_AUTO, PARAC_DEVICE_CUDA, 1,
                                        bench_repeats(1), &gpu_seconds, &gpu_stats))
        gpu_ok = 1, emit_sac(report, name, "cuda", gpu_seconds, cpu_ok ? cpu_seconds / gpu_seconds : 0.0, &gpu_stats);
    if (cpu_ok && gpu_ok && cpu_stats.values_after != gpu_stats.values_after) {
        fprintf(stderr, "bench_ac: MISMATCH on SAC: SAC1 keeps %llu values, GPU SAC %llu\n",
                (unsigned long long)cpu_stats.values_after, (unsigned long long)gpu_stats.values_after);
        mismatches++;
    }
    parac_csp_destroy(csp);
}

static void warm_up_gpu(void)
{
    generated_case c = {10, 10, 10, 0.5, 1};
    double seconds;
    parac_ac_stats stats;
    parac_csp *csp = generate(&c, &seconds);
    if (!csp) return;
    time_enforce(csp, PARAC_AC_AC4_GPU_PLUS, PARAC_AC_VARIANT_EDGES, PARAC_DEVICE_CUDA, 0, 1, &seconds, &stats);
    time_enforce(csp, PARAC_AC_AC4_GPU_PLUS, PARAC_AC_VARIANT_ROWS, PARAC_DEVICE_CUDA, 0, 1, &seconds, &stats);
    parac_csp_destroy(csp);
}

static int parse_arguments(int argc, char **argv, bench_settings *settings)
{
    bench_args args;
    if (bench_parse_args(argc, argv, "bench_ac", "cpu", &args)) return 1;
    settings->quick = args.quick;
    if (getenv("PARAC_AC_VARIANT")) {
        parac_ac_variant variant;
        parac_error error = {0};
        if (parac_ac_variant_parse(getenv("PARAC_AC_VARIANT"), &variant, &error) != PARAC_OK) {
            fprintf(stderr, "bench_ac: PARAC_AC_VARIANT: %s\n", error.message);
            return 1;
        }
        settings->variant_only = (int)variant;
    }
    settings->cpu = args.cpu;
    settings->cuda = args.gpu;
    return 0;
}

int main(int argc, char **argv)
{
    static bench_report report;
    static table_row rows[32];
    bench_settings settings = {0, 0, 0, 0};
    int count = 0;
    if (parse_arguments(argc, argv, &settings)) return 1;
    if (settings.cuda) warm_up_gpu();
    bench_shared_instances(&settings, rows, &count, &report);
    bench_generated(&settings, rows, &count, &report);
    bench_sac(&settings, &report);
    print_paper_table(rows, count);
    bench_print_table(&report);
    return mismatches ? 1 : 0;
}

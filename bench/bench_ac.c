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
 * Then the table networks (parac_csp_generate with arity >= 3, >= 10^7 tuple entries): AC3bit+rm
 * and AC4 (serial), the OpenMP rounds (gpu-bitset on the CPU, all cores) and gpu-bitset on the GPU
 * (compact-table kernels), each as propagate_seconds and as the whole call; the GPU's speed-up is
 * against the best CPU figure of the three (PARAC_BENCH_TABLES=0 skips these rows, =only runs
 * nothing else).
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

/* ---- table networks ---- */

typedef struct table_case {
    uint32_t variables, domain, arity;
    uint64_t tables, tuples;
    int in_quick;
} table_case;

enum { TABLE_AC3BIT, TABLE_AC4, TABLE_ROUNDS_CPU, TABLE_GPU, TABLE_COLUMNS };
static const parac_ac_algorithm TABLE_ALGORITHM[TABLE_COLUMNS] = {PARAC_AC_AC3BIT, PARAC_AC_AC4,
                                                                  PARAC_AC_GPU_BITSET, PARAC_AC_GPU_BITSET};
static const char *const TABLE_COLUMN_NAME[TABLE_COLUMNS] = {"ac3bit", "ac4", "gpu-bitset-cpu", "gpu-bitset-cuda"};

typedef struct table_timing {
    int ran;
    double whole, propagate, build;
    parac_ac_stats stats;
} table_timing;

/* Median whole call and median propagate_seconds of `repeats` runs (all threads for the CPU rounds). */
static int time_tables(const parac_csp *csp, int column, int repeats, table_timing *out)
{
    parac_device device = column == TABLE_GPU ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU;
    parac_ac_options options = {{device, column == TABLE_ROUNDS_CPU ? 0 : 1, 0, NULL, NULL, NULL},
                                TABLE_ALGORITHM[column], 0, PARAC_AC_VARIANT_AUTO};
    parac_error error = {0};
    double whole[16], propagate[16], build[16];
    if (repeats > 16) repeats = 16;
    for (int r = 0; r < repeats; r++) {
        double start = parac_now_seconds();
        if (parac_ac_enforce(csp, &options, NULL, &out->stats, &error) != PARAC_OK) {
            fprintf(stderr, "bench_ac: %s: %s\n", TABLE_COLUMN_NAME[column], error.message);
            return 1;
        }
        whole[r] = parac_now_seconds() - start;
        propagate[r] = out->stats.propagate_seconds;
        build[r] = out->stats.build_seconds;
    }
    out->whole = bench_median(whole, repeats);
    out->propagate = bench_median(propagate, repeats);
    out->build = bench_median(build, repeats);
    out->ran = 1;
    return 0;
}

static void emit_table_column(bench_report *report, const char *name, int column, const table_timing *t,
                              double best_cpu_propagate, double best_cpu_whole)
{
    bench_result result;
    memset(&result, 0, sizeof result);
    snprintf(result.module, sizeof result.module, "ac");
    snprintf(result.case_name, sizeof result.case_name, "%s/%s", name, TABLE_COLUMN_NAME[column]);
    snprintf(result.device, sizeof result.device, "%s", column == TABLE_GPU ? "cuda" : "cpu");
    result.threads = column == TABLE_GPU || column == TABLE_ROUNDS_CPU ? 0 : 1; /* 0: the GPU, or all cores */
    result.seconds = t->whole;
    snprintf(result.metric, sizeof result.metric, "tuple_entries_per_s");
    result.value = t->propagate > 0 ? (double)t->stats.tuple_entries / t->propagate : 0.0;
    snprintf(result.unit, sizeof result.unit, "entries/s");
    snprintf(result.extra, sizeof result.extra,
             "\"tuple_entries\":%llu,\"tables\":%llu,\"iterations\":%llu,\"values_after\":%llu,\"wipeout\":%d,"
             "\"propagate_seconds\":%.6f,\"build_seconds\":%.6f,\"propagate_speedup_vs_best_cpu\":%.4g,"
             "\"whole_speedup_vs_best_cpu\":%.4g",
             (unsigned long long)t->stats.tuple_entries, (unsigned long long)t->stats.table_count,
             (unsigned long long)t->stats.iterations, (unsigned long long)t->stats.values_after, t->stats.wipeout,
             t->propagate, t->build, t->propagate > 0 ? best_cpu_propagate / t->propagate : 0.0,
             t->whole > 0 ? best_cpu_whole / t->whole : 0.0);
    bench_emit(report, &result);
}

static void run_table_row(const parac_csp *csp, const char *name, const bench_settings *settings, bench_report *report)
{
    table_timing timing[TABLE_COLUMNS];
    double best_propagate = 0, best_whole = 0;
    int repeats = bench_repeats(3);
    memset(timing, 0, sizeof timing);
    for (int column = 0; column < TABLE_COLUMNS; column++) {
        if (column == TABLE_GPU ? !settings->cuda : !settings->cpu) continue;
        if (time_tables(csp, column, repeats, &timing[column])) continue;
        if (column != TABLE_GPU && (best_propagate == 0 || timing[column].propagate < best_propagate))
            best_propagate = timing[column].propagate;
        if (column != TABLE_GPU && (best_whole == 0 || timing[column].whole < best_whole)) best_whole = timing[column].whole;
    }
    printf("%-34s", name);
    for (int column = 0; column < TABLE_COLUMNS; column++) {
        if (!timing[column].ran) {
            printf(" %19s", "-");
            continue;
        }
        printf(" %9.4f/%9.4f", timing[column].propagate, timing[column].whole);
        if (timing[column].stats.values_after != timing[0].stats.values_after && timing[0].ran) {
            fprintf(stderr, "bench_ac: MISMATCH on %s: ac3bit keeps %llu values, %s %llu\n", name,
                    (unsigned long long)timing[0].stats.values_after, TABLE_COLUMN_NAME[column],
                    (unsigned long long)timing[column].stats.values_after);
            mismatches++;
        }
    }
    printf("  %llu entries, %llu removed%s\n", (unsigned long long)timing[0].stats.tuple_entries,
           (unsigned long long)timing[0].stats.removed, timing[0].stats.wipeout ? " (wipe-out)" : "");
    for (int column = 0; column < TABLE_COLUMNS; column++)
        if (timing[column].ran) emit_table_column(report, name, column, &timing[column], best_propagate, best_whole);
}

static void bench_tables(const bench_settings *settings, bench_report *report)
{
    /* Many small tables near the phase transition (measured with seed 42 on the development machine:
     * 600 tuples remove ~150 values in long chains, 450 over 7800 tables wipe out) and few large ones
     * (4*10^4..2.4*10^5 tuples each, nothing to remove); the quick row is the small size auto keeps on the CPU. */
    static const table_case CASES[] = {
        {40, 10, 4, 100, 300, 1},         {200, 20, 3, 6000, 600, 0}, {200, 20, 3, 7800, 450, 0},
        {20, 16, 5, 10, 240000, 0},       {60, 12, 6, 50, 40000, 0},
    };
    const char *enabled = getenv("PARAC_BENCH_TABLES");
    if (enabled && strcmp(enabled, "0") == 0) return;
    printf("\n%-34s %19s %19s %19s %19s   (propagate s / whole call s)\n", "table network", "AC3bit+rm",
           "AC4", "rounds (OpenMP)", "gpu-bitset (GPU)");
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const table_case *c = &CASES[i];
        parac_csp_generate_options options;
        parac_csp *csp = NULL;
        parac_error error = {0};
        char name[64];
        if (settings->quick && !c->in_quick) continue;
        parac_csp_generate_options_default(&options);
        options.variables = c->variables;
        options.domain = c->domain;
        options.constraints = c->tables;
        options.arity = c->arity;
        options.tuples = c->tuples;
        options.seed = 42;
        snprintf(name, sizeof name, "tables-%u-%u-%u-%llu-%llu", c->arity, c->variables, c->domain,
                 (unsigned long long)c->tables, (unsigned long long)c->tuples);
        if (parac_csp_generate(&options, &csp, &error) != PARAC_OK) {
            fprintf(stderr, "bench_ac: generate %s: %s\n", name, error.message);
            continue;
        }
        run_table_row(csp, name, settings, report);
        parac_csp_destroy(csp);
    }
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
    const char *tables = getenv("PARAC_BENCH_TABLES");
    int tables_only = tables && strcmp(tables, "only") == 0;
    if (parse_arguments(argc, argv, &settings)) return 1;
    if (settings.cuda) warm_up_gpu();
    if (!tables_only) {
        bench_shared_instances(&settings, rows, &count, &report);
        bench_generated(&settings, rows, &count, &report);
        bench_sac(&settings, &report);
        print_paper_table(rows, count);
    }
    bench_tables(&settings, &report);
    bench_print_table(&report);
    return mismatches ? 1 : 0;
}

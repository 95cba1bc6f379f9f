/* dev/fca/lab_fca_gpu.cuh — the harness of the fca lab's GPU variants (dev/fca/04-06): each runs
 * inside the library's own GPU search (src/fca/fcbo_cuda_search.cuh, included here: its pool, spill,
 * sizing, stall guard and host loops), changing only its kernel (gpu_search.local_kernel, set by
 * the variant's prepare function before setup_gpu) and/or its host loop.
 *
 * A variant fills a lab_gpu_variant and calls lab_gpu_main. The check (before any timing): on random
 * contexts (fixed seeds: 1 to 3 attribute words, min support, a pool capped to its smallest size so
 * that tasks spill to host memory) and on mushroom when the shared data are there, the variant's
 * stored concepts in canonical order equal the library's serial CPU path (fca_fcbo_serial) word for
 * word, and its count equals the serial count. The table: seconds of the search (run_gpu_search on
 * one CUDA context made once, after a warm-up; median of 5 runs interleaved with the library's
 * LOCAL_ROWS), counting, on mushroom, vote and primary-tumor (when present: PARAC_DATA/fca, else
 * ../shared/data/fca), random 200 x 100 d 0.40 and, without --quick, d 0.45 and 0.49 seed 1 (docs/fca.md's
 * cases); mushroom stored as well. The counts of the timed random cases must equal the library's CPU
 * path on all cores (fca_fcbo_on_demand). Exit 0, 1 on any mismatch, 77 without a GPU. */
#ifndef PARAC_DEV_LAB_FCA_GPU_CUH
#define PARAC_DEV_LAB_FCA_GPU_CUH

#include <omp.h>
#include <stdio.h>

#include "fca/fcbo_cuda_search.cuh"

static void lab_fca_check_ok(parac_status status, const parac_error *error, const char *what)
{
    if (status == PARAC_OK) return;
    fprintf(stderr, "%s: %s\n", what, error->message);
    exit(2);
}

static parac_fca_context *lab_fca_random(size_t objects, size_t attributes, double density, uint64_t seed)
{
    parac_fca_context *context = NULL;
    parac_error error = {};
    lab_fca_check_ok(parac_fca_context_random(objects, attributes, density, seed, &context, &error), &error,
                     "random context");
    return context;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct lab_gpu_variant {
    const char *name;
    void (*prepare)(gpu_search *g, const fca_search *search); /* sets local_kernel (and its shared bytes) */
    gpu_search_loop loop;                                      /* the host loop: search_local or the variant's */
} lab_gpu_variant;

static const lab_gpu_variant LAB_GPU_LIBRARY = {"local_rows (library)", NULL, search_local};

static parac_cuda_context lab_gpu_context;

/* One GPU search of `variant` on search (concepts NULL: count); seconds of run_gpu_search. */
static double lab_gpu_search(const lab_gpu_variant *variant, const fca_search *search, uint64_t pool_bytes,
                             parac_fca_concepts *concepts, uint64_t *count)
{
    gpu_search g;
    parac_error error = {};
    double started;
    memset(&g, 0, sizeof g);
    g.strategy = PARAC_FCA_GPU_LOCAL_ROWS;
    started = parac_now_seconds();
    if (variant->prepare) variant->prepare(&g, search);
    lab_fca_check_ok(run_gpu_search(&g, variant->loop, search, lab_gpu_context.ordinal, &lab_gpu_context, pool_bytes,
                                    0, concepts, count, &error),
                     &error, variant->name);
    return parac_now_seconds() - started;
}

/* Stored concepts of variant (canonical order) equal the serial path's, and so does its count. */
static int lab_gpu_check(const lab_gpu_variant *variant, const char *label, const parac_fca_context *context,
                         uint64_t min_support, uint64_t pool_bytes)
{
    fca_search search;
    parac_fca_concepts expected, got;
    parac_error error = {};
    uint64_t serial_count = 0, count = 0, counted = 0;
    size_t attributes = parac_fca_context_attributes(context);
    int same;
    lab_fca_check_ok(fca_search_create(context, min_support, &search, &error), &error, "search setup");
    lab_fca_check_ok(fca_concepts_init(&expected, attributes, &error), &error, "store");
    lab_fca_check_ok(fca_concepts_init(&got, attributes, &error), &error, "store");
    lab_fca_check_ok(fca_fcbo_serial(&search, &expected, &serial_count, &error), &error, "serial");
    lab_fca_check_ok(fca_search_finish(&search, &expected, &serial_count, &error), &error, "finish");
    lab_gpu_search(variant, &search, pool_bytes, &got, &count);
    lab_fca_check_ok(fca_search_finish(&search, &got, &count, &error), &error, "finish");
    lab_gpu_search(variant, &search, pool_bytes, NULL, &counted);
    lab_fca_check_ok(fca_concepts_sort(&expected, 2, &error), &error, "sort");
    lab_fca_check_ok(fca_concepts_sort(&got, 2, &error), &error, "sort");
    same = expected.count == got.count && count == serial_count && counted == serial_count &&
           memcmp(expected.intents, got.intents, expected.count * expected.attribute_words * sizeof(parac_word)) == 0;
    printf("check %s: %s: %zu concepts stored, %llu counted (serial %zu) %s\n", variant->name, label, got.count,
           (unsigned long long)counted, expected.count, same ? "same bytes" : "MISMATCH");
    fca_concepts_release(&expected);
    fca_concepts_release(&got);
    fca_search_destroy(&search);
    return same;
}

static parac_fca_context *lab_gpu_shared(const char *name)
{
    const char *data = getenv("PARAC_DATA");
    char path[1024];
    parac_fca_context *context = NULL;
    parac_error error = {};
    snprintf(path, sizeof path, "%s/fca/%s.dat", data ? data : "../shared/data", name);
    if (parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error) != PARAC_OK) {
        printf("(%s skipped: %s)\n", name, error.message);
        return NULL;
    }
    return context;
}

static int lab_gpu_checks(const lab_gpu_variant *variant)
{
    static const struct { size_t objects, attributes; double density; uint64_t seed, support, pool; } cases[] = {
        {120, 40, 0.30, 11, 0, 0}, {150, 60, 0.35, 2, 0, 0}, {97, 65, 0.30, 5, 2, 0},
        {70, 129, 0.20, 4, 0, 0},  {400, 24, 0.50, 3, 0, 0}, {120, 60, 0.30, 7, 0, 1} /* pool 1: spills */};
    parac_fca_context *mushroom;
    int ok = 1;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        parac_fca_context *context = lab_fca_random(cases[c].objects, cases[c].attributes, cases[c].density, cases[c].seed);
        char label[128];
        snprintf(label, sizeof label, "random %zu x %zu d %.2f seed %llu support %llu%s", cases[c].objects,
                 cases[c].attributes, cases[c].density, (unsigned long long)cases[c].seed,
                 (unsigned long long)cases[c].support, cases[c].pool ? ", smallest pool" : "");
        ok &= lab_gpu_check(variant, label, context, cases[c].support, cases[c].pool);
        parac_fca_context_destroy(context);
    }
    if ((mushroom = lab_gpu_shared("mushroom")) != NULL) {
        ok &= lab_gpu_check(variant, "mushroom", mushroom, 0, 0);
        parac_fca_context_destroy(mushroom);
    }
    return ok;
}

/* One table row: warm-up, then 5 interleaved runs of the variant and the library (medians). 0 when
 * a count differs from `expected` (the CPU path's; 0: the library GPU's, which fca.fcbo_gpu checks). */
static int lab_gpu_row(const lab_gpu_variant *variant, const char *label, const parac_fca_context *context, int store,
                       uint64_t expected)
{
    fca_search search;
    parac_error error = {};
    double mine[5], library[5];
    uint64_t count_mine = 0, count_library = 0;
    int same = 1;
    lab_fca_check_ok(fca_search_create(context, 0, &search, &error), &error, "search setup");
    for (int r = -1; r < 5; r++) {
        parac_fca_concepts stored_mine, stored_library;
        double a, b;
        if (store) {
            lab_fca_check_ok(fca_concepts_init(&stored_mine, parac_fca_context_attributes(context), &error), &error, "store");
            lab_fca_check_ok(fca_concepts_init(&stored_library, parac_fca_context_attributes(context), &error), &error, "store");
        }
        a = lab_gpu_search(variant, &search, 0, store ? &stored_mine : NULL, &count_mine);
        b = lab_gpu_search(&LAB_GPU_LIBRARY, &search, 0, store ? &stored_library : NULL, &count_library);
        if (store) {
            fca_concepts_release(&stored_mine);
            fca_concepts_release(&stored_library);
        }
        if (!expected) expected = count_library;
        if (count_mine != expected || count_library != expected) same = 0;
        if (r >= 0) {
            mine[r] = a;
            library[r] = b;
        }
    }
    qsort(mine, 5, sizeof mine[0], by_value);
    qsort(library, 5, sizeof library[0], by_value);
    printf("| %s | %llu | %.4f | %.4f | %.2f |%s\n", label, (unsigned long long)expected, library[2], mine[2],
           mine[2] / library[2], same ? "" : " MISMATCH (counts)");
    fca_search_destroy(&search);
    return same;
}

/* The CPU path's count on all cores (the timed random cases are too large for one thread here). */
static uint64_t lab_gpu_cpu_count(const parac_fca_context *context)
{
    fca_search search;
    parac_error error = {};
    uint64_t count = 0;
    int threads = omp_get_max_threads();
    lab_fca_check_ok(fca_search_create(context, 0, &search, &error), &error, "search setup");
    lab_fca_check_ok(fca_fcbo_on_demand(&search, threads < 2 ? 2 : threads, NULL, &count, &error), &error, "cpu");
    lab_fca_check_ok(fca_search_finish(&search, NULL, &count, &error), &error, "finish");
    fca_search_destroy(&search);
    return count;
}

static int lab_gpu_main(int argc, char **argv, const lab_gpu_variant *variant)
{
    static const char *shared[] = {"mushroom", "vote", "primary-tumor"};
    static const double densities[] = {0.40, 0.45, 0.49};
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, ok, devices = 0;
    parac_error error = {};
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        printf("%s: no GPU: skipped\n", variant->name);
        return 77;
    }
    lab_fca_check_ok(parac_cuda_context_create(0, &lab_gpu_context, &error), &error, "cuda context");
    ok = lab_gpu_checks(variant);
    if (!ok) {
        printf("%s: CHECK FAILED (concepts differ from the serial CPU path)\n", variant->name);
        parac_cuda_context_destroy(&lab_gpu_context);
        return 1;
    }
    printf("\n%s against the library's local_rows, search seconds (medians of 5 interleaved):\n\n", variant->name);
    printf("| case | concepts | local_rows (library) | %s | ratio |\n|---|---|---|---|---|\n", variant->name);
    for (size_t i = 0; i < 3; i++) {
        parac_fca_context *context = lab_gpu_shared(shared[i]);
        char label[64];
        if (!context) continue;
        ok &= lab_gpu_row(variant, shared[i], context, 0, 0);
        if (i == 0) {
            snprintf(label, sizeof label, "%s stored", shared[i]);
            ok &= lab_gpu_row(variant, label, context, 1, 0);
        }
        parac_fca_context_destroy(context);
    }
    for (size_t d = 0; d < (quick ? 1u : 3u); d++) {
        parac_fca_context *context = lab_fca_random(200, 100, densities[d], 1);
        char label[64];
        snprintf(label, sizeof label, "random 200x100 d%.2f seed1", densities[d]);
        ok &= lab_gpu_row(variant, label, context, 0, lab_gpu_cpu_count(context));
        parac_fca_context_destroy(context);
    }
    parac_cuda_context_destroy(&lab_gpu_context);
    if (!ok) printf("%s: CHECK FAILED (counts differ from the CPU path)\n", variant->name);
    return ok ? 0 : 1;
}

#endif

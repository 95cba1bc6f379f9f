/* dev/birch/01_hybrid.cu — batched BIRCH that inserts the first 4 batches speculatively (exactly the serial tree while the tree takes its shape) and segments afterwards. No better than plain segmented: 1 M blobs 0.0811 s (16 threads) / 0.0737 s (GPU), ARI 0.838 against the serial labels, where segmented takes 0.0721 / 0.0648 s at ARI 0.840 (docs/birch.md, run C, H200); removed from src/ (issue 20).
 *
 * The idea tested: the approximate segmented scheme errs most while the tree is young (few, wide
 * entries), so a serial-exact warm-up should lift its quality. It does not (docs/birch.md, "Quality
 * of the batched variants": 670 subclusters against serial 663 and segmented 675, ARI 0.838): Ward
 * on the subcluster centroids moves boundaries between touching clusters for any change of
 * insertion order, warm-up or not.
 *
 * Checks, byte for byte (exit 1 on any difference):
 *   - after the warm-up the tree is the library's serial CPU tree of those points (parac_birch with
 *     batch_size 0): same subcluster centres and counts;
 *   - the GPU hybrid (library kernels: birch_cuda_speculate, birch_cuda_insert_batched) gives the
 *     CPU hybrid's tree (birch_speculate_cpu, birch_insert_batched_cpu): centres, counts, SSDs.
 * Then the table: fit seconds of the hybrid (CPU threads, GPU) beside the library's segmented and
 * default (speculative-parallel) fits, with subclusters. Arguments: --quick (100 k points). */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>

#include "birch/batch.h"
#include "birch/birch_cuda.h"
#include "birch/cf_tree.h"
#include "birch/speculative.h"
#include "core/timer.h"

#define WARMUP_BATCHES 4
#define BATCH 8192
#define THRESHOLD 0.3
#define BRANCHING 50

static void check(parac_status status, const parac_error *error, const char *what)
{
    if (status == PARAC_OK) return;
    fprintf(stderr, "%s: %s\n", what, error->message);
    exit(2);
}

/* 2-D blobs: 20 centres in [-10, 10]^2, std 0.5 (the bench's set), a fixed seed. */
static double *make_blobs(size_t n)
{
    double *points = (double *)malloc(n * 2 * sizeof(double)), centres[40];
    uint64_t state = 2026;
    double uniform[2];
    for (int c = 0; c < 40; c++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        centres[c] = (double)(state >> 11) / 9007199254740992.0 * 20.0 - 10.0;
    }
    for (size_t i = 0; i < n; i++) {
        int c = (int)(i % 20);
        for (int u = 0; u < 2; u++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            uniform[u] = ((double)(state >> 11) + 0.5) / 9007199254740992.0;
        }
        double radius = sqrt(-2.0 * log(uniform[0])) * 0.5, angle = 6.283185307179586 * uniform[1];
        points[2 * i] = centres[2 * c] + radius * cos(angle);
        points[2 * i + 1] = centres[2 * c + 1] + radius * sin(angle);
    }
    return points;
}

/* The two halves of the hybrid on one device. */
typedef struct hybrid_device {
    birch_speculate_fn speculate;
    void *speculate_context;
    parac_status (*segment)(struct hybrid_device *device, birch_tree *tree, const double *points, size_t count,
                            parac_error *error);
    int threads;
    birch_cuda *gpu;
} hybrid_device;

static parac_status segment_cpu(hybrid_device *device, birch_tree *tree, const double *points, size_t count,
                                parac_error *error)
{
    return birch_insert_batched_cpu(tree, points, count, BATCH, device->threads, error);
}

static parac_status segment_gpu(hybrid_device *device, birch_tree *tree, const double *points, size_t count,
                                parac_error *error)
{
    return birch_cuda_insert_batched(device->gpu, tree, points, count, BATCH, error);
}

static parac_status speculate_gpu(void *context, const birch_tree *tree, const double *points, size_t n, size_t height,
                                  int32_t *leaf_slot, double *margins, parac_error *error)
{
    return birch_cuda_speculate((birch_cuda *)context, tree, points, n, height, leaf_slot, margins, error);
}

/* The variant: the first WARMUP_BATCHES x BATCH points speculatively (in-order commit), the rest segmented. */
static parac_status insert_hybrid(hybrid_device *device, birch_tree *tree, const double *points, size_t n,
                                  size_t *warmup_done, parac_error *error)
{
    size_t warmup = n < (size_t)WARMUP_BATCHES * BATCH ? n : (size_t)WARMUP_BATCHES * BATCH;
    birch_commit_mode in_order = {0, device->threads};
    parac_status status = birch_insert_speculative(tree, points, warmup, BATCH, device->speculate,
                                                   device->speculate_context, in_order, NULL, error);
    if (status != PARAC_OK) return status;
    if (warmup_done) *warmup_done = warmup;
    return warmup < n ? device->segment(device, tree, points + warmup * 2, n - warmup, error) : PARAC_OK;
}

typedef struct tree_bytes {
    size_t m;
    double *centers, *ssd;
    int64_t *counts;
} tree_bytes;

static tree_bytes collect(const birch_tree *tree)
{
    tree_bytes t = {tree->leaf_entries, NULL, NULL, NULL};
    t.centers = (double *)malloc((t.m + 1) * 2 * sizeof(double));
    t.ssd = (double *)malloc((t.m + 1) * sizeof(double));
    t.counts = (int64_t *)malloc((t.m + 1) * sizeof(int64_t));
    birch_tree_collect(tree, t.centers, t.counts, t.ssd);
    return t;
}

static int same_tree(const tree_bytes *a, const tree_bytes *b, int with_ssd)
{
    return a->m == b->m && memcmp(a->centers, b->centers, a->m * 2 * sizeof(double)) == 0 &&
           memcmp(a->counts, b->counts, a->m * sizeof(int64_t)) == 0 &&
           (!with_ssd || memcmp(a->ssd, b->ssd, a->m * sizeof(double)) == 0);
}

/* One hybrid fit on `device`: seconds, and its tree's bytes. */
static double fit_hybrid(hybrid_device *device, const double *points, size_t n, tree_bytes *out, tree_bytes *warmup_tree)
{
    birch_tree tree;
    parac_error error;
    size_t warmup = 0;
    check(birch_tree_init(&tree, 2, BRANCHING, THRESHOLD, &error), &error, "tree");
    double started = parac_now_seconds();
    if (warmup_tree) { /* stop after the warm-up once, to compare with the serial tree */
        size_t first = (size_t)WARMUP_BATCHES * BATCH < n ? (size_t)WARMUP_BATCHES * BATCH : n;
        check(insert_hybrid(device, &tree, points, first, &warmup, &error), &error, "hybrid warm-up");
        *warmup_tree = collect(&tree);
        check(device->segment(device, &tree, points + first * 2, n - first, &error), &error, "hybrid rest");
    } else {
        check(insert_hybrid(device, &tree, points, n, &warmup, &error), &error, "hybrid");
    }
    double seconds = parac_now_seconds() - started;
    *out = collect(&tree);
    birch_tree_free(&tree);
    return seconds;
}

/* A fit of the library's own (public API), batched with `variant` (batch 0: serial); seconds. */
static double fit_library(parac_device device, parac_birch_variant variant, size_t batch, const double *points, size_t n,
                          tree_bytes *out)
{
    parac_birch_options options;
    parac_birch *model = NULL;
    parac_error error;
    parac_birch_options_init(&options);
    options.threshold = THRESHOLD, options.branching_factor = BRANCHING, options.n_clusters = 0;
    options.batch_size = batch, options.variant = variant, options.exec.device = device;
    check(parac_birch_create(&options, 2, &model, &error), &error, "library model");
    double started = parac_now_seconds();
    check(parac_birch_partial_fit(model, points, n, &error), &error, "library fit");
    double seconds = parac_now_seconds() - started;
    out->m = parac_birch_subcluster_count(model);
    out->centers = (double *)malloc((out->m + 1) * 2 * sizeof(double));
    out->counts = (int64_t *)malloc((out->m + 1) * sizeof(int64_t));
    out->ssd = NULL;
    check(parac_birch_subclusters(model, out->centers, out->counts, NULL, &error), &error, "library subclusters");
    parac_birch_destroy(model);
    return seconds;
}

static void row(const char *name, double seconds, const tree_bytes *t, const char *check)
{
    printf("| %-36s | %8.4f | %11zu | %s |\n", name, seconds, t->m, check);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 100000 : 1000000;
    int devices = 0, failures = 0;
    parac_error error;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("01_hybrid: skipped, no CUDA device\n");
        return 77;
    }
    double *points = make_blobs(n);
    int threads = 0; /* all cores */
    birch_cuda *gpu = NULL;
    check(birch_cuda_create(0, &gpu, &error), &error, "birch GPU");
    hybrid_device cpu_side = {birch_speculate_cpu, &threads, segment_cpu, 0, NULL};
    hybrid_device gpu_side = {speculate_gpu, gpu, segment_gpu, 0, gpu};
    tree_bytes cpu_tree, gpu_tree, warm_tree, serial_warm, library;
    size_t first = (size_t)WARMUP_BATCHES * BATCH < n ? (size_t)WARMUP_BATCHES * BATCH : n;

    printf("| fit of %zu 2-D blobs (threshold %.1f, B %d) | seconds | subclusters | check |\n|---|---|---|---|\n", n,
           THRESHOLD, BATCH);
    fit_library(PARAC_DEVICE_CPU, PARAC_BIRCH_SPECULATIVE, 0, points, first, &serial_warm);
    double seconds = fit_hybrid(&cpu_side, points, n, &cpu_tree, &warm_tree);
    int warm_same = same_tree(&warm_tree, &serial_warm, 0);
    failures += !warm_same;
    row("hybrid, CPU threads", seconds, &cpu_tree,
        warm_same ? "warm-up tree = library serial tree" : "MISMATCH: warm-up tree differs from the serial tree");
    seconds = fit_hybrid(&gpu_side, points, n, &gpu_tree, NULL);
    int gpu_same = same_tree(&gpu_tree, &cpu_tree, 1);
    failures += !gpu_same;
    row("hybrid, GPU", seconds, &gpu_tree, gpu_same ? "same bytes as the CPU hybrid" : "MISMATCH: differs from the CPU hybrid");
    seconds = fit_library(PARAC_DEVICE_CPU, PARAC_BIRCH_SEGMENTED, BATCH, points, n, &library);
    row("library segmented, CPU threads", seconds, &library, "");
    seconds = fit_library(PARAC_DEVICE_CUDA, PARAC_BIRCH_SEGMENTED, BATCH, points, n, &library);
    row("library segmented, GPU", seconds, &library, "");
    seconds = fit_library(PARAC_DEVICE_CPU, PARAC_BIRCH_SPECULATIVE_PARALLEL, BATCH, points, n, &library);
    row("library default (exact), CPU threads", seconds, &library, "");
    seconds = fit_library(PARAC_DEVICE_CUDA, PARAC_BIRCH_SPECULATIVE_PARALLEL, BATCH, points, n, &library);
    row("library default (exact), GPU", seconds, &library, "");
    birch_cuda_destroy(gpu);
    printf("01_hybrid: %s\n", failures ? "FAILED (a tree differs, see the check column)" : "every check passed");
    return failures ? 1 : 0;
}

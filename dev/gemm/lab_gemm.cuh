/* dev/gemm/lab_gemm.cuh — the harness every gemm variant of the kernel lab shares (dev/README.md).
 *
 * A variant file defines its kernels and one launcher (lab_gemm_launch_fn) over the library's own
 * kernel arguments (gemm/gemm_kernels.cuh: packed panels, the plan's work items, the dynamic queue),
 * then calls lab_gemm_main. For every case and both schedules this harness
 *   1. builds the plan on the CPU (explicit tiles, split_k 1) and runs the library's CPU path: the
 *      reference C;
 *   2. uploads A and B, packs them into the plan's panels with the library's pack (gemm_pack.h),
 *      uploads the plan's tables, runs the variant and compares its C with the reference byte for
 *      byte (every fp32 variant must give the CPU's bits);
 *   3. times pack + variant (median of the repeats, CUDA events) beside the library's own GPU path
 *      for the same options (variant BASE, and AUTO: the default), also pack + kernel.
 * It prints one table row per (case, schedule, kernel) and exits 1 on any mismatch, 77 without a GPU.
 * Arguments: --quick (small cases only), --repeats N (default 9). */
#ifndef PARAC_DEV_LAB_GEMM_CUH
#define PARAC_DEV_LAB_GEMM_CUH

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#include "gemm/gemm_internal.h"
#include "gemm/gemm_kernels.cuh"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_pack.h"

typedef parac_status (*lab_gemm_launch_fn)(const parac_gemm_plan *plan, const gemm_args &g, int multiprocessors,
                                           cudaStream_t stream, parac_error *error);

typedef struct lab_gemm_case {
    const char *name;
    int64_t m, n, k;
    int tile_m, tile_n;
    double block_density; /* 1 = dense; else a random fraction of A's 64x64 tiles is non-zero */
    int quick;            /* part of --quick */
} lab_gemm_case;

static const lab_gemm_case LAB_GEMM_CASES[] = {
    {"ragged 1001x777x1500 64x64", 1001, 777, 1500, 64, 64, 1.0, 1},
    {"ragged 257x255x190 128x64", 257, 255, 190, 128, 64, 1.0, 1},
    {"dense 2048 128x128", 2048, 2048, 2048, 128, 128, 1.0, 1},
    {"dense 4096 128x128", 4096, 4096, 4096, 128, 128, 1.0, 0},
    {"block-sparse 12.5% 4096 64x64", 4096, 4096, 4096, 64, 64, 0.125, 0},
};

#define LAB_CHECK_CUDA(call)                                                                              \
    do {                                                                                                  \
        cudaError_t lab_code_ = (call);                                                                   \
        if (lab_code_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(lab_code_)); \
            exit(2);                                                                                      \
        }                                                                                                 \
    } while (0)

static void lab_check_status(parac_status status, const parac_error *error, const char *what)
{
    if (status == PARAC_OK) return;
    fprintf(stderr, "%s: %s\n", what, error->message);
    exit(2);
}

static int lab_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double lab_median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof(double), lab_compare_doubles);
    return values[count / 2];
}

/* Uniform values in [-1, 1) from a fixed seed; A's masked 64x64 tiles zero. */
static void lab_fill(float *x, int64_t count, uint64_t seed)
{
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)((double)(seed >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
}

static unsigned char *lab_block_mask(const lab_gemm_case *c, int64_t tiles_m, int64_t tiles_k, float *a)
{
    unsigned char *mask = (unsigned char *)malloc((size_t)(tiles_m * tiles_k));
    uint64_t seed = 99;
    for (int64_t t = 0; t < tiles_m * tiles_k; t++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        mask[t] = (double)(seed >> 40) / (double)(1ull << 24) < c->block_density;
        if (t % tiles_k == t / tiles_k % tiles_k) mask[t] = 1; /* no empty tile row */
    }
    for (int64_t r = 0; r < c->m; r++)
        for (int64_t kk = 0; kk < c->k; kk++)
            if (!mask[(r / 64) * tiles_k + kk / 64]) a[r * c->k + kk] = 0.0f;
    return mask;
}

static void lab_options(parac_gemm_options *o, const lab_gemm_case *c, parac_gemm_schedule schedule,
                        const unsigned char *a_mask, parac_device device, parac_gemm_variant variant)
{
    parac_gemm_options_init(o);
    o->m = c->m, o->n = c->n, o->k = c->k;
    o->tile_m = c->tile_m, o->tile_n = c->tile_n, o->tile_k = 64, o->split_k = 1;
    o->schedule = schedule;
    o->a_tile_mask = a_mask;
    o->exec.device = device;
    o->variant = variant;
}

template <typename T> static T *lab_upload(const T *host, int64_t count)
{
    T *device = NULL;
    LAB_CHECK_CUDA(cudaMalloc((void **)&device, (size_t)(count > 0 ? count : 1) * sizeof(T)));
    if (count > 0) LAB_CHECK_CUDA(cudaMemcpy(device, host, (size_t)count * sizeof(T), cudaMemcpyHostToDevice));
    return device;
}

/* Median seconds of pack + launch of the lab variant over `repeats` runs (one warm-up). */
static double lab_time_variant(const parac_gemm_plan *plan, const gemm_args &g, const gemm_pack_operand *pa,
                               const gemm_pack_operand *pb, lab_gemm_launch_fn launch, int multiprocessors,
                               int repeats)
{
    double times[64];
    cudaEvent_t start, stop;
    parac_error error;
    LAB_CHECK_CUDA(cudaEventCreate(&start));
    LAB_CHECK_CUDA(cudaEventCreate(&stop));
    for (int r = 0; r <= repeats; r++) {
        float milliseconds = 0;
        LAB_CHECK_CUDA(cudaEventRecord(start, 0));
        lab_check_status(gemm_pack_launch(pa, pb, 0, &error), &error, "pack");
        lab_check_status(launch(plan, g, multiprocessors, 0, &error), &error, "variant launch");
        LAB_CHECK_CUDA(cudaEventRecord(stop, 0));
        LAB_CHECK_CUDA(cudaEventSynchronize(stop));
        LAB_CHECK_CUDA(cudaEventElapsedTime(&milliseconds, start, stop));
        if (r > 0) times[r - 1] = milliseconds * 1e-3;
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    return lab_median(times, repeats);
}

/* The library's own GPU path (pack + kernel, its compute time) for `variant`; its C checked too. */
static double lab_time_library(const lab_gemm_case *c, parac_gemm_schedule schedule, const unsigned char *a_mask,
                               parac_gemm_variant variant, const float *da, const float *db, float *dc,
                               const float *reference, float *back, int repeats, int *same, parac_gemm_variant *ran)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    double times[64];
    lab_options(&o, c, schedule, a_mask, PARAC_DEVICE_CUDA, variant);
    lab_check_status(parac_gemm_plan_create(&o, &plan, &error), &error, "library GPU plan");
    for (int r = 0; r <= repeats; r++) {
        lab_check_status(parac_gemm_execute_device(plan, 1.0f, da, db, 0.0f, dc, &error), &error, "library run");
        if (r > 0) times[r - 1] = parac_gemm_last_compute_seconds(plan);
    }
    LAB_CHECK_CUDA(cudaMemcpy(back, dc, (size_t)(c->m * c->n) * sizeof(float), cudaMemcpyDeviceToHost));
    *same = memcmp(back, reference, (size_t)(c->m * c->n) * sizeof(float)) == 0;
    parac_gemm_plan_info_get(plan, &info);
    *ran = info.variant;
    parac_gemm_plan_destroy(plan);
    return lab_median(times, repeats);
}

static void lab_row(const char *variant, const lab_gemm_case *c, parac_gemm_schedule schedule, double seconds,
                    double flops, int same)
{
    printf("| %-22s | %-30s | %-7s | %9.3f | %7.2f | %s |\n", variant, c->name,
           schedule == PARAC_GEMM_SCHEDULE_STATIC ? "static" : "dynamic", seconds * 1e3, flops / seconds / 1e12,
           same ? "same bits" : "MISMATCH");
    fflush(stdout);
}

/* One case, one schedule: returns the number of mismatches. */
static int lab_run_case(const char *name, lab_gemm_launch_fn launch, const lab_gemm_case *c,
                        parac_gemm_schedule schedule, int multiprocessors, int repeats)
{
    int64_t tiles_m = (c->m + 63) / 64, tiles_k = (c->k + 63) / 64;
    float *a = (float *)malloc((size_t)(c->m * c->k) * sizeof(float));
    float *b = (float *)malloc((size_t)(c->k * c->n) * sizeof(float));
    float *reference = (float *)malloc((size_t)(c->m * c->n) * sizeof(float));
    float *back = (float *)malloc((size_t)(c->m * c->n) * sizeof(float));
    unsigned char *a_mask = NULL;
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    int failures = 0, same = 0;
    parac_gemm_variant ran;
    lab_fill(a, c->m * c->k, 11);
    lab_fill(b, c->k * c->n, 12);
    if (c->block_density < 1.0) a_mask = lab_block_mask(c, tiles_m, tiles_k, a);
    /* 1. the CPU path: the reference bits, and the plan's tables */
    lab_options(&o, c, schedule, a_mask, PARAC_DEVICE_CPU, PARAC_GEMM_VARIANT_BASE);
    lab_check_status(parac_gemm_plan_create(&o, &plan, &error), &error, "CPU plan");
    lab_check_status(parac_gemm_execute(plan, 1.0f, a, b, 0.0f, reference, &error), &error, "CPU run");
    if (plan->reduction_count != 0) {
        fprintf(stderr, "%s: the lab runs split_k 1 only\n", c->name);
        exit(2);
    }
    /* 2. the variant on the library's packed panels and tables */
    float *da = lab_upload(a, c->m * c->k), *db = lab_upload(b, c->k * c->n), *dc = NULL;
    float *packed_a = NULL, *packed_b = NULL;
    unsigned int *counter = NULL;
    LAB_CHECK_CUDA(cudaMalloc((void **)&dc, (size_t)(c->m * c->n) * sizeof(float)));
    LAB_CHECK_CUDA(cudaMalloc((void **)&packed_a, (size_t)(plan->padded_k * plan->padded_m) * sizeof(float)));
    LAB_CHECK_CUDA(cudaMalloc((void **)&packed_b, (size_t)(plan->padded_k * plan->padded_n) * sizeof(float)));
    LAB_CHECK_CUDA(cudaMalloc((void **)&counter, sizeof(unsigned int)));
    gemm_pack_operand pa = {da, plan->lda, c->k, c->m, plan->padded_k, plan->padded_m, 1, plan->tile_m, 0, 0, packed_a};
    gemm_pack_operand pb = {db, plan->ldb, c->k, c->n, plan->padded_k, plan->padded_n, 0, plan->tile_n, 0, 0, packed_b};
    gemm_args g;
    memset(&g, 0, sizeof g);
    g.packed_a = packed_a, g.packed_b = packed_b;
    g.k_list = lab_upload(plan->k_list, plan->c_offsets[plan->tiles_m * plan->tiles_n]);
    g.items = lab_upload(plan->items, plan->item_count);
    g.order = schedule == PARAC_GEMM_SCHEDULE_DYNAMIC ? lab_upload(plan->dynamic_order, plan->item_count) : NULL;
    g.counter = counter;
    g.item_count = (int)plan->item_count;
    g.padded_k = plan->padded_k, g.tile_k = plan->tile_k;
    g.c = dc, g.partials = NULL;
    g.m = c->m, g.n = c->n, g.ldc = plan->ldc, g.c_row_major = 1;
    g.alpha = 1.0f, g.beta = 0.0f;
    g.ldb = plan->ldb, g.k = c->k, g.lda = plan->lda;
    LAB_CHECK_CUDA(cudaMemset(dc, 0xff, (size_t)(c->m * c->n) * sizeof(float))); /* NaN: nothing left unwritten */
    double seconds = lab_time_variant(plan, g, &pa, &pb, launch, multiprocessors, repeats);
    LAB_CHECK_CUDA(cudaMemcpy(back, dc, (size_t)(c->m * c->n) * sizeof(float), cudaMemcpyDeviceToHost));
    same = memcmp(back, reference, (size_t)(c->m * c->n) * sizeof(float)) == 0;
    failures += !same;
    lab_row(name, c, schedule, seconds, plan->info.flops, same);
    /* 3. the library's own kernels, same options */
    static const parac_gemm_variant LIBRARY[] = {PARAC_GEMM_VARIANT_BASE, PARAC_GEMM_VARIANT_AUTO};
    for (int v = 0; v < 2; v++) {
        char label[64];
        seconds = lab_time_library(c, schedule, a_mask, LIBRARY[v], da, db, dc, reference, back, repeats, &same, &ran);
        snprintf(label, sizeof label, "library %s%s", v ? "auto = " : "", parac_gemm_variant_name(ran));
        failures += !same;
        lab_row(label, c, schedule, seconds, plan->info.flops, same);
    }
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(packed_a), cudaFree(packed_b), cudaFree(counter);
    cudaFree((void *)g.k_list), cudaFree((void *)g.items), cudaFree((void *)g.order);
    parac_gemm_plan_destroy(plan);
    free(a), free(b), free(reference), free(back), free(a_mask);
    return failures;
}

static int lab_gemm_main(const char *name, lab_gemm_launch_fn launch, int argc, char **argv)
{
    int quick = 0, repeats = 9, devices = 0, multiprocessors = 0, failures = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = atoi(argv[++i]);
    }
    if (repeats < 1) repeats = 1;
    if (repeats > 63) repeats = 63;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("%s: skipped, no CUDA device\n", name);
        return 77;
    }
    LAB_CHECK_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0));
    printf("| kernel | case | schedule | ms (pack + kernel) | TFLOP/s | vs CPU path |\n|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof LAB_GEMM_CASES / sizeof LAB_GEMM_CASES[0]; c++) {
        if (quick && !LAB_GEMM_CASES[c].quick) continue;
        failures += lab_run_case(name, launch, &LAB_GEMM_CASES[c], PARAC_GEMM_SCHEDULE_STATIC, multiprocessors, repeats);
        failures += lab_run_case(name, launch, &LAB_GEMM_CASES[c], PARAC_GEMM_SCHEDULE_DYNAMIC, multiprocessors, repeats);
    }
    printf("%s: %s\n", name, failures ? "FAILED (a C differs from the CPU path's bits)" : "every C equals the CPU path's bits");
    return failures ? 1 : 0;
}

#endif

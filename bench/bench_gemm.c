/* bench/bench_gemm.c — parac gemm beside OpenBLAS (CPU), cuBLAS and cuSPARSE (GPU).
 *
 *   bench_gemm [--device cpu|cuda|all] [--quick]
 * Cases (issue 6):
 *   CPU   dense fp32 n = 1024, 2048: parac vs OpenBLAS cblas_sgemm (when linked)
 *   GPU   dense fp32 4096, 8192: parac FFMA vs cublasSgemm, then the default plan and cuBLAS alternating
 *         dense tf32 4096, 8192: parac mma.sync vs cublasGemmEx FAST_TF32
 *         n = 8192, A block-sparse (12.5 % of 64x64 tiles) and banded: parac vs dense
 *         cublasSgemm on the same matrices and cuSPARSE BSR SpMM
 *         n = 8192, power-law block rows: static vs dynamic schedule
 *         the packing pass alone, n = 4096, 8192: fast pack vs the first (reference) pack, GB/s
 * GPU times are device times (CUDA events), parac's including its packing pass.
 * "tflops" is dense-equivalent (2 n^3 / t) so sparse rows compare with cuBLAS directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parac/devices.h>
#include <parac/gemm.h>

#include "bench_util.h"
#include "core/threads.h"
#include "core/timer.h"
#ifdef PARAC_HAVE_CUDA
#include "gemm/gemm_pack.h"
#endif

#ifdef PARAC_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifdef PARAC_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

typedef struct bench_setup {
    bench_report report;
    int quick, cpu, gpu;
} bench_setup;

static float *generate(int64_t rows, int64_t cols, parac_gemm_matrix_kind kind, int64_t band, double density,
                       int power_law, uint64_t seed)
{
    parac_gemm_matrix_spec spec = {rows, cols, kind, band, density, 64, power_law, seed};
    float *x = malloc((size_t)(rows * cols) * sizeof *x);
    parac_error error;
    if (!x || parac_gemm_matrix_generate(&spec, x, &error) != PARAC_OK) {
        fprintf(stderr, "bench_gemm: cannot generate a %lld x %lld matrix\n", (long long)rows, (long long)cols);
        exit(1);
    }
    return x;
}

/* One result row (bench_util's JSON line). */
static void emit_row(bench_setup *s, const char *case_name, const char *device, int threads, double seconds,
                     const char *metric, double value, const char *unit, const char *extra)
{
    bench_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.module, sizeof r.module, "gemm");
    snprintf(r.case_name, sizeof r.case_name, "%s", case_name);
    snprintf(r.device, sizeof r.device, "%s", device);
    r.threads = threads;
    r.seconds = seconds;
    snprintf(r.metric, sizeof r.metric, "%s", metric);
    r.value = value;
    snprintf(r.unit, sizeof r.unit, "%s", unit);
    snprintf(r.extra, sizeof r.extra, "%s", extra ? extra : "");
    bench_emit(&s->report, &r);
}

static void emit(bench_setup *s, const char *case_name, const char *device, int threads, double seconds,
                 double tflops, const char *extra)
{
    emit_row(s, case_name, device, threads, seconds, "tflops", tflops, "TFLOP/s", extra);
}

/* --- CPU ------------------------------------------------------------------------------- */

/* OpenBLAS's worker threads (one per core, created when the library loads) spin-wait for
 * about 2^28 cycles after they start and after every call before they sleep; parac's
 * OpenMP threads timed during that stretch share the cores with them (run O, H200: parac
 * n = 1024 measured 0.032 s in this bench against 0.0029 s from the CLI, which has no
 * OpenBLAS). So parac is timed only once they sleep. */
static void wait_for_blas_threads_to_sleep(void)
{
#ifdef PARAC_BENCH_OPENBLAS
    struct timespec pause = {0, 400 * 1000 * 1000};
    nanosleep(&pause, NULL);
#endif
}

static void bench_cpu_dense(bench_setup *s, int64_t n)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    float *a = generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 1), *b = generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 2);
    float *c = calloc((size_t)(n * n), sizeof *c);
    double times[16], flops = 2.0 * (double)n * n * n, parac_seconds;
    int repeats = bench_repeats(s->quick ? 2 : 3), threads = parac_threads_resolve(0);
    char name[96], extra[128] = "";
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = o.n = o.k = n;
    if (parac_gemm_plan_create(&o, &plan, &error) != PARAC_OK) {
        fprintf(stderr, "bench_gemm: %s\n", error.message);
        exit(1);
    }
    wait_for_blas_threads_to_sleep();
    parac_gemm_execute(plan, 1.0f, a, b, 0.0f, c, &error); /* warm-up: packs, faults pages in */
    for (int r = 0; r < repeats && r < 16; r++) {
        parac_gemm_execute(plan, 1.0f, a, b, 0.0f, c, &error);
        times[r] = parac_gemm_last_compute_seconds(plan);
    }
    parac_seconds = bench_median(times, repeats < 16 ? repeats : 16);
    parac_gemm_plan_destroy(plan);
#ifdef PARAC_BENCH_OPENBLAS
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f, c, (int)n);
    for (int r = 0; r < repeats && r < 16; r++) {
        double start = parac_now_seconds();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, a, (int)n, b, (int)n, 0.0f,
                    c, (int)n);
        times[r] = parac_now_seconds() - start;
    }
    {
        double blas_seconds = bench_median(times, repeats < 16 ? repeats : 16);
        snprintf(name, sizeof name, "openblas sgemm n=%lld", (long long)n);
        emit(s, name, "cpu", threads, blas_seconds, flops / blas_seconds / 1e12, NULL);
        snprintf(extra, sizeof extra, "\"vs_openblas\":%.4f", blas_seconds / parac_seconds);
    }
#endif
    snprintf(name, sizeof name, "parac fp32 dense n=%lld", (long long)n);
    emit(s, name, "cpu", threads, parac_seconds, flops / parac_seconds / 1e12, extra);
    free(a), free(b), free(c);
}

#ifdef PARAC_HAVE_CUDA
/* --- GPU -------------------------------------------------------------------------------- */

typedef struct gpu_problem {
    int64_t n;
    float *a, *b;           /* host, row-major */
    float *da, *db, *dc, *dref;
    unsigned char *a_mask;  /* 64x64 tile mask of A (host), NULL when dense */
    int stages;             /* wgmma_tma pipeline stages (0 = the plan's choice); n256: 0 = BK32 x 2, 4 = BK16 x 4 */
    int pack;               /* options.pack_operands: 1 = B packed even where bk32 could copy it in place */
} gpu_problem;

static void gpu_check(cudaError_t code, const char *what)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "bench_gemm: %s: %s\n", what, cudaGetErrorString(code));
        exit(1);
    }
}

static void problem_upload(gpu_problem *p)
{
    size_t bytes = (size_t)(p->n * p->n) * sizeof(float);
    gpu_check(cudaMalloc((void **)&p->da, bytes), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&p->db, bytes), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&p->dc, bytes), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&p->dref, bytes), "cudaMalloc");
    gpu_check(cudaMemcpy(p->da, p->a, bytes, cudaMemcpyHostToDevice), "upload A");
    gpu_check(cudaMemcpy(p->db, p->b, bytes, cudaMemcpyHostToDevice), "upload B");
}

static void problem_free(gpu_problem *p)
{
    cudaFree(p->da), cudaFree(p->db), cudaFree(p->dc), cudaFree(p->dref);
    free(p->a), free(p->b), free(p->a_mask);
}

/* Median device seconds of `repeats` runs of a parac plan (after one warm-up). */
/* Kernel variants to time: PARAC_GEMM_VARIANT=base|wgmma|wgmma_tma|n256|wgmma_ws|bk32|wgmma_ws_a picks
 * one, else every one for the dtype. Indexed by parac_gemm_variant ("wide" and "persistent" were
 * removed from the library: dev/gemm/ times them, never selected here). */
static const char *const VARIANT_NAMES[] = {"auto",     "base", "wide", "wgmma", "wgmma_tma", "persistent", "n256",
                                            "wgmma_ws", "bk32", "wgmma_ws_a"};

/* The fp32 (FFMA) kernel families. */
static int fp32_variant(int v)
{
    return v == PARAC_GEMM_VARIANT_BASE || v == PARAC_GEMM_VARIANT_N256 || v == PARAC_GEMM_VARIANT_BK32;
}

static int variant_selected(parac_gemm_variant v, parac_gemm_dtype dtype)
{
    const char *only = getenv("PARAC_GEMM_VARIANT");
    if (v == PARAC_GEMM_VARIANT_REMOVED_WIDE || v == PARAC_GEMM_VARIANT_REMOVED_PERSISTENT) return 0;
    if (only && *only) return strcmp(only, VARIANT_NAMES[v]) == 0;
    if (v == PARAC_GEMM_VARIANT_BASE) return 1;
    return dtype == PARAC_GEMM_TF32 ? v == PARAC_GEMM_VARIANT_WGMMA || v == PARAC_GEMM_VARIANT_WGMMA_TMA ||
                                          v == PARAC_GEMM_VARIANT_WGMMA_WS || v == PARAC_GEMM_VARIANT_WGMMA_WS_A
                                    : v == PARAC_GEMM_VARIANT_N256 || v == PARAC_GEMM_VARIANT_BK32;
}

/* PARAC_GEMM_STAGES (4 or 6) sets the wgmma_tma pipeline depth for every case that does not pick one. */
static int default_stages(void)
{
    const char *text = getenv("PARAC_GEMM_STAGES");
    return text && (atoi(text) == 4 || atoi(text) == 6) ? atoi(text) : 0;
}

/* n256 runs twice in each fp32 case (round 5): its new pipeline, BK32's at 64x256 with 2 stages
 * (pipeline_stages 0, label "n256 bk32x2"), beside the first one, base's BK16 x 4 stages
 * (pipeline_stages 4, label "n256 bk16x4"). Other variants run once. */
/* Runs per fp32 variant: n256's two pipelines; bk32 with B in place (the default) and packed
 * (the same kernel fed from B's panels: what reading B in place saves, or costs). */
static int fp32_runs(int v) { return v == PARAC_GEMM_VARIANT_N256 || v == PARAC_GEMM_VARIANT_BK32 ? 2 : 1; }
static int fp32_run_stages(int v, int run) { return v == PARAC_GEMM_VARIANT_N256 && run == 1 ? 4 : 0; }
static int fp32_run_packed(int v, int run) { return v == PARAC_GEMM_VARIANT_BK32 && run == 1; }
static const char *fp32_label(int v, int run)
{
    if (v == PARAC_GEMM_VARIANT_BK32) return run == 0 ? "bk32" : "bk32 packed";
    if (v != PARAC_GEMM_VARIANT_N256) return VARIANT_NAMES[v];
    return run == 0 ? "n256 bk32x2" : "n256 bk16x4";
}

static double time_parac(gpu_problem *p, parac_gemm_dtype dtype, parac_gemm_schedule schedule, parac_gemm_variant variant,
                         int sparse, int repeats, parac_gemm_plan_info *info)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    double times[16];
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CUDA;
    o.m = o.n = o.k = p->n;
    o.dtype = dtype;
    o.schedule = schedule;
    o.variant = variant;
    o.pipeline_stages = variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? (p->stages ? p->stages : default_stages())
                        : variant == PARAC_GEMM_VARIANT_N256 ? p->stages
                                                              : 0;
    o.pack_operands = p->pack;
    if (sparse) o.scan_a = p->a;
    if (parac_gemm_plan_create(&o, &plan, &error) != PARAC_OK ||
        parac_gemm_execute_device(plan, 1.0f, p->da, p->db, 0.0f, p->dc, &error) != PARAC_OK) {
        fprintf(stderr, "bench_gemm: parac: %s\n", error.message);
        exit(1);
    }
    for (int r = 0; r < repeats; r++) {
        parac_gemm_execute_device(plan, 1.0f, p->da, p->db, 0.0f, p->dc, &error);
        times[r] = parac_gemm_last_compute_seconds(plan);
    }
    parac_gemm_plan_info_get(plan, info);
    parac_gemm_plan_destroy(plan);
    return bench_median(times, repeats);
}

/* Row-major C = A B through column-major cuBLAS: C^T = B^T A^T. Result in dref. */
static double time_cublas(cublasHandle_t handle, gpu_problem *p, int tf32, int repeats)
{
    cudaEvent_t start, stop;
    float alpha = 1.0f, beta = 0.0f, ms;
    double times[16];
    int n = (int)p->n;
    cudaEventCreate(&start), cudaEventCreate(&stop);
    for (int r = -1; r < repeats; r++) {
        cublasStatus_t status;
        cudaEventRecord(start, 0);
        if (tf32)
            status = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, p->db, CUDA_R_32F, n, p->da,
                                  CUDA_R_32F, n, &beta, p->dref, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32,
                                  CUBLAS_GEMM_DEFAULT);
        else
            status = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, p->db, n, p->da, n, &beta, p->dref, n);
        cudaEventRecord(stop, 0);
        gpu_check(cudaEventSynchronize(stop), "cublas");
        if (status != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "bench_gemm: cuBLAS status %d\n", (int)status);
            exit(1);
        }
        cudaEventElapsedTime(&ms, start, stop);
        if (r >= 0) times[r] = ms * 1e-3;
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    return bench_median(times, repeats);
}

/* max |parac - cuBLAS| / max |cuBLAS| over the whole C. */
static double compare_with_reference(gpu_problem *p)
{
    size_t count = (size_t)(p->n * p->n);
    float *c = malloc(count * 4), *ref = malloc(count * 4);
    double worst = 0.0, scale = 0.0;
    gpu_check(cudaMemcpy(c, p->dc, count * 4, cudaMemcpyDeviceToHost), "download");
    gpu_check(cudaMemcpy(ref, p->dref, count * 4, cudaMemcpyDeviceToHost), "download");
    for (size_t i = 0; i < count; i++) {
        worst = fmax(worst, fabs((double)c[i] - ref[i]));
        scale = fmax(scale, fabs((double)ref[i]));
    }
    free(c), free(ref);
    return worst / (scale > 0 ? scale : 1);
}

typedef struct bsr_matrix {
    int block_rows, nonzero_blocks;
    int *row_offsets, *columns; /* device */
    float *values;              /* device, row-major 64x64 blocks */
} bsr_matrix;

static bsr_matrix bsr_from_dense(const gpu_problem *p)
{
    int blocks = (int)(p->n / 64), nonzero = 0;
    int *offsets = calloc((size_t)blocks + 1, sizeof *offsets), *columns = malloc((size_t)blocks * blocks * sizeof *columns);
    float *values;
    bsr_matrix bsr = {blocks, 0, NULL, NULL, NULL};
    for (int br = 0; br < blocks; br++) {
        for (int bc = 0; bc < blocks; bc++) {
            int any = 0;
            for (int r = 0; r < 64 && !any; r++)
                for (int c = 0; c < 64; c++)
                    if (p->a[(int64_t)(br * 64 + r) * p->n + bc * 64 + c] != 0.0f) any = 1;
            if (any) columns[nonzero++] = bc;
        }
        offsets[br + 1] = nonzero;
    }
    values = malloc((size_t)nonzero * 64 * 64 * sizeof *values);
    for (int br = 0; br < blocks; br++)
        for (int i = offsets[br]; i < offsets[br + 1]; i++)
            for (int r = 0; r < 64; r++)
                memcpy(&values[((size_t)i * 64 + r) * 64], &p->a[(int64_t)(br * 64 + r) * p->n + columns[i] * 64], 64 * 4);
    bsr.nonzero_blocks = nonzero;
    gpu_check(cudaMalloc((void **)&bsr.row_offsets, ((size_t)blocks + 1) * 4), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&bsr.columns, (size_t)(nonzero ? nonzero : 1) * 4), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&bsr.values, (size_t)(nonzero ? nonzero : 1) * 64 * 64 * 4), "cudaMalloc");
    cudaMemcpy(bsr.row_offsets, offsets, ((size_t)blocks + 1) * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(bsr.columns, columns, (size_t)nonzero * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(bsr.values, values, (size_t)nonzero * 64 * 64 * 4, cudaMemcpyHostToDevice);
    free(offsets), free(columns), free(values);
    return bsr;
}

/* cuSPARSE SpMM with a BSR A (64x64 blocks); row-major dense B and C, column-major if
 * this cuSPARSE refuses row-major for BSR (same sizes, so the same work). <0 on failure. */
static double time_cusparse_bsr(gpu_problem *p, int repeats)
{
    bsr_matrix bsr = bsr_from_dense(p);
    cusparseHandle_t handle;
    cusparseSpMatDescr_t a;
    cusparseDnMatDescr_t b, c;
    float alpha = 1.0f, beta = 0.0f, ms;
    double times[16], result = -1.0;
    size_t buffer_size = 0;
    void *buffer = NULL;
    cudaEvent_t start, stop;
    int64_t n = p->n;
    cusparseStatus_t status = cusparseCreate(&handle);
    cudaEventCreate(&start), cudaEventCreate(&stop);
    status = cusparseCreateBsr(&a, bsr.block_rows, bsr.block_rows, bsr.nonzero_blocks, 64, 64, bsr.row_offsets,
                               bsr.columns, bsr.values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                               CUDA_R_32F, CUSPARSE_ORDER_ROW);
    for (int order = 0; order < 2 && status == CUSPARSE_STATUS_SUCCESS && result < 0; order++) {
        cusparseOrder_t dense_order = order == 0 ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
        cusparseStatus_t run_status;
        cusparseCreateDnMat(&b, n, n, n, p->db, CUDA_R_32F, dense_order);
        cusparseCreateDnMat(&c, n, n, n, p->dref, CUDA_R_32F, dense_order);
        run_status = cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             &alpha, a, b, &beta, c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &buffer_size);
        if (run_status == CUSPARSE_STATUS_SUCCESS && buffer_size) gpu_check(cudaMalloc(&buffer, buffer_size), "cudaMalloc");
        for (int r = -1; r < repeats && run_status == CUSPARSE_STATUS_SUCCESS; r++) {
            cudaEventRecord(start, 0);
            run_status = cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a,
                                      b, &beta, c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buffer);
            cudaEventRecord(stop, 0);
            gpu_check(cudaEventSynchronize(stop), "cusparse");
            cudaEventElapsedTime(&ms, start, stop);
            if (r >= 0) times[r] = ms * 1e-3;
        }
        if (run_status == CUSPARSE_STATUS_SUCCESS) result = bench_median(times, repeats);
        else fprintf(stderr, "bench_gemm: cusparseSpMM (BSR, %s dense) status %d\n", order ? "col" : "row", (int)run_status);
        cudaFree(buffer);
        buffer = NULL;
        cusparseDestroyDnMat(b), cusparseDestroyDnMat(c);
    }
    if (status == CUSPARSE_STATUS_SUCCESS) cusparseDestroySpMat(a);
    cusparseDestroy(handle);
    cudaEventDestroy(start), cudaEventDestroy(stop);
    cudaFree(bsr.row_offsets), cudaFree(bsr.columns), cudaFree(bsr.values);
    return result;
}

static void bench_gpu_dense(bench_setup *s, cublasHandle_t handle, int64_t n, int tf32)
{
    gpu_problem p = {n, generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 11), generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 12),
                     NULL, NULL, NULL, NULL, NULL, 0, 0};
    parac_gemm_plan_info info;
    int repeats = bench_repeats(s->quick ? 3 : 7);
    double flops = 2.0 * (double)n * n * n, ours, theirs;
    char name[96], extra[256];
    parac_gemm_dtype dtype = tf32 ? PARAC_GEMM_TF32 : PARAC_GEMM_FP32;
    problem_upload(&p);
    theirs = time_cublas(handle, &p, tf32, repeats);
    snprintf(name, sizeof name, "cublas %s dense n=%lld", tf32 ? "tf32" : "sgemm", (long long)n);
    emit(s, name, "cuda", 0, theirs, flops / theirs / 1e12, NULL);
    for (int v = PARAC_GEMM_VARIANT_BASE; v <= PARAC_GEMM_VARIANT_WGMMA_WS_A; v++) {
        if (!variant_selected((parac_gemm_variant)v, dtype) || (tf32 && fp32_variant(v) && v != PARAC_GEMM_VARIANT_BASE) ||
            (!tf32 && (v == PARAC_GEMM_VARIANT_WGMMA_WS || v == PARAC_GEMM_VARIANT_WGMMA_WS_A)))
            continue;
        /* wgmma_tma: both pipeline depths side by side (unless PARAC_GEMM_STAGES picks one); n256: both pipelines */
        int runs = v == PARAC_GEMM_VARIANT_WGMMA_TMA && !default_stages() ? 2 : !tf32 ? fp32_runs(v) : 1;
        for (int depth = 0; depth < runs; depth++) {
            char variant_label[32];
            p.stages = v == PARAC_GEMM_VARIANT_WGMMA_TMA ? (default_stages() ? default_stages() : 4 + 2 * depth)
                                                         : fp32_run_stages(v, depth);
            p.pack = !tf32 && fp32_run_packed(v, depth);
            ours = time_parac(&p, dtype, PARAC_GEMM_SCHEDULE_AUTO, (parac_gemm_variant)v, 0, repeats, &info);
            snprintf(extra, sizeof extra,
                     "\"vs_cublas\":%.4f,\"max_rel_err_vs_cublas\":%.3g,\"tile\":\"%dx%dx%d\",\"split_k\":%d,"
                     "\"variant_run\":\"%s\",\"stages_run\":%d",
                     theirs / ours, compare_with_reference(&p), info.tile_m, info.tile_n, info.tile_k, info.split_k,
                     VARIANT_NAMES[info.variant], info.pipeline_stages);
            if (v == PARAC_GEMM_VARIANT_WGMMA_TMA) snprintf(variant_label, sizeof variant_label, "%s s%d", VARIANT_NAMES[v], p.stages);
            else snprintf(variant_label, sizeof variant_label, "%s", tf32 ? VARIANT_NAMES[v] : fp32_label(v, depth));
            snprintf(name, sizeof name, "parac %s %s dense n=%lld", tf32 ? "tf32" : "fp32", variant_label, (long long)n);
            emit(s, name, "cuda", 0, ours, flops / ours / 1e12, extra);
        }
    }
    problem_free(&p);
}

/* A row whose figure is parac's speed as a fraction of cuBLAS's (1 = as fast). */
static void emit_ratio(bench_setup *s, const char *case_name, double seconds, double fraction, const char *extra)
{
    emit_row(s, case_name, "cuda", 0, seconds, "vs_cublas", fraction, "of cuBLAS", extra);
}

/* The fp32 goal's ratio with both sides under the same conditions: the rows above time cuBLAS first
 * and the parac variants after it (seconds later, the GPU's clocks and temperature may differ; cuBLAS
 * measured 50.0 and 51.1 TFLOP/s in two runs of the same day while parac's bk32 measured the same in
 * both). Here cublasSgemm and parac's default fp32 plan (auto) alternate: rounds of one untimed
 * and RUNS_PER_ROUND timed runs of each (their median), medians of the rounds; the per-round
 * ratios go to the JSON. */
#define INTERLEAVED_ROUNDS 9
#define RUNS_PER_ROUND 3
static void bench_gpu_dense_interleaved(bench_setup *s, cublasHandle_t handle, int64_t n)
{
    gpu_problem p = {n, generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 11), generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 12),
                     NULL, NULL, NULL, NULL, NULL, 0, 0};
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    double ours[INTERLEAVED_ROUNDS], theirs[INTERLEAVED_ROUNDS], flops = 2.0 * (double)n * n * n, mine, blas;
    int rounds = s->quick ? 3 : INTERLEAVED_ROUNDS;
    char name[96], extra[256];
    size_t used;
    problem_upload(&p);
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CUDA;
    o.m = o.n = o.k = p.n;
    o.dtype = PARAC_GEMM_FP32;
    if (parac_gemm_plan_create(&o, &plan, &error) != PARAC_OK ||
        parac_gemm_execute_device(plan, 1.0f, p.da, p.db, 0.0f, p.dc, &error) != PARAC_OK) {
        fprintf(stderr, "bench_gemm: parac: %s\n", error.message);
        exit(1);
    }
    for (int r = 0; r < rounds; r++) {
        double times[RUNS_PER_ROUND];
        theirs[r] = time_cublas(handle, &p, 0, RUNS_PER_ROUND); /* one untimed run, then the median of the rest */
        for (int q = -1; q < RUNS_PER_ROUND; q++) {             /* the same for parac */
            if (parac_gemm_execute_device(plan, 1.0f, p.da, p.db, 0.0f, p.dc, &error) != PARAC_OK) {
                fprintf(stderr, "bench_gemm: parac: %s\n", error.message);
                exit(1);
            }
            if (q >= 0) times[q] = parac_gemm_last_compute_seconds(plan);
        }
        ours[r] = bench_median(times, RUNS_PER_ROUND);
    }
    parac_gemm_plan_info_get(plan, &info);
    parac_gemm_plan_destroy(plan);
    used = (size_t)snprintf(extra, sizeof extra, "\"cublas_tflops\":%.3f,\"parac_tflops\":%.3f,\"variant_run\":\"%s\","
                            "\"rounds\":%d,\"ratio_each\":[", flops / bench_median(theirs, rounds) / 1e12,
                            flops / bench_median(ours, rounds) / 1e12, VARIANT_NAMES[info.variant], rounds);
    for (int r = 0; r < rounds && used < sizeof extra; r++)
        used += (size_t)snprintf(extra + used, sizeof extra - used, "%s%.4f", r ? "," : "", theirs[r] / ours[r]);
    if (used < sizeof extra) snprintf(extra + used, sizeof extra - used, "]");
    blas = bench_median(theirs, rounds), mine = bench_median(ours, rounds);
    snprintf(name, sizeof name, "fp32 auto / cublas interleaved n=%lld", (long long)n);
    emit_ratio(s, name, mine, blas / mine, extra);
    problem_free(&p);
}

/* A sparse (block-sparse 12.5 %, banded, or power-law block rows), B dense, n = 8192. */
static void bench_gpu_sparse(bench_setup *s, cublasHandle_t handle, int64_t n, const char *pattern)
{
    int banded = strcmp(pattern, "banded") == 0, power_law = strcmp(pattern, "power-law") == 0;
    /* band 448: (2*448 + 64) / 8192 ~ 12 % of the 64x64 tiles are touched */
    gpu_problem p = {n,
                     banded ? generate(n, n, PARAC_GEMM_MATRIX_BANDED, 448, 0, 0, 21)
                            : generate(n, n, PARAC_GEMM_MATRIX_BLOCK_SPARSE, 0, 0.125, power_law, 21),
                     generate(n, n, PARAC_GEMM_MATRIX_DENSE, 0, 0, 0, 22), NULL, NULL, NULL, NULL, NULL, 0, 0};
    parac_gemm_plan_info info;
    int repeats = bench_repeats(s->quick ? 3 : 5);
    double flops = 2.0 * (double)n * n * n, ours, dense, sparse_lib;
    char name[96], extra[256];
    problem_upload(&p);
    if (power_law) {
        for (int v = PARAC_GEMM_VARIANT_BASE; v <= PARAC_GEMM_VARIANT_BK32; v++) {
            if (!fp32_variant(v) || !variant_selected((parac_gemm_variant)v, PARAC_GEMM_FP32)) continue;
            for (int run = 0; run < fp32_runs(v); run++) {
                p.stages = fp32_run_stages(v, run);
                p.pack = fp32_run_packed(v, run);
                double stat = time_parac(&p, PARAC_GEMM_FP32, PARAC_GEMM_SCHEDULE_STATIC, (parac_gemm_variant)v, 1, repeats, &info);
                double dyn = time_parac(&p, PARAC_GEMM_FP32, PARAC_GEMM_SCHEDULE_DYNAMIC, (parac_gemm_variant)v, 1, repeats, &info);
                snprintf(name, sizeof name, "parac fp32 %s power-law static n=%lld", fp32_label(v, run), (long long)n);
                snprintf(extra, sizeof extra, "\"work_imbalance\":%.3f,\"tile_kernel_fraction\":%.4f", info.work_imbalance,
                         (double)info.tile_kernels / (double)info.tile_kernels_dense);
                emit(s, name, "cuda", 0, stat, flops / stat / 1e12, extra);
                snprintf(name, sizeof name, "parac fp32 %s power-law dynamic n=%lld", fp32_label(v, run), (long long)n);
                snprintf(extra, sizeof extra, "\"dynamic_vs_static\":%.4f,\"variant_run\":\"%s\",\"stages_run\":%d", stat / dyn,
                         VARIANT_NAMES[info.variant], info.pipeline_stages);
                emit(s, name, "cuda", 0, dyn, flops / dyn / 1e12, extra);
            }
        }
        p.stages = 0;
        problem_free(&p);
        return;
    }
    dense = time_cublas(handle, &p, 0, repeats);
    sparse_lib = time_cusparse_bsr(&p, repeats);
    snprintf(name, sizeof name, "cublas sgemm %s n=%lld", pattern, (long long)n);
    emit(s, name, "cuda", 0, dense, flops / dense / 1e12, NULL);
    if (sparse_lib > 0) {
        snprintf(name, sizeof name, "cusparse bsr spmm %s n=%lld", pattern, (long long)n);
        emit(s, name, "cuda", 0, sparse_lib, flops / sparse_lib / 1e12, NULL);
    }
    time_cublas(handle, &p, 0, 1); /* dref = dense answer again (cuSPARSE wrote into it) */
    for (int v = PARAC_GEMM_VARIANT_BASE; v <= PARAC_GEMM_VARIANT_BK32; v++) {
        if (!fp32_variant(v) || !variant_selected((parac_gemm_variant)v, PARAC_GEMM_FP32)) continue;
        for (int run = 0; run < fp32_runs(v); run++) {
            p.stages = fp32_run_stages(v, run);
            p.pack = fp32_run_packed(v, run);
            ours = time_parac(&p, PARAC_GEMM_FP32, PARAC_GEMM_SCHEDULE_AUTO, (parac_gemm_variant)v, 1, repeats, &info);
            double error_vs_dense = compare_with_reference(&p);
            snprintf(extra, sizeof extra,
                     "\"vs_cublas_dense\":%.3f,\"vs_cusparse_bsr\":%.3f,\"useful_tflops\":%.3f,\"tile_kernel_fraction\":%.4f,"
                     "\"max_rel_err_vs_cublas\":%.3g,\"variant_run\":\"%s\",\"schedule_run\":\"%s\",\"stages_run\":%d",
                     dense / ours, sparse_lib > 0 ? sparse_lib / ours : 0.0, info.flops / ours / 1e12,
                     (double)info.tile_kernels / (double)info.tile_kernels_dense, error_vs_dense, VARIANT_NAMES[info.variant],
                     info.schedule == PARAC_GEMM_SCHEDULE_DYNAMIC ? "dynamic" : "static", info.pipeline_stages);
            snprintf(name, sizeof name, "parac fp32 %s %s n=%lld", fp32_label(v, run), pattern, (long long)n);
            emit(s, name, "cuda", 0, ours, flops / ours / 1e12, extra);
        }
    }
    p.stages = 0;
    /* tf32 side by side: one block per C tile (wgmma) vs the persistent stream of (C tile, k tile) stages,
     * at 64/128 tiles (wgmma_tma) and 256-wide tiles (wgmma_ws; wgmma_ws_a: A by tensor map, not packed) */
    for (int v = PARAC_GEMM_VARIANT_WGMMA; v <= PARAC_GEMM_VARIANT_WGMMA_WS_A; v++) {
        if (!variant_selected((parac_gemm_variant)v, PARAC_GEMM_TF32) ||
            (v != PARAC_GEMM_VARIANT_WGMMA && v != PARAC_GEMM_VARIANT_WGMMA_TMA && v != PARAC_GEMM_VARIANT_WGMMA_WS &&
             v != PARAC_GEMM_VARIANT_WGMMA_WS_A))
            continue;
        ours = time_parac(&p, PARAC_GEMM_TF32, PARAC_GEMM_SCHEDULE_AUTO, (parac_gemm_variant)v, 1, repeats, &info);
        snprintf(extra, sizeof extra,
                 "\"vs_cusparse_bsr_fp32\":%.3f,\"useful_tflops\":%.3f,\"max_rel_err_vs_cublas\":%.3g,\"variant_run\":\"%s\","
                 "\"stages_run\":%d,\"tile\":\"%dx%d\"",
                 sparse_lib > 0 ? sparse_lib / ours : 0.0, info.flops / ours / 1e12, compare_with_reference(&p),
                 VARIANT_NAMES[info.variant], info.pipeline_stages, info.tile_m, info.tile_n);
        snprintf(name, sizeof name, "parac tf32 %s %s n=%lld", VARIANT_NAMES[v], pattern, (long long)n);
        emit(s, name, "cuda", 0, ours, flops / ours / 1e12, extra);
    }
    problem_free(&p);
}

/* --- the packing pass alone (gemm_pack.h): fast pack (one launch, A and B) vs the first,
 * scalar pack (kept as the reference), on the layouts the kernels use at n: wgmma_ws
 * (tf32, swizzled, 128 x 256 tiles) and the fp32 panels (128 x 128). GB/s counts the
 * bytes moved: both operands read once and written once (2 x 2 x n^2 x 4). */
static double time_pack(const gemm_pack_operand *a, const gemm_pack_operand *b, int fast, int repeats)
{
    double times[64];
    parac_error error;
    cudaEvent_t start, stop;
    gpu_check(cudaEventCreate(&start), "cudaEventCreate");
    gpu_check(cudaEventCreate(&stop), "cudaEventCreate");
    for (int r = -1; r < repeats; r++) { /* r = -1: warm-up */
        float ms = 0.0f;
        gpu_check(cudaEventRecord(start, 0), "cudaEventRecord");
        parac_status status = fast ? gemm_pack_launch(a, b, NULL, &error) : gemm_pack_reference_launch(a, NULL, &error);
        if (status == PARAC_OK && !fast) status = gemm_pack_reference_launch(b, NULL, &error);
        if (status != PARAC_OK) {
            fprintf(stderr, "bench_gemm: pack: %s\n", error.message);
            exit(1);
        }
        gpu_check(cudaEventRecord(stop, 0), "cudaEventRecord");
        gpu_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        gpu_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (r >= 0) times[r] = ms * 1e-3;
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    return bench_median(times, repeats);
}

static void emit_pack(bench_setup *s, const char *name, double seconds, double bytes, const char *extra)
{
    emit_row(s, name, "cuda", 0, seconds, "bandwidth", bytes / seconds / 1e9, "GB/s", extra);
}

/* A alone into the 64-row fp32 panels a sparse A gets (B read in place), all tiles vs a tile mask
 * keeping 12.5 % of the 64x64 tiles (round 5: only tiles some kernel reads are packed). GB/s counts
 * the bytes really moved (kept fraction x 2 x n^2 x 4). */
static void bench_gpu_pack_masked(bench_setup *s, int64_t n, const float *da, float *pa, int repeats)
{
    int64_t tiles = (n / 64) * (n / 64), kept = 0;
    unsigned char *mask = malloc((size_t)tiles), *dmask = NULL;
    uint64_t state = 12345;
    char name[96], extra[128];
    for (int64_t t = 0; t < tiles; t++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        mask[t] = (state >> 33) % 8 == 0;
        kept += mask[t];
    }
    gpu_check(cudaMalloc((void **)&dmask, (size_t)tiles), "cudaMalloc");
    gpu_check(cudaMemcpy(dmask, mask, (size_t)tiles, cudaMemcpyHostToDevice), "cudaMemcpy");
    gemm_pack_operand a = {da, n, n, n, n, n, 1, 64, 0, 0, pa, NULL, 0, 0, 0};
    double all = time_pack(&a, NULL, 1, repeats);
    a.tile_mask = dmask, a.mask_stride_r = n / 64, a.mask_stride_k = 1, a.tile_k = 64;
    double masked = time_pack(&a, NULL, 1, repeats);
    double fraction = (double)kept / (double)tiles, bytes = 2.0 * (double)n * (double)n * 4.0;
    snprintf(name, sizeof name, "pack fast fp32 A 64-row panels n=%lld", (long long)n);
    emit_pack(s, name, all, bytes, "\"launches\":1");
    snprintf(extra, sizeof extra, "\"kept_tiles\":%.4f,\"vs_unmasked\":%.3f", fraction, all / masked);
    snprintf(name, sizeof name, "pack fast masked 12.5%% fp32 A 64-row panels n=%lld", (long long)n);
    emit_pack(s, name, masked, bytes * fraction, extra);
    cudaFree(dmask);
    free(mask);
}

static void bench_gpu_pack(bench_setup *s, int64_t n)
{
    size_t bytes = (size_t)(n * n) * sizeof(float);
    float *da, *db, *pa, *pb;
    int repeats = bench_repeats(s->quick ? 5 : 15);
    if (repeats > 64) repeats = 64;
    gpu_check(cudaMalloc((void **)&da, bytes), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&db, bytes), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&pa, bytes), "cudaMalloc");
    gpu_check(cudaMalloc((void **)&pb, bytes), "cudaMalloc");
    gpu_check(cudaMemset(da, 0x3F, bytes), "cudaMemset");
    gpu_check(cudaMemset(db, 0x3E, bytes), "cudaMemset");
    for (int tf32 = 1; tf32 >= 0; tf32--) {
        /* row-major A: k-contiguous; row-major B: n-contiguous */
        gemm_pack_operand a = {da, n, n, n, n, n, 1, 128, tf32, tf32, pa, NULL, 0, 0, 0};
        gemm_pack_operand b = {db, n, n, n, n, n, 0, tf32 ? 256 : 128, tf32, tf32, pb, NULL, 0, 0, 0};
        double fast = time_pack(&a, &b, 1, repeats), reference = time_pack(&a, &b, 0, repeats);
        char name[96], extra[128];
        const char *layout = tf32 ? "tf32 wgmma-swizzled" : "fp32 panels";
        snprintf(extra, sizeof extra, "\"vs_reference_pack\":%.3f,\"launches\":1", reference / fast);
        snprintf(name, sizeof name, "pack fast %s n=%lld", layout, (long long)n);
        emit_pack(s, name, fast, 4.0 * (double)bytes, extra);
        snprintf(name, sizeof name, "pack reference %s n=%lld", layout, (long long)n);
        emit_pack(s, name, reference, 4.0 * (double)bytes, "\"launches\":2");
        if (!tf32) { /* A alone: what the dense fp32 default (bk32, 128x128, B in place) packs */
            snprintf(name, sizeof name, "pack fast fp32 A 128-row panels n=%lld", (long long)n);
            emit_pack(s, name, time_pack(&a, NULL, 1, repeats), 2.0 * (double)bytes, "\"launches\":1");
        }
    }
    bench_gpu_pack_masked(s, n, da, pa, repeats);
    cudaFree(da), cudaFree(db), cudaFree(pa), cudaFree(pb);
}

static void bench_gpu(bench_setup *s)
{
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench_gemm: cublasCreate failed\n");
        exit(1);
    }
    for (int tf32 = 0; tf32 < 2; tf32++) {
        bench_gpu_dense(s, handle, 4096, tf32);
        if (!s->quick) bench_gpu_dense(s, handle, 8192, tf32);
    }
    bench_gpu_dense_interleaved(s, handle, 4096);
    if (!s->quick) bench_gpu_dense_interleaved(s, handle, 8192);
    bench_gpu_pack(s, 4096);
    if (!s->quick) bench_gpu_pack(s, 8192);
    bench_gpu_sparse(s, handle, 8192, "block-sparse");
    bench_gpu_sparse(s, handle, 8192, "banded");
    bench_gpu_sparse(s, handle, 8192, "power-law");
    cublasDestroy(handle);
}
#endif

int main(int argc, char **argv)
{
    static bench_setup s;
    bench_args args;
    if (bench_parse_args(argc, argv, "bench_gemm", "all", &args)) return 1;
    s.quick = args.quick;
    s.cpu = args.cpu;
    s.gpu = args.gpu;
    if (s.cpu) {
        bench_cpu_dense(&s, 1024);
        if (!s.quick) bench_cpu_dense(&s, 2048);
    }
#ifdef PARAC_HAVE_CUDA
    if (s.gpu) bench_gpu(&s);
#endif
    bench_print_table(&s.report);
    return 0;
}

/* bench/bench_gemm.c — parac gemm beside OpenBLAS (CPU), cuBLAS and cuSPARSE (GPU).
 *
 *   bench_gemm [--device cpu|cuda|all] [--quick]
 * Cases (issue 6):
 *   CPU   dense fp32 n = 1024, 2048: parac vs OpenBLAS cblas_sgemm (when linked)
 *   GPU   dense fp32 4096, 8192: parac FFMA vs cublasSgemm
 *         dense tf32 4096, 8192: parac mma.sync vs cublasGemmEx FAST_TF32
 *         n = 8192, A block-sparse (12.5 % of 64x64 tiles) and banded: parac vs dense
 *         cublasSgemm on the same matrices and cuSPARSE BSR SpMM
 *         n = 8192, power-law block rows: static vs dynamic schedule
 * GPU times are device times (CUDA events), parac's including its packing pass.
 * "tflops" is dense-equivalent (2 n^3 / t) so sparse rows compare with cuBLAS directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parac/devices.h>
#include <parac/gemm.h>

#include "bench_util.h"
#include "core/threads.h"
#include "core/timer.h"

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

static void emit(bench_setup *s, const char *case_name, const char *device, int threads, double seconds,
                 double tflops, const char *extra)
{
    bench_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.module, sizeof r.module, "gemm");
    snprintf(r.case_name, sizeof r.case_name, "%s", case_name);
    snprintf(r.device, sizeof r.device, "%s", device);
    r.threads = threads;
    r.seconds = seconds;
    snprintf(r.metric, sizeof r.metric, "tflops");
    r.value = tflops;
    snprintf(r.unit, sizeof r.unit, "TFLOP/s");
    snprintf(r.extra, sizeof r.extra, "%s", extra ? extra : "");
    bench_emit(&s->report, &r);
}

/* --- CPU ------------------------------------------------------------------------------- */

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
static double time_parac(gpu_problem *p, parac_gemm_dtype dtype, parac_gemm_schedule schedule, int sparse, int repeats,
                         parac_gemm_plan_info *info)
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

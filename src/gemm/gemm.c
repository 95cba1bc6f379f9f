/* gemm/gemm.c — executing a plan on the device it was made for, and --explain. */
#include <stdarg.h>
#include <stdio.h>

#include "core/error.h"
#include "core/timer.h"
#include "gemm/gemm_internal.h"

#ifdef PARAC_HAVE_CUDA
/* Rows r0.. of a matrix in its layout. */
static const float *row_offset(const float *x, parac_gemm_layout layout, int64_t ld, int64_t r0)
{
    return layout == PARAC_GEMM_ROW_MAJOR ? x + r0 * ld : x + r0;
}

/* When the GPU runs out of memory, C is computed in bands of rows (halving the band
 * until it fits). Each band's plan keeps this plan's tile sizes and split-k, and a
 * skipped zero tile changes no bit, so the result is bit-identical to one pass. */
static parac_status execute_in_row_bands(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                         float *c, parac_error *error)
{
    parac_gemm_options sub = plan->options;
    parac_status status = PARAC_ERR_NO_MEMORY;
    int64_t band = gemm_ceil_div(plan->tiles_m, 2) * plan->tile_m;
    sub.lda = plan->lda, sub.ldb = plan->ldb, sub.ldc = plan->ldc;
    sub.tile_m = plan->tile_m, sub.tile_n = plan->tile_n, sub.tile_k = plan->tile_k, sub.split_k = plan->split_k;
    gemm_cuda_release_workspace(plan);
    for (; band >= plan->tile_m && status == PARAC_ERR_NO_MEMORY; band = band / 2 / plan->tile_m * plan->tile_m) {
        status = PARAC_OK;
        for (int64_t r0 = 0; r0 < plan->options.m && status == PARAC_OK; r0 += band) {
            parac_gemm_plan *band_plan = NULL;
            sub.m = plan->options.m - r0 < band ? plan->options.m - r0 : band;
            status = parac_gemm_plan_create(&sub, &band_plan, error);
            if (status == PARAC_OK)
                status = gemm_cuda_execute_host(band_plan, alpha, row_offset(a, sub.layout_a, plan->lda, r0), b, beta,
                                                (float *)row_offset(c, sub.layout_c, plan->ldc, r0), error);
            parac_gemm_plan_destroy(band_plan);
        }
    }
    return status;
}
#endif

parac_status parac_gemm_execute(parac_gemm_plan *plan, float alpha, const float *a, const float *b, float beta,
                                float *c, parac_error *error)
{
    if (!a || !b || !c) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: NULL matrix");
#ifdef PARAC_HAVE_CUDA
    if (plan->device == PARAC_DEVICE_CUDA) {
        parac_status status = gemm_cuda_execute_host(plan, alpha, a, b, beta, c, error);
        if (status == PARAC_ERR_NO_MEMORY && plan->tiles_m > 1)
            status = execute_in_row_bands(plan, alpha, a, b, beta, c, error);
        return status;
    }
#endif
    {
        double start = parac_now_seconds();
        parac_status status = gemm_cpu_execute(plan, alpha, a, b, beta, c, error);
        plan->last_compute_seconds = parac_now_seconds() - start;
        return status;
    }
}

parac_status parac_gemm_execute_device(parac_gemm_plan *plan, float alpha, const float *device_a,
                                       const float *device_b, float beta, float *device_c, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    if (plan->device == PARAC_DEVICE_CUDA)
        return gemm_cuda_execute_device(plan, alpha, device_a, device_b, beta, device_c, error);
#endif
    (void)alpha, (void)device_a, (void)device_b, (void)beta, (void)device_c;
    return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: device buffers need a plan made for a CUDA device");
}

double parac_gemm_last_compute_seconds(const parac_gemm_plan *plan) { return plan->last_compute_seconds; }

parac_status parac_gemm_vendor_reference(parac_gemm_plan *plan, float alpha, const float *a, const float *b,
                                         float beta, float *c, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    if (plan->device == PARAC_DEVICE_CUDA) return gemm_cuda_vendor_reference(plan, alpha, a, b, beta, c, error);
#endif
    (void)alpha, (void)a, (void)b, (void)beta, (void)c;
    return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm: the vendor reference (cuBLAS) needs a CUDA plan");
}

typedef struct text_out {
    char *text;
    size_t size, length;
} text_out;

static void put(text_out *out, const char *format, ...)
{
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(out->length < out->size ? out->text + out->length : NULL,
                  out->length < out->size ? out->size - out->length : 0, format, args);
    va_end(args);
    if (n > 0) out->length += (size_t)n;
}

static const char *layout_name(parac_gemm_layout layout) { return layout == PARAC_GEMM_ROW_MAJOR ? "row" : "col"; }

const char *parac_gemm_variant_name(parac_gemm_variant variant)
{
    switch (variant) {
    case PARAC_GEMM_VARIANT_AUTO: return "auto";
    case PARAC_GEMM_VARIANT_BASE: return "base";
    case PARAC_GEMM_VARIANT_REMOVED_WIDE: return "wide";
    case PARAC_GEMM_VARIANT_WGMMA: return "wgmma";
    case PARAC_GEMM_VARIANT_WGMMA_TMA: return "wgmma_tma";
    case PARAC_GEMM_VARIANT_REMOVED_PERSISTENT: return "persistent";
    case PARAC_GEMM_VARIANT_N256: return "n256";
    case PARAC_GEMM_VARIANT_WGMMA_WS: return "wgmma_ws";
    case PARAC_GEMM_VARIANT_BK32: return "bk32";
    case PARAC_GEMM_VARIANT_WGMMA_WS_A: return "wgmma_ws_a";
    }
    return "unknown";
}

size_t parac_gemm_plan_explain(const parac_gemm_plan *plan, char *text, size_t size)
{
    const parac_gemm_plan_info *i = &plan->info;
    const parac_gemm_options *o = &plan->options;
    text_out out = {text, size, 0};
    if (size) text[0] = '\0';
    put(&out, "gemm plan: C(%lld x %lld) = alpha * A(%lld x %lld, %s-major) * B(%lld x %lld, %s-major) + beta * C (%s-major), %s, on %s\n",
        (long long)o->m, (long long)o->n, (long long)o->m, (long long)o->k, layout_name(o->layout_a), (long long)o->k,
        (long long)o->n, layout_name(o->layout_b), layout_name(o->layout_c), o->dtype == PARAC_GEMM_TF32 ? "tf32" : "fp32",
        parac_device_name(plan->device));
    put(&out, "  tile grid: %lld x %lld C tiles of %d x %d, %lld k tiles of %d; split-k %d\n", (long long)i->tiles_m,
        (long long)i->tiles_n, i->tile_m, i->tile_n, (long long)i->tiles_k, i->tile_k, i->split_k);
    put(&out, "  layout: A packed k-major %lld x %lld, B packed k-major %lld x %lld (zero-padded), %.1f MiB workspace\n",
        (long long)plan->padded_k, (long long)plan->padded_m, (long long)plan->padded_k, (long long)plan->padded_n,
        i->bytes_packed / 1048576.0);
    put(&out, "  sparsity: A %lld/%lld tiles non-zero, B %lld/%lld; %lld of %lld C tiles empty\n",
        (long long)i->a_tiles_nonzero, (long long)(i->tiles_m * i->tiles_k), (long long)i->b_tiles_nonzero,
        (long long)(i->tiles_k * i->tiles_n), (long long)i->c_tiles_empty, (long long)i->c_tiles);
    put(&out, "  residency: %lld tiles L2-resident, %lld streamed; all staged through shared memory\n",
        (long long)i->tiles_l2_resident, (long long)i->tiles_streamed);
    put(&out, "  dag: %lld nodes (%lld of %lld dense tile kernels + %lld reductions), %lld edges, critical path %lld\n",
        (long long)i->dag_nodes, (long long)i->tile_kernels, (long long)i->tile_kernels_dense,
        (long long)(i->dag_nodes - i->tile_kernels), (long long)i->dag_edges, (long long)i->critical_path);
    put(&out, "  schedule: %s (%lld work items, work imbalance %.3f); kernel variant %s\n",
        i->schedule == PARAC_GEMM_SCHEDULE_DYNAMIC ? "dynamic" : "static", (long long)i->work_items, i->work_imbalance,
        parac_gemm_variant_name(i->variant));
    if (i->pipeline_stages) put(&out, "  pipeline: %d shared-memory stages\n", i->pipeline_stages);
    put(&out, "  expected: %.3g GFLOP (%.1f%% of dense), %.3g MB moved, arithmetic intensity %.1f flop/byte\n",
        i->flops / 1e9, 100.0 * i->flops / i->flops_dense, i->bytes_moved / 1e6, i->arithmetic_intensity);
    return out.length;
}

/* cli/gemm_setup.c — the options, checks and inputs `parac gemm` and `parac-mpi gemm` share (gemm_setup.h). */
#include "cli/gemm_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/memory_limit.h"

/* The named options; an unknown name is a usage error (exit 1), reported before any work. */
static int parse_names(const gemm_args *args, parac_gemm_options *o)
{
    if (strcmp(args->dtype, "fp32") == 0) o->dtype = PARAC_GEMM_FP32;
    else if (strcmp(args->dtype, "tf32") == 0) o->dtype = PARAC_GEMM_TF32;
    else return cli_usage_error("gemm", "--dtype must be fp32 or tf32, not '%s'", args->dtype);
    if (strcmp(args->schedule, "auto") == 0) o->schedule = PARAC_GEMM_SCHEDULE_AUTO;
    else if (strcmp(args->schedule, "static") == 0) o->schedule = PARAC_GEMM_SCHEDULE_STATIC;
    else if (strcmp(args->schedule, "dynamic") == 0) o->schedule = PARAC_GEMM_SCHEDULE_DYNAMIC;
    else return cli_usage_error("gemm", "--schedule must be static, dynamic or auto, not '%s'", args->schedule);
    /* the library's names are the CLI spelling (one table, so a new variant needs no edit here) */
    o->variant = (parac_gemm_variant)-1;
    for (int v = PARAC_GEMM_VARIANT_AUTO; v <= PARAC_GEMM_VARIANT_WGMMA_WS_A; v++)
        if (strcmp(args->variant, parac_gemm_variant_name((parac_gemm_variant)v)) == 0) o->variant = (parac_gemm_variant)v;
    if ((int)o->variant < 0)
        return cli_usage_error("gemm", "--variant must be auto, base, wgmma, wgmma_tma, n256, wgmma_ws, bk32 "
                                       "or wgmma_ws_a, not '%s'", args->variant);
    return CLI_CONTINUE;
}

int gemm_check_args(const gemm_args *args, int positional_count)
{
    parac_gemm_options names;
    int code = parse_names(args, &names);
    if (code != CLI_CONTINUE) return code;
    if (positional_count == 1) return cli_usage_error("gemm", "give two matrix files (A and B) or none");
    if (args->autotune && !args->tune_cache)
        return cli_usage_error("gemm", "--autotune needs --tune-cache FILE (the file it writes)");
    if (args->band >= 0 && args->density > 0.0)
        return cli_usage_error("gemm", "--band and --block-density exclude each other");
    if (args->repeats < 1 || args->repeats > 64) return cli_bad_value("gemm", "--repeats must be in 1..64");
    if (args->band < -1) return cli_bad_value("gemm", "--band must be >= 0");
    if (args->density < 0.0) return cli_bad_value("gemm", "--block-density must be in (0, 1]");
    if (positional_count == 2) return CLI_CONTINUE;
    if (args->m == GEMM_UNSET || args->n == GEMM_UNSET || args->k == GEMM_UNSET) return cli_usage_error("gemm", "give A and B files, or --m, --n and --k");
    if (args->m < 1 || args->n < 1 || args->k < 1) return cli_bad_value("gemm", "--m, --n and --k must be >= 1");
    if (cli_too_large((uint64_t)args->m, (uint64_t)args->k, sizeof(float)) ||
        cli_too_large((uint64_t)args->k, (uint64_t)args->n, sizeof(float)) ||
        cli_too_large((uint64_t)args->m, (uint64_t)args->n, 2 * sizeof(float)))
        return cli_bad_value("gemm", "%lld x %lld x %lld is too large", (long long)args->m, (long long)args->n,
                             (long long)args->k);
    return CLI_CONTINUE;
}

void gemm_set_tuning(const gemm_args *args, parac_gemm_options *o)
{
    (void)parse_names(args, o); /* checked in check_args */
    o->tile_m = (int)args->tile_m;
    o->tile_n = (int)args->tile_n;
    o->tile_k = (int)args->tile_k;
    o->split_k = (int)args->split_k;
    o->pipeline_stages = args->stages;
    o->pack_operands = args->pack;
    o->tune_cache_path = args->tune_cache;
}

parac_status gemm_require_memory(int64_t m, int64_t n, int64_t k, parac_error *error)
{
    /* A and B, then C and its starting copy (run_gemm). A 2^32 x 1 A times a 1 x 2^32 B passes the
     * reader's limit on each matrix, so the sum saturates rather than wrapping. */
    uint64_t a, b, c, bytes;
    char what[128];
    if (__builtin_mul_overflow((uint64_t)m, (uint64_t)k, &a) || __builtin_mul_overflow((uint64_t)k, (uint64_t)n, &b) ||
        __builtin_mul_overflow((uint64_t)m, (uint64_t)n, &c) || __builtin_add_overflow(a, b, &bytes) ||
        __builtin_add_overflow(bytes, c, &bytes) || __builtin_add_overflow(bytes, c, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)4, &bytes))
        bytes = UINT64_MAX;
    snprintf(what, sizeof what, "gemm: A, B and C (%lld x %lld x %lld, fp32)", (long long)m, (long long)n,
             (long long)k);
    return parac_require_host_bytes(error, NULL, 0, bytes, what);
}

parac_status gemm_generate_inputs(const gemm_args *args, uint64_t seed, gemm_inputs *in, parac_error *error)
{
    parac_gemm_matrix_spec a_spec = {args->m, args->k, PARAC_GEMM_MATRIX_DENSE, 0, 0.0, 0, args->power_law, seed};
    parac_gemm_matrix_spec b_spec = {args->k, args->n, PARAC_GEMM_MATRIX_DENSE, 0, 0.0, 0, 0, seed + 1};
    parac_status status;
    if (args->band >= 0) {
        a_spec.kind = PARAC_GEMM_MATRIX_BANDED;
        a_spec.band = args->band;
    } else if (args->density > 0.0) {
        a_spec.kind = PARAC_GEMM_MATRIX_BLOCK_SPARSE;
        a_spec.density = args->density;
        a_spec.block = args->block;
    }
    in->sparse_a = a_spec.kind != PARAC_GEMM_MATRIX_DENSE;
    if ((status = gemm_require_memory(args->m, args->n, args->k, error)) != PARAC_OK) return status;
    in->a = (parac_gemm_matrix){args->m, args->k, PARAC_GEMM_ROW_MAJOR, malloc((size_t)(args->m * args->k) * 4)};
    in->b = (parac_gemm_matrix){args->k, args->n, PARAC_GEMM_ROW_MAJOR, malloc((size_t)(args->k * args->n) * 4)};
    if (!in->a.values || !in->b.values) return parac_fail_no_memory(error, "gemm inputs", (unsigned long long)(args->m + args->n) * args->k * 4);
    if ((status = parac_gemm_matrix_generate(&a_spec, in->a.values, error)) != PARAC_OK) return status;
    return parac_gemm_matrix_generate(&b_spec, in->b.values, error);
}

int gemm_is_sparse(int64_t zeros, int64_t count)
{
    return (double)zeros / (double)count > 0.25;
}

int64_t gemm_count_zeros(const float *values, int64_t count)
{
    int64_t zeros = 0;
    for (int64_t i = 0; i < count; i++) zeros += values[i] == 0.0f;
    return zeros;
}

parac_status gemm_check_shapes(const char *a_path, int64_t a_rows, int64_t a_cols, const char *b_path, int64_t b_rows,
                               int64_t b_cols, parac_error *error)
{
    if (a_cols == b_rows) return PARAC_OK;
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "gemm: shape mismatch: %s is %lld x %lld but %s is %lld x %lld (need A cols == B rows)", a_path,
                      (long long)a_rows, (long long)a_cols, b_path, (long long)b_rows, (long long)b_cols);
}

parac_status gemm_read_inputs(const char *a_path, const char *b_path, gemm_inputs *in, parac_error *error)
{
    parac_status status = parac_gemm_matrix_read(a_path, &in->a, error);
    if (status == PARAC_OK) status = parac_gemm_matrix_read(b_path, &in->b, error);
    if (status == PARAC_OK)
        status = gemm_check_shapes(a_path, in->a.rows, in->a.cols, b_path, in->b.rows, in->b.cols, error);
    if (status == PARAC_OK) status = gemm_require_memory(in->a.rows, in->b.cols, in->a.cols, error);
    if (status == PARAC_OK) {
        in->sparse_a = gemm_is_sparse(gemm_count_zeros(in->a.values, in->a.rows * in->a.cols), in->a.rows * in->a.cols);
        in->sparse_b = gemm_is_sparse(gemm_count_zeros(in->b.values, in->b.rows * in->b.cols), in->b.rows * in->b.cols);
    }
    return status;
}

void gemm_fill_options(const cli_common *common, const gemm_inputs *in, parac_gemm_options *o)
{
    o->exec = common->exec;
    o->m = in->a.rows;
    o->k = in->a.cols;
    o->n = in->b.cols;
    o->layout_a = in->a.layout;
    o->layout_b = in->b.layout;
    o->layout_c = PARAC_GEMM_ROW_MAJOR;
    if (in->sparse_a) o->scan_a = in->a.values;
    if (in->sparse_b) o->scan_b = in->b.values;
}

parac_status gemm_initial_c(const gemm_args *args, const cli_common *common, int64_t m, int64_t n, float *c,
                            parac_error *error)
{
    parac_gemm_matrix_spec c_spec = {m, n, PARAC_GEMM_MATRIX_DENSE, 0, 0.0, 0, 0, common->seed + 2};
    if (args->beta == 0.0) {
        memset(c, 0, (size_t)(m * n) * sizeof *c);
        return PARAC_OK;
    }
    return parac_gemm_matrix_generate(&c_spec, c, error);
}

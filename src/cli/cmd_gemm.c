/* cli/cmd_gemm.c — `parac gemm`: C = alpha*A*B + beta*C on generated or file matrices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gemm_setup.h"

#include <parac/gemm.h>

#include "core/error.h"
#include "core/timer.h"

/* Max |c - ref| over max |ref|: a norm-wise relative error that stays meaningful near zeros. */
static double max_relative_error(const float *c, const float *ref, int64_t count)
{
    double worst = 0.0, scale = 0.0;
    for (int64_t i = 0; i < count; i++) {
        double d = fabs((double)c[i] - (double)ref[i]);
        if (d > worst || isnan(d)) worst = isnan(d) ? INFINITY : d;
        if (fabs((double)ref[i]) > scale) scale = fabs((double)ref[i]);
    }
    return worst / (scale > 0.0 ? scale : 1.0);
}

static parac_status verify(parac_gemm_plan *plan, const parac_gemm_options *o, const gemm_args *args,
                           const gemm_inputs *in, const float *c_initial, double *error_out, const char **against,
                           parac_error *error)
{
    size_t count = (size_t)(o->m * o->n);
    float *ref = malloc(count * sizeof *ref);
    parac_gemm_plan_info info;
    parac_status status = PARAC_OK;
    if (!ref) return parac_fail_no_memory(error, "reference C", count * 4);
    memcpy(ref, c_initial, count * sizeof *ref);
    parac_gemm_plan_info_get(plan, &info);
    if (info.device == PARAC_DEVICE_CUDA) {
        *against = "cublas";
        status = parac_gemm_vendor_reference(plan, (float)args->alpha, in->a.values, in->b.values, (float)args->beta, ref, error);
    } else if ((double)o->m * (double)o->n * (double)o->k <= 4e9) {
        *against = "double";
        parac_gemm_reference(o, (float)args->alpha, in->a.values, in->b.values, (float)args->beta, ref);
    } else {
        *against = NULL;
    }
    if (status == PARAC_OK && *against) *error_out = max_relative_error(in->c, ref, (int64_t)count);
    free(ref);
    return status;
}

/* Warm-up, then `repeats` timed runs (C restored before each); the median compute time. */
static parac_status run_timed(parac_gemm_plan *plan, const gemm_args *args, gemm_inputs *in, const float *c_initial,
                              size_t c_count, double *seconds, parac_error *error)
{
    double times[64];
    int repeats = args->repeats < 1 ? 1 : (args->repeats > 64 ? 64 : args->repeats);
    parac_status status = PARAC_OK;
    for (int r = 0; r <= repeats && status == PARAC_OK; r++) {
        memcpy(in->c, c_initial, c_count * sizeof(float));
        status = parac_gemm_execute(plan, (float)args->alpha, in->a.values, in->b.values, (float)args->beta, in->c, error);
        if (r > 0) times[r - 1] = parac_gemm_last_compute_seconds(plan);
    }
    for (int i = 1; i < repeats; i++) /* insertion sort; repeats is small */
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    *seconds = status == PARAC_OK ? times[repeats / 2] : 0.0;
    return status;
}

static void print_summary(const cli_common *common, const parac_gemm_plan_info *info, const gemm_args *args,
                          const parac_gemm_options *o, double seconds, double rel_err, const char *against)
{
    parac_json_writer json;
    double tflops = info->flops_dense / seconds / 1e12, useful = info->flops / seconds / 1e12;
    if (!common->json) {
        printf("gemm %lld x %lld x %lld %s on %s: %.6f s, %.3f TFLOP/s dense-equivalent, %.3f TFLOP/s executed",
               (long long)o->m, (long long)o->n, (long long)o->k, args->dtype, parac_device_name(info->device), seconds,
               tflops, useful);
        if (against) printf(", max rel err %.3g vs %s", rel_err, against);
        printf("\n");
        return;
    }
    cli_summary_begin(&json, "gemm", common, info->device, seconds);
    parac_json_field_int(&json, "m", o->m);
    parac_json_field_int(&json, "n", o->n);
    parac_json_field_int(&json, "k", o->k);
    parac_json_field_string(&json, "dtype", args->dtype);
    parac_json_field_string(&json, "schedule", info->schedule == PARAC_GEMM_SCHEDULE_DYNAMIC ? "dynamic" : "static");
    parac_json_field_string(&json, "variant", parac_gemm_variant_name(info->variant));
    parac_json_field_int(&json, "pipeline_stages", info->pipeline_stages);
    parac_json_field_int(&json, "tile_m", info->tile_m);
    parac_json_field_int(&json, "tile_n", info->tile_n);
    parac_json_field_int(&json, "tile_k", info->tile_k);
    parac_json_field_int(&json, "split_k", info->split_k);
    parac_json_field_int(&json, "tile_kernels", info->tile_kernels);
    parac_json_field_int(&json, "tile_kernels_dense", info->tile_kernels_dense);
    parac_json_field_double(&json, "tflops", tflops);
    parac_json_field_double(&json, "useful_tflops", useful);
    if (against) {
        parac_json_field_double(&json, "max_rel_err", rel_err);
        parac_json_field_string(&json, "verified_against", against);
    }
    cli_summary_end(&json);
}

static parac_status write_output(const char *path, const gemm_inputs *in, const parac_gemm_options *o, parac_error *error)
{
    parac_gemm_matrix c = {o->m, o->n, PARAC_GEMM_ROW_MAJOR, in->c};
    cli_output output;
    parac_status status = cli_output_begin(&output, path, error);
    if (status == PARAC_OK) status = parac_gemm_matrix_write(output.path, &c, error);
    if (status == PARAC_OK) return cli_output_commit(&output, error);
    cli_output_abort(&output, error);
    return status;
}

static const char GEMM_DESCRIPTION[] =
    "C = alpha*A*B + beta*C in fp32 (or tf32) through a plan: tile grid, packed layout, tile kernels\n"
    "(all-zero A/B tiles skipped), a dependency DAG and a static or dynamic schedule. Either give A and B\n"
    "files (.npy or .mtx; C goes to -o) or generate them with --m --n --k (A optionally banded or block-sparse).";

static parac_status run_gemm(const gemm_args *args, const cli_common *common, gemm_inputs *in, parac_error *error)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_status status;
    size_t c_count;
    float *c_initial = NULL;
    double seconds = 0.0, rel_err = 0.0;
    const char *against = NULL;
    memset(&o, 0, sizeof o);
    gemm_set_tuning(args, &o);
    gemm_fill_options(common, in, &o);
    if (cli_too_large((uint64_t)o.m, (uint64_t)o.n, 2 * sizeof(float)))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: C (%lld x %lld) is too large", (long long)o.m,
                          (long long)o.n);
    c_count = (size_t)(o.m * o.n);
    if (args->autotune && (status = parac_gemm_autotune(&o, &seconds, error)) != PARAC_OK) return status;
    if ((status = parac_gemm_plan_create(&o, &plan, error)) != PARAC_OK) return status;
    parac_gemm_plan_info_get(plan, &info);
    if (args->explain) {
        char text[4096];
        parac_gemm_plan_explain(plan, text, sizeof text);
        fputs(text, stdout);
    }
    in->c = malloc(c_count * sizeof(float));
    c_initial = calloc(c_count, sizeof(float));
    if (!in->c || !c_initial) status = parac_fail_no_memory(error, "C", c_count * 8);
    if (status == PARAC_OK) status = gemm_initial_c(args, common, o.m, o.n, c_initial, error);
    if (status == PARAC_OK) status = run_timed(plan, args, in, c_initial, c_count, &seconds, error);
    if (status == PARAC_OK && args->verify) status = verify(plan, &o, args, in, c_initial, &rel_err, &against, error);
    if (status == PARAC_OK && args->output) status = write_output(args->output, in, &o, error);
    if (status == PARAC_OK) print_summary(common, &info, args, &o, seconds, rel_err, against);
    free(c_initial);
    parac_gemm_plan_destroy(plan);
    return status;
}

int cli_gemm(int argc, char **argv)
{
    gemm_args args = GEMM_ARGS_DEFAULT;
    const cli_option options[] = {
        GEMM_SHARED_OPTIONS(args),
        {"--repeats", 0, CLI_INT, &args.repeats, "R", "timed runs after a warm-up; the median is reported (default 3)"},
        {"--verify", 0, CLI_FLAG, &args.verify, NULL, "compare with cuBLAS (GPU) or a double reference (CPU, small)"},
        {"--explain", 0, CLI_FLAG, &args.explain, NULL, "print the plan"},
        {"--autotune", 0, CLI_FLAG, &args.autotune, NULL,
         "time the tile shapes of this shape class and store the fastest in --tune-cache (same bits of C)"},
        {"--tune-cache", 0, CLI_STRING, &args.tune_cache, "FILE",
         "tuning cache: the plan takes its tile shape from it (never read unless given)"},
        {"--output", 'o', CLI_STRING, &args.output, "FILE", "write C (.npy or .mtx)"},
    };
    const cli_command command = {"gemm", "[A B -o C] [--m M --n N --k K] [options]", GEMM_DESCRIPTION, options,
                                 sizeof options / sizeof options[0], 0, 2};
    cli_common common;
    const char *positionals[2], *outputs[2];
    size_t output_count = 0;
    int positional_count, code = cli_parse(&command, argc, argv, &common, positionals, &positional_count);
    gemm_inputs in;
    parac_error error;
    parac_status status;
    if (code != CLI_CONTINUE) return code;
    if ((code = gemm_check_args(&args, positional_count)) != CLI_CONTINUE) return code;
    memset(&in, 0, sizeof in);
    parac_error_clear(&error);
    if (args.output) outputs[output_count++] = args.output;
    if (args.autotune) outputs[output_count++] = args.tune_cache;
    if (cli_check_outputs(outputs, output_count, positionals, (size_t)positional_count, &error) != PARAC_OK)
        return cli_report(&error);
    status = positional_count == 2 ? gemm_read_inputs(positionals[0], positionals[1], &in, &error)
                                   : gemm_generate_inputs(&args, common.seed_given ? common.seed : 42, &in, &error);
    if (status == PARAC_OK) status = run_gemm(&args, &common, &in, &error);
    parac_gemm_matrix_free(&in.a);
    parac_gemm_matrix_free(&in.b);
    free(in.c);
    return status == PARAC_OK ? CLI_EXIT_OK : cli_report(&error);
}

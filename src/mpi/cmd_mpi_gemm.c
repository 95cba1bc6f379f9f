/* mpi/cmd_mpi_gemm.c — `mpirun -n R parac-mpi gemm [A B -o C] [--m M --n N --k K] [options]`: parac gemm's
 * C = alpha*A*B + beta*C over a P x Q grid of ranks (distributed_gemm.h), the same bytes as `parac gemm`
 * for fp32 (and tf32 on the CPU). Rank 0 reads or generates the matrices, plans the whole multiply (its
 * tile_k, split_k and tiles fix every element's summation order), and writes C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gemm_setup.h"
#include "core/error.h"
#include "mpi/distributed_gemm.h"
#include "mpi/mpi_cli.h"

typedef struct mpi_gemm_args {
    const char *grid;   /* "PxQ"; NULL = the most square grid */
    int64_t cyclic_block; /* 0 = the plan's larger tile edge */
    int timings, spread_gpus;
} mpi_gemm_args;

/* --grid: P x Q with P * Q == ranks. */
static parac_status parse_grid(const char *text, int ranks, int *rows, int *cols, parac_error *error)
{
    char tail;
    if (!text) {
        mpi_grid_choose(ranks, rows, cols);
        return PARAC_OK;
    }
    if (sscanf(text, "%dx%d%c", rows, cols, &tail) != 2 || *rows < 1 || *cols < 1 || (int64_t)*rows * *cols != ranks)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: --grid must be PxQ with P * Q = %d ranks, not '%s'",
                          ranks, text);
    return PARAC_OK;
}

static int is_wide_tf32_variant(parac_gemm_variant v)
{
    return v == PARAC_GEMM_VARIANT_WGMMA_WS || v == PARAC_GEMM_VARIANT_WGMMA_WS_A;
}

/* Rank 0: the whole multiply's plan, for what it decided. The block edge defaults to the larger tile edge
 * (tile edges are 64, 128 or 256, so it is a multiple of both). A sparse split-k plan needs the local
 * tiles to be global tiles (distributed_gemm.c, multiply_locally): an explicit block must then be a
 * multiple of both edges. */
static parac_status plan_whole(const parac_gemm_options *whole, int64_t cyclic_block, mpi_gemm_shape *shape,
                               parac_error *error)
{
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_status status = parac_gemm_plan_create(whole, &plan, error);
    if (status != PARAC_OK) return status;
    parac_gemm_plan_info_get(plan, &info);
    parac_gemm_plan_destroy(plan);
    shape->m = whole->m, shape->n = whole->n, shape->k = whole->k;
    shape->tile_m = info.tile_m, shape->tile_n = info.tile_n, shape->tile_k = info.tile_k, shape->split_k = info.split_k;
    shape->sparse_a = whole->scan_a != NULL, shape->sparse_b = whole->scan_b != NULL;
    shape->block = cyclic_block ? cyclic_block : (info.tile_m > info.tile_n ? info.tile_m : info.tile_n);
    if (is_wide_tf32_variant(info.variant) && info.tile_n == 256)
        shape->tile_m = shape->tile_n = 0; /* a GPU tf32 plan (bits within the tf32 bound): local pieces narrower
                                              than 256 cannot take 256-wide tiles, so each rank chooses */
    if (cyclic_block && info.split_k > 1 && (shape->sparse_a || shape->sparse_b) &&
        (cyclic_block % info.tile_m || cyclic_block % info.tile_n))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "gemm: --cyclic-block %lld is not a multiple of the plan's %d x %d tiles, which a sparse "
                          "plan with split-k %d needs for parac gemm's bits; use a multiple, or --split-k 1",
                          (long long)cyclic_block, info.tile_m, info.tile_n, info.split_k);
    return PARAC_OK;
}

/* Rank 0: a row-major copy of a column-major file matrix (the layout changes no bit of C). */
static parac_status make_row_major(parac_gemm_matrix *matrix, parac_error *error)
{
    float *rows;
    if (matrix->layout == PARAC_GEMM_ROW_MAJOR) return PARAC_OK;
    if (!(rows = malloc((size_t)(matrix->rows * matrix->cols) * sizeof *rows)))
        return parac_fail_no_memory(error, "row-major copy", (size_t)(matrix->rows * matrix->cols) * 4);
    for (int64_t r = 0; r < matrix->rows; r++)
        for (int64_t c = 0; c < matrix->cols; c++) rows[r * matrix->cols + c] = matrix->values[c * matrix->rows + r];
    free(matrix->values);
    matrix->values = rows;
    matrix->layout = PARAC_GEMM_ROW_MAJOR;
    return PARAC_OK;
}

/* Rank 0: inputs (files or generated), the starting C, the whole plan. */
static parac_status prepare(const gemm_args *args, const mpi_gemm_args *margs, const cli_common *common,
                            const char **positionals, int positional_count, gemm_inputs *in,
                            parac_gemm_options *whole, mpi_gemm_shape *shape, parac_error *error)
{
    parac_status status = positional_count == 2 ? gemm_read_inputs(positionals[0], positionals[1], in, error)
                                                : gemm_generate_inputs(args, common->seed_given ? common->seed : 42, in, error);
    if (status == PARAC_OK) status = make_row_major(&in->a, error);
    if (status == PARAC_OK) status = make_row_major(&in->b, error);
    if (status != PARAC_OK) return status;
    memset(whole, 0, sizeof *whole);
    gemm_set_tuning(args, whole);
    gemm_fill_options(common, in, whole);
    if (cli_too_large((uint64_t)whole->m, (uint64_t)whole->n, 2 * sizeof(float)))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: C (%lld x %lld) is too large", (long long)whole->m,
                          (long long)whole->n);
    if (!(in->c = malloc((size_t)(whole->m * whole->n) * sizeof(float))))
        return parac_fail_no_memory(error, "C", (size_t)(whole->m * whole->n) * 4);
    if ((status = gemm_initial_c(args, common, whole->m, whole->n, in->c, error)) != PARAC_OK) return status;
    return plan_whole(whole, margs->cyclic_block, shape, error);
}

static parac_status write_c(const char *path, const mpi_gemm_shape *shape, float *c, parac_error *error)
{
    parac_gemm_matrix matrix = {shape->m, shape->n, PARAC_GEMM_ROW_MAJOR, c};
    cli_output output;
    parac_status status = cli_output_begin(&output, path, error);
    if (status == PARAC_OK) status = parac_gemm_matrix_write(output.path, &matrix, error);
    if (status == PARAC_OK) return cli_output_commit(&output, error);
    cli_output_abort(&output, error);
    return status;
}

/* The slowest rank's phases, the multiply's CPU time (load-independent work) and the traffic, on stderr. */
/* Rank 0's summary: a line on stderr (not with -q), or with --json parac gemm's kind of one-line object on
 * stdout (rank 0's device: every rank runs the same plan rules on its own piece). */
static void print_summary(const cli_common *common, const mpi_gemm_shape *shape, const mpi_gemm_info *info,
                          const char *dtype, int ranks, int rows, int cols, double seconds)
{
    double gflops = 2e-9 * (double)shape->m * (double)shape->n * (double)shape->k / (seconds > 0 ? seconds : 1e-9);
    parac_json_writer json;
    if (common->json) {
        cli_summary_begin(&json, "gemm", common, info->device, seconds);
        parac_json_field_int(&json, "m", shape->m);
        parac_json_field_int(&json, "n", shape->n);
        parac_json_field_int(&json, "k", shape->k);
        parac_json_field_string(&json, "dtype", dtype);
        parac_json_field_int(&json, "ranks", ranks);
        parac_json_field_int(&json, "grid_rows", rows);
        parac_json_field_int(&json, "grid_cols", cols);
        parac_json_field_int(&json, "cyclic_block", shape->block);
        parac_json_field_double(&json, "gflops", gflops);
        cli_summary_end(&json);
    } else if (!common->quiet) {
        fprintf(stderr, "gemm: %lld x %lld x %lld %s on %d ranks (grid %dx%d, block %lld): %.3f s, %.3f GFLOP/s\n",
                (long long)shape->m, (long long)shape->n, (long long)shape->k, dtype, ranks, rows, cols,
                (long long)shape->block, seconds, gflops);
    }
}

static void print_timings(MPI_Comm comm, const mpi_gemm_info *info, double read_seconds, double write_seconds)
{
    double mine[7] = {read_seconds, info->seconds_scatter, info->seconds_broadcast, info->seconds_multiply,
                      info->seconds_compute, info->seconds_gather, write_seconds};
    double slowest[7], cpu[2] = {info->cpu_seconds_multiply, info->bytes_broadcast}, cpu_max[2], cpu_sum[2];
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Reduce(mine, slowest, 7, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_sum, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (rank != 0) return;
    fprintf(stderr,
            "timings (s, slowest rank): read+plan %.3f scatter %.3f broadcast %.3f multiply %.3f (compute %.3f) "
            "gather %.3f write %.3f\n",
            slowest[0], slowest[1], slowest[2], slowest[3], slowest[4], slowest[5], slowest[6]);
    fprintf(stderr, "cpu (s): local multiply max %.3f sum %.3f\n", cpu_max[0], cpu_sum[0]);
    fprintf(stderr, "traffic: panel broadcasts %.0f bytes in all, %.0f on the busiest rank\n", cpu_sum[1], cpu_max[1]);
}

int mpi_cmd_gemm(MPI_Comm comm, int argc, char **argv)
{
    gemm_args args = GEMM_ARGS_DEFAULT;
    mpi_gemm_args margs = {NULL, 0, 0, 0};
    const cli_option table[] = {
        GEMM_SHARED_OPTIONS(args),
        {"--output", 'o', CLI_STRING, &args.output, "FILE", "write C (.npy or .mtx), from rank 0"},
        {"--grid", 0, CLI_STRING, &margs.grid, "PxQ", "process grid, P * Q = ranks (default: the most square)"},
        {"--cyclic-block", 0, CLI_INT64, &margs.cyclic_block, "NB",
         "block edge of the block-cyclic layout and SUMMA's panel width (default: the plan's larger tile edge)"},
        MPI_CLI_RANK_OPTIONS(margs.timings, margs.spread_gpus),
    };
    const cli_command command = {
        "gemm", "[A B -o C] [--m M --n N --k K] [options]",
        "parac gemm over the ranks of mpirun: A, B and C block-cyclic over a P x Q grid, SUMMA panel broadcasts, "
        "each rank's C piece by the KDA plan (--threads and --device per rank); C written by rank 0, the bytes "
        "parac gemm writes (fp32; tf32 on the CPU).",
        table, sizeof table / sizeof table[0], 0, 2};
    cli_common common;
    const char *positionals[2];
    int positional_count, rank, ranks, code, rows = 1, cols = 1;
    gemm_inputs in;
    parac_gemm_options whole, local;
    mpi_gemm_shape shape;
    mpi_gemm_info info;
    mpi_grid grid;
    parac_error error;
    double started = MPI_Wtime(), read_seconds, write_started;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    code = mpi_cli_parse(rank, &command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    if (rank == 0) code = gemm_check_args(&args, positional_count);
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code != CLI_CONTINUE) return code;
    memset(&in, 0, sizeof in);
    memset(&shape, 0, sizeof shape);
    parac_error_clear(&error);
    common.exec.progress = NULL; /* no bar: R ranks would draw over each other */
    if (margs.spread_gpus) common.exec.cuda_device = mpi_cli_spread_gpus(comm, common.exec.cuda_device);
    parse_grid(margs.grid, ranks, &rows, &cols, &error);
    if (error.status == PARAC_OK && margs.cyclic_block < 0)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "gemm: --cyclic-block must be >= 1 (0: the plan's tile edge)");
    if (error.status == PARAC_OK && rank == 0 && args.output)
        cli_check_outputs(&args.output, 1, positionals, (size_t)positional_count, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    if (rank == 0) prepare(&args, &margs, &common, positionals, positional_count, &in, &whole, &shape, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
    MPI_Bcast(&shape, (int)sizeof shape, MPI_BYTE, 0, comm); /* one program on one kind of host: same layout */
    read_seconds = MPI_Wtime() - started;
    mpi_cli_test_hook(rank);
    memset(&local, 0, sizeof local);
    gemm_set_tuning(&args, &local);
    local.exec = common.exec;
    mpi_grid_create(comm, rows, cols, &grid);
    if (mpi_gemm_run(comm, &grid, &shape, &local, (float)args.alpha, in.a.values, in.b.values, (float)args.beta, in.c,
                     &info, &error) != PARAC_OK)
        mpi_cli_abort(comm, &error);
    mpi_grid_destroy(&grid);
    write_started = MPI_Wtime();
    if (rank == 0 && args.output) write_c(args.output, &shape, in.c, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
    if (margs.timings) print_timings(comm, &info, read_seconds, MPI_Wtime() - write_started);
    if (rank == 0) print_summary(&common, &shape, &info, args.dtype, ranks, rows, cols, MPI_Wtime() - started);
done:
    parac_gemm_matrix_free(&in.a);
    parac_gemm_matrix_free(&in.b);
    free(in.c);
    return code;
}

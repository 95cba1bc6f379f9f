/* mpi/cmd_mpi_gemm.c — `mpirun -n R parac-mpi gemm [A B -o C] [--m M --n N --k K] [options]`: parac gemm's
 * C = alpha*A*B + beta*C over a P x Q grid of ranks (distributed_gemm.h), the same bytes as `parac gemm`
 * for fp32 (and tf32 on the CPU). Two .npy files are read in parallel (each rank its pieces, MPI-IO:
 * gemm_npy_pieces.h); Matrix Market files and generated matrices are read or made by rank 0 and scattered.
 * Rank 0 plans the whole multiply (its tile_k, split_k and tiles fix every element's summation order). A
 * .npy C is written by every rank (MPI-IO into rank 0's temporary file, renamed after a collective
 * success); .mtx is gathered and written by rank 0. */
#define _FILE_OFFSET_BITS 64
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli/gemm_setup.h"
#include "core/error.h"
#include "gemm/gemm_internal.h"
#include "mpi/distributed_gemm.h"
#include "mpi/gemm_npy_pieces.h"
#include "mpi/label_output.h"
#include "mpi/mpi_cli.h"

typedef struct mpi_gemm_args {
    const char *grid;   /* "PxQ"; NULL = the most square grid */
    int64_t cyclic_block; /* 0 = the plan's larger tile edge */
    int timings, spread_gpus;
} mpi_gemm_args;

typedef struct read_report {
    double rank0_values, max_values, all_values; /* A and B values read: by rank 0, the busiest rank, all */
} read_report;

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
static parac_status plan_whole(const parac_gemm_options *whole, int64_t cyclic_block, int scanned_a, int scanned_b,
                               mpi_gemm_shape *shape, parac_error *error)
{
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_status status = gemm_plan_create_as_scanned(whole, scanned_a, scanned_b, &plan, error);
    if (status != PARAC_OK) return status;
    parac_gemm_plan_info_get(plan, &info);
    parac_gemm_plan_destroy(plan);
    shape->m = whole->m, shape->n = whole->n, shape->k = whole->k;
    shape->tile_m = info.tile_m, shape->tile_n = info.tile_n, shape->tile_k = info.tile_k, shape->split_k = info.split_k;
    shape->sparse_a = whole->scan_a != NULL || scanned_a, shape->sparse_b = whole->scan_b != NULL || scanned_b;
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
    return plan_whole(whole, margs->cyclic_block, 0, 0, shape, error);
}

/* The slowest rank's phases, the multiply's CPU time (load-independent work) and the traffic, on stderr. */
/* Rank 0's summary: a line on stderr (not with -q), or with --json parac gemm's kind of one-line object on
 * stdout (rank 0's device: every rank runs the same plan rules on its own piece). */
static void print_summary(const cli_common *common, const mpi_gemm_shape *shape, const mpi_gemm_info *info,
                          const read_report *report, int parallel_read, const char *written, const char *dtype,
                          int ranks, int rows, int cols, double seconds)
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
        parac_json_field_string(&json, "input_read", parallel_read ? "parallel" : "rank 0");
        parac_json_field_int(&json, "rank0_input_values", (int64_t)report->rank0_values);
        parac_json_field_string(&json, "output_written", written);
        parac_json_field_double(&json, "gflops", gflops);
        cli_summary_end(&json);
    } else if (!common->quiet) {
        fprintf(stderr, "gemm: %lld x %lld x %lld %s on %d ranks (grid %dx%d, block %lld): %.3f s, %.3f GFLOP/s\n",
                (long long)shape->m, (long long)shape->n, (long long)shape->k, dtype, ranks, rows, cols,
                (long long)shape->block, seconds, gflops);
    }
}

static void print_timings(MPI_Comm comm, const mpi_gemm_info *info, const read_report *report, int parallel_read,
                          int parallel_write, double read_seconds, double write_seconds)
{
    double mine[6] = {read_seconds, info->seconds_scatter, info->seconds_broadcast, info->seconds_multiply,
                      info->seconds_compute, write_seconds};
    double slowest[6], cpu[2] = {info->cpu_seconds_multiply, info->bytes_broadcast}, cpu_max[2], cpu_sum[2];
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Reduce(mine, slowest, 6, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(cpu, cpu_sum, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (rank != 0) return;
    fprintf(stderr,
            "timings (s, slowest rank): read+plan %.3f scatter %.3f broadcast %.3f multiply %.3f (compute %.3f) "
            "write (MPI-IO, or gather and rank 0) %.3f\n",
            slowest[0], slowest[1], slowest[2], slowest[3], slowest[4], slowest[5]);
    fprintf(stderr, "cpu (s): local multiply max %.3f sum %.3f\n", cpu_max[0], cpu_sum[0]);
    fprintf(stderr, "traffic: panel broadcasts %.0f bytes in all, %.0f on the busiest rank\n", cpu_sum[1], cpu_max[1]);
    fprintf(stderr, "input: A and B read %s; values read: rank 0 %.0f, busiest rank %.0f, all %.0f; C written %s\n",
            parallel_read ? "in parallel" : "by rank 0", report->rank0_values, report->max_values, report->all_values,
            parallel_write ? "in parallel" : "by rank 0 (or not at all)");
}

/* Rank 0: read A and B in parallel when both are .npy regular files whose headers it can read and whose
 * sides fit MPI's int sizes; anything else (Matrix Market, pipes, unreadable files) takes rank 0's path,
 * which reads as parac gemm reads and so reports what is wrong in its words. */
static int npy_in_parallel(const char **positionals, int positional_count)
{
    mpi_npy_matrix header;
    parac_error ignored;
    struct stat info;
    for (int i = 0; i < positional_count; i++) {
        size_t length = strlen(positionals[i]);
        if (length < 4 || strcmp(positionals[i] + length - 4, ".npy") != 0) return 0;
        if (stat(positionals[i], &info) != 0 || !S_ISREG(info.st_mode)) return 0;
        if (mpi_npy_matrix_open(positionals[i], &header, &ignored) != PARAC_OK) return 0;
        if (header.rows > INT_MAX || header.cols > INT_MAX) return 0;
    }
    return positional_count == 2;
}

/* Rank 0: the whole multiply's options and plan without its matrices (the pieces are on the ranks). */
static parac_status plan_from_headers(const gemm_args *args, const mpi_gemm_args *margs, const cli_common *common,
                                      const mpi_npy_matrix *a, const mpi_npy_matrix *b, int scanned_a, int scanned_b,
                                      parac_gemm_options *whole, mpi_gemm_shape *shape, parac_error *error)
{
    gemm_inputs shapes;
    memset(&shapes, 0, sizeof shapes);
    shapes.a = (parac_gemm_matrix){a->rows, a->cols, PARAC_GEMM_ROW_MAJOR, NULL};
    shapes.b = (parac_gemm_matrix){b->rows, b->cols, PARAC_GEMM_ROW_MAJOR, NULL};
    memset(whole, 0, sizeof *whole);
    gemm_set_tuning(args, whole);
    gemm_fill_options(common, &shapes, whole);
    if (cli_too_large((uint64_t)whole->m, (uint64_t)whole->n, 2 * sizeof(float)))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm: C (%lld x %lld) is too large", (long long)whole->m,
                          (long long)whole->n);
    return plan_whole(whole, margs->cyclic_block, scanned_a, scanned_b, shape, error);
}

/* Every rank: its pieces of A and B straight from the files, validated as parac gemm validates them and in
 * its order (A's header, A's values, B's header, B's values, the shapes, then the plan), and the whole
 * plan made by rank 0 from the headers and the ranks' zero counts. The block edge is the plan's larger tile
 * edge before the zero counts are known (the dense plan's); when the counts make an operand scanned, the
 * scanned plan's tiles are 64 on its side, which that edge is a multiple of, unless a tuning cache gave
 * the dense plan smaller tiles: then the pieces are read again with the scanned plan's edge (a guard:
 * parac-mpi offers no --tune-cache today, so no test reaches it). Returns the agreed exit code. */
static int read_in_parallel(MPI_Comm comm, const mpi_grid *grid, const gemm_args *args, const mpi_gemm_args *margs,
                            const cli_common *common, const char **positionals, mpi_gemm_shape *shape,
                            mpi_gemm_pieces *pieces, read_report *report, parac_error *error)
{
    mpi_npy_matrix a, b;
    parac_gemm_options whole;
    parac_error plan_error;
    double bytes_a = 0, bytes_b = 0, values, counts[2] = {0, 0}, zeros[2];
    int rank, code, plan_ok = 0, reread = 0;
    MPI_Comm_rank(comm, &rank);
    parac_error_clear(&plan_error);
    memset(shape, 0, sizeof *shape);
    mpi_npy_matrix_open(positionals[0], &a, error);
    if ((code = mpi_cli_agree(comm, error)) != 0) return code;
    mpi_npy_matrix_open(positionals[1], &b, error);
    if ((code = mpi_cli_agree(comm, error)) != 0) return code;
    if (rank == 0 && a.cols == b.rows)
        plan_ok = plan_from_headers(args, margs, common, &a, &b, 0, 0, &whole, shape, &plan_error) == PARAC_OK;
    MPI_Bcast(&plan_ok, 1, MPI_INT, 0, comm);
    MPI_Bcast(shape, (int)sizeof *shape, MPI_BYTE, 0, comm);
    if (!plan_ok) shape->block = margs->cyclic_block ? margs->cyclic_block : 64; /* to check the values first */
    do {
        mpi_gemm_pieces_free(pieces);
        mpi_npy_matrix_read_piece(comm, grid, &a, shape->block, &pieces->a, &bytes_a, error);
        if ((code = mpi_cli_agree(comm, error)) != 0) return code;
        mpi_npy_matrix_read_piece(comm, grid, &b, shape->block, &pieces->b, &bytes_b, error);
        if ((code = mpi_cli_agree(comm, error)) != 0) return code;
        if (reread) break;
        gemm_check_shapes(a.path, a.rows, a.cols, b.path, b.rows, b.cols, error);
        if ((code = mpi_cli_agree(comm, error)) != 0) return code;
        if ((code = mpi_cli_agree(comm, &plan_error)) != 0) return code; /* rank 0's: after the values, as parac gemm */
        counts[0] = (double)gemm_count_zeros(pieces->a, cyclic_local_count(a.rows, shape->block, grid->rows, grid->row) *
                                                            cyclic_local_count(a.cols, shape->block, grid->cols, grid->col));
        counts[1] = (double)gemm_count_zeros(pieces->b, cyclic_local_count(b.rows, shape->block, grid->rows, grid->row) *
                                                            cyclic_local_count(b.cols, shape->block, grid->cols, grid->col));
        MPI_Allreduce(counts, zeros, 2, MPI_DOUBLE, MPI_SUM, comm); /* exact: counts below 2^53 */
        shape->sparse_a = gemm_is_sparse((int64_t)zeros[0], a.rows * a.cols);
        shape->sparse_b = gemm_is_sparse((int64_t)zeros[1], b.rows * b.cols);
        if (shape->sparse_a || shape->sparse_b) {
            mpi_gemm_shape scanned;
            if (rank == 0 &&
                plan_from_headers(args, margs, common, &a, &b, shape->sparse_a, shape->sparse_b, &whole, &scanned,
                                  error) == PARAC_OK) {
                if (!margs->cyclic_block && (shape->block % scanned.tile_m || shape->block % scanned.tile_n)) reread = 1;
                else scanned.block = shape->block;
                *shape = scanned;
            }
            if ((code = mpi_cli_agree(comm, error)) != 0) return code;
            MPI_Bcast(shape, (int)sizeof *shape, MPI_BYTE, 0, comm);
            MPI_Bcast(&reread, 1, MPI_INT, 0, comm);
        }
    } while (reread);
    values = (double)(cyclic_local_count(a.rows, shape->block, grid->rows, grid->row) *
                          cyclic_local_count(a.cols, shape->block, grid->cols, grid->col) +
                      cyclic_local_count(b.rows, shape->block, grid->rows, grid->row) *
                          cyclic_local_count(b.cols, shape->block, grid->cols, grid->col));
    MPI_Allreduce(&values, &report->max_values, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&values, &report->all_values, 1, MPI_DOUBLE, MPI_SUM, comm);
    report->rank0_values = values;
    MPI_Bcast(&report->rank0_values, 1, MPI_DOUBLE, 0, comm);
    (void)bytes_a, (void)bytes_b;
    return 0;
}

/* Every rank: C from its piece into one file, whole or not at all (rank 0's temporary file, renamed after
 * a collective success): .npy written by every rank (MPI-IO), anything else gathered and written by rank 0
 * as parac gemm writes it. Returns the agreed exit code; *parallel says which way it went. */
static int write_output(MPI_Comm comm, const mpi_grid *grid, const char *target, const mpi_gemm_shape *shape,
                        const float *c_piece, int *parallel, parac_error *error)
{
    cli_output output;
    char path[sizeof output.temporary] = "";
    int rank, code;
    size_t length = strlen(target);
    float *whole = NULL;
    MPI_Comm_rank(comm, &rank);
    memset(&output, 0, sizeof output);
    *parallel = 0;
    if (rank == 0 && cli_output_begin(&output, target, error) == PARAC_OK) {
        *parallel = output.renames && length >= 4 && strcmp(target + length - 4, ".npy") == 0;
        snprintf(path, sizeof path, "%s", output.path);
    }
    if ((code = mpi_cli_agree(comm, error)) != 0) return code;
    MPI_Bcast(parallel, 1, MPI_INT, 0, comm);
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, comm);
    if (*parallel) {
        mpi_npy_matrix_write_pieces(comm, grid, path, shape->m, shape->n, shape->block, c_piece, error);
    } else {
        if (rank == 0 && !(whole = malloc((size_t)(shape->m * shape->n) * sizeof(float) + 1))) {
            parac_fail_no_memory(error, "C", (size_t)(shape->m * shape->n) * 4);
            mpi_cli_abort(comm, error); /* the other ranks are sending their pieces */
        }
        mpi_gemm_gather(comm, grid, shape, c_piece, whole);
        if (rank == 0) {
            parac_gemm_matrix matrix = {shape->m, shape->n, PARAC_GEMM_ROW_MAJOR, whole};
            parac_gemm_matrix_write(path, &matrix, error);
        }
        free(whole);
    }
    code = mpi_cli_agree(comm, error);
    return mpi_outputs_finish(comm, &output, 1, code, error);
}

int mpi_cmd_gemm(MPI_Comm comm, int argc, char **argv)
{
    gemm_args args = GEMM_ARGS_DEFAULT;
    mpi_gemm_args margs = {NULL, 0, 0, 0};
    const cli_option table[] = {
        GEMM_SHARED_OPTIONS(args),
        {"--output", 'o', CLI_STRING, &args.output, "FILE", "write C (.npy: by every rank; .mtx: from rank 0)"},
        {"--grid", 0, CLI_STRING, &margs.grid, "PxQ", "process grid, P * Q = ranks (default: the most square)"},
        {"--cyclic-block", 0, CLI_INT64, &margs.cyclic_block, "NB",
         "block edge of the block-cyclic layout and SUMMA's panel width (default: the plan's larger tile edge)"},
        MPI_CLI_RANK_OPTIONS(margs.timings, margs.spread_gpus),
    };
    const cli_command command = {
        "gemm", "[A B -o C] [--m M --n N --k K] [options]",
        "parac gemm over the ranks of mpirun: A, B and C block-cyclic over a P x Q grid, SUMMA panel broadcasts, "
        "each rank's C piece by the KDA plan (--threads and --device per rank); .npy inputs read and a .npy C "
        "written by every rank, its own pieces (MPI-IO); the bytes parac gemm writes (fp32; tf32 on the CPU).",
        table, sizeof table / sizeof table[0], 0, 2};
    cli_common common;
    const char *positionals[2];
    int positional_count, rank, ranks, code, rows = 1, cols = 1, parallel_read = 0, parallel_write = 0;
    gemm_inputs in;
    parac_gemm_options whole, local;
    mpi_gemm_shape shape;
    mpi_gemm_info info;
    mpi_gemm_pieces pieces, c_only;
    read_report report;
    mpi_grid grid;
    parac_error error;
    double started = MPI_Wtime(), read_seconds, write_started, started_phase;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    code = mpi_cli_parse(rank, &command, argc, argv, &common, positionals, &positional_count);
    if (code != CLI_CONTINUE) return code;
    if (rank == 0) code = gemm_check_args(&args, positional_count);
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code != CLI_CONTINUE) return code;
    memset(&in, 0, sizeof in);
    memset(&shape, 0, sizeof shape);
    memset(&pieces, 0, sizeof pieces);
    memset(&report, 0, sizeof report);
    parac_error_clear(&error);
    common.exec.progress = NULL; /* no bar: R ranks would draw over each other */
    if (margs.spread_gpus) common.exec.cuda_device = mpi_cli_spread_gpus(comm, common.exec.cuda_device);
    parse_grid(margs.grid, ranks, &rows, &cols, &error);
    if (error.status == PARAC_OK && margs.cyclic_block < 0)
        parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "gemm: --cyclic-block must be >= 1 (0: the plan's tile edge)");
    if (error.status == PARAC_OK && rank == 0 && args.output)
        cli_check_outputs(&args.output, 1, positionals, (size_t)positional_count, &error);
    if ((code = mpi_cli_agree(comm, &error)) != 0) return code;
    mpi_grid_create(comm, rows, cols, &grid);
    if (rank == 0) parallel_read = npy_in_parallel(positionals, positional_count);
    MPI_Bcast(&parallel_read, 1, MPI_INT, 0, comm);
    if (parallel_read) {
        if ((code = read_in_parallel(comm, &grid, &args, &margs, &common, positionals, &shape, &pieces, &report,
                                     &error)) != 0)
            goto done;
        if (mpi_gemm_pieces_alloc(&grid, &shape, 0, &c_only, &error) != PARAC_OK) mpi_cli_abort(comm, &error);
        pieces.c = c_only.c;
    } else {
        if (rank == 0) prepare(&args, &margs, &common, positionals, positional_count, &in, &whole, &shape, &error);
        if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
        MPI_Bcast(&shape, (int)sizeof shape, MPI_BYTE, 0, comm); /* one program on one kind of host: same layout */
        if (mpi_gemm_pieces_alloc(&grid, &shape, 1, &pieces, &error) != PARAC_OK) mpi_cli_abort(comm, &error);
        report.rank0_values = report.max_values = (double)(shape.m * shape.k + shape.k * shape.n);
        report.all_values = report.rank0_values;
    }
    read_seconds = MPI_Wtime() - started;
    mpi_cli_test_hook(rank);
    memset(&info, 0, sizeof info);
    started_phase = MPI_Wtime();
    if (!parallel_read) {
        mpi_gemm_scatter(comm, &grid, &shape, in.a.values, shape.m, shape.k, pieces.a);
        mpi_gemm_scatter(comm, &grid, &shape, in.b.values, shape.k, shape.n, pieces.b);
        parac_gemm_matrix_free(&in.a);
        parac_gemm_matrix_free(&in.b);
    }
    if (args.beta != 0.0) { /* the starting C: parac gemm's, made whole on rank 0 (from seed + 2) */
        if (parallel_read && rank == 0) {
            if (!(in.c = malloc((size_t)(shape.m * shape.n) * sizeof(float) + 1)))
                parac_fail_no_memory(&error, "C", (size_t)(shape.m * shape.n) * 4);
            else
                gemm_initial_c(&args, &common, shape.m, shape.n, in.c, &error);
        }
        if ((code = mpi_cli_agree(comm, &error)) != 0) goto done;
        mpi_gemm_scatter(comm, &grid, &shape, in.c, shape.m, shape.n, pieces.c);
    } else {
        memset(pieces.c, 0, (size_t)(cyclic_local_count(shape.m, shape.block, grid.rows, grid.row) *
                                     cyclic_local_count(shape.n, shape.block, grid.cols, grid.col)) * sizeof(float));
    }
    free(in.c), in.c = NULL;
    info.seconds_scatter = MPI_Wtime() - started_phase;
    memset(&local, 0, sizeof local);
    gemm_set_tuning(&args, &local);
    local.exec = common.exec;
    if (mpi_gemm_run(comm, &grid, &shape, &local, (float)args.alpha, (float)args.beta, &pieces, &info, &error) !=
        PARAC_OK)
        mpi_cli_abort(comm, &error);
    write_started = MPI_Wtime();
    if (args.output && (code = write_output(comm, &grid, args.output, &shape, pieces.c, &parallel_write, &error)) != 0)
        goto done;
    if (margs.timings) print_timings(comm, &info, &report, parallel_read, parallel_write, read_seconds, MPI_Wtime() - write_started);
    if (rank == 0)
        print_summary(&common, &shape, &info, &report, parallel_read, args.output ? (parallel_write ? "parallel" : "rank 0") : "none",
                      args.dtype, ranks, rows, cols, MPI_Wtime() - started);
done:
    mpi_grid_destroy(&grid);
    mpi_gemm_pieces_free(&pieces);
    parac_gemm_matrix_free(&in.a);
    parac_gemm_matrix_free(&in.b);
    free(in.c);
    return code;
}

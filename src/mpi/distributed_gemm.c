/* mpi/distributed_gemm.c — pieces, their scatter from and gather to rank 0, SUMMA panel broadcasts, one
 * local KDA multiply per rank (distributed_gemm.h; docs/DISTRIBUTED.md, "gemm"). */
#include "mpi/distributed_gemm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "mpi/mpi_cli.h"

/* This rank's buffers. Pieces are what the block-cyclic layout gives it (the caller's); strips are the A
 * rows and B columns of its C piece over all of k, assembled from the broadcast panels. */
typedef struct local_buffers {
    int64_t local_m, local_n, a_piece_cols, b_piece_rows;
    const float *a_piece, *b_piece;
    float *c_piece, *a_strip, *b_strip, *a_panel;
} local_buffers;

static double cpu_seconds(void)
{
    struct timespec now;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 ? (double)now.tv_sec + 1e-9 * (double)now.tv_nsec : 0.0;
}

static void free_buffers(local_buffers *l)
{
    free(l->a_strip), free(l->b_strip), free(l->a_panel);
}

/* One extra float each: malloc(0) may return NULL, and empty pieces are normal (more blocks than ranks
 * is not required). */
static parac_status allocate_buffers(const mpi_grid *grid, const mpi_gemm_shape *s, const mpi_gemm_pieces *pieces,
                                     local_buffers *l, parac_error *error)
{
    int64_t block = s->block, floats;
    memset(l, 0, sizeof *l);
    l->local_m = cyclic_local_count(s->m, block, grid->rows, grid->row);
    l->local_n = cyclic_local_count(s->n, block, grid->cols, grid->col);
    l->a_piece_cols = cyclic_local_count(s->k, block, grid->cols, grid->col);
    l->b_piece_rows = cyclic_local_count(s->k, block, grid->rows, grid->row);
    l->a_piece = pieces->a, l->b_piece = pieces->b, l->c_piece = pieces->c;
    floats = l->local_m * (s->k + block) + l->local_n * s->k;
    l->a_strip = malloc((size_t)(l->local_m * s->k + 1) * sizeof(float));
    l->b_strip = malloc((size_t)(s->k * l->local_n + 1) * sizeof(float));
    l->a_panel = malloc((size_t)(l->local_m * block + 1) * sizeof(float));
    if (l->a_strip && l->b_strip && l->a_panel) return PARAC_OK;
    free_buffers(l);
    return parac_fail_no_memory(error, "gemm strips", (size_t)floats * sizeof(float));
}

void mpi_gemm_pieces_free(mpi_gemm_pieces *pieces)
{
    free(pieces->a), free(pieces->b), free(pieces->c);
    memset(pieces, 0, sizeof *pieces);
}

/* One extra float each: malloc(0) may return NULL, and empty pieces are normal. */
parac_status mpi_gemm_pieces_alloc(const mpi_grid *grid, const mpi_gemm_shape *s, int with_ab, mpi_gemm_pieces *pieces,
                                   parac_error *error)
{
    int64_t m = cyclic_local_count(s->m, s->block, grid->rows, grid->row);
    int64_t n = cyclic_local_count(s->n, s->block, grid->cols, grid->col);
    int64_t a = with_ab ? m * cyclic_local_count(s->k, s->block, grid->cols, grid->col) : 0;
    int64_t b = with_ab ? cyclic_local_count(s->k, s->block, grid->rows, grid->row) * n : 0;
    memset(pieces, 0, sizeof *pieces);
    pieces->c = malloc((size_t)(m * n + 1) * sizeof(float));
    if (with_ab) {
        pieces->a = malloc((size_t)(a + 1) * sizeof(float));
        pieces->b = malloc((size_t)(b + 1) * sizeof(float));
    }
    if (pieces->c && (!with_ab || (pieces->a && pieces->b))) return PARAC_OK;
    mpi_gemm_pieces_free(pieces);
    return parac_fail_no_memory(error, "gemm pieces", (size_t)(a + b + m * n) * sizeof(float));
}

/* Rank 0's staging buffer as large as its own pieces, the largest (block_cyclic_scatter). */
static float *rank0_staging(const mpi_grid *grid, const mpi_gemm_shape *s, int64_t rows, int64_t cols)
{
    return malloc((size_t)(cyclic_local_count(rows, s->block, grid->rows, 0) *
                           cyclic_local_count(cols, s->block, grid->cols, 0) + 1) * sizeof(float));
}

void mpi_gemm_scatter(MPI_Comm comm, const mpi_grid *grid, const mpi_gemm_shape *s, const float *whole, int64_t rows,
                      int64_t cols, float *piece)
{
    int rank;
    float *staging = NULL;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && !(staging = rank0_staging(grid, s, rows, cols))) {
        parac_error error;
        parac_fail_no_memory(&error, "gemm scatter staging", 0);
        mpi_cli_abort(comm, &error); /* the other ranks wait for their pieces */
    }
    block_cyclic_scatter(comm, grid, rows, cols, s->block, whole, piece, staging);
    free(staging);
}

void mpi_gemm_gather(MPI_Comm comm, const mpi_grid *grid, const mpi_gemm_shape *s, const float *piece, float *whole)
{
    int rank;
    float *staging = NULL;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && !(staging = rank0_staging(grid, s, s->m, s->n))) {
        parac_error error;
        parac_fail_no_memory(&error, "gemm gather staging", 0);
        mpi_cli_abort(comm, &error);
    }
    block_cyclic_gather(comm, grid, s->m, s->n, s->block, piece, whole, staging);
    free(staging);
}

/* SUMMA's communication: panel l of A (its columns l*block..) lives on process column l mod Q and goes
 * along every process row; panel l of B (the same rows) lives on process row l mod P and goes along every
 * process column. B's panel rows are contiguous in both the piece and the strip; A's are packed. */
static double broadcast_panels(const mpi_grid *grid, const mpi_gemm_shape *s, local_buffers *l)
{
    int64_t block = s->block, panels = (s->k + block - 1) / block;
    double bytes = 0.0;
    for (int64_t panel = 0; panel < panels; panel++) {
        int64_t first = panel * block, width = s->k - first < block ? s->k - first : block;
        int a_root = (int)(panel % grid->cols), b_root = (int)(panel % grid->rows);
        int64_t a_column = panel / grid->cols * block, b_row = panel / grid->rows * block;
        float *b_target = l->b_strip + first * l->local_n;
        if (grid->col == a_root)
            for (int64_t r = 0; r < l->local_m; r++)
                memcpy(l->a_panel + r * width, l->a_piece + r * l->a_piece_cols + a_column, (size_t)width * sizeof(float));
        mpi_bcast_floats(l->a_panel, l->local_m * width, a_root, grid->row_comm);
        for (int64_t r = 0; r < l->local_m; r++)
            memcpy(l->a_strip + r * s->k + first, l->a_panel + r * width, (size_t)width * sizeof(float));
        if (grid->row == b_root)
            memcpy(b_target, l->b_piece + b_row * l->local_n, (size_t)(width * l->local_n) * sizeof(float));
        mpi_bcast_floats(b_target, width * l->local_n, b_root, grid->col_comm);
        bytes += (double)(grid->cols > 1) * 4.0 * (double)(l->local_m * width) +
                 (double)(grid->rows > 1) * 4.0 * (double)(width * l->local_n);
    }
    return bytes;
}

/* The KDA plan on this rank's strips, with the global plan's tile_k and split_k (they fix each element's
 * summation order) and tile shape (with a zero-tile scan, the local tiles are then the global ones, so each
 * C tile's list of non-zero k tiles, hence its split-k segments, is the same). */
static parac_status multiply_locally(const mpi_gemm_shape *s, const parac_gemm_options *local_options, float alpha,
                                     float beta, local_buffers *l, mpi_gemm_info *info, parac_error *error)
{
    parac_gemm_options o = *local_options;
    parac_gemm_plan *plan = NULL;
    parac_status status;
    if (l->local_m == 0 || l->local_n == 0) return PARAC_OK; /* no C here: more ranks than blocks */
    o.m = l->local_m;
    o.n = l->local_n;
    o.k = s->k;
    o.layout_a = o.layout_b = o.layout_c = PARAC_GEMM_ROW_MAJOR;
    o.lda = o.ldb = o.ldc = 0;
    o.tile_m = s->tile_m;
    o.tile_n = s->tile_n;
    o.tile_k = s->tile_k;
    o.split_k = s->split_k;
    o.a_tile_mask = o.b_tile_mask = NULL;
    o.scan_a = s->sparse_a ? l->a_strip : NULL;
    o.scan_b = s->sparse_b ? l->b_strip : NULL;
    o.tune_cache_path = NULL;
    if ((status = parac_gemm_plan_create(&o, &plan, error)) == PARAC_OK) {
        parac_gemm_plan_info plan_info;
        parac_gemm_plan_info_get(plan, &plan_info);
        info->device = plan_info.device;
        status = parac_gemm_execute(plan, alpha, l->a_strip, l->b_strip, beta, l->c_piece, error);
    }
    if (status == PARAC_OK) info->seconds_compute = parac_gemm_last_compute_seconds(plan);
    parac_gemm_plan_destroy(plan);
    return status;
}

parac_status mpi_gemm_run(MPI_Comm comm, const mpi_grid *grid, const mpi_gemm_shape *shape,
                          const parac_gemm_options *local_options, float alpha, float beta, mpi_gemm_pieces *pieces,
                          mpi_gemm_info *info, parac_error *error)
{
    local_buffers l;
    parac_status status;
    double started, cpu_started;
    (void)comm;
    info->device = PARAC_DEVICE_CPU;
    if ((status = allocate_buffers(grid, shape, pieces, &l, error)) != PARAC_OK) return status;
    info->local_m = l.local_m;
    info->local_n = l.local_n;
    started = MPI_Wtime();
    info->bytes_broadcast = broadcast_panels(grid, shape, &l);
    info->seconds_broadcast = MPI_Wtime() - started;
    started = MPI_Wtime();
    cpu_started = cpu_seconds();
    status = multiply_locally(shape, local_options, alpha, beta, &l, info, error);
    info->cpu_seconds_multiply = cpu_seconds() - cpu_started;
    info->seconds_multiply = MPI_Wtime() - started;
    free_buffers(&l);
    return status;
}

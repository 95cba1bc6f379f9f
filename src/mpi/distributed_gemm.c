/* mpi/distributed_gemm.c — block-cyclic scatter, SUMMA panel broadcasts, one local KDA multiply per rank,
 * gather (distributed_gemm.h; docs/DISTRIBUTED.md, "gemm"). */
#include "mpi/distributed_gemm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"

/* This rank's buffers. Pieces are what the block-cyclic layout gives it; strips are the A rows and B
 * columns of its C piece over all of k, assembled from the broadcast panels. */
typedef struct local_buffers {
    int64_t local_m, local_n, a_piece_cols, b_piece_rows;
    float *a_piece, *b_piece, *c_piece, *a_strip, *b_strip, *a_panel, *staging;
} local_buffers;

static double cpu_seconds(void)
{
    struct timespec now;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 ? (double)now.tv_sec + 1e-9 * (double)now.tv_nsec : 0.0;
}

static void free_buffers(local_buffers *l)
{
    free(l->a_piece), free(l->b_piece), free(l->c_piece);
    free(l->a_strip), free(l->b_strip), free(l->a_panel), free(l->staging);
}

/* One extra float each: malloc(0) may return NULL, and empty pieces are normal (more blocks than ranks
 * is not required). */
static parac_status allocate_buffers(const mpi_grid *grid, const mpi_gemm_shape *s, int rank, local_buffers *l,
                                     parac_error *error)
{
    int64_t block = s->block, floats, staging = 0;
    memset(l, 0, sizeof *l);
    l->local_m = cyclic_local_count(s->m, block, grid->rows, grid->row);
    l->local_n = cyclic_local_count(s->n, block, grid->cols, grid->col);
    l->a_piece_cols = cyclic_local_count(s->k, block, grid->cols, grid->col);
    l->b_piece_rows = cyclic_local_count(s->k, block, grid->rows, grid->row);
    if (rank == 0) { /* rank 0's pieces are the largest (block_cyclic_scatter) */
        staging = l->local_m * l->a_piece_cols;
        if (l->b_piece_rows * l->local_n > staging) staging = l->b_piece_rows * l->local_n;
        if (l->local_m * l->local_n > staging) staging = l->local_m * l->local_n;
    }
    floats = l->local_m * (l->a_piece_cols + s->k + block) + l->local_n * (l->b_piece_rows + s->k + l->local_m) + staging;
    l->a_piece = malloc((size_t)(l->local_m * l->a_piece_cols + 1) * sizeof(float));
    l->b_piece = malloc((size_t)(l->b_piece_rows * l->local_n + 1) * sizeof(float));
    l->c_piece = malloc((size_t)(l->local_m * l->local_n + 1) * sizeof(float));
    l->a_strip = malloc((size_t)(l->local_m * s->k + 1) * sizeof(float));
    l->b_strip = malloc((size_t)(s->k * l->local_n + 1) * sizeof(float));
    l->a_panel = malloc((size_t)(l->local_m * block + 1) * sizeof(float));
    l->staging = malloc((size_t)(staging + 1) * sizeof(float));
    if (l->a_piece && l->b_piece && l->c_piece && l->a_strip && l->b_strip && l->a_panel && l->staging) return PARAC_OK;
    free_buffers(l);
    return parac_fail_no_memory(error, "gemm pieces and strips", (size_t)floats * sizeof(float));
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
                          const parac_gemm_options *local_options, float alpha, const float *a, const float *b,
                          float beta, float *c, mpi_gemm_info *info, parac_error *error)
{
    local_buffers l;
    parac_status status;
    double started, cpu_started;
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(info, 0, sizeof *info);
    info->device = PARAC_DEVICE_CPU;
    if ((status = allocate_buffers(grid, shape, rank, &l, error)) != PARAC_OK) return status;
    info->local_m = l.local_m;
    info->local_n = l.local_n;
    started = MPI_Wtime();
    block_cyclic_scatter(comm, grid, shape->m, shape->k, shape->block, a, l.a_piece, l.staging);
    block_cyclic_scatter(comm, grid, shape->k, shape->n, shape->block, b, l.b_piece, l.staging);
    if (beta != 0.0f) block_cyclic_scatter(comm, grid, shape->m, shape->n, shape->block, c, l.c_piece, l.staging);
    info->seconds_scatter = MPI_Wtime() - started;
    started = MPI_Wtime();
    info->bytes_broadcast = broadcast_panels(grid, shape, &l);
    info->seconds_broadcast = MPI_Wtime() - started;
    started = MPI_Wtime();
    cpu_started = cpu_seconds();
    status = multiply_locally(shape, local_options, alpha, beta, &l, info, error);
    info->cpu_seconds_multiply = cpu_seconds() - cpu_started;
    info->seconds_multiply = MPI_Wtime() - started;
    if (status == PARAC_OK) {
        started = MPI_Wtime();
        block_cyclic_gather(comm, grid, shape->m, shape->n, shape->block, l.c_piece, c, l.staging);
        info->seconds_gather = MPI_Wtime() - started;
    }
    free_buffers(&l);
    return status;
}

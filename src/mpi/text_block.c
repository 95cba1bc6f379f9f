/* mpi/text_block.c — a rank's block of rows of a text table, parsed from its own byte range of the
 * file, memory-mapped (text_block.h). */
#define _FILE_OFFSET_BITS 64
#include "mpi/text_block.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/csv.h"
#include "core/error.h"
#include "core/line_reader.h"
#include "core/matrix_file.h"
#include "core/text_pieces.h"

/* What a rank sees of the file; rank 0's view decides how every rank reads it. */
typedef struct file_view {
    uint64_t size;
    int whole; /* gzip, or not a regular file: every rank reads it whole */
} file_view;

static parac_status look_at_file(const char *path, int *fd, file_view *view, parac_error *error)
{
    struct stat info;
    unsigned char magic[2];
    *fd = open(path, O_RDONLY);
    /* the line reader's words, so that both programs say the same */
    if (*fd < 0) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    if (fstat(*fd, &info) != 0) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot stat: %s", strerror(errno));
    view->size = (uint64_t)info.st_size;
    view->whole = !S_ISREG(info.st_mode) || (pread(*fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
    return PARAC_OK;
}

static int all_succeeded(MPI_Comm comm, parac_status status)
{
    int mine = status == PARAC_OK, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

/* Whole-file fallback: parac_matrix_load on every rank, which keeps rows [first, first + count). */
static parac_status read_whole(const char *path, int ranks, int rank, mpi_points *points, parac_error *error)
{
    parac_matrix matrix;
    size_t row_bytes;
    parac_status status = parac_matrix_load(path, 0, &matrix, error);
    if (status != PARAC_OK) return status;
    points->f64 = 1;
    points->dim = matrix.cols;
    points->total = matrix.rows;
    points->first = mpi_block_first(matrix.rows, ranks, rank);
    points->count = (size_t)(mpi_block_first(matrix.rows, ranks, rank + 1) - points->first);
    row_bytes = matrix.cols * sizeof(double); /* the loaded table's size bounds it */
    points->values = malloc(points->count * row_bytes + 1);
    if (!points->values) status = parac_fail_no_memory(error, "points block", points->count * row_bytes);
    else if (points->count)
        memcpy(points->values, matrix.data + points->first * matrix.cols, points->count * row_bytes);
    parac_matrix_free(&matrix);
    return status;
}

/* The rows a table of `columns` values each grows by at first: 1024, or 1 MiB of them when rows are
 * wide (parac_matrix_load's rule). */
static size_t first_capacity(size_t columns)
{
    size_t rows = columns > 128 ? ((size_t)1 << 20) / (columns * sizeof(double)) : 1024;
    return rows ? rows : 1;
}

/* The rest of the piece's rows (parac_csv_piece_begin done) into points->values. */
static parac_status read_piece_rows(parac_csv_reader *csv, const char *path, mpi_points *points, parac_error *error)
{
    size_t columns = csv->columns, capacity = 0, got, bytes;
    double *values = NULL;
    parac_status status = PARAC_OK;
    for (;;) {
        if (points->count == capacity) {
            size_t bigger = capacity ? capacity * 2 : first_capacity(columns);
            double *grown;
            if (__builtin_mul_overflow(bigger, columns * sizeof(double), &bytes)) {
                status = parac_fail_at(error, PARAC_ERR_PARSE, path, 0,
                                       "the table is too large (%zu rows of %zu values)", bigger, columns);
                break;
            }
            if (!(grown = realloc(values, bytes + 1))) {
                status = parac_fail_no_memory(error, path, bytes);
                break;
            }
            values = grown;
            capacity = bigger;
        }
        status = parac_csv_read_rows(csv, values + points->count * columns, capacity - points->count, &got, error);
        if (status != PARAC_OK || got == 0) break;
        points->count += got;
    }
    points->values = values;
    return status;
}

/* One piece's parse, the shape agreed on between the ranks (text_block.h). Every rank takes part
 * in every collective whatever its status; a failed rank keeps its first error and reads no more. */
static parac_status parse_piece(MPI_Comm comm, const char *path, const unsigned char *bytes, uint64_t size,
                                parac_status status, mpi_points *points, parac_error *error)
{
    const parac_csv_options options = {PARAC_CSV_HEADER_AUTO, 0};
    parac_csv_reader csv;
    parac_csv_shape shape = {0, 0, 0};
    uint64_t start, end, newlines, lines_before = 0, shape_message[4] = {0, 0, 0, 0};
    int rank, ranks, has_content, candidate, decider;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    memset(&csv, 0, sizeof csv);
    start = parac_text_piece_start(bytes, size, (uint64_t)ranks, (uint64_t)rank);
    end = parac_text_piece_start(bytes, size, (uint64_t)ranks, (uint64_t)rank + 1);
    newlines = status == PARAC_OK ? parac_text_count_newlines(bytes + start, end - start) : 0;
    MPI_Exscan(&newlines, &lines_before, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0) lines_before = 0; /* MPI_Exscan leaves rank 0's undefined */
    if (status == PARAC_OK)
        status = parac_csv_open_piece(&csv, bytes + start, (size_t)(end - start), path, (long)(lines_before + 1),
                                      &options, error);
    /* The file's first content line is the first one of the lowest rank that has any; a rank that
     * failed before it has the file's first error, and no shape is needed. */
    has_content = status == PARAC_OK && !csv.at_end;
    candidate = has_content || status != PARAC_OK ? rank : ranks;
    MPI_Allreduce(&candidate, &decider, 1, MPI_INT, MPI_MIN, comm);
    if (rank == decider && status == PARAC_OK && (status = parac_csv_piece_shape(&csv, &shape, error)) == PARAC_OK) {
        shape_message[0] = 1;
        shape_message[1] = (uint64_t)(unsigned char)shape.delimiter;
        shape_message[2] = (uint64_t)shape.has_header;
        shape_message[3] = shape.columns;
    }
    if (decider < ranks) MPI_Bcast(shape_message, 4, MPI_UINT64_T, decider, comm);
    shape.delimiter = (char)shape_message[1];
    shape.has_header = (int)shape_message[2];
    shape.columns = (size_t)shape_message[3];
    if (status == PARAC_OK && has_content && shape_message[0]) {
        status = parac_csv_piece_begin(&csv, &shape, rank == decider, error);
        if (status == PARAC_OK) status = read_piece_rows(&csv, path, points, error);
    }
    parac_csv_close(&csv);
    points->f64 = 1;
    points->dim = shape.columns;
    return status;
}

/* Rows [from_first, from_first + from_count) and [to_first, to_first + to_count): how many rows
 * they share, and where that overlap starts in each. */
typedef struct row_overlap {
    uint64_t rows, at_from, at_to;
} row_overlap;

static row_overlap overlap_of(uint64_t from_first, uint64_t from_count, uint64_t to_first, uint64_t to_count)
{
    uint64_t low = from_first > to_first ? from_first : to_first;
    uint64_t high_from = from_first + from_count, high_to = to_first + to_count;
    uint64_t high = high_from < high_to ? high_from : high_to;
    row_overlap overlap = {0, 0, 0};
    if (high > low) {
        overlap.rows = high - low;
        overlap.at_from = low - from_first;
        overlap.at_to = low - to_first;
    }
    return overlap;
}

/* The pieces follow the bytes, so their row counts differ; the distributed algorithms and the
 * label writer take rank r's block to be rows mpi_block_first(total, R, r) on (npy_block.h). One
 * MPI_Alltoallv of whole rows moves every row to its block's rank, order kept. Collective; called
 * when every rank parsed its piece. */
static parac_status rebalance(MPI_Comm comm, const char *path, mpi_points *points, parac_error *error)
{
    int rank, ranks;
    uint64_t mine = points->count, *counts, first = 0, total = 0, source_first = 0, block_first, block_count;
    int *send_counts, *send_offsets, *recv_counts, *recv_offsets;
    double *block = NULL;
    parac_status status = PARAC_OK;
    MPI_Datatype row;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    counts = malloc((size_t)ranks * sizeof *counts);
    send_counts = malloc(4 * (size_t)ranks * sizeof *send_counts);
    if (!counts || !send_counts) status = parac_fail_no_memory(error, "row counts", (size_t)ranks * 24);
    if (!all_succeeded(comm, status)) goto done;
    send_offsets = send_counts + ranks, recv_counts = send_offsets + ranks, recv_offsets = recv_counts + ranks;
    MPI_Allgather(&mine, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, comm);
    for (int r = 0; r < ranks; r++) total += counts[r];
    for (int r = 0; r < rank; r++) first += counts[r];
    block_first = mpi_block_first(total, ranks, rank);
    block_count = mpi_block_first(total, ranks, rank + 1) - block_first;
    points->total = total;
    if (mine > INT32_MAX || block_count > INT32_MAX) /* MPI's int counts, in rows */
        status = parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, path, 0,
                               "blocks of more than 2^31 - 1 points; use more ranks");
    else if (!(block = malloc((size_t)block_count * points->dim * sizeof(double) + 1)))
        status = parac_fail_no_memory(error, "points block", (size_t)block_count * points->dim * sizeof(double));
    if (!all_succeeded(comm, status)) goto done;
    for (int r = 0; r < ranks; r++) {
        uint64_t target_first = mpi_block_first(total, ranks, r);
        row_overlap out = overlap_of(first, mine, target_first, mpi_block_first(total, ranks, r + 1) - target_first);
        row_overlap in = overlap_of(source_first, counts[r], block_first, block_count);
        send_counts[r] = (int)out.rows, send_offsets[r] = (int)out.at_from;
        recv_counts[r] = (int)in.rows, recv_offsets[r] = (int)in.at_to;
        source_first += counts[r];
    }
    if (points->dim && total) {
        MPI_Type_contiguous((int)points->dim, MPI_DOUBLE, &row);
        MPI_Type_commit(&row);
        MPI_Alltoallv(points->values, send_counts, send_offsets, row, block, recv_counts, recv_offsets, row, comm);
        MPI_Type_free(&row);
    }
    free(points->values);
    points->values = block;
    block = NULL;
    points->first = block_first;
    points->count = (size_t)block_count;
done:
    free(block);
    free(counts);
    free(send_counts);
    return status;
}

/* The mapped file's piece of this rank, then its block; status carries this rank's failure so far.
 * Collective. */
static parac_status read_mapped(MPI_Comm comm, const char *path, int fd, uint64_t size, parac_status status,
                                mpi_points *points, parac_error *error)
{
    void *map = NULL;
    if (status == PARAC_OK && size > 0) {
        map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            map = NULL;
            status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot map the file: %s", strerror(errno));
        }
    }
    status = parse_piece(comm, path, map, map ? size : 0, status, points, error);
    if (map) munmap(map, (size_t)size);
    if (!all_succeeded(comm, status)) return status;
    return rebalance(comm, path, points, error);
}

parac_status mpi_points_read_text(MPI_Comm comm, const char *path, mpi_points *points, parac_error *error)
{
    file_view mine = {0, 0}, view;
    int rank, ranks, fd = -1;
    parac_status status;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    memset(points, 0, sizeof *points);
    status = look_at_file(path, &fd, &mine, error);
    if (!all_succeeded(comm, status)) {
        if (fd >= 0) close(fd);
        return status;
    }
    view = mine;
    MPI_Bcast(&view, (int)sizeof view, MPI_BYTE, 0, comm);
    if (view.whole) {
        close(fd);
        status = read_whole(path, ranks, rank, points, error);
    } else {
        if (mine.whole || mine.size != view.size)
            status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "rank %d sees %llu bytes, rank 0 %llu: not one file",
                                   rank, (unsigned long long)mine.size, (unsigned long long)view.size);
        status = read_mapped(comm, path, fd, view.size, status, points, error);
        close(fd);
    }
    if (status != PARAC_OK) mpi_points_free(points);
    return status;
}

parac_status mpi_points_read(MPI_Comm comm, const char *path, mpi_points *points, parac_error *error)
{
    int rank, ranks;
    if (!parac_path_has_extension(path, ".npy")) return mpi_points_read_text(comm, path, points, error);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    return mpi_points_read_block(path, ranks, rank, points, error);
}

/* mpi/label_output.c — labels from the ranks' blocks into one file (label_output.h). */
#include "mpi/label_output.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/matrix_file.h"
#include "mpi/mpi_cli.h"

static int is_npy_path(const char *path)
{
    size_t length = strlen(path);
    return length >= 4 && strcmp(path + length - 4, ".npy") == 0;
}

/* This block as text, one value a line ("%d\n", as parac_labels_save writes). */
static char *format_block(const int32_t *values, size_t count, size_t *length)
{
    char *text = malloc(count * 12 + 1);
    size_t at = 0;
    if (!text) return NULL;
    for (size_t i = 0; i < count; i++) at += (size_t)snprintf(text + at, 13, "%d\n", values[i]);
    *length = at;
    return text;
}

/* Every rank writes its block's lines at its byte offset (MPI_Exscan of the lengths) into the file
 * rank 0 reserved: nothing is gathered. Not collective in its failures: the caller agrees. */
static parac_status write_text_in_parallel(MPI_Comm comm, const char *path, const int32_t *values, size_t count,
                                           parac_error *error)
{
    size_t length = 0;
    char *text = format_block(values, count, &length);
    unsigned long long mine = text ? length : 0, offset = 0;
    int rank, opened;
    MPI_File file;
    parac_status status = text ? PARAC_OK : parac_fail_no_memory(error, "labels text", count * 12);
    MPI_Comm_rank(comm, &rank);
    MPI_Exscan(&mine, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    if (rank == 0) offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
    opened = MPI_File_open(comm, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &file) == MPI_SUCCESS;
    if (!opened && status == PARAC_OK) status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "MPI cannot open it for writing");
    for (size_t done = 0; opened && status == PARAC_OK && done < length;) {
        size_t piece = length - done < (size_t)INT_MAX ? length - done : (size_t)INT_MAX;
        if (MPI_File_write_at(file, (MPI_Offset)(offset + done), text + done, (int)piece, MPI_BYTE, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed");
        done += piece;
    }
    if (opened && MPI_File_close(&file) != MPI_SUCCESS && status == PARAC_OK)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "close failed");
    free(text);
    return status;
}

/* Rank 0 receives every block's values in rank order (a block is at most 2^31 - 1 points: checked
 * after reading) and saves them as parac_labels_save does (.npy int32 or text). */
static parac_status write_gathered(MPI_Comm comm, const char *path, const mpi_points *block, const int32_t *values,
                                   parac_error *error)
{
    int rank, ranks;
    int32_t *all = NULL;
    parac_status status = PARAC_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if (rank != 0) {
        MPI_Send(values, (int)block->count, MPI_INT32_T, 0, 1, comm);
        return PARAC_OK;
    }
    all = malloc((size_t)block->total * sizeof(int32_t) + 1);
    if (!all) { /* the other ranks are sending: end the job */
        parac_fail_no_memory(error, "gathered labels", block->total * 4);
        mpi_cli_abort(comm, error);
    }
    memcpy(all, values, block->count * sizeof(int32_t));
    for (int r = 1; r < ranks; r++) {
        uint64_t first = mpi_block_first(block->total, ranks, r);
        int count = (int)(mpi_block_first(block->total, ranks, r + 1) - first);
        MPI_Recv(all + first, count, MPI_INT32_T, r, 1, comm, MPI_STATUS_IGNORE);
    }
    status = parac_labels_save(path, all, (size_t)block->total, error);
    free(all);
    return status;
}

int mpi_labels_write(MPI_Comm comm, const char *target, const mpi_points *block, const int32_t *values,
                     cli_output *output, parac_error *error)
{
    int rank, parallel = 0, code;
    char path[sizeof output->temporary];
    MPI_Comm_rank(comm, &rank);
    memset(output, 0, sizeof *output);
    if (rank == 0 && cli_output_begin(output, target, error) == PARAC_OK) {
        parallel = output->renames && !is_npy_path(target);
        snprintf(path, sizeof path, "%s", output->path);
    }
    if ((code = mpi_cli_agree(comm, error)) != 0) return code;
    MPI_Bcast(&parallel, 1, MPI_INT, 0, comm);
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, comm);
    if (parallel) write_text_in_parallel(comm, path, values, block->count, error);
    else write_gathered(comm, path, block, values, error);
    code = mpi_cli_agree(comm, error);
    if (code != 0 && rank == 0) cli_output_abort(output, NULL);
    return code;
}

int mpi_outputs_finish(MPI_Comm comm, cli_output *outputs, int count, int code, parac_error *error)
{
    int rank, commit_failed = 0;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; rank == 0 && i < count; i++) {
        if (code == 0 && !commit_failed && outputs[i].given && cli_output_commit(&outputs[i], error) != PARAC_OK)
            commit_failed = 1;
        if (code != 0 || commit_failed) cli_output_abort(&outputs[i], NULL); /* safe on zeroed or committed ones */
    }
    return code != 0 ? code : mpi_cli_agree(comm, error); /* a code passed in is already every rank's */
}

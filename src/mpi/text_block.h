/* mpi/text_block.h — each rank parses its own byte range of a text points file (CSV, TSV,
 * whitespace; docs/INPUT.md), and mpi_points_read, which picks the .npy or the text reader.
 *
 * Rank r of R takes the bytes [r*size/R, (r+1)*size/R), its start moved on to the first line start
 * at or after that boundary (rank 0 starts at 0) and its end to the end of the line crossing its
 * end: the ranks' pieces are consecutive runs of whole lines, some possibly empty. Each rank parses
 * its lines with core/csv.c's own code (parac_csv_open_piece); its first line number and its first
 * row come from MPI_Exscan of the newline and row counts. The shape of the table (delimiter, header,
 * columns) is what the file's first content line says, decided by the lowest rank that holds a
 * content line and broadcast. The result is the .npy block reader's form (mpi/npy_block.h): a block
 * of consecutive rows in file order, float64, so the distributed algorithms are unchanged; the
 * blocks may differ in size (they follow the bytes, not the rows).
 *
 * Errors are `parac dbscan`'s words with the global line and column; each rank stops at its first,
 * so the lowest failing rank (mpi_cli_agree) holds the file's first bad line.
 *
 * A gzip file (by its magic bytes, as zlib decides) or a file that is not a regular file cannot be
 * cut by bytes: every rank then reads it whole through parac_matrix_load (the same bytes and
 * errors as one process) and keeps its block of floor(n/R) or ceil(n/R) rows. That costs each rank
 * the decompression and, for a moment, the whole table in memory. */
#ifndef PARAC_MPI_TEXT_BLOCK_H
#define PARAC_MPI_TEXT_BLOCK_H

#include <mpi.h>

#include <parac/status.h>

#include "mpi/npy_block.h"

/* Rank `rank`'s block of the text table at path. Collective over comm (every rank calls it, and
 * every rank returns; the caller agrees on the errors with mpi_cli_agree). Empty files and files of
 * comments give total 0. */
parac_status mpi_points_read_text(MPI_Comm comm, const char *path, mpi_points *points, parac_error *error);

/* A .npy file (by extension, as parac_matrix_load decides) through mpi_points_read_block, anything
 * else through mpi_points_read_text. Collective. */
parac_status mpi_points_read(MPI_Comm comm, const char *path, mpi_points *points, parac_error *error);

#endif

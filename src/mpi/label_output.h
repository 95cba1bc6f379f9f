/* mpi/label_output.h — one value per input point, written from the ranks' blocks (label_output.c).
 *
 * Each output file is written whole or not at all, as `parac` writes it: rank 0 reserves a
 * temporary file beside the target (cli_output_begin); a text file is written there in parallel
 * (every rank formats its block, MPI_Exscan of the byte lengths gives its offset, MPI_File_write_at
 * writes it), a .npy file, stdout or a device is gathered on rank 0 (point-to-point, in rank order)
 * and saved by parac_labels_save. The caller commits (renames) it when every output succeeded.
 */
#ifndef PARAC_MPI_LABEL_OUTPUT_H
#define PARAC_MPI_LABEL_OUTPUT_H

#include <mpi.h>
#include <stdint.h>

#include <parac/status.h>

#include "cli/cli.h"
#include "mpi/npy_block.h"

/* Collective. Writes every rank's block of values (block->count of them) to a temporary file
 * for target that rank 0 reserves in *output. Returns the agreed exit code (mpi_cli_agree): 0 when
 * written (rank 0 then holds *output, to commit or abort: mpi_outputs_finish); otherwise the
 * temporary file is already removed. A block is at most 2^31 - 1 points (the caller checks). */
int mpi_labels_write(MPI_Comm comm, const char *target, const mpi_points *block, const int32_t *values,
                     cli_output *output, parac_error *error);

/* Collective. code (an exit code every rank agreed on) 0: rank 0 commits outputs[0..count-1] in turn
 * (renames each over its target) and returns the agreed code of the commits; once a commit fails, or
 * when code is not 0, it removes the temporary files not yet committed. A zeroed cli_output (an
 * output not asked for) is skipped. */
int mpi_outputs_finish(MPI_Comm comm, cli_output *outputs, int count, int code, parac_error *error);

#endif

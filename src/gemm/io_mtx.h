/* gemm/io_mtx.h — the reader behind parac_gemm_matrix_read over a file or a buffer (core/input.h):
 * the format is chosen by the input's name (.mtx Matrix Market, .npy), with the same checks and
 * messages either way. Internal: the fuzz target reads from memory through it. */
#ifndef PARAC_GEMM_IO_MTX_H
#define PARAC_GEMM_IO_MTX_H

#include <parac/gemm.h>

#include "core/input.h"

/* max_values caps rows x cols of a Matrix Market file, which the reader holds densely (a .npy array is
 * bounded by its own bytes): parac_gemm_matrix_read passes PARAC_GEMM_MAX_FILE_VALUES, the fuzz target a
 * lower limit so that a short input cannot ask for gigabytes of zeroed (and, under ASan, shadowed) memory. */
parac_status gemm_matrix_read_input(const parac_input *input, uint64_t max_values, parac_gemm_matrix *matrix,
                                    parac_error *error);

#endif

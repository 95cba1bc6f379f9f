/* gemm/io_mtx.h — the reader behind parac_gemm_matrix_read over a file or a buffer (core/input.h):
 * the format is chosen by the input's name (.mtx Matrix Market, .npy), with the same checks and
 * messages either way. Internal: the fuzz target reads from memory through it. */
#ifndef PARAC_GEMM_IO_MTX_H
#define PARAC_GEMM_IO_MTX_H

#include <parac/gemm.h>

#include "core/input.h"

parac_status gemm_matrix_read_input(const parac_input *input, parac_gemm_matrix *matrix, parac_error *error);

#endif

/* cuda/cub_wrappers.h — C entry points for the CUB device-wide primitives.
 *
 * Modules call these instead of including CUB, so CUB is compiled once (in
 * cub_wrappers.cu) and every module's kernels stay plain C-style CUDA.
 * All pointers are device pointers; work runs on the context's stream; temp
 * storage comes from the context's pool. Functions that return a count
 * (number of runs) synchronize the stream to read it.
 */
#ifndef PARAC_CUDA_CUB_WRAPPERS_H
#define PARAC_CUDA_CUB_WRAPPERS_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#include "cuda/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Radix sort of (key, value) pairs by key, stable, bits [0, end_bit) of the key.
 * end_bit <= 0 means all bits. Input and output buffers must differ. */
parac_status parac_cub_sort_pairs_u32_u32(parac_cuda_context *context, const uint32_t *keys_in, uint32_t *keys_out,
                                          const uint32_t *values_in, uint32_t *values_out, size_t count, int end_bit,
                                          parac_error *error);
parac_status parac_cub_sort_pairs_u64_u32(parac_cuda_context *context, const uint64_t *keys_in, uint64_t *keys_out,
                                          const uint32_t *values_in, uint32_t *values_out, size_t count, int end_bit,
                                          parac_error *error);

/* out[i] = sum of in[0..i-1]; in == out is allowed. */
parac_status parac_cub_exclusive_sum_u32(parac_cuda_context *context, const uint32_t *in, uint32_t *out, size_t count,
                                         parac_error *error);
parac_status parac_cub_exclusive_sum_u64(parac_cuda_context *context, const uint64_t *in, uint64_t *out, size_t count,
                                         parac_error *error);

/* Runs of equal consecutive keys: unique key and sum of values per run. */
parac_status parac_cub_reduce_by_key_sum_u32_i32(parac_cuda_context *context, const uint32_t *keys_in,
                                                 uint32_t *unique_out, const int32_t *values_in, int32_t *sums_out,
                                                 size_t count, size_t *run_count, parac_error *error);

/* Runs of equal consecutive keys: unique key and run length. */
parac_status parac_cub_run_length_encode_u64(parac_cuda_context *context, const uint64_t *keys_in,
                                             uint64_t *unique_out, uint32_t *lengths_out, size_t count,
                                             size_t *run_count, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

/* cuda/cub_wrappers.cu — the only file that includes CUB.
 *
 * Each wrapper follows CUB's two-phase protocol: ask for the temp-storage
 * size, take it from the stream-ordered pool, run, give it back. Templates
 * below keep that protocol in one place; the extern "C" functions only pick
 * types. Only the wrappers some module calls are here (dbscan, birch, ac); add
 * one beside its template when a module needs another type or primitive.
 */
#include "cuda/cub_wrappers.h"

#include <cub/cub.cuh>

#include "cuda/cuda_check.h"

namespace {

cudaStream_t stream_of(parac_cuda_context *context) { return (cudaStream_t)context->stream; }

/* Runs `op(temp, temp_bytes)` twice: once to size, once for real. */
template <typename Op>
parac_status run_with_temp(parac_cuda_context *context, parac_error *error, Op op)
{
    parac_status status = PARAC_OK;
    size_t temp_bytes = 0;
    void *temp = NULL;
    PARAC_CUDA_TRY(op((void *)NULL, temp_bytes));
    PARAC_TRY(parac_cuda_alloc(context, &temp, temp_bytes, error));
    PARAC_CUDA_TRY(op(temp, temp_bytes));
    PARAC_CUDA_TRY(cudaGetLastError());
fail:
    parac_cuda_free(context, temp);
    return status;
}

/* Reads a single device-side count back to the host. */
template <typename T>
parac_status read_back(parac_cuda_context *context, const T *device_value, T *host_value, parac_error *error)
{
    return parac_cuda_download(context, host_value, device_value, sizeof(T), error);
}

template <typename K, typename V>
parac_status sort_pairs(parac_cuda_context *context, const K *keys_in, K *keys_out, const V *values_in, V *values_out,
                        size_t count, int end_bit, parac_error *error)
{
    int bits = end_bit > 0 ? end_bit : (int)(sizeof(K) * 8);
    if (count == 0) return PARAC_OK;
    return run_with_temp(context, error, [&](void *temp, size_t &bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, count, 0, bits,
                                               stream_of(context));
    });
}

template <typename T>
parac_status exclusive_sum(parac_cuda_context *context, const T *in, T *out, size_t count, parac_error *error)
{
    if (count == 0) return PARAC_OK;
    return run_with_temp(context, error, [&](void *temp, size_t &bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, count, stream_of(context));
    });
}

template <typename K, typename V>
parac_status reduce_by_key_sum(parac_cuda_context *context, const K *keys_in, K *unique_out, const V *values_in,
                               V *sums_out, size_t count, size_t *run_count, parac_error *error)
{
    parac_status status = PARAC_OK;
    uint64_t *device_runs = NULL, host_runs = 0;
    *run_count = 0;
    if (count == 0) return PARAC_OK;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_runs, sizeof *device_runs, error));
    PARAC_TRY(run_with_temp(context, error, [&](void *temp, size_t &bytes) {
        return cub::DeviceReduce::ReduceByKey(temp, bytes, keys_in, unique_out, values_in, sums_out, device_runs,
                                              ::cuda::std::plus<V>(), count, stream_of(context));
    }));
    PARAC_TRY(read_back(context, device_runs, &host_runs, error));
    *run_count = (size_t)host_runs;
fail:
    parac_cuda_free(context, device_runs);
    return status;
}

} // namespace

extern "C" {

parac_status parac_cub_sort_pairs_u32_u32(parac_cuda_context *context, const uint32_t *keys_in, uint32_t *keys_out,
                                          const uint32_t *values_in, uint32_t *values_out, size_t count, int end_bit,
                                          parac_error *error)
{
    return sort_pairs(context, keys_in, keys_out, values_in, values_out, count, end_bit, error);
}

parac_status parac_cub_sort_pairs_u64_u32(parac_cuda_context *context, const uint64_t *keys_in, uint64_t *keys_out,
                                          const uint32_t *values_in, uint32_t *values_out, size_t count, int end_bit,
                                          parac_error *error)
{
    return sort_pairs(context, keys_in, keys_out, values_in, values_out, count, end_bit, error);
}

parac_status parac_cub_exclusive_sum_u32(parac_cuda_context *context, const uint32_t *in, uint32_t *out, size_t count,
                                         parac_error *error)
{
    return exclusive_sum(context, in, out, count, error);
}

parac_status parac_cub_exclusive_sum_u64(parac_cuda_context *context, const uint64_t *in, uint64_t *out, size_t count,
                                         parac_error *error)
{
    return exclusive_sum(context, in, out, count, error);
}

parac_status parac_cub_reduce_by_key_sum_u32_i32(parac_cuda_context *context, const uint32_t *keys_in,
                                                 uint32_t *unique_out, const int32_t *values_in, int32_t *sums_out,
                                                 size_t count, size_t *run_count, parac_error *error)
{
    return reduce_by_key_sum(context, keys_in, unique_out, values_in, sums_out, count, run_count, error);
}

parac_status parac_cub_run_length_encode_u64(parac_cuda_context *context, const uint64_t *keys_in,
                                             uint64_t *unique_out, uint32_t *lengths_out, size_t count,
                                             size_t *run_count, parac_error *error)
{
    parac_status status = PARAC_OK;
    uint64_t *device_runs = NULL, host_runs = 0;
    *run_count = 0;
    if (count == 0) return PARAC_OK;
    PARAC_TRY(parac_cuda_alloc(context, (void **)&device_runs, sizeof *device_runs, error));
    PARAC_TRY(run_with_temp(context, error, [&](void *temp, size_t &bytes) {
        return cub::DeviceRunLengthEncode::Encode(temp, bytes, keys_in, unique_out, lengths_out, device_runs, count,
                                                  stream_of(context));
    }));
    PARAC_TRY(read_back(context, device_runs, &host_runs, error));
    *run_count = (size_t)host_runs;
fail:
    parac_cuda_free(context, device_runs);
    return status;
}

} // extern "C"

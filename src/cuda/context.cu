/* cuda/context.cu — device selection, stream and memory pool. */
#include "cuda/context.h"

#include <string.h>

#include "cuda/cuda_check.h"

extern "C" parac_status parac_cuda_context_create(int ordinal, parac_cuda_context *context, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = NULL;
    cudaMemPool_t pool;
    int multiprocessors = 0, shared_optin = 0, l2_bytes = 0, major = 0, minor = 0;
    uint64_t keep_everything = UINT64_MAX;
    memset(context, 0, sizeof *context);
    PARAC_CUDA_TRY(cudaSetDevice(ordinal));
    /* Single attributes, not cudaGetDeviceProperties: that fills hundreds of fields
     * and costs far more than everything else a short call does. */
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, ordinal));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, ordinal));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal));
    PARAC_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PARAC_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, ordinal));
    /* Keep freed blocks in the pool between chunks instead of returning them at every sync. */
    PARAC_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
    context->ordinal = ordinal;
    context->stream = stream;
    context->pool = pool;
    context->multiprocessors = multiprocessors;
    context->shared_memory_per_block_optin = (size_t)shared_optin;
    context->l2_bytes = (size_t)l2_bytes;
    context->compute_major = major;
    context->compute_minor = minor;
    return PARAC_OK;
fail:
    if (stream) cudaStreamDestroy(stream);
    return status;
}

extern "C" void parac_cuda_context_destroy(parac_cuda_context *context)
{
    if (!context->stream) return;
    cudaStreamSynchronize((cudaStream_t)context->stream);
    cudaMemPoolTrimTo((cudaMemPool_t)context->pool, 0);
    cudaStreamDestroy((cudaStream_t)context->stream);
    context->stream = NULL;
}

extern "C" parac_status parac_cuda_alloc(parac_cuda_context *context, void **pointer, size_t bytes, parac_error *error)
{
    *pointer = NULL;
    if (bytes == 0) bytes = 1;
    PARAC_CUDA_RETURN(cudaMallocAsync(pointer, bytes, (cudaStream_t)context->stream));
    return PARAC_OK;
}

extern "C" void parac_cuda_free(parac_cuda_context *context, void *pointer)
{
    if (pointer) cudaFreeAsync(pointer, (cudaStream_t)context->stream);
}

extern "C" parac_status parac_cuda_upload(parac_cuda_context *context, void *device_dst, const void *host_src,
                                          size_t bytes, parac_error *error)
{
    if (!bytes) return PARAC_OK;
    PARAC_CUDA_RETURN(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)context->stream));
    return PARAC_OK;
}

extern "C" parac_status parac_cuda_download(parac_cuda_context *context, void *host_dst, const void *device_src,
                                            size_t bytes, parac_error *error)
{
    if (!bytes) return PARAC_OK;
    PARAC_CUDA_RETURN(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)context->stream));
    PARAC_CUDA_RETURN(cudaStreamSynchronize((cudaStream_t)context->stream));
    return PARAC_OK;
}

extern "C" parac_status parac_cuda_memset(parac_cuda_context *context, void *device_dst, int value, size_t bytes,
                                          parac_error *error)
{
    if (!bytes) return PARAC_OK;
    PARAC_CUDA_RETURN(cudaMemsetAsync(device_dst, value, bytes, (cudaStream_t)context->stream));
    return PARAC_OK;
}

extern "C" parac_status parac_cuda_synchronize(parac_cuda_context *context, parac_error *error)
{
    PARAC_CUDA_RETURN(cudaStreamSynchronize((cudaStream_t)context->stream));
    PARAC_CUDA_RETURN(cudaGetLastError());
    return PARAC_OK;
}

extern "C" parac_status parac_cuda_memory_info(parac_cuda_context *context, size_t *free_bytes, size_t *total_bytes,
                                               parac_error *error)
{
    size_t reserved = 0, used = 0;
    PARAC_CUDA_RETURN(cudaMemGetInfo(free_bytes, total_bytes));
    /* Memory the pool holds but has not handed out is free for our purposes. */
    if (context && context->pool) {
        PARAC_CUDA_RETURN(cudaMemPoolGetAttribute((cudaMemPool_t)context->pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
        PARAC_CUDA_RETURN(cudaMemPoolGetAttribute((cudaMemPool_t)context->pool, cudaMemPoolAttrUsedMemCurrent, &used));
        if (reserved > used) *free_bytes += reserved - used;
    }
    return PARAC_OK;
}

/* cuda/context.cu — device selection, stream and memory pool. */
#include "cuda/context.h"

#include <pthread.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/device_facts.h"

/* The library's own memory pool on each device, made at the first context there and kept for the
 * process (never the device's default pool, which belongs to the caller). Keeping it is what makes
 * repeated calls from one process cheap: a fresh pool maps new device memory for every allocation,
 * which cost a 1 M-point dbscan from Python about as much as the clustering. Between calls the pool
 * keeps at most POOL_KEPT_BETWEEN_CALLS bytes reserved (parac_cuda_context_destroy trims it); a run
 * still sees every byte of the device (parac_cuda_memory_info counts the pool's unused bytes as free).
 * Like the CUDA runtime's primary context, this is a per-process resource, not behaviour: no result
 * depends on it. */
#define POOL_KEPT_BETWEEN_CALLS ((size_t)256 << 20)
#define POOL_DEVICES 64

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaMemPool_t pools[POOL_DEVICES];

static cudaError_t create_pool(int ordinal, cudaMemPool_t *pool)
{
    cudaMemPoolProps properties;
    uint64_t keep_everything = UINT64_MAX;
    cudaError_t code;
    memset(&properties, 0, sizeof properties);
    properties.allocType = cudaMemAllocationTypePinned;
    properties.handleTypes = cudaMemHandleTypeNone;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = ordinal;
    code = cudaMemPoolCreate(pool, &properties);
    if (code != cudaSuccess) return code;
    /* Freed blocks stay reserved during a run (no release at every stream synchronisation). */
    code = cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep_everything);
    if (code != cudaSuccess) cudaMemPoolDestroy(*pool);
    return code;
}

/* The process's pool on `ordinal` (made on first use). Ordinals past POOL_DEVICES are refused. */
static cudaError_t library_pool(int ordinal, cudaMemPool_t *pool)
{
    cudaError_t code = cudaSuccess;
    if (ordinal < 0 || ordinal >= POOL_DEVICES) return cudaErrorInvalidDevice;
    pthread_mutex_lock(&pool_lock);
    if (!pools[ordinal]) code = create_pool(ordinal, &pools[ordinal]);
    *pool = pools[ordinal];
    pthread_mutex_unlock(&pool_lock);
    return code;
}

extern "C" parac_status parac_cuda_context_create(int ordinal, parac_cuda_context *context, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = NULL;
    cudaMemPool_t pool = NULL;
    parac_cuda_device_facts facts;
    int caller_device = 0;
    memset(context, 0, sizeof *context);
    PARAC_CUDA_RETURN(cudaGetDevice(&caller_device));
    if ((status = parac_cuda_device_facts_get(ordinal, &facts, error)) != PARAC_OK) return status;
    PARAC_CUDA_TRY(cudaSetDevice(ordinal));
    PARAC_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PARAC_CUDA_TRY(library_pool(ordinal, &pool));
    context->ordinal = ordinal;
    context->stream = stream;
    context->pool = pool;
    context->multiprocessors = facts.multiprocessors;
    context->shared_memory_per_block_optin = facts.shared_memory_per_block_optin;
    context->l2_bytes = facts.l2_bytes;
    context->compute_major = facts.compute_major;
    context->compute_minor = facts.compute_minor;
    context->caller_device = caller_device;
    return PARAC_OK;
fail:
    if (stream) cudaStreamDestroy(stream);
    cudaSetDevice(caller_device);
    return status;
}

extern "C" void parac_cuda_context_destroy(parac_cuda_context *context)
{
    if (!context->stream) return;
    cudaSetDevice(context->ordinal);
    cudaStreamSynchronize((cudaStream_t)context->stream);
    cudaMemPoolTrimTo((cudaMemPool_t)context->pool, POOL_KEPT_BETWEEN_CALLS);
    cudaStreamDestroy((cudaStream_t)context->stream);
    cudaSetDevice(context->caller_device);
    context->stream = NULL;
}

extern "C" parac_status parac_cuda_alloc(parac_cuda_context *context, void **pointer, size_t bytes, parac_error *error)
{
    *pointer = NULL;
    if (bytes == 0) bytes = 1;
    PARAC_CUDA_RETURN(cudaMallocFromPoolAsync(pointer, bytes, (cudaMemPool_t)context->pool, (cudaStream_t)context->stream));
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

extern "C" int parac_cuda_current_device(void)
{
    int device = -1;
    return cudaGetDevice(&device) == cudaSuccess ? device : -1;
}

extern "C" void parac_cuda_make_current(int ordinal)
{
    if (ordinal >= 0) cudaSetDevice(ordinal);
}

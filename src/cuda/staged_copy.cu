/* cuda/staged_copy.cu — see staged_copy.h. */
#include "cuda/staged_copy.h"

#include <pthread.h>
#include <string.h>

#include "core/parallel_copy.h"
#include "cuda/cuda_check.h"

/* Four 16 MiB pieces in flight: enough to keep the copy engine busy while the host copies the next
 * one, small enough to pin quickly. */
#define RING_SLOTS 4
#define RING_SLOT_BYTES ((size_t)16 << 20)

/* The pinned ring is kept for the process once made (pinning 64 MiB costs milliseconds that a repeated
 * call from Python should not pay again), like the memory pool in context.cu: a per-process resource,
 * never behaviour. A call that finds it taken by another thread pins a ring of its own for that call. */
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static char *kept_ring;

typedef struct staging_ring {
    char *bytes;
    int kept; /* the process's ring (unlock at the end), else this call's own (free at the end) */
    cudaEvent_t slot_done[RING_SLOTS];
} staging_ring;

static cudaError_t ring_take(staging_ring *ring)
{
    cudaError_t code = cudaSuccess;
    memset(ring, 0, sizeof *ring);
    if (pthread_mutex_trylock(&ring_lock) == 0) {
        if (!kept_ring) code = cudaHostAlloc((void **)&kept_ring, RING_SLOTS * RING_SLOT_BYTES, cudaHostAllocPortable);
        if (code == cudaSuccess) {
            ring->bytes = kept_ring;
            ring->kept = 1;
        } else {
            kept_ring = NULL;
            pthread_mutex_unlock(&ring_lock);
            return code;
        }
    } else if ((code = cudaHostAlloc((void **)&ring->bytes, RING_SLOTS * RING_SLOT_BYTES, cudaHostAllocPortable)) !=
               cudaSuccess) {
        ring->bytes = NULL;
        return code;
    }
    for (int s = 0; s < RING_SLOTS && code == cudaSuccess; s++)
        code = cudaEventCreateWithFlags(&ring->slot_done[s], cudaEventDisableTiming);
    return code;
}

static void ring_give_back(staging_ring *ring)
{
    for (int s = 0; s < RING_SLOTS; s++)
        if (ring->slot_done[s]) cudaEventDestroy(ring->slot_done[s]);
    if (ring->kept) pthread_mutex_unlock(&ring_lock);
    else if (ring->bytes) cudaFreeHost(ring->bytes);
    ring->bytes = NULL;
}

static size_t piece_bytes(size_t bytes, size_t offset)
{
    return bytes - offset < RING_SLOT_BYTES ? bytes - offset : RING_SLOT_BYTES;
}

extern "C" parac_status parac_cuda_upload_staged(parac_cuda_context *context, void *device_dst, const void *host_src,
                                                 size_t bytes, int threads, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)context->stream;
    staging_ring ring;
    size_t offset = 0;
    memset(&ring, 0, sizeof ring);
    if (bytes < PARAC_STAGED_COPY_MIN_BYTES) {
        if ((status = parac_cuda_upload(context, device_dst, host_src, bytes, error)) != PARAC_OK) return status;
        return parac_cuda_synchronize(context, error);
    }
    PARAC_CUDA_TRY(ring_take(&ring));
    for (size_t piece = 0; offset < bytes; piece++) {
        int slot = (int)(piece % RING_SLOTS);
        size_t length = piece_bytes(bytes, offset);
        char *staging = ring.bytes + (size_t)slot * RING_SLOT_BYTES;
        if (piece >= RING_SLOTS) PARAC_CUDA_TRY(cudaEventSynchronize(ring.slot_done[slot])); /* its last DMA is done */
        parac_parallel_copy(staging, (const char *)host_src + offset, length, threads);
        PARAC_CUDA_TRY(cudaMemcpyAsync((char *)device_dst + offset, staging, length, cudaMemcpyHostToDevice, stream));
        PARAC_CUDA_TRY(cudaEventRecord(ring.slot_done[slot], stream));
        offset += length;
    }
    PARAC_CUDA_TRY(cudaStreamSynchronize(stream)); /* the ring is free again only when every piece has landed */
fail:
    if (status != PARAC_OK) cudaStreamSynchronize(stream);
    ring_give_back(&ring);
    return status;
}

extern "C" parac_status parac_cuda_download_staged(parac_cuda_context *context, void *host_dst, const void *device_src,
                                                   size_t bytes, int threads, parac_error *error)
{
    parac_status status = PARAC_OK;
    cudaStream_t stream = (cudaStream_t)context->stream;
    staging_ring ring;
    size_t issued = 0, copied = 0;
    memset(&ring, 0, sizeof ring);
    if (bytes < PARAC_STAGED_COPY_MIN_BYTES) return parac_cuda_download(context, host_dst, device_src, bytes, error);
    PARAC_CUDA_TRY(ring_take(&ring));
    /* Piece p travels in slot p % RING_SLOTS: up to RING_SLOTS pieces are in flight ahead of the host copy. */
    for (size_t piece = 0; issued < bytes && piece < RING_SLOTS; piece++) {
        size_t length = piece_bytes(bytes, issued);
        PARAC_CUDA_TRY(cudaMemcpyAsync(ring.bytes + piece * RING_SLOT_BYTES, (const char *)device_src + issued, length,
                                       cudaMemcpyDeviceToHost, stream));
        PARAC_CUDA_TRY(cudaEventRecord(ring.slot_done[piece], stream));
        issued += length;
    }
    for (size_t piece = 0; copied < bytes; piece++) {
        int slot = (int)(piece % RING_SLOTS);
        size_t length = piece_bytes(bytes, copied);
        char *staging = ring.bytes + (size_t)slot * RING_SLOT_BYTES;
        PARAC_CUDA_TRY(cudaEventSynchronize(ring.slot_done[slot]));
        parac_parallel_copy((char *)host_dst + copied, staging, length, threads);
        copied += length;
        if (issued < bytes) { /* the slot is free: the piece RING_SLOTS ahead goes into it */
            size_t next = piece_bytes(bytes, issued);
            PARAC_CUDA_TRY(cudaMemcpyAsync(staging, (const char *)device_src + issued, next, cudaMemcpyDeviceToHost, stream));
            PARAC_CUDA_TRY(cudaEventRecord(ring.slot_done[slot], stream));
            issued += next;
        }
    }
fail:
    if (status != PARAC_OK) cudaStreamSynchronize(stream);
    ring_give_back(&ring);
    return status;
}

/* cuda/context.h — one GPU, one stream, one stream-ordered memory pool.
 *
 * Every CUDA path takes a parac_cuda_context. Device memory comes from the
 * library's own memory pool on that device (cudaMemPoolCreate, one per device,
 * made at the first context and kept for the process; it keeps what it frees
 * during a run, and at most 256 MiB between runs) through cudaMallocFromPoolAsync
 * on the context's stream, so repeated allocations of chunk buffers, and repeated
 * calls from one process, reuse memory instead of mapping it again each time. The device's default pool, which the caller's
 * own cudaMallocAsync uses, is never configured or trimmed by parac.
 * Creating a context makes its device current; destroying it makes the caller's
 * previous device current again (a run that creates and destroys its context
 * leaves the process's current device as it found it). Device properties come
 * from a per-process cache (device_facts.h). Include only from .cu files or
 * from C files compiled when PARAC_HAVE_CUDA is defined.
 */
#ifndef PARAC_CUDA_CONTEXT_H
#define PARAC_CUDA_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac_cuda_context {
    int ordinal;
    void *stream;          /* cudaStream_t */
    void *pool;            /* cudaMemPool_t */
    int multiprocessors;
    size_t shared_memory_per_block_optin;
    size_t l2_bytes;
    int compute_major;
    int compute_minor;
    int caller_device;     /* the current device before create; current again after destroy */
} parac_cuda_context;

parac_status parac_cuda_context_create(int ordinal, parac_cuda_context *context, parac_error *error);
/* Waits for the stream, trims the pool to what it keeps between runs (the rest goes back to the
 * device), destroys the stream, and makes the caller's previous device current again. */
void parac_cuda_context_destroy(parac_cuda_context *context);

/* The current device (-1 when CUDA cannot say) and making one current again (-1 ignored): for C
 * code that keeps a context across calls (cuda/device_guard.cuh is the C++ form). */
int parac_cuda_current_device(void);
void parac_cuda_make_current(int ordinal);

/* Stream-ordered allocation; PARAC_ERR_NO_MEMORY when the device is full. */
parac_status parac_cuda_alloc(parac_cuda_context *context, void **pointer, size_t bytes, parac_error *error);
/* Stream-ordered free; NULL is ignored. */
void parac_cuda_free(parac_cuda_context *context, void *pointer);

/* Copies and fills on the context's stream (asynchronous unless noted). */
parac_status parac_cuda_upload(parac_cuda_context *context, void *device_dst, const void *host_src, size_t bytes,
                               parac_error *error);
parac_status parac_cuda_download(parac_cuda_context *context, void *host_dst, const void *device_src, size_t bytes,
                                 parac_error *error); /* synchronous */
parac_status parac_cuda_memset(parac_cuda_context *context, void *device_dst, int value, size_t bytes,
                               parac_error *error);
parac_status parac_cuda_synchronize(parac_cuda_context *context, parac_error *error);

/* Free and total device memory right now (free counts memory the pool could hand back). */
parac_status parac_cuda_memory_info(parac_cuda_context *context, size_t *free_bytes, size_t *total_bytes,
                                    parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

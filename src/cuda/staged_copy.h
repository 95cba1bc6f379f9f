/* cuda/staged_copy.h — large copies between pageable host memory and the device.
 *
 * cudaMemcpy from or to pageable memory goes through the driver's own pinned staging, copied by one host
 * thread that also takes every page fault: on the H200 machine (2026-12-02, run AM) a 100 M-point dbscan
 * downloaded its 400 MB of labels into a fresh array at about 1.1 GB/s (0.34-0.41 s) and uploaded 1.2 GB
 * of points from an .npy mapped in place at about 7 GB/s (0.16-0.19 s), half the whole command's time
 * above CUDA's start-up. These copies go through a ring of pinned buffers instead: host threads copy
 * one piece between the pageable memory and a pinned buffer (core/parallel_copy: the page faults are
 * taken on every thread at once) while the DMA engine moves the previous piece.
 * Small copies (under PARAC_STAGED_COPY_MIN_BYTES) go straight to cudaMemcpyAsync. Include only
 * from .cu files. */
#ifndef PARAC_CUDA_STAGED_COPY_H
#define PARAC_CUDA_STAGED_COPY_H

#include <stddef.h>

#include "cuda/context.h"

#define PARAC_STAGED_COPY_MIN_BYTES ((size_t)16 << 20)

#ifdef __cplusplus
extern "C" {
#endif

/* Both return when the copy is complete (the host buffer may be reused or read at once), with
 * `threads` host threads doing the pageable side (the run's thread count). */
parac_status parac_cuda_upload_staged(parac_cuda_context *context, void *device_dst, const void *host_src, size_t bytes,
                                      int threads, parac_error *error);
parac_status parac_cuda_download_staged(parac_cuda_context *context, void *host_dst, const void *device_src,
                                        size_t bytes, int threads, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

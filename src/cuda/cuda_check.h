/* cuda/cuda_check.h — every CUDA runtime call goes through these.
 *
 * PARAC_CUDA_TRY(call): on failure fills `error` (which must be in scope, a
 * parac_error *), sets `status` and jumps to `fail` — the cleanup label every
 * CUDA entry point has. PARAC_CUDA_RETURN(call) returns the status instead,
 * for functions with nothing to clean up. Out-of-memory maps to
 * PARAC_ERR_NO_MEMORY so callers can shrink their chunk and retry.
 */
#ifndef PARAC_CUDA_CHECK_H
#define PARAC_CUDA_CHECK_H

#include <cuda_runtime.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills error from a failed CUDA call; returns the matching parac_status. */
parac_status parac_cuda_fail(parac_error *error, cudaError_t code, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

#define PARAC_CUDA_TRY(call)                                                            \
    do {                                                                                \
        cudaError_t parac_cuda_code_ = (call);                                          \
        if (parac_cuda_code_ != cudaSuccess) {                                          \
            status = parac_cuda_fail(error, parac_cuda_code_, #call, __FILE__, __LINE__); \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

#define PARAC_CUDA_RETURN(call)                                                         \
    do {                                                                                \
        cudaError_t parac_cuda_code_ = (call);                                          \
        if (parac_cuda_code_ != cudaSuccess)                                            \
            return parac_cuda_fail(error, parac_cuda_code_, #call, __FILE__, __LINE__);  \
    } while (0)

/* After a kernel launch: catches bad launch configurations at once. */
#define PARAC_CUDA_TRY_LAUNCH() PARAC_CUDA_TRY(cudaGetLastError())

/* Propagates a parac_status from a helper inside a function with a fail label. */
#define PARAC_TRY(expr)                     \
    do {                                    \
        status = (expr);                    \
        if (status != PARAC_OK) goto fail;  \
    } while (0)

#endif

/* cuda/cuda_check.cu — turns cudaError_t into parac reports. */
#include "cuda/cuda_check.h"

#include <stdio.h>
#include <string.h>

extern "C" parac_status parac_cuda_fail(parac_error *error, cudaError_t code, const char *call, const char *file,
                                        int line)
{
    parac_status status = (code == cudaErrorMemoryAllocation) ? PARAC_ERR_NO_MEMORY
                          : (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver) ? PARAC_ERR_NO_DEVICE
                                                                                               : PARAC_ERR_DEVICE;
    const char *base = strrchr(file, '/');
    /* Clear the sticky last-error so a caller that degrades (smaller chunk) starts clean. */
    (void)cudaGetLastError();
    if (error) {
        error->status = status;
        snprintf(error->message, sizeof error->message, "CUDA %s in %s (%s:%d): %s",
                 status == PARAC_ERR_NO_MEMORY ? "out of device memory" : "error", call, base ? base + 1 : file, line,
                 cudaGetErrorString(code));
    }
    return status;
}

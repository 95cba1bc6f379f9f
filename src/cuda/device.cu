/* cuda/device.cu — GPU discovery; a missing driver or GPU is "zero devices". */
#include <stdio.h>
#include <string.h>

#include <parac/devices.h>

#include "cuda/cuda_check.h"
#include "cuda/device_facts.h"

extern "C" int parac_built_with_cuda(void) { return 1; }

extern "C" int parac_cuda_device_count(char *why, size_t why_size)
{
    int count = 0;
    cudaError_t code = cudaGetDeviceCount(&count);
    if (code != cudaSuccess) {
        if (why && why_size) snprintf(why, why_size, "%s", cudaGetErrorString(code));
        (void)cudaGetLastError();
        return 0;
    }
    if (count == 0 && why && why_size) snprintf(why, why_size, "no CUDA device found");
    return count;
}

extern "C" parac_status parac_cuda_device_info(int ordinal, parac_device_info *info, parac_error *error)
{
    parac_cuda_device_facts facts;
    parac_status status = PARAC_OK;
    size_t free_bytes = 0, total_bytes = 0;
    int caller_device = 0;
    memset(info, 0, sizeof *info);
    if ((status = parac_cuda_device_facts_get(ordinal, &facts, error)) != PARAC_OK) return status;
    PARAC_CUDA_RETURN(cudaGetDevice(&caller_device));
    /* cudaMemGetInfo answers for the current device: switch, ask, switch back. */
    PARAC_CUDA_TRY(cudaSetDevice(ordinal));
    PARAC_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    info->ordinal = ordinal;
    snprintf(info->name, sizeof info->name, "%s", facts.name);
    info->compute_major = facts.compute_major;
    info->compute_minor = facts.compute_minor;
    info->multiprocessors = facts.multiprocessors;
    info->total_memory_bytes = total_bytes;
    info->free_memory_bytes = free_bytes;
fail:
    cudaSetDevice(caller_device);
    return status;
}

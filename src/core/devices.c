/* core/devices.c — device choice for every module, and the stand-ins a build
 * without CUDA uses (its GPU count is always zero). */
#include <parac/devices.h>

#include <stdio.h>
#include <string.h>

#include "core/device_choice.h"
#include "core/error.h"

#ifndef PARAC_HAVE_CUDA
int parac_built_with_cuda(void) { return 0; }

int parac_cuda_device_count(char *why, size_t why_size)
{
    if (why && why_size) snprintf(why, why_size, "parac was built without CUDA");
    return 0;
}

parac_status parac_cuda_device_info(int ordinal, parac_device_info *info, parac_error *error)
{
    memset(info, 0, sizeof *info);
    return parac_fail(error, PARAC_ERR_NO_DEVICE, "no CUDA device %d: parac was built without CUDA", ordinal);
}
#endif

parac_status parac_exec_resolve_device(const parac_exec *exec, parac_device *resolved, parac_error *error)
{
    char why[256] = "";
    int count;
    parac_device wanted = exec ? exec->device : PARAC_DEVICE_AUTO;
    if (wanted == PARAC_DEVICE_CPU) {
        *resolved = PARAC_DEVICE_CPU;
        parac_device_record(exec, *resolved, "requested: --device cpu");
        return PARAC_OK;
    }
    count = parac_cuda_device_count(why, sizeof why);
    if (wanted == PARAC_DEVICE_AUTO) {
        /* No workload to weigh here (modules call parac_choose_device): the GPU when present. */
        *resolved = count > 0 ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU;
        parac_device_record(exec, *resolved, count > 0 ? "auto: GPU present (no workload estimate)" : "auto: no usable GPU");
        return PARAC_OK;
    }
    if (count == 0) return parac_fail(error, PARAC_ERR_NO_DEVICE, "--device cuda: no usable GPU (%s)", why);
    if (exec->cuda_device < 0 || exec->cuda_device >= count)
        return parac_fail(error, PARAC_ERR_NO_DEVICE, "CUDA device %d does not exist (%d found)", exec->cuda_device, count);
    *resolved = PARAC_DEVICE_CUDA;
    parac_device_record(exec, *resolved, "requested: --device cuda");
    return PARAC_OK;
}

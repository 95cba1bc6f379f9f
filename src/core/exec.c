/* core/exec.c — names for the execution settings in parac/exec.h. */
#include <stddef.h>

#include <parac/exec.h>

const char *parac_device_name(parac_device device)
{
    switch (device) {
    case PARAC_DEVICE_AUTO: return "auto";
    case PARAC_DEVICE_CPU: return "cpu";
    case PARAC_DEVICE_CUDA: return "cuda";
    }
    return "unknown";
}

void parac_exec_init(parac_exec *exec)
{
    exec->device = PARAC_DEVICE_AUTO;
    exec->threads = 0;
    exec->cuda_device = 0;
    exec->progress = NULL;
    exec->progress_user_data = NULL;
}

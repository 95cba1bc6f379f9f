/* core/exec.c — names for the execution settings in parac/exec.h. */
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

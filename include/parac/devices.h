/* parac/devices.h — which GPUs this build can use.
 *
 * In a build without CUDA, or on a machine without a GPU or driver, the count
 * is zero and nothing aborts.
 */
#ifndef PARAC_DEVICES_H
#define PARAC_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "exec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac_device_info {
    int ordinal;
    char name[256];
    int compute_major;
    int compute_minor;
    int multiprocessors;
    uint64_t total_memory_bytes;
    uint64_t free_memory_bytes;
} parac_device_info;

/* 1 when this library was built with the CUDA paths. */
int parac_built_with_cuda(void);

/* Number of usable CUDA devices: 0 without CUDA, driver or GPU. When the
 * driver is missing or broken, *why (if non-NULL) receives a short reason. */
int parac_cuda_device_count(char *why, size_t why_size);

/* Fills *info for device `ordinal`. */
parac_status parac_cuda_device_info(int ordinal, parac_device_info *info, parac_error *error);

/* Resolves PARAC_DEVICE_AUTO to CPU or CUDA without knowing the work (the GPU when one is
 * usable), and checks that CUDA, when asked for, is usable (PARAC_ERR_NO_DEVICE otherwise).
 * The modules' own runs weigh their work instead (AUTO through a cost model: a small run stays
 * on the CPU, whose start-up is free). Records the choice in exec->chosen when set. */
parac_status parac_exec_resolve_device(const parac_exec *exec, parac_device *resolved, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

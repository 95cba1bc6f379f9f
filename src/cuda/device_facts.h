/* cuda/device_facts.h — a GPU's fixed properties, queried once per process and device.
 *
 * cudaGetDeviceProperties fills hundreds of fields and is slow next to a short run; the answers
 * (name, SM count, shared memory, L2, compute capability, memory size) are facts about the
 * hardware that cannot change while the process lives, so they are cached here (a small table
 * behind a mutex, the only process-wide state in src/cuda besides the loaded cuBLAS). Nothing
 * behavioural is cached: free memory is asked every time. Include from .cu files or from C files
 * compiled with PARAC_HAVE_CUDA. */
#ifndef PARAC_CUDA_DEVICE_FACTS_H
#define PARAC_CUDA_DEVICE_FACTS_H

#include <stddef.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac_cuda_device_facts {
    char name[256];
    int multiprocessors;
    size_t shared_memory_per_block_optin;
    size_t l2_bytes;
    int compute_major;
    int compute_minor;
    size_t total_memory_bytes;
} parac_cuda_device_facts;

/* Fills *facts for device `ordinal` (cached after the first call). */
parac_status parac_cuda_device_facts_get(int ordinal, parac_cuda_device_facts *facts, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

/* cuda/device_facts.cu — the per-process cache of device properties (device_facts.h). */
#include "cuda/device_facts.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_check.h"

#define CACHED_DEVICES 64

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static parac_cuda_device_facts cache[CACHED_DEVICES];
static int cached[CACHED_DEVICES];

static parac_status query(int ordinal, parac_cuda_device_facts *facts, parac_error *error)
{
    cudaDeviceProp properties;
    memset(facts, 0, sizeof *facts);
    PARAC_CUDA_RETURN(cudaGetDeviceProperties(&properties, ordinal));
    snprintf(facts->name, sizeof facts->name, "%s", properties.name);
    facts->multiprocessors = properties.multiProcessorCount;
    facts->shared_memory_per_block_optin = properties.sharedMemPerBlockOptin;
    facts->l2_bytes = (size_t)properties.l2CacheSize;
    facts->compute_major = properties.major;
    facts->compute_minor = properties.minor;
    facts->total_memory_bytes = properties.totalGlobalMem;
    return PARAC_OK;
}

extern "C" parac_status parac_cuda_device_facts_get(int ordinal, parac_cuda_device_facts *facts, parac_error *error)
{
    parac_status status = PARAC_OK;
    if (ordinal < 0 || ordinal >= CACHED_DEVICES) return query(ordinal, facts, error);
    pthread_mutex_lock(&cache_lock);
    if (!cached[ordinal]) {
        status = query(ordinal, &cache[ordinal], error);
        cached[ordinal] = status == PARAC_OK;
    }
    if (status == PARAC_OK) *facts = cache[ordinal];
    pthread_mutex_unlock(&cache_lock);
    return status;
}

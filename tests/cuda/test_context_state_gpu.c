/* tests/cuda/test_context_state_gpu.c — parac leaves the process's CUDA state as it found it
 * (issue 16): destroying a context makes the caller's device current again, the context
 * allocates from its own pool, the device's default pool (the caller's cudaMallocAsync) keeps its
 * settings and its reserved memory, and device facts are cached consistently.
 * Exits 77 (skipped) without a usable GPU or in a build without CUDA. */
#include <stdint.h>
#include <string.h>

#include "test_util.h"

#ifdef PARAC_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuda/context.h"
#include "cuda/device_facts.h"

static void check_state(void)
{
    parac_cuda_context context;
    parac_error error = {0};
    cudaMemPool_t default_pool;
    uint64_t threshold_before = 0, threshold_after = 0, keep_all = UINT64_MAX, reserved_before = 0, reserved_after = 0;
    int count = 0, current = -1;
    void *caller_block = NULL, *ours = NULL;
    parac_cuda_device_facts first, second;
    CHECK(cudaGetDeviceCount(&count) == cudaSuccess && count > 0);

    /* The caller works on its last device, with its own settings on device 0's default pool. */
    CHECK(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
    CHECK(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold_before) == cudaSuccess);
    CHECK(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &keep_all) == cudaSuccess);
    CHECK(cudaMallocAsync(&caller_block, (size_t)64 << 20, 0) == cudaSuccess);
    CHECK(cudaFreeAsync(caller_block, 0) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReservedMemCurrent, &reserved_before) == cudaSuccess);
    CHECK(reserved_before >= ((uint64_t)64 << 20), "the caller's pool reserved %llu", (unsigned long long)reserved_before);
    CHECK(cudaSetDevice(count - 1) == cudaSuccess);

    CHECK_OK(parac_cuda_context_create(0, &context, &error), &error);
    CHECK(context.pool != NULL && (cudaMemPool_t)context.pool != default_pool, "the context uses the default pool");
    CHECK_OK(parac_cuda_alloc(&context, &ours, (size_t)32 << 20, &error), &error);
    CHECK_OK(parac_cuda_memset(&context, ours, 0, (size_t)32 << 20, &error), &error);
    parac_cuda_free(&context, ours);
    CHECK_OK(parac_cuda_synchronize(&context, &error), &error);
    parac_cuda_context_destroy(&context);

    CHECK(cudaGetDevice(&current) == cudaSuccess);
    CHECK_EQ_INT(current, count - 1);
    CHECK(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold_after) == cudaSuccess);
    CHECK(threshold_after == keep_all, "the default pool's release threshold changed to %llu",
          (unsigned long long)threshold_after);
    CHECK(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReservedMemCurrent, &reserved_after) == cudaSuccess);
    CHECK(reserved_after >= reserved_before, "the default pool was trimmed: %llu -> %llu",
          (unsigned long long)reserved_before, (unsigned long long)reserved_after);
    CHECK(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold_before) == cudaSuccess);
    CHECK(cudaMemPoolTrimTo(default_pool, 0) == cudaSuccess);

    /* Facts: cached, identical, sane. */
    CHECK_OK(parac_cuda_device_facts_get(0, &first, &error), &error);
    CHECK_OK(parac_cuda_device_facts_get(0, &second, &error), &error);
    CHECK(memcmp(&first, &second, sizeof first) == 0, "cached facts differ");
    CHECK(first.name[0] && first.multiprocessors > 0 && first.total_memory_bytes > 0 && first.compute_major >= 5);
    CHECK(parac_cuda_device_facts_get(count + 100, &first, &error) != PARAC_OK, "device %d should not exist", count + 100);
}
#endif

int main(void)
{
    if (test_require_gpu()) return 77;
#ifdef PARAC_HAVE_CUDA
    check_state();
#endif
    return test_finish("cuda.context_state_gpu");
}

/* cuda/device_guard.cuh — keeps the caller's current CUDA device across a library call.
 *
 * The library never changes process-wide CUDA state behind its caller (issue 16). Entry points of
 * handles that outlive one call (a gemm plan, a birch model, an fca engine's runs) declare a guard
 * first, given the handle's device: that device is current during the call, and the device current
 * on entry is current again on every return. One-shot runs get the same from
 * parac_cuda_context_destroy. C files use parac_cuda_current_device / parac_cuda_make_current. */
#ifndef PARAC_CUDA_DEVICE_GUARD_CUH
#define PARAC_CUDA_DEVICE_GUARD_CUH

#include <cuda_runtime.h>

struct parac_caller_device_guard {
    int device;
    parac_caller_device_guard() : device(-1)
    {
        if (cudaGetDevice(&device) != cudaSuccess) device = -1;
    }
    /* Also makes `ordinal` current for the call (a handle's device). */
    explicit parac_caller_device_guard(int ordinal) : parac_caller_device_guard()
    {
        if (ordinal >= 0 && ordinal != device) cudaSetDevice(ordinal);
    }
    ~parac_caller_device_guard()
    {
        if (device >= 0) cudaSetDevice(device);
    }
    parac_caller_device_guard(const parac_caller_device_guard &) = delete;
    parac_caller_device_guard &operator=(const parac_caller_device_guard &) = delete;
};

#endif

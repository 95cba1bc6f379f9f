/* cuda/cublas_loader.cu — dlopen of cuBLAS at first use (cublas_loader.h). */
#include "cuda/cublas_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "core/error.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static parac_cublas_api loaded_api;
static int loaded_ok;
static char load_failure[256];

/* The names cuBLAS 13 and 12 install, then the toolkit directory this library was built against
 * (for systems whose loader path lacks it). */
static void *open_cublas(void)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12",
#ifdef PARAC_CUDA_LIBRARY_DIR
                                        PARAC_CUDA_LIBRARY_DIR "/libcublas.so.13", PARAC_CUDA_LIBRARY_DIR "/libcublas.so.12",
                                        PARAC_CUDA_LIBRARY_DIR "/libcublas.so",
#endif
                                        "libcublas.so"};
    const char *first_error = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (handle) return handle;
        if (!first_error) {
            first_error = dlerror();
            snprintf(load_failure, sizeof load_failure, "cannot load cuBLAS: %s", first_error ? first_error : "?");
        }
    }
    return NULL;
}

template <typename Function> static int find(void *library, const char *name, Function *slot)
{
    *slot = (Function)dlsym(library, name);
    if (!*slot) snprintf(load_failure, sizeof load_failure, "cuBLAS has no %s", name);
    return *slot != NULL;
}

static void load(void)
{
    void *library = open_cublas();
    if (!library) return;
    loaded_ok = find(library, "cublasCreate_v2", &loaded_api.create) &&
                find(library, "cublasDestroy_v2", &loaded_api.destroy) &&
                find(library, "cublasSetStream_v2", &loaded_api.set_stream) &&
                find(library, "cublasSgemm_v2", &loaded_api.sgemm) && find(library, "cublasGemmEx", &loaded_api.gemm_ex);
}

extern "C" parac_status parac_cublas_load(const parac_cublas_api **api, parac_error *error)
{
    pthread_once(&load_once, load);
    *api = loaded_ok ? &loaded_api : NULL;
    if (!loaded_ok) return parac_fail(error, PARAC_ERR_UNSUPPORTED, "%s", load_failure);
    return PARAC_OK;
}

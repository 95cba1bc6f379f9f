/* tests/cuda/test_cublas_loader.c — cuBLAS is loaded only when gemm's vendor reference first asks for
 * it (cuda/cublas_loader.h): not mapped in the process before, mapped after, the same entry points on
 * every call. Needs no GPU; exits 77 in a build without CUDA. */
#include <stdio.h>
#include <string.h>

#include "test_util.h"

#ifdef PARAC_HAVE_CUDA
#include "cuda/cublas_loader.h"

static int cublas_mapped(void)
{
    char line[512];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "libcublas")) found = 1;
    fclose(maps);
    return found;
}
#endif

int main(void)
{
#ifdef PARAC_HAVE_CUDA
    const parac_cublas_api *first = NULL, *second = NULL;
    parac_error error = {0};
    parac_status status;
    CHECK(cublas_mapped() == 0, "libparac mapped cuBLAS before anyone asked for it");
    status = parac_cublas_load(&first, &error);
    if (status == PARAC_ERR_UNSUPPORTED) { /* no cuBLAS installed: a clear message, no crash */
        CHECK(strstr(error.message, "cuBLAS") != NULL && first == NULL, "%s", error.message);
        printf("cuda.cublas_loader: %s: skipped\n", error.message);
        return test_finish("cuda.cublas_loader") ? 1 : 77;
    }
    CHECK_OK(status, &error);
    CHECK(first && first->create && first->destroy && first->set_stream && first->sgemm && first->gemm_ex);
    CHECK(cublas_mapped() == 1, "cuBLAS not mapped after loading it");
    CHECK_OK(parac_cublas_load(&second, &error), &error);
    CHECK(second == first, "a second load gave other entry points");
    return test_finish("cuda.cublas_loader");
#else
    puts("cuda.cublas_loader: built without CUDA: skipped");
    return 77;
#endif
}

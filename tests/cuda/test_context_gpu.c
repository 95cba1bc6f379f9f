/* tests/cuda/test_context_gpu.c — the CUDA context: memory pool, copies, memory info, failures.
 * Exits 77 (skipped) without a usable GPU or in a build without CUDA. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#ifdef PARAC_HAVE_CUDA
#include "cuda/context.h"

static void check_copies(parac_cuda_context *context)
{
    static const size_t sizes[] = {0, 1, 3, 4096, (1u << 20) + 5};
    parac_error error = {0};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t bytes = sizes[s];
        unsigned char *host = malloc(bytes + 1), *back = malloc(bytes + 1);
        void *device = NULL;
        for (size_t i = 0; i < bytes; i++) host[i] = (unsigned char)(i * 131 + 7);
        CHECK_OK(parac_cuda_alloc(context, &device, bytes, &error), &error);
        CHECK(device != NULL, "alloc of %zu bytes gave NULL", bytes);
        CHECK_OK(parac_cuda_upload(context, device, host, bytes, &error), &error);
        memset(back, 0, bytes + 1);
        CHECK_OK(parac_cuda_download(context, back, device, bytes, &error), &error);
        CHECK(memcmp(host, back, bytes) == 0, "upload/download of %zu bytes changed data", bytes);
        CHECK_OK(parac_cuda_memset(context, device, 0xab, bytes, &error), &error);
        CHECK_OK(parac_cuda_download(context, back, device, bytes, &error), &error);
        for (size_t i = 0; i < bytes; i++)
            if (back[i] != 0xab) {
                CHECK(0, "memset byte %zu of %zu is %d", i, bytes, back[i]);
                break;
            }
        parac_cuda_free(context, device);
        free(host);
        free(back);
    }
    parac_cuda_free(context, NULL); /* ignored */
    CHECK_OK(parac_cuda_synchronize(context, &error), &error);
}

static void check_memory(parac_cuda_context *context)
{
    parac_error error = {0};
    size_t free_before = 0, total = 0, free_during = 0, free_after = 0, total_again = 0;
    void *big = NULL, *small = NULL;
    const size_t big_bytes = (size_t)1 << 30;
    CHECK_OK(parac_cuda_memory_info(context, &free_before, &total, &error), &error);
    CHECK(total > 0 && free_before > 0 && free_before <= total, "free %zu of %zu", free_before, total);
    CHECK_OK(parac_cuda_alloc(context, &big, big_bytes, &error), &error);
    CHECK_OK(parac_cuda_memset(context, big, 0, big_bytes, &error), &error);
    CHECK_OK(parac_cuda_synchronize(context, &error), &error);
    CHECK_OK(parac_cuda_memory_info(context, &free_during, &total_again, &error), &error);
    CHECK(total_again == total);
    CHECK(free_during + big_bytes / 2 < free_before, "1 GiB in use but free went %zu -> %zu", free_before, free_during);
    parac_cuda_free(context, big);
    CHECK_OK(parac_cuda_synchronize(context, &error), &error);
    /* The pool keeps the block, but memory_info counts it as free again. */
    CHECK_OK(parac_cuda_memory_info(context, &free_after, &total_again, &error), &error);
    CHECK(free_after + big_bytes / 4 > free_before, "after free: %zu, before: %zu", free_after, free_before);

    /* An absurd request fails as out-of-memory, cleanly, and the context still works. */
    {
        parac_status status = parac_cuda_alloc(context, &big, (size_t)1 << 60, &error);
        CHECK(status == PARAC_ERR_NO_MEMORY, "absurd alloc gave status %d: %s", (int)status, error.message);
        CHECK(strstr(error.message, "out of device memory") != NULL, "%s", error.message);
        CHECK(big == NULL);
        status = parac_cuda_alloc(context, &big, total + ((size_t)1 << 30), &error);
        CHECK(status == PARAC_ERR_NO_MEMORY, "more than the device alloc gave status %d: %s", (int)status,
              error.message);
        parac_error_clear(&error);
    }
    CHECK_OK(parac_cuda_alloc(context, &small, 1000, &error), &error);
    CHECK_OK(parac_cuda_memset(context, small, 1, 1000, &error), &error);
    CHECK_OK(parac_cuda_synchronize(context, &error), &error);
    parac_cuda_free(context, small);
}

static void check_contexts(void)
{
    parac_cuda_context context, second;
    parac_error error = {0};
    CHECK(parac_cuda_context_create(4096, &context, &error) != PARAC_OK, "device 4096 should not exist");
    CHECK(error.message[0] != '\0');
    CHECK_OK(parac_cuda_context_create(0, &context, &error), &error);
    CHECK(context.multiprocessors > 0 && context.compute_major >= 5 && context.stream && context.pool);
    CHECK(context.shared_memory_per_block_optin >= 48 * 1024);
    /* Two contexts on one device coexist (two modules in one process). */
    CHECK_OK(parac_cuda_context_create(0, &second, &error), &error);
    check_copies(&context);
    check_copies(&second);
    parac_cuda_context_destroy(&second);
    check_memory(&context);
    parac_cuda_context_destroy(&context);
    parac_cuda_context_destroy(&context); /* twice is harmless */
}
#endif

int main(void)
{
    if (test_require_gpu()) return 77;
#ifdef PARAC_HAVE_CUDA
    check_contexts();
#endif
    return test_finish("cuda.context_gpu");
}

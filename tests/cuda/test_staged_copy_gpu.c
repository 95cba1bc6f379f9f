/* tests/cuda/test_staged_copy_gpu.c — the staged transfers (cuda/staged_copy.h) move exactly the bytes a
 * plain cudaMemcpy moves: sizes below, at and around the 16 MiB threshold and the ring's 4 x 16 MiB
 * (one piece, a partial last piece, more pieces than slots), unaligned host addresses, thread counts
 * 1 to 16; a round trip (upload, then download into fresh memory) returns the source; and two threads
 * copying at once (one gets the kept ring, the other its own) both get their bytes.
 * Exits 77 (skipped) without a usable GPU or in a build without CUDA. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#ifdef PARAC_HAVE_CUDA
#include <pthread.h>

#include <cuda_runtime.h>

#include "cuda/context.h"
#include "cuda/staged_copy.h"

static void fill(unsigned char *bytes, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        bytes[i] = (unsigned char)(seed >> 24);
    }
}

/* Upload `bytes` from an address `shift` past malloc's, check the device copy with a plain download,
 * then download staged into fresh memory and compare with the source. */
static int round_trip(parac_cuda_context *context, size_t bytes, size_t shift, int threads)
{
    parac_error error = {0};
    unsigned char *source = malloc(bytes + shift + 1), *plain = malloc(bytes + 1), *staged = malloc(bytes + shift + 1);
    void *device = NULL;
    int ok = source && plain && staged;
    CHECK(ok);
    if (!ok) goto done;
    fill(source + shift, bytes, (uint32_t)(bytes + shift + (size_t)threads));
    CHECK_OK(parac_cuda_alloc(context, &device, bytes, &error), &error);
    if (!device) { ok = 0; goto done; }
    CHECK_OK(parac_cuda_upload_staged(context, device, source + shift, bytes, threads, &error), &error);
    CHECK_OK(parac_cuda_download(context, plain, device, bytes, &error), &error);
    ok &= memcmp(plain, source + shift, bytes) == 0;
    CHECK(ok, "staged upload of %zu bytes (shift %zu, %d threads) differs", bytes, shift, threads);
    CHECK_OK(parac_cuda_download_staged(context, staged + shift, device, bytes, threads, &error), &error);
    ok &= memcmp(staged + shift, source + shift, bytes) == 0;
    CHECK(ok, "staged download of %zu bytes (shift %zu, %d threads) differs", bytes, shift, threads);
done:
    if (device) parac_cuda_free(context, device);
    free(source);
    free(plain);
    free(staged);
    return ok;
}

static void *concurrent_copy(void *argument)
{
    parac_cuda_context context;
    parac_error error = {0};
    int *ok = (int *)argument;
    *ok = 0;
    if (parac_cuda_context_create(0, &context, &error) != PARAC_OK) return NULL;
    *ok = round_trip(&context, ((size_t)70 << 20) + 333, 1, 4);
    parac_cuda_context_destroy(&context);
    return NULL;
}

static void check_staged(void)
{
    parac_cuda_context context;
    parac_error error = {0};
    const size_t mib = (size_t)1 << 20;
    const size_t sizes[] = {0, 1, 16 * mib - 1, 16 * mib, 16 * mib + 1, 64 * mib, 64 * mib + 12345, 200 * mib + 7};
    const int thread_counts[] = {1, 3, 16};
    pthread_t other;
    int ok_here = 0, ok_there = 0;
    CHECK_OK(parac_cuda_context_create(0, &context, &error), &error);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++)
            round_trip(&context, sizes[s], (s + t) % 8, thread_counts[t]);
    CHECK(pthread_create(&other, NULL, concurrent_copy, &ok_there) == 0);
    ok_here = round_trip(&context, (size_t)90 << 20, 5, 4);
    pthread_join(other, NULL);
    CHECK(ok_here && ok_there, "concurrent staged copies: here %d, other thread %d", ok_here, ok_there);
    parac_cuda_context_destroy(&context);
}
#endif

int main(void)
{
    if (test_require_gpu()) return 77;
#ifdef PARAC_HAVE_CUDA
    check_staged();
#endif
    return test_finish("cuda.staged_copy_gpu");
}

/* tests/cuda/test_cub_wrappers_gpu.c — every CUB wrapper (those the modules call) against a plain CPU computation,
 * on random data of sizes 0, 1, 2, odd, block-boundary and > 2^20.
 * Exits 77 (skipped) without a usable GPU or in a build without CUDA. */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "test_util.h"

#ifdef PARAC_HAVE_CUDA
#include "cuda/cub_wrappers.h"

static parac_cuda_context context;
static parac_error error;
static parac_rng rng;

/* Device copy of a host array (NULL-safe for 0 bytes). */
static void *to_device(const void *host, size_t bytes)
{
    void *device = NULL;
    CHECK_OK(parac_cuda_alloc(&context, &device, bytes, &error), &error);
    CHECK_OK(parac_cuda_upload(&context, device, host, bytes, &error), &error);
    return device;
}
static void *device_buffer(size_t bytes)
{
    void *device = NULL;
    CHECK_OK(parac_cuda_alloc(&context, &device, bytes, &error), &error);
    return device;
}
static void from_device(void *host, const void *device, size_t bytes)
{
    CHECK_OK(parac_cuda_download(&context, host, device, bytes, &error), &error);
}

/* ---- sorting: stable by key over the low end_bit bits, values carry the input index ---- */

typedef struct pair64 {
    uint64_t key;
    uint64_t index;
} pair64;

static int compare_pairs(const void *a, const void *b)
{
    const pair64 *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* stability */
}

static uint64_t random_key(int key_bits)
{
    uint64_t value = parac_rng_next(&rng);
    return key_bits >= 64 ? value : value & (((uint64_t)1 << key_bits) - 1);
}

/* Expected order: keys masked to end_bit bits decide, ties keep input order. */
static pair64 *cpu_sorted(const uint64_t *keys, size_t count, int end_bit)
{
    pair64 *pairs = calloc(1, (count + 1) * sizeof *pairs);
    uint64_t mask = end_bit >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << end_bit) - 1);
    for (size_t i = 0; i < count; i++) pairs[i] = (pair64){keys[i] & mask, i};
    qsort(pairs, count, sizeof *pairs, compare_pairs);
    return pairs;
}

static void check_sort_u32(size_t count, int key_bits, int end_bit)
{
    uint32_t *keys = calloc(1, (count + 1) * 4), *values = calloc(1, (count + 1) * 4);
    uint32_t *keys_out = calloc(1, (count + 1) * 4), *values_out = calloc(1, (count + 1) * 4);
    uint64_t *keys64 = calloc(1, (count + 1) * 8);
    pair64 *expect;
    void *dk, *dv, *dko, *dvo;
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        keys[i] = (uint32_t)random_key(key_bits);
        keys64[i] = keys[i];
        values[i] = (uint32_t)i;
    }
    expect = cpu_sorted(keys64, count, end_bit > 0 ? end_bit : 32);
    dk = to_device(keys, count * 4), dv = to_device(values, count * 4);
    dko = device_buffer(count * 4), dvo = device_buffer(count * 4);
    CHECK_OK(parac_cub_sort_pairs_u32_u32(&context, dk, dko, dv, dvo, count, end_bit, &error), &error);
    from_device(keys_out, dko, count * 4);
    from_device(values_out, dvo, count * 4);
    for (size_t i = 0; i < count && !bad; i++)
        if (values_out[i] != expect[i].index || keys_out[i] != keys[expect[i].index]) bad = 1;
    CHECK(!bad, "sort_pairs_u32_u32 n=%zu end_bit=%d differs from a stable CPU sort", count, end_bit);
    parac_cuda_free(&context, dk), parac_cuda_free(&context, dv);
    parac_cuda_free(&context, dko), parac_cuda_free(&context, dvo);
    free(keys), free(values), free(keys_out), free(values_out), free(keys64), free(expect);
}

static void check_sort_u64(size_t count, int key_bits, int end_bit)
{
    uint64_t *keys = calloc(1, (count + 1) * 8), *keys_out = calloc(1, (count + 1) * 8);
    uint32_t *values32 = calloc(1, (count + 1) * 4), *values32_out = calloc(1, (count + 1) * 4);
    pair64 *expect;
    void *dk, *dko, *dv32, *dv32o;
    int bad32 = 0;
    for (size_t i = 0; i < count; i++) {
        keys[i] = random_key(key_bits);
        values32[i] = (uint32_t)i;
    }
    expect = cpu_sorted(keys, count, end_bit > 0 ? end_bit : 64);
    dk = to_device(keys, count * 8), dko = device_buffer(count * 8);
    dv32 = to_device(values32, count * 4), dv32o = device_buffer(count * 4);

    CHECK_OK(parac_cub_sort_pairs_u64_u32(&context, dk, dko, dv32, dv32o, count, end_bit, &error), &error);
    from_device(values32_out, dv32o, count * 4);
    from_device(keys_out, dko, count * 8);
    for (size_t i = 0; i < count && !bad32; i++)
        if (values32_out[i] != expect[i].index || keys_out[i] != keys[expect[i].index]) bad32 = 1;
    CHECK(!bad32, "sort_pairs_u64_u32 n=%zu end_bit=%d", count, end_bit);

    parac_cuda_free(&context, dk), parac_cuda_free(&context, dko);
    parac_cuda_free(&context, dv32), parac_cuda_free(&context, dv32o);
    free(keys), free(keys_out), free(values32), free(values32_out), free(expect);
}

/* ---- scans ---- */

static void check_scans(size_t count)
{
    uint32_t *in32 = calloc(1, (count + 1) * 4), *out32 = calloc(1, (count + 1) * 4);
    uint64_t *in64 = calloc(1, (count + 1) * 8), *out64 = calloc(1, (count + 1) * 8);
    void *d32 = NULL, *d32o, *d64, *d64o;
    uint32_t running32 = 0;
    uint64_t running64 = 0;
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        in32[i] = (uint32_t)parac_rng_next(&rng); /* sums wrap around: CUB must wrap the same way */
        in64[i] = parac_rng_below(&rng, 1000000);
    }
    d32 = to_device(in32, count * 4), d32o = device_buffer(count * 4);
    d64 = to_device(in64, count * 8), d64o = device_buffer(count * 8);

    CHECK_OK(parac_cub_exclusive_sum_u32(&context, d32, d32o, count, &error), &error);
    from_device(out32, d32o, count * 4);
    for (size_t i = 0; i < count && !bad; i++) {
        if (out32[i] != running32) bad = 1;
        running32 += in32[i];
    }
    CHECK(!bad, "exclusive_sum_u32 n=%zu", count);

    bad = 0;
    CHECK_OK(parac_cub_exclusive_sum_u64(&context, d64, d64o, count, &error), &error);
    from_device(out64, d64o, count * 8);
    for (size_t i = 0; i < count && !bad; i++) {
        if (out64[i] != running64) bad = 1;
        running64 += in64[i];
    }
    CHECK(!bad, "exclusive_sum_u64 n=%zu", count);

    /* In place (in == out), as the header allows for the exclusive sums. */
    bad = 0, running64 = 0;
    CHECK_OK(parac_cub_exclusive_sum_u64(&context, d64, d64, count, &error), &error);
    from_device(out64, d64, count * 8);
    for (size_t i = 0; i < count && !bad; i++) {
        if (out64[i] != running64) bad = 1;
        running64 += in64[i];
    }
    CHECK(!bad, "in-place exclusive_sum_u64 n=%zu", count);
    bad = 0, running32 = 0;
    CHECK_OK(parac_cub_exclusive_sum_u32(&context, d32, d32, count, &error), &error);
    from_device(out32, d32, count * 4);
    for (size_t i = 0; i < count && !bad; i++) {
        if (out32[i] != running32) bad = 1;
        running32 += in32[i];
    }
    CHECK(!bad, "in-place exclusive_sum_u32 n=%zu", count);

    parac_cuda_free(&context, d32), parac_cuda_free(&context, d32o);
    parac_cuda_free(&context, d64), parac_cuda_free(&context, d64o);
    free(in32), free(out32), free(in64), free(out64);
}

/* ---- runs: reduce-by-key and run-length encoding over keys with random run lengths ---- */

static void check_runs(size_t count)
{
    uint64_t *keys = calloc(1, (count + 1) * 8), *unique = calloc(1, (count + 1) * 8);
    uint32_t *keys32 = calloc(1, (count + 1) * 4), *unique32 = calloc(1, (count + 1) * 4), *lengths = calloc(1, (count + 1) * 4);
    int32_t *values = calloc(1, (count + 1) * 4), *sums = calloc(1, (count + 1) * 4);
    uint64_t *expect_key = calloc(1, (count + 1) * 8);
    int32_t *expect_sum = calloc(1, (count + 1) * 4);
    uint32_t *expect_length = calloc(1, (count + 1) * 4);
    size_t expect_runs = 0, runs = 0;
    void *dk, *dk32, *dv, *du, *du32, *ds, *dl;
    int bad = 0;
    uint64_t key = parac_rng_next(&rng) >> 40;
    for (size_t i = 0; i < count; i++) {
        /* a new run with probability 1/3; runs of one key may repeat later (not a sort) */
        if (i == 0 || parac_rng_below(&rng, 3) == 0) {
            key = parac_rng_below(&rng, 5) == 0 ? key ^ 1 : parac_rng_next(&rng) >> 33;
            if (i > 0 && key == keys[i - 1]) key++;
            expect_key[expect_runs] = key, expect_sum[expect_runs] = 0, expect_length[expect_runs] = 0;
            expect_runs++;
        }
        keys[i] = key;
        keys32[i] = (uint32_t)key;
        values[i] = (int32_t)parac_rng_below(&rng, 2001) - 1000;
        expect_sum[expect_runs - 1] += values[i];
        expect_length[expect_runs - 1]++;
    }
    dk = to_device(keys, count * 8), dk32 = to_device(keys32, count * 4), dv = to_device(values, count * 4);
    du = device_buffer(count * 8), du32 = device_buffer(count * 4), ds = device_buffer(count * 4),
    dl = device_buffer(count * 4);

    CHECK_OK(parac_cub_reduce_by_key_sum_u32_i32(&context, dk32, du32, dv, ds, count, &runs, &error), &error);
    CHECK(runs == expect_runs, "reduce_by_key_u32 n=%zu: %zu runs, expected %zu", count, runs, expect_runs);
    if (runs > count) runs = 0; /* never read past the host buffers */
    from_device(unique32, du32, runs * 4);
    from_device(sums, ds, runs * 4);
    for (size_t r = 0; r < runs && runs == expect_runs && !bad; r++)
        if (unique32[r] != (uint32_t)expect_key[r] || sums[r] != expect_sum[r]) bad = 1;
    CHECK(!bad, "reduce_by_key_sum_u32_i32 n=%zu", count);

    bad = 0, runs = 0;
    CHECK_OK(parac_cub_run_length_encode_u64(&context, dk, du, dl, count, &runs, &error), &error);
    CHECK(runs == expect_runs, "run_length_encode n=%zu: %zu runs, expected %zu", count, runs, expect_runs);
    if (runs > count) runs = 0; /* never read past the host buffers */
    from_device(unique, du, runs * 8);
    from_device(lengths, dl, runs * 4);
    for (size_t r = 0; r < runs && runs == expect_runs && !bad; r++)
        if (unique[r] != expect_key[r] || lengths[r] != expect_length[r]) bad = 1;
    CHECK(!bad, "run_length_encode_u64 n=%zu", count);

    parac_cuda_free(&context, dk), parac_cuda_free(&context, dk32), parac_cuda_free(&context, dv);
    parac_cuda_free(&context, du), parac_cuda_free(&context, du32), parac_cuda_free(&context, ds);
    parac_cuda_free(&context, dl);
    free(keys), free(unique), free(keys32), free(unique32), free(lengths), free(values), free(sums);
    free(expect_key), free(expect_sum), free(expect_length);
}

static void run_all(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 1000, 4097, 65537, (1u << 20) + 3, 3000001};
    parac_rng_seed(&rng, 20240601);
    CHECK_OK(parac_cuda_context_create(0, &context, &error), &error);
    if (error.status) return;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        check_sort_u32(n, 32, 0);
        check_sort_u32(n, 10, 0);  /* many equal keys: stability matters */
        check_sort_u32(n, 32, 12); /* only the low 12 bits sort */
        check_sort_u64(n, 64, 0);
        check_sort_u64(n, 40, 40);
        check_sort_u64(n, 64, 17);
        check_scans(n);
        check_runs(n);
    }
    CHECK_OK(parac_cuda_synchronize(&context, &error), &error);
    parac_cuda_context_destroy(&context);
}
#endif

int main(void)
{
    if (test_require_gpu()) return 77;
#ifdef PARAC_HAVE_CUDA
    run_all();
#endif
    return test_finish("cuda.cub_wrappers_gpu");
}

/* tests/gemm/test_pack_gpu.c — the fast GPU pack (gemm_pack.cu: float4 micro-blocks, A and B
 * in one launch) against the first, scalar pack kept as the reference, byte for byte.
 *
 * Every specialisation: k- or r-contiguous source (row/col-major A and B), panel or swizzled
 * destination, fp32 or tf32 rounding, tile_r 64/128/256, ragged k and r (zero padding),
 * ld > extent, 16-byte aligned sources (vector loads) and unaligned ones (odd ld, base
 * offset by one float: element loads). Inputs mix uniform values with raw bit patterns
 * (ties of the tf32 rounding, infinities, NaNs, -0), so a rounding or padding slip
 * shows. Destinations are prefilled with 0xA5 bytes, so an element left unwritten shows.
 * Each operand is packed once as A and once as B of a paired launch. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#ifdef PARAC_HAVE_CUDA
#include "cuda/context.h"
#include "gemm/gemm_pack.h"

typedef struct pack_shape {
    int64_t extent_k, extent_r, ld_pad;
    int tile_r, offset; /* offset: source base shifted by one float (unaligned) */
} pack_shape;

static const pack_shape SHAPES[] = {
    {1, 1, 0, 64, 0},      {37, 100, 0, 64, 0},    {300, 513, 7, 128, 0}, {256, 256, 4, 256, 0},
    {129, 700, 0, 256, 1}, {1000, 130, 12, 128, 0}, {1, 2000, 0, 64, 0},  {512, 64, 0, 64, 0},
};
#define SHAPE_COUNT (int)(sizeof SHAPES / sizeof SHAPES[0])
#define CONFIG_COUNT (SHAPE_COUNT * 8) /* x k_contiguous x swizzled x tf32 */

typedef struct pack_config {
    gemm_pack_operand op; /* x, dst filled in when run */
    int64_t source_count, dst_count;
    int offset;
} pack_config;

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

/* Mostly uniform values; some raw finite bit patterns, tf32 ties, and specials. */
static float random_value(uint64_t *state)
{
    uint64_t r = next_random(state);
    unsigned bits;
    float v;
    switch (r % 16) {
    case 0: bits = (unsigned)(r >> 8); break;                                 /* any pattern, NaN included */
    case 1: bits = ((unsigned)(r >> 8) & 0xFFFFE000u) | 0x1000u; break;      /* exactly half a tf32 ulp */
    case 2: bits = (r & 256) ? 0x7F800000u : 0x80000000u; break;             /* +inf or -0 */
    default: return (float)((double)(r % 2000001) / 1000000.0 - 1.0);
    }
    memcpy(&v, &bits, sizeof v);
    return v;
}

static pack_config config_of(int index)
{
    const pack_shape *s = &SHAPES[index / 8];
    pack_config c;
    int k_contiguous = index & 1, swizzled = (index >> 1) & 1, tile_k = swizzled ? 32 : 16;
    memset(&c, 0, sizeof c);
    c.op.extent_k = s->extent_k;
    c.op.extent_r = s->extent_r;
    c.op.ld = (k_contiguous ? s->extent_k : s->extent_r) + s->ld_pad;
    c.op.padded_k = (s->extent_k + tile_k - 1) / tile_k * tile_k;
    c.op.padded_r = (s->extent_r + s->tile_r - 1) / s->tile_r * s->tile_r;
    c.op.k_contiguous = k_contiguous;
    c.op.tile_r = s->tile_r;
    c.op.tf32 = (index >> 2) & 1;
    c.op.swizzled = swizzled;
    c.source_count = (k_contiguous ? s->extent_r : s->extent_k) * c.op.ld + s->offset;
    c.dst_count = c.op.padded_k * c.op.padded_r;
    c.offset = s->offset;
    return c;
}

typedef struct device_operand {
    float *source, *fast, *reference;
    gemm_pack_operand op;
} device_operand;

static void device_operand_destroy(parac_cuda_context *context, device_operand *d)
{
    parac_cuda_free(context, d->source);
    parac_cuda_free(context, d->fast);
    parac_cuda_free(context, d->reference);
}

static int device_operand_create(parac_cuda_context *context, const pack_config *c, uint64_t seed, device_operand *d)
{
    parac_error error;
    float *host = malloc((size_t)c->source_count * sizeof *host);
    uint64_t state = seed;
    int ok;
    memset(&error, 0, sizeof error);
    for (int64_t i = 0; i < c->source_count; i++) host[i] = random_value(&state);
    memset(d, 0, sizeof *d);
    ok = parac_cuda_alloc(context, (void **)&d->source, (size_t)c->source_count * 4, &error) == PARAC_OK &&
         parac_cuda_alloc(context, (void **)&d->fast, (size_t)c->dst_count * 4, &error) == PARAC_OK &&
         parac_cuda_alloc(context, (void **)&d->reference, (size_t)c->dst_count * 4, &error) == PARAC_OK &&
         parac_cuda_upload(context, d->source, host, (size_t)c->source_count * 4, &error) == PARAC_OK &&
         parac_cuda_memset(context, d->fast, 0xA5, (size_t)c->dst_count * 4, &error) == PARAC_OK &&
         parac_cuda_memset(context, d->reference, 0xA5, (size_t)c->dst_count * 4, &error) == PARAC_OK &&
         parac_cuda_synchronize(context, &error) == PARAC_OK; /* the upload reads host before it is freed */
    CHECK(ok, "device setup: %s", error.message);
    free(host);
    if (!ok) device_operand_destroy(context, d);
    d->op = c->op;
    d->op.x = d->source + c->offset;
    return ok;
}

/* Downloads both packs of d and compares them byte for byte. */
static void compare_packs(parac_cuda_context *context, const pack_config *c, const device_operand *d, const char *role,
                          int index)
{
    parac_error error;
    size_t bytes = (size_t)c->dst_count * 4;
    unsigned char *fast = malloc(bytes), *reference = malloc(bytes);
    CHECK_OK(parac_cuda_download(context, fast, d->fast, bytes, &error), &error);
    CHECK_OK(parac_cuda_download(context, reference, d->reference, bytes, &error), &error);
    size_t first = 0;
    while (first < bytes && fast[first] == reference[first]) first++;
    CHECK(first == bytes,
          "config %d as %s (k %lld r %lld ld %lld tile_r %d k_contiguous %d swizzled %d tf32 %d): first byte difference at "
          "float %zu of %lld",
          index, role, (long long)c->op.extent_k, (long long)c->op.extent_r, (long long)c->op.ld, c->op.tile_r,
          c->op.k_contiguous, c->op.swizzled, c->op.tf32, first / 4, (long long)c->dst_count);
    free(fast);
    free(reference);
}

/* Packs config i as A and config j as B in one fast launch; each against its reference. */
static void check_pair(parac_cuda_context *context, int i, int j)
{
    parac_error error;
    pack_config ca = config_of(i), cb = config_of(j);
    device_operand a, b;
    if (!device_operand_create(context, &ca, 1000 + (uint64_t)i, &a)) return;
    if (device_operand_create(context, &cb, 5000 + (uint64_t)j, &b)) {
        gemm_pack_operand fa = a.op, fb = b.op, ra = a.op, rb = b.op;
        fa.dst = a.fast, fb.dst = b.fast, ra.dst = a.reference, rb.dst = b.reference;
        CHECK_OK(gemm_pack_launch(&fa, &fb, context->stream, &error), &error);
        CHECK_OK(gemm_pack_reference_launch(&ra, context->stream, &error), &error);
        CHECK_OK(gemm_pack_reference_launch(&rb, context->stream, &error), &error);
        CHECK_OK(parac_cuda_synchronize(context, &error), &error);
        compare_packs(context, &ca, &a, "A", i);
        compare_packs(context, &cb, &b, "B", j);
        device_operand_destroy(context, &b);
    }
    device_operand_destroy(context, &a);
}

/* A alone (b NULL: the b_direct case of the plan). */
static void check_single(parac_cuda_context *context, int i)
{
    parac_error error;
    pack_config c = config_of(i);
    device_operand d;
    if (!device_operand_create(context, &c, 9000 + (uint64_t)i, &d)) return;
    gemm_pack_operand fast = d.op, reference = d.op;
    fast.dst = d.fast, reference.dst = d.reference;
    CHECK_OK(gemm_pack_launch(&fast, NULL, context->stream, &error), &error);
    CHECK_OK(gemm_pack_reference_launch(&reference, context->stream, &error), &error);
    CHECK_OK(parac_cuda_synchronize(context, &error), &error);
    compare_packs(context, &c, &d, "A alone", i);
    device_operand_destroy(context, &d);
}
#endif

int main(void)
{
    if (test_require_gpu()) return 77;
#ifdef PARAC_HAVE_CUDA
    parac_cuda_context context;
    parac_error error;
    CHECK_OK(parac_cuda_context_create(0, &context, &error), &error);
    for (int i = 0; i < CONFIG_COUNT; i++) check_pair(&context, i, (i + 13) % CONFIG_COUNT);
    for (int i = 0; i < CONFIG_COUNT; i += 7) check_single(&context, i);
    parac_cuda_context_destroy(&context);
#endif
    return test_finish("gemm.pack_gpu");
}

/* tests/gemm/test_pack_gpu.c — the fast GPU pack (gemm_pack.cu: float4 micro-blocks, A and B
 * in one launch) against the first, scalar pack kept as the reference, byte for byte.
 *
 * Every specialisation: k- or r-contiguous source (row/col-major A and B), panel or swizzled
 * destination, fp32 or tf32 rounding, tile_r 64/128/256, ragged k and r (zero padding),
 * ld > extent, 16-byte aligned sources (vector loads) and unaligned ones (odd ld, base
 * offset by one float: element loads). Inputs mix uniform values with raw bit patterns
 * (ties of the tf32 rounding, infinities, NaNs, -0), so a rounding or padding slip
 * shows. Destinations are prefilled with 0xA5 bytes, so an element left unwritten shows.
 * Each operand is packed once as A and once as B of a paired launch. The masked pack (tile
 * masks as the plan's A and B masks) is checked on every config: masked tiles untouched,
 * the rest equal to the reference. */
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

/* Host copy of gemm_pack.cu's packed_index: where packed element (kk, r) lives. */
static int64_t host_packed_index(const gemm_pack_operand *p, int64_t kk, int64_t r)
{
    int64_t panel = r / p->tile_r, rr = r % p->tile_r;
    if (!p->swizzled) return (panel * p->padded_k + kk) * p->tile_r + rr;
    int kw = (int)(kk % 32), chunk = (kw / 4) ^ (int)(rr % 8);
    return (panel * p->padded_k + (kk - kw)) * p->tile_r + rr * 32 + chunk * 4 + kw % 4;
}

/* The masked fast pack (round 5): tiles whose mask byte is 0 are left untouched (still 0xA5), the
 * others are byte-identical to the reference pack. Config i is packed as A (mask tiles_r x tiles_k,
 * as the plan's A mask) and config j as B (mask tiles_k x tiles_r, as the plan's B mask), in one
 * launch; tile_k is 32 for the swizzled layout, else 48 (not a power of two, not dividing padded_k). */
static void check_masked_operand(parac_cuda_context *context, const pack_config *c, const device_operand *d,
                                 const gemm_pack_operand *op, const unsigned char *mask, const char *role, int index)
{
    parac_error error;
    size_t bytes = (size_t)c->dst_count * 4;
    unsigned char *fast = malloc(bytes), *reference = malloc(bytes);
    int64_t bad = 0, first_kk = -1, first_r = -1;
    CHECK_OK(parac_cuda_download(context, fast, d->fast, bytes, &error), &error);
    CHECK_OK(parac_cuda_download(context, reference, d->reference, bytes, &error), &error);
    for (int64_t kk = 0; kk < op->padded_k; kk++)
        for (int64_t r = 0; r < op->padded_r; r++) {
            int64_t at = host_packed_index(op, kk, r) * 4;
            int kept = mask[(r / op->tile_r) * op->mask_stride_r + (kk / op->tile_k) * op->mask_stride_k] != 0;
            static const unsigned char untouched[4] = {0xA5, 0xA5, 0xA5, 0xA5};
            int ok = kept ? memcmp(fast + at, reference + at, 4) == 0 : memcmp(fast + at, untouched, 4) == 0;
            if (!ok && bad++ == 0) first_kk = kk, first_r = r;
        }
    CHECK(bad == 0, "masked config %d as %s (k %lld r %lld tile_r %d tile_k %d swizzled %d): %lld wrong elements, first (%lld, %lld)",
          index, role, (long long)op->extent_k, (long long)op->extent_r, op->tile_r, op->tile_k, op->swizzled, (long long)bad,
          (long long)first_kk, (long long)first_r);
    free(fast);
    free(reference);
}

static unsigned char *random_mask(int64_t count, uint64_t seed)
{
    unsigned char *mask = malloc((size_t)count);
    uint64_t state = seed;
    for (int64_t t = 0; t < count; t++) mask[t] = next_random(&state) % 3 == 0; /* a third kept */
    if (count > 1) mask[0] = 1, mask[count - 1] = 0;
    return mask;
}

static void check_masked_pair(parac_cuda_context *context, int i, int j)
{
    parac_error error;
    pack_config ca = config_of(i), cb = config_of(j);
    device_operand a, b;
    unsigned char *mask_a = NULL, *mask_b = NULL, *device_masks = NULL;
    if (!device_operand_create(context, &ca, 2000 + (uint64_t)i, &a)) return;
    if (device_operand_create(context, &cb, 6000 + (uint64_t)j, &b)) {
        gemm_pack_operand fa = a.op, fb = b.op, ra = a.op, rb = b.op;
        int64_t a_tiles_r, a_tiles_k, b_tiles_r, b_tiles_k;
        fa.tile_k = fa.swizzled ? 32 : 48, fb.tile_k = fb.swizzled ? 32 : 48;
        a_tiles_r = fa.padded_r / fa.tile_r, a_tiles_k = (fa.padded_k + fa.tile_k - 1) / fa.tile_k;
        b_tiles_r = fb.padded_r / fb.tile_r, b_tiles_k = (fb.padded_k + fb.tile_k - 1) / fb.tile_k;
        mask_a = random_mask(a_tiles_r * a_tiles_k, 31 + (uint64_t)i);
        mask_b = random_mask(b_tiles_r * b_tiles_k, 77 + (uint64_t)j);
        fa.mask_stride_r = a_tiles_k, fa.mask_stride_k = 1;       /* A: tiles_m x tiles_k */
        fb.mask_stride_r = 1, fb.mask_stride_k = b_tiles_r;       /* B: tiles_k x tiles_n */
        CHECK_OK(parac_cuda_alloc(context, (void **)&device_masks, (size_t)(a_tiles_r * a_tiles_k + b_tiles_r * b_tiles_k), &error),
                 &error);
        if (device_masks) {
            CHECK_OK(parac_cuda_upload(context, device_masks, mask_a, (size_t)(a_tiles_r * a_tiles_k), &error), &error);
            CHECK_OK(parac_cuda_upload(context, device_masks + a_tiles_r * a_tiles_k, mask_b, (size_t)(b_tiles_r * b_tiles_k), &error),
                     &error);
            fa.tile_mask = device_masks, fb.tile_mask = device_masks + a_tiles_r * a_tiles_k;
            fa.dst = a.fast, fb.dst = b.fast, ra.dst = a.reference, rb.dst = b.reference;
            CHECK_OK(gemm_pack_launch(&fa, &fb, context->stream, &error), &error);
            CHECK_OK(gemm_pack_reference_launch(&ra, context->stream, &error), &error);
            CHECK_OK(gemm_pack_reference_launch(&rb, context->stream, &error), &error);
            CHECK_OK(parac_cuda_synchronize(context, &error), &error);
            check_masked_operand(context, &ca, &a, &fa, mask_a, "A", i);
            check_masked_operand(context, &cb, &b, &fb, mask_b, "B", j);
            parac_cuda_free(context, device_masks);
        }
        free(mask_a);
        free(mask_b);
        device_operand_destroy(context, &b);
    }
    device_operand_destroy(context, &a);
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
    for (int i = 0; i < CONFIG_COUNT; i++) check_masked_pair(&context, i, (i + 29) % CONFIG_COUNT);
    parac_cuda_context_destroy(&context);
#endif
    return test_finish("gemm.pack_gpu");
}

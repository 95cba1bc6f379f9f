/* gemm/gemm_pack.h — the GPU packing pass: A and B copied into the tile panels the
 * GPU kernels read (gemm_pack.cu). C linkage so tests and the bench can reach it.
 *
 * Packed element (kk, r) of an operand (kk along k, r along m for A / n for B):
 *   panels:   dst[((r / tile_r) * padded_k + kk) * tile_r + r % tile_r]
 *   swizzled: the wgmma layout (gemm_kernels.cuh): per tile row, 32-wide k blocks,
 *             one 128-byte row per r, 16-byte chunks XOR-swizzled by r % 8.
 * Elements past extent_k / extent_r are zeros; tf32 rounds with cvt.rna (round_tf32). */
#ifndef PARAC_GEMM_PACK_H
#define PARAC_GEMM_PACK_H

#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemm_pack_operand {
    const float *x;     /* device source */
    int64_t ld, extent_k, extent_r, padded_k, padded_r;
    int k_contiguous;   /* source element (kk, r) at x[r * ld + kk], else x[kk * ld + r] */
    int tile_r;         /* 64, 128 or 256 (padded_r a multiple of it) */
    int tf32, swizzled; /* swizzled needs padded_k % 32 == 0 */
    float *dst;         /* device, padded_k * padded_r floats */
    /* Optional (zero/NULL: pack every tile). A device tile mask: the (tile_r x tile_k) tile of
     * panel r / tile_r and k tile kk / tile_k is packed only when
     * tile_mask[(r / tile_r) * mask_stride_r + (kk / tile_k) * mask_stride_k] != 0; the slots of
     * masked tiles are neither read nor written (no tile kernel reads them: every kernel walks
     * the plan's k lists, which hold only tiles whose A and B masks are both set). The fast pack
     * honours it; the reference pack ignores it (packs everything). tile_k % 4 == 0. */
    const unsigned char *tile_mask;
    int64_t mask_stride_r, mask_stride_k;
    int tile_k;
} gemm_pack_operand;

/* Packs a and (unless b is NULL) b in one launch on stream (a cudaStream_t). */
parac_status gemm_pack_launch(const gemm_pack_operand *a, const gemm_pack_operand *b, void *stream,
                              parac_error *error);
/* The first, scalar pack (32x32 shared-memory transpose, one element per thread): the
 * bit-for-bit reference of the fast pack in tests/gemm/test_pack_gpu.c and the bench. */
parac_status gemm_pack_reference_launch(const gemm_pack_operand *p, void *stream, parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

/* dbscan/dbscan_internal.h — what the dbscan paths (reference, CPU, CUDA) share. */
#ifndef PARAC_DBSCAN_INTERNAL_H
#define PARAC_DBSCAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <parac/dbscan.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DBSCAN_NO_ROOT UINT32_MAX

/* The input points: exactly one of f64 / f32 is non-NULL. */
typedef struct dbscan_points {
    const double *f64;
    const float *f32;
    size_t count;
    size_t dim;
} dbscan_points;

static inline double dbscan_coordinate(const dbscan_points *points, size_t row, size_t column)
{
    size_t at = row * points->dim + column;
    return points->f64 ? points->f64[at] : (double)points->f32[at];
}

/* Why distances are compared in a scaled space: eps * eps overflows for
 * eps > ~1.3e154 (every pair would then be a neighbour) and underflows for
 * eps < ~1.5e-154 (only exact duplicates would be), and squared differences
 * of coordinates near +-1e308 overflow. Every path therefore multiplies each
 * coordinate difference by scale = 2^-e (e = eps's exponent, clamped to
 * +-DBSCAN_SCALE_MAX_EXPONENT) and compares with (eps * scale)^2, which lies
 * in [1, 4). A power of two scales exactly, so for eps in [2^-500, 2^500]
 * the scale is 1 and the comparison is bit for bit the plain one; outside, it
 * is the plain comparison done without overflow or underflow. A difference
 * that overflows (coordinates of opposite sign near 1e308) is +inf, never a
 * neighbour: its true distance exceeds DBL_MAX >= eps. */
#define DBSCAN_SCALE_FREE_EXPONENT 500
#define DBSCAN_SCALE_MAX_EXPONENT 1000

static inline double dbscan_distance_scale(double eps)
{
    int exponent = ilogb(eps);
    if (exponent >= -DBSCAN_SCALE_FREE_EXPONENT && exponent <= DBSCAN_SCALE_FREE_EXPONENT) return 1.0;
    if (exponent < -DBSCAN_SCALE_MAX_EXPONENT) exponent = -DBSCAN_SCALE_MAX_EXPONENT; /* subnormal eps */
    return ldexp(1.0, -exponent);
}

/* The squared threshold every distance is compared with (in the scaled space). */
static inline double dbscan_scaled_eps_squared(double eps, double scale)
{
    double scaled = eps * scale;
    return scaled * scaled;
}

/* Squared distance summed in coordinate order, of the scaled differences:
 * the one comparison every path makes. */
static inline double dbscan_distance_squared(const double *a, const double *b, size_t dim, double scale)
{
    double sum = 0.0;
    for (size_t k = 0; k < dim; k++) {
        double difference = (a[k] - b[k]) * scale;
        sum += difference * difference;
    }
    return sum;
}

/* dbscan_distance_squared(a, b, dim, scale) <= eps2, decided without summing every coordinate:
 * the terms are non-negative and rounding is monotone, so once a partial sum exceeds eps2 the
 * full sum does too. The same answer, bit for bit, as the full comparison (every path's), at a
 * fraction of the work for far pairs in many dimensions (the brute force above 8: 20,000 points
 * in 200-D at eps 1e-4, 35 s -> 1 s). The partial sum is tested every DBSCAN_EXIT_STRIDE
 * coordinates: a test after each one made the run 1.3-1.6x slower where pairs are near (the
 * branch on the sum keeps the processor from overlapping consecutive pairs' additions); every
 * 16 it was as fast as the full sum there or faster (a /tmp micro-benchmark, 2026-12-04). */
#define DBSCAN_EXIT_STRIDE 16
static inline int dbscan_within_eps(const double *a, const double *b, size_t dim, double scale, double eps2)
{
    double sum = 0.0;
    if (dim <= DBSCAN_EXIT_STRIDE) return dbscan_distance_squared(a, b, dim, scale) <= eps2; /* the grid's few d */
    for (size_t k = 0; k < dim;) {
        size_t end = dim - k > DBSCAN_EXIT_STRIDE ? k + DBSCAN_EXIT_STRIDE : dim;
        for (; k < end; k++) {
            double difference = (a[k] - b[k]) * scale;
            sum += difference * difference;
        }
        if (sum > eps2) return 0;
    }
    return 1;
}

/* dbscan_within_eps for the four consecutive points ys, ys + dim, ys + 2 dim, ys + 3 dim (a run of the
 * sorted points): bit i set when the i-th is within eps of x. Each sum is dbscan_distance_squared's, in
 * the same order, so the bits are the four single tests' bit for bit; four independent sums let the
 * processor overlap them. One pair's sum is a chain of dependent additions (8-D: 8 of ~4 cycles), which
 * the single test waits for pair after pair: 100,000 uniform 8-D points, eps 0.5, min_samples 500, spent
 * ~10 ns a pair on 2 threads. Above DBSCAN_EXIT_STRIDE coordinates the single test's early exit saves
 * more than overlap would, so this is for the grid's few dimensions only. */
#define DBSCAN_BATCH 4
static inline unsigned dbscan_within_eps_batch(const double *x, const double *ys, size_t dim, double scale,
                                               double eps2)
{
    const double *y0 = ys, *y1 = ys + dim, *y2 = ys + 2 * dim, *y3 = ys + 3 * dim;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (size_t k = 0; k < dim; k++) {
        double d0 = (x[k] - y0[k]) * scale, d1 = (x[k] - y1[k]) * scale;
        double d2 = (x[k] - y2[k]) * scale, d3 = (x[k] - y3[k]) * scale;
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
    }
    return (unsigned)(s0 <= eps2) | (unsigned)(s1 <= eps2) << 1 | (unsigned)(s2 <= eps2) << 2 |
           (unsigned)(s3 <= eps2) << 3;
}

/* The plain O(n^2) oracle (dbscan_reference.c). */
parac_status dbscan_reference(const dbscan_points *points, double eps, size_t min_samples, const parac_exec *exec,
                              int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error);

/* The parallel CPU path, grid (use_grid = 1) or brute force (dbscan_cpu.c), on exec->threads;
 * PARAC_ERR_CANCELLED when exec's progress callback asks to stop. */
parac_status dbscan_cpu(const dbscan_points *points, double eps, size_t min_samples, int use_grid,
                        const parac_exec *exec, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                        parac_error *error);

struct parac_progress_gate; /* core/progress.h */

/* The CUDA path (dbscan_cuda.cu, its phases in dbscan_cuda_*.cu): the same phases on GPU
 * options->exec.cuda_device, the same bytes, in slabs (dbscan_slabs.h) when the points do not fit.
 * PARAC_ERR_NO_MEMORY when even one slab does not fit (the caller then falls
 * back to the CPU). Fills every info field except device/method/total.
 * Between kernel launches it counts its phases on `progress` (initialised by the
 * caller, which reports first and last; core/progress.h) and returns
 * PARAC_ERR_CANCELLED once the callback asked to stop. */
parac_status dbscan_cuda(const dbscan_points *points, const parac_dbscan_options *options, int use_grid,
                         struct parac_progress_gate *progress, int32_t *labels, uint8_t *core_mask,
                         parac_dbscan_info *info, parac_error *error);

/* What a GPU grid run does, phase by phase. Each public parac_dbscan_gpu_variant is one recipe
 * (dbscan_gpu_recipe_of; dbscan_cuda runs options->gpu_variant's); the kernel lab (dev/dbscan/)
 * runs other combinations of the same phases through dbscan_cuda_recipe. */
typedef struct dbscan_gpu_recipe {
    parac_dbscan_gpu_variant cells; /* AUTO (chosen per slab from the density), CLASSIC, TABLE or COARSE */
    int fused;      /* cells within eps are one set before the union (TABLE_FUSED, COARSE_FUSED) */
    int keep_lists; /* the core pass keeps each point's first neighbours for the border pass */
    int sparse;     /* ... and the pairs its union must join (SPARSE) */
} dbscan_gpu_recipe;

dbscan_gpu_recipe dbscan_gpu_recipe_of(parac_dbscan_gpu_variant variant);

/* dbscan_cuda with `recipe` instead of options->gpu_variant's. */
parac_status dbscan_cuda_recipe(const dbscan_points *points, const parac_dbscan_options *options,
                                const dbscan_gpu_recipe *recipe, int use_grid, struct parac_progress_gate *progress,
                                int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error);

/* Canonical labels from a representative per point (DBSCAN_NO_ROOT = noise):
 * clusters numbered by their lowest point index. root_of[i] < count.
 * scratch holds count int32. Fills info->clusters. */
void dbscan_canonical_labels(const uint32_t *root_of, size_t count, int32_t *scratch, int32_t *labels,
                             size_t *clusters);

#ifdef __cplusplus
}
#endif
#endif

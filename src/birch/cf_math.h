/* birch/cf_math.h — clustering-feature arithmetic shared by the CPU and CUDA paths.
 *
 * A clustering feature (CF) is kept as (count, mean, sum of squared deviations
 * from the mean) instead of scikit-learn's (count, linear sum, sum of squared
 * norms): the radius then never subtracts two huge numbers, so translating the
 * data by 1e6 changes nothing. The decisions (closest entry, radius test) are
 * the same as scikit-learn's except where a value lies within rounding of a
 * tie (see docs/birch.md).
 *
 * Every operation is written with the BIRCH_ADD/SUB/MUL/DIV macros so that
 * nvcc cannot fuse a multiply and an add into an FMA: the GPU then rounds
 * exactly as the CPU does and both give byte-identical trees.
 */
#ifndef PARAC_BIRCH_CF_MATH_H
#define PARAC_BIRCH_CF_MATH_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define BIRCH_HD __host__ __device__ static inline
#else
#define BIRCH_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define BIRCH_ADD(a, b) __dadd_rn((a), (b))
#define BIRCH_SUB(a, b) __dsub_rn((a), (b))
#define BIRCH_MUL(a, b) __dmul_rn((a), (b))
#define BIRCH_DIV(a, b) __ddiv_rn((a), (b))
#else
#define BIRCH_ADD(a, b) ((a) + (b))
#define BIRCH_SUB(a, b) ((a) - (b))
#define BIRCH_MUL(a, b) ((a) * (b))
#define BIRCH_DIV(a, b) ((a) / (b))
#endif

/* Squared Euclidean distance, summed in coordinate order. */
BIRCH_HD double birch_squared_distance(const double *a, const double *b, size_t dims)
{
    double sum = 0.0;
    for (size_t j = 0; j < dims; j++) {
        double delta = BIRCH_SUB(a[j], b[j]);
        sum = BIRCH_ADD(sum, BIRCH_MUL(delta, delta));
    }
    return sum;
}

/* As above with the point in structure-of-arrays layout (coordinate j at point[j * stride]). */
BIRCH_HD double birch_squared_distance_strided(const double *point, size_t stride, const double *b, size_t dims)
{
    double sum = 0.0;
    for (size_t j = 0; j < dims; j++) {
        double delta = BIRCH_SUB(point[j * stride], b[j]);
        sum = BIRCH_ADD(sum, BIRCH_MUL(delta, delta));
    }
    return sum;
}

/* The sum of squared deviations (n, mean, ssd) would have after absorbing the
 * point x: ssd + |x - mean|^2 * n / (n + 1). */
BIRCH_HD double birch_ssd_with_point(int64_t n, const double *mean, double ssd, const double *x, size_t stride,
                                     size_t dims)
{
    double distance = birch_squared_distance_strided(x, stride, mean, dims);
    double weight = BIRCH_DIV((double)n, (double)(n + 1));
    return BIRCH_ADD(ssd, BIRCH_MUL(distance, weight));
}

/* The radius test: would the subcluster's squared radius ssd/n stay <= threshold^2? */
BIRCH_HD int birch_radius_fits(double new_ssd, int64_t new_n, double threshold_squared)
{
    return BIRCH_DIV(new_ssd, (double)new_n) <= threshold_squared;
}

/* Absorbs the point x into (n, mean, ssd), given new_ssd from birch_ssd_with_point. */
BIRCH_HD void birch_absorb_point(int64_t *n, double *mean, double *ssd, double new_ssd, const double *x, size_t stride,
                                 size_t dims)
{
    int64_t count = *n + 1;
    for (size_t j = 0; j < dims; j++) {
        double delta = BIRCH_SUB(x[j * stride], mean[j]);
        mean[j] = BIRCH_ADD(mean[j], BIRCH_DIV(delta, (double)count));
    }
    *ssd = new_ssd;
    *n = count;
}

/* The sum of squared deviations of the union of two non-empty CFs (the parallel-axis rule):
 * ssd + other_ssd + |other_mean - mean|^2 * n * other_n / (n + other_n), as birch_merge_cf sets it. */
BIRCH_HD double birch_merged_ssd(int64_t n, const double *mean, double ssd, int64_t other_n, const double *other_mean,
                                 double other_ssd, size_t dims)
{
    double distance = birch_squared_distance(other_mean, mean, dims);
    double weight = BIRCH_DIV(BIRCH_MUL((double)n, (double)other_n), (double)(n + other_n));
    return BIRCH_ADD(BIRCH_ADD(ssd, other_ssd), BIRCH_MUL(distance, weight));
}

/* Merges the CF (other_n, other_mean, other_ssd) into (n, mean, ssd)
 * (Chan et al.'s pairwise update). An empty target (n == 0) becomes a copy. */
BIRCH_HD void birch_merge_cf(int64_t *n, double *mean, double *ssd, int64_t other_n, const double *other_mean,
                             double other_ssd, size_t dims)
{
    int64_t count = *n + other_n;
    double merged_ssd;
    if (other_n == 0) return;
    if (*n == 0) {
        for (size_t j = 0; j < dims; j++) mean[j] = other_mean[j];
        *ssd = other_ssd;
        *n = other_n;
        return;
    }
    merged_ssd = birch_merged_ssd(*n, mean, *ssd, other_n, other_mean, other_ssd, dims); /* before the mean moves */
    for (size_t j = 0; j < dims; j++) {
        double delta = BIRCH_SUB(other_mean[j], mean[j]);
        mean[j] = BIRCH_ADD(mean[j], BIRCH_MUL(delta, BIRCH_DIV((double)other_n, (double)count)));
    }
    *ssd = merged_ssd;
    *n = count;
}

/* scipy's Lance–Williams update for Ward linkage (distances, not squared),
 * evaluated in scipy's order so the dendrogram is the same. */
BIRCH_HD double birch_ward_update(double d_xi, double d_yi, double d_xy, double size_x, double size_y,
                                  double size_i)
{
    double t = BIRCH_DIV(1.0, BIRCH_ADD(BIRCH_ADD(size_x, size_y), size_i));
    double a = BIRCH_MUL(BIRCH_MUL(BIRCH_MUL(BIRCH_ADD(size_i, size_x), t), d_xi), d_xi);
    double b = BIRCH_MUL(BIRCH_MUL(BIRCH_MUL(BIRCH_ADD(size_i, size_y), t), d_yi), d_yi);
    double c = BIRCH_MUL(BIRCH_MUL(BIRCH_MUL(size_i, t), d_xy), d_xy);
    return BIRCH_SUB(BIRCH_ADD(a, b), c);
}

#endif

/* core/finite.h — finding the first infinity or NaN in an array of doubles.
 *
 * Every module that takes points or matrices refuses non-finite values and
 * names the first one. The scan tests the exponent bits without a branch per
 * value (the loop vectorizes) and, given threads, splits the array into
 * blocks taken dynamically; the answer is the lowest bad index either way.
 * Users: birch's partial_fit, dbscan's input check, the metrics' point checks, matrix files. */
#ifndef PARAC_CORE_FINITE_H
#define PARAC_CORE_FINITE_H

#include <stddef.h>

/* Index of the first non-finite value of values[0..n), n if there is none.
 * threads <= 1 scans on the calling thread. */
size_t parac_first_non_finite(const double *values, size_t n, int threads);
/* The same for floats (dbscan's float32 .npy input). */
size_t parac_first_non_finite_f32(const float *values, size_t n, int threads);

#endif

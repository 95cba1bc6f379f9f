/* core/finite.h — finding the first infinity, NaN or too-large value of an array.
 *
 * Every module that takes points or matrices refuses non-finite values and
 * names the first one; birch also refuses coordinates whose squares would
 * overflow (parac_first_beyond). The scan compares the bits of |v| with those
 * of the limit without a branch per value (the loop vectorizes: for doubles
 * >= 0 the bit patterns are ordered as the values, and NaN patterns lie above
 * +inf) and, given threads, splits the array into blocks taken dynamically;
 * the answer is the lowest bad index either way.
 * Users: dbscan and birch input checks, the metrics' point checks, matrix files. */
#ifndef PARAC_CORE_FINITE_H
#define PARAC_CORE_FINITE_H

#include <stddef.h>

/* Index of the first non-finite value of values[0..n), n if there is none.
 * threads <= 1 scans on the calling thread. */
size_t parac_first_non_finite(const double *values, size_t n, int threads);

/* The same for float32 values. */
size_t parac_first_non_finite_f32(const float *values, size_t n, int threads);

/* Index of the first value v with !(|v| <= limit) (NaN included), n if none.
 * limit >= 0; limit = DBL_MAX is parac_first_non_finite. */
size_t parac_first_beyond(const double *values, size_t n, double limit, int threads);

#endif

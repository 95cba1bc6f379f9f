/* tests/birch/support_birch.h — data and quality measures for the birch tests. */
#ifndef PARAC_TEST_SUPPORT_BIRCH_H
#define PARAC_TEST_SUPPORT_BIRCH_H

#include <stddef.h>
#include <stdint.h>

#include <parac/birch.h>

#include "birch/ward_tree.h"

/* n points in d dims around `centers` centres uniform in [-10,10]^d, deviation std (malloc'ed). */
double *support_blobs(size_t n, size_t dims, size_t centers, double std, uint64_t seed);
/* n points uniform in [0, side)^dims: no clusters, so every window's points keep landing near
 * the boundaries between root entries (many root choices that the speculation gets wrong). */
double *support_uniform(size_t n, size_t dims, double side, uint64_t seed);
/* As support_blobs with the centres on a grid of spacing `spacing` (well separated). */
double *support_grid_blobs(size_t n, size_t dims, size_t centers, double std, double spacing, uint64_t seed);
/* The shared chameleon set (10000×2), NULL when missing. */
double *support_chameleon(size_t *n);
/* Adjusted Rand index of two labellings. */
double support_ari(const int32_t *a, const int32_t *b, size_t n);
/* Sum of squared distances of the points to their cluster's mean. */
double support_sse(const double *points, size_t n, size_t dims, const int32_t *labels);

/* Fits a model on points (chunks of `chunk` points per partial_fit, 0 = one call),
 * runs the global step and labels the points. Returns NULL on failure (reported). */
parac_birch *support_fit(const parac_birch_options *options, const double *points, size_t n, size_t dims,
                         size_t chunk, int32_t *labels);
/* The subcluster centroids of a fitted model (malloc'ed, m×dims). */
double *support_subclusters(const parac_birch *model, size_t *m);

/* Every live cluster (size > 0) other than x by (squared Ward distance to x, id), ascending, into
 * nearest (room for m): the scan that the Ward chain's tree and kept answers must agree with. The
 * count. */
size_t support_ward_by_scan(const double *centers, const int64_t *size, size_t m, size_t dims, size_t x,
                            ward_candidate *nearest);

#endif

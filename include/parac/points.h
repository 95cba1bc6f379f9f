/* parac/points.h — reproducible synthetic point clouds (blobs, uniform, moons).
 *
 * Used by `parac gen points`, by the dbscan and birch tests and benchmarks.
 * Output is a caller-owned row-major n×d array of doubles (and, optionally,
 * the generating label of each point). The same options and seed give the
 * same bytes for every thread count: points are generated in fixed blocks of
 * PARAC_POINTS_BLOCK rows, each from its own random sub-stream.
 *
 * Kinds:
 *   BLOBS    like scikit-learn's make_blobs: `centers` centres uniform in the
 *            box [box_low, box_high]^d (default [-10, 10]); point i belongs to
 *            centre i mod centers and is that centre plus N(0, std²) per
 *            coordinate (std default 1.0). Truth label: the centre index.
 *   UNIFORM  uniform in the unit cube [0, 1)^d. Truth label: 0.
 *   MOONS    like make_moons, d >= 2: point i is on the upper half circle when
 *            i is even (label 0), on the shifted lower one when odd (label 1),
 *            at a uniform random angle; N(0, std²) noise on every coordinate
 *            (std default 0: no noise); coordinates past the second are noise.
 */
#ifndef PARAC_POINTS_H
#define PARAC_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PARAC_POINTS_BLOCK 65536

typedef enum parac_points_kind {
    PARAC_POINTS_BLOBS = 0,
    PARAC_POINTS_UNIFORM,
    PARAC_POINTS_MOONS
} parac_points_kind;

typedef struct parac_points_options {
    parac_points_kind kind;
    size_t count;       /* n, number of points (0 is allowed: nothing is written) */
    size_t dim;         /* d >= 1 (moons: d >= 2) */
    uint64_t seed;
    size_t centers;     /* blobs: number of centres; 0 means 3 */
    double std;         /* blobs: deviation (0 means 1.0); moons: noise deviation (0: none) */
    double box_low;     /* blobs: centre box; box_low == box_high (e.g. both 0) means [-10, 10] */
    double box_high;
    parac_exec exec;    /* threads used; the device is ignored (generation is on the CPU) */
} parac_points_options;

/* The defaults: blobs, count 0 and dim 2 (the caller sets the size), seed 0, 3 centres of
 * deviation 1.0 in the box [-10, 10], parac_exec_init's threads. */
void parac_points_options_init(parac_points_options *options);

/* "blobs", "uniform" or "moons" to a kind; PARAC_ERR_INVALID_ARGUMENT otherwise. */
parac_status parac_points_kind_parse(const char *name, parac_points_kind *kind, parac_error *error);
const char *parac_points_kind_name(parac_points_kind kind);

/* Fills points[count * dim] (row-major) and, when truth is non-NULL,
 * truth[count] with each point's generating label. Both are caller-owned.
 * Fails with PARAC_ERR_INVALID_ARGUMENT for d = 0, moons with d < 2, a
 * negative or non-finite std, or an empty/inverted box. */
parac_status parac_points_generate(const parac_points_options *options, double *points, int32_t *truth,
                                   parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

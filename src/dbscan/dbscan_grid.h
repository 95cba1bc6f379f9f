/* dbscan/dbscan_grid.h — the uniform grid both DBSCAN paths index points with.
 *
 * Cells have side eps/sqrt(g) over the first g = min(d, 3) coordinates, so a
 * cell's points are (nearly) all within eps of each other, and a neighbour of
 * a point lies in one of a fixed stencil of nearby cells. Projecting onto g
 * coordinates keeps the stencil small for any d and stays exact: a pair within
 * eps in d dimensions is within eps in the first g. Cell keys linearise the
 * cell coordinates with the last grid coordinate fastest, so the stencil is a
 * few "rows": runs of consecutive keys that are contiguous after sorting.
 * g = 0 is the brute-force plan: one cell holding every point.
 */
#ifndef PARAC_DBSCAN_GRID_H
#define PARAC_DBSCAN_GRID_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DBSCAN_GRID_MAX_DIMS 3
#define DBSCAN_GRID_MAX_ROWS 64 /* (2r+1)^(g-1) rows with r <= 3 */

typedef struct dbscan_grid_plan {
    int dims;                                /* g: 0 (brute force) to 3 */
    double origin[DBSCAN_GRID_MAX_DIMS];     /* lowest coordinate of the points */
    double side;                             /* cell side (eps/sqrt(g), doubled while an axis would exceed
                                                2^32 cells or keys 62 bits) */
    uint64_t extent[DBSCAN_GRID_MAX_DIMS];   /* cells along each grid coordinate */
    int key_bits;                            /* bits a key needs (0 for one cell) */
    int row_count;                           /* stencil rows */
    int32_t row_prefix[DBSCAN_GRID_MAX_ROWS][DBSCAN_GRID_MAX_DIMS]; /* offsets of the leading coordinates */
    int32_t row_half_width[DBSCAN_GRID_MAX_ROWS];                   /* last coordinate spans [-w, w] */
} dbscan_grid_plan;

/* Builds the plan from the bounding box [low, high] of the first `dims`
 * coordinates. dims = 0 gives the one-cell (brute-force) plan. */
parac_status dbscan_grid_plan_build(dbscan_grid_plan *plan, int dims, const double *low, const double *high,
                                    double eps, parac_error *error);

/* The same with cells of side eps * DBSCAN_GRID_COARSE_SIDE: just over eps, so
 * the stencil spans one cell each way (3^g cells instead of 5^g); a slightly
 * larger side keeps cells two apart out of the stencil despite the slack. */
#define DBSCAN_GRID_COARSE_SIDE 1.001
parac_status dbscan_grid_plan_build_coarse(dbscan_grid_plan *plan, int dims, const double *low, const double *high,
                                           double eps, parac_error *error);

/* Cells in the key space (product of the extents). */
uint64_t dbscan_grid_key_space(const dbscan_grid_plan *plan);

/* The cell coordinate of a value along grid coordinate k, clamped into the
 * grid before the conversion (a position past 2^64, +inf from an overflowed
 * difference, or NaN never reaches the cast). */
static inline uint64_t dbscan_grid_cell(const dbscan_grid_plan *plan, int k, double value)
{
    double position = (value - plan->origin[k]) / plan->side;
    if (!(position > 0)) return 0;
    if (position >= (double)plan->extent[k]) return plan->extent[k] - 1;
    return (uint64_t)position;
}

/* Key range [*first, *last] of stencil row `row` around the cell with
 * coordinates `cell`; 0 when the row lies outside the grid. */
int dbscan_grid_row_keys(const dbscan_grid_plan *plan, const uint64_t *cell, int row, uint64_t *first, uint64_t *last);

/* Cell coordinates of a key. */
void dbscan_grid_key_cell(const dbscan_grid_plan *plan, uint64_t key, uint64_t *cell);

#ifdef __cplusplus
}
#endif
#endif

/* dbscan/dbscan_grid.c — grid plan: cell size, extents, stencil rows.
 *
 * Why a grid axis has at most 2^32 cells: a cell coordinate is
 * floor((x - origin) / side), two roundings of relative size 2^-53 each, so
 * at position P it may be off by P * 2^-52 cells; at most 2^32 cells keep
 * that below 2^-20 cells, well inside the stencil slack. (With 2^62 cells on
 * one axis, two points within eps could land hundreds of cells apart.)
 * Coordinates whose span overflows a double (+-1e308) get the span DBL_MAX:
 * the points beyond it are clamped into the last cell, and clamping only
 * brings cells closer, so no neighbour leaves the stencil.
 *
 * Why the stencil is safe: cells a and b (offset o) hold points at distance
 * at least sqrt(sum_k (max(|o_k| - 1, 0) * side)^2). A row is kept whenever
 * that bound is <= eps * (1 + 1e-4); the slack covers rounding in the cell
 * computation (a point off by an ulp may land in the next cell), and costs
 * nothing since the next bound up is larger by a factor (g + 1) / g.
 */
#include "dbscan/dbscan_grid.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "core/error.h"

#define STENCIL_SLACK 1e-4
#define MAX_KEY_BITS 62
#define MAX_AXIS_CELLS 4294967296.0 /* 2^32: see the head comment */

static int bits_for(uint64_t value)
{
    int bits = 0;
    while (bits < 64 && (value >> bits) != 0) bits++;
    return bits;
}

/* Extents for the current side; 0 when an axis would exceed MAX_AXIS_CELLS
 * or the key space 62 bits. */
static int compute_extents(dbscan_grid_plan *plan, const double *low, const double *high)
{
    double cells_total = 1.0;
    uint64_t product = 1;
    for (int k = 0; k < plan->dims; k++) {
        double span = high[k] - low[k];
        double cells = floor((span <= DBL_MAX ? span : DBL_MAX) / plan->side) + 1.0;
        cells_total *= cells;
        if (!(cells <= MAX_AXIS_CELLS) || cells_total > ldexp(1.0, MAX_KEY_BITS)) return 0;
        plan->extent[k] = (uint64_t)cells;
        product *= plan->extent[k];
    }
    plan->key_bits = bits_for(product - 1);
    return 1;
}

/* The squared gap between cells `offset` apart, in cell sides. */
static double gap_squared(const int32_t *offset, int dims)
{
    double sum = 0.0;
    for (int k = 0; k < dims; k++) {
        int32_t away = offset[k] < 0 ? -offset[k] : offset[k];
        double gap = away > 1 ? (double)(away - 1) : 0.0;
        sum += gap * gap;
    }
    return sum;
}

/* Every prefix (offsets of coordinates 0..g-2) with the widest last-coordinate
 * span that keeps the cell gap within eps. Worked in cell sides (eps / side
 * is at most sqrt(3)), so an eps near DBL_MAX overflows nothing. */
static void build_stencil(dbscan_grid_plan *plan, double eps)
{
    double reach_in_sides = eps / plan->side * (1.0 + STENCIL_SLACK);
    double limit = eps / plan->side * (eps / plan->side) * (1.0 + STENCIL_SLACK);
    int32_t reach = (int32_t)floor(reach_in_sides) + 1;
    int32_t width = 2 * reach + 1;
    int prefix_dims = plan->dims - 1;
    int prefixes = 1;
    plan->row_count = 0;
    for (int k = 0; k < prefix_dims; k++) prefixes *= width;
    for (int p = 0; p < prefixes; p++) {
        int32_t offset[DBSCAN_GRID_MAX_DIMS] = {0, 0, 0};
        int rest = p;
        int32_t half = -1;
        for (int k = 0; k < prefix_dims; k++) {
            offset[k] = rest % width - reach;
            rest /= width;
        }
        for (int32_t w = 0; w <= reach; w++) {
            offset[prefix_dims] = w;
            if (gap_squared(offset, plan->dims) <= limit) half = w;
        }
        if (half < 0) continue;
        memcpy(plan->row_prefix[plan->row_count], offset, sizeof offset);
        plan->row_half_width[plan->row_count++] = half;
    }
}

static parac_status build_with_side(dbscan_grid_plan *plan, int dims, const double *low, const double *high,
                                   double eps, double side, parac_error *error)
{
    memset(plan, 0, sizeof *plan);
    plan->dims = dims;
    plan->side = dims > 0 ? side : 1.0;
    if (dims == 0) {
        plan->row_count = 1;
        return PARAC_OK;
    }
    for (int k = 0; k < dims; k++) plan->origin[k] = low[k];
    /* Very spread-out data with a tiny eps: coarser cells keep keys in 62
     * bits; the answer stays exact, only the dense-cell shortcut fires less. */
    while (!compute_extents(plan, low, high)) plan->side *= 2.0;
    build_stencil(plan, eps);
    if (plan->row_count <= 0 || plan->row_count > DBSCAN_GRID_MAX_ROWS)
        return parac_fail(error, PARAC_ERR_INTERNAL, "dbscan: grid stencil has %d rows", plan->row_count);
    return PARAC_OK;
}

parac_status dbscan_grid_plan_build(dbscan_grid_plan *plan, int dims, const double *low, const double *high,
                                    double eps, parac_error *error)
{
    return build_with_side(plan, dims, low, high, eps, dims > 0 ? eps / sqrt((double)dims) : 1.0, error);
}

parac_status dbscan_grid_plan_build_coarse(dbscan_grid_plan *plan, int dims, const double *low, const double *high,
                                           double eps, parac_error *error)
{
    return build_with_side(plan, dims, low, high, eps, eps * DBSCAN_GRID_COARSE_SIDE, error);
}

uint64_t dbscan_grid_key_space(const dbscan_grid_plan *plan)
{
    uint64_t product = 1;
    for (int k = 0; k < plan->dims; k++) product *= plan->extent[k];
    return product;
}

void dbscan_grid_key_cell(const dbscan_grid_plan *plan, uint64_t key, uint64_t *cell)
{
    for (int k = plan->dims - 1; k >= 0; k--) {
        cell[k] = key % plan->extent[k];
        key /= plan->extent[k];
    }
}

int dbscan_grid_row_keys(const dbscan_grid_plan *plan, const uint64_t *cell, int row, uint64_t *first, uint64_t *last)
{
    uint64_t key = 0;
    int last_dim = plan->dims - 1;
    int64_t low, high;
    if (plan->dims == 0) {
        *first = *last = 0;
        return 1;
    }
    for (int k = 0; k < last_dim; k++) {
        int64_t c = (int64_t)cell[k] + plan->row_prefix[row][k];
        if (c < 0 || c >= (int64_t)plan->extent[k]) return 0;
        key = key * plan->extent[k] + (uint64_t)c;
    }
    low = (int64_t)cell[last_dim] - plan->row_half_width[row];
    high = (int64_t)cell[last_dim] + plan->row_half_width[row];
    if (low < 0) low = 0;
    if (high >= (int64_t)plan->extent[last_dim]) high = (int64_t)plan->extent[last_dim] - 1;
    *first = key * plan->extent[last_dim] + (uint64_t)low;
    *last = key * plan->extent[last_dim] + (uint64_t)high;
    return 1;
}

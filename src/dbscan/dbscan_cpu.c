/* dbscan/dbscan_cpu.c — parallel exact DBSCAN on the CPU (OpenMP).
 *
 * Phases: (1) index: cell key per point, stable radix sort, cell table, the
 * points copied in cell order; (2) core: a cell with >= min_samples points
 * whose bounding box has diagonal <= eps is all core without pairwise work
 * (the "dense-cell shortcut"), other points count neighbours over the stencil
 * with early exit at min_samples; (3) union: lock-free union-find over core
 * pairs, each pair visited from its lower point only; (4) border: the
 * lowest-index core neighbour; (5) canonical renumbering. The brute-force
 * method is the same code with one cell holding every point.
 *
 * Cells of DBSCAN_TREE_MIN_POINTS or more get a kd-tree (dbscan_cell_tree.h) on first use, and a
 * point's count and a border point's lowest core neighbour read such a cell by its tree: whole nodes
 * within eps count at once, nodes beyond it not at all. That bounds the work where eps spans much of
 * the data and min_samples is a large part of n (then most points read most of the others).
 *
 * A cell whose bounding box has diagonal <= eps but too few points for the
 * shortcut ("within" cell) still needs no pairwise work inside it: each of its
 * points counts the cell whole, its core points are one set before the union,
 * and the border phase skips stencil rows without a core point. Without that,
 * 100,000 identical points with min_samples above their count took 14 s on 2
 * threads (every point compared with every other, twice), now milliseconds.
 *
 * Phases (2)-(4) loop over work items: a dense cell whole, any other cell in
 * runs of at most ITEM_POINTS points. That spreads a big cell (brute force's
 * only cell) over the threads, and bounds the time between two progress
 * checkpoints (every thread counts its finished items on the run's progress
 * gate and skips its remaining items once the callback asked to stop; the run
 * then returns PARAC_ERR_CANCELLED).
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/threads.h"
#include "core/timer.h"
#include "dbscan/dbscan_cell_tree.h"
#include "dbscan/dbscan_grid.h"
#include "dbscan/dbscan_internal.h"
#include "dbscan/radix_sort.h"
#include "core/union_find.h"

typedef struct point_range {
    uint32_t begin, end;           /* sorted positions */
    uint32_t first_cell, end_cell; /* the cells they span */
} point_range;

/* Points of a non-dense cell per work item: a few milliseconds of brute force. */
#define ITEM_POINTS 256

typedef struct work_item {
    uint32_t cell, begin, end; /* sorted positions [begin, end) of the cell */
} work_item;

typedef struct cpu_index {
    dbscan_grid_plan plan;
    size_t count, dim;
    double scale;          /* coordinate differences are compared scaled (dbscan_distance_scale) */
    double eps2;           /* (eps * scale)^2 */
    size_t min_samples;
    int threads;
    uint64_t *keys;        /* sorted cell key of each point */
    uint32_t *order;       /* sorted position -> original index */
    double *xs;            /* points in sorted order, count * dim */
    size_t cells;
    uint64_t *cell_key;    /* cells */
    uint32_t *cell_start;  /* cells + 1 */
    uint8_t *dense;        /* cells: all-core by the shortcut */
    uint8_t *within;       /* cells: every pair of its points within eps */
    uint32_t *cores_before; /* cells + 1: core points in the cells before (after the core phase) */
    uint8_t *core;         /* sorted position */
    uint32_t *parent;      /* union-find, sorted positions */
    work_item *items;      /* item_count */
    size_t item_count;
    int item_chunk;        /* items a thread takes at a time: 16 as the cell loops took, fewer for few items */
    const parac_exec *exec;
    parac_progress_gate progress; /* total = 3 * count points: core, union, border */
    uint32_t *tree_of;     /* cells: its tree in trees, UINT32_MAX for a small cell; NULL: no large cell */
    dbscan_tree *trees;    /* tree_count, built on first use (tree_state) */
    uint8_t *tree_state;   /* TREE_NONE, TREE_READY or TREE_FAILED (out of memory: read point by point) */
    size_t tree_count;
    int cores_known;       /* the core phase is over: a tree built now records its lowest cores */
} cpu_index;

enum { TREE_NONE, TREE_READY, TREE_FAILED };

static void free_index(cpu_index *index)
{
    free(index->keys);
    free(index->order);
    free(index->xs);
    free(index->cell_key);
    free(index->cell_start);
    free(index->dense);
    free(index->within);
    free(index->cores_before);
    free(index->core);
    free(index->parent);
    free(index->items);
    for (size_t t = 0; t < index->tree_count; t++) dbscan_tree_free(&index->trees[t]);
    free(index->tree_of);
    free(index->trees);
    free(index->tree_state);
}

static size_t lower_bound_key(const uint64_t *keys, size_t count, uint64_t key)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (keys[middle] < key) low = middle + 1;
        else high = middle;
    }
    return low;
}

/* The point ranges of the stencil around a cell; returns how many. */
static int neighbour_ranges(const cpu_index *index, size_t cell, point_range *ranges)
{
    uint64_t coordinates[DBSCAN_GRID_MAX_DIMS];
    int count = 0;
    if (index->plan.dims == 0) {
        ranges[0].begin = ranges[0].first_cell = 0;
        ranges[0].end = (uint32_t)index->count;
        ranges[0].end_cell = (uint32_t)index->cells;
        return 1;
    }
    dbscan_grid_key_cell(&index->plan, index->cell_key[cell], coordinates);
    for (int row = 0; row < index->plan.row_count; row++) {
        uint64_t first, last;
        size_t first_cell, end_cell;
        if (!dbscan_grid_row_keys(&index->plan, coordinates, row, &first, &last)) continue;
        first_cell = lower_bound_key(index->cell_key, index->cells, first);
        end_cell = lower_bound_key(index->cell_key, index->cells, last + 1);
        if (first_cell >= end_cell) continue;
        ranges[count].first_cell = (uint32_t)first_cell;
        ranges[count].end_cell = (uint32_t)end_cell;
        ranges[count].begin = index->cell_start[first_cell];
        ranges[count++].end = index->cell_start[end_cell];
    }
    return count;
}

static void point_bounds(const dbscan_points *points, int dims, int threads, double *low, double *high)
{
    double lo[DBSCAN_GRID_MAX_DIMS] = {INFINITY, INFINITY, INFINITY};
    double hi[DBSCAN_GRID_MAX_DIMS] = {-INFINITY, -INFINITY, -INFINITY};
#pragma omp parallel for num_threads(threads) reduction(min : lo[:DBSCAN_GRID_MAX_DIMS]) \
    reduction(max : hi[:DBSCAN_GRID_MAX_DIMS])
    for (size_t i = 0; i < points->count; i++)
        for (int k = 0; k < dims; k++) {
            double value = dbscan_coordinate(points, i, (size_t)k);
            if (value < lo[k]) lo[k] = value;
            if (value > hi[k]) hi[k] = value;
        }
    for (int k = 0; k < dims; k++) {
        low[k] = points->count ? lo[k] : 0.0;
        high[k] = points->count ? hi[k] : 0.0;
    }
}

static parac_status build_cells(cpu_index *index)
{
    size_t n = index->count, cells = 0;
    for (size_t i = 0; i < n; i++) cells += i == 0 || index->keys[i] != index->keys[i - 1];
    index->cells = cells;
    index->cell_key = malloc((cells + 1) * sizeof(uint64_t));
    index->cell_start = malloc((cells + 1) * sizeof(uint32_t));
    index->dense = calloc(cells + 1, 1);
    index->within = calloc(cells + 1, 1);
    index->cores_before = malloc((cells + 1) * sizeof(uint32_t));
    if (!index->cell_key || !index->cell_start || !index->dense || !index->within || !index->cores_before)
        return PARAC_ERR_NO_MEMORY;
    cells = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || index->keys[i] != index->keys[i - 1]) {
            index->cell_key[cells] = index->keys[i];
            index->cell_start[cells++] = (uint32_t)i;
        }
    index->cell_start[cells] = (uint32_t)n;
    return PARAC_OK;
}

static parac_status build_index(cpu_index *index, const dbscan_points *points, int use_grid, double eps,
                                parac_error *error)
{
    size_t n = points->count, d = points->dim;
    int dims = use_grid ? (int)(d < DBSCAN_GRID_MAX_DIMS ? d : DBSCAN_GRID_MAX_DIMS) : 0;
    double low[DBSCAN_GRID_MAX_DIMS], high[DBSCAN_GRID_MAX_DIMS];
    parac_status status;
    point_bounds(points, dims, index->threads, low, high);
    status = dbscan_grid_plan_build(&index->plan, dims, low, high, eps, error);
    if (status != PARAC_OK) return status;
    index->keys = malloc((n + 1) * sizeof(uint64_t));
    index->order = malloc((n + 1) * sizeof(uint32_t));
    index->xs = malloc((n * d + 1) * sizeof(double));
    if (!index->keys || !index->order || !index->xs)
        return parac_fail_no_memory(error, "dbscan index", (unsigned long long)n * (12 + 8 * d));
#pragma omp parallel for num_threads(index->threads)
    for (size_t i = 0; i < n; i++) {
        uint64_t key = 0;
        for (int k = 0; k < dims; k++)
            key = key * index->plan.extent[k] +
                  dbscan_grid_cell(&index->plan, k, dbscan_coordinate(points, i, (size_t)k));
        index->keys[i] = key;
        index->order[i] = (uint32_t)i;
    }
    status = dbscan_radix_sort_pairs(index->keys, index->order, n, index->plan.key_bits, index->threads, error);
    if (status != PARAC_OK) return status;
#pragma omp parallel for num_threads(index->threads)
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++) index->xs[i * d + k] = dbscan_coordinate(points, index->order[i], k);
    if (build_cells(index) != PARAC_OK) return parac_fail_no_memory(error, "dbscan cells", n * 13);
    return PARAC_OK;
}

/* All pairs of the cell are within eps when the squared diagonal of its
 * bounding box is: |a_k - b_k| <= extent_k exactly, and rounding is monotone,
 * so the computed pair distance never exceeds the computed diagonal. */
static int cell_is_within_eps(const cpu_index *index, size_t cell)
{
    size_t d = index->dim, begin = index->cell_start[cell], end = index->cell_start[cell + 1];
    double diagonal = 0.0;
    for (size_t k = 0; k < d; k++) {
        double lo = index->xs[begin * d + k], hi = lo, extent;
        for (size_t i = begin + 1; i < end; i++) {
            double value = index->xs[i * d + k];
            lo = value < lo ? value : lo;
            hi = value > hi ? value : hi;
        }
        extent = (hi - lo) * index->scale;
        diagonal += extent * extent;
    }
    return diagonal <= index->eps2;
}

/* A tree slot for every cell of DBSCAN_TREE_MIN_POINTS or more, on the grid and for points of at most
 * DBSCAN_TREE_MAX_DIMS coordinates (beyond, boxes prune too little to pay); 0 when out of memory. */
static int plan_trees(cpu_index *index)
{
    size_t large = 0;
    if (index->plan.dims == 0 || index->dim > DBSCAN_TREE_MAX_DIMS) return 1;
    for (size_t cell = 0; cell < index->cells; cell++)
        large += index->cell_start[cell + 1] - index->cell_start[cell] >= DBSCAN_TREE_MIN_POINTS;
    if (large == 0) return 1;
    index->tree_of = malloc((index->cells + 1) * sizeof *index->tree_of);
    index->trees = calloc(large, sizeof *index->trees);
    index->tree_state = calloc(large, 1);
    if (!index->tree_of || !index->trees || !index->tree_state) return 0;
    for (size_t cell = 0; cell < index->cells; cell++)
        index->tree_of[cell] = index->cell_start[cell + 1] - index->cell_start[cell] >= DBSCAN_TREE_MIN_POINTS
                                   ? (uint32_t)index->tree_count++
                                   : UINT32_MAX;
    return 1;
}

/* The tree of a large cell, built by the first thread that needs it (the others wait for it); NULL
 * for a small cell, or when the tree did not fit in memory (its points are then read one by one). */
static const dbscan_tree *cell_tree(cpu_index *index, size_t cell)
{
    uint32_t t = index->tree_of[cell];
    uint8_t state;
    if (t == UINT32_MAX) return NULL;
    state = __atomic_load_n(&index->tree_state[t], __ATOMIC_ACQUIRE);
    if (state == TREE_NONE) {
#pragma omp critical(dbscan_cell_tree)
        if (__atomic_load_n(&index->tree_state[t], __ATOMIC_ACQUIRE) == TREE_NONE) {
            int built = dbscan_tree_build(&index->trees[t], index->xs, index->dim, index->cell_start[cell],
                                          index->cell_start[cell + 1]);
            if (built && index->cores_known) dbscan_tree_mark_cores(&index->trees[t], index->core, index->order);
            __atomic_store_n(&index->tree_state[t], (uint8_t)(built ? TREE_READY : TREE_FAILED), __ATOMIC_RELEASE);
        }
        state = __atomic_load_n(&index->tree_state[t], __ATOMIC_ACQUIRE);
    }
    return state == TREE_READY ? &index->trees[t] : NULL;
}

/* The core phase is over: the trees built so far record their lowest core points. */
static void mark_tree_cores(cpu_index *index)
{
    index->cores_known = 1;
#pragma omp parallel for num_threads(index->threads) schedule(dynamic, 1)
    for (size_t t = 0; t < index->tree_count; t++)
        if (index->tree_state[t] == TREE_READY) dbscan_tree_mark_cores(&index->trees[t], index->core, index->order);
}

/* Adds the neighbours of x among sorted positions [from, to): 1 once they reach min_samples, -1 once
 * they no longer can (*misses_left, the candidates that may still fail, is spent), else 0. */
static int count_neighbours(const cpu_index *index, const double *x, uint32_t from, uint32_t to, size_t *neighbours,
                            size_t *misses_left)
{
    size_t d = index->dim;
    uint32_t q = from;
    if (d <= DBSCAN_EXIT_STRIDE) /* four at a time, decided in order: the same stops as one by one */
        for (; to - q >= DBSCAN_BATCH; q += DBSCAN_BATCH) {
            unsigned within = dbscan_within_eps_batch(x, index->xs + (size_t)q * d, d, index->scale, index->eps2);
            for (int i = 0; i < DBSCAN_BATCH; i++)
                if (!(within >> i & 1u)) {
                    if ((*misses_left)-- == 0) return -1;
                } else if (++*neighbours >= index->min_samples) {
                    return 1;
                }
        }
    for (; q < to; q++) {
        if (!dbscan_within_eps(x, index->xs + (size_t)q * d, d, index->scale, index->eps2)) {
            if ((*misses_left)-- == 0) return -1;
            continue;
        }
        if (++*neighbours >= index->min_samples) return 1;
    }
    return 0;
}

/* The neighbours of x in one stencil range, the own cell left out when it was counted whole
 * ([own_begin, own_end) when own_within): as count_neighbours. */
static int count_range(const cpu_index *index, const double *x, const point_range *range, uint32_t own_begin,
                       uint32_t own_end, int own_within, size_t *neighbours, size_t *misses_left)
{
    uint32_t begin = range->begin, end = range->end;
    int found;
    if (!own_within || end <= own_begin || begin >= own_end)
        return count_neighbours(index, x, begin, end, neighbours, misses_left);
    if ((found = count_neighbours(index, x, begin, own_begin > begin ? own_begin : begin, neighbours, misses_left)))
        return found;
    return count_neighbours(index, x, own_end < end ? own_end : end, end, neighbours, misses_left);
}

/* The neighbours of x in the stencil cell by cell: a small cell point by point at once, a large one
 * by its tree, all the trees together once the small cells are done (dbscan_tree_count_queued). */
static int count_by_cells(cpu_index *index, dbscan_tree_queue *queue, const double *x, const point_range *ranges,
                          int range_count, size_t own_cell, int own_within, size_t *neighbours, size_t *misses_left)
{
    for (int r = 0; r < range_count; r++)
        for (size_t cell = ranges[r].first_cell; cell < ranges[r].end_cell; cell++) {
            const dbscan_tree *tree;
            int found;
            if (own_within && cell == own_cell) continue;
            if ((tree = cell_tree(index, cell)) && dbscan_tree_queue_root(queue, tree)) continue;
            found = count_neighbours(index, x, index->cell_start[cell], index->cell_start[cell + 1], neighbours,
                                     misses_left);
            if (found) {
                queue->count = 0;
                return found;
            }
        }
    return dbscan_tree_count_queued(queue, index->xs, x, index->scale, index->eps2, index->min_samples, neighbours,
                                    misses_left);
}

/* Point p of cell own_cell: a within cell counts whole (every point of it is a neighbour, p
 * included) and its points are not compared again. The search stops as soon as the answer is known
 * either way: at min_samples neighbours, or when the candidates left cannot reach it (min_samples
 * near n: `--min-samples 1e12` on 1 M points at a wide eps compared every pair, over 60 s; now the
 * first misses end it). */
static int point_is_core(cpu_index *index, dbscan_tree_queue *queue, size_t p, size_t own_cell,
                         const point_range *ranges, int range_count)
{
    const double *x = index->xs + p * index->dim;
    uint32_t own_begin = index->cell_start[own_cell], own_end = index->cell_start[own_cell + 1];
    int own_within = index->within[own_cell];
    size_t neighbours = own_within ? own_end - own_begin : 0, candidates = neighbours, misses_left;
    if (neighbours >= index->min_samples) return 1;
    for (int r = 0; r < range_count; r++) {
        uint32_t begin = ranges[r].begin, end = ranges[r].end;
        candidates += end - begin;
        if (own_within && end > own_begin && begin < own_end) /* the own cell, counted already */
            candidates -= (own_end < end ? own_end : end) - (own_begin > begin ? own_begin : begin);
    }
    if (candidates < index->min_samples) return 0;
    misses_left = candidates - index->min_samples;
    if (index->tree_of)
        return count_by_cells(index, queue, x, ranges, range_count, own_cell, own_within, &neighbours,
                              &misses_left) > 0;
    for (int r = 0; r < range_count; r++) {
        int found = count_range(index, x, &ranges[r], own_begin, own_end, own_within, &neighbours, &misses_left);
        if (found) return found > 0;
    }
    return 0;
}

/* Within cells and the dense-cell shortcut, cell by cell (before the items are cut). */
static void mark_dense_cells(cpu_index *index)
{
#pragma omp parallel for num_threads(index->threads) schedule(dynamic, 16)
    for (size_t cell = 0; cell < index->cells; cell++) {
        size_t begin = index->cell_start[cell], end = index->cell_start[cell + 1];
        index->within[cell] = (uint8_t)(end - begin == 1 || cell_is_within_eps(index, cell));
        index->dense[cell] = (uint8_t)(end - begin >= index->min_samples && index->within[cell]);
        memset(index->core + begin, index->dense[cell], end - begin);
    }
}

/* Dense cells whole, other cells in runs of ITEM_POINTS. */
static parac_status cut_items(cpu_index *index)
{
    size_t count = 0;
    for (size_t cell = 0; cell < index->cells; cell++) {
        size_t size = index->cell_start[cell + 1] - index->cell_start[cell];
        count += index->dense[cell] ? 1 : (size + ITEM_POINTS - 1) / ITEM_POINTS;
    }
    index->items = malloc((count + 1) * sizeof(work_item));
    if (!index->items) return PARAC_ERR_NO_MEMORY;
    index->item_count = 0;
    for (size_t cell = 0; cell < index->cells; cell++) {
        uint32_t begin = index->cell_start[cell], end = index->cell_start[cell + 1];
        uint32_t step = index->dense[cell] ? end - begin : ITEM_POINTS;
        for (uint32_t at = begin; at < end; at += step) {
            work_item *item = &index->items[index->item_count++];
            item->cell = (uint32_t)cell;
            item->begin = at;
            item->end = end - at > step ? at + step : end;
        }
    }
    return PARAC_OK;
}

/* Called by every thread before an item: 1 when the run was cancelled (skip the item). */
static int item_cancelled(cpu_index *index)
{
    return parac_progress_gate_cancelled(&index->progress);
}

/* Progress counts points, count per phase. A thread hands its finished points to the gate
 * PROGRESS_POINTS at a time: one atomic add and one clock read per batch rather than per item
 * (a small cell's item can cost less than both: 1M uniform 2-D points, eps 0.002, 2 threads, an add
 * per item took the border phase from 0.03 s to 0.06 s). */
#define PROGRESS_POINTS 1024

/* Called by every thread after an item; *pending: the thread's points not yet handed over. */
static void item_done(cpu_index *index, const work_item *item, size_t *pending)
{
    *pending += item->end - item->begin;
    if (*pending < PROGRESS_POINTS) return;
    parac_progress_gate_add(&index->progress, *pending);
    *pending = 0;
}

static void mark_core_points(cpu_index *index)
{
#pragma omp parallel num_threads(index->threads)
    {
        point_range ranges[DBSCAN_GRID_MAX_ROWS];
        dbscan_tree_queue queue = {0}; /* this thread's */
        size_t pending = 0;
#pragma omp for schedule(dynamic, index->item_chunk)
        for (size_t i = 0; i < index->item_count; i++) {
            const work_item *item = &index->items[i];
            if (item_cancelled(index)) continue;
            if (!index->dense[item->cell]) {
                int range_count = neighbour_ranges(index, item->cell, ranges);
                for (size_t p = item->begin; p < item->end; p++)
                    index->core[p] = (uint8_t)point_is_core(index, &queue, p, item->cell, ranges, range_count);
            }
            item_done(index, item, &pending);
        }
        dbscan_tree_queue_free(&queue);
        parac_progress_gate_add(&index->progress, pending);
    }
}

/* The core points of a within cell are one set already (joined to `set` before the union): link
 * each core q after the cell (cell_end on) to it when any of the item's core points [begin, end)
 * is within eps of q. A dense cell is one item, every point core. */
static void join_within_cell(cpu_index *index, uint32_t set, size_t begin, size_t end, size_t cell_end,
                             const point_range *ranges, int range_count)
{
    size_t d = index->dim;
    for (int r = 0; r < range_count; r++)
        for (uint32_t q = ranges[r].begin > cell_end ? ranges[r].begin : (uint32_t)cell_end; q < ranges[r].end; q++) {
            if (!index->core[q] || union_find_root(index->parent, q) == union_find_root(index->parent, set)) continue;
            for (size_t p = begin; p < end; p++)
                if (index->core[p] &&
                    dbscan_within_eps(index->xs + p * d, index->xs + (size_t)q * d, d, index->scale, index->eps2)) {
                    union_find_join(index->parent, set, q);
                    break;
                }
        }
}

/* The first core point of a cell, or UINT32_MAX. */
static uint32_t first_core_of(const cpu_index *index, size_t cell)
{
    for (uint32_t p = index->cell_start[cell]; p < index->cell_start[cell + 1]; p++)
        if (index->core[p]) return p;
    return UINT32_MAX;
}

static void join_sparse_cell(cpu_index *index, size_t begin, size_t end, const point_range *ranges, int range_count)
{
    size_t d = index->dim;
    for (size_t p = begin; p < end; p++) {
        const double *x = index->xs + p * d;
        if (!index->core[p]) continue;
        for (int r = 0; r < range_count; r++) {
            uint32_t q = ranges[r].begin > p + 1 ? ranges[r].begin : (uint32_t)(p + 1), stop = ranges[r].end;
            if (d <= DBSCAN_EXIT_STRIDE) /* four at a time: the same links, joined in the same order */
                for (; stop > q && stop - q >= DBSCAN_BATCH; q += DBSCAN_BATCH) {
                    unsigned cores = 0, within;
                    for (int i = 0; i < DBSCAN_BATCH; i++) cores |= (unsigned)(index->core[q + i] != 0) << i;
                    if (!cores) continue;
                    within = cores & dbscan_within_eps_batch(x, index->xs + (size_t)q * d, d, index->scale, index->eps2);
                    for (int i = 0; i < DBSCAN_BATCH; i++)
                        if (within >> i & 1u) union_find_join(index->parent, (uint32_t)p, q + (uint32_t)i);
                }
            for (; q < stop; q++)
                if (index->core[q] && dbscan_within_eps(x, index->xs + (size_t)q * d, d, index->scale, index->eps2))
                    union_find_join(index->parent, (uint32_t)p, q);
        }
    }
}

/* cores_before[c]: core points in the cells before c (the union skips cells without one, the
 * border phase stencil rows without one). */
static void count_cores_before(cpu_index *index)
{
    uint32_t total = 0;
#pragma omp parallel for num_threads(index->threads) schedule(dynamic, 64)
    for (size_t cell = 0; cell < index->cells; cell++) {
        uint32_t cores = 0;
        for (uint32_t p = index->cell_start[cell]; p < index->cell_start[cell + 1]; p++) cores += index->core[p];
        index->cores_before[cell + 1] = cores;
    }
    index->cores_before[0] = 0;
    for (size_t cell = 1; cell <= index->cells; cell++) total = index->cores_before[cell] += total;
}

static int cell_has_core(const cpu_index *index, size_t cell)
{
    return index->cores_before[cell + 1] != index->cores_before[cell];
}

static void join_core_points(cpu_index *index)
{
#pragma omp parallel for num_threads(index->threads)
    for (size_t p = 0; p < index->count; p++) index->parent[p] = (uint32_t)p;
    /* a within cell's core points are one set, rooted at its first */
#pragma omp parallel for num_threads(index->threads) schedule(dynamic, 64)
    for (size_t cell = 0; cell < index->cells; cell++) {
        uint32_t set = index->within[cell] && cell_has_core(index, cell) ? first_core_of(index, cell) : UINT32_MAX;
        if (set != UINT32_MAX)
            for (size_t p = set + 1; p < index->cell_start[cell + 1]; p++)
                if (index->core[p]) index->parent[p] = set;
    }
#pragma omp parallel num_threads(index->threads)
    {
        point_range ranges[DBSCAN_GRID_MAX_ROWS];
        size_t pending = 0;
#pragma omp for schedule(dynamic, index->item_chunk)
        for (size_t i = 0; i < index->item_count; i++) {
            const work_item *item = &index->items[i];
            int range_count;
            if (item_cancelled(index)) continue;
            range_count = neighbour_ranges(index, item->cell, ranges);
            if (index->within[item->cell]) {
                uint32_t set = cell_has_core(index, item->cell) ? first_core_of(index, item->cell) : UINT32_MAX;
                if (set != UINT32_MAX)
                    join_within_cell(index, set, item->begin, item->end, index->cell_start[item->cell + 1], ranges,
                                     range_count);
            } else {
                join_sparse_cell(index, item->begin, item->end, ranges, range_count);
            }
            item_done(index, item, &pending);
        }
        parac_progress_gate_add(&index->progress, pending);
    }
}

/* The cluster representative of each point, in original order. */
/* Lowers *best to the least original index of a core point among sorted positions [begin, end)
 * within eps of x (*best_at: its position). */
static void lowest_core_in(const cpu_index *index, const double *x, uint32_t begin, uint32_t end, uint32_t *best,
                           uint32_t *best_at)
{
    size_t d = index->dim;
    uint32_t q = begin;
    if (d <= DBSCAN_EXIT_STRIDE) /* four at a time (the least index is the same in any order) */
        for (; end - q >= DBSCAN_BATCH; q += DBSCAN_BATCH) {
            unsigned candidates = 0, within;
            for (int i = 0; i < DBSCAN_BATCH; i++)
                candidates |= (unsigned)(index->core[q + i] && index->order[q + i] < *best) << i;
            if (!candidates) continue;
            within = candidates & dbscan_within_eps_batch(x, index->xs + (size_t)q * d, d, index->scale, index->eps2);
            for (int i = 0; i < DBSCAN_BATCH; i++)
                if ((within >> i & 1u) && index->order[q + i] < *best) {
                    *best = index->order[q + i];
                    *best_at = q + (uint32_t)i;
                }
        }
    for (; q < end; q++)
        if (index->core[q] && index->order[q] < *best &&
            dbscan_within_eps(x, index->xs + (size_t)q * d, d, index->scale, index->eps2)) {
            *best = index->order[q];
            *best_at = q;
        }
}

/* The same over a stencil range cell by cell, a large cell by its tree, cells without a core skipped. */
static void lowest_core_by_cells(cpu_index *index, const double *x, const point_range *range, uint32_t *best,
                                 uint32_t *best_at)
{
    for (size_t cell = range->first_cell; cell < range->end_cell; cell++) {
        const dbscan_tree *tree;
        if (!cell_has_core(index, cell)) continue;
        if ((tree = cell_tree(index, cell)))
            dbscan_tree_lowest_core(tree, index->xs, x, index->scale, index->eps2, index->core, index->order, best,
                                    best_at);
        else
            lowest_core_in(index, x, index->cell_start[cell], index->cell_start[cell + 1], best, best_at);
    }
}

static void assign_roots(cpu_index *index, uint32_t *root_of)
{
    size_t d = index->dim;
#pragma omp parallel num_threads(index->threads)
    {
        point_range ranges[DBSCAN_GRID_MAX_ROWS];
        size_t pending = 0;
#pragma omp for schedule(dynamic, index->item_chunk)
        for (size_t i = 0; i < index->item_count; i++) {
            const work_item *item = &index->items[i];
            int range_count = -1;
            if (item_cancelled(index)) continue;
            for (size_t p = item->begin; p < item->end; p++) {
                uint32_t best = UINT32_MAX, best_position = 0;
                if (index->core[p]) {
                    root_of[index->order[p]] = union_find_root(index->parent, (uint32_t)p);
                    continue;
                }
                if (range_count < 0) range_count = neighbour_ranges(index, item->cell, ranges);
                for (int r = 0; r < range_count; r++) {
                    if (index->cores_before[ranges[r].end_cell] == index->cores_before[ranges[r].first_cell]) continue;
                    if (index->tree_of) {
                        lowest_core_by_cells(index, index->xs + p * d, &ranges[r], &best, &best_position);
                        continue;
                    }
                    lowest_core_in(index, index->xs + p * d, ranges[r].begin, ranges[r].end, &best, &best_position);
                }
                root_of[index->order[p]] =
                    best == UINT32_MAX ? DBSCAN_NO_ROOT : union_find_root(index->parent, best_position);
            }
            item_done(index, item, &pending);
        }
        parac_progress_gate_add(&index->progress, pending);
    }
}

static parac_status finish_labels(cpu_index *index, int32_t *labels, uint8_t *core_mask, uint32_t *root_of,
                                  parac_dbscan_info *info, parac_error *error)
{
    size_t n = index->count, core = 0, noise = 0;
    int32_t *scratch = malloc((n + 1) * sizeof(int32_t));
    if (!scratch) return parac_fail_no_memory(error, "dbscan labels", n * 4);
    dbscan_canonical_labels(root_of, n, scratch, labels, &info->clusters);
    free(scratch);
#pragma omp parallel for num_threads(index->threads) reduction(+ : core, noise)
    for (size_t p = 0; p < n; p++) {
        core += index->core[p];
        noise += root_of[index->order[p]] == DBSCAN_NO_ROOT;
        if (core_mask) core_mask[index->order[p]] = index->core[p];
    }
    info->core = core;
    info->noise = noise;
    info->border = n - core - noise;
    info->cells = index->cells;
    return PARAC_OK;
}

/* The phases after the index; PARAC_ERR_CANCELLED when the progress callback asked to stop. */
static parac_status cluster_points(cpu_index *index, uint32_t *root_of, parac_dbscan_info *info, double *mark)
{
    double now;
    mark_dense_cells(index);
    if (cut_items(index) != PARAC_OK || !plan_trees(index)) return PARAC_ERR_NO_MEMORY;
    parac_progress_gate_init(&index->progress, index->exec, 3 * (uint64_t)index->count);
    if (parac_progress_gate_report_now(&index->progress)) return PARAC_ERR_CANCELLED;
    index->item_chunk = (int)(index->item_count / (64 * (size_t)index->threads)); /* >= 64 chunks a thread */
    index->item_chunk = index->item_chunk < 1 ? 1 : index->item_chunk > 16 ? 16 : index->item_chunk;
    mark_core_points(index);
    now = parac_now_seconds(), info->seconds_core = now - *mark, *mark = now;
    if (parac_progress_gate_cancelled(&index->progress)) return PARAC_ERR_CANCELLED;
    count_cores_before(index);
    mark_tree_cores(index);
    join_core_points(index);
    now = parac_now_seconds(), info->seconds_union = now - *mark, *mark = now;
    if (parac_progress_gate_cancelled(&index->progress)) return PARAC_ERR_CANCELLED;
    assign_roots(index, root_of);
    now = parac_now_seconds(), info->seconds_border = now - *mark, *mark = now;
    return parac_progress_gate_finish(&index->progress) ? PARAC_ERR_CANCELLED : PARAC_OK;
}

parac_status dbscan_cpu(const dbscan_points *points, double eps, size_t min_samples, int use_grid,
                        const parac_exec *exec, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                        parac_error *error)
{
    cpu_index index;
    uint32_t *root_of = NULL;
    double mark = parac_now_seconds(), now;
    parac_status status;
    memset(&index, 0, sizeof index);
    index.count = points->count;
    index.dim = points->dim;
    index.scale = dbscan_distance_scale(eps);
    index.eps2 = dbscan_scaled_eps_squared(eps, index.scale);
    index.min_samples = min_samples;
    index.threads = parac_threads_for_run(exec->threads);
    index.exec = exec;
    status = build_index(&index, points, use_grid, eps, error);
    if (status != PARAC_OK) goto done;
    index.core = malloc(index.count + 1);
    index.parent = malloc((index.count + 1) * sizeof(uint32_t));
    root_of = malloc((index.count + 1) * sizeof(uint32_t));
    if (!index.core || !index.parent || !root_of) {
        status = parac_fail_no_memory(error, "dbscan work arrays", (unsigned long long)index.count * 9);
        goto done;
    }
    now = parac_now_seconds(), info->seconds_index = now - mark, mark = now;
    status = cluster_points(&index, root_of, info, &mark);
    if (status == PARAC_ERR_NO_MEMORY) status = parac_fail_no_memory(error, "dbscan work items", index.cells * 12);
    if (status == PARAC_ERR_CANCELLED) status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
    if (status != PARAC_OK) goto done;
    status = finish_labels(&index, labels, core_mask, root_of, info, error);
    info->seconds_relabel = parac_now_seconds() - mark;
done:
    free(root_of);
    free_index(&index);
    return status;
}

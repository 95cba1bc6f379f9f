/* dbscan/dbscan_cell_tree.c — kd-tree over one large cell's points (see dbscan_cell_tree.h for what
 * it answers and why exactly as the pairwise scan does).
 *
 * Nodes split at the median of the box's widest coordinate down to leaves of DBSCAN_TREE_LEAF points:
 * the depth is log2 of the cell's points, so the build's recursion and the queries' stacks are
 * bounded by the sizes, not by the values.
 */
#include "dbscan/dbscan_cell_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/select_nth.h"
#include "dbscan/dbscan_internal.h"

#define DBSCAN_TREE_LEAF 16
#define DBSCAN_TREE_STACK 128 /* > 2 x the depth of a tree of 2^32 points */

static void node_box(dbscan_tree *tree, const double *xs, uint32_t n)
{
    const dbscan_tree_node *node = &tree->nodes[n];
    double *low = tree->low + (size_t)n * tree->dim, *high = tree->high + (size_t)n * tree->dim;
    for (size_t k = 0; k < tree->dim; k++) low[k] = INFINITY, high[k] = -INFINITY;
    for (uint32_t i = node->begin; i < node->end; i++) {
        const double *x = xs + (size_t)tree->positions[i] * tree->dim;
        for (size_t k = 0; k < tree->dim; k++) {
            low[k] = x[k] < low[k] ? x[k] : low[k];
            high[k] = x[k] > high[k] ? x[k] : high[k];
        }
    }
}

static void build_node(dbscan_tree *tree, const double *xs, uint32_t n, uint32_t begin, uint32_t end)
{
    dbscan_tree_node *node = &tree->nodes[n];
    uint32_t middle = begin + (end - begin) / 2;
    size_t widest;
    node->begin = begin, node->end = end, node->left = node->right = 0;
    node->lowest_core = UINT32_MAX, node->lowest_core_at = 0;
    node_box(tree, xs, n);
    if (end - begin <= DBSCAN_TREE_LEAF) return;
    widest = parac_box_widest(tree->low + (size_t)n * tree->dim, tree->high + (size_t)n * tree->dim, tree->dim);
    parac_select_nth(tree->positions, begin, end, middle, xs, tree->dim, widest);
    node->left = tree->node_count++;
    node->right = tree->node_count++;
    build_node(tree, xs, node->left, begin, middle);
    build_node(tree, xs, tree->nodes[n].right, middle, end);
}

int dbscan_tree_build(dbscan_tree *tree, const double *xs, size_t dim, uint32_t begin, uint32_t end)
{
    uint32_t count = end - begin;
    /* leaves hold at least DBSCAN_TREE_LEAF / 2 points: under 4 count / DBSCAN_TREE_LEAF nodes */
    size_t nodes = 4 * (size_t)count / DBSCAN_TREE_LEAF + 8;
    memset(tree, 0, sizeof *tree);
    tree->dim = dim;
    tree->nodes = malloc(nodes * sizeof *tree->nodes);
    tree->low = malloc(nodes * dim * sizeof *tree->low);
    tree->high = malloc(nodes * dim * sizeof *tree->high);
    tree->positions = malloc(((size_t)count + 1) * sizeof *tree->positions);
    if (!tree->nodes || !tree->low || !tree->high || !tree->positions) {
        dbscan_tree_free(tree);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) tree->positions[i] = begin + i;
    tree->node_count = 1;
    build_node(tree, xs, 0, 0, count);
    return 1;
}

void dbscan_tree_free(dbscan_tree *tree)
{
    free(tree->nodes), free(tree->low), free(tree->high), free(tree->positions);
    memset(tree, 0, sizeof *tree);
}

/* The squared distances from x to the box's nearest face and farthest corner, in dbscan_within_eps's
 * arithmetic: each a bound of the computed distance of every point of the box (see the header). */
static void box_distances(const dbscan_tree *tree, uint32_t n, const double *x, double scale, double *nearest,
                          double *farthest)
{
    const double *low = tree->low + (size_t)n * tree->dim, *high = tree->high + (size_t)n * tree->dim;
    double near_sum = 0.0, far_sum = 0.0;
    for (size_t k = 0; k < tree->dim; k++) {
        double to_low = (x[k] - low[k]) * scale, to_high = (x[k] - high[k]) * scale;
        double near = x[k] < low[k] ? to_low : (x[k] > high[k] ? to_high : 0.0);
        double far = fabs(to_low) > fabs(to_high) ? to_low : to_high;
        near_sum += near * near;
        far_sum += far * far;
    }
    *nearest = near_sum;
    *farthest = far_sum;
}

/* Node n of tree for a count: whole when its box lies within eps or beyond it (1 / -1 when that
 * decides, as below), 2 when the sphere cuts it and it has children (not counted yet), else its
 * points one by one. */
static int count_node(const dbscan_tree *tree, uint32_t n, const double *xs, const double *x, double scale,
                      double eps2, size_t min_samples, size_t *neighbours, size_t *misses_left)
{
    const dbscan_tree_node *node = &tree->nodes[n];
    size_t size = node->end - node->begin;
    double nearest, farthest;
    box_distances(tree, n, x, scale, &nearest, &farthest);
    if (nearest > eps2) { /* every point a miss */
        if (*misses_left < size) return -1;
        *misses_left -= size;
        return 0;
    }
    if (farthest <= eps2) /* every point a neighbour */
        return (*neighbours += size) >= min_samples ? 1 : 0;
    if (node->left) return 2;
    for (uint32_t i = node->begin; i < node->end; i++) {
        if (!dbscan_within_eps(x, xs + (size_t)tree->positions[i] * tree->dim, tree->dim, scale, eps2)) {
            if ((*misses_left)-- == 0) return -1;
            continue;
        }
        if (++*neighbours >= min_samples) return 1;
    }
    return 0;
}

/* The count below node n, depth first (when the queue cannot grow). */
static int count_subtree(const dbscan_tree *tree, uint32_t n, const double *xs, const double *x, double scale,
                         double eps2, size_t min_samples, size_t *neighbours, size_t *misses_left)
{
    uint32_t stack[DBSCAN_TREE_STACK];
    size_t depth = 0;
    stack[depth++] = n;
    while (depth > 0) {
        uint32_t at = stack[--depth];
        int found = count_node(tree, at, xs, x, scale, eps2, min_samples, neighbours, misses_left);
        if (found == 2) {
            stack[depth++] = tree->nodes[at].right;
            stack[depth++] = tree->nodes[at].left;
        } else if (found) {
            return found;
        }
    }
    return 0;
}

static int queue_push(dbscan_tree_queue *queue, const dbscan_tree *tree, uint32_t node)
{
    if (queue->count == queue->capacity) {
        size_t capacity = queue->capacity ? 2 * queue->capacity : 256;
        const dbscan_tree **trees = realloc(queue->trees, capacity * sizeof *trees);
        uint32_t *nodes;
        if (!trees) return 0;
        queue->trees = trees;
        if (!(nodes = realloc(queue->nodes, capacity * sizeof *nodes))) return 0;
        queue->nodes = nodes;
        queue->capacity = capacity;
    }
    queue->trees[queue->count] = tree;
    queue->nodes[queue->count++] = node;
    return 1;
}

void dbscan_tree_queue_free(dbscan_tree_queue *queue)
{
    free(queue->trees), free(queue->nodes);
    memset(queue, 0, sizeof *queue);
}

int dbscan_tree_queue_root(dbscan_tree_queue *queue, const dbscan_tree *tree) { return queue_push(queue, tree, 0); }

int dbscan_tree_count_queued(dbscan_tree_queue *queue, const double *xs, const double *x, double scale, double eps2,
                             size_t min_samples, size_t *neighbours, size_t *misses_left)
{
    int found = 0;
    for (size_t head = 0; head < queue->count && found == 0; head++) {
        const dbscan_tree *tree = queue->trees[head];
        uint32_t n = queue->nodes[head];
        found = count_node(tree, n, xs, x, scale, eps2, min_samples, neighbours, misses_left);
        if (found != 2) continue;
        found = 0;
        for (int child = 0; child < 2 && found == 0; child++) {
            uint32_t c = child ? tree->nodes[n].right : tree->nodes[n].left;
            if (!queue_push(queue, tree, c))
                found = count_subtree(tree, c, xs, x, scale, eps2, min_samples, neighbours, misses_left);
        }
    }
    queue->count = 0;
    return found;
}

void dbscan_tree_mark_cores(dbscan_tree *tree, const uint8_t *core, const uint32_t *order)
{
    /* children come after their parent: from the last node back, every child is done first */
    for (uint32_t n = tree->node_count; n-- > 0;) {
        dbscan_tree_node *node = &tree->nodes[n];
        node->lowest_core = UINT32_MAX;
        if (node->left) {
            const dbscan_tree_node *left = &tree->nodes[node->left], *right = &tree->nodes[node->right];
            const dbscan_tree_node *lower = left->lowest_core < right->lowest_core ? left : right;
            node->lowest_core = lower->lowest_core;
            node->lowest_core_at = lower->lowest_core_at;
            continue;
        }
        for (uint32_t i = node->begin; i < node->end; i++) {
            uint32_t at = tree->positions[i];
            if (core[at] && order[at] < node->lowest_core) node->lowest_core = order[at], node->lowest_core_at = at;
        }
    }
}

void dbscan_tree_lowest_core(const dbscan_tree *tree, const double *xs, const double *x, double scale, double eps2,
                             const uint8_t *core, const uint32_t *order, uint32_t *best, uint32_t *best_at)
{
    uint32_t stack[DBSCAN_TREE_STACK];
    size_t depth = 0;
    stack[depth++] = 0;
    while (depth > 0) {
        const dbscan_tree_node *node = &tree->nodes[stack[--depth]];
        double nearest, farthest;
        if (node->lowest_core >= *best) continue; /* no core point that would lower it */
        box_distances(tree, (uint32_t)(node - tree->nodes), x, scale, &nearest, &farthest);
        if (nearest > eps2) continue;
        if (farthest <= eps2) {
            *best = node->lowest_core, *best_at = node->lowest_core_at;
            continue;
        }
        if (node->left) { /* the child with the lower core first: it lowers *best sooner */
            int left_first = tree->nodes[node->left].lowest_core <= tree->nodes[node->right].lowest_core;
            stack[depth++] = left_first ? node->right : node->left;
            stack[depth++] = left_first ? node->left : node->right;
            continue;
        }
        for (uint32_t i = node->begin; i < node->end; i++) {
            uint32_t at = tree->positions[i];
            if (core[at] && order[at] < *best &&
                dbscan_within_eps(x, xs + (size_t)at * tree->dim, tree->dim, scale, eps2))
                *best = order[at], *best_at = at;
        }
    }
}

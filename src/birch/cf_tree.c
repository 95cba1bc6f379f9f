/* birch/cf_tree.c — the serial CF tree, faithful to scikit-learn's _birch.py.
 *
 * insert_into() mirrors _CFNode.insert_cf_subcluster (for a point, or for a
 * whole subcluster of another tree: birch_tree_insert_cf), split_node() mirrors
 * _split_node (farthest pair, "closer to the first" with ties going to the
 * second, entries keeping their order, first half before second half in the
 * leaf chain, second half's parent entry appended at the end of the parent).
 */
#include "birch/cf_tree.h"

#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "core/error.h"

/* The first allocation's nodes: 16, or fewer when a node's means are large (slots x dims doubles), so that
 * points of millions of dimensions do not reserve 16 nodes of them (3 points of 2 M dimensions: 13 GB of
 * address space, which a memory limit refuses and AddressSanitizer's shadow turned into 1.6 GB resident). */
static int32_t first_capacity(const birch_tree *tree)
{
    size_t node_doubles = (size_t)tree->slots * (tree->dims ? tree->dims : 1), nodes = ((size_t)1 << 21) / node_doubles;
    return nodes >= 16 ? 16 : nodes < 1 ? 1 : (int32_t)nodes;
}

static parac_status grow_nodes(birch_tree *tree, parac_error *error)
{
    int32_t capacity = tree->node_capacity ? tree->node_capacity * 2 : first_capacity(tree);
    size_t slots = (size_t)capacity * (size_t)tree->slots;
    uint8_t *is_leaf = realloc(tree->is_leaf, (size_t)capacity);
    int32_t *entry_count = is_leaf ? realloc(tree->entry_count, (size_t)capacity * sizeof(int32_t)) : NULL;
    if (is_leaf) tree->is_leaf = is_leaf;
    if (entry_count) tree->entry_count = entry_count;
    if (!entry_count) return parac_fail_no_memory(error, "CF tree nodes", (unsigned long long)capacity);
#define BIRCH_GROW(field, type, n)                                                   \
    do {                                                                             \
        type *grown = realloc(tree->field, (n) * sizeof(type));                      \
        if (!grown) return parac_fail_no_memory(error, "CF tree", (n) * sizeof(type)); \
        tree->field = grown;                                                         \
    } while (0)
    BIRCH_GROW(parent, int32_t, (size_t)capacity);
    BIRCH_GROW(next_leaf, int32_t, (size_t)capacity);
    BIRCH_GROW(count, int64_t, slots);
    BIRCH_GROW(ssd, double, slots);
    BIRCH_GROW(child, int32_t, slots);
    BIRCH_GROW(mean, double, slots * tree->dims);
#undef BIRCH_GROW
    tree->node_capacity = capacity;
    return PARAC_OK;
}

static parac_status new_node(birch_tree *tree, int is_leaf, int32_t *node, parac_error *error)
{
    if (tree->node_count == tree->node_capacity) {
        parac_status status = grow_nodes(tree, error);
        if (status != PARAC_OK) return status;
    }
    *node = tree->node_count++;
    tree->is_leaf[*node] = (uint8_t)is_leaf;
    tree->entry_count[*node] = 0;
    tree->parent[*node] = -1;
    tree->next_leaf[*node] = -1;
    return PARAC_OK;
}

parac_status birch_tree_init(birch_tree *tree, size_t dims, int branching, double threshold, parac_error *error)
{
    parac_status status;
    memset(tree, 0, sizeof *tree);
    tree->dims = dims;
    tree->branching = branching;
    tree->slots = branching + 1;
    tree->threshold_squared = threshold * threshold;
    status = new_node(tree, 1, &tree->root, error);
    if (status != PARAC_OK) birch_tree_free(tree);
    return status;
}

void birch_tree_free(birch_tree *tree)
{
    free(tree->is_leaf);
    free(tree->entry_count);
    free(tree->parent);
    free(tree->next_leaf);
    free(tree->count);
    free(tree->ssd);
    free(tree->child);
    free(tree->mean);
    memset(tree, 0, sizeof *tree);
}

static size_t slot_of(const birch_tree *tree, int32_t node, int32_t k) { return (size_t)node * (size_t)tree->slots + (size_t)k; }

/* The entry of `node` closest to x; ties go to the first, as np.argmin. */
static inline int32_t closest_entry_in(const birch_tree *tree, int32_t node, const double *x, size_t stride,
                                       size_t dims)
{
    size_t first = slot_of(tree, node, 0);
    int32_t best = 0;
    double best_distance = 0.0;
    for (int32_t k = 0; k < tree->entry_count[node]; k++) {
        double distance = birch_squared_distance_strided(x, stride, tree->mean + (first + (size_t)k) * dims, dims);
        if (k == 0 || distance < best_distance) {
            best = k;
            best_distance = distance;
        }
    }
    return best;
}

/* dims passed as a constant for 2-D points: the coordinate loop unrolls
 * (the same operations, so the same bits). */
static int32_t closest_entry(const birch_tree *tree, int32_t node, const double *x, size_t stride)
{
    if (tree->dims == 2) return closest_entry_in(tree, node, x, stride, 2);
    return closest_entry_in(tree, node, x, stride, tree->dims);
}

static void set_entry(birch_tree *tree, size_t slot, int64_t n, const double *mean, double ssd, int32_t child)
{
    tree->count[slot] = n;
    tree->ssd[slot] = ssd;
    tree->child[slot] = child;
    memmove(tree->mean + slot * tree->dims, mean, tree->dims * sizeof(double));
}

/* What insert_into inserts: a point (count 1, ssd 0, coordinate j at mean[j * stride]) or a whole
 * CF of another tree (count > 1, mean contiguous). A point is absorbed with the incremental mean
 * update (birch_absorb_point), a CF by CF additivity (birch_merge_cf); the two round differently,
 * and points keep the arithmetic they always had, so a tree of points stays byte for byte the same. */
typedef struct birch_item {
    const double *mean;
    size_t stride;
    int64_t count;
    double ssd;
} birch_item;

static void append_item(birch_tree *tree, int32_t node, const birch_item *item)
{
    size_t slot = slot_of(tree, node, tree->entry_count[node]++);
    for (size_t j = 0; j < tree->dims; j++) tree->mean[slot * tree->dims + j] = item->mean[j * item->stride];
    tree->count[slot] = item->count;
    tree->ssd[slot] = item->ssd;
    tree->child[slot] = -1;
    if (tree->is_leaf[node]) tree->leaf_entries++;
}

static void absorb_point(birch_tree *tree, size_t slot, const double *x, size_t stride, double new_ssd)
{
    birch_absorb_point(&tree->count[slot], tree->mean + slot * tree->dims, &tree->ssd[slot], new_ssd, x, stride,
                       tree->dims);
}

/* The ssd entry `slot` would have after taking the item in. */
static double ssd_with_item(const birch_tree *tree, size_t slot, const birch_item *item)
{
    const double *mean = tree->mean + slot * tree->dims;
    if (item->count == 1)
        return birch_ssd_with_point(tree->count[slot], mean, tree->ssd[slot], item->mean, item->stride, tree->dims);
    return birch_merged_ssd(tree->count[slot], mean, tree->ssd[slot], item->count, item->mean, item->ssd, tree->dims);
}

static void absorb_item(birch_tree *tree, size_t slot, const birch_item *item, double new_ssd)
{
    if (item->count == 1) absorb_point(tree, slot, item->mean, item->stride, new_ssd);
    else birch_merge_cf(&tree->count[slot], tree->mean + slot * tree->dims, &tree->ssd[slot], item->count, item->mean,
                        item->ssd, tree->dims);
}

/* Splits the overflowing `node` into itself (first half) and a new node
 * (second half, returned in *second). Entries are first copied out because
 * the first half is rewritten in place. */
static parac_status split_node(birch_tree *tree, int32_t node, int32_t *second, parac_error *error)
{
    int32_t entries = tree->entry_count[node], far_a = 0, far_b = 0;
    size_t dims = tree->dims, first;
    double farthest = 0.0;
    parac_status status = new_node(tree, tree->is_leaf[node], second, error);
    int64_t *counts;
    double *ssds, *means;
    int32_t *children;
    if (status != PARAC_OK) return status;
    first = slot_of(tree, node, 0);
    for (int32_t a = 0; a < entries; a++)
        for (int32_t b = a + 1; b < entries; b++) {
            double d = birch_squared_distance(tree->mean + (first + (size_t)a) * dims,
                                              tree->mean + (first + (size_t)b) * dims, dims);
            if (d > farthest) farthest = d, far_a = a, far_b = b;
        }
    counts = malloc((size_t)entries * (sizeof(int64_t) + sizeof(double) * (dims + 1) + sizeof(int32_t)));
    if (!counts) return parac_fail_no_memory(error, "node split", (unsigned long long)entries);
    ssds = (double *)(counts + entries);
    means = ssds + entries;
    children = (int32_t *)(means + (size_t)entries * dims);
    memcpy(counts, tree->count + first, (size_t)entries * sizeof(int64_t));
    memcpy(ssds, tree->ssd + first, (size_t)entries * sizeof(double));
    memcpy(means, tree->mean + first * dims, (size_t)entries * dims * sizeof(double));
    memcpy(children, tree->child + first, (size_t)entries * sizeof(int32_t));
    tree->entry_count[node] = 0;
    for (int32_t k = 0; k < entries; k++) {
        const double *mean = means + (size_t)k * dims;
        double to_a = birch_squared_distance(mean, means + (size_t)far_a * dims, dims);
        double to_b = birch_squared_distance(mean, means + (size_t)far_b * dims, dims);
        int32_t target = (to_a < to_b || k == far_a) ? node : *second;
        set_entry(tree, slot_of(tree, target, tree->entry_count[target]++), counts[k], mean, ssds[k], children[k]);
        if (children[k] >= 0) tree->parent[children[k]] = target;
    }
    free(counts);
    if (tree->is_leaf[node]) {
        tree->next_leaf[*second] = tree->next_leaf[node];
        tree->next_leaf[node] = *second;
    }
    return PARAC_OK;
}

/* The CF summing the entries of `node`, merged in entry order (as _CFSubcluster.update). */
static void node_summary(const birch_tree *tree, int32_t node, int64_t *n, double *mean, double *ssd)
{
    size_t first = slot_of(tree, node, 0);
    *n = 0;
    *ssd = 0.0;
    for (int32_t k = 0; k < tree->entry_count[node]; k++)
        birch_merge_cf(n, mean, ssd, tree->count[first + (size_t)k], tree->mean + (first + (size_t)k) * tree->dims,
                       tree->ssd[first + (size_t)k], tree->dims);
}

/* After `child` (the entry at index k of `node`) split into child and second:
 * entry k summarizes child, a new last entry summarizes second. */
static void replace_split_entry(birch_tree *tree, int32_t node, int32_t k, int32_t child, int32_t second,
                                double *scratch)
{
    int64_t n;
    double ssd;
    node_summary(tree, child, &n, scratch, &ssd);
    set_entry(tree, slot_of(tree, node, k), n, scratch, ssd, child);
    node_summary(tree, second, &n, scratch, &ssd);
    set_entry(tree, slot_of(tree, node, tree->entry_count[node]++), n, scratch, ssd, second);
    tree->parent[child] = node;
    tree->parent[second] = node;
}

/* Inserts the item below `node`; *overflow = 1 when node now holds branching + 1 entries. */
static parac_status insert_into(birch_tree *tree, int32_t node, const birch_item *item, int *overflow,
                                double *scratch, parac_error *error)
{
    int32_t k, child, second;
    size_t slot;
    int child_overflow = 0;
    parac_status status;
    *overflow = 0;
    if (tree->entry_count[node] == 0) {
        append_item(tree, node, item);
        return PARAC_OK;
    }
    k = closest_entry(tree, node, item->mean, item->stride);
    slot = slot_of(tree, node, k);
    child = tree->child[slot];
    if (child >= 0) {
        status = insert_into(tree, child, item, &child_overflow, scratch, error);
        if (status != PARAC_OK) return status;
        if (!child_overflow) {
            absorb_item(tree, slot, item, ssd_with_item(tree, slot, item));
            return PARAC_OK;
        }
        status = split_node(tree, child, &second, error);
        if (status != PARAC_OK) return status;
        replace_split_entry(tree, node, k, child, second, scratch);
        *overflow = tree->entry_count[node] > tree->branching;
        return PARAC_OK;
    }
    {
        double new_ssd = ssd_with_item(tree, slot, item);
        if (birch_radius_fits(new_ssd, tree->count[slot] + item->count, tree->threshold_squared)) {
            absorb_item(tree, slot, item, new_ssd);
            return PARAC_OK;
        }
    }
    append_item(tree, node, item);
    *overflow = tree->entry_count[node] > tree->branching;
    return PARAC_OK;
}

static parac_status insert_item(birch_tree *tree, const birch_item *item, parac_error *error)
{
    double scratch_stack[16];
    double *scratch = tree->dims <= 16 ? scratch_stack : malloc(tree->dims * sizeof(double));
    int overflow = 0;
    int32_t old_root = tree->root, second, new_root;
    parac_status status;
    if (!scratch) return parac_fail_no_memory(error, "CF tree scratch", tree->dims * sizeof(double));
    status = insert_into(tree, tree->root, item, &overflow, scratch, error);
    if (status == PARAC_OK && overflow) {
        status = split_node(tree, old_root, &second, error);
        if (status == PARAC_OK) status = new_node(tree, 0, &new_root, error);
        if (status == PARAC_OK) {
            tree->entry_count[new_root] = 1; /* entry 0 is rewritten, the second is appended */
            replace_split_entry(tree, new_root, 0, old_root, second, scratch);
            tree->root = new_root;
        }
    }
    if (scratch != scratch_stack) free(scratch);
    return status;
}

parac_status birch_tree_insert(birch_tree *tree, const double *x, size_t stride, parac_error *error)
{
    birch_item point = {x, stride, 1, 0.0};
    return insert_item(tree, &point, error);
}

parac_status birch_tree_insert_points(birch_tree *tree, const double *points, size_t count, parac_error *error)
{
    for (size_t i = 0; i < count; i++) {
        parac_status status = birch_tree_insert(tree, points + i * tree->dims, 1, error);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

parac_status birch_tree_insert_cf(birch_tree *tree, int64_t count, const double *mean, double ssd, parac_error *error)
{
    birch_item cf = {mean, 1, count, ssd};
    if (count < 1) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: a CF entry needs count >= 1, got %lld",
                                     (long long)count);
    return insert_item(tree, &cf, error);
}

int32_t birch_tree_descend(const birch_tree *tree, const double *x, size_t stride)
{
    int32_t node = tree->root;
    if (tree->entry_count[node] == 0) return -1;
    for (;;) {
        size_t slot = slot_of(tree, node, closest_entry(tree, node, x, stride));
        if (tree->child[slot] < 0) return (int32_t)slot;
        node = tree->child[slot];
    }
}

size_t birch_tree_descend_path(const birch_tree *tree, const double *x, size_t stride, int32_t *path)
{
    int32_t node = tree->root;
    size_t levels = 0;
    if (tree->entry_count[node] == 0) return 0;
    for (;;) {
        size_t slot = slot_of(tree, node, closest_entry(tree, node, x, stride));
        path[levels++] = (int32_t)slot;
        if (tree->child[slot] < 0) return levels;
        node = tree->child[slot];
    }
}

int birch_tree_insert_below(birch_tree *tree, int32_t top, const double *x, int32_t *path, size_t *levels,
                            int *new_entry)
{
    size_t depth = 0, dims = tree->dims, slot;
    int32_t node = top;
    double new_ssd;
    for (;;) {
        slot = slot_of(tree, node, closest_entry(tree, node, x, 1));
        path[depth++] = (int32_t)slot;
        if (tree->child[slot] < 0) break;
        node = tree->child[slot];
    }
    *levels = depth;
    *new_entry = 0;
    new_ssd = birch_ssd_with_point(tree->count[slot], tree->mean + slot * dims, tree->ssd[slot], x, 1, dims);
    if (birch_radius_fits(new_ssd, tree->count[slot] + 1, tree->threshold_squared)) absorb_point(tree, slot, x, 1, new_ssd);
    else if (tree->entry_count[node] >= tree->branching) return 0; /* the leaf would overflow and split */
    else {
        size_t fresh = slot_of(tree, node, tree->entry_count[node]++);
        memcpy(tree->mean + fresh * dims, x, dims * sizeof(double));
        tree->count[fresh] = 1, tree->ssd[fresh] = 0.0, tree->child[fresh] = -1;
        *new_entry = 1;
    }
    /* the entries above the leaf absorb x bottom-up, as insert_into's returns do */
    for (size_t l = depth - 1; l-- > 0;) {
        size_t up = (size_t)path[l];
        absorb_point(tree, up, x, 1,
                     birch_ssd_with_point(tree->count[up], tree->mean + up * dims, tree->ssd[up], x, 1, dims));
    }
    return 1;
}

void birch_tree_add_to_ancestors(birch_tree *tree, int32_t leaf, int64_t n, const double *mean, double ssd)
{
    int32_t node = leaf;
    while (tree->parent[node] >= 0) {
        int32_t parent = tree->parent[node];
        size_t first = slot_of(tree, parent, 0), slot = first;
        while (tree->child[slot] != node) slot++;
        birch_merge_cf(&tree->count[slot], tree->mean + slot * tree->dims, &tree->ssd[slot], n, mean, ssd, tree->dims);
        node = parent;
    }
}

void birch_tree_collect(const birch_tree *tree, double *centers, int64_t *counts, double *ssd)
{
    size_t out = 0;
    for (int32_t leaf = 0; leaf >= 0; leaf = tree->next_leaf[leaf]) {
        size_t first = slot_of(tree, leaf, 0);
        for (int32_t k = 0; k < tree->entry_count[leaf]; k++, out++) {
            size_t slot = first + (size_t)k;
            if (centers) memcpy(centers + out * tree->dims, tree->mean + slot * tree->dims, tree->dims * sizeof(double));
            if (counts) counts[out] = tree->count[slot];
            if (ssd) ssd[out] = tree->ssd[slot];
        }
    }
}

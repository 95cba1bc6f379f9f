/* birch/ward.c — scipy's nn_chain (Ward) and sklearn's _hc_cut, on the CPU. */
#include "birch/ward.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "birch/cf_math.h"
#include "core/error.h"
#include "core/threads.h"

size_t birch_ward_matrix_bytes(size_t m) { return m < 2 ? 0 : m * (m - 1) / 2 * sizeof(double); }

static void fill_distances(const double *centers, size_t m, size_t dims, int threads, double *distances)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (size_t i = 0; i < m; i++)
        for (size_t j = i + 1; j < m; j++)
            distances[birch_condensed_index(m, i, j)] =
                sqrt(birch_squared_distance(centers + i * dims, centers + j * dims, dims));
}

static double pair_distance(const double *distances, size_t m, size_t i, size_t j)
{
    return i < j ? distances[birch_condensed_index(m, i, j)] : distances[birch_condensed_index(m, j, i)];
}

/* The chain's next link from x: the closest live cluster, preferring the
 * previous chain element on ties (scipy avoids cycles that way). */
static size_t nearest_live(const double *distances, const int64_t *size, size_t m, size_t x, long previous,
                           double *found)
{
    double best = previous >= 0 ? pair_distance(distances, m, x, (size_t)previous) : INFINITY;
    size_t y = previous >= 0 ? (size_t)previous : 0;
    for (size_t i = 0; i < m; i++) {
        double d;
        if (size[i] == 0 || i == x) continue;
        d = pair_distance(distances, m, x, i);
        if (d < best) best = d, y = i;
    }
    *found = best;
    return y;
}

static void update_after_merge(double *distances, const int64_t *size, size_t m, size_t x, size_t y, double d_xy,
                               int64_t nx, int64_t ny)
{
    /* O(m) per merge: too little work per merge for a parallel region to pay off. */
    for (size_t i = 0; i < m; i++) {
        double d_xi, d_yi;
        if (size[i] == 0 || i == y) continue;
        d_xi = pair_distance(distances, m, i, x);
        d_yi = pair_distance(distances, m, i, y);
        distances[i < y ? birch_condensed_index(m, i, y) : birch_condensed_index(m, y, i)] =
            sqrt(birch_ward_update(d_xi, d_yi, d_xy, (double)nx, (double)ny, (double)size[i]));
    }
}

parac_status birch_ward_cpu(const double *centers, size_t m, size_t dims, int threads, birch_merge *merges,
                            parac_error *error)
{
    double *distances;
    int64_t *size;
    size_t *chain, chain_length = 0;
    if (m < 2) return PARAC_OK;
    distances = malloc(birch_ward_matrix_bytes(m));
    size = malloc(m * sizeof(int64_t));
    chain = malloc(m * sizeof(size_t));
    if (!distances || !size || !chain) {
        free(distances), free(size), free(chain);
        return parac_fail_no_memory(error, "Ward distance matrix", (unsigned long long)birch_ward_matrix_bytes(m));
    }
    threads = parac_threads_resolve(threads);
    fill_distances(centers, m, dims, threads, distances);
    for (size_t i = 0; i < m; i++) size[i] = 1;
    for (size_t k = 0; k + 1 < m; k++) {
        size_t x = 0, y = 0, swap;
        double d_xy = 0.0;
        int64_t nx, ny;
        if (chain_length == 0) {
            while (size[x] == 0) x++;
            chain[chain_length++] = x;
        }
        for (;;) {
            long previous = chain_length > 1 ? (long)chain[chain_length - 2] : -1;
            x = chain[chain_length - 1];
            y = nearest_live(distances, size, m, x, previous, &d_xy);
            if (chain_length > 1 && (long)y == previous) break;
            chain[chain_length++] = y;
        }
        chain_length -= 2;
        if (x > y) swap = x, x = y, y = swap;
        nx = size[x], ny = size[y];
        merges[k].a = (int32_t)x, merges[k].b = (int32_t)y, merges[k].height = d_xy;
        size[x] = 0;
        size[y] = nx + ny;
        update_after_merge(distances, size, m, x, y, d_xy, nx, ny);
    }
    free(distances), free(size), free(chain);
    return PARAC_OK;
}

static size_t find_root(int32_t *parent, size_t i)
{
    while ((size_t)parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = (size_t)parent[i];
    }
    return i;
}

/* Stable merge sort of merge indices by height (numpy's kind='mergesort'). */
static void sort_by_height(const birch_merge *merges, size_t *order, size_t *scratch, size_t count)
{
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t lo = 0; lo < count; lo += 2 * width) {
            size_t mid = lo + width < count ? lo + width : count, hi = lo + 2 * width < count ? lo + 2 * width : count;
            size_t i = lo, j = mid, out = lo;
            while (i < mid && j < hi) scratch[out++] = merges[order[j]].height < merges[order[i]].height ? order[j++] : order[i++];
            while (i < mid) scratch[out++] = order[i++];
            while (j < hi) scratch[out++] = order[j++];
        }
        memcpy(order, scratch, count * sizeof(size_t));
    }
}

parac_status birch_ward_cut(const birch_merge *merges, size_t m, size_t clusters, int32_t *labels,
                            parac_error *error)
{
    size_t merge_count = m > 0 ? m - 1 : 0, apply = m > clusters ? m - clusters : 0, next = 0;
    size_t *order = malloc((merge_count + 1) * 2 * sizeof(size_t));
    int32_t *parent = malloc((m + 1) * sizeof(int32_t));
    if (!order || !parent) {
        free(order), free(parent);
        return parac_fail_no_memory(error, "Ward cut", (unsigned long long)m);
    }
    for (size_t i = 0; i < merge_count; i++) order[i] = i;
    sort_by_height(merges, order, order + merge_count + 1, merge_count);
    for (size_t i = 0; i < m; i++) parent[i] = (int32_t)i;
    for (size_t k = 0; k < apply; k++) {
        size_t a = find_root(parent, (size_t)merges[order[k]].a), b = find_root(parent, (size_t)merges[order[k]].b);
        if (a != b) parent[a > b ? a : b] = (int32_t)(a < b ? a : b);
    }
    /* Roots are the smallest member index, so numbering roots in index order
     * numbers clusters by first appearance. */
    for (size_t i = 0; i < m; i++) labels[i] = -1;
    for (size_t i = 0; i < m; i++) {
        size_t root = find_root(parent, i);
        if (root == i) labels[i] = (int32_t)next++;
        labels[i] = labels[root];
    }
    free(order), free(parent);
    return PARAC_OK;
}

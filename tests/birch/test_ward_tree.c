/* tests/birch/test_ward_tree.c — the kd-tree of the Ward chain's centroid space (birch/ward_tree.c)
 * against a scan of every live cluster: the same (squared Ward distance, id) minimum, bit for bit,
 * through merges that kill clusters, move centroids and grow sizes, on centroids in general position
 * and on a coarse integer grid (many equal distances: the tie must go to the smaller id), from 1 to
 * 12 dimensions and with sizes that differ by orders of magnitude; and the k nearest, the scan's k
 * least in the same order (the Ward chain keeps them for its repeated queries). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "birch/ward_tree.h"
#include "support_birch.h"
#include "test_util.h"

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* The scan: the least (distance, id) over the live clusters other than x. */
static size_t nearest_by_scan(const double *centers, const int64_t *size, size_t m, size_t dims, size_t x,
                              double *found)
{
    size_t best_id = SIZE_MAX;
    double best = INFINITY;
    for (size_t i = 0; i < m; i++) {
        double g;
        if (i == x || size[i] == 0) continue;
        g = birch_ward_squared(centers + x * dims, size[x], centers + i * dims, size[i], dims);
        if (best_id == SIZE_MAX || g < best) best = g, best_id = i;
    }
    *found = best;
    return best_id;
}

/* Whether the tree's k nearest of x are the scan's k least (distance, id), ascending, bit for bit. */
static int same_k_nearest(const ward_tree *tree, const double *centers, const int64_t *size, size_t m, size_t dims,
                          size_t x, size_t k)
{
    ward_candidate *by_tree = malloc(k * sizeof *by_tree), *by_scan = malloc(m * sizeof *by_scan);
    size_t live = support_ward_by_scan(centers, size, m, dims, x, by_scan), work;
    size_t from_tree = ward_tree_nearest_k(tree, centers, size, x, k, by_tree, &work);
    int same = from_tree == (live < k ? live : k);
    for (size_t t = 0; same && t < from_tree; t++)
        same = by_tree[t].id == by_scan[t].id && memcmp(&by_tree[t].distance, &by_scan[t].distance, sizeof(double)) == 0;
    free(by_tree), free(by_scan);
    return same;
}

static void check_merges(size_t m, size_t dims, int grid, uint64_t seed)
{
    double *centers = malloc(m * dims * sizeof *centers);
    int64_t *size = malloc(m * sizeof *size);
    size_t *live = malloc(m * sizeof *live), live_count = m, wrong = 0, queries = 0, work;
    uint64_t state = seed;
    ward_tree *tree;
    for (size_t i = 0; i < m * dims; i++)
        centers[i] = grid ? (double)(next_random(&state) % 6) : (double)(next_random(&state) % 1000000) / 997.0;
    for (size_t i = 0; i < m; i++) {
        size[i] = (int64_t)(next_random(&state) % 4 == 0 ? 1 + next_random(&state) % 5000 : 1);
        live[i] = i;
    }
    tree = ward_tree_build(centers, size, live, m, dims);
    CHECK(tree != NULL, "m %zu: no tree", m);
    if (!tree) return;
    while (live_count > 1) {
        /* a query from a few live clusters, then a merge of x into its nearest */
        size_t x = SIZE_MAX, y, expected;
        double found, scanned;
        for (int q = 0; q < 3; q++) {
            do x = (size_t)(next_random(&state) % m);
            while (size[x] == 0);
            y = ward_tree_nearest(tree, centers, size, x, &found, &work);
            expected = nearest_by_scan(centers, size, m, dims, x, &scanned);
            wrong += y != expected || memcmp(&found, &scanned, sizeof found) != 0;
            wrong += !same_k_nearest(tree, centers, size, m, dims, x, 1 + (size_t)(next_random(&state) % 40));
            queries++;
        }
        y = nearest_by_scan(centers, size, m, dims, x, &scanned);
        for (size_t k = 0; k < dims; k++)
            centers[y * dims + k] = (centers[x * dims + k] * (double)size[x] + centers[y * dims + k] * (double)size[y]) /
                                    (double)(size[x] + size[y]);
        size[y] += size[x];
        size[x] = 0;
        live_count--;
        if (live_count * 2 > ward_tree_built_for(tree)) {
            ward_tree_merged(tree, centers, size, x, y);
        } else { /* rebuilt over the live ones, as ward.c does */
            size_t t = 0;
            for (size_t i = 0; i < m; i++)
                if (size[i] != 0) live[t++] = i;
            ward_tree_free(tree);
            tree = ward_tree_build(centers, size, live, live_count, dims);
            CHECK(tree != NULL, "m %zu: no tree after %zu merges", m, m - live_count);
            if (!tree) break;
        }
    }
    CHECK(wrong == 0, "%zu of %zu queries (m %zu, %zu-D, %s, seed %llu) differ from the scan", wrong, queries, m, dims,
          grid ? "grid" : "general", (unsigned long long)seed);
    ward_tree_free(tree);
    free(centers), free(size), free(live);
}

int main(void)
{
    static const size_t dims[] = {1, 2, 3, 5, 8, 12};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        check_merges(600, dims[d], 0, 11 + d);
        check_merges(600, dims[d], 1, 23 + d);
    }
    check_merges(9, 2, 1, 5);  /* one leaf */
    check_merges(2, 3, 0, 7);  /* one merge */
    check_merges(3000, 2, 1, 31);
    return test_finish("birch.ward_tree");
}

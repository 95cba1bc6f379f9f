/* tests/birch/test_cf_merge.c — whole CFs inserted into a tree (birch_tree_insert_cf,
 * birch_model_insert_features: what parac-mpi birch merges its ranks' trees with).
 *
 * Checks: a CF of one point is inserted exactly as the point (same tree, bit for bit); merging the
 * subclusters of a second model into a first keeps every point (counts), the union's CF (mean and
 * sum of squared deviations of all points, recomputed here from the points), every radius within the
 * threshold, at least the first model's subclusters and fewer than both together; a CF far from every entry
 * becomes a subcluster unchanged; splits (branching 3) keep the root's total; count 0 is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/birch.h>

#include "birch/cf_math.h"
#include "birch/cf_tree.h"
#include "birch/subcluster_features.h"
#include "support_birch.h"
#include "test_util.h"

typedef struct features {
    size_t m;
    double *means, *ssd;
    int64_t *counts;
} features;

static features features_of(const parac_birch *model, size_t dims)
{
    features f;
    f.m = parac_birch_subcluster_count(model);
    f.means = malloc((f.m * dims + 1) * sizeof(double));
    f.ssd = malloc((f.m + 1) * sizeof(double));
    f.counts = malloc((f.m + 1) * sizeof(int64_t));
    birch_model_leaf_features(model, f.means, f.counts, f.ssd);
    return f;
}

static void features_free(features *f) { free(f->means), free(f->ssd), free(f->counts); }

static parac_birch *fit(const parac_birch_options *options, const double *points, size_t n, size_t dims)
{
    parac_birch *model = NULL;
    parac_error error;
    CHECK_OK(parac_birch_create(options, dims, &model, &error), &error);
    if (model && n) CHECK_OK(parac_birch_partial_fit(model, points, n, &error), &error);
    return model;
}

/* A point as a CF of count 1 takes the point's path and arithmetic: the same tree, bit for bit. */
static void singleton_cfs_are_points(void)
{
    size_t n = 4000, dims = 3;
    double *points = support_blobs(n, dims, 6, 0.8, 11);
    birch_tree by_point, by_cf;
    parac_error error;
    CHECK_OK(birch_tree_init(&by_point, dims, 5, 0.4, &error), &error);
    CHECK_OK(birch_tree_init(&by_cf, dims, 5, 0.4, &error), &error);
    for (size_t i = 0; i < n; i++) {
        CHECK_OK(birch_tree_insert(&by_point, points + i * dims, 1, &error), &error);
        CHECK_OK(birch_tree_insert_cf(&by_cf, 1, points + i * dims, 0.0, &error), &error);
    }
    CHECK_EQ_INT(by_cf.leaf_entries, by_point.leaf_entries);
    CHECK(by_point.node_count > 20, "branching 5 should split often (%d nodes)", by_point.node_count);
    if (by_cf.leaf_entries == by_point.leaf_entries) {
        size_t m = by_point.leaf_entries;
        double *a = malloc(m * (dims + 1) * sizeof(double)), *b = malloc(m * (dims + 1) * sizeof(double));
        int64_t *ca = malloc(m * sizeof(int64_t)), *cb = malloc(m * sizeof(int64_t));
        birch_tree_collect(&by_point, a, ca, a + m * dims);
        birch_tree_collect(&by_cf, b, cb, b + m * dims);
        CHECK(memcmp(a, b, m * (dims + 1) * sizeof(double)) == 0, "centroids or ssd differ");
        CHECK(memcmp(ca, cb, m * sizeof(int64_t)) == 0, "counts differ");
        free(a), free(b), free(ca), free(cb);
    }
    birch_tree_free(&by_point);
    birch_tree_free(&by_cf);
    free(points);
}

/* The mean and sum of squared deviations of points[0..n), straight from the points. */
static void direct_cf(const double *points, size_t n, size_t dims, double *mean, double *ssd)
{
    *ssd = 0.0;
    for (size_t j = 0; j < dims; j++) {
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) sum += points[i * dims + j];
        mean[j] = sum / (double)n;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < dims; j++) *ssd += (points[i * dims + j] - mean[j]) * (points[i * dims + j] - mean[j]);
}

/* Two halves fitted apart, the second's subclusters inserted into the first (branching 3: splits). */
static void merged_halves_keep_the_union(int branching, double threshold)
{
    size_t n = 12000, half = 7000, dims = 2;
    double *points = support_blobs(n, dims, 8, 1.0, 5), mean[2], ssd, union_mean[2] = {0, 0}, union_ssd = 0.0;
    int64_t union_count = 0, total = 0;
    parac_birch_options options;
    parac_error error;
    parac_birch *first, *second;
    features a, b, merged;
    parac_birch_options_init(&options);
    options.threshold = threshold;
    options.branching_factor = branching;
    options.exec.threads = 1;
    first = fit(&options, points, half, dims);
    second = fit(&options, points + half * dims, n - half, dims);
    if (!first || !second) return;
    a = features_of(first, dims), b = features_of(second, dims);
    CHECK_OK(birch_model_insert_features(first, b.means, b.counts, b.ssd, b.m, &error), &error);
    CHECK_EQ_INT(parac_birch_points_seen(first), n);
    merged = features_of(first, dims);
    CHECK(merged.m >= a.m && merged.m <= a.m + b.m, "%zu subclusters from %zu + %zu", merged.m, a.m, b.m);
    CHECK(merged.m < a.m + b.m, "overlapping halves should merge some subclusters (%zu + %zu -> %zu)", a.m, b.m,
          merged.m);
    for (size_t i = 0; i < merged.m; i++) {
        total += merged.counts[i];
        CHECK(merged.ssd[i] / (double)merged.counts[i] <= threshold * threshold * (1 + 1e-12),
              "subcluster %zu: squared radius %g above the threshold's %g", i, merged.ssd[i] / (double)merged.counts[i],
              threshold * threshold);
        birch_merge_cf(&union_count, union_mean, &union_ssd, merged.counts[i], merged.means + i * dims, merged.ssd[i],
                       dims);
    }
    CHECK_EQ_INT(total, n);
    direct_cf(points, n, dims, mean, &ssd);
    for (size_t j = 0; j < dims; j++)
        CHECK(fabs(union_mean[j] - mean[j]) <= 1e-9 * (1 + fabs(mean[j])), "mean %zu: %.17g vs %.17g", j,
              union_mean[j], mean[j]);
    CHECK(fabs(union_ssd - ssd) <= 1e-9 * ssd, "ssd %.17g vs %.17g", union_ssd, ssd);
    CHECK_OK(parac_birch_global_step(first, &error), &error);
    features_free(&a), features_free(&b), features_free(&merged);
    parac_birch_destroy(first);
    parac_birch_destroy(second);
    free(points);
}

/* A CF far from every entry becomes a subcluster of its own, unchanged. */
static void far_cf_stays_whole(void)
{
    double points[] = {0, 0, 0.1, 0, 0, 0.1}, far_mean[2] = {100, -50}, far_ssd = 0.02;
    parac_birch_options options;
    parac_error error;
    parac_birch *model;
    features f;
    int64_t far_count = 7, bad = 0;
    parac_birch_options_init(&options);
    options.threshold = 0.5;
    options.exec.threads = 1;
    model = fit(&options, points, 3, 2);
    if (!model) return;
    CHECK_OK(birch_model_insert_features(model, far_mean, &far_count, &far_ssd, 1, &error), &error);
    f = features_of(model, 2);
    CHECK_EQ_INT(f.m, 2);
    CHECK_EQ_INT(f.counts[1], 7);
    CHECK(f.means[2] == 100 && f.means[3] == -50 && f.ssd[1] == 0.02, "the far CF changed");
    CHECK_EQ_INT(parac_birch_points_seen(model), 10);
    CHECK(birch_model_insert_features(model, far_mean, &bad, &far_ssd, 1, &error) == PARAC_ERR_INVALID_ARGUMENT,
          "a CF of count 0 must be refused");
    features_free(&f);
    parac_birch_destroy(model);
}

int main(void)
{
    singleton_cfs_are_points();
    merged_halves_keep_the_union(50, 0.5);
    merged_halves_keep_the_union(3, 0.3);
    far_cf_stays_whole();
    return test_finish("birch.cf_merge");
}

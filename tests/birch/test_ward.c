/* tests/birch/test_ward.c — the global step's two Ward spaces (birch/ward.c): scipy's distance
 * matrix with Lance–Williams updates, and the centroids with each Ward distance computed when
 * needed (beyond BIRCH_WARD_MATRIX_MAX subclusters), the nearest cluster from a kd-tree or a scan over
 * the threads (whichever is cheaper). On centroids in general position both give
 * the same merges and heights within rounding, the centroid space the same bytes on any thread
 * count, and a fit with more subclusters than the matrix's range stays in O(m) memory (the matrix
 * of 12,000 subclusters alone is 576 MB). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "birch/ward.h"
#include "support_birch.h"
#include "test_util.h"

static double relative_gap(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return scale > 0 ? fabs(a - b) / scale : 0.0;
}

static void compare_spaces(const char *label, const double *centers, size_t m, size_t dims)
{
    birch_merge *matrix = malloc(m * sizeof *matrix), *centroid = malloc(m * sizeof *centroid);
    birch_merge *centroid_1 = malloc(m * sizeof *centroid_1);
    int32_t *by_matrix = malloc(m * sizeof *by_matrix), *by_centroid = malloc(m * sizeof *by_centroid);
    size_t same_pairs = 0;
    double worst = 0.0;
    parac_error error;
    static const size_t cuts[] = {2, 3, 20, 100};
    CHECK_OK(birch_ward_cpu_in(1, centers, m, dims, 2, NULL, matrix, &error), &error);
    CHECK_OK(birch_ward_cpu_in(0, centers, m, dims, 4, NULL, centroid, &error), &error);
    CHECK_OK(birch_ward_cpu_in(0, centers, m, dims, 1, NULL, centroid_1, &error), &error);
    for (size_t k = 0; k + 1 < m; k++) {
        same_pairs += matrix[k].a == centroid[k].a && matrix[k].b == centroid[k].b;
        if (relative_gap(matrix[k].height, centroid[k].height) > worst)
            worst = relative_gap(matrix[k].height, centroid[k].height);
    }
    CHECK(same_pairs == m - 1, "%s: %zu of %zu merges name other clusters in the centroid space", label,
          m - 1 - same_pairs, m - 1);
    CHECK(worst < 1e-9, "%s: heights differ by %.3g (relative)", label, worst);
    CHECK(memcmp(centroid, centroid_1, (m - 1) * sizeof *centroid) == 0,
          "%s: the centroid space's merges differ between 1 and 4 threads", label);
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        CHECK_OK(birch_ward_cut(matrix, m, cuts[c], by_matrix, &error), &error);
        CHECK_OK(birch_ward_cut(centroid, m, cuts[c], by_centroid, &error), &error);
        CHECK(memcmp(by_matrix, by_centroid, m * sizeof *by_matrix) == 0, "%s: the cut into %zu clusters differs",
              label, cuts[c]);
    }
    free(matrix), free(centroid), free(centroid_1), free(by_matrix), free(by_centroid);
}

static long peak_rss_kb(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

/* A threshold far below the spread: a subcluster per point, beyond the matrix's range. */
static void fit_beyond_the_matrix(void)
{
    size_t n = 12000, m = 0;
    double *points = support_uniform(n, 2, 100.0, 41);
    parac_birch_options options;
    parac_birch *model;
    int32_t *labels = malloc(n * sizeof *labels);
    long before = peak_rss_kb();
    parac_birch_options_init(&options);
    options.threshold = 1e-9;
    options.n_clusters = 5;
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    model = support_fit(&options, points, n, 2, 0, labels);
    CHECK(model != NULL, "the fit failed");
    if (model) {
        double *centers = support_subclusters(model, &m);
        size_t sizes[5] = {0};
        CHECK(m == n && !birch_ward_uses_matrix(m), "%zu subclusters: not beyond the matrix's range", m);
        for (size_t i = 0; i < n; i++)
            if (labels[i] >= 0 && labels[i] < 5) sizes[labels[i]]++;
        for (int c = 0; c < 5; c++) CHECK(sizes[c] > 0, "cluster %d is empty", c);
        /* uniform data: Ward gives compact clusters, each between 5 % and 50 % of the points */
        for (int c = 0; c < 5; c++)
            CHECK(sizes[c] > n / 20 && sizes[c] < n / 2, "cluster %d holds %zu of %zu points", c, sizes[c], n);
        free(centers);
        parac_birch_destroy(model);
    }
    CHECK(peak_rss_kb() - before < 200 * 1024, "the global step of %zu subclusters grew the peak by %ld kB", m,
          peak_rss_kb() - before);
    free(points), free(labels);
}

int main(void)
{
    double *blobs = support_blobs(3000, 2, 12, 2.0, 7), *wide = support_uniform(2500, 5, 10.0, 9);
    compare_spaces("3,000 2-D blob centroids", blobs, 3000, 2);
    compare_spaces("2,500 5-D uniform centroids", wide, 2500, 5);
    free(blobs), free(wide);
    /* 40-D: the tree reads about every cluster, so the centroid space scans them over its threads
     * (ward.c, nearest_centroid): the same merges on 1 and 4 threads and as the matrix's */
    wide = support_uniform(1500, 40, 10.0, 13);
    compare_spaces("1,500 40-D uniform centroids", wide, 1500, 40);
    free(wide);
    fit_beyond_the_matrix();
    return test_finish("birch.ward");
}

/* tests/birch/support_birch.c — data and quality measures for the birch tests. */
#include "support_birch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/matrix_file.h"
#include "core/rng.h"
#include "test_util.h"

double *support_blobs(size_t n, size_t dims, size_t centers, double std, uint64_t seed)
{
    parac_rng rng;
    double *middle = malloc(centers * dims * sizeof(double)), *points = malloc(n * dims * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < centers * dims; i++) middle[i] = -10.0 + 20.0 * parac_rng_uniform(&rng);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < dims; j++)
            points[i * dims + j] = middle[(i % centers) * dims + j] + std * parac_rng_normal(&rng);
    free(middle);
    return points;
}

double *support_uniform(size_t n, size_t dims, double side, uint64_t seed)
{
    parac_rng rng;
    double *points = malloc(n * dims * sizeof(double));
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n * dims; i++) points[i] = side * parac_rng_uniform(&rng);
    return points;
}

double *support_grid_blobs(size_t n, size_t dims, size_t centers, double std, double spacing, uint64_t seed)
{
    parac_rng rng;
    double *points = malloc(n * dims * sizeof(double));
    size_t side = 1;
    while (side * side < centers) side++;
    parac_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < dims; j++) {
            size_t c = i % centers, grid = j == 0 ? c % side : j == 1 ? c / side : 0;
            points[i * dims + j] = spacing * (double)grid + std * parac_rng_normal(&rng);
        }
    return points;
}

double *support_chameleon(size_t *n)
{
    char path[1024];
    parac_matrix matrix;
    parac_error error;
    snprintf(path, sizeof path, "%s/cluster/chameleon_t7_10k.data.gz", test_data_dir());
    if (parac_matrix_load(path, 0, &matrix, &error) != PARAC_OK) {
        printf("chameleon: %s\n", error.message);
        return NULL;
    }
    *n = matrix.rows;
    return matrix.data;
}

static double choose2(double x) { return x * (x - 1) / 2; }

double support_ari(const int32_t *a, const int32_t *b, size_t n)
{
    int32_t max_a = 0, max_b = 0;
    double index = 0, sum_a = 0, sum_b = 0, expected, maximum;
    double *table, *rows, *cols;
    for (size_t i = 0; i < n; i++) {
        if (a[i] > max_a) max_a = a[i];
        if (b[i] > max_b) max_b = b[i];
    }
    table = calloc((size_t)(max_a + 1) * (size_t)(max_b + 1), sizeof(double));
    rows = calloc((size_t)max_a + 1, sizeof(double));
    cols = calloc((size_t)max_b + 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        table[(size_t)a[i] * (size_t)(max_b + 1) + (size_t)b[i]] += 1;
        rows[a[i]] += 1, cols[b[i]] += 1;
    }
    for (size_t i = 0; i < (size_t)(max_a + 1) * (size_t)(max_b + 1); i++) index += choose2(table[i]);
    for (int32_t i = 0; i <= max_a; i++) sum_a += choose2(rows[i]);
    for (int32_t i = 0; i <= max_b; i++) sum_b += choose2(cols[i]);
    free(table), free(rows), free(cols);
    expected = sum_a * sum_b / choose2((double)n);
    maximum = (sum_a + sum_b) / 2;
    return maximum == expected ? 1.0 : (index - expected) / (maximum - expected);
}

double support_sse(const double *points, size_t n, size_t dims, const int32_t *labels)
{
    int32_t max = 0;
    double *sums, *counts, sse = 0;
    for (size_t i = 0; i < n; i++) if (labels[i] > max) max = labels[i];
    sums = calloc((size_t)(max + 1) * dims, sizeof(double));
    counts = calloc((size_t)max + 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        counts[labels[i]] += 1;
        for (size_t j = 0; j < dims; j++) sums[(size_t)labels[i] * dims + j] += points[i * dims + j];
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < dims; j++) {
            double d = points[i * dims + j] - sums[(size_t)labels[i] * dims + j] / counts[labels[i]];
            sse += d * d;
        }
    free(sums), free(counts);
    return sse;
}

parac_birch *support_fit(const parac_birch_options *options, const double *points, size_t n, size_t dims,
                         size_t chunk, int32_t *labels)
{
    parac_birch *model = NULL;
    parac_error error;
    parac_status status = parac_birch_create(options, dims, &model, &error);
    if (chunk == 0) chunk = n;
    for (size_t start = 0; status == PARAC_OK && start < n; start += chunk)
        status = parac_birch_partial_fit(model, points + start * dims, n - start < chunk ? n - start : chunk, &error);
    if (status == PARAC_OK) status = parac_birch_global_step(model, &error);
    if (status == PARAC_OK && labels) status = parac_birch_predict(model, points, n, labels, NULL, &error);
    CHECK_OK(status, &error);
    if (status != PARAC_OK) {
        parac_birch_destroy(model);
        return NULL;
    }
    return model;
}

double *support_subclusters(const parac_birch *model, size_t *m)
{
    parac_error error;
    double *centers;
    *m = parac_birch_subcluster_count(model);
    centers = malloc((*m + 1) * parac_birch_dims(model) * sizeof(double));
    CHECK_OK(parac_birch_subclusters(model, centers, NULL, NULL, &error), &error);
    return centers;
}

static int compare_candidates(const void *a, const void *b)
{
    const ward_candidate *x = a, *y = b;
    return ward_candidate_less(*x, *y) ? -1 : ward_candidate_less(*y, *x);
}

size_t support_ward_by_scan(const double *centers, const int64_t *size, size_t m, size_t dims, size_t x,
                            ward_candidate *nearest)
{
    size_t count = 0;
    for (size_t i = 0; i < m; i++) {
        if (i == x || size[i] == 0) continue;
        nearest[count].distance = birch_ward_squared(centers + x * dims, size[x], centers + i * dims, size[i], dims);
        nearest[count++].id = i;
    }
    qsort(nearest, count, sizeof *nearest, compare_candidates);
    return count;
}

/* metrics/agreement.c — ARI and NMI from the contingency table (sklearn's formulas). */
#include <parac/metrics.h>

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "metrics/label_table.h"

static double sum_of_squares(const double *values, size_t count)
{
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) sum += values[i] * values[i];
    return sum;
}

parac_status parac_metrics_adjusted_rand(const int32_t *labels, const int32_t *truth, size_t count, double *score,
                                         parac_error *error)
{
    metrics_contingency_table table;
    double n = (double)count, squares, true_pairs, false_positive, false_negative, true_negative;
    parac_status status;
    if (count == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "metrics: no labels");
    if ((status = metrics_contingency(labels, truth, count, &table, error)) != PARAC_OK) return status;
    /* The pair confusion matrix, as sklearn's pair_confusion_matrix. */
    squares = sum_of_squares(table.cells, table.cell_count);
    true_pairs = squares - n;
    false_positive = sum_of_squares(table.label_sizes, table.label_clusters) - squares;
    false_negative = sum_of_squares(table.truth_sizes, table.truth_clusters) - squares;
    true_negative = n * n - false_positive - false_negative - squares;
    metrics_contingency_free(&table);
    if (false_negative == 0 && false_positive == 0) {
        *score = 1.0;
        return PARAC_OK;
    }
    *score = 2.0 * (true_pairs * true_negative - false_negative * false_positive) /
             ((true_pairs + false_negative) * (false_negative + true_negative) +
              (true_pairs + false_positive) * (false_positive + true_negative));
    return PARAC_OK;
}

static double entropy(const double *sizes, size_t clusters, double n)
{
    double h = 0.0;
    for (size_t i = 0; i < clusters; i++)
        if (sizes[i] > 0) h -= sizes[i] / n * (log(sizes[i]) - log(n));
    return h;
}

static int compare_pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static double mutual_information(const int32_t *labels, const int32_t *truth, size_t count,
                                 const metrics_contingency_table *table, parac_error *error, parac_status *status)
{
    uint32_t *a = malloc((count + 1) * sizeof(uint32_t)), *b = malloc((count + 1) * sizeof(uint32_t));
    uint32_t *pairs = malloc((count + 1) * 2 * sizeof(uint32_t));
    double n = (double)count, mi = 0.0;
    size_t clusters;
    *status = PARAC_OK;
    if (!a || !b || !pairs) {
        *status = parac_fail_no_memory(error, "mutual information", count * 16);
        goto done;
    }
    if ((*status = metrics_dense_labels(labels, count, a, &clusters, error)) != PARAC_OK ||
        (*status = metrics_dense_labels(truth, count, b, &clusters, error)) != PARAC_OK)
        goto done; /* its own message: a failed table used to be read as labels */
    for (size_t i = 0; i < count; i++) pairs[2 * i] = a[i], pairs[2 * i + 1] = b[i];
    qsort(pairs, count, 2 * sizeof(uint32_t), compare_pair);
    for (size_t i = 0; i < count;) {
        size_t j = i;
        double cell, outer;
        while (j < count && pairs[2 * j] == pairs[2 * i] && pairs[2 * j + 1] == pairs[2 * i + 1]) j++;
        cell = (double)(j - i);
        outer = table->label_sizes[pairs[2 * i]] * table->truth_sizes[pairs[2 * i + 1]];
        mi += cell / n * (log(cell) + log(n) - log(outer)); /* cell/n * log(cell * n / outer) */
        i = j;
    }
done:
    free(a);
    free(b);
    free(pairs);
    return mi;
}

parac_status parac_metrics_normalized_mutual_info(const int32_t *labels, const int32_t *truth, size_t count,
                                                  double *score, parac_error *error)
{
    metrics_contingency_table table;
    double n = (double)count, mi, normalizer;
    parac_status status;
    if (count == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "metrics: no labels");
    if ((status = metrics_contingency(labels, truth, count, &table, error)) != PARAC_OK) return status;
    if (table.label_clusters == 1 && table.truth_clusters == 1) {
        metrics_contingency_free(&table);
        *score = 1.0;
        return PARAC_OK;
    }
    mi = mutual_information(labels, truth, count, &table, error, &status);
    normalizer = 0.5 * (entropy(table.label_sizes, table.label_clusters, n) +
                        entropy(table.truth_sizes, table.truth_clusters, n));
    metrics_contingency_free(&table);
    if (status != PARAC_OK) return status;
    *score = fabs(mi) < 2.2250738585072014e-308 || normalizer <= 0 ? 0.0 : mi / normalizer;
    return PARAC_OK;
}


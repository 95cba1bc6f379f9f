/* metrics/label_table.c — dense cluster ids and contingency counts. */
#include "metrics/label_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static int compare_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int compare_uint64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t find_value(const int32_t *values, size_t count, int32_t value)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (values[middle] < value) low = middle + 1;
        else high = middle;
    }
    return low;
}

parac_status metrics_dense_labels(const int32_t *labels, size_t count, uint32_t *dense, size_t *cluster_count,
                                  parac_error *error)
{
    int32_t *sorted = malloc((count + 1) * sizeof(int32_t));
    size_t unique = 0;
    if (!sorted) return parac_fail_no_memory(error, "label table", count * 4);
    memcpy(sorted, labels, count * sizeof(int32_t));
    qsort(sorted, count, sizeof(int32_t), compare_int32);
    for (size_t i = 0; i < count; i++)
        if (i == 0 || sorted[i] != sorted[unique - 1]) sorted[unique++] = sorted[i];
    for (size_t i = 0; i < count; i++) dense[i] = (uint32_t)find_value(sorted, unique, labels[i]);
    free(sorted);
    *cluster_count = unique;
    return PARAC_OK;
}

parac_status metrics_contingency(const int32_t *labels, const int32_t *truth, size_t count, metrics_contingency_table *table,
                                 parac_error *error)
{
    uint32_t *a = malloc((count + 1) * sizeof(uint32_t)), *b = malloc((count + 1) * sizeof(uint32_t));
    uint64_t *pairs = malloc((count + 1) * sizeof(uint64_t));
    parac_status status = PARAC_ERR_NO_MEMORY;
    memset(table, 0, sizeof *table);
    if (!a || !b || !pairs) {
        parac_fail_no_memory(error, "contingency table", count * 16);
        goto done;
    }
    if ((status = metrics_dense_labels(labels, count, a, &table->label_clusters, error)) != PARAC_OK) goto done;
    if ((status = metrics_dense_labels(truth, count, b, &table->truth_clusters, error)) != PARAC_OK) goto done;
    table->label_sizes = calloc(table->label_clusters + 1, sizeof(double));
    table->truth_sizes = calloc(table->truth_clusters + 1, sizeof(double));
    table->cells = malloc((count + 1) * sizeof(double));
    if (!table->label_sizes || !table->truth_sizes || !table->cells) {
        status = parac_fail_no_memory(error, "contingency table", count * 8);
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        pairs[i] = ((uint64_t)a[i] << 32) | b[i];
        table->label_sizes[a[i]] += 1;
        table->truth_sizes[b[i]] += 1;
    }
    qsort(pairs, count, sizeof(uint64_t), compare_uint64);
    for (size_t i = 0; i < count;) {
        size_t j = i;
        while (j < count && pairs[j] == pairs[i]) j++;
        table->cells[table->cell_count++] = (double)(j - i);
        i = j;
    }
    status = PARAC_OK;
done:
    free(a);
    free(b);
    free(pairs);
    if (status != PARAC_OK) metrics_contingency_free(table);
    return status;
}

void metrics_contingency_free(metrics_contingency_table *table)
{
    free(table->label_sizes);
    free(table->truth_sizes);
    free(table->cells);
    memset(table, 0, sizeof *table);
}

/* metrics/label_table.h — label bookkeeping shared by the metrics. */
#ifndef PARAC_METRICS_LABEL_TABLE_H
#define PARAC_METRICS_LABEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

/* dense[i] in [0, *cluster_count): the rank of labels[i] among the distinct values. */
parac_status metrics_dense_labels(const int32_t *labels, size_t count, uint32_t *dense, size_t *cluster_count,
                                  parac_error *error);

/* The non-zero cells of the contingency table and its margins (as doubles). */
typedef struct metrics_contingency_table {
    size_t label_clusters, truth_clusters;
    double *label_sizes;  /* label_clusters */
    double *truth_sizes;  /* truth_clusters */
    double *cells;        /* cell_count non-zero counts n_ij */
    size_t cell_count;
} metrics_contingency_table;

parac_status metrics_contingency(const int32_t *labels, const int32_t *truth, size_t count,
                                 metrics_contingency_table *table, parac_error *error);
void metrics_contingency_free(metrics_contingency_table *table);

#endif

/* core/select_nth.h — quickselect of point ids by one coordinate, for the kd-trees that split at the
 * median (birch's Ward tree, dbscan's cell trees). */
#ifndef PARAC_CORE_SELECT_NTH_H
#define PARAC_CORE_SELECT_NTH_H

#include <stddef.h>
#include <stdint.h>

/* Reorders ids[begin, end) so that ids[nth] is the one whose coordinate k (points[id * stride + k])
 * has sorted position nth, the smaller ones before it and the others after. Median-of-three pivots,
 * three-way partitions (duplicates cost nothing extra), no randomness: the order depends on the values
 * only. */
void parac_select_nth(uint32_t *ids, size_t begin, size_t end, size_t nth, const double *points, size_t stride,
                      size_t k);

#endif

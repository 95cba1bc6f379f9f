/* core/select_nth.h — the split of a median kd-tree node (birch's Ward tree, dbscan's cell trees):
 * the box's widest coordinate, and a quickselect of point ids by it. */
#ifndef PARAC_CORE_SELECT_NTH_H
#define PARAC_CORE_SELECT_NTH_H

#include <stddef.h>
#include <stdint.h>

/* The coordinate along which the box [low, high] (dims each) is widest; the first of equals. */
size_t parac_box_widest(const double *low, const double *high, size_t dims);

/* Reorders ids[begin, end) so that ids[nth] is the one whose coordinate k (points[id * stride + k])
 * has sorted position nth, the smaller ones before it and the others after. Median-of-three pivots,
 * three-way partitions (duplicates cost nothing extra), no randomness: the order depends on the values
 * only. */
void parac_select_nth(uint32_t *ids, size_t begin, size_t end, size_t nth, const double *points, size_t stride,
                      size_t k);

#endif

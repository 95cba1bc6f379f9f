/* dbscan/dbscan_labels.c — canonical cluster numbering shared by the CPU paths.
 *
 * Scanning points in index order and numbering a cluster when its first member
 * is met gives ids ordered by each cluster's lowest point index: a labelling
 * that does not depend on which union-find root happened to win.
 */
#include "dbscan/dbscan_internal.h"

void dbscan_canonical_labels(const uint32_t *root_of, size_t count, int32_t *scratch, int32_t *labels,
                             size_t *clusters)
{
    int32_t next = 0;
    for (size_t i = 0; i < count; i++) scratch[i] = -1;
    for (size_t i = 0; i < count; i++) {
        uint32_t root = root_of[i];
        if (root == DBSCAN_NO_ROOT) {
            labels[i] = PARAC_DBSCAN_NOISE;
            continue;
        }
        if (scratch[root] < 0) scratch[root] = next++;
        labels[i] = scratch[root];
    }
    *clusters = (size_t)next;
}

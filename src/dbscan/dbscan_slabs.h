/* dbscan/dbscan_slabs.h — DBSCAN over slabs of the points, merged exactly.
 *
 * When the points do not fit on the device, they are cut along coordinate 0
 * into slices of width w >= eps ("buckets"); a slab owns a run of buckets and
 * also holds HALO_BUCKETS buckets on either side. Why that is exact:
 *   - a point counted core inside any subset of the points is core (a subset
 *     only loses neighbours), so a slab never invents a core point or an edge;
 *   - a point within eps of an owned point lies at most 1 + tiny buckets away,
 *     and its own neighbours at most 2 + tiny (|dx0| <= distance, rounding
 *     included, and bucket positions are off by < 1e-7), so both lie within
 *     3 buckets: owned points and their neighbours have complete
 *     neighbourhoods, hence exact core flags, and every core-core edge of an
 *     owned point is found inside its slab;
 *   - a non-core owned point sees all of its core neighbours.
 * The solver clusters one slab and reports, per slab point, a representative:
 * for a core point a core point of its slab set, for a non-core point one of
 * the set of its lowest-index core neighbour (DBSCAN_NO_ROOT: none). The host
 * joins core points with their representatives in one union-find over all
 * points and gives each owned non-core point its representative's set: the
 * whole-input answer, so labels are byte-identical to a single pass.
 * Slab points keep their global order, so "lowest index" means the same. */
#ifndef PARAC_DBSCAN_SLABS_H
#define PARAC_DBSCAN_SLABS_H

#include "dbscan/dbscan_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DBSCAN_SLAB_HALO_BUCKETS 3

typedef struct dbscan_slabs {
    uint32_t *bucket;     /* count: bucket of each point along coordinate 0 */
    size_t *first_bucket; /* slabs + 1: slab s owns buckets [first_bucket[s], first_bucket[s + 1]) */
    size_t slabs;
    size_t largest;       /* most points (owned + halo) in one slab */
} dbscan_slabs;

/* Cuts the points into at most `wanted` slabs of about equal owned counts
 * (fewer when the points sit in fewer buckets). */
parac_status dbscan_slabs_plan(const dbscan_points *points, double eps, size_t wanted, dbscan_slabs *slabs,
                               parac_error *error);
void dbscan_slabs_free(dbscan_slabs *slabs);

/* Clusters one slab: root[i] / core[i] for each of its points as described above. */
typedef parac_status (*dbscan_slab_solver)(void *context, const dbscan_points *slab, uint32_t *root, uint8_t *core,
                                           parac_error *error);

/* Runs `solve` on every slab and merges: labels, core_mask (may be NULL) and
 * info->clusters/core/noise/border as a single pass would give them. */
parac_status dbscan_slabs_cluster(const dbscan_points *points, const dbscan_slabs *slabs, dbscan_slab_solver solve,
                                  void *context, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                  parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

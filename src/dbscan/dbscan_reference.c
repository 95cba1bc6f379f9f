/* dbscan/dbscan_reference.c — DBSCAN by the definition, O(n^2), serial.
 *
 * The oracle every faster path is tested against: count all neighbours,
 * join core pairs with the union-find of core/union_find.h, give each border point the cluster
 * of its lowest-index core neighbour, number clusters canonically. Each of
 * the three O(n^2) passes reports progress per point and stops when asked.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/union_find.h"
#include "dbscan/dbscan_internal.h"

static int mark_core_points(const double *xs, size_t n, size_t d, double scale, double eps2, size_t min_samples,
                            uint8_t *core, parac_progress_gate *progress)
{
    for (size_t i = 0; i < n; i++) {
        size_t neighbours = 0;
        if (parac_progress_gate_poll_at(progress, i)) return 1;
        for (size_t j = 0; j < n; j++)
            if (dbscan_distance_squared(xs + i * d, xs + j * d, d, scale) <= eps2) neighbours++;
        core[i] = neighbours >= min_samples;
    }
    return 0;
}

static int join_core_pairs(const double *xs, size_t n, size_t d, double scale, double eps2, const uint8_t *core,
                           uint32_t *parent, parac_progress_gate *progress)
{
    union_find_init(parent, n);
    for (size_t i = 0; i < n; i++) {
        if (parac_progress_gate_poll_at(progress, n + i)) return 1;
        if (!core[i]) continue;
        for (size_t j = i + 1; j < n; j++)
            if (core[j] && dbscan_distance_squared(xs + i * d, xs + j * d, d, scale) <= eps2)
                union_find_join(parent, (uint32_t)i, (uint32_t)j);
    }
    return 0;
}

static uint32_t root_of_point(const double *xs, size_t n, size_t d, double scale, double eps2, const uint8_t *core,
                              uint32_t *parent, size_t i)
{
    if (core[i]) return union_find_root(parent, (uint32_t)i);
    for (size_t j = 0; j < n; j++)
        if (core[j] && dbscan_distance_squared(xs + i * d, xs + j * d, d, scale) <= eps2) return union_find_root(parent, (uint32_t)j);
    return DBSCAN_NO_ROOT;
}

parac_status dbscan_reference(const dbscan_points *points, double eps, size_t min_samples, const parac_exec *exec,
                              int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info, parac_error *error)
{
    parac_progress_gate progress;
    size_t n = points->count, d = points->dim;
    double scale = dbscan_distance_scale(eps), eps2 = dbscan_scaled_eps_squared(eps, scale);
    double *xs = malloc((n * d > 0 ? n * d : 1) * sizeof(double));
    uint8_t *core = malloc(n > 0 ? n : 1);
    uint32_t *parent = malloc((n > 0 ? n : 1) * sizeof(uint32_t));
    uint32_t *root_of = calloc(n > 0 ? n : 1, sizeof(uint32_t));
    int32_t *scratch = malloc((n > 0 ? n : 1) * sizeof(int32_t));
    parac_status status = PARAC_OK;
    if (!xs || !core || !parent || !root_of || !scratch) {
        status = parac_fail_no_memory(error, "dbscan reference buffers", (unsigned long long)n * (d * 8 + 13));
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++) xs[i * d + k] = dbscan_coordinate(points, i, k);
    parac_progress_gate_init(&progress, exec, 3 * (uint64_t)n);
    if (parac_progress_gate_report_now(&progress) ||
        mark_core_points(xs, n, d, scale, eps2, min_samples, core, &progress) ||
        join_core_pairs(xs, n, d, scale, eps2, core, parent, &progress)) {
        status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (parac_progress_gate_poll_at(&progress, 2 * n + i)) {
            status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
            goto done;
        }
        root_of[i] = root_of_point(xs, n, d, scale, eps2, core, parent, i);
    }
    if (parac_progress_gate_finish(&progress)) {
        status = parac_fail(error, PARAC_ERR_CANCELLED, "dbscan: cancelled");
        goto done;
    }
    dbscan_canonical_labels(root_of, n, scratch, labels, &info->clusters);
    for (size_t i = 0; i < n; i++) {
        if (core_mask) core_mask[i] = core[i];
        info->core += core[i];
        info->noise += root_of[i] == DBSCAN_NO_ROOT;
    }
    info->border = n - info->core - info->noise;
    info->cells = 1;
done:
    free(xs);
    free(core);
    free(parent);
    free(root_of);
    free(scratch);
    return status;
}

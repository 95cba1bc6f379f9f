/* dbscan/dbscan_slabs.c — slab plan and exact host merge (dbscan_slabs.h says why it is exact). */
#include "dbscan/dbscan_slabs.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/union_find.h"

/* Bucket positions stay below 2^24, where double rounding moves them by < 1e-7. */
#define MAX_BUCKETS ((size_t)1 << 24)

static void coordinate_range(const dbscan_points *points, double *low, double *high)
{
    *low = *high = dbscan_coordinate(points, 0, 0);
    for (size_t i = 1; i < points->count; i++) {
        double x = dbscan_coordinate(points, i, 0);
        *low = x < *low ? x : *low;
        *high = x > *high ? x : *high;
    }
}

/* Buckets of width >= eps along coordinate 0; returns how many. A span that
 * overflows a double counts as DBL_MAX (the points past it share the last
 * bucket), and positions are clamped before the conversion: clamping only
 * brings buckets closer, which keeps the halo argument. */
static size_t assign_buckets(const dbscan_points *points, double eps, uint32_t *bucket)
{
    double low, high, width = eps, span;
    size_t buckets;
    coordinate_range(points, &low, &high);
    span = high - low <= DBL_MAX ? high - low : DBL_MAX;
    if (span / eps < (double)(MAX_BUCKETS - 1)) {
        buckets = (size_t)(span / eps) + 1;
    } else {
        buckets = MAX_BUCKETS;
        width = span / (double)(MAX_BUCKETS - 1);
        if (width < eps) width = eps;
    }
    for (size_t i = 0; i < points->count; i++) {
        double position = (dbscan_coordinate(points, i, 0) - low) / width;
        size_t b = position > 0 ? (position < (double)buckets ? (size_t)position : buckets - 1) : 0;
        bucket[i] = (uint32_t)b;
    }
    return buckets;
}

static size_t halo_low(size_t bucket) { return bucket > DBSCAN_SLAB_HALO_BUCKETS ? bucket - DBSCAN_SLAB_HALO_BUCKETS : 0; }

/* Cuts the buckets into `wanted` runs (one per occupied bucket when fewer are occupied) of about
 * count / wanted owned points: slab s ends at the first occupied bucket where the points so far
 * reach s / wanted of all, or earlier when each slab still to come needs one of the occupied
 * buckets left. Every slab owns at least one point. (A greedy cut that filled each slab to
 * count / wanted rounded up overshot by whole buckets and planned 6 slabs where 7 were asked on
 * 20,000 uniform points: the quick GPU test's finding on the H200, 2026-12-05.) */
static void cut_slabs(const size_t *per_bucket, size_t buckets, size_t count, size_t wanted, dbscan_slabs *slabs)
{
    size_t occupied = 0, occupied_seen = 0, owned = 0;
    for (size_t b = 0; b < buckets; b++) occupied += per_bucket[b] > 0;
    if (wanted > occupied) wanted = occupied ? occupied : 1;
    slabs->slabs = 0;
    slabs->first_bucket[0] = 0;
    for (size_t b = 0; b + 1 < buckets && slabs->slabs + 1 < wanted; b++) {
        size_t next = slabs->slabs + 1; /* the slab this bucket may close */
        if (per_bucket[b] == 0) continue;
        owned += per_bucket[b];
        occupied_seen++;
        if (owned * wanted >= next * count || occupied - occupied_seen == wanted - next)
            slabs->first_bucket[++slabs->slabs] = b + 1;
    }
    slabs->first_bucket[++slabs->slabs] = buckets;
}

static size_t largest_slab(const size_t *per_bucket, size_t buckets, const dbscan_slabs *slabs)
{
    size_t largest = 0;
    for (size_t s = 0; s < slabs->slabs; s++) {
        size_t end = slabs->first_bucket[s + 1] + DBSCAN_SLAB_HALO_BUCKETS, total = 0;
        for (size_t b = halo_low(slabs->first_bucket[s]); b < end && b < buckets; b++) total += per_bucket[b];
        largest = total > largest ? total : largest;
    }
    return largest;
}

parac_status dbscan_slabs_plan(const dbscan_points *points, double eps, size_t wanted, dbscan_slabs *slabs,
                               parac_error *error)
{
    size_t buckets, *per_bucket;
    memset(slabs, 0, sizeof *slabs);
    if (points->count == 0) return PARAC_OK;
    if (wanted < 1) wanted = 1;
    slabs->bucket = malloc(points->count * sizeof(uint32_t));
    slabs->first_bucket = malloc((wanted + 1) * sizeof(size_t));
    if (!slabs->bucket || !slabs->first_bucket) {
        dbscan_slabs_free(slabs);
        return parac_fail_no_memory(error, "dbscan slab plan", points->count * sizeof(uint32_t));
    }
    buckets = assign_buckets(points, eps, slabs->bucket);
    per_bucket = calloc(buckets, sizeof(size_t));
    if (!per_bucket) {
        dbscan_slabs_free(slabs);
        return parac_fail_no_memory(error, "dbscan slab buckets", buckets * sizeof(size_t));
    }
    for (size_t i = 0; i < points->count; i++) per_bucket[slabs->bucket[i]]++;
    cut_slabs(per_bucket, buckets, points->count, wanted, slabs);
    slabs->largest = largest_slab(per_bucket, buckets, slabs);
    free(per_bucket);
    return PARAC_OK;
}

void dbscan_slabs_free(dbscan_slabs *slabs)
{
    free(slabs->bucket);
    free(slabs->first_bucket);
    memset(slabs, 0, sizeof *slabs);
}

/* ---------------------------------------------------------------- merge */

/* Host buffers: whole-input sets plus one slab's points and results. */
typedef struct slab_work {
    uint32_t *parent;  /* count */
    uint32_t *border;  /* count: representative of an owned non-core point, DBSCAN_NO_ROOT = noise */
    uint8_t *core;     /* count */
    void *coordinates; /* largest x dim */
    uint32_t *global;  /* largest: slab position -> point index */
    uint32_t *root;    /* largest */
    uint8_t *slab_core;
} slab_work;

static void work_free(slab_work *work)
{
    free(work->parent);
    free(work->border);
    free(work->core);
    free(work->coordinates);
    free(work->global);
    free(work->root);
    free(work->slab_core);
}

static parac_status work_alloc(const dbscan_points *points, size_t largest, slab_work *work, parac_error *error)
{
    size_t n = points->count, value = points->f64 ? sizeof(double) : sizeof(float);
    memset(work, 0, sizeof *work);
    work->parent = malloc(n * sizeof(uint32_t));
    work->border = malloc(n * sizeof(uint32_t));
    work->core = calloc(n, 1);
    work->coordinates = malloc(largest * points->dim * value + 1);
    work->global = malloc(largest * sizeof(uint32_t) + 1);
    work->root = malloc(largest * sizeof(uint32_t) + 1);
    work->slab_core = malloc(largest + 1);
    if (!work->parent || !work->border || !work->core || !work->coordinates || !work->global || !work->root ||
        !work->slab_core) {
        work_free(work);
        memset(work, 0, sizeof *work);
        return parac_fail_no_memory(error, "dbscan slab merge", n * 9 + largest * (points->dim * value + 9));
    }
    union_find_init(work->parent, n);
    for (size_t i = 0; i < n; i++) work->border[i] = DBSCAN_NO_ROOT;
    return PARAC_OK;
}

/* Copies slab s's points (owned and halo) in index order; returns the slab view. */
static dbscan_points gather_slab(const dbscan_points *points, const dbscan_slabs *slabs, size_t s, slab_work *work)
{
    dbscan_points slab = {NULL, NULL, 0, points->dim};
    size_t low = halo_low(slabs->first_bucket[s]), high = slabs->first_bucket[s + 1] + DBSCAN_SLAB_HALO_BUCKETS;
    size_t d = points->dim, m = 0;
    for (size_t i = 0; i < points->count; i++) {
        if (slabs->bucket[i] < low || slabs->bucket[i] >= high) continue;
        if (points->f64) memcpy((double *)work->coordinates + m * d, points->f64 + i * d, d * sizeof(double));
        else memcpy((float *)work->coordinates + m * d, points->f32 + i * d, d * sizeof(float));
        work->global[m++] = (uint32_t)i;
    }
    if (points->f64) slab.f64 = work->coordinates;
    else slab.f32 = work->coordinates;
    slab.count = m;
    return slab;
}

/* Core points join their representatives; owned non-core points keep theirs. */
static void merge_slab(const dbscan_slabs *slabs, size_t s, size_t m, slab_work *work)
{
    for (size_t i = 0; i < m; i++) {
        uint32_t g = work->global[i], root = work->root[i];
        uint32_t rep = root == DBSCAN_NO_ROOT ? DBSCAN_NO_ROOT : work->global[root];
        if (work->slab_core[i]) {
            work->core[g] = 1;
            union_find_join(work->parent, g, rep);
        } else if (slabs->bucket[g] >= slabs->first_bucket[s] && slabs->bucket[g] < slabs->first_bucket[s + 1]) {
            work->border[g] = rep;
        }
    }
}

/* Final representative per point, then the canonical labels and counts. */
static parac_status finish(const dbscan_points *points, slab_work *work, int32_t *labels, uint8_t *core_mask,
                           parac_dbscan_info *info, parac_error *error)
{
    size_t n = points->count, core = 0, noise = 0;
    int32_t *scratch = malloc(n * sizeof(int32_t));
    if (!scratch) return parac_fail_no_memory(error, "dbscan slab labels", n * sizeof(int32_t));
    for (size_t i = 0; i < n; i++) { /* border[] becomes the root of every point */
        uint32_t rep = work->core[i] ? (uint32_t)i : work->border[i];
        work->border[i] = rep == DBSCAN_NO_ROOT ? DBSCAN_NO_ROOT : union_find_root(work->parent, rep);
        core += work->core[i];
        noise += work->border[i] == DBSCAN_NO_ROOT;
    }
    dbscan_canonical_labels(work->border, n, scratch, labels, &info->clusters);
    free(scratch);
    if (core_mask) memcpy(core_mask, work->core, n);
    info->core = core;
    info->noise = noise;
    info->border = n - core - noise;
    return PARAC_OK;
}

parac_status dbscan_slabs_cluster(const dbscan_points *points, const dbscan_slabs *slabs, dbscan_slab_solver solve,
                                  void *context, int32_t *labels, uint8_t *core_mask, parac_dbscan_info *info,
                                  parac_error *error)
{
    slab_work work;
    parac_status status;
    if (points->count == 0) return PARAC_OK;
    status = work_alloc(points, slabs->largest, &work, error);
    for (size_t s = 0; status == PARAC_OK && s < slabs->slabs; s++) {
        dbscan_points slab = gather_slab(points, slabs, s, &work);
        if (slab.count == 0) continue;
        status = solve(context, &slab, work.root, work.slab_core, error);
        if (status == PARAC_OK) merge_slab(slabs, s, slab.count, &work);
    }
    if (status == PARAC_OK) status = finish(points, &work, labels, core_mask, info, error);
    work_free(&work);
    return status;
}

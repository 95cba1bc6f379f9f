/* birch/birch.c — the public API: options, the model, dispatch to serial,
 * batched CPU or CUDA insertion, the global step and predict. */
#include <parac/birch.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <parac/devices.h>

#include "birch/batch.h"
#include "birch/cf_tree.h"
#include "birch/nearest.h"
#include "birch/speculative.h"
#include "birch/subcluster_features.h"
#include "birch/ward.h"
#include "core/device_choice.h"
#include "core/error.h"
#include "core/finite.h"
#include "core/progress.h"
#include "core/threads.h"
#ifdef PARAC_HAVE_CUDA
#include "birch/birch_cuda.h"
#endif

/* Below this many subclusters the CPU's Ward step is faster than launching kernels. */
#define BIRCH_GPU_WARD_MIN 2048
/* Speculation windows shorter than this descend on the CPU: a GPU round trip
 * costs more (the result is the same either way: it is the serial tree). */
#define BIRCH_GPU_SPECULATE_MIN 2048

struct parac_birch {
    parac_birch_options options;
    parac_device device;
    birch_tree tree;
    size_t points_seen;
    /* the global step */
    int global_done;
    size_t subclusters;
    size_t clusters;
    int too_few;
    double *centers;         /* subclusters × dims */
    int64_t *counts;
    int32_t *cluster_of;     /* subcluster → cluster */
    birch_kdtree index;
    birch_speculative_stats stats;
#ifdef PARAC_HAVE_CUDA
    birch_cuda *gpu;
#endif
};

const char *parac_birch_variant_name(parac_birch_variant variant)
{
    switch (variant) {
    case PARAC_BIRCH_SPECULATIVE: return "speculative";
    case PARAC_BIRCH_SEGMENTED: return "segmented";
    case PARAC_BIRCH_REMOVED_HYBRID: return "hybrid";
    case PARAC_BIRCH_SPECULATIVE_PARALLEL: return "speculative-parallel";
    }
    return NULL;
}

static parac_status removed_hybrid(parac_error *error)
{
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "birch: the hybrid variant was removed from the library (no better than segmented); it moved "
                      "to dev/birch/01_hybrid.cu (the kernel lab, dev/README.md)");
}

parac_status parac_birch_variant_parse(const char *name, parac_birch_variant *variant, parac_error *error)
{
    if (strcmp(name, "speculative") == 0) *variant = PARAC_BIRCH_SPECULATIVE;
    else if (strcmp(name, "segmented") == 0) *variant = PARAC_BIRCH_SEGMENTED;
    else if (strcmp(name, "speculative-parallel") == 0) *variant = PARAC_BIRCH_SPECULATIVE_PARALLEL;
    else if (strcmp(name, "hybrid") == 0) return removed_hybrid(error);
    else
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "birch: unknown variant '%s' (speculative, speculative-parallel or segmented)", name);
    return PARAC_OK;
}

void parac_birch_options_init(parac_birch_options *options)
{
    memset(options, 0, sizeof *options);
    options->threshold = 0.5;
    options->branching_factor = 50;
    options->n_clusters = 3;
    options->batch_size = PARAC_BIRCH_DEFAULT_BATCH;
    options->variant = PARAC_BIRCH_SPECULATIVE_PARALLEL; /* measured fastest of the exact variants (docs/birch.md) */
}

static parac_status check_options(const parac_birch_options *options, size_t dims, parac_error *error)
{
    if (!(options->threshold >= PARAC_BIRCH_MIN_THRESHOLD) || !isfinite(options->threshold))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "birch: threshold must be a finite number >= %g (got %g; its square must stay a normal "
                          "double: scale the data instead)",
                          PARAC_BIRCH_MIN_THRESHOLD, options->threshold);
    if (options->branching_factor < 2 || options->branching_factor > 1000000)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: branching factor must be in 2..1000000 (got %d)",
                          options->branching_factor);
    if (options->n_clusters < 0)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: n_clusters must be >= 0 (got %d)",
                          options->n_clusters);
    if (!parac_birch_variant_name(options->variant))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: unknown variant %d", (int)options->variant);
    if (options->variant == PARAC_BIRCH_REMOVED_HYBRID) return removed_hybrid(error);
    if (dims == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: points need at least one coordinate");
    return PARAC_OK;
}

parac_status parac_birch_create(const parac_birch_options *options, size_t dims, parac_birch **model,
                                parac_error *error)
{
    parac_birch *created;
    parac_status status = check_options(options, dims, error);
    *model = NULL;
    if (status != PARAC_OK) return status;
    created = calloc(1, sizeof *created);
    if (!created) return parac_fail_no_memory(error, "birch model", sizeof *created);
    created->options = *options;
    /* One thread count for the model's life, chosen now from the idle cores: the commit phases run
     * in lockstep (core/threads.h). */
    created->options.exec.threads = parac_threads_for_lockstep_run(options->exec.threads);
    {
        /* The points come later (fit, partial_fit): size unknown, the model keeps AUTO on the CPU. */
        parac_workload work = {PARAC_WORKLOAD_BIRCH, -1.0, 0.0};
        status = parac_choose_device(&options->exec, &work, &created->device, error);
    }
    if (status == PARAC_OK) status = birch_tree_init(&created->tree, dims, options->branching_factor, options->threshold, error);
#ifdef PARAC_HAVE_CUDA
    if (status == PARAC_OK && created->device == PARAC_DEVICE_CUDA)
        status = birch_cuda_create(options->exec.cuda_device, &created->gpu, error);
#else
    if (status == PARAC_OK && created->device == PARAC_DEVICE_CUDA)
        status = parac_fail(error, PARAC_ERR_NO_DEVICE, "birch: this build has no CUDA path");
#endif
    if (status != PARAC_OK) {
        parac_birch_destroy(created);
        return status;
    }
    *model = created;
    return PARAC_OK;
}

static void drop_global(parac_birch *model)
{
    free(model->centers), free(model->counts), free(model->cluster_of);
    model->centers = NULL, model->counts = NULL, model->cluster_of = NULL;
    birch_kdtree_free(&model->index);
    model->global_done = 0;
}

void parac_birch_destroy(parac_birch *model)
{
    if (!model) return;
    drop_global(model);
    birch_tree_free(&model->tree);
#ifdef PARAC_HAVE_CUDA
    birch_cuda_destroy(model->gpu);
#endif
    free(model);
}

/* Refuses non-finite coordinates and those beyond PARAC_BIRCH_MAX_COORDINATE
 * (parac/birch.h says why), naming the first; first_row numbers the rows. The
 * batched paths scan on their threads (the serial path is one thread). */
static parac_status check_points(const parac_birch *model, const double *points, size_t count, size_t first_row,
                                 const char *what, parac_error *error)
{
    size_t dims = model->tree.dims, values = count * dims;
    int threads = model->options.batch_size == 0 ? 1 : parac_threads_resolve(model->options.exec.threads);
    size_t bad = parac_first_beyond(points, values, PARAC_BIRCH_MAX_COORDINATE, threads);
    if (bad == values) return PARAC_OK;
    if (!isfinite(points[bad]))
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: %s %zu has a non-finite coordinate %zu", what,
                          first_row + bad / dims, bad % dims);
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "birch: %s %zu, coordinate %zu is %g: out of the supported range |x| <= %g (squared distances "
                      "would overflow); scale the data",
                      what, first_row + bad / dims, bad % dims, points[bad], PARAC_BIRCH_MAX_COORDINATE);
}

#ifdef PARAC_HAVE_CUDA
typedef struct gpu_speculator {
    birch_cuda *gpu;
    int threads;
} gpu_speculator;

static parac_status speculate_gpu(void *context, const birch_tree *tree, const double *points, size_t n, size_t height,
                                  int32_t *leaf_slot, double *margins, parac_error *error)
{
    gpu_speculator *speculator = (gpu_speculator *)context;
    if (n < BIRCH_GPU_SPECULATE_MIN)
        return birch_speculate_cpu(&speculator->threads, tree, points, n, height, leaf_slot, margins, error);
    return birch_cuda_speculate(speculator->gpu, tree, points, n, height, leaf_slot, margins, error);
}
#endif

static parac_status insert_speculative(parac_birch *model, const double *points, size_t count, parac_error *error)
{
    int threads = model->options.exec.threads;
    birch_commit_mode commit = {model->options.variant == PARAC_BIRCH_SPECULATIVE_PARALLEL,
                                parac_threads_resolve(threads)};
#ifdef PARAC_HAVE_CUDA
    if (model->gpu) {
        gpu_speculator speculator = {model->gpu, threads};
        return birch_insert_speculative(&model->tree, points, count, model->options.batch_size, speculate_gpu,
                                        &speculator, commit, &model->stats, error);
    }
#endif
    return birch_insert_speculative(&model->tree, points, count, model->options.batch_size, birch_speculate_cpu,
                                    &threads, commit, &model->stats, error);
}

static parac_status insert_segmented(parac_birch *model, const double *points, size_t count, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    if (model->gpu)
        return birch_cuda_insert_batched(model->gpu, &model->tree, points, count, model->options.batch_size, error);
#endif
    return birch_insert_batched_cpu(&model->tree, points, count, model->options.batch_size,
                                    model->options.exec.threads, error);
}

static parac_status insert_points(parac_birch *model, const double *points, size_t count, parac_error *error)
{
    if (model->options.batch_size == 0) return birch_tree_insert_points(&model->tree, points, count, error);
    if (model->options.variant == PARAC_BIRCH_SPECULATIVE || model->options.variant == PARAC_BIRCH_SPECULATIVE_PARALLEL)
        return insert_speculative(model, points, count, error);
    return insert_segmented(model, points, count, error);
}

/* Points inserted between two progress checkpoints: a whole number of batches
 * (so slicing a call changes no batch and, as any chunking of partial_fit, no
 * byte of the tree), about 2^13 points (one default batch). Not more: where
 * the tree grows large (3 M uniform points at threshold 0.001), 2^20 points
 * took a minute, and a Ctrl-C waited for it; a checkpoint costs a clock read. */
static size_t slice_points(const parac_birch *model)
{
    size_t batch = model->options.batch_size, wanted = (size_t)1 << 13;
    if (batch == 0) return wanted;
    return batch >= wanted ? batch : wanted / batch * batch;
}

parac_status parac_birch_partial_fit(parac_birch *model, const double *points, size_t count, parac_error *error)
{
    parac_progress_gate progress;
    size_t slice = slice_points(model), done = 0;
    parac_status status = check_points(model, points, count, model->points_seen, "point", error);
    if (status != PARAC_OK) return status;
    drop_global(model);
    /* A report at once (a cancel asked for before the call stops it before any point), then one
     * between slices when due. No total/total report at the end: a call is often one chunk of the
     * caller's stream, whose own report ends the bar. */
    parac_progress_gate_init(&progress, &model->options.exec, count);
    while (done < count) {
        size_t now = count - done < slice ? count - done : slice;
        if (done == 0 ? parac_progress_gate_report_now(&progress) : parac_progress_gate_poll_at(&progress, done))
            return parac_fail(error, PARAC_ERR_CANCELLED, "birch: cancelled after %zu of %zu points", done, count);
        status = insert_points(model, points + done * model->tree.dims, now, error);
        if (status != PARAC_OK) return status;
        model->points_seen += now;
        done += now;
    }
    return PARAC_OK;
}

/* The CPU's chain reports the merges done (a first report at once, so a cancel asked for before
 * the step stops it before the distance matrix) and stops with PARAC_ERR_CANCELLED when asked;
 * the GPU's chain is one launch and reports nothing. */
static parac_status ward_merges_cpu(parac_birch *model, birch_merge *merges, parac_error *error)
{
    size_t m = model->subclusters;
    parac_progress_gate progress;
    parac_status status;
    if (m < 2) return PARAC_OK; /* no merge */
    parac_progress_gate_init(&progress, &model->options.exec, m - 1);
    if (parac_progress_gate_report_now(&progress))
        return parac_fail(error, PARAC_ERR_CANCELLED, "birch: global step cancelled before its first merge");
    status = birch_ward_cpu(model->centers, m, model->tree.dims, model->options.exec.threads, &progress, merges,
                            error);
    if (status == PARAC_OK && parac_progress_gate_finish(&progress))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "birch: global step cancelled after its last merge");
    return status;
}

static parac_status ward_merges(parac_birch *model, birch_merge *merges, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    /* beyond the matrix's range the CPU's centroid chain runs on every device (same bytes) */
    if (model->gpu && model->subclusters >= BIRCH_GPU_WARD_MIN && birch_ward_uses_matrix(model->subclusters)) {
        parac_status status =
            birch_cuda_ward(model->gpu, model->centers, model->subclusters, model->tree.dims, merges, error);
        if (status != PARAC_ERR_NO_MEMORY) return status; /* else fall back to host memory */
    }
#endif
    return ward_merges_cpu(model, merges, error);
}

static parac_status cluster_subclusters(parac_birch *model, parac_error *error)
{
    size_t m = model->subclusters, k = (size_t)model->options.n_clusters;
    birch_merge *merges;
    parac_status status;
    model->too_few = k > 0 && m < k;
    if (k == 0 || m < k) {
        for (size_t i = 0; i < m; i++) model->cluster_of[i] = (int32_t)i;
        model->clusters = m;
        return PARAC_OK;
    }
    merges = malloc(m * sizeof(birch_merge));
    if (!merges) return parac_fail_no_memory(error, "Ward merges", m * sizeof(birch_merge));
    status = ward_merges(model, merges, error);
    if (status == PARAC_OK) status = birch_ward_cut(merges, m, k, model->cluster_of, error);
    free(merges);
    model->clusters = k;
    return status;
}

parac_status parac_birch_global_step(parac_birch *model, parac_error *error)
{
    size_t m = model->tree.leaf_entries, dims = model->tree.dims;
    parac_status status;
    drop_global(model);
    model->subclusters = m;
    model->centers = malloc((m + 1) * dims * sizeof(double));
    model->counts = malloc((m + 1) * sizeof(int64_t));
    model->cluster_of = malloc((m + 1) * sizeof(int32_t));
    if (!model->centers || !model->counts || !model->cluster_of) {
        drop_global(model);
        return parac_fail_no_memory(error, "birch subclusters", (unsigned long long)(m * (dims + 2) * 8));
    }
    birch_tree_collect(&model->tree, model->centers, model->counts, NULL);
    status = cluster_subclusters(model, error);
    if (status == PARAC_OK) status = birch_kdtree_build(&model->index, model->centers, m, dims, error);
    if (status != PARAC_OK) {
        drop_global(model);
        return status;
    }
    model->global_done = 1;
    return PARAC_OK;
}

void birch_model_leaf_features(const parac_birch *model, double *means, int64_t *counts, double *ssd)
{
    birch_tree_collect(&model->tree, means, counts, ssd);
}

parac_status birch_model_insert_features(parac_birch *model, const double *means, const int64_t *counts,
                                         const double *ssd, size_t m, parac_error *error)
{
    drop_global(model);
    for (size_t i = 0; i < m; i++) {
        parac_status status = birch_tree_insert_cf(&model->tree, counts[i], means + i * model->tree.dims, ssd[i], error);
        if (status != PARAC_OK) return status;
        model->points_seen += (size_t)counts[i];
    }
    return PARAC_OK;
}

void parac_birch_get_insert_stats(const parac_birch *model, parac_birch_insert_stats *stats)
{
    const birch_speculative_stats *own = &model->stats;
    stats->windows = own->windows, stats->speculated = own->speculated;
    stats->direct = own->direct, stats->serial = own->serial;
    stats->phases = own->phases, stats->stop_points = own->stops, stats->redone = own->redone;
    stats->rerouted = own->rerouted;
    stats->critical_points = own->critical, stats->commit_parallel_seconds = own->parallel_seconds;
    stats->speculate_seconds = own->speculate_seconds, stats->commit_seconds = own->commit_seconds;
}

size_t parac_birch_dims(const parac_birch *model) { return model->tree.dims; }
size_t parac_birch_points_seen(const parac_birch *model) { return model->points_seen; }
size_t parac_birch_subcluster_count(const parac_birch *model) { return model->tree.leaf_entries; }
size_t parac_birch_cluster_count(const parac_birch *model) { return model->global_done ? model->clusters : 0; }
int parac_birch_too_few_subclusters(const parac_birch *model) { return model->global_done && model->too_few; }
parac_device parac_birch_device_used(const parac_birch *model) { return model->device; }

parac_status parac_birch_subclusters(const parac_birch *model, double *centers, int64_t *counts, int32_t *cluster,
                                     parac_error *error)
{
    birch_tree_collect(&model->tree, centers, counts, NULL);
    if (cluster) {
        if (!model->global_done)
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: clusters asked for before the global step");
        memcpy(cluster, model->cluster_of, model->subclusters * sizeof(int32_t));
    }
    return PARAC_OK;
}

parac_status parac_birch_cluster_centers(const parac_birch *model, double *centers, parac_error *error)
{
    size_t dims = model->tree.dims;
    double *weights;
    if (!model->global_done)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: cluster centres asked for before the global step");
    weights = calloc(model->clusters + 1, sizeof(double));
    if (!weights) return parac_fail_no_memory(error, "cluster centres", model->clusters * sizeof(double));
    memset(centers, 0, model->clusters * dims * sizeof(double));
    for (size_t i = 0; i < model->subclusters; i++) {
        size_t c = (size_t)model->cluster_of[i];
        weights[c] += (double)model->counts[i];
        for (size_t j = 0; j < dims; j++) centers[c * dims + j] += (double)model->counts[i] * model->centers[i * dims + j];
    }
    for (size_t c = 0; c < model->clusters; c++)
        for (size_t j = 0; j < dims; j++) centers[c * dims + j] /= weights[c];
    free(weights);
    return PARAC_OK;
}

parac_status parac_birch_predict(parac_birch *model, const double *points, size_t count, int32_t *labels,
                                 int32_t *subcluster, parac_error *error)
{
    int32_t *nearest = subcluster;
    parac_status status = PARAC_OK;
    int on_gpu = 0;
#ifdef PARAC_HAVE_CUDA
    on_gpu = model->gpu != NULL;
#endif
    if (!model->global_done)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: predict called before the global step");
    if (model->subclusters == 0)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "birch: predict called on an empty model");
    status = check_points(model, points, count, 0, "predicted point", error);
    if (status != PARAC_OK) return status;
    if (!on_gpu && !subcluster) { /* labels only: the cluster of the nearest centroid, in the search's own pass */
        if (labels)
            birch_kdtree_nearest_all(&model->index, points, count, model->options.exec.threads, model->cluster_of,
                                     labels);
        return PARAC_OK;
    }
    if (!nearest && !(nearest = malloc((count + 1) * sizeof(int32_t))))
        return parac_fail_no_memory(error, "nearest subclusters", count * sizeof(int32_t));
#ifdef PARAC_HAVE_CUDA
    if (model->gpu)
        status = birch_cuda_nearest(model->gpu, model->centers, model->subclusters, model->tree.dims, points, count,
                                    nearest, error);
    else
#endif
        birch_kdtree_nearest_all(&model->index, points, count, model->options.exec.threads, NULL, nearest);
    if (status == PARAC_OK && labels) {
        int threads = parac_threads_resolve(model->options.exec.threads);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && count >= 65536)
        for (size_t i = 0; i < count; i++) labels[i] = model->cluster_of[nearest[i]];
    }
    if (nearest != subcluster) free(nearest);
    return status;
}

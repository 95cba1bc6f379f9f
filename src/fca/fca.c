/* fca/fca.c — the public entry points: choose the path (one thread, OpenMP,
 * CUDA), run it, put the concepts in canonical order. */
#include <stdio.h>
#include <stdlib.h>

#include <parac/devices.h>

#include "core/bitset.h"
#include "core/device_choice.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/threads.h"
#include "fca/device_handover.h"
#include "fca/fca_internal.h"

/* AUTO starts the CPU search and hands it over to the GPU only when its progress says the GPU
 * would end sooner (device_handover.h); an engine made for the GPU keeps its GPU (its start-up is
 * paid already). Sparse contexts stay on the CPU: the GPU task pool is built for dense bitsets and
 * stalls on them (issue 18: the 1 % dense T10I4D100K did not finish in 45 s on the H200, 0.78 s on
 * its 16 cores). */
#define FCA_GPU_MIN_DENSITY 0.05

/* Occupied cells / (objects x attributes). */
static double context_density(const parac_fca_context *context)
{
    size_t cells = fca_context_cells(context);
    return context->objects && context->attributes
               ? (double)cells / ((double)context->objects * (double)context->attributes)
               : 0.0;
}

/* AUTO takes the sparse search below this density (docs/fca.md, "Sparse contexts": measured on the
 * shared contexts, the crossover lies between 3 % and 19 % dense). */
#define FCA_SPARSE_MAX_DENSITY 0.05

/* ... and above this many search attributes (equal columns counted once, fca_search) whatever the
 * density: the dense search's failed sets N_j are attributes x attributes bits for every pending node
 * (30 objects x 50,000 attributes at 50 %: 3.7 GB within 30 s, where the sparse search held 22 MB;
 * 2026-12-05). The benchmarks' contexts stay far below (mushroom 119 columns, T10I4D100K 870). */
#define FCA_DENSE_MAX_ATTRIBUTES 4096

static int too_wide_for_dense(const fca_search *search) { return search->attributes > FCA_DENSE_MAX_ATTRIBUTES; }

static int wants_sparse(const parac_fca_context *context, const fca_search *search, const parac_fca_options *options,
                        double density)
{
    if (!fca_sparse_suits(context)) return 0;
    if (options->cpu_strategy == PARAC_FCA_CPU_SPARSE) return 1;
    return options->cpu_strategy == PARAC_FCA_CPU_AUTO && (density < FCA_SPARSE_MAX_DENSITY || too_wide_for_dense(search));
}

/* The device to start on; *watch is set when the run starts on the CPU and may be handed over to
 * the GPU (AUTO on a CUDA build, a dense context, no engine: the choice is then recorded at the end). */
static parac_status choose_device(double density, const fca_search *search, const parac_fca_options *options,
                                  parac_device *device, int *watch, parac_error *error)
{
    char reason[96];
    *watch = 0;
    if (options->exec.device != PARAC_DEVICE_AUTO) return parac_choose_device(&options->exec, NULL, device, error);
    if (options->engine && options->engine->cuda_context) {
        *device = PARAC_DEVICE_CUDA;
        parac_device_record(&options->exec, *device, "auto: the engine's GPU context (start-up already paid)");
        return PARAC_OK;
    }
    *device = PARAC_DEVICE_CPU;
    if (!parac_built_with_cuda()) {
        parac_device_record(&options->exec, *device, "auto: parac was built without CUDA");
        return PARAC_OK;
    }
    if (density < FCA_GPU_MIN_DENSITY) {
        snprintf(reason, sizeof reason, "auto: sparse context (%.2g %% dense < %.0f %%) stays on the cpu", density * 100.0,
                 FCA_GPU_MIN_DENSITY * 100.0);
        parac_device_record(&options->exec, *device, reason);
        return PARAC_OK;
    }
    if (too_wide_for_dense(search)) {
        snprintf(reason, sizeof reason, "auto: %zu distinct attribute columns (> %d) stay on the cpu's sparse search",
                 search->attributes, FCA_DENSE_MAX_ATTRIBUTES);
        parac_device_record(&options->exec, *device, reason);
        return PARAC_OK;
    }
    *watch = 1;
    return PARAC_OK;
}

/* The strategies that lost to ON_DEMAND everywhere moved to the kernel lab (issue 20); their numbers
 * stay reserved so that a caller naming one is told where it went. */
static parac_status check_cpu_strategy(parac_fca_cpu_strategy strategy, parac_error *error)
{
    static const char *const removed[][2] = {
        [PARAC_FCA_CPU_REMOVED_SHARED_POOL] = {"shared_pool", "01_shared_pool.c"},
        [PARAC_FCA_CPU_REMOVED_PER_THREAD] = {"per_thread", "02_per_thread.c"},
        [PARAC_FCA_CPU_REMOVED_WORK_STEALING] = {"work_stealing", "03_work_stealing.c"},
    };
    if ((int)strategy < PARAC_FCA_CPU_AUTO || (int)strategy > PARAC_FCA_CPU_SPARSE)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: unknown cpu_strategy %d", (int)strategy);
    if (strategy >= PARAC_FCA_CPU_REMOVED_SHARED_POOL && strategy <= PARAC_FCA_CPU_REMOVED_WORK_STEALING)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                          "fca: the %s CPU strategy was removed from the library (slower than on_demand on every "
                          "case measured); it moved to dev/fca/%s with its measurements (the kernel lab, "
                          "dev/README.md)",
                          removed[strategy][0], removed[strategy][1]);
    return PARAC_OK;
}

/* The same for the GPU strategies that never won (issue 20): checked on every run, whatever the
 * device, so that a caller learns of the removal on a machine without a GPU too. */
static parac_status check_gpu_strategy(parac_fca_gpu_strategy strategy, parac_error *error)
{
    static const char *const removed[][3] = {
        [PARAC_FCA_GPU_REMOVED_LOCAL] = {"local", "04_gpu_local.cu", "never ahead of local_rows"},
        [PARAC_FCA_GPU_REMOVED_LOCAL_STREAM] = {"local_stream", "05_gpu_local_stream.cu",
                                                "tied local_rows counting, slower storing"},
        [PARAC_FCA_GPU_REMOVED_LOCAL_STAGED] = {"local_staged", "06_gpu_local_staged.cu",
                                                "slower than local_rows on every case measured"},
    };
    if ((int)strategy < PARAC_FCA_GPU_AUTO || (int)strategy > PARAC_FCA_GPU_REMOVED_LOCAL_STAGED)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: unknown gpu_strategy %d", (int)strategy);
    if (strategy == PARAC_FCA_GPU_AUTO || strategy == PARAC_FCA_GPU_ROUNDS || strategy == PARAC_FCA_GPU_LOCAL_ROWS)
        return PARAC_OK;
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "fca: the %s GPU strategy was removed from the library (%s); it moved to dev/fca/%s with its "
                      "measurements (the kernel lab, dev/README.md)",
                      removed[strategy][0], removed[strategy][2], removed[strategy][1]);
}

static parac_status run_cpu(const parac_fca_context *context, fca_search *search, int sparse, int threads,
                            parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    if (sparse) return fca_sparse_search(context, search, threads, concepts, count, error);
    if (threads <= 1) return fca_fcbo_serial(search, concepts, count, error);
    /* AUTO and ON_DEMAND (and SPARSE where it does not suit): the fastest on every case of the H200
     * host's 16 cores (docs/fca.md) */
    return fca_fcbo_on_demand(search, threads, concepts, count, error);
}

#ifdef PARAC_HAVE_CUDA
static parac_status run_gpu(const parac_fca_options *options, const fca_search *search, parac_fca_concepts *concepts,
                            uint64_t *count, parac_error *error)
{
    struct parac_cuda_context *shared = options->engine ? options->engine->cuda_context : NULL;
    int ordinal = options->engine && shared ? options->engine->cuda_device : options->exec.cuda_device;
    return fca_fcbo_cuda(search, ordinal, shared, options->gpu_strategy, options->gpu_pool_bytes,
                         options->max_device_bytes, concepts, count, error);
}

/* After the watcher stopped the CPU search: its concepts (stored, or spilled to disk in a streamed
 * run) are thrown away and the GPU searches from the start, reporting to the caller's callback. */
static parac_status hand_over(const parac_fca_context *context, const parac_fca_options *options, fca_search *search,
                              parac_progress_gate *gate, parac_fca_concepts *concepts, uint64_t *count,
                              parac_error *error)
{
    parac_status status = PARAC_OK;
    *count = 0;
    if (concepts) {
        fca_concepts_clear(concepts);
        if (concepts->spill) status = fca_concept_spill_clear(concepts->spill, error);
    }
    if (status == PARAC_OK && !search->rows) status = fca_search_fill_dense(context, search, error); /* after sparse */
    parac_progress_gate_init(gate, &options->exec, FCA_PROGRESS_TOTAL);
    search->progress = options->exec.progress ? gate : NULL;
    return status == PARAC_OK ? run_gpu(options, search, concepts, count, error) : status;
}
#endif

parac_status fca_run_search(const parac_fca_context *context, const parac_fca_options *options,
                            parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    parac_fca_options defaults = {0};
    parac_device device;
    fca_search search;
    fca_handover handover;
    parac_progress_gate gate;
    parac_status status;
    double density;
    int threads, watch = 0, sparse;
    if (!context || !count) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: context and result are required");
    if (!options) options = &defaults;
    if ((status = check_cpu_strategy(options->cpu_strategy, error)) != PARAC_OK ||
        (status = check_gpu_strategy(options->gpu_strategy, error)) != PARAC_OK)
        return status;
    density = context_density(context);
    /* the attribute order first; the dense rows and columns only when the path chosen needs them */
    status = fca_search_create_order(context, options->min_support, &search, error);
    if (status == PARAC_OK) {
        search.concept_spill = concepts ? concepts->spill : NULL;
        search.store_format = concepts ? &concepts->format : NULL;
    }
    if (status == PARAC_OK) status = choose_device(density, &search, options, &device, &watch, error);
    if (status != PARAC_OK) {
        fca_search_destroy(&search); /* a second destroy (after a failed half) is harmless */
        return status;
    }
    sparse = device == PARAC_DEVICE_CPU && wants_sparse(context, &search, options, density);
    if (!sparse && !search.rows && (status = fca_search_fill_dense(context, &search, error)) != PARAC_OK) return status;
    /* All cores even on a busy machine: the work-stealing search yields instead of spinning and
     * was faster with 2 threads than 1 with 1-2 cores taken (docs/PERFORMANCE.md, issue 16). */
    threads = parac_threads_resolve(options->exec.threads);
    if (watch) {
        /* the gate always has a callback here: the watcher (it forwards to the caller's) */
        fca_handover_begin(&handover, &options->exec, threads,
                           (double)search.objects * (double)search.attribute_words * 8.0 * 2.0);
        parac_progress_gate_init(&gate, &handover.exec, FCA_PROGRESS_TOTAL);
        search.progress = &gate;
    } else {
        parac_progress_gate_init(&gate, &options->exec, FCA_PROGRESS_TOTAL);
        search.progress = options->exec.progress ? &gate : NULL;
    }
#ifdef PARAC_HAVE_CUDA
    if (device == PARAC_DEVICE_CUDA)
        status = run_gpu(options, &search, concepts, count, error);
    else
#endif
        status = run_cpu(context, &search, sparse, threads, concepts, count, error);
#ifdef PARAC_HAVE_CUDA
    if (watch && status == PARAC_ERR_CANCELLED && handover.handed_over)
        status = hand_over(context, options, &search, &gate, concepts, count, error);
#endif
    if (watch) fca_handover_record(&handover, &options->exec);
    if (status == PARAC_OK && parac_progress_gate_finish(&gate))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "fca: cancelled");
    if (status == PARAC_OK) status = fca_search_finish(&search, concepts, count, error);
    fca_search_destroy(&search);
    return status;
}

parac_status parac_fca_count(const parac_fca_context *context, const parac_fca_options *options, uint64_t *count,
                             parac_error *error)
{
    return fca_run_search(context, options, NULL, count, error);
}

parac_status parac_fca_compute(const parac_fca_context *context, const parac_fca_options *options,
                               parac_fca_concepts **concepts, parac_error *error)
{
    parac_fca_concepts *made;
    fca_record_format format;
    uint64_t count = 0;
    parac_status status;
    if (!context || !concepts) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca: context and concepts are required");
    made = malloc(sizeof *made);
    if (!made) return parac_fail_no_memory(error, "concepts", sizeof *made);
    status = fca_concepts_init(made, context->attributes, error);
    /* short id lists on a wide sparse context: 50,000 rows over 200,000 items took 25 KB a concept */
    format = fca_record_format_for(context->attributes, fca_context_longest_row(context));
    fca_concepts_set_format(made, &format);
    if (status == PARAC_OK) status = fca_run_search(context, options, made, &count, error);
    if (status == PARAC_OK && count != fca_concepts_total(made))
        status = parac_fail(error, PARAC_ERR_INTERNAL, "fca: counted %llu concepts but stored %zu",
                            (unsigned long long)count, fca_concepts_total(made));
    if (status == PARAC_OK)
        status = fca_concepts_sort(made, parac_threads_resolve(options ? options->exec.threads : 0), error);
    if (status != PARAC_OK) {
        parac_fca_concepts_destroy(made);
        return status;
    }
    *concepts = made;
    return PARAC_OK;
}

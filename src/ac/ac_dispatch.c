/* ac/ac_dispatch.c — parac_ac_enforce: picks the algorithm and the device,
 * builds the arc model, runs, and reports the closure and figures. */
#include "ac/ac_algorithms.h"
#include "ac/global_propagate.h"
#include "ac/table_model.h"

#include <stdlib.h>
#include <string.h>

#include <parac/devices.h>

#include "core/device_choice.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/timer.h"
#include "csp/csp_handle.h"
#ifdef PARAC_HAVE_CUDA
#include "cuda/context.h"
#endif

static const char *const ALGORITHM_NAMES[] = {"auto",  "ac3",     "ac3rm",        "ac3bit",    "ac2001",
                                              "ac4",   "ac4-gpu", "ac4-gpu-plus", "gpu-bitset"};
#define ALGORITHM_COUNT (sizeof ALGORITHM_NAMES / sizeof ALGORITHM_NAMES[0])

size_t parac_ac_domain_words(uint64_t value_count) { return parac_bitset_words((size_t)value_count); }

const char *parac_ac_algorithm_name(parac_ac_algorithm algorithm)
{
    return (size_t)algorithm < ALGORITHM_COUNT ? ALGORITHM_NAMES[algorithm] : "unknown";
}

parac_status parac_ac_algorithm_parse(const char *name, parac_ac_algorithm *algorithm, parac_error *error)
{
    for (size_t i = 0; name && i < ALGORITHM_COUNT; i++)
        if (strcmp(name, ALGORITHM_NAMES[i]) == 0) {
            *algorithm = (parac_ac_algorithm)i;
            return PARAC_OK;
        }
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                      "unknown AC algorithm '%s' (ac3, ac3rm, ac3bit, ac2001, ac4, ac4-gpu, ac4-gpu-plus, "
                      "gpu-bitset, auto)", name ? name : "");
}

static const char *const VARIANT_NAMES[] = {"auto", "edges", "rows"};
#define VARIANT_COUNT (sizeof VARIANT_NAMES / sizeof VARIANT_NAMES[0])

const char *parac_ac_variant_name(parac_ac_variant variant)
{
    return (size_t)variant < VARIANT_COUNT ? VARIANT_NAMES[variant] : "unknown";
}

parac_status parac_ac_variant_parse(const char *name, parac_ac_variant *variant, parac_error *error)
{
    for (size_t i = 0; name && i < VARIANT_COUNT; i++)
        if (strcmp(name, VARIANT_NAMES[i]) == 0) {
            *variant = (parac_ac_variant)i;
            return PARAC_OK;
        }
    return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "unknown N-E variant '%s' (auto, edges, rows)",
                      name ? name : "");
}

/* What a GPU algorithm handles: every GPU path takes binary constraints; gpu-bitset (not SAC) also
 * tables, with the compact-table kernels of table_gpu.cu; none takes global constraints. */
static int gpu_handles(const parac_csp_network *network, parac_ac_algorithm algorithm, int singleton)
{
    if (network->global_count > 0) return 0;
    return ac_network_table_count(network) == 0 || (algorithm == PARAC_AC_GPU_BITSET && !singleton);
}

/* AUTO's workload: binary networks in N-E edges; with tables, tuple entries plus edges (the units of
 * PARAC_WORKLOAD_AC_TABLES), uploading the support rows and the matrices. */
static parac_workload ac_workload(const parac_csp_network *network)
{
    double edges = (double)parac_csp_edge_count(network);
    parac_workload work = {PARAC_WORKLOAD_AC, edges, edges * 8.0};
    if (ac_network_table_count(network) > 0) {
        work.kind = PARAC_WORKLOAD_AC_TABLES;
        work.units = (double)ac_network_tuple_entries(network) + edges;
        work.upload_bytes = (double)ac_network_table_support_bytes(network) + edges / 8.0;
    }
    return work;
}

static int runs_on_gpu_only(parac_ac_algorithm algorithm)
{
    return algorithm == PARAC_AC_AC4_GPU || algorithm == PARAC_AC_AC4_GPU_PLUS;
}

/* Settles AUTO and the device; refuses combinations that cannot run. */
static parac_status choose(const parac_csp_network *network, const parac_ac_options *options,
                           parac_ac_algorithm *algorithm, parac_device *device, parac_error *error)
{
    int tables = ac_network_table_count(network) > 0, globals = network->global_count > 0;
    parac_status status;
    *algorithm = options->algorithm;
    if (options->exec.device == PARAC_DEVICE_AUTO && *algorithm == PARAC_AC_AUTO && !options->singleton && !globals) {
        /* Plain AC: the cost model weighs AC3bit's run against the GPU's start-up and run. */
        parac_workload work = ac_workload(network);
        status = parac_choose_device(&options->exec, &work, device, error);
    } else {
        status = parac_exec_resolve_device(&options->exec, device, error);
    }
    if (status != PARAC_OK) return status;
    if ((size_t)*algorithm >= ALGORITHM_COUNT) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "bad AC algorithm");
    if ((size_t)options->variant >= VARIANT_COUNT)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "bad N-E variant");
    if (*algorithm == PARAC_AC_AUTO) {
        parac_ac_algorithm on_gpu = options->singleton || tables ? PARAC_AC_GPU_BITSET : PARAC_AC_AC4_GPU_PLUS;
        if (*device == PARAC_DEVICE_CUDA && !gpu_handles(network, on_gpu, options->singleton))
            *device = PARAC_DEVICE_CPU;
        /* Small binary networks: the GPU's fixed costs exceed AC3bit+rm's whole run (SAC stays on the
         * GPU; table networks were weighed by the cost model above). */
        if (*device == PARAC_DEVICE_CUDA && options->exec.device == PARAC_DEVICE_AUTO && !options->singleton &&
            !tables && parac_csp_edge_count(network) < PARAC_AC_AUTO_GPU_MIN_EDGES)
            *device = PARAC_DEVICE_CPU;
        *algorithm = *device == PARAC_DEVICE_CUDA ? on_gpu : PARAC_AC_AC3BIT;
    }
    if (runs_on_gpu_only(*algorithm) && *device != PARAC_DEVICE_CUDA)
        return parac_fail(error, options->exec.device == PARAC_DEVICE_CPU ? PARAC_ERR_INVALID_ARGUMENT : PARAC_ERR_NO_DEVICE,
                          "%s runs on a GPU only (none is usable here, or --device cpu was given)",
                          parac_ac_algorithm_name(*algorithm));
    if (*algorithm != PARAC_AC_GPU_BITSET && !runs_on_gpu_only(*algorithm) && *device == PARAC_DEVICE_CUDA) {
        if (options->exec.device == PARAC_DEVICE_CUDA)
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                              "%s is a serial CPU algorithm; on the GPU use ac4-gpu, ac4-gpu-plus or gpu-bitset",
                              parac_ac_algorithm_name(*algorithm));
        *device = PARAC_DEVICE_CPU;
    }
    if (options->exec.chosen && options->exec.chosen->device != *device)
        parac_device_record(&options->exec, *device,
                            globals                          ? "auto: global constraints run on the cpu"
                            : tables && options->singleton ? "auto: SAC on tables runs on the cpu"
                                                             : "auto: the chosen algorithm runs on the cpu");
    if (*device == PARAC_DEVICE_CUDA && globals)
        return parac_fail(error, PARAC_ERR_UNSUPPORTED,
                          "%s: global constraints have no GPU propagator; use a CPU algorithm (ac3bit, ac4, ...) "
                          "for them",
                          parac_ac_algorithm_name(*algorithm));
    if (*device == PARAC_DEVICE_CUDA && !gpu_handles(network, *algorithm, options->singleton))
        return parac_fail(error, PARAC_ERR_UNSUPPORTED,
                          "%s%s handles binary constraints only and this network has table constraints "
                          "(arity >= 3); gpu-bitset runs tables on the GPU, the CPU algorithms (ac3bit, ac4, ...) "
                          "on the CPU",
                          parac_ac_algorithm_name(*algorithm), options->singleton ? " with SAC" : "");
    return PARAC_OK;
}

/* The N-E algorithms read only the even arcs: their model needs no transposed matrices. */
static int reads_even_arcs_only(const parac_ac_options *options, parac_ac_algorithm algorithm, parac_device device)
{
    return device == PARAC_DEVICE_CUDA && !options->singleton && runs_on_gpu_only(algorithm);
}

int ac_cancelled(const ac_model *model, parac_error *error, parac_status *status)
{
    if (!model->progress || !parac_progress_gate_poll(model->progress)) return 0;
    *status = parac_fail(error, PARAC_ERR_CANCELLED, "ac: cancelled");
    return 1;
}

static parac_status run_cpu(const ac_model *model, ac_domains *domains, const parac_ac_options *options,
                            parac_ac_algorithm algorithm, parac_ac_stats *stats, parac_error *error)
{
    if (options->singleton) return ac_run_sac1(model, domains, stats, error);
    switch (algorithm) {
    case PARAC_AC_AC3: return ac_run_ac3(model, domains, stats, error);
    case PARAC_AC_AC3RM: return ac_run_ac3rm(model, domains, stats, error);
    case PARAC_AC_AC2001: return ac_run_ac2001(model, domains, stats, error);
    case PARAC_AC_AC4: return ac_run_ac4(model, domains, stats, error);
    case PARAC_AC_GPU_BITSET: return ac_run_bitset_rounds(model, domains, options->exec.threads, stats, error);
    default: return ac_run_ac3bit(model, domains, stats, error);
    }
}

#ifdef PARAC_HAVE_CUDA
/* AC4-GPU / AC4-GPU+ in the chosen layout. AUTO: rows, and the edge layout (which chunks) when the rows
 * layout runs out of device memory; a test's edge_limit (forced chunking) implies the edge layout. */
static parac_status run_cuda_ne(parac_cuda_context *context, const ac_model *model, ac_domains *domains,
                                const parac_ac_options *options, int plus, uint64_t edge_limit, uint64_t *value_bits,
                                parac_ac_stats *stats, parac_error *error)
{
    parac_ac_variant variant = options->variant;
    if (variant == PARAC_AC_VARIANT_AUTO && edge_limit == 0) {
        parac_ac_stats before = *stats;
        parac_status status = ac_cuda_ac4_rows(context, model, plus, domains, stats, error);
        if (status == PARAC_OK) {
            ac_domains_export(model, domains, stats->wipeout, value_bits);
            return PARAC_OK;
        }
        if (status != PARAC_ERR_NO_MEMORY) return status;
        parac_error_clear(error);
        *stats = before;
        variant = PARAC_AC_VARIANT_EDGES;
    }
    if (variant == PARAC_AC_VARIANT_ROWS) {
        parac_status status = ac_cuda_ac4_rows(context, model, plus, domains, stats, error);
        if (status == PARAC_OK) ac_domains_export(model, domains, stats->wipeout, value_bits);
        return status;
    }
    return ac_cuda_ac4(context, model, plus, edge_limit, value_bits, stats, error);
}

static parac_status run_cuda(const ac_model *model, ac_domains *domains, const parac_ac_options *options,
                             parac_ac_algorithm algorithm, uint64_t edge_limit, uint64_t *value_bits,
                             parac_ac_stats *stats, parac_error *error)
{
    parac_cuda_context context;
    double start = parac_now_seconds();
    parac_status status = parac_cuda_context_create(options->exec.cuda_device, &context, error);
    if (status != PARAC_OK) return status;
    stats->build_seconds += parac_now_seconds() - start;
    ac_domains_export(model, domains, 0, value_bits);
    if (options->singleton) status = ac_cuda_sac(&context, model, value_bits, stats, error);
    else if (algorithm == PARAC_AC_GPU_BITSET) status = ac_cuda_bitset(&context, model, value_bits, stats, error);
    else
        status = run_cuda_ne(&context, model, domains, options, algorithm == PARAC_AC_AC4_GPU_PLUS, edge_limit,
                             value_bits, stats, error);
    parac_cuda_context_destroy(&context);
    return status;
}
#endif

/* A global constraint over constants only (no variable: no engine ever revises it) that fails. */
static int constant_global_fails(const ac_model *model, ac_domains *domains)
{
    for (size_t k = 0; k < model->nary_count; k++)
        if (model->nary[k].arity == 0 && model->nary[k].global &&
            ac_revise_global(model, domains, model->nary[k].global, NULL, NULL))
            return 1;
    return 0;
}

static parac_status run_on_device(const ac_model *model, ac_domains *domains, const parac_ac_options *options,
                                  parac_ac_algorithm algorithm, parac_device device, uint64_t edge_limit,
                                  uint64_t *value_bits, parac_ac_stats *stats, parac_error *error)
{
    parac_status status;
    for (size_t v = 0; v < model->network->variable_count; v++)
        if (domains->size[v] == 0) stats->wipeout = 1; /* empty from the start: nothing to run */
    if (constant_global_fails(model, domains)) stats->wipeout = 1;
    if (stats->wipeout) return PARAC_OK;
    if (device == PARAC_DEVICE_CPU) {
        status = run_cpu(model, domains, options, algorithm, stats, error);
        if (status == PARAC_OK) ac_domains_export(model, domains, stats->wipeout, value_bits);
        return status;
    }
#ifdef PARAC_HAVE_CUDA
    return run_cuda(model, domains, options, algorithm, edge_limit, value_bits, stats, error);
#else
    (void)value_bits, (void)edge_limit;
    return parac_fail(error, PARAC_ERR_NO_DEVICE, "this build has no CUDA support");
#endif
}

parac_status ac_enforce_network(const parac_csp_network *network, const parac_ac_options *options, uint64_t *domains,
                                parac_ac_stats *stats_out, parac_error *error)
{
    return ac_enforce_network_limited(network, options, 0, domains, stats_out, error);
}

parac_status ac_enforce_network_limited(const parac_csp_network *network, const parac_ac_options *options,
                                        uint64_t edge_limit, uint64_t *domains, parac_ac_stats *stats_out,
                                        parac_error *error)
{
    parac_ac_options defaults = {0};
    parac_ac_stats stats = {0};
    ac_model model = {0};
    parac_progress_gate gate;
    ac_domains current = {0};
    size_t words = parac_bitset_words(network->value_count);
    uint64_t *value_bits = calloc(words + 1, sizeof *value_bits);
    parac_status status;
    double start = parac_now_seconds(), build_before;
    if (!options) options = &defaults;
    if (!value_bits) return parac_fail_no_memory(error, "result domains", (unsigned long long)words * 8);
    if ((status = choose(network, options, &stats.algorithm, &stats.device, error)) != PARAC_OK) goto done;
    if ((status = ac_model_build(network, !reads_even_arcs_only(options, stats.algorithm, stats.device), &model,
                                 error)) != PARAC_OK)
        goto done;
    if ((status = ac_domains_init(&model, &current, error)) != PARAC_OK) goto done;
    /* done/total: SAC's variables probed in the current pass; plain AC has no known end (0 %, time only) */
    parac_progress_gate_init(&gate, &options->exec, network->variable_count);
    model.progress = options->exec.progress ? &gate : NULL;
    stats.values_before = ac_domains_total(&model, &current); /* declared variables only (network.h) */
    stats.ne_nodes = network->value_count;
    stats.ne_edges = parac_csp_edge_count(network);
    stats.table_count = ac_network_table_count(network);
    stats.tuple_entries = ac_network_tuple_entries(network);
    stats.build_seconds = parac_now_seconds() - start;
    start = parac_now_seconds();
    build_before = stats.build_seconds;
    status = run_on_device(&model, &current, options, stats.algorithm, stats.device, edge_limit, value_bits, &stats,
                           error);
    if (status == PARAC_OK && model.progress && parac_progress_gate_finish(model.progress))
        status = parac_fail(error, PARAC_ERR_CANCELLED, "ac: cancelled");
    if (status != PARAC_OK) goto done;
    /* GPU paths add their uploads and BuildNE to build_seconds: keep them out of propagation. */
    stats.propagate_seconds = parac_now_seconds() - start - (stats.build_seconds - build_before);
    stats.values_after = stats.wipeout ? 0 : parac_csp_declared_values_in(network, value_bits);
    if (stats.wipeout) memset(value_bits, 0, words * sizeof *value_bits);
    stats.removed = stats.values_before - stats.values_after;
    if (domains) memcpy(domains, value_bits, words * sizeof *domains);
    if (stats_out) *stats_out = stats;
done:
    ac_domains_free(&current);
    ac_model_free(&model);
    free(value_bits);
    return status;
}

/* ---- the public entry points on a parac_csp handle ---- */

parac_status parac_ac_enforce(const parac_csp *csp, const parac_ac_options *options, uint64_t *domains,
                              parac_ac_stats *stats, parac_error *error)
{
    if (!csp) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "parac_ac_enforce: no network");
    return ac_enforce_network(parac_csp_network_of(csp), options, domains, stats, error);
}

uint32_t parac_ac_initial_domain_size(const parac_csp *csp, size_t variable)
{
    const parac_csp_network *network = parac_csp_network_of(csp);
    return variable < network->variable_count ? network->domain_size[variable] : 0;
}

size_t parac_ac_remaining_values(const parac_csp *csp, const uint64_t *domains, size_t variable, int64_t *values)
{
    const parac_csp_network *network = parac_csp_network_of(csp);
    size_t count = 0;
    if (variable >= network->variable_count) return 0;
    for (uint64_t id = network->value_offset[variable]; id < network->value_offset[variable + 1]; id++)
        if (parac_bitset_test(domains, id)) values[count++] = network->values[id];
    return count;
}

size_t parac_ac_global_consistency(const parac_csp *csp, const char **kinds, const char **levels, size_t capacity)
{
    const parac_csp_network *network = csp ? parac_csp_network_of(csp) : NULL;
    int weakest[AC_GLOBAL_KIND_COUNT];
    size_t count = 0;
    if (!network) return 0;
    for (size_t k = 0; k < AC_GLOBAL_KIND_COUNT; k++) weakest[k] = -1;
    for (size_t g = 0; g < network->global_count; g++) {
        const parac_csp_global *global = &network->globals[g];
        int level = (int)ac_global_strength(network, global);
        if ((size_t)global->kind < AC_GLOBAL_KIND_COUNT && level > weakest[global->kind]) weakest[global->kind] = level;
    }
    for (size_t k = 0; k < AC_GLOBAL_KIND_COUNT; k++) {
        if (weakest[k] < 0) continue;
        if (count < capacity) {
            if (kinds) kinds[count] = ac_global_kind_name((ac_global_kind)k);
            if (levels) levels[count] = ac_strength_name((ac_strength)weakest[k]);
        }
        count++;
    }
    return count;
}

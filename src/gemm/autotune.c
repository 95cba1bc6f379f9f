/* gemm/autotune.c — tile shapes timed per device and shape class, kept in a file the caller names.
 *
 * The cache is a text file, one line per (device, shape class):
 *   DEVICE<TAB>CLASS<TAB>TILE_M<TAB>TILE_N<TAB>SECONDS[<TAB>STAGES]
 * A shape class is the power-of-two bucket of m, n and k, the dtype and the requested kernel variant
 * ("m9-n9-k9-tf32-wgmma_tma"), so one search serves every nearby shape. STAGES is the WGMMA_TMA
 * pipeline depth (other variants have fixed pipelines). The tile shape also sets the threads per block
 * (one warp per 64x32 of C for base, BM/64 consumer warpgroups + a producer for wgmma_tma), so the shape
 * search is the threads-per-block search too.
 *
 * No hidden state: nothing here looks at $HOME or the environment. A plan reads the file only when
 * parac_gemm_options.tune_cache_path names it, and parac_gemm_autotune writes only that file.
 *
 * Bits: every candidate runs with the tile_k and split-k of the untuned plan (plan.c derives split-k
 * from the untuned shape even when the cache supplies the tiles). Those two fix each element's sum: a
 * chain of fused multiply-adds over its k tiles in ascending order per split segment, segments summed in
 * order; tile_m and tile_n only say which thread computes which element. So the tuner chooses among
 * shapes of identical bits (tests/gemm/test_autotune.c checks it on the CPU, test_autotune_gpu.c on
 * the GPU).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/line_reader.h"
#include "core/rng.h"
#include "gemm/gemm_internal.h"
#ifdef PARAC_HAVE_CUDA
#include "cuda/context.h"
#endif

#define CLASS_SIZE 96
#define DEVICE_NAME_SIZE 256

typedef struct tune_line {
    char device[DEVICE_NAME_SIZE], klass[CLASS_SIZE];
    int tile_m, tile_n, stages;
    double seconds;
} tune_line;

static int bucket(int64_t x)
{
    int b = 0;
    while ((1LL << (b + 1)) <= x) b++;
    return b;
}

/* `variant` is the requested one with AUTO resolved as the plan resolves it (plan->options.variant). */
static void shape_class(const parac_gemm_options *o, parac_gemm_variant variant, char *out, size_t size)
{
    snprintf(out, size, "m%d-n%d-k%d-%s-%s", bucket(o->m), bucket(o->n), bucket(o->k),
             o->dtype == PARAC_GEMM_TF32 ? "tf32" : "fp32", parac_gemm_variant_name(variant));
}

/* Copies the tab-terminated field at *cursor into out (at most size - 1 bytes); 0 when missing or too long. */
static int take_field(const char **cursor, char *out, size_t size)
{
    const char *tab = strchr(*cursor, '\t');
    size_t length = tab ? (size_t)(tab - *cursor) : 0;
    if (!tab || length == 0 || length >= size) return 0;
    memcpy(out, *cursor, length);
    out[length] = '\0';
    *cursor = tab + 1;
    return 1;
}

static parac_status parse_line(const char *path, long line_number, const char *text, tune_line *line,
                               parac_error *error)
{
    const char *cursor = text;
    int consumed = 0, fields;
    line->stages = 0;
    if (!take_field(&cursor, line->device, sizeof line->device) || !take_field(&cursor, line->klass, sizeof line->klass))
        return parac_fail_at(error, PARAC_ERR_PARSE, path, line_number,
                             "expected DEVICE<TAB>CLASS<TAB>TILE_M<TAB>TILE_N<TAB>SECONDS[<TAB>STAGES]");
    fields = sscanf(cursor, "%d\t%d\t%lf%n\t%d%n", &line->tile_m, &line->tile_n, &line->seconds, &consumed,
                    &line->stages, &consumed);
    if (fields < 3 || cursor[consumed] != '\0')
        return parac_fail_at(error, PARAC_ERR_PARSE, path, line_number,
                             "expected TILE_M<TAB>TILE_N<TAB>SECONDS[<TAB>STAGES] after the class");
    if ((line->tile_m != 64 && line->tile_m != 128) ||
        (line->tile_n != 64 && line->tile_n != 128 && line->tile_n != 256))
        return parac_fail_at(error, PARAC_ERR_PARSE, path, line_number,
                             "tile shape %d x %d: tile_m must be 64 or 128, tile_n 64, 128 or 256", line->tile_m,
                             line->tile_n);
    if (fields == 4 && line->stages != 4 && line->stages != 6)
        return parac_fail_at(error, PARAC_ERR_PARSE, path, line_number, "stages %d: must be 4 or 6", line->stages);
    if (!(line->seconds >= 0.0))
        return parac_fail_at(error, PARAC_ERR_PARSE, path, line_number, "seconds must be a number >= 0");
    return PARAC_OK;
}

/* Opens the cache for reading: 0 with *exists = 0 when the file is absent (an empty cache). */
static parac_status open_cache(const char *path, parac_line_reader *reader, int *exists, parac_error *error)
{
    *exists = access(path, F_OK) == 0 || errno != ENOENT;
    if (!*exists) return PARAC_OK;
    return parac_line_reader_open(reader, path, error);
}

/* Calls visit(line, raw text, context) for every line of the cache; stops at the first error. */
typedef parac_status (*visit_fn)(const tune_line *line, const char *text, void *context, parac_error *error);

static parac_status for_each_line(const char *path, visit_fn visit, void *context, parac_error *error)
{
    parac_line_reader reader;
    parac_status status;
    tune_line line;
    int exists, more;
    if ((status = open_cache(path, &reader, &exists, error)) != PARAC_OK || !exists) return status;
    while (status == PARAC_OK && (more = parac_line_reader_next(&reader, error)) != 0) {
        if (more < 0) status = error ? error->status : PARAC_ERR_IO;
        else if ((status = parse_line(path, reader.line_number, reader.buffer, &line, error)) == PARAC_OK)
            status = visit(&line, reader.buffer, context, error);
    }
    parac_line_reader_close(&reader);
    return status;
}

typedef struct lookup_context {
    const char *device, *klass;
    int found, tile_m, tile_n, stages;
} lookup_context;

static parac_status remember_match(const tune_line *line, const char *text, void *context, parac_error *error)
{
    lookup_context *c = context;
    (void)text, (void)error;
    if (strcmp(line->device, c->device) == 0 && strcmp(line->klass, c->klass) == 0) {
        c->found = 1; /* the last line of a key wins (autotune keeps one) */
        c->tile_m = line->tile_m;
        c->tile_n = line->tile_n;
        c->stages = line->stages;
    }
    return PARAC_OK;
}

parac_status gemm_autotune_lookup(const char *path, const char *device_name, const parac_gemm_options *options,
                                  int *found, int *tile_m, int *tile_n, int *stages, parac_error *error)
{
    char klass[CLASS_SIZE];
    lookup_context c = {device_name, klass, 0, 0, 0, 0};
    parac_status status;
    shape_class(options, options->variant, klass, sizeof klass);
    status = for_each_line(path, remember_match, &c, error);
    *found = status == PARAC_OK && c.found;
    *tile_m = c.tile_m;
    *tile_n = c.tile_n;
    *stages = options->variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? c.stages : 0;
    return status;
}

typedef struct copy_context {
    const char *device, *klass;
    FILE *out;
} copy_context;

static parac_status copy_other_keys(const tune_line *line, const char *text, void *context, parac_error *error)
{
    copy_context *c = context;
    (void)error;
    if (strcmp(line->device, c->device) != 0 || strcmp(line->klass, c->klass) != 0) fprintf(c->out, "%s\n", text);
    return PARAC_OK;
}

/* Rewrites the cache with this key's line replaced: a temporary file beside it, renamed over it. */
static parac_status cache_store(const char *path, const char *device_name, const char *klass, const tune_line *best,
                                parac_error *error)
{
    size_t temp_size = strlen(path) + 32;
    char *temp = malloc(temp_size);
    copy_context c = {device_name, klass, NULL};
    parac_status status;
    if (!temp) return parac_fail_no_memory(error, "tuning cache name", temp_size);
    snprintf(temp, temp_size, "%s.%ld.tmp", path, (long)getpid());
    if (!(c.out = fopen(temp, "w"))) {
        status = parac_fail_at(error, PARAC_ERR_IO, temp, 0, "cannot write the tuning cache: %s", strerror(errno));
        free(temp);
        return status;
    }
    status = for_each_line(path, copy_other_keys, &c, error);
    if (status == PARAC_OK) {
        fprintf(c.out, "%s\t%s\t%d\t%d\t%.6g", device_name, klass, best->tile_m, best->tile_n, best->seconds);
        fprintf(c.out, best->stages ? "\t%d\n" : "\n", best->stages);
    }
    if (fclose(c.out) != 0 && status == PARAC_OK)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot write the tuning cache");
    if (status == PARAC_OK && rename(temp, path) != 0)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot replace the tuning cache: %s", strerror(errno));
    if (status != PARAC_OK) remove(temp);
    free(temp);
    return status;
}

static const char *device_name_of(const parac_gemm_plan *plan)
{
#ifdef PARAC_HAVE_CUDA
    if (plan->device == PARAC_DEVICE_CUDA) return gemm_cuda_device_name(plan);
#endif
    (void)plan;
    return "cpu";
}

/* The operands where the plans read them: host memory, or (CUDA plans) device memory uploaded once. */
typedef struct tune_operands {
    const float *a, *b;
    float *c;
#ifdef PARAC_HAVE_CUDA
    parac_cuda_context context;
    int on_device;
#endif
} tune_operands;

static parac_status operands_place(tune_operands *x, const parac_gemm_plan *plan, size_t a_count, size_t b_count,
                                   size_t c_count, parac_error *error)
{
#ifdef PARAC_HAVE_CUDA
    void *a = NULL, *b = NULL, *c = NULL;
    parac_status status;
    if (plan->device != PARAC_DEVICE_CUDA) return PARAC_OK;
    if ((status = parac_cuda_context_create(plan->options.exec.cuda_device, &x->context, error)) != PARAC_OK) return status;
    x->on_device = 1;
    if ((status = parac_cuda_alloc(&x->context, &a, a_count * 4, error)) == PARAC_OK &&
        (status = parac_cuda_alloc(&x->context, &b, b_count * 4, error)) == PARAC_OK &&
        (status = parac_cuda_alloc(&x->context, &c, c_count * 4, error)) == PARAC_OK &&
        (status = parac_cuda_upload(&x->context, a, x->a, a_count * 4, error)) == PARAC_OK &&
        (status = parac_cuda_upload(&x->context, b, x->b, b_count * 4, error)) == PARAC_OK)
        status = parac_cuda_synchronize(&x->context, error); /* the plans run on their own streams */
    x->a = a, x->b = b, x->c = c;
    return status;
#else
    (void)x, (void)plan, (void)a_count, (void)b_count, (void)c_count, (void)error;
    return PARAC_OK;
#endif
}

static void operands_release(tune_operands *x)
{
#ifdef PARAC_HAVE_CUDA
    if (!x->on_device) return;
    parac_cuda_free(&x->context, (void *)x->a);
    parac_cuda_free(&x->context, (void *)x->b);
    parac_cuda_free(&x->context, x->c);
    parac_cuda_context_destroy(&x->context);
#else
    (void)x;
#endif
}

/* One warm-up run, then the best of three; the plan's compute time only (CUDA events on the GPU). */
static parac_status time_plan(parac_gemm_plan *plan, const tune_operands *x, double *seconds, parac_error *error)
{
    parac_status status = PARAC_OK;
    *seconds = 1e30;
    for (int run = 0; run < 4 && status == PARAC_OK; run++) {
#ifdef PARAC_HAVE_CUDA
        if (x->on_device) status = parac_gemm_execute_device(plan, 1.0f, x->a, x->b, 0.0f, x->c, error);
        else
#endif
            status = parac_gemm_execute(plan, 1.0f, x->a, x->b, 0.0f, x->c, error);
        if (status == PARAC_OK && run > 0 && parac_gemm_last_compute_seconds(plan) < *seconds)
            *seconds = parac_gemm_last_compute_seconds(plan);
    }
    return status;
}

static parac_status time_candidate(parac_gemm_options *o, const tune_operands *x, tune_line *result, parac_error *error)
{
    parac_gemm_plan *plan;
    parac_status status = parac_gemm_plan_create(o, &plan, error);
    if (status != PARAC_OK) return status;
    status = time_plan(plan, x, &result->seconds, error);
    result->tile_m = plan->tile_m;
    result->tile_n = plan->tile_n;
    result->stages = plan->variant == PARAC_GEMM_VARIANT_WGMMA_TMA && plan->tile_n != 256 ? plan->stages : 0;
    parac_gemm_plan_destroy(plan);
    return status;
}

/* Random operands in [-1, 1) (fixed seed: the timings see the same data every run). */
static parac_status make_operands(const parac_gemm_options *o, float **a, float **b, float **c, size_t counts[3],
                                  parac_error *error)
{
    parac_rng rng;
    counts[0] = (size_t)o->m * (size_t)o->k, counts[1] = (size_t)o->k * (size_t)o->n, counts[2] = (size_t)o->m * (size_t)o->n;
    for (int i = 0; i < 3; i++)
        if (counts[i] > SIZE_MAX / 8 / 3) return parac_fail(error, PARAC_ERR_UNSUPPORTED, "gemm autotune: the shape is too large");
    *a = malloc(counts[0] * 4), *b = malloc(counts[1] * 4), *c = malloc(counts[2] * 4);
    if (!*a || !*b || !*c)
        return parac_fail_no_memory(error, "gemm autotune matrices", (unsigned long long)(counts[0] + counts[1] + counts[2]) * 4);
    parac_rng_seed(&rng, 1);
    for (size_t i = 0; i < counts[0]; i++) (*a)[i] = (float)(2.0 * parac_rng_uniform(&rng) - 1.0);
    for (size_t i = 0; i < counts[1]; i++) (*b)[i] = (float)(2.0 * parac_rng_uniform(&rng) - 1.0);
    return PARAC_OK;
}

/* The candidates (tile_m, tile_n, stages; 0 = the plan's choice). WGMMA_TMA also tries 6 stages; the
 * wgmma_ws variants take tile_n 256 by their own rule, so only tile_m is searched for them. */
static int candidate_list(parac_gemm_variant variant, int list[8][3])
{
    static const int SHAPES[4][2] = {{128, 128}, {128, 64}, {64, 128}, {64, 64}};
    int count = 0;
    if (variant == PARAC_GEMM_VARIANT_WGMMA_WS || variant == PARAC_GEMM_VARIANT_WGMMA_WS_A) {
        list[count][0] = 128, list[count][1] = 0, list[count++][2] = 0;
        list[count][0] = 64, list[count][1] = 0, list[count++][2] = 0;
        return count;
    }
    for (int stages = 4; stages <= (variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? 6 : 4); stages += 2)
        for (int s = 0; s < 4; s++) {
            list[count][0] = SHAPES[s][0], list[count][1] = SHAPES[s][1];
            list[count++][2] = variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? stages : 0;
        }
    return count;
}

/* Times every candidate with the untuned plan's tile_k and split-k; *best gets the fastest. */
static parac_status search(const parac_gemm_options *untuned, const parac_gemm_plan *reference, const tune_operands *x,
                           tune_line *best, parac_error *error)
{
    int list[8][3], count = candidate_list(reference->options.variant, list);
    parac_gemm_options o = *untuned;
    parac_status status = PARAC_OK;
    o.tile_k = reference->tile_k;
    o.split_k = reference->split_k;
    best->seconds = -1.0;
    for (int i = 0; i < count && status == PARAC_OK; i++) {
        tune_line trial;
        o.tile_m = list[i][0], o.tile_n = list[i][1], o.pipeline_stages = list[i][2];
        status = time_candidate(&o, x, &trial, error);
        if (status == PARAC_OK && (best->seconds < 0.0 || trial.seconds < best->seconds)) *best = trial;
    }
    return status;
}

parac_status parac_gemm_autotune(const parac_gemm_options *options, double *best_seconds, parac_error *error)
{
    parac_gemm_options untuned = *options;
    parac_gemm_plan *reference = NULL;
    float *a = NULL, *b = NULL, *c = NULL;
    size_t counts[3];
    tune_operands x;
    tune_line best = {"", "", 0, 0, 0, 0.0};
    char klass[CLASS_SIZE];
    parac_status status;
    *best_seconds = 0.0;
    if (!options->tune_cache_path || !options->tune_cache_path[0])
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "gemm autotune: name the cache file (tune_cache_path)");
    /* the dense problem of this shape, as the later plans that read the cache will see it */
    untuned.lda = untuned.ldb = untuned.ldc = 0;
    untuned.layout_a = untuned.layout_b = untuned.layout_c = PARAC_GEMM_ROW_MAJOR;
    untuned.a_tile_mask = untuned.b_tile_mask = NULL;
    untuned.scan_a = untuned.scan_b = NULL;
    untuned.tune_cache_path = NULL;
    untuned.tile_m = untuned.tile_n = untuned.pipeline_stages = 0;
    memset(&x, 0, sizeof x);
    if ((status = parac_gemm_plan_create(&untuned, &reference, error)) == PARAC_OK &&
        (status = make_operands(&untuned, &a, &b, &c, counts, error)) == PARAC_OK) {
        x.a = a, x.b = b, x.c = c;
        status = operands_place(&x, reference, counts[0], counts[1], counts[2], error);
    }
    if (status == PARAC_OK) status = search(&untuned, reference, &x, &best, error);
    if (status == PARAC_OK) {
        shape_class(&untuned, reference->options.variant, klass, sizeof klass);
        status = cache_store(options->tune_cache_path, device_name_of(reference), klass, &best, error);
        *best_seconds = best.seconds;
    }
    operands_release(&x);
    parac_gemm_plan_destroy(reference);
    free(a);
    free(b);
    free(c);
    return status;
}

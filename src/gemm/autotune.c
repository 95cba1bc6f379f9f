/* gemm/autotune.c — tile shapes searched per device and shape class, cached.
 *
 * The cache is a text file, one line per (device, shape class):
 *   DEVICE<TAB>CLASS<TAB>TILE_M<TAB>TILE_N<TAB>SECONDS[<TAB>STAGES]
 * STAGES (pipeline depth of the WGMMA_TMA variant, whose classes end in
 * "-tma") is absent in lines of older versions and of other variants. The
 * tile shape also sets the threads per block (one warp per 64x32 of C for
 * base, BM/64 consumer warpgroups + a producer for wgmma_tma), so it is the
 * threads-per-block search too.
 * under $XDG_CACHE_HOME/parac/gemm-tune.txt (else ~/.cache/parac/...). A shape
 * class is the power-of-two bucket of m, n and k plus the dtype, so one search
 * serves every nearby shape. Plans only read it when the caller leaves the
 * tile sizes at 0 and the input is dense. tile_k is not tuned: it fixes the
 * zero padding of k and so is part of what the result's bits depend on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/timer.h"
#include "gemm/gemm_internal.h"

#define CACHE_LINE 512

static int bucket(int64_t x)
{
    int b = 0;
    while ((1LL << (b + 1)) <= x) b++;
    return b;
}

static void shape_class(const parac_gemm_options *o, char *out, size_t size)
{
    snprintf(out, size, "m%d-n%d-k%d-%s%s", bucket(o->m), bucket(o->n), bucket(o->k),
             o->dtype == PARAC_GEMM_TF32 ? "tf32" : "fp32", o->variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? "-tma" : "");
}

static int cache_path(char *path, size_t size, int create_dirs)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[400];
    if (xdg && xdg[0]) snprintf(dir, sizeof dir, "%s", xdg);
    else if (home && home[0]) snprintf(dir, sizeof dir, "%s/.cache", home);
    else return 0;
    if (create_dirs) mkdir(dir, 0755);
    strncat(dir, "/parac", sizeof dir - strlen(dir) - 1);
    if (create_dirs) mkdir(dir, 0755);
    snprintf(path, size, "%s/gemm-tune.txt", dir);
    return 1;
}

int gemm_autotune_lookup(const char *device_name, const parac_gemm_options *options, int *tile_m, int *tile_n,
                         int *stages)
{
    char path[512], line[CACHE_LINE], key[CACHE_LINE], klass[64];
    FILE *file;
    int found = 0;
    if (!cache_path(path, sizeof path, 0) || !(file = fopen(path, "r"))) return 0;
    shape_class(options, klass, sizeof klass);
    snprintf(key, sizeof key, "%s\t%s\t", device_name, klass);
    while (fgets(line, sizeof line, file)) {
        int tm, tn, st = 0;
        double seconds;
        int fields = strncmp(line, key, strlen(key)) == 0
                         ? sscanf(line + strlen(key), "%d\t%d\t%lf\t%d", &tm, &tn, &seconds, &st)
                         : 0;
        if (fields >= 2 && (tm == 64 || tm == 128) && (tn == 64 || tn == 128)) {
            *tile_m = tm;
            *tile_n = tn;
            *stages = fields == 4 && (st == 4 || st == 6) ? st : 0;
            found = 1;
        }
    }
    fclose(file);
    return found;
}

/* Rewrites the cache with this key's line replaced (write to a temp file, rename). */
static parac_status cache_store(const char *device_name, const parac_gemm_options *o, int tm, int tn, int stages,
                                double seconds, parac_error *error)
{
    char path[512], temp[540], line[CACHE_LINE], key[CACHE_LINE], klass[64];
    FILE *in, *out;
    if (!cache_path(path, sizeof path, 1)) return parac_fail(error, PARAC_ERR_IO, "gemm autotune: no cache directory");
    snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid());
    shape_class(o, klass, sizeof klass);
    snprintf(key, sizeof key, "%s\t%s\t", device_name, klass);
    if (!(out = fopen(temp, "w"))) return parac_fail_at(error, PARAC_ERR_IO, temp, 0, "cannot write the tuning cache");
    if ((in = fopen(path, "r"))) {
        while (fgets(line, sizeof line, in))
            if (strncmp(line, key, strlen(key)) != 0) fputs(line, out);
        fclose(in);
    }
    if (stages) fprintf(out, "%s%d\t%d\t%.6g\t%d\n", key, tm, tn, seconds, stages);
    else fprintf(out, "%s%d\t%d\t%.6g\n", key, tm, tn, seconds);
    if (fclose(out) != 0 || rename(temp, path) != 0) {
        remove(temp);
        return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot update the tuning cache");
    }
    return PARAC_OK;
}

static const char *device_name_of(const parac_gemm_plan *plan)
{
#ifdef PARAC_HAVE_CUDA
    if (plan->device == PARAC_DEVICE_CUDA) return gemm_cuda_device_name(plan);
#endif
    (void)plan;
    return "cpu";
}

/* One warm-up run, then the best of three. */
static parac_status time_candidate(parac_gemm_options *o, const float *a, const float *b, float *c, double *seconds,
                                   char device_name[256], parac_error *error)
{
    parac_gemm_plan *plan;
    parac_status status = parac_gemm_plan_create(o, &plan, error);
    if (status != PARAC_OK) return status;
    *seconds = 1e30;
    for (int run = 0; run < 4 && status == PARAC_OK; run++) {
        double start = parac_now_seconds();
        status = parac_gemm_execute(plan, 1.0f, a, b, 0.0f, c, error);
        if (run > 0 && parac_now_seconds() - start < *seconds) *seconds = parac_now_seconds() - start;
    }
    snprintf(device_name, 256, "%s", device_name_of(plan));
    parac_gemm_plan_destroy(plan);
    return status;
}

parac_status parac_gemm_autotune(const parac_gemm_options *options, double *best_seconds, parac_error *error)
{
    /* tile_m, tile_n, pipeline stages (0: the variant's fixed pipeline) */
    static const int CANDIDATES[8][3] = {{128, 128, 0}, {128, 64, 0}, {64, 128, 0}, {64, 64, 0},
                                         {128, 128, 6}, {128, 64, 6}, {64, 128, 6}, {64, 64, 6}};
    parac_gemm_options o = *options;
    size_t a_count = (size_t)(o.m * o.k), b_count = (size_t)(o.k * o.n), c_count = (size_t)(o.m * o.n);
    float *a = malloc(a_count * 4), *b = malloc(b_count * 4), *c = malloc(c_count * 4);
    parac_status status = PARAC_OK;
    int best = -1;
    char name[256] = "cpu";
    parac_rng rng;
    *best_seconds = 0.0;
    o.lda = o.ldb = o.ldc = 0;
    o.a_tile_mask = o.b_tile_mask = NULL;
    o.scan_a = o.scan_b = NULL;
    if (!a || !b || !c) status = parac_fail_no_memory(error, "gemm autotune matrices", (a_count + b_count + c_count) * 4);
    parac_rng_seed(&rng, 1);
    for (size_t i = 0; status == PARAC_OK && i < a_count; i++) a[i] = (float)(2.0 * parac_rng_uniform(&rng) - 1.0);
    for (size_t i = 0; status == PARAC_OK && i < b_count; i++) b[i] = (float)(2.0 * parac_rng_uniform(&rng) - 1.0);
    /* the deeper pipeline is a candidate only for the variant that has a choice */
    int candidates = o.variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? 8 : 4;
    for (int i = 0; status == PARAC_OK && i < candidates; i++) {
        double seconds;
        o.tile_m = CANDIDATES[i][0];
        o.tile_n = CANDIDATES[i][1];
        o.pipeline_stages = o.variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? (CANDIDATES[i][2] ? CANDIDATES[i][2] : 4) : 0;
        status = time_candidate(&o, a, b, c, &seconds, name, error);
        if (status == PARAC_OK && (best < 0 || seconds < *best_seconds)) {
            best = i;
            *best_seconds = seconds;
        }
    }
    if (status == PARAC_OK)
        status = cache_store(name, options, CANDIDATES[best][0], CANDIDATES[best][1],
                             o.variant == PARAC_GEMM_VARIANT_WGMMA_TMA ? (CANDIDATES[best][2] ? CANDIDATES[best][2] : 4) : 0,
                             *best_seconds, error);
    free(a);
    free(b);
    free(c);
    return status;
}

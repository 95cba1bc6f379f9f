/* tests/gemm/test_autotune.c — the tuning cache is explicit and never changes the bits of C.
 *
 * - No hidden state: a plan without tune_cache_path ignores a cache under $HOME / $XDG_CACHE_HOME.
 * - parac_gemm_autotune needs a named file, writes only it, keeps other lines, replaces its own key.
 * - A plan that takes a cached shape gives the untuned plan's C byte for byte, also where the shape
 *   would have changed split-k (600 x 600 x 1024: 100 C tiles of 64 -> split 3, 25 of 128 -> split 4).
 * - Every candidate tile shape gives the same bytes for a given tile_k and split-k (CPU path).
 * - A malformed cache line is PARAC_ERR_PARSE naming file and line; an absent file is an empty cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <parac/gemm.h>

#include "test_util.h"

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (!file) return;
    fputs(text, file);
    fclose(file);
}

static int count_lines(const char *path, const char *needle)
{
    char line[512];
    int count = 0;
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    while (fgets(line, sizeof line, file)) count += strstr(line, needle) != NULL;
    fclose(file);
    return count;
}

static void base_options(parac_gemm_options *o, int64_t m, int64_t n, int64_t k)
{
    memset(o, 0, sizeof *o);
    o->exec.device = PARAC_DEVICE_CPU;
    o->m = m, o->n = n, o->k = k;
}

static void random_matrix(float *x, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

/* C of the plan made from `o`, and its info. */
static int run_plan(const parac_gemm_options *o, const float *a, const float *b, float *c, parac_gemm_plan_info *info)
{
    parac_gemm_plan *plan = NULL;
    parac_error error;
    parac_status status = parac_gemm_plan_create(o, &plan, &error);
    CHECK_OK(status, &error);
    if (status != PARAC_OK) return 0;
    parac_gemm_plan_info_get(plan, info);
    memset(c, 0, (size_t)(o->m * o->n) * sizeof(float));
    status = parac_gemm_execute(plan, 1.0f, a, b, 0.0f, c, &error);
    CHECK_OK(status, &error);
    parac_gemm_plan_destroy(plan);
    return status == PARAC_OK;
}

static void test_no_hidden_cache(const char *dir)
{
    char path[400];
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    snprintf(path, sizeof path, "%s/parac", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/parac/gemm-tune.txt", dir);
    write_text(path, "cpu\tm9-n9-k10-fp32-auto\t128\t128\t0.1\ncpu\tm9-n9-k9-fp32\t128\t128\t0.1\n");
    setenv("XDG_CACHE_HOME", dir, 1);
    setenv("HOME", dir, 1);
    base_options(&o, 600, 600, 1024);
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == 64 && info.tile_n == 64, "a cache nobody named changed the plan: %dx%d", info.tile_m,
              info.tile_n);
        parac_gemm_plan_destroy(plan);
    }
    CHECK(parac_gemm_autotune(&o, &(double){0}, &error) == PARAC_ERR_INVALID_ARGUMENT, "autotune without a file");
    remove(path);
    snprintf(path, sizeof path, "%s/parac", dir);
    rmdir(path);
}

static void test_autotune_writes_named_file(const char *cache)
{
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    double seconds = 0.0;
    char line[512];
    int tile_m = 0, tile_n = 0;
    FILE *file;
    write_text(cache, "other-device\tm1-n1-k1-fp32-auto\t64\t64\t0.5\n");
    base_options(&o, 200, 150, 130);
    o.tune_cache_path = cache;
    CHECK_OK(parac_gemm_autotune(&o, &seconds, &error), &error);
    CHECK(seconds > 0.0, "autotune measured nothing");
    CHECK_OK(parac_gemm_autotune(&o, &seconds, &error), &error); /* replaces its line */
    CHECK(count_lines(cache, "other-device\t") == 1, "another device's line was lost");
    CHECK(count_lines(cache, "cpu\tm7-n7-k7-fp32-auto\t") == 1, "expected one line for the class in %s", cache);
    file = fopen(cache, "r");
    while (file && fgets(line, sizeof line, file))
        if (strncmp(line, "cpu\t", 4) == 0) sscanf(line, "cpu\t%*[^\t]\t%d\t%d", &tile_m, &tile_n);
    if (file) fclose(file);
    CHECK((tile_m == 64 || tile_m == 128) && (tile_n == 64 || tile_n == 128), "cached tiles %d x %d", tile_m, tile_n);
    o.m = 250, o.n = 140, o.k = 200; /* the same class */
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == tile_m && info.tile_n == tile_n, "plan used %dx%d, cache says %dx%d", info.tile_m,
              info.tile_n, tile_m, tile_n);
        parac_gemm_plan_destroy(plan);
    }
}

/* The cached 128x128 shape would give split-k 4 where the untuned 64x64 gives 3: the plan keeps 3. */
static void test_cached_shape_keeps_bits(const char *cache)
{
    parac_gemm_options o;
    parac_gemm_plan_info untuned, tuned;
    size_t a_count = 600 * 1024, b_count = 1024 * 600, c_count = 600 * 600;
    float *a = malloc(a_count * 4), *b = malloc(b_count * 4), *c0 = malloc(c_count * 4), *c1 = malloc(c_count * 4);
    if (!a || !b || !c0 || !c1) {
        CHECK(0, "out of memory");
        free(a), free(b), free(c0), free(c1);
        return;
    }
    random_matrix(a, a_count, 1);
    random_matrix(b, b_count, 2);
    for (int dtype = 0; dtype < 2; dtype++) {
        write_text(cache, "cpu\tm9-n9-k10-fp32-auto\t128\t128\t0.1\ncpu\tm9-n9-k10-tf32-auto\t128\t128\t0.1\n");
        base_options(&o, 600, 600, 1024);
        o.dtype = dtype ? PARAC_GEMM_TF32 : PARAC_GEMM_FP32;
        if (!run_plan(&o, a, b, c0, &untuned)) break;
        o.tune_cache_path = cache;
        if (!run_plan(&o, a, b, c1, &tuned)) break;
        CHECK(tuned.tile_m == 128 && tuned.tile_n == 128, "cached shape not used: %dx%d", tuned.tile_m, tuned.tile_n);
        CHECK(untuned.tile_m == 64 && untuned.split_k == 3, "untuned plan %dx%d split %d", untuned.tile_m,
              untuned.tile_n, untuned.split_k);
        CHECK_EQ_INT(tuned.split_k, untuned.split_k);
        CHECK_EQ_INT(tuned.tile_k, untuned.tile_k);
        CHECK(memcmp(c0, c1, c_count * 4) == 0, "%s: the tuned plan changed the bits of C", dtype ? "tf32" : "fp32");
    }
    free(a), free(b), free(c0), free(c1);
}

/* tile_m and tile_n never change the bits for a given tile_k and split-k (what the tuner relies on). */
static void test_shapes_same_bits(void)
{
    static const int SHAPES[4][2] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}};
    static const int SETTINGS[3][2] = {{64, 1}, {64, 3}, {32, 5}}; /* tile_k, split_k */
    int64_t m = 300, n = 270, k = 700;
    float *a = malloc((size_t)(m * k) * 4), *b = malloc((size_t)(k * n) * 4);
    float *reference = malloc((size_t)(m * n) * 4), *c = malloc((size_t)(m * n) * 4);
    parac_gemm_plan_info info;
    if (!a || !b || !reference || !c) {
        CHECK(0, "out of memory");
        free(a), free(b), free(reference), free(c);
        return;
    }
    random_matrix(a, (size_t)(m * k), 3);
    random_matrix(b, (size_t)(k * n), 4);
    for (int dtype = 0; dtype < 2; dtype++)
        for (int s = 0; s < 3; s++)
            for (int shape = 0; shape < 4; shape++) {
                parac_gemm_options o;
                base_options(&o, m, n, k);
                o.dtype = dtype ? PARAC_GEMM_TF32 : PARAC_GEMM_FP32;
                o.tile_k = SETTINGS[s][0], o.split_k = SETTINGS[s][1];
                o.tile_m = SHAPES[shape][0], o.tile_n = SHAPES[shape][1];
                o.schedule = shape % 2 ? PARAC_GEMM_SCHEDULE_DYNAMIC : PARAC_GEMM_SCHEDULE_STATIC;
                if (!run_plan(&o, a, b, shape ? c : reference, &info)) continue;
                CHECK(shape == 0 || memcmp(reference, c, (size_t)(m * n) * 4) == 0,
                      "%s tile_k %d split %d: %dx%d differs from 64x64", dtype ? "tf32" : "fp32", o.tile_k, o.split_k,
                      o.tile_m, o.tile_n);
            }
    free(a), free(b), free(reference), free(c);
}

static void test_malformed_and_absent(const char *cache)
{
    static const char *const BAD[] = {
        "garbage line without tabs\n",
        "cpu\tm9-n9-k10-fp32-auto\t96\t96\t1\n",       /* not a tile edge */
        "cpu\tm9-n9-k10-fp32-auto\t64\t64\t1\t5\n",     /* stages must be 4 or 6 */
        "cpu\tm9-n9-k10-fp32-auto\t64\t64\tfast\n",     /* seconds */
        "cpu\tm9-n9-k10-fp32-auto\t64\t64\t1\t4\tx\n", /* trailing junk */
    };
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_error error;
    char expected[400];
    base_options(&o, 600, 600, 1024);
    o.tune_cache_path = cache;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char text[300];
        snprintf(text, sizeof text, "cpu\tm1-n1-k1-fp32-auto\t64\t64\t0.5\n%s", BAD[i]);
        write_text(cache, text);
        CHECK(parac_gemm_plan_create(&o, &plan, &error) == PARAC_ERR_PARSE, "bad line %zu accepted", i);
        snprintf(expected, sizeof expected, "%s:2:", cache);
        CHECK(strstr(error.message, expected) != NULL, "error does not name %s: %s", expected, error.message);
        parac_gemm_plan_destroy(plan);
        plan = NULL;
    }
    remove(cache);
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error); /* absent file: an empty cache */
    if (plan) {
        parac_gemm_plan_info info;
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == 64 && info.tile_n == 64, "absent cache: %dx%d", info.tile_m, info.tile_n);
        parac_gemm_plan_destroy(plan);
    }
}

int main(void)
{
    char dir[256], cache[300];
    test_temp_path(dir, sizeof dir, "tune");
    mkdir(dir, 0755);
    snprintf(cache, sizeof cache, "%s/gemm-tune.txt", dir);
    test_no_hidden_cache(dir);
    test_autotune_writes_named_file(cache);
    test_cached_shape_keeps_bits(cache);
    test_shapes_same_bits();
    test_malformed_and_absent(cache);
    remove(cache);
    rmdir(dir);
    return test_finish("gemm.autotune");
}

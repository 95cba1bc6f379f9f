/* tests/gemm/test_autotune.c — the tuning cache: written under $XDG_CACHE_HOME, read back by
 * later plans of the same shape class, junk lines ignored, other classes untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <parac/gemm.h>

#include "test_util.h"

static int cached_tiles(const char *path, int *tile_m, int *tile_n)
{
    char line[512];
    int found = 0;
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    while (fgets(line, sizeof line, file)) {
        char device[256], klass[64];
        double seconds;
        if (sscanf(line, "%255[^\t]\t%63[^\t]\t%d\t%d\t%lf", device, klass, tile_m, tile_n, &seconds) == 5 &&
            strcmp(device, "cpu") == 0)
            found = 1;
    }
    fclose(file);
    return found;
}

int main(void)
{
    char dir[256], path[300];
    parac_gemm_options o;
    parac_gemm_plan *plan = NULL;
    parac_gemm_plan_info info;
    parac_error error;
    double seconds = 0.0;
    int tile_m = 0, tile_n = 0;
    FILE *junk;
    test_temp_path(dir, sizeof dir, "cache");
    mkdir(dir, 0755);
    setenv("XDG_CACHE_HOME", dir, 1);
    snprintf(path, sizeof path, "%s/parac", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/parac/gemm-tune.txt", dir);
    junk = fopen(path, "w");
    if (junk) {
        fputs("garbage line without tabs\ncpu\tm9-n9-k9-fp32\t96\t96\t1\n", junk); /* 96: invalid, ignored */
        fclose(junk);
    }
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.m = 200, o.n = 150, o.k = 130;
    CHECK_OK(parac_gemm_autotune(&o, &seconds, &error), &error);
    CHECK(seconds > 0.0, "autotune measured nothing");
    CHECK(cached_tiles(path, &tile_m, &tile_n), "no cpu line in %s", path);
    CHECK((tile_m == 64 || tile_m == 128) && (tile_n == 64 || tile_n == 128), "cached tiles %d x %d", tile_m, tile_n);
    /* Same class (m 128..255, n 128..255, k 128..255): the plan takes the cached shape. */
    o.m = 250, o.n = 140, o.k = 200;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == tile_m && info.tile_n == tile_n, "plan used %dx%d, cache says %dx%d", info.tile_m,
              info.tile_n, tile_m, tile_n);
        parac_gemm_plan_destroy(plan);
    }
    /* The invalid line for another class is ignored: heuristic tiles (64 for small sides). */
    o.m = o.n = o.k = 600; /* class m9-n9-k9: only the invalid line */
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == 64 && info.tile_n == 64, "invalid cache line used: %dx%d", info.tile_m, info.tile_n);
        parac_gemm_plan_destroy(plan);
    }
    /* A wgmma_tma line (class suffix -tma, a stages column) is read for that variant only;
     * a line of the old format (no stages column) still gives its tiles. */
    junk = fopen(path, "a");
    if (junk) {
        fputs("cpu\tm9-n9-k9-tf32-tma\t128\t64\t0.5\t6\ncpu\tm9-n9-k9-tf32\t64\t128\t0.5\n", junk);
        fclose(junk);
    }
    o.dtype = PARAC_GEMM_TF32, o.variant = PARAC_GEMM_VARIANT_WGMMA_TMA;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == 128 && info.tile_n == 64, "tma cache line not used: %dx%d", info.tile_m, info.tile_n);
        parac_gemm_plan_destroy(plan);
    }
    o.variant = PARAC_GEMM_VARIANT_WGMMA;
    CHECK_OK(parac_gemm_plan_create(&o, &plan, &error), &error);
    if (plan) {
        parac_gemm_plan_info_get(plan, &info);
        CHECK(info.tile_m == 64 && info.tile_n == 128, "old-format cache line not used: %dx%d", info.tile_m, info.tile_n);
        parac_gemm_plan_destroy(plan);
    }
    remove(path);
    snprintf(path, sizeof path, "%s/parac", dir);
    rmdir(path);
    rmdir(dir);
    return test_finish("gemm.autotune");
}

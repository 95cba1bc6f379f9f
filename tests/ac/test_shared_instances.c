/* tests/ac/test_shared_instances.c — the shared XCSP instances against ACE's
 * root-AC figures (ace-root-ac.tsv: values before, values after, wipe-out),
 * with every CPU algorithm; all of them must give the same domains. */
#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>

#include "test_util.h"

static const parac_ac_algorithm ALGORITHMS[] = {PARAC_AC_AC3,    PARAC_AC_AC3RM, PARAC_AC_AC3BIT,
                                                PARAC_AC_AC2001, PARAC_AC_AC4,   PARAC_AC_GPU_BITSET};

static void check_instance(const char *directory, const char *file, unsigned long long before,
                           unsigned long long after, int wipeout)
{
    char path[1024];
    parac_csp *csp = NULL;
    parac_error error = {0};
    uint64_t *first = NULL, *domains = NULL;
    size_t words;
    snprintf(path, sizeof path, "%s/csp/%s", directory, file);
    CHECK_OK(parac_csp_load(path, NULL, &csp, &error), &error);
    if (!csp) return;
    words = parac_ac_domain_words(parac_csp_value_count(csp)) + 1;
    first = calloc(words, 8), domains = calloc(words, 8);
    for (size_t i = 0; i < sizeof ALGORITHMS / sizeof ALGORITHMS[0]; i++) {
        parac_ac_options options = {{PARAC_DEVICE_CPU, 2, 0, NULL, NULL, NULL}, ALGORITHMS[i], 0,
                                    PARAC_AC_VARIANT_AUTO};
        parac_ac_stats stats;
        const char *name = parac_ac_algorithm_name(ALGORITHMS[i]);
        CHECK_OK(parac_ac_enforce(csp, &options, i ? domains : first, &stats, &error), &error);
        CHECK(stats.values_before == before, "%s %s: values_before %llu, ACE %llu", file, name,
              (unsigned long long)stats.values_before, before);
        CHECK(stats.values_after == after, "%s %s: values_after %llu, ACE %llu", file, name,
              (unsigned long long)stats.values_after, after);
        CHECK(stats.wipeout == wipeout, "%s %s: wipeout %d, ACE %d", file, name, stats.wipeout, wipeout);
        if (i) CHECK(memcmp(first, domains, (words - 1) * 8) == 0, "%s %s: domains differ from ac3", file, name);
    }
    free(first);
    free(domains);
    parac_csp_destroy(csp);
}

int main(void)
{
    const char *directory = test_data_dir();
    char path[1024], file[256], wipeout_text[16];
    unsigned long long before, after, removed;
    int instances = 0;
    FILE *tsv;
    snprintf(path, sizeof path, "%s/csp/ace-root-ac.tsv", directory);
    tsv = fopen(path, "r");
    CHECK(tsv != NULL, "cannot open %s", path);
    if (!tsv) return test_finish("ac.shared_instances");
    while (fscanf(tsv, "%255s %llu %llu %llu %15s", file, &before, &after, &removed, wipeout_text) == 5) {
        check_instance(directory, file, before, after, strcmp(wipeout_text, "true") == 0);
        instances++;
    }
    fclose(tsv);
    CHECK(instances >= 6, "only %d instances in ace-root-ac.tsv", instances);
    return test_finish("ac.shared_instances");
}

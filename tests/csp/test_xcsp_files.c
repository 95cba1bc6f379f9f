/* tests/csp/test_xcsp_files.c — every shared XCSP3 instance parses, and its number of
 * values before AC (after unary constraints) is ACE's "values_before" (ace-root-ac.tsv). */
#include <stdio.h>
#include <string.h>

#include <parac/csp.h>

#include "test_util.h"

int main(void)
{
    char path[1024], line[512], name[256];
    long before;
    int files = 0;
    FILE *table;
    snprintf(path, sizeof path, "%s/csp/ace-root-ac.tsv", test_data_dir());
    table = fopen(path, "r");
    CHECK(table != NULL, "cannot open %s", path);
    if (!table) return test_finish("csp.xcsp_files");
    while (fgets(line, sizeof line, table)) {
        parac_csp *csp = NULL;
        parac_error error;
        if (sscanf(line, "%255s %ld", name, &before) != 2) continue;
        snprintf(path, sizeof path, "%s/csp/%s", test_data_dir(), name);
        CHECK_OK(parac_csp_load(path, NULL, &csp, &error), &error);
        if (!csp) continue;
        CHECK(parac_csp_present_value_count(csp) == (uint64_t)before, "%s: %llu values, ACE says %ld", name,
              (unsigned long long)parac_csp_present_value_count(csp), before);
        CHECK(parac_csp_constraint_count(csp) > 0, "%s has no constraints", name);
        CHECK(parac_csp_ne_edge_count(csp) > 0);
        printf("%s: %zu variables, %zu constraints (%zu binary), %llu values, %llu N-E edges\n", name,
               parac_csp_variable_count(csp), parac_csp_constraint_count(csp), parac_csp_binary_constraint_count(csp),
               (unsigned long long)parac_csp_present_value_count(csp), (unsigned long long)parac_csp_ne_edge_count(csp));
        parac_csp_destroy(csp);
        files++;
    }
    fclose(table);
    CHECK(files == 6, "read %d files of 6", files);
    return test_finish("csp.xcsp_files");
}

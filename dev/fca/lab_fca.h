/* dev/fca/lab_fca.h — the harness of the fca lab's CPU schedulers: inputs, the check against the
 * library's one-thread path, the timing beside the library's ON_DEMAND (the dense CPU default).
 *
 * A variant supplies one function with fca_fcbo_on_demand's shape (a search, threads, concepts or
 * NULL to count) and calls lab_fca_main. The check: on random contexts (fixed seeds) the variant's
 * concepts on all cores, put in canonical order as parac_fca_compute does, must equal the serial
 * path's intents word for word, and its counts must equal the serial counts on every timed case.
 * The table: seconds (counting, all cores, median of 3 runs interleaved with ON_DEMAND's) beside
 * ON_DEMAND and one thread (serial, one run), and each as a multiple of one thread. Inputs are the
 * random contexts of docs/fca.md's runs: 200 x 100 at density 0.40 (8.09 M concepts) and, without
 * --quick, 0.45 (35.0 M, run F's case). Host only: no GPU is needed. */
#ifndef PARAC_LAB_FCA_H
#define PARAC_LAB_FCA_H

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timer.h"
#include "fca/fca_internal.h"

typedef parac_status (*lab_fca_search_fn)(const fca_search *search, int threads, parac_fca_concepts *concepts,
                                          uint64_t *count, parac_error *error);

static void lab_fca_check_ok(parac_status status, const parac_error *error, const char *what)
{
    if (status == PARAC_OK) return;
    fprintf(stderr, "%s: %s\n", what, error->message);
    exit(2);
}

static parac_fca_context *lab_fca_random(size_t objects, size_t attributes, double density, uint64_t seed)
{
    parac_fca_context *context = NULL;
    parac_error error = {0};
    lab_fca_check_ok(parac_fca_context_random(objects, attributes, density, seed, &context, &error), &error,
                     "random context");
    return context;
}

/* Runs search_fn on the library's search copy of context as fca_run_search does: concepts NULL counts. */
static uint64_t lab_fca_run(const parac_fca_context *context, lab_fca_search_fn search_fn, int threads,
                            parac_fca_concepts *concepts)
{
    fca_search search;
    parac_error error = {0};
    uint64_t count = 0;
    lab_fca_check_ok(fca_search_create(context, 0, &search, &error), &error, "search setup");
    lab_fca_check_ok(search_fn(&search, threads, concepts, &count, &error), &error, "search");
    lab_fca_check_ok(fca_search_finish(&search, concepts, &count, &error), &error, "search finish");
    fca_search_destroy(&search);
    return count;
}

static parac_status lab_fca_serial(const fca_search *search, int threads, parac_fca_concepts *concepts,
                                   uint64_t *count, parac_error *error)
{
    (void)threads;
    return fca_fcbo_serial(search, concepts, count, error);
}

/* The variant's concepts in canonical order equal the serial path's, word for word; 0 when not. */
static int lab_fca_check_concepts(const char *name, lab_fca_search_fn variant, size_t objects, size_t attributes,
                                  double density, uint64_t seed, int threads)
{
    parac_fca_context *context = lab_fca_random(objects, attributes, density, seed);
    parac_fca_concepts expected, got;
    parac_error error = {0};
    int same;
    lab_fca_check_ok(fca_concepts_init(&expected, attributes, &error), &error, "store");
    lab_fca_check_ok(fca_concepts_init(&got, attributes, &error), &error, "store");
    lab_fca_run(context, lab_fca_serial, 1, &expected);
    lab_fca_run(context, variant, threads, &got);
    lab_fca_check_ok(fca_concepts_sort(&expected, threads, &error), &error, "sort");
    lab_fca_check_ok(fca_concepts_sort(&got, threads, &error), &error, "sort");
    same = expected.count == got.count &&
           memcmp(expected.intents, got.intents, expected.count * expected.attribute_words * sizeof(parac_word)) == 0;
    printf("check %s: random %zu x %zu d %.2f seed %llu, %d threads: %zu concepts (serial %zu) %s\n", name, objects,
           attributes, density, (unsigned long long)seed, threads, got.count, expected.count,
           same ? "same bytes" : "MISMATCH");
    fca_concepts_release(&expected);
    fca_concepts_release(&got);
    parac_fca_context_destroy(context);
    return same;
}

static double lab_fca_seconds(const parac_fca_context *context, lab_fca_search_fn search_fn, int threads,
                              uint64_t *count)
{
    double started = parac_now_seconds();
    *count = lab_fca_run(context, search_fn, threads, NULL);
    return parac_now_seconds() - started;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One table row: serial once, then variant and ON_DEMAND interleaved 3 times (medians). 0 on a
 * count that differs from the serial one. */
static int lab_fca_time_case(lab_fca_search_fn variant, double density, int threads)
{
    parac_fca_context *context = lab_fca_random(200, 100, density, 1);
    double mine[3], library[3], serial;
    uint64_t expected, count_mine, count_library;
    int same = 1;
    serial = lab_fca_seconds(context, lab_fca_serial, 1, &expected);
    for (int r = 0; r < 3; r++) {
        mine[r] = lab_fca_seconds(context, variant, threads, &count_mine);
        library[r] = lab_fca_seconds(context, fca_fcbo_on_demand, threads, &count_library);
        if (count_mine != expected || count_library != expected) same = 0;
    }
    qsort(mine, 3, sizeof mine[0], by_value);
    qsort(library, 3, sizeof library[0], by_value);
    printf("| random 200x100 d%.2f seed1 | %llu | %.3f | %.3f (%.1fx) | %.3f (%.1fx) |%s\n", density,
           (unsigned long long)expected, serial, mine[1], serial / mine[1], library[1], serial / library[1],
           same ? "" : " MISMATCH (counts)");
    parac_fca_context_destroy(context);
    return same;
}

/* The variant's main: checks, then (when they passed) the table. Exit 0, or 1 on any mismatch. */
static int lab_fca_main(int argc, char **argv, const char *name, lab_fca_search_fn variant)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, threads = omp_get_max_threads(), ok = 1;
    if (threads < 2) threads = 2; /* a scheduler needs a thief */
    ok &= lab_fca_check_concepts(name, variant, 120, 40, 0.30, 11, threads);
    ok &= lab_fca_check_concepts(name, variant, 150, 60, 0.35, 2, threads);
    ok &= lab_fca_check_concepts(name, variant, 400, 24, 0.50, 3, 3);
    if (!ok) {
        printf("%s: CHECK FAILED (concepts differ from the serial path)\n", name);
        return 1;
    }
    printf("\n%s, %d threads, counting (seconds; multiples of one thread):\n\n", name, threads);
    printf("| case | concepts | 1 thread | %s | on_demand (library) |\n|---|---|---|---|---|\n", name);
    ok &= lab_fca_time_case(variant, 0.40, threads);
    if (!quick) ok &= lab_fca_time_case(variant, 0.45, threads);
    if (!ok) printf("%s: CHECK FAILED (counts differ from the serial path)\n", name);
    return ok ? 0 : 1;
}

#endif

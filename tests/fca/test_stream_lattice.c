/* tests/fca/test_stream_lattice.c — parac_fca_lattice_enumerate against the in-memory path
 * (parac_fca_compute + parac_fca_lattice_create): the same concepts in the same order and the same
 * edges in the same (upper, lower) order, on random contexts and tests/data contexts, with budgets
 * down to a few bytes (every sort spills, many merge passes), iceberg lattices (min_support), 1-2
 * threads; callbacks that stop. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

typedef struct lattice_check {
    const parac_fca_concepts *concepts;
    const parac_fca_lattice *lattice;
    uint32_t *ids;
    size_t capacity;
    uint64_t concepts_seen, edges_seen, mismatches, stop_at_edge;
} lattice_check;

static int check_concept(void *user, const uint32_t *intent, size_t size)
{
    lattice_check *check = user;
    uint64_t index = check->concepts_seen++;
    if (index >= parac_fca_concepts_size(check->concepts) || check->edges_seen) {
        check->mismatches++; /* too many, or a concept after an edge */
    } else {
        size_t expected = parac_fca_concept_intent(check->concepts, index, check->ids, check->capacity);
        if (expected != size || (size && memcmp(check->ids, intent, size * sizeof *intent) != 0)) check->mismatches++;
    }
    return 0;
}

static int check_edge(void *user, uint64_t upper, uint64_t lower)
{
    lattice_check *check = user;
    uint64_t index = check->edges_seen++;
    size_t expected_upper, expected_lower;
    if (index >= parac_fca_lattice_edge_count(check->lattice)) {
        check->mismatches++;
    } else {
        parac_fca_lattice_edge(check->lattice, index, &expected_upper, &expected_lower);
        if (expected_upper != upper || expected_lower != lower) check->mismatches++;
    }
    return check->stop_at_edge && check->edges_seen == check->stop_at_edge;
}

static void check_same(const parac_fca_context *context, const char *label, uint64_t min_support, uint64_t budget,
                       int threads)
{
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
    parac_fca_lattice *lattice = NULL;
    parac_fca_options options;
    parac_error error = {0};
    lattice_check check;
    if (!concepts) return;
    CHECK_OK(parac_fca_lattice_create(context, concepts, min_support, &lattice, &error), &error);
    if (!lattice) {
        parac_fca_concepts_destroy(concepts);
        return;
    }
    memset(&check, 0, sizeof check);
    check.concepts = concepts;
    check.lattice = lattice;
    check.capacity = parac_fca_context_attributes(context) + 1;
    check.ids = malloc(check.capacity * sizeof *check.ids);
    parac_fca_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.min_support = min_support;
    options.max_host_bytes = budget;
    CHECK_OK(parac_fca_lattice_enumerate(context, &options, check_concept, check_edge, &check, &error), &error);
    CHECK(check.concepts_seen == parac_fca_concepts_size(concepts) &&
              check.edges_seen == parac_fca_lattice_edge_count(lattice) && check.mismatches == 0,
          "%s (min support %llu, budget %llu, %d threads): %llu/%zu concepts, %llu/%zu edges, %llu out of place", label,
          (unsigned long long)min_support, (unsigned long long)budget, threads,
          (unsigned long long)check.concepts_seen, parac_fca_concepts_size(concepts),
          (unsigned long long)check.edges_seen, parac_fca_lattice_edge_count(lattice),
          (unsigned long long)check.mismatches);
    if (parac_fca_lattice_edge_count(lattice) > 3) { /* an edge callback that stops */
        parac_status status;
        free(check.ids);
        memset(&check, 0, sizeof check);
        check.concepts = concepts;
        check.lattice = lattice;
        check.capacity = parac_fca_context_attributes(context) + 1;
        check.ids = malloc(check.capacity * sizeof *check.ids);
        check.stop_at_edge = 3;
        status = parac_fca_lattice_enumerate(context, &options, NULL, check_edge, &check, &error);
        CHECK(status == PARAC_ERR_CANCELLED && check.edges_seen == 3 && check.mismatches == 0,
              "%s: stopped at edge 3: status %d, %llu edges", label, (int)status, (unsigned long long)check.edges_seen);
    }
    free(check.ids);
    parac_fca_lattice_destroy(lattice);
    parac_fca_concepts_destroy(concepts);
}

/* Counts progress reports and asks to stop at the first. */
static int stop_at_first_report(void *user_data, uint64_t done, uint64_t total)
{
    uint64_t *reports = user_data;
    (void)done, (void)total;
    return ++*reports > 0;
}

/* A cancel through the progress callback (the CLI's Ctrl-C) stops the first pass after one batch of
 * covers: before the fix nothing consulted it, and `parac lattice` on mushroom ran 47-60 s past a Ctrl-C. */
static void check_cancel_in_first_pass(void)
{
    parac_fca_context *context = fca_test_random_context(120, 60, 0.3, 11); /* ~19k concepts: 4 batches and more */
    parac_fca_options options;
    parac_error error = {0};
    uint64_t reports = 0;
    parac_status status;
    parac_fca_options_init(&options);
    options.exec.progress = stop_at_first_report;
    options.exec.progress_user_data = &reports;
    status = parac_fca_lattice_enumerate(context, &options, NULL, NULL, NULL, &error);
    CHECK(status == PARAC_ERR_CANCELLED && reports == 1, "cancel in pass 1: status %d after %llu reports (%s)",
          (int)status, (unsigned long long)reports, error.message);
    parac_fca_context_destroy(context);
}

int main(void)
{
    check_cancel_in_first_pass();
    static const uint64_t budgets[] = {0, 1, 2048};
    for (uint64_t seed = 1; seed <= 6; seed++) { /* 17 to 20,545 concepts */
        parac_fca_context *context = fca_test_random_context(10 + seed * 6, 4 + seed * 9, 0.2 + 0.04 * (double)seed, seed);
        char label[64];
        snprintf(label, sizeof label, "random seed %llu", (unsigned long long)seed);
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
            if (budgets[b] == 1 && seed > 4) continue; /* one record per run: 17 merge passes, slow */
            check_same(context, label, 0, budgets[b], 1 + (int)(seed % 2));
            check_same(context, label, 2 + seed % 3, budgets[b], 2 - (int)(seed % 2));
        }
        parac_fca_context_destroy(context);
    }
    for (uint64_t seed = 1; seed <= 3; seed++) { /* wide and sparse: the sorts hold short id lists */
        parac_fca_context *context = fca_test_random_context(150 * seed, 2000 + 1500 * seed, 0.003, 40 + seed);
        char label[64];
        snprintf(label, sizeof label, "wide random seed %llu", (unsigned long long)seed);
        check_same(context, label, 0, 0, 2);
        check_same(context, label, 0, 2048, 1);
        check_same(context, label, 2, 4096, 2);
        parac_fca_context_destroy(context);
    }
    {
        parac_fca_context *context = fca_test_read_shared("vote.dat");
        if (context) {
            check_same(context, "vote.dat", 0, 0, 2);
            check_same(context, "vote.dat", 0, 64 << 10, 2);
            check_same(context, "vote.dat", 20, 4096, 1);
        }
        parac_fca_context_destroy(context);
    }
    return test_finish("fca_stream_lattice");
}

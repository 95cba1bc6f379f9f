/* tests/fca/test_sparse.c — the sparse search (PARAC_FCA_CPU_SPARSE) against the dense serial
 * search: the same concepts in the same order (so byte-identical output) and the same counts, on
 * random contexts from 0.1 % to 30 % dense and up to 20,000 objects and 3,000 attributes, with
 * min_support 0 and above, on 1 and several threads; the edge contexts (no objects, no attributes,
 * empty and full rows and columns, min_support above the object count); and what AUTO picks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <parac/fca.h>

#include "core/input.h"
#include "fca/fca_internal.h"
#include "support_fca.h"
#include "test_util.h"

static parac_fca_options options_with(parac_fca_cpu_strategy strategy, int threads, uint64_t min_support)
{
    parac_fca_options options;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.cpu_strategy = strategy;
    options.min_support = min_support;
    return options;
}

static parac_fca_concepts *compute_with(const parac_fca_context *context, parac_fca_cpu_strategy strategy, int threads,
                                        uint64_t min_support)
{
    parac_fca_options options = options_with(strategy, threads, min_support);
    parac_fca_concepts *concepts = NULL;
    parac_error error = {0};
    CHECK_OK(parac_fca_compute(context, &options, &concepts, &error), &error);
    return concepts;
}

static uint64_t count_with(const parac_fca_context *context, parac_fca_cpu_strategy strategy, int threads,
                           uint64_t min_support)
{
    parac_fca_options options = options_with(strategy, threads, min_support);
    parac_error error = {0};
    uint64_t count = 0;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    return count;
}

/* Dense serial (ON_DEMAND on one thread is fcbo_serial) against sparse on 1 and 3 threads. */
static void compare_on(const parac_fca_context *context, uint64_t min_support, const char *what)
{
    parac_fca_concepts *dense = compute_with(context, PARAC_FCA_CPU_ON_DEMAND, 1, min_support);
    size_t expected = parac_fca_concepts_size(dense);
    for (int threads = 1; threads <= 3; threads += 2) {
        parac_fca_concepts *sparse = compute_with(context, PARAC_FCA_CPU_SPARSE, threads, min_support);
        uint64_t count = count_with(context, PARAC_FCA_CPU_SPARSE, threads, min_support);
        CHECK(dense && sparse && fca_test_same_concepts(dense, sparse),
              "%s min_support %llu, %d threads: sparse concepts differ (%zu vs %zu)", what,
              (unsigned long long)min_support, threads, sparse ? parac_fca_concepts_size(sparse) : 0, expected);
        CHECK(count == expected, "%s min_support %llu, %d threads: sparse count %llu, dense %zu", what,
              (unsigned long long)min_support, threads, (unsigned long long)count, expected);
        parac_fca_concepts_destroy(sparse);
    }
    parac_fca_concepts_destroy(dense);
}

static void test_random_contexts(void)
{
    /* objects, attributes, density: kept to at most a few 10^5 concepts for the dense reference */
    static const struct { size_t objects, attributes; double density; } shapes[] = {
        {3000, 2000, 0.001}, {2000, 3000, 0.002}, {4000, 1000, 0.005}, {3000, 1500, 0.01}, {1500, 800, 0.02},
        {800, 400, 0.05},    {300, 120, 0.1},     {200, 70, 0.2},      {90, 40, 0.3},      {1, 1, 0.3},
        {5, 3, 0.3},         {70, 65, 0.1},       {130, 129, 0.03},
        /* root children with ~600 objects x ~6 attributes: databases over sparse_parallel.c's 2,048-cell
         * spawn threshold, so 3 threads copy nodes into tasks */
        {20000, 200, 0.03},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (uint64_t seed = 1; seed <= 2; seed++) {
            parac_fca_context *context =
                fca_test_random_context(shapes[s].objects, shapes[s].attributes, shapes[s].density, 40 * s + seed);
            char what[96];
            if (!context) return;
            snprintf(what, sizeof what, "%zux%zu at %.1f %% (seed %llu)", shapes[s].objects, shapes[s].attributes,
                     shapes[s].density * 100, (unsigned long long)seed);
            compare_on(context, 0, what);
            compare_on(context, seed == 1 ? 2 : 5, what);
            parac_fca_context_destroy(context);
        }
    }
}

/* parac_fca_context_random makes no empty rows or duplicates: plain random FIMI-like contexts too. */
static void test_plain_random(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        parac_fca_context *context = NULL;
        parac_error error;
        char what[64];
        size_t objects = 500 * seed, attributes = 2500 / seed;
        CHECK_OK(parac_fca_context_random(objects, attributes, 0.004 * (double)seed, seed, &context, &error), &error);
        snprintf(what, sizeof what, "plain %zux%zu", objects, attributes);
        compare_on(context, seed % 2, what);
        parac_fca_context_destroy(context);
    }
}

static void test_edge_contexts(void)
{
    static const uint8_t full[6] = {1, 1, 1, 1, 1, 1}, empty[6] = {0};
    static const uint8_t one_full_row[6] = {1, 1, 1, 0, 1, 0};
    parac_fca_context *context = NULL;
    parac_error error;
    CHECK_OK(parac_fca_context_create(0, 4, NULL, &context, &error), &error);
    compare_on(context, 0, "no objects");
    compare_on(context, 1, "no objects");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(3, 0, NULL, &context, &error), &error);
    compare_on(context, 0, "no attributes");
    compare_on(context, 4, "no attributes");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(2, 3, full, &context, &error), &error);
    compare_on(context, 0, "full");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(2, 3, empty, &context, &error), &error);
    compare_on(context, 0, "empty");
    compare_on(context, 1, "empty");
    parac_fca_context_destroy(context);
    CHECK_OK(parac_fca_context_create(2, 3, one_full_row, &context, &error), &error);
    compare_on(context, 0, "one full row");
    compare_on(context, 3, "one full row, min_support above the objects");
    parac_fca_context_destroy(context);
}

/* AUTO on one thread: the sparse path on a sparse context, the dense one on a dense context;
 * either way the dense answer. */
static void test_auto(void)
{
    parac_fca_context *sparse = NULL, *dense = NULL;
    parac_error error;
    CHECK_OK(parac_fca_context_random(2000, 1000, 0.01, 11, &sparse, &error), &error);
    CHECK_OK(parac_fca_context_random(200, 40, 0.3, 12, &dense, &error), &error);
    compare_on(sparse, 0, "auto sparse");
    CHECK(count_with(sparse, PARAC_FCA_CPU_AUTO, 1, 0) == count_with(sparse, PARAC_FCA_CPU_ON_DEMAND, 1, 0),
          "auto on a sparse context");
    CHECK(count_with(dense, PARAC_FCA_CPU_AUTO, 2, 1) == count_with(dense, PARAC_FCA_CPU_SPARSE, 2, 1),
          "auto on a dense context");
    parac_fca_context_destroy(sparse);
    parac_fca_context_destroy(dense);
}

/* A FIMI text of `objects` lines, each 1-8 ids drawn from `distinct` ids spread over 0..max_id. */
static char *wide_fimi(size_t objects, size_t distinct, uint32_t max_id, uint64_t seed, size_t *length)
{
    size_t capacity = objects * 8 * 8 + 16, used = 0;
    char *text = malloc(capacity);
    uint64_t state = seed;
    if (!text) return NULL;
    for (size_t o = 0; o < objects; o++) {
        unsigned count;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        count = 1 + (unsigned)(state >> 61);
        if (o == 0) used += (size_t)snprintf(text + used, capacity - used, "%lu ", (unsigned long)max_id);
        for (unsigned i = 0; i < count; i++) {
            uint64_t pick;
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            pick = (state >> 33) % distinct;
            pick = pick * pick / distinct; /* skewed: a few ids in many rows */
            used += (size_t)snprintf(text + used, capacity - used, "%s%llu", i ? " " : "",
                                     (unsigned long long)(pick * max_id / (distinct - 1)));
        }
        text[used++] = '\n';
    }
    *length = used;
    return text;
}

/* Issue 18: a sparse run never builds the objects x attributes bit matrices; memory follows the
 * occupied cells. Ids spread to 999,999 over 4,000 objects: the context's two bit matrices would
 * take 2 x 4,000 x 15,625 words + 10^6 x 63 words = 1.0 GB; reading and counting on 1 and 3
 * threads (sparse, dense: it works on its own copy of the searched attributes, and AUTO) must leave
 * them unbuilt, keep the process's peak memory under a quarter of that, and agree. (Stored concepts
 * are bitsets over every attribute id, 125 kB each here: the concepts are compared on a context of
 * ids up to 20,000.) */
static void test_no_bit_matrices(void)
{
    size_t length, bits_bytes;
    char *text = wide_fimi(4000, 1500, 999999, 7, &length);
    parac_fca_context *context = NULL;
    parac_error error;
    struct rusage usage;
    uint64_t dense_count, dense_count_2;
    if (!text) return;
    CHECK_OK(parac_fca_context_read_memory(text, length, "wide.dat", PARAC_FCA_FORMAT_FIMI, &context, &error), &error);
    free(text);
    if (!context) return;
    CHECK(parac_fca_context_attributes(context) == 1000000, "ids up to 999,999: %zu attributes",
          parac_fca_context_attributes(context));
    bits_bytes = (parac_fca_context_objects(context) * ((1000000 + 63) / 64) + 1000000 * ((4000 + 63) / 64)) * 8;
    dense_count = count_with(context, PARAC_FCA_CPU_ON_DEMAND, 1, 0);
    dense_count_2 = count_with(context, PARAC_FCA_CPU_ON_DEMAND, 1, 2);
    CHECK(dense_count > 1000, "the wide context has %llu concepts", (unsigned long long)dense_count);
    for (int threads = 1; threads <= 3; threads += 2)
        CHECK(count_with(context, PARAC_FCA_CPU_SPARSE, threads, 0) == dense_count &&
                  count_with(context, PARAC_FCA_CPU_AUTO, threads, 0) == dense_count &&
                  count_with(context, PARAC_FCA_CPU_SPARSE, threads, 2) == dense_count_2,
              "wide context, %d threads: sparse and dense counts differ", threads);
    CHECK(!fca_context_has_bits(context), "a CPU search built the context's bit matrices");
    CHECK(getrusage(RUSAGE_SELF, &usage) == 0);
    CHECK((size_t)usage.ru_maxrss * 1024 < bits_bytes / 4, "peak memory %ld kB, the bit matrices alone would be %zu kB",
          usage.ru_maxrss, bits_bytes / 1024);
    parac_fca_context_destroy(context);
}

/* The same on a context of ids up to 20,000, concepts compared one by one; then a path that needs
 * the bit matrices (verify) gets them, built on demand, and agrees. */
static void test_wide_concepts(void)
{
    size_t length;
    char *text = wide_fimi(3000, 1200, 20000, 8, &length);
    parac_fca_context *context = NULL;
    parac_fca_concepts *sparse;
    parac_error error;
    if (!text) return;
    CHECK_OK(parac_fca_context_read_memory(text, length, "wide.dat", PARAC_FCA_FORMAT_FIMI, &context, &error), &error);
    free(text);
    if (!context) return;
    compare_on(context, 0, "wide FIMI");
    compare_on(context, 3, "wide FIMI");
    CHECK(!fca_context_has_bits(context), "a CPU search built the context's bit matrices");
    for (int built = 0; built <= 1; built++) {
        if (built) { /* verify works on the bit matrices: they are built on demand */
            sparse = compute_with(context, PARAC_FCA_CPU_SPARSE, 3, 0);
            if (sparse) CHECK_OK(parac_fca_verify(context, sparse, 0, &error), &error);
            parac_fca_concepts_destroy(sparse);
        }
        CHECK(fca_context_has_bits(context) == built);
        /* parac_fca_context_has: by binary search in the cells, then from the bit matrices */
        for (size_t o = 0; o < 200; o++)
            for (size_t a = 0; a < 20002; a++) {
                int expected = 0;
                for (size_t i = context->cell_offsets[o]; i < context->cell_offsets[o + 1]; i++)
                    expected |= context->cell_attributes[i] == a;
                if (parac_fca_context_has(context, o, a) != expected)
                    CHECK(0, "object %zu attribute %zu: has() says %d (bit matrices %d)", o, a, !expected, built);
            }
    }
    parac_fca_context_destroy(context);
}

int main(void)
{
    test_no_bit_matrices();
    test_wide_concepts();
    test_edge_contexts();
    test_plain_random();
    test_random_contexts();
    test_auto();
    return test_finish("fca.sparse");
}

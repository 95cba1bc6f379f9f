/* tests/fca/test_stream.c — parac_fca_enumerate against parac_fca_compute: the same intents in the
 * same order for random contexts and tests/data contexts, with budgets from the default down to one
 * intent per store (every intent spills, thousands of runs), on 1-3 threads and every CPU strategy;
 * min_support; a callback that stops; a temporary directory that does not exist; extents from
 * intents (parac_fca_context_extent) against parac_fca_concept_extent. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

/* Compares each streamed intent with the stored list as it arrives. */
typedef struct stream_check {
    const parac_fca_concepts *expected;
    uint32_t *ids;
    size_t capacity;
    uint64_t received, mismatches, stop_after;
} stream_check;

static int check_intent(void *user, const uint32_t *intent, size_t size)
{
    stream_check *check = user;
    uint64_t index = check->received++;
    if (index >= parac_fca_concepts_size(check->expected)) {
        check->mismatches++;
    } else {
        size_t expected_size = parac_fca_concept_intent(check->expected, index, check->ids, check->capacity);
        if (expected_size != size || (size && memcmp(check->ids, intent, size * sizeof *intent) != 0))
            check->mismatches++;
    }
    return check->stop_after && check->received == check->stop_after;
}

static parac_status stream_into(const parac_fca_context *context, const parac_fca_concepts *expected, int threads,
                                parac_fca_cpu_strategy strategy, uint64_t budget, uint64_t min_support,
                                const char *directory, stream_check *check, parac_error *error)
{
    parac_fca_options options;
    parac_fca_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = threads;
    options.cpu_strategy = strategy;
    options.min_support = min_support;
    options.max_host_bytes = budget;
    options.temp_directory = directory;
    memset(check, 0, sizeof *check);
    check->expected = expected;
    check->capacity = parac_fca_context_attributes(context) + 1;
    check->ids = malloc(check->capacity * sizeof *check->ids);
    return parac_fca_enumerate(context, &options, check_intent, check, error);
}

/* full: every budget, thread count and strategy; else the default and a spilling budget on 1-2 threads. */
static void check_same(const parac_fca_context *context, const char *label, uint64_t min_support, int full)
{
    static const uint64_t budgets[] = {0, 4096, 1, 100000};
    static const parac_fca_cpu_strategy strategies[] = {PARAC_FCA_CPU_AUTO, PARAC_FCA_CPU_ON_DEMAND,
                                                        PARAC_FCA_CPU_SPARSE};
    const size_t strategy_count = sizeof strategies / sizeof strategies[0];
    parac_fca_concepts *expected = fca_test_compute(context, PARAC_DEVICE_CPU, 1, min_support);
    size_t n = parac_fca_concepts_size(expected);
    if (!expected) return;
    for (size_t b = 0; b < (full ? sizeof budgets / sizeof budgets[0] : 2u); b++)
        for (int threads = 1; threads <= (full ? 3 : 2); threads++)
            for (size_t s = 0; s < (threads > 1 && full ? strategy_count : 1u); s++) {
                stream_check check;
                parac_error error = {0};
                CHECK_OK(stream_into(context, expected, threads, strategies[s], budgets[b], min_support, NULL, &check,
                                     &error),
                         &error);
                CHECK(check.received == n && check.mismatches == 0,
                      "%s: budget %llu, %d threads, strategy %d: %llu of %zu concepts, %llu out of place", label,
                      (unsigned long long)budgets[b], threads, (int)strategies[s], (unsigned long long)check.received,
                      n, (unsigned long long)check.mismatches);
                free(check.ids);
            }
    parac_fca_concepts_destroy(expected);
}

static void check_stop_and_errors(const parac_fca_context *context)
{
    parac_fca_concepts *expected = fca_test_compute(context, PARAC_DEVICE_CPU, 1, 0);
    stream_check check;
    parac_error error = {0};
    parac_status status;
    for (int spilled = 0; spilled < 2; spilled++) {
        memset(&check, 0, sizeof check);
        parac_fca_options options;
        parac_fca_options_init(&options);
        options.exec.threads = 2;
        options.exec.device = PARAC_DEVICE_CPU;
        options.max_host_bytes = spilled ? 64 : 0;
        check.expected = expected;
        check.capacity = parac_fca_context_attributes(context) + 1;
        check.ids = malloc(check.capacity * sizeof *check.ids);
        check.stop_after = 5;
        status = parac_fca_enumerate(context, &options, check_intent, &check, &error);
        CHECK(status == PARAC_ERR_CANCELLED && check.received == 5 && check.mismatches == 0,
              "stopping after 5 (spilled %d): status %d, %llu received", spilled, (int)status,
              (unsigned long long)check.received);
        free(check.ids);
    }
    status = stream_into(context, expected, 2, PARAC_FCA_CPU_AUTO, 64, 0, "/nonexistent-parac-spill", &check, &error);
    CHECK(status == PARAC_ERR_IO && strstr(error.message, "/nonexistent-parac-spill"),
          "a missing temporary directory: status %d (%s)", (int)status, error.message);
    free(check.ids);
    CHECK(parac_fca_enumerate(context, NULL, NULL, NULL, &error) == PARAC_ERR_INVALID_ARGUMENT, "no callback");
    parac_fca_concepts_destroy(expected);
}

static void check_extents(const parac_fca_context *context)
{
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, 0);
    size_t attributes = parac_fca_context_attributes(context), objects = parac_fca_context_objects(context);
    uint32_t *intent = malloc((attributes + 1) * sizeof *intent), *a = malloc((objects + 1) * sizeof *a),
             *b = malloc((objects + 1) * sizeof *b);
    size_t wrong = 0;
    for (size_t c = 0; concepts && c < parac_fca_concepts_size(concepts); c++) {
        size_t size = parac_fca_concept_intent(concepts, c, intent, attributes);
        size_t na = parac_fca_concept_extent(context, concepts, c, a, objects);
        size_t nb = parac_fca_context_extent(context, intent, size, b, objects);
        wrong += na != nb || (na && memcmp(a, b, na * sizeof *a) != 0);
    }
    CHECK(wrong == 0, "%zu extents differ", wrong);
    intent[0] = (uint32_t)attributes; /* an attribute the context lacks: no object */
    CHECK(parac_fca_context_extent(context, intent, 1, b, objects) == 0, "unknown attribute, empty extent");
    free(intent), free(a), free(b);
    parac_fca_concepts_destroy(concepts);
}

int main(void)
{
    static const char *shared[] = {"vote.dat", "primary-tumor.dat"};
    for (uint64_t seed = 1; seed <= 5; seed++) { /* 37 to 27,374 concepts */
        parac_fca_context *context = fca_test_random_context(20 + seed * 7, 5 + seed * 13, 0.15 + 0.05 * (double)seed, seed);
        char label[64];
        snprintf(label, sizeof label, "random seed %llu", (unsigned long long)seed);
        check_same(context, label, 0, 1);
        check_same(context, label, 3, seed % 2);
        if (seed == 1) check_stop_and_errors(context);
        if (seed == 2) check_extents(context);
        parac_fca_context_destroy(context);
    }
    {
        parac_fca_context *empty = NULL;
        parac_error error;
        CHECK_OK(parac_fca_context_create(0, 0, NULL, &empty, &error), &error);
        if (empty) check_same(empty, "empty context", 0, 1);
        parac_fca_context_destroy(empty);
    }
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        parac_fca_context *context = fca_test_read_shared(shared[i]);
        if (context) check_same(context, shared[i], 0, 0);
        parac_fca_context_destroy(context);
    }
    return test_finish("fca_stream");
}

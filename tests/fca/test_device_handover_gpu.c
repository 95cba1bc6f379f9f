/* tests/fca/test_device_handover_gpu.c — --device auto handing a started CPU search over to the GPU
 * (fca/device_handover.h) on a GPU machine: on a fresh random context too big for the CPU to win
 * (200 x 100, density 0.45: ~3.5e7 concepts, 1.5 s on 16 cores against ~0.6 s for the GPU with its
 * start-up) auto must hand over, say so, and give the CPU's count, the CPU's concepts (stored) and the
 * CPU's concepts in order through parac_fca_enumerate under a 64 MB budget (the CPU search spilled runs
 * before it was stopped: they must be gone); a small context must stay on the CPU, decided before any
 * report. Exits 77 without a GPU. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

typedef struct stream_check {
    const parac_fca_concepts *expected;
    size_t next, mismatches;
    uint32_t *ids;
    size_t capacity;
} stream_check;

static int compare_next(void *user, const uint32_t *intent, size_t size)
{
    stream_check *check = user;
    size_t expected_size = check->next < parac_fca_concepts_size(check->expected)
                               ? parac_fca_concept_intent(check->expected, check->next, check->ids, check->capacity)
                               : (size_t)-1;
    if (expected_size != size || memcmp(intent, check->ids, size * sizeof *intent) != 0) check->mismatches++;
    check->next++;
    return 0;
}

static void auto_options(parac_fca_options *options, parac_device_choice *chosen)
{
    parac_fca_options_init(options);
    options->exec.device = PARAC_DEVICE_AUTO;
    options->exec.chosen = chosen;
    memset(chosen, 0, sizeof *chosen);
}

static void check_handed_over(const parac_device_choice *chosen, const char *what)
{
    CHECK(chosen->device == PARAC_DEVICE_CUDA && strstr(chosen->reason, "handed over to cuda") != NULL, "%s: %s", what,
          chosen->reason);
}

static void check_large(uint64_t seed)
{
    parac_fca_context *context = NULL;
    parac_fca_concepts *cpu, *automatic = NULL;
    parac_fca_options options;
    parac_device_choice chosen;
    parac_error error = {0};
    stream_check check = {NULL, 0, 0, malloc(101 * sizeof(uint32_t)), 101};
    uint64_t count = 0;
    CHECK_OK(parac_fca_context_random(200, 100, 0.45, seed, &context, &error), &error); /* uniform: no empty rows */
    cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, 0);
    check.expected = cpu;

    auto_options(&options, &chosen);
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    CHECK(count == parac_fca_concepts_size(cpu), "seed %llu: auto counted %llu, cpu %zu", (unsigned long long)seed,
          (unsigned long long)count, parac_fca_concepts_size(cpu));
    check_handed_over(&chosen, "count");

    auto_options(&options, &chosen);
    CHECK_OK(parac_fca_compute(context, &options, &automatic, &error), &error);
    CHECK(fca_test_same_concepts(cpu, automatic), "seed %llu: auto's stored concepts differ from the cpu's",
          (unsigned long long)seed);
    check_handed_over(&chosen, "compute");

    auto_options(&options, &chosen);
    options.max_host_bytes = (uint64_t)64 << 20;
    CHECK_OK(parac_fca_enumerate(context, &options, compare_next, &check, &error), &error);
    CHECK(check.next == parac_fca_concepts_size(cpu) && check.mismatches == 0,
          "seed %llu: auto's stream gave %zu concepts (%zu differ), cpu %zu", (unsigned long long)seed, check.next,
          check.mismatches, parac_fca_concepts_size(cpu));
    check_handed_over(&chosen, "enumerate");
    printf("seed %llu: %zu concepts; %s\n", (unsigned long long)seed, parac_fca_concepts_size(cpu), chosen.reason);

    free(check.ids);
    parac_fca_concepts_destroy(automatic);
    parac_fca_concepts_destroy(cpu);
    parac_fca_context_destroy(context);
}

static void check_small(uint64_t seed)
{
    parac_fca_context *context = fca_test_random_context(100, 40, 0.3, seed);
    parac_fca_concepts *cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, 0), *automatic = NULL;
    parac_fca_options options;
    parac_device_choice chosen;
    parac_error error = {0};
    auto_options(&options, &chosen);
    CHECK_OK(parac_fca_compute(context, &options, &automatic, &error), &error);
    CHECK(fca_test_same_concepts(cpu, automatic), "small: auto != cpu");
    CHECK(chosen.device == PARAC_DEVICE_CPU && strstr(chosen.reason, "with no progress report to decide on") != NULL,
          "small: %s", chosen.reason);
    parac_fca_concepts_destroy(automatic);
    parac_fca_concepts_destroy(cpu);
    parac_fca_context_destroy(context);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL);
    if (test_require_gpu()) return 77;
    printf("seed %llu\n", (unsigned long long)seed);
    check_small(seed);
    check_large(seed);
    return test_finish("fca.device_handover_gpu");
}

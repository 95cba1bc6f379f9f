/* tests/fca/test_fcbo_gpu.c — the CUDA path against the CPU path on fresh
 * random contexts of many shapes (sizes off multiples of 32/64, densities
 * 0.05-0.6, empty rows and columns, duplicate rows, min support), and the
 * known counts of the shared data sets. Exits 77 without a GPU. */
#include <string.h>
#include <time.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

static void compare_on_random(uint64_t seed)
{
    static const size_t shapes[][2] = {{1, 1}, {5, 3}, {31, 33}, {65, 64}, {97, 65}, {200, 100}, {300, 90}, {1000, 40}, {70, 129}};
    static const double densities[] = {0.05, 0.2, 0.35, 0.6};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (size_t d = 0; d < 4; d++) {
            double density = densities[d];
            uint64_t min_support = (s + d) % 3 == 0 ? 2 : 0;
            parac_fca_context *context;
            parac_fca_concepts *cpu, *gpu;
            parac_fca_options options;
            uint64_t count = 0;
            parac_error error;
            if (shapes[s][1] >= 40 && density > 0.2) density = 0.2; /* keep concept counts test-sized (<10^6) */
            context = fca_test_random_context(shapes[s][0], shapes[s][1], density, seed + s * 31 + d);
            cpu = fca_test_compute(context, PARAC_DEVICE_CPU, 0, min_support);
            gpu = fca_test_compute(context, PARAC_DEVICE_CUDA, 0, min_support);
            CHECK(fca_test_same_concepts(cpu, gpu), "seed %llu shape %zux%zu density %.2f support %llu: GPU != CPU (%zu vs %zu)",
                  (unsigned long long)seed, shapes[s][0], shapes[s][1], density, (unsigned long long)min_support,
                  parac_fca_concepts_size(cpu), parac_fca_concepts_size(gpu));
            memset(&options, 0, sizeof options);
            options.exec.device = PARAC_DEVICE_CUDA;
            options.min_support = min_support;
            CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
            CHECK(count == parac_fca_concepts_size(cpu), "GPU count %llu vs CPU %zu", (unsigned long long)count,
                  parac_fca_concepts_size(cpu));
            parac_fca_concepts_destroy(cpu);
            parac_fca_concepts_destroy(gpu);
            parac_fca_context_destroy(context);
        }
    }
}

static void check_known_count(const char *name, uint64_t expected)
{
    char path[1024];
    parac_fca_context *context = NULL;
    parac_fca_options options;
    parac_error error;
    uint64_t count = 0;
    snprintf(path, sizeof path, "%s/fca/%s", test_data_dir(), name);
    CHECK_OK(parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error), &error);
    if (!context) return;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CUDA;
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    CHECK(count == expected, "%s on the GPU: %llu concepts, expected %llu", name, (unsigned long long)count,
          (unsigned long long)expected);
    parac_fca_context_destroy(context);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL);
    if (test_require_gpu()) return 77;
    printf("seed %llu\n", (unsigned long long)seed);
    compare_on_random(seed);
    compare_on_random(12345);
    check_known_count("mushroom.dat", 238710);
    check_known_count("vote.dat", 227033);
    check_known_count("primary-tumor.dat", 87232);
    return test_finish("fca.fcbo_gpu");
}

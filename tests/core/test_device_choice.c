/* tests/core/test_device_choice.c — the AUTO cost model (core/device_choice.c): small runs stay on
 * the CPU, huge ones go to the GPU when one is present, explicit requests are obeyed, and the
 * choice and its reason reach exec->chosen. Runs everywhere (pretends a GPU via parac_device_pick). */
#include <string.h>

#include <parac/devices.h>

#include "core/device_choice.h"
#include "test_util.h"

static parac_device pick(parac_workload_kind kind, double units, double bytes, int threads, int gpus, char *reason)
{
    parac_workload work = {kind, units, bytes};
    return parac_device_pick(&work, threads, gpus, reason, 192);
}

int main(void)
{
    char reason[192];
    double cpu, gpu;
    parac_exec exec;
    parac_device_choice chosen;
    parac_device resolved = PARAC_DEVICE_AUTO;
    parac_error error = {0};
    parac_workload tiny = {PARAC_WORKLOAD_DBSCAN, 2000.0, 8000.0};

    /* The issue-16 cases on the 16-core H200 host. */
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_DBSCAN, 2e6, 8e6, 16, 1, reason), PARAC_DEVICE_CPU);       /* 1M 2-D */
    CHECK(strstr(reason, "dbscan") && strstr(reason, "cpu"), "%s", reason);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_DBSCAN, 3e8, 1.2e9, 16, 1, reason), PARAC_DEVICE_CUDA);    /* 100M 3-D */
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_BIRCH, 2e6, 8e6, 16, 1, reason), PARAC_DEVICE_CPU);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_BIRCH, -1.0, 0.0, 16, 1, reason), PARAC_DEVICE_CPU);       /* size unknown */
    CHECK(strstr(reason, "unknown") != NULL, "%s", reason);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_FCA, 1e5 * 3, 1e4, 16, 1, reason), PARAC_DEVICE_CPU);      /* hepatitis-like */
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_FCA, 1.177e8 * 5, 1e4, 16, 1, reason), PARAC_DEVICE_CUDA); /* heart-cleveland */
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_AC, 2e5, 1.6e6, 16, 1, reason), PARAC_DEVICE_CPU);
    /* Table networks: the GPU's whole call costs more per tuple entry than the best CPU algorithm's (run
     * AN: the support rows are built on the host), so 10^5, 10^8 and 10^9 entries all stay on the CPU. */
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_AC_TABLES, 1e5, 1e6, 16, 1, reason), PARAC_DEVICE_CPU);
    CHECK(strstr(reason, "ac_tables") != NULL, "%s", reason);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_AC_TABLES, 1e8, 1e8, 16, 1, reason), PARAC_DEVICE_CPU);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_AC_TABLES, 1e9, 1e9, 16, 1, reason), PARAC_DEVICE_CPU);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_GEMM, 2.0 * 512 * 512 * 512, 4e6, 16, 1, reason), PARAC_DEVICE_CPU);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_GEMM, 2.0 * 16384.0 * 16384 * 16384, 4e9, 16, 1, reason), PARAC_DEVICE_CUDA);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_SILHOUETTE, 1e3 * 1e3 * 2, 1.6e4, 16, 1, reason), PARAC_DEVICE_CPU);
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_SILHOUETTE, 5e4 * 5e4 * 8, 3.2e6, 16, 1, reason), PARAC_DEVICE_CUDA);
    /* No GPU: always the CPU, whatever the size. */
    CHECK_EQ_INT(pick(PARAC_WORKLOAD_DBSCAN, 3e8, 1.2e9, 16, 0, reason), PARAC_DEVICE_CPU);
    CHECK(strstr(reason, "no usable GPU") != NULL, "%s", reason);

    /* Estimates grow with the work; fewer threads make the (parallel) CPU slower, not the GPU. */
    {
        double cpu16, gpu16, cpu2, gpu2;
        parac_workload big = {PARAC_WORKLOAD_DBSCAN, 2e7, 8e7};
        parac_device_estimate(&tiny, 16, &cpu, &gpu);
        parac_device_estimate(&big, 16, &cpu16, &gpu16);
        parac_device_estimate(&big, 2, &cpu2, &gpu2);
        CHECK(cpu < cpu16 && gpu < gpu16 && cpu > 0 && gpu > 0.1, "%g %g %g %g", cpu, cpu16, gpu, gpu16);
        CHECK(cpu2 > 7.9 * cpu16 && gpu2 == gpu16, "%g %g %g %g", cpu2, cpu16, gpu2, gpu16);
    }

    /* The CPU side read backwards: the units that take 1.5 s on 2 (or 16) threads take the model 1.5 s
     * there; a non-parallel kind ignores the threads; no time, no work. */
    for (int kind = 0; kind < PARAC_WORKLOAD_KINDS; kind++)
        for (int threads = 2; threads <= 16; threads += 14) {
            parac_workload work = {(parac_workload_kind)kind, 0.0, 0.0};
            work.units = parac_device_units_for_cpu_seconds(work.kind, 1.5, threads);
            parac_device_estimate(&work, threads, &cpu, &gpu);
            CHECK(work.units > 0 && cpu > 1.5 * (1 - 1e-12) && cpu < 1.5 * (1 + 1e-12), "%s: %g units, %g s",
                  parac_workload_name(work.kind), work.units, cpu);
            CHECK(parac_device_units_for_cpu_seconds(work.kind, 0.0, threads) == 0.0, "%s", parac_workload_name(work.kind));
        }
    {
        double two = parac_device_units_for_cpu_seconds(PARAC_WORKLOAD_FCA, 1.0, 2);
        double sixteen = parac_device_units_for_cpu_seconds(PARAC_WORKLOAD_FCA, 1.0, 16);
        CHECK(sixteen > 8.0 * two * (1 - 1e-12) && sixteen < 8.0 * two * (1 + 1e-12),
              "fca's CPU path is parallel: 2 threads do an eighth of 16's work (%g, %g)", two, sixteen);
    }

    /* Through parac_choose_device: explicit CPU, and AUTO on a tiny run (CPU on any machine). */
    memset(&exec, 0, sizeof exec);
    memset(&chosen, 0, sizeof chosen);
    exec.chosen = &chosen;
    exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_choose_device(&exec, &tiny, &resolved, &error), &error);
    CHECK_EQ_INT(resolved, PARAC_DEVICE_CPU);
    CHECK_EQ_INT(chosen.device, PARAC_DEVICE_CPU);
    CHECK(strstr(chosen.reason, "requested") != NULL, "%s", chosen.reason);
    exec.device = PARAC_DEVICE_AUTO;
    CHECK_OK(parac_choose_device(&exec, &tiny, &resolved, &error), &error);
    CHECK_EQ_INT(resolved, PARAC_DEVICE_CPU);
    if (parac_built_with_cuda())
        CHECK(strncmp(chosen.reason, "auto: estimated cpu", 19) == 0, "%s", chosen.reason);
    else
        CHECK(strcmp(chosen.reason, "auto: parac was built without CUDA") == 0, "%s", chosen.reason);
    /* AUTO on a huge run: the GPU exactly when one is usable. */
    {
        parac_workload huge = {PARAC_WORKLOAD_DBSCAN, 3e9, 1.2e10};
        CHECK_OK(parac_choose_device(&exec, &huge, &resolved, &error), &error);
        CHECK_EQ_INT(resolved, parac_cuda_device_count(NULL, 0) > 0 ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU);
        CHECK_EQ_INT(chosen.device, resolved);
    }
    /* NULL exec and no chosen pointer: defaults, nothing recorded, no crash. */
    CHECK_OK(parac_choose_device(NULL, &tiny, &resolved, &error), &error);
    CHECK_EQ_INT(resolved, PARAC_DEVICE_CPU);
    return test_finish("core.device_choice");
}

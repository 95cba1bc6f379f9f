/* core/device_choice.c — the cost model behind PARAC_DEVICE_AUTO (see device_choice.h).
 *
 * Whole runs are modelled as
 *     cpu  = units x cpu_seconds_per_unit x REFERENCE_THREADS / threads   (parallel paths)
 *     cuda = GPU_START_SECONDS + gpu_fixed_seconds + units x gpu_seconds_per_unit + bytes x UPLOAD_SECONDS_PER_BYTE
 * GPU_START_SECONDS is the process's first CUDA call (driver + primary context): it dominates
 * small and medium runs, which is why AUTO used to make most commands slower (issue 16).
 *
 * ALL constants live in the table below. scripts/measure-device-costs re-measures them on a GPU
 * machine (one call, < 5 minutes) and prints the table rows in this exact form.
 * Provenance: GPU_START_SECONDS and the dbscan row were measured by that script on the H200 machine
 * on 2026-12-01 (bare CUDA program 0.378 s; dbscan 200 k / 4 M 2-D blobs: cpu 0.028 / 0.209 s, cuda
 * 0.389 / 0.422 s); its fca inputs then timed out on the GPU (a sparse context, issue 18). The other
 * fca (units now concepts x attributes) and gemm rows come from bench/whole_command.py's run there
 * the same day: fca mushroom (0.24 M concepts) cpu 0.024 s, a dense 1000 x 100 context cpu 7.3 s /
 * cuda 1.15 s; gemm fp32 4096 / 8192 cpu 1.84 / 11.2 s, cuda 0.64 / 1.40 s (the command makes its
 * random inputs too: about 100 GFLOP/s on the CPU, not the kernel's rate). The other rows are not yet
 * re-measured: they are derived from the whole-command
 * figures of issue 16 on the H200 machine (16 cores): bare CUDA program 0.41-0.47 s;
 * dbscan 1M 2-D cpu 0.20 / cuda 0.46 s; birch 1M 2-D cpu 0.19 / cuda 0.64 s; fca hepatitis
 * cpu 0.17 / cuda 0.64 s, heart-cleveland (117.7M concepts x 5 object words) cpu 2.35 / cuda 1.00 s; ac
 * 2e7 edges ac3bit 0.82 / gpu 1.00 s; silhouette: GPU 32x the CPU at n = 50,000 (metrics);
 * gemm: parac fp32 ~45 TFLOP/s on the GPU, the CPU rate an estimate (~1.2 TFLOP/s on 16 cores).
 * ac_tables (units: tuple entries + N-E edges; the best serial CPU algorithm, ac4 or ac3bit) from run AN
 * on the H200 machine (bench_ac's table rows, 2026-12-02, docs/PERFORMANCE.md): the best CPU whole call took
 * 3.0e-9 s per entry on one-round networks and about 6e-9 on a five-round one (taken: 6e-9); the GPU's
 * whole call, its context already made, 6.4e-9..7.9e-9 s per entry (taken: 7.5e-9), nearly all of it
 * building the support rows on the host: so with or without the start-up, the GPU does not win a table
 * network end to end and auto keeps them on the CPU (its propagation alone is 40-150x faster).
 */
#include "core/device_choice.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/threads.h"

/* The thread count the cpu constants were measured with (the H200 host's cores). */
#define REFERENCE_THREADS 16
/* The first CUDA call of a process (cudaGetDeviceCount + context creation). */
#define GPU_START_SECONDS 0.38
/* Pageable host memory to the device and back, per byte (about 12 GB/s). */
#define UPLOAD_SECONDS_PER_BYTE 8.3e-11

typedef struct device_cost {
    parac_workload_kind kind;
    const char *name;
    double cpu_seconds_per_unit; /* at REFERENCE_THREADS threads (or one thread when !cpu_parallel) */
    int cpu_parallel;            /* 1: the CPU path scales with threads */
    double gpu_fixed_seconds;    /* the module's own GPU set-up beyond GPU_START_SECONDS */
    double gpu_seconds_per_unit;
} device_cost;

/* kind                     name          cpu s/unit  par  gpu fixed  gpu s/unit */
static const device_cost device_costs[PARAC_WORKLOAD_KINDS] = {
    {PARAC_WORKLOAD_DBSCAN, "dbscan", 2.4e-8, 1, 0.00, 4.3e-9},
    {PARAC_WORKLOAD_BIRCH, "birch", 8.5e-8, 1, 0.05, 8.0e-8},
    {PARAC_WORKLOAD_FCA, "fca", 9.0e-10, 1, 0.05, 1.0e-10},
    {PARAC_WORKLOAD_GEMM, "gemm", 1.0e-11, 1, 0.02, 9.0e-13},
    {PARAC_WORKLOAD_AC, "ac", 2.1e-8, 0, 0.00, 8.5e-9},
    {PARAC_WORKLOAD_SILHOUETTE, "silhouette", 5.5e-10, 1, 0.00, 1.7e-11},
    {PARAC_WORKLOAD_AC_TABLES, "ac_tables", 6.0e-9, 0, 0.00, 7.5e-9},
};

const char *parac_workload_name(parac_workload_kind kind)
{
    return (size_t)kind < PARAC_WORKLOAD_KINDS ? device_costs[kind].name : "unknown";
}

void parac_device_estimate(const parac_workload *work, int threads, double *cpu_seconds, double *gpu_seconds)
{
    const device_cost *cost = &device_costs[(size_t)work->kind < PARAC_WORKLOAD_KINDS ? work->kind : 0];
    double units = work->units > 0 ? work->units : 0.0;
    double bytes = work->upload_bytes > 0 ? work->upload_bytes : 0.0;
    double scale = cost->cpu_parallel ? (double)REFERENCE_THREADS / (threads > 0 ? threads : 1) : 1.0;
    *cpu_seconds = units * cost->cpu_seconds_per_unit * scale;
    *gpu_seconds = GPU_START_SECONDS + cost->gpu_fixed_seconds + units * cost->gpu_seconds_per_unit +
                   bytes * UPLOAD_SECONDS_PER_BYTE;
}

double parac_device_units_for_cpu_seconds(parac_workload_kind kind, double cpu_seconds, int threads)
{
    const device_cost *cost = &device_costs[(size_t)kind < PARAC_WORKLOAD_KINDS ? kind : 0];
    double scale = cost->cpu_parallel ? (double)REFERENCE_THREADS / (threads > 0 ? threads : 1) : 1.0;
    return cpu_seconds > 0 ? cpu_seconds / (cost->cpu_seconds_per_unit * scale) : 0.0;
}

parac_device parac_device_pick(const parac_workload *work, int threads, int gpu_count, char *reason,
                               size_t reason_size)
{
    double cpu, gpu;
    parac_device device;
    if (gpu_count <= 0) {
        if (reason && reason_size) snprintf(reason, reason_size, "auto: no usable GPU");
        return PARAC_DEVICE_CPU;
    }
    if (work->units < 0) {
        /* Size unknown: the CPU never pays the GPU's start-up, the safer bet. */
        if (reason && reason_size) snprintf(reason, reason_size, "auto: %s work unknown in advance, cpu avoids the GPU start-up",
                                            parac_workload_name(work->kind));
        return PARAC_DEVICE_CPU;
    }
    parac_device_estimate(work, threads, &cpu, &gpu);
    device = gpu < cpu ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU;
    if (reason && reason_size)
        snprintf(reason, reason_size, "auto: estimated cpu %.3g s (%d threads) %s cuda %.3g s [%s, %.3g units]", cpu,
                 threads, device == PARAC_DEVICE_CUDA ? ">" : "<=", gpu, parac_workload_name(work->kind), work->units);
    return device;
}

void parac_device_record(const parac_exec *exec, parac_device device, const char *reason)
{
    if (!exec || !exec->chosen) return;
    exec->chosen->device = device;
    snprintf(exec->chosen->reason, sizeof exec->chosen->reason, "%s", reason ? reason : "");
}

parac_status parac_choose_device(const parac_exec *exec, const parac_workload *work, parac_device *resolved,
                                 parac_error *error)
{
    char reason[sizeof ((parac_device_choice *)0)->reason];
    parac_exec defaults;
    double cpu, gpu;
    int threads, gpus = 1;
    if (!exec) {
        memset(&defaults, 0, sizeof defaults);
        exec = &defaults;
    }
    if (exec->device != PARAC_DEVICE_AUTO || !work) return parac_exec_resolve_device(exec, resolved, error);
    if (!parac_built_with_cuda()) {
        *resolved = PARAC_DEVICE_CPU;
        parac_device_record(exec, *resolved, "auto: parac was built without CUDA");
        return PARAC_OK;
    }
    /* Work too small for the GPU to win even against one CPU thread: decided without reading
     * /proc for the idle cores (parac_threads_for_run may wait a millisecond) or waking CUDA. */
    threads = 1;
    parac_device_estimate(work, threads, &cpu, &gpu);
    if (work->units >= 0 && gpu >= cpu) {
        *resolved = parac_device_pick(work, threads, 1, reason, sizeof reason);
        parac_device_record(exec, *resolved, reason);
        return PARAC_OK;
    }
    /* The CPU side of the estimate uses the cores idle now, as birch and dbscan will. */
    threads = parac_threads_for_run(exec->threads);
    parac_device_estimate(work, threads, &cpu, &gpu);
    /* Asking CUDA how many GPUs there are initialises the driver (a good part of the start-up):
     * only ask when the GPU could win. */
    if (work->units >= 0 && gpu < cpu) gpus = parac_cuda_device_count(NULL, 0);
    *resolved = parac_device_pick(work, threads, gpus, reason, sizeof reason);
    parac_device_record(exec, *resolved, reason);
    return PARAC_OK;
}

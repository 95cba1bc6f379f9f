/* fca/device_handover.c — the CPU search watched from its own progress reports, and handed over to
 * the GPU when the GPU would finish first (device_handover.h says why). */
#include "fca/device_handover.h"

#include <stdio.h>

#include <parac/devices.h>

#include "core/device_choice.h"
#include "core/timer.h"

int fca_handover_prefers_gpu(double elapsed, double fraction, int threads, double upload_bytes, double *cpu_left,
                             double *gpu_seconds)
{
    parac_workload work = {PARAC_WORKLOAD_FCA, 0.0, upload_bytes};
    double cpu_total, model_cpu;
    *cpu_left = *gpu_seconds = 0.0;
    if (!(fraction > 0.0) || !(elapsed > 0.0)) return 0; /* nothing credited yet: wait for the next report */
    if (fraction > 1.0) fraction = 1.0;
    cpu_total = elapsed / fraction;
    *cpu_left = cpu_total - elapsed;
    work.units = parac_device_units_for_cpu_seconds(PARAC_WORKLOAD_FCA, cpu_total, threads);
    parac_device_estimate(&work, threads, &model_cpu, gpu_seconds);
    return *cpu_left > *gpu_seconds;
}

/* The gate's callback during the CPU search: one thread at a time, at most ten times a second. A
 * non-zero answer stops the search (the caller tells the handover from a cancel by handed_over). */
static int watch(void *user_data, uint64_t done, uint64_t total)
{
    fca_handover *handover = user_data;
    if (handover->user_progress && handover->user_progress(handover->user_data, done, total)) return 1;
    if (handover->handed_over || handover->gpus == 0 || !total || done >= total) return handover->handed_over;
    handover->elapsed = parac_now_seconds() - handover->started;
    handover->fraction = (double)done / (double)total;
    handover->decisions++;
    handover->wants_gpu = fca_handover_prefers_gpu(handover->elapsed, handover->fraction, handover->threads,
                                                   handover->upload_bytes, &handover->cpu_left,
                                                   &handover->gpu_seconds);
    /* Asking for the GPUs starts the CUDA driver (part of the GPU's start-up): only once it would win,
     * and once. Without one, the CPU search goes on to its end. */
    if (handover->wants_gpu && handover->gpus < 0) handover->gpus = parac_cuda_device_count(NULL, 0);
    if (handover->wants_gpu && handover->gpus > 0) handover->handed_over = 1;
    return handover->handed_over;
}

void fca_handover_begin(fca_handover *handover, const parac_exec *exec, int threads, double upload_bytes)
{
    parac_exec defaults = {0};
    if (!exec) exec = &defaults;
    handover->exec = *exec;
    handover->user_progress = exec->progress;
    handover->user_data = exec->progress_user_data;
    handover->exec.progress = watch;
    handover->exec.progress_user_data = handover;
    handover->started = parac_now_seconds();
    handover->threads = threads;
    handover->upload_bytes = upload_bytes;
    handover->decisions = handover->wants_gpu = handover->handed_over = 0;
    handover->gpus = -1;
    handover->elapsed = handover->fraction = handover->cpu_left = handover->gpu_seconds = 0.0;
}

void fca_handover_record(const fca_handover *handover, const parac_exec *exec)
{
    char reason[sizeof ((parac_device_choice *)0)->reason];
    if (!handover->decisions) {
        snprintf(reason, sizeof reason, "auto: the cpu search ended in %.3g s with no progress report to decide on "
                 "(the first is due after 0.1 s; the GPU's start-up alone takes longer)",
                 parac_now_seconds() - handover->started);
        parac_device_record(exec, PARAC_DEVICE_CPU, reason);
        return;
    }
    snprintf(reason, sizeof reason, "auto: cpu search %.3g %% done after %.2f s on %d threads, %.3g s left %s cuda %.3g s "
             "(estimated): %s", handover->fraction * 100.0, handover->elapsed, handover->threads, handover->cpu_left,
             handover->wants_gpu ? ">" : "<=", handover->gpu_seconds,
             handover->handed_over ? "handed over to cuda" : handover->wants_gpu ? "no usable GPU, stayed on the cpu"
                                                                                 : "stayed on the cpu");
    parac_device_record(exec, handover->handed_over ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU, reason);
}

/* core/checkpoint.h — progress reports and cancellation inside parallel loops.
 *
 * parac_report_progress (core/progress.h) forwards one report to the caller's
 * callback. A long parallel loop needs two more things: the callback must be
 * called from one thread at a time and at most ten times a second (the
 * contract in parac/exec.h), and once it asks to stop, every thread must see
 * it and skip the rest of its work. A checkpoint holds that state:
 *
 *     parac_checkpoint checkpoint;
 *     parac_checkpoint_start(&checkpoint, exec, total);
 *     #pragma omp parallel for
 *     for (i = 0; i < total; i++) {
 *         if (parac_checkpoint_stopped(&checkpoint)) continue;   // every thread
 *         if (omp_get_thread_num() == 0) parac_checkpoint_report(&checkpoint, i);  // one thread
 *         ...
 *     }
 *     if (parac_checkpoint_stopped(&checkpoint)) return PARAC_ERR_CANCELLED (after freeing);
 *
 * Without a callback both calls cost a load and a branch.
 */
#ifndef PARAC_CORE_CHECKPOINT_H
#define PARAC_CORE_CHECKPOINT_H

#include <stdint.h>

#include <parac/exec.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parac_checkpoint {
    const parac_exec *exec; /* NULL or without a callback: never reports, never stops */
    uint64_t total;
    uint64_t offset;        /* added to `done`: a phase's place in a run of several phases */
    double next_report;     /* parac_now_seconds() of the earliest next callback */
    int stop;               /* set (atomically) once the callback returned non-zero */
} parac_checkpoint;

/* A run of `total` units of work. */
void parac_checkpoint_start(parac_checkpoint *checkpoint, const parac_exec *exec, uint64_t total);

/* From one thread at a time: calls the callback with (offset + done, total)
 * when 0.1 s passed since the last call; returns 1 when the run must stop
 * (now or earlier). */
int parac_checkpoint_report(parac_checkpoint *checkpoint, uint64_t done);

/* From any thread: 1 once a report asked to stop. */
int parac_checkpoint_stopped(const parac_checkpoint *checkpoint);

#ifdef __cplusplus
}
#endif
#endif

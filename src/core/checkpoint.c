/* core/checkpoint.c — see checkpoint.h. */
#include "core/checkpoint.h"

#include <stddef.h>

#include "core/progress.h"
#include "core/timer.h"

/* At most this many callbacks a second (parac/exec.h promises "a few"). */
#define REPORT_INTERVAL_SECONDS 0.1

void parac_checkpoint_start(parac_checkpoint *checkpoint, const parac_exec *exec, uint64_t total)
{
    checkpoint->exec = exec && exec->progress ? exec : NULL;
    checkpoint->total = total;
    checkpoint->offset = 0;
    checkpoint->next_report = 0.0; /* the first report goes through at once */
    checkpoint->stop = 0;
}

int parac_checkpoint_report(parac_checkpoint *checkpoint, uint64_t done)
{
    double now;
    int stop;
    if (!checkpoint->exec) return 0;
    if (parac_checkpoint_stopped(checkpoint)) return 1;
    now = parac_now_seconds();
    if (now < checkpoint->next_report) return 0;
    checkpoint->next_report = now + REPORT_INTERVAL_SECONDS;
    done += checkpoint->offset;
    stop = parac_report_progress(checkpoint->exec, done < checkpoint->total ? done : checkpoint->total,
                                 checkpoint->total) != 0;
    if (stop) {
#pragma omp atomic write
        checkpoint->stop = 1;
    }
    return stop;
}

int parac_checkpoint_stopped(const parac_checkpoint *checkpoint)
{
    int stop;
#pragma omp atomic read
    stop = checkpoint->stop;
    return stop;
}

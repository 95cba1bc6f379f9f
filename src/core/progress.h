/* core/progress.h — a progress bar on stderr for long runs.
 *
 * Drawn only when enabled and stderr is a terminal; redraws at most ten times
 * a second so it costs nothing measurable. Its update function matches
 * parac_progress_fn, so it can be handed straight to the library.
 */
#ifndef PARAC_CORE_PROGRESS_H
#define PARAC_CORE_PROGRESS_H

#include <stdint.h>

#include <parac/exec.h>

typedef struct parac_progress_bar {
    const char *label;
    int active;          /* enabled and stderr is a TTY */
    double started;
    double last_draw;
    int drawn;
} parac_progress_bar;

/* enabled = 0 (e.g. --quiet) turns the bar off whatever stderr is. */
void parac_progress_start(parac_progress_bar *bar, const char *label, int enabled);
/* parac_progress_fn-compatible: user_data is the bar. done >= total erases the bar,
 * so output printed after a finished run starts on a clean line. */
int parac_progress_update(void *user_data, uint64_t done, uint64_t total);
/* Erases the bar's line. */
void parac_progress_finish(parac_progress_bar *bar);

/* What library code calls in its long loops: forwards to the caller's callback, if any, and
 * returns non-zero when the caller asked to stop (the run then returns PARAC_ERR_CANCELLED). */
static inline int parac_report_progress(const parac_exec *exec, uint64_t done, uint64_t total)
{
    return exec && exec->progress ? exec->progress(exec->progress_user_data, done, total) : 0;
}

#endif

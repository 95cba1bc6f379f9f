/* fca/device_handover.h — what --device auto means for fca: the CPU search starts at once, and it
 * is handed over to the GPU only when its own progress shows that the GPU would finish first.
 *
 * Why not decide in advance: any fca run from a fresh process pays the GPU's start-up (about
 * 0.4 s on the H200), while most contexts are searched by the CPU in far less (mushroom 0.022 s on
 * 16 cores); an estimate of the concept count before the search cost up to 20 ms, as much as the
 * run it was deciding (issue 16). Watching the run itself costs nothing: the search already
 * reports its progress through a parac_progress_gate (the part of the tree finished, by subtree
 * weight), and the gate's first report comes 0.1 s after the start. A run that is over by then
 * never meets a decision. At every report after that (ten a second) the CPU's remaining time,
 * projected from the fraction done, is weighed against the whole GPU run (start-up included) for
 * the work that projection implies (core/device_choice.c's model read backwards). Time already
 * spent is not counted for either side: it is lost whichever way the run goes on. When the GPU
 * wins (and one is usable), the watcher stops the CPU search as a cancel does; the caller throws
 * its concepts away and runs the GPU search from the start: the output is the canonical order, so
 * nothing depends on which device produced it. */
#ifndef PARAC_FCA_DEVICE_HANDOVER_H
#define PARAC_FCA_DEVICE_HANDOVER_H

#include <parac/exec.h>

typedef struct fca_handover {
    parac_exec exec;               /* the caller's, its progress callback replaced by the watcher */
    parac_progress_fn user_progress; /* the caller's callback (called first at every report), or NULL */
    void *user_data;
    double started;                /* when the CPU search began (parac_now_seconds) */
    int threads;                   /* the CPU search's threads */
    double upload_bytes;           /* what a GPU run copies to the device */
    int decisions;                 /* reports weighed so far (0: the CPU search ended before the first) */
    int wants_gpu;                 /* the last decision preferred the GPU */
    int handed_over;               /* the watcher stopped the CPU search for the GPU */
    int gpus;                      /* usable GPUs; -1 until the GPU first wins a decision */
    double elapsed, fraction, cpu_left, gpu_seconds; /* at the last decision */
} fca_handover;

/* Sets up the watcher for a CPU search that starts now; run the search with handover->exec. */
void fca_handover_begin(fca_handover *handover, const parac_exec *exec, int threads, double upload_bytes);

/* The decision, on its own: 1 when the GPU run (gpu_seconds, whole) is expected to end sooner than
 * the rest of a CPU search that did `fraction` of its tree in `elapsed` seconds on `threads` threads
 * (cpu_left, projected); 0 without progress to project from. */
int fca_handover_prefers_gpu(double elapsed, double fraction, int threads, double upload_bytes, double *cpu_left,
                             double *gpu_seconds);

/* Writes what happened into exec->chosen (device and one line of reason). */
void fca_handover_record(const fca_handover *handover, const parac_exec *exec);

#endif

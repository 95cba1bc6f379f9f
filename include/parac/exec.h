/* parac/exec.h — how a computation runs: which device, how many threads.
 *
 * Every module's options struct embeds a parac_exec. Zero-initialising it
 * gives the defaults: automatic device choice, all cores, no progress.
 */
#ifndef PARAC_EXEC_H
#define PARAC_EXEC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac_device {
    PARAC_DEVICE_AUTO = 0, /* the device the module's cost model expects to finish first (core/device_choice.c) */
    PARAC_DEVICE_CPU,
    PARAC_DEVICE_CUDA
} parac_device;

/* Called now and then during long runs (at most a few times a second), done <= total, from one
 * thread at a time though not always the caller's. Must be cheap. Returning non-zero asks the run
 * to stop: it stops at its next check point (within about a second) and returns
 * PARAC_ERR_CANCELLED with no partial result. */
typedef int (*parac_progress_fn)(void *user_data, uint64_t done, uint64_t total);

/* Where a run records the device it chose and why (optional, caller-owned; see parac_exec.chosen). */
typedef struct parac_device_choice {
    parac_device device; /* PARAC_DEVICE_CPU or PARAC_DEVICE_CUDA: the device the run used */
    char reason[192];    /* one line, e.g. "auto: estimated cpu 0.031 s < cuda 0.47 s (dbscan, 2e+06 units)" */
} parac_device_choice;

typedef struct parac_exec {
    parac_device device;     /* requested device */
    int threads;             /* CPU threads; <= 0 means all cores; more than 4 per core or 1024 in
                                all are clamped to that (results never depend on the count) */
    int cuda_device;         /* CUDA device ordinal (0 = first) */
    parac_progress_fn progress;
    void *progress_user_data;
    parac_device_choice *chosen; /* optional: when non-NULL, a run writes its device choice here */
} parac_exec;

/* The defaults, set explicitly: automatic device, all cores, CUDA device 0, no progress. */
void parac_exec_init(parac_exec *exec);

/* "auto", "cpu" or "cuda". */
const char *parac_device_name(parac_device device);

#ifdef __cplusplus
}
#endif
#endif

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
    PARAC_DEVICE_AUTO = 0, /* the GPU when one is usable, else the CPU */
    PARAC_DEVICE_CPU,
    PARAC_DEVICE_CUDA
} parac_device;

/* Called now and then during long runs (at most a few times a second), done <= total, from one
 * thread at a time though not always the caller's. Must be cheap. Returning non-zero asks the run
 * to stop: it stops at its next check point (within about a second) and returns
 * PARAC_ERR_CANCELLED with no partial result. */
typedef int (*parac_progress_fn)(void *user_data, uint64_t done, uint64_t total);

typedef struct parac_exec {
    parac_device device;     /* requested device */
    int threads;             /* CPU threads; <= 0 means all cores */
    int cuda_device;         /* CUDA device ordinal (0 = first) */
    parac_progress_fn progress;
    void *progress_user_data;
} parac_exec;

/* The defaults, set explicitly: automatic device, all cores, CUDA device 0, no progress. */
void parac_exec_init(parac_exec *exec);

/* "auto", "cpu" or "cuda". */
const char *parac_device_name(parac_device device);

#ifdef __cplusplus
}
#endif
#endif

/* tests/core/test_threads_for_run.c — a run's default thread count on a shared machine
 * (parac_threads_for_run, core/threads.c): an explicit count is obeyed, the default is between 1
 * and the cores, and with every core taken by spinning threads the default drops to 1 thread
 * (issue 16: a team larger than the idle cores waits at every barrier). */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <time.h>

#include "core/threads.h"
#include "test_util.h"

static atomic_int stop_spinning;

static void *spin(void *unused)
{
    (void)unused;
    while (!atomic_load_explicit(&stop_spinning, memory_order_relaxed)) {
    }
    return NULL;
}

int main(void)
{
    int cores = parac_threads_available(), spinners = cores < 64 ? cores : 64, started = 0, fewest = cores;
    pthread_t threads[64];
    struct timespec pause = {0, 20 * 1000 * 1000};
    FILE *loadavg = fopen("/proc/loadavg", "r");
    if (!loadavg) {
        puts("core.threads_for_run: no /proc/loadavg here (the default is all cores): skipped");
        return 77;
    }
    fclose(loadavg);
    CHECK_EQ_INT(parac_threads_for_run(3), 3);
    CHECK_EQ_INT(parac_threads_for_run(1), 1);
    {
        int idle = parac_threads_for_run(0);
        CHECK(idle >= 1 && idle <= cores, "default %d, cores %d", idle, cores);
    }
    for (int i = 0; i < spinners; i++) started += pthread_create(&threads[i], NULL, spin, NULL) == 0;
    CHECK_EQ_INT(started, spinners);
    /* /proc/loadavg's running count is sampled by the kernel: look a few times. */
    for (int attempt = 0; attempt < 50 && fewest > 1; attempt++) {
        int now = parac_threads_for_run(0);
        if (now < fewest) fewest = now;
        nanosleep(&pause, NULL);
    }
    atomic_store(&stop_spinning, 1);
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    CHECK(fewest == 1, "with %d spinning threads on %d cores the default stayed at %d", spinners, cores, fewest);
    CHECK(parac_threads_resolve(0) == cores, "parac_threads_resolve(0) still means all cores");
    return test_finish("core.threads_for_run");
}

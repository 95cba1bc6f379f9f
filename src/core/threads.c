/* core/threads.c — thread counts are passed to each parallel region
 * (num_threads clause) rather than set globally, so two parac calls with
 * different settings in one process do not disturb each other. */
#include "core/threads.h"

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int parac_threads_available(void)
{
    int cores = omp_get_num_procs();
    return cores > 0 ? cores : 1;
}

int parac_threads_resolve(int requested)
{
    return requested > 0 ? requested : parac_threads_available();
}

/* Tasks running on the whole machine right now, or -1 when /proc/loadavg is unreadable. */
static int running_tasks(void)
{
    double one, five, fifteen;
    int running = -1, total = 0;
    FILE *file = fopen("/proc/loadavg", "r");
    if (!file) return -1;
    if (fscanf(file, "%lf %lf %lf %d/%d", &one, &five, &fifteen, &running, &total) != 5) running = -1;
    fclose(file);
    return running;
}

int parac_threads_for_run(int requested)
{
    int cores = parac_threads_available(), running, busy, idle;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (requested > 0) return requested;
    running = running_tasks();
    if (running < 1) return cores;
    busy = running - 1; /* this thread is running too */
    /* Other tasks spread over all online cores; only our share of them takes our cores. */
    if (online > cores) busy = (int)(((long)busy * cores + online - 1) / online);
    idle = cores - busy;
    return idle < 1 ? 1 : idle;
}

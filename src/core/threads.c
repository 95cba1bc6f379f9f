/* core/threads.c — thread counts are passed to each parallel region
 * (num_threads clause) rather than set globally, so two parac calls with
 * different settings in one process do not disturb each other. */
#include "core/threads.h"

#include <omp.h>

int parac_threads_available(void)
{
    int cores = omp_get_num_procs();
    return cores > 0 ? cores : 1;
}

int parac_threads_resolve(int requested)
{
    int cores = parac_threads_available();
    int limit = cores <= PARAC_THREADS_MAX / PARAC_THREADS_PER_CORE_MAX ? cores * PARAC_THREADS_PER_CORE_MAX
                                                                        : PARAC_THREADS_MAX;
    if (requested <= 0) return cores < PARAC_THREADS_MAX ? cores : PARAC_THREADS_MAX;
    return requested < limit ? requested : limit;
}

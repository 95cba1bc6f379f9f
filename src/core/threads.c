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
    return requested > 0 ? requested : parac_threads_available();
}

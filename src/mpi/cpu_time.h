/* mpi/cpu_time.h — CPU seconds of this process, all its threads: the work a phase did, whatever the
 * load of a shared machine (the wall time is not), for --timings. */
#ifndef PARAC_MPI_CPU_TIME_H
#define PARAC_MPI_CPU_TIME_H

#include <time.h>

static inline double mpi_process_cpu_seconds(void)
{
    struct timespec now;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 ? (double)now.tv_sec + 1e-9 * (double)now.tv_nsec : 0.0;
}

#endif

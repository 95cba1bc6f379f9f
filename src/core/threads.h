/* core/threads.h — OpenMP thread counts from the user's --threads. */
#ifndef PARAC_CORE_THREADS_H
#define PARAC_CORE_THREADS_H

/* The number of threads a parallel region should use for a request:
 * requested <= 0 means all cores (omp_get_num_procs). */
int parac_threads_resolve(int requested);

/* Cores the OpenMP runtime sees. */
int parac_threads_available(void);

#endif

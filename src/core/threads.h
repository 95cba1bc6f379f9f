/* core/threads.h — OpenMP thread counts from the user's --threads.
 *
 * Every module turns exec.threads into a team size here and nowhere else, and
 * sizes its per-thread scratch from the result, never from the request: a
 * request of 100000 threads used to make the OpenMP runtime and the
 * per-thread arrays fail (segfaults in fca, dbscan, birch and gemm). */
#ifndef PARAC_CORE_THREADS_H
#define PARAC_CORE_THREADS_H

/* The most threads one parallel region uses, whatever the machine: */
#define PARAC_THREADS_MAX 1024
/* ... and at most this many per core the OpenMP runtime sees (more threads
 * than that only add switching; results never depend on the count). */
#define PARAC_THREADS_PER_CORE_MAX 4

#ifdef __cplusplus
extern "C" {
#endif

/* The number of threads a parallel region should use for a request:
 * requested <= 0 means all cores (omp_get_num_procs); a larger request is
 * clamped to min(PARAC_THREADS_PER_CORE_MAX x cores, PARAC_THREADS_MAX).
 * Always in 1..PARAC_THREADS_MAX. */
int parac_threads_resolve(int requested);

/* Cores the OpenMP runtime sees (at least 1). */
int parac_threads_available(void);

/* The default thread count for a run starting now: requested when > 0, else this process's fair
 * share of the cores given the other work running at this moment (parac_threads_for_load): for
 * teams whose barriers are few (long loops of independent work, dbscan's), where the idle cores
 * alone left most of the fair share unused (issue 16: dbscan 15x slower than unloaded with every
 * core busy, 2.8x with the fair share). Busy = tasks running now (/proc/loadavg's
 * "running/total") less this process's own running threads (its OpenMP workers still spinning
 * after a region are not other work), scaled to the cores this process may use. Call it ONCE per
 * run and pass the number down: two calls may differ. */
int parac_threads_for_run(int requested);

/* The rule above for `cores` cores of which `busy` run other work: the fair share, cores x cores /
 * (cores + busy), at least 1 (on 2 cores: 1 thread when any core is busy). */
int parac_threads_for_load(int cores, int busy);

/* The default for a team in lockstep, one that meets at a barrier many times a second (birch's
 * commit phases): requested when > 0, else the idle cores (parac_threads_for_lockstep_load). Under
 * the fair share such a team waits at each barrier for a member the kernel has descheduled. Call it
 * once per run, like parac_threads_for_run. */
int parac_threads_for_lockstep_run(int requested);

/* cores - busy, at least 1. */
int parac_threads_for_lockstep_load(int cores, int busy);

#ifdef __cplusplus
}
#endif

#endif

/* dev/fca/02_per_thread.c — 01_shared_pool's OpenMP tasks with one cache-line-aligned worker per thread taken without a lock, and the pending counter alone on its line. Lost: 16 threads, random 200x100 d0.49 seed 1 (120.5 M concepts) 11.44 s against the shared pool's 4.71 s (docs/fca.md, round 2, H200); 35.0 M concepts 5.41 s against on_demand (auto) 1.488 s (run F); removed from src/ (PARAC_FCA_CPU_PER_THREAD, issue 20).
 *
 * Round 2 tried to remove the shared pool's two serial points on the task path (the pool lock, the
 * counter's line shared with it). Safe because OpenMP tasks are tied: a task run inline at a
 * scheduling point sits above the interrupted one on the same C stack, so the thread's worker
 * scratch is used strictly LIFO. Why it lost: it keeps what limits both versions, the runtime's one
 * task queue and the global spawn throttle read at every candidate child; the size of the gap
 * itself was never profiled. Scheduler: lab_omp_tasks.h, per_thread = 1.
 *
 * Check and table as 01_shared_pool.c (lab_fca.h). Arguments: --quick (the 8.09 M case only). */
#define PARAC_LAB_CPU_ONLY 1 /* dev/run runs it on a machine without a GPU too */

#include "lab_fca.h"
#include "lab_omp_tasks.h"

static parac_status per_thread(const fca_search *search, int threads, parac_fca_concepts *concepts, uint64_t *count,
                               parac_error *error)
{
    return omp_tasks_search(search, threads, 1, concepts, count, error);
}

int main(int argc, char **argv) { return lab_fca_main(argc, argv, "per_thread", per_thread); }

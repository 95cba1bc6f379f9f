/* dev/fca/01_shared_pool.c — FCbO on OpenMP tasks, each task borrowing a worker from one locked pool, spawned while fewer than 4 tasks per thread wait. Lost: 16 threads, random 200x100 d0.45 seed 1 (35.0 M concepts) 5.66 s against on_demand (auto) 1.488 s; mushroom 0.0501 s against work stealing's 0.0254 s (docs/fca.md, runs C and F, H200); removed from src/ (PARAC_FCA_CPU_SHARED_POOL, issue 20).
 *
 * The first parallel CPU search (the default until run C). Why it lost: every spawn decision reads
 * one global "fewer than 4 x threads tasks pending" counter and every task goes through the
 * runtime's one team-wide queue (libgomp: one lock) and the pool's lock, twice per task; an idle
 * thread takes whatever task is queued, not the largest subtree. The scheduler is
 * lab_omp_tasks.h (shared with 02_per_thread.c); this file runs it with the locked pool.
 *
 * Check, byte for byte (exit 1 on any difference): the concepts in canonical order against the
 * library's one-thread path on three random contexts, the counts on the timed ones. Then the
 * table beside the library's on_demand (lab_fca.h). Arguments: --quick (the 8.09 M case only). */
#define PARAC_LAB_CPU_ONLY 1 /* dev/run runs it on a machine without a GPU too */

#include "lab_fca.h"
#include "lab_omp_tasks.h"

static parac_status shared_pool(const fca_search *search, int threads, parac_fca_concepts *concepts, uint64_t *count,
                                parac_error *error)
{
    return omp_tasks_search(search, threads, 0, concepts, count, error);
}

int main(int argc, char **argv) { return lab_fca_main(argc, argv, "shared_pool", shared_pool); }

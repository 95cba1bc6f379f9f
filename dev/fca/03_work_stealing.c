/* dev/fca/03_work_stealing.c — on_demand's deques and thieves, but children copied out ahead: a thread keeps 2 queued tasks at all times, up to 8 while some thread is idle. Lost: 16 threads, 35.0 M concepts 2.390 s (8.9x one thread) and 120.5 M 7.107 s (9.2x) against on_demand (auto) 1.488 s (14.3x) and 5.157 s (12.7x); mushroom 0.0261 s against 0.0167 s (docs/fca.md, run F, H200); removed from src/ (PARAC_FCA_CPU_WORK_STEALING, issue 20).
 *
 * Round 3's scheduler (the default from run C to run F): it removed the shared pool's global parts
 * (a deque per thread, steal the oldest half, local spawn decisions). Why it lost to on_demand:
 * keeping 2 copies queued means every popped task causes a new copy (malloc ~1.7 kB, memcpy, lock,
 * the outstanding counter), and the queued copies are whatever child came next, often a small
 * subtree, so a thief that takes one is soon idle again, which switches every thread to the
 * 8-copies regime. on_demand copies only while a thread is idle, and then the pending child
 * nearest the root. Both run on the library's steal_team (src/fca/steal_team.h): this file is
 * only the other decision of when to copy, through the worker's spawn hook of fcbo_expand.
 *
 * Check and table as 01_shared_pool.c (lab_fca.h). Arguments: --quick (the 8.09 M case only). */
#define PARAC_LAB_CPU_ONLY 1 /* dev/run runs it on a machine without a GPU too */

#include "lab_fca.h"

#include "fca/steal_team.h"

#define SPAWN_LIMIT 8 /* queued tasks per thread while some thread is idle */
#define ALWAYS_KEEP 2 /* queued tasks per thread even when every thread is busy */

/* The spawn hook of every worker: queue the child on the own deque when it is worth it. */
static int spawn_ahead(fcbo_worker *worker, const fcbo_node *child)
{
    steal_thread *self = worker->spawn_data;
    size_t queued = steal_queued(self);
    if (child->next_attribute + STEAL_SMALLEST_TAIL > self->team->search->attributes) return 0;
    if (queued >= SPAWN_LIMIT) return 0;
    if (queued >= ALWAYS_KEEP && steal_idle_threads(self->team) == 0) return 0;
    return steal_team_queue(self, child);
}

static void expand_task(steal_thread *self, const fcbo_node *node)
{
    self->worker.spawn = spawn_ahead;
    self->worker.spawn_data = self;
    fcbo_expand(&self->worker, node);
}

static parac_status work_stealing(const fca_search *search, int threads, parac_fca_concepts *concepts,
                                  uint64_t *count, parac_error *error)
{
    const steal_policy policy = {expand_task, NULL};
    return steal_team_run(search, threads, &policy, concepts, count, error);
}

int main(int argc, char **argv) { return lab_fca_main(argc, argv, "work_stealing", work_stealing); }

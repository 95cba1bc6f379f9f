/* tests/core/test_timer_threads.c — monotonic timer, thread counts, progress bar. */
#include <omp.h>
#include <string.h>
#include <time.h>

#include "core/progress.h"
#include "core/threads.h"
#include "core/timer.h"
#include "test_util.h"

static void check_timer(void)
{
    double start = parac_now_seconds(), previous = start, now;
    struct timespec pause = {0, 20 * 1000 * 1000};
    int backwards = 0;
    for (int i = 0; i < 100000; i++) {
        now = parac_now_seconds();
        backwards += now < previous;
        previous = now;
    }
    CHECK_EQ_INT(backwards, 0);
    start = parac_now_seconds();
    nanosleep(&pause, NULL);
    now = parac_now_seconds();
    CHECK(now - start >= 0.019 && now - start < 2.0, "a 20 ms sleep measured %g s", now - start);
}

static void check_threads(void)
{
    int available = parac_threads_available(), seen = 0;
    CHECK(available >= 1);
    CHECK_EQ_INT(available, omp_get_num_procs());
    CHECK_EQ_INT(parac_threads_resolve(0), available);
    CHECK_EQ_INT(parac_threads_resolve(-3), available);
    CHECK_EQ_INT(parac_threads_resolve(1), 1);
    CHECK_EQ_INT(parac_threads_resolve(2), 2);
    /* Requests past 4 per core or 1024 are clamped (issue 15: 100000 segfaulted). */
    {
        int limit = available * PARAC_THREADS_PER_CORE_MAX < PARAC_THREADS_MAX ? available * PARAC_THREADS_PER_CORE_MAX
                                                                              : PARAC_THREADS_MAX;
        CHECK_EQ_INT(parac_threads_resolve(limit), limit);
        CHECK_EQ_INT(parac_threads_resolve(limit + 1), limit);
        CHECK_EQ_INT(parac_threads_resolve(100000), limit);
        CHECK_EQ_INT(parac_threads_resolve(2147483647), limit);
        CHECK(parac_threads_resolve(0) <= PARAC_THREADS_MAX);
    }
    /* The resolved count really is what a region with num_threads gets. */
#pragma omp parallel num_threads(parac_threads_resolve(3))
    {
#pragma omp single
        seen = omp_get_num_threads();
    }
    CHECK(seen == 3 || (seen >= 1 && omp_get_dynamic()), "region had %d threads", seen);
}

static void check_progress_off(void)
{
    parac_progress_bar bar;
    parac_progress_start(&bar, "test", 0);
    CHECK_EQ_INT(bar.active, 0);
    parac_progress_update(&bar, 5, 10); /* inactive: draws nothing, must not crash */
    parac_progress_update(NULL, 5, 10);
    parac_progress_finish(&bar);
    CHECK_EQ_INT(bar.drawn, 0);
}

int main(void)
{
    check_timer();
    check_threads();
    check_progress_off();
    return test_finish("core.timer_threads");
}

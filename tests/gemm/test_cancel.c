/* tests/gemm/test_cancel.c — the CPU gemm path reports progress from one thread at a time, ends on
 * total/total, gives the same bits with a callback, and stops with PARAC_ERR_CANCELLED soon after
 * the callback asks. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <parac/gemm.h>

#include "core/timer.h"
#include "support_gemm.h"
#include "test_util.h"

typedef struct watcher {
    atomic_int calls, inside, overlapped;
    int cancel, mid_run;
    uint64_t last_done, last_total;
    double answered_at;
} watcher;

static int watch(void *user_data, uint64_t done, uint64_t total)
{
    watcher *w = user_data;
    if (atomic_fetch_add(&w->inside, 1)) atomic_fetch_add(&w->overlapped, 1);
    atomic_fetch_add(&w->calls, 1);
    if (done < total) w->mid_run++;
    w->last_done = done;
    w->last_total = total;
    if (w->cancel && w->answered_at == 0.0) w->answered_at = parac_now_seconds();
    atomic_fetch_sub(&w->inside, 1);
    return w->cancel;
}

static parac_status run(parac_gemm_options *o, watcher *w, const float *a, const float *b, float *c, double *seconds,
                        parac_error *error)
{
    parac_gemm_plan *plan = NULL;
    parac_status status;
    double started;
    o->exec.progress = w ? watch : NULL;
    o->exec.progress_user_data = w;
    status = parac_gemm_plan_create(o, &plan, error);
    started = parac_now_seconds();
    if (status == PARAC_OK) status = parac_gemm_execute(plan, 1.0f, a, b, 0.0f, c, error);
    *seconds = parac_now_seconds() - started;
    parac_gemm_plan_destroy(plan);
    return status;
}

int main(void)
{
    parac_gemm_options o;
    parac_error error;
    watcher w;
    float *a, *b, *plain, *watched;
    double seconds, ignored, stopped;
    parac_status status;
    memset(&o, 0, sizeof o);
    o.exec.device = PARAC_DEVICE_CPU;
    o.exec.threads = 4;
    o.m = o.n = o.k = 2048; /* a second or so on 4 cores */
    a = support_random(1, PARAC_GEMM_ROW_MAJOR, o.m, o.k, 0);
    b = support_random(2, PARAC_GEMM_ROW_MAJOR, o.k, o.n, 0);
    plain = calloc((size_t)(o.m * o.n), sizeof(float));
    watched = calloc((size_t)(o.m * o.n), sizeof(float));
    CHECK_OK(run(&o, NULL, a, b, plain, &seconds, &error), &error);
    memset(&w, 0, sizeof w);
    CHECK_OK(run(&o, &w, a, b, watched, &ignored, &error), &error);
    CHECK(memcmp(plain, watched, (size_t)(o.m * o.n) * sizeof(float)) == 0, "a progress callback changed C");
    CHECK(atomic_load(&w.calls) >= 1 && w.last_done == w.last_total && w.last_total > 0, "no final report");
    CHECK_EQ_INT(atomic_load(&w.overlapped), 0);
    if (seconds < 0.3) {
        printf("gemm: %.3f s, too fast to test the cancel checkpoint here\n", seconds);
    } else {
        memset(&w, 0, sizeof w);
        w.cancel = 1;
        status = run(&o, &w, a, b, watched, &ignored, &error);
        stopped = parac_now_seconds();
        CHECK(status == PARAC_ERR_CANCELLED, "status %d, not cancelled", (int)status);
        CHECK(atomic_load(&w.calls) == 1 && w.mid_run == 1, "%d calls, %d mid-run", atomic_load(&w.calls), w.mid_run);
        CHECK(stopped - w.answered_at < 0.1 + seconds / 4, "ran %.3f s on after the cancel (a run: %.3f s)",
              stopped - w.answered_at, seconds);
    }
    free(a);
    free(b);
    free(plain);
    free(watched);
    return test_finish("gemm_cancel");
}

/* tests/fca/test_fca_progress.c — fca's progress and cancel checkpoints on every CPU path:
 * done never decreases and never passes total, the last report is total/total, a callback changes
 * no result, and a non-zero answer stops the search with PARAC_ERR_CANCELLED (soon, on every thread). */
#include <stdatomic.h>
#include <string.h>

#include <parac/fca.h>

#include "core/timer.h"
#include "test_util.h"

typedef struct watcher {
    atomic_int calls;
    atomic_int inside, overlapped;
    uint64_t last_done, last_total;
    int went_back, above_total;
    int cancel_at; /* answer non-zero from this call on (0: never) */
    double cancelled_at;
} watcher;

static int watch(void *user_data, uint64_t done, uint64_t total)
{
    watcher *w = user_data;
    int call;
    if (atomic_fetch_add(&w->inside, 1)) atomic_fetch_add(&w->overlapped, 1);
    call = atomic_fetch_add(&w->calls, 1) + 1;
    if (done < w->last_done) w->went_back = 1;
    if (done > total) w->above_total = 1;
    w->last_done = done;
    w->last_total = total;
    atomic_fetch_sub(&w->inside, 1);
    if (w->cancel_at && call >= w->cancel_at) {
        if (w->cancelled_at == 0.0) w->cancelled_at = parac_now_seconds();
        return 1;
    }
    return 0;
}

typedef struct path {
    const char *name;
    int threads;
    parac_fca_cpu_strategy strategy;
} path;

static const path PATHS[] = {
    {"serial", 1, PARAC_FCA_CPU_AUTO},   {"on-demand", 4, PARAC_FCA_CPU_ON_DEMAND},
    {"sparse", 1, PARAC_FCA_CPU_SPARSE}, {"sparse-parallel", 4, PARAC_FCA_CPU_SPARSE},
};

static parac_fca_options options_for(const path *p, watcher *w)
{
    parac_fca_options options;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = p->threads;
    options.cpu_strategy = p->strategy;
    if (w) {
        options.exec.progress = watch;
        options.exec.progress_user_data = w;
    }
    return options;
}

/* A full run reports monotone progress ending at total/total and counts what a silent run counts. */
static void check_reports(const parac_fca_context *context, const path *p, uint64_t expected)
{
    watcher w;
    parac_fca_options options;
    parac_error error;
    uint64_t count = 0;
    memset(&w, 0, sizeof w);
    options = options_for(p, &w);
    CHECK_OK(parac_fca_count(context, &options, &count, &error), &error);
    CHECK(count == expected, "%s: %llu concepts with a callback, %llu without", p->name, (unsigned long long)count,
          (unsigned long long)expected);
    CHECK(atomic_load(&w.calls) >= 1, "%s: no report", p->name);
    CHECK(w.last_total > 0 && w.last_done == w.last_total, "%s: last report %llu / %llu", p->name,
          (unsigned long long)w.last_done, (unsigned long long)w.last_total);
    CHECK(!w.went_back, "%s: done went back", p->name);
    CHECK(!w.above_total, "%s: done above total", p->name);
    CHECK(atomic_load(&w.overlapped) == 0, "%s: two threads in the callback at once", p->name);
}

/* Cancelling at the first report (after ~0.1 s) stops the run within a fraction of a second. */
static void check_cancel(const parac_fca_context *context, const path *p, double full_seconds)
{
    watcher w;
    parac_fca_options options;
    parac_fca_concepts *concepts = NULL;
    parac_error error;
    parac_status status;
    double stopped;
    memset(&w, 0, sizeof w);
    w.cancel_at = 1;
    options = options_for(p, &w);
    status = parac_fca_compute(context, &options, &concepts, &error);
    stopped = parac_now_seconds();
    CHECK(status == PARAC_ERR_CANCELLED, "%s: status %d (%s), not cancelled", p->name, (int)status, error.message);
    CHECK(concepts == NULL, "%s: a cancelled run returned concepts", p->name);
    CHECK(atomic_load(&w.calls) == 1, "%s: %d reports after the cancel", p->name, atomic_load(&w.calls) - 1);
    CHECK(w.cancelled_at > 0.0 && stopped - w.cancelled_at < 0.5 + full_seconds / 4,
          "%s: ran %.3f s on after the cancel (a full run takes %.3f s)", p->name, stopped - w.cancelled_at,
          full_seconds);
    parac_fca_concepts_destroy(concepts);
}

int main(void)
{
    parac_fca_context *context = NULL;
    parac_error error;
    parac_fca_options silent;
    uint64_t expected = 0;
    double started, full_seconds;
    /* ~0.4 s on one core: long enough for several reports */
    CHECK_OK(parac_fca_context_random(2000, 90, 0.15, 3, &context, &error), &error);
    if (!context) return test_finish("fca_progress");
    memset(&silent, 0, sizeof silent);
    silent.exec.device = PARAC_DEVICE_CPU;
    silent.exec.threads = 1;
    started = parac_now_seconds();
    CHECK_OK(parac_fca_count(context, &silent, &expected, &error), &error);
    full_seconds = parac_now_seconds() - started;
    for (size_t i = 0; i < sizeof PATHS / sizeof PATHS[0]; i++) {
        check_reports(context, &PATHS[i], expected);
        check_cancel(context, &PATHS[i], full_seconds);
    }
    parac_fca_context_destroy(context);
    return test_finish("fca_progress");
}

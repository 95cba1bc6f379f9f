/* tests/core/test_progress_gate.c — the shared progress gate: one reporter at a time, done never
 * above total, a sticky cancel seen by every thread, a final total/total report, a first report at
 * once (report_now), a serial loop's absolute position (poll_at) and a total set between phases. */
#include <omp.h>
#include <stdatomic.h>
#include <time.h>

#include "core/progress.h"
#include "core/timer.h"
#include "test_util.h"

typedef struct recorder {
    atomic_int inside;      /* threads inside the callback right now */
    atomic_int overlapped;  /* times two were inside at once */
    atomic_int calls;
    int cancel_after;       /* answer non-zero from this call on (0: never) */
    uint64_t last_done, last_total;
    int done_above_total;
} recorder;

static int record(void *user_data, uint64_t done, uint64_t total)
{
    recorder *r = user_data;
    int calls;
    if (atomic_fetch_add(&r->inside, 1) != 0) atomic_fetch_add(&r->overlapped, 1);
    calls = atomic_fetch_add(&r->calls, 1) + 1;
    if (done > total) r->done_above_total = 1;
    r->last_done = done;
    r->last_total = total;
    /* Stay inside a while so an overlap would show. */
    for (volatile int spin = 0; spin < 20000; spin++) {}
    atomic_fetch_sub(&r->inside, 1);
    return r->cancel_after && calls >= r->cancel_after;
}

static void sleep_ms(long ms)
{
    struct timespec pause = {0, ms * 1000000L};
    nanosleep(&pause, NULL);
}

/* Four threads add units for ~0.6 s: several reports, never two at once, then total/total. */
static void check_reports_one_at_a_time(void)
{
    recorder r = {0};
    parac_exec exec = {0};
    parac_progress_gate gate;
    const uint64_t total = 4 * 60;
    exec.progress = record;
    exec.progress_user_data = &r;
    double started = parac_now_seconds(), elapsed;
    parac_progress_gate_init(&gate, &exec, total);
#pragma omp parallel for num_threads(4) schedule(static, 1)
    for (int i = 0; i < (int)total; i++) {
        sleep_ms(10);
        parac_progress_gate_add(&gate, 1);
        parac_progress_gate_poll(&gate);
    }
    elapsed = parac_now_seconds() - started;
    CHECK(atomic_load(&r.calls) >= 2, "only %d reports in %.2f s", atomic_load(&r.calls), elapsed);
    CHECK(atomic_load(&r.calls) <= (int)(elapsed / 0.1) + 1, "%d reports in %.2f s: not rate-limited",
          atomic_load(&r.calls), elapsed);
    CHECK_EQ_INT(atomic_load(&r.overlapped), 0);
    CHECK(r.last_done < total, "a report of total/total before the end");
    CHECK(parac_progress_gate_finish(&gate) == 0, "finish cancelled");
    CHECK_EQ_INT(r.last_done, total);
    CHECK_EQ_INT(r.last_total, total);
    CHECK_EQ_INT(r.done_above_total, 0);
}

/* The callback's first non-zero answer stops every thread soon and stays. */
static void check_cancel_is_sticky(void)
{
    recorder r = {0};
    parac_exec exec = {0};
    parac_progress_gate gate;
    atomic_int finished_after_cancel = 0;
    const int total = 4 * 1000;
    r.cancel_after = 1;
    exec.progress = record;
    exec.progress_user_data = &r;
    parac_progress_gate_init(&gate, &exec, (uint64_t)total);
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
    for (int i = 0; i < total; i++) {
        if (parac_progress_gate_cancelled(&gate)) continue;
        sleep_ms(1);
        if (parac_progress_gate_add(&gate, 1)) atomic_fetch_add(&finished_after_cancel, 1);
    }
    CHECK(parac_progress_gate_cancelled(&gate), "not cancelled");
    CHECK_EQ_INT(atomic_load(&r.calls), 1); /* no report after the cancel */
    CHECK(atomic_load(&gate.done) < (uint64_t)total / 2, "ran on after the cancel: %llu units",
          (unsigned long long)atomic_load(&gate.done));
    CHECK(parac_progress_gate_finish(&gate) == 1, "finish forgot the cancel");
    CHECK(parac_progress_gate_poll(&gate) == 1, "poll forgot the cancel");
    CHECK_EQ_INT(atomic_load(&r.calls), 1);
}

/* Without a callback the gate only counts and never cancels. */
static void check_no_callback(void)
{
    parac_progress_gate gate;
    parac_progress_gate_init(&gate, NULL, 10);
    /* (CHECK_EQ_INT evaluates its arguments twice: no calls inside it) */
    CHECK(parac_progress_gate_add(&gate, 3) == 0, "add cancelled");
    CHECK(parac_progress_gate_poll(&gate) == 0, "poll cancelled");
    CHECK(parac_progress_gate_finish(&gate) == 0, "finish cancelled");
    CHECK_EQ_INT(atomic_load(&gate.done), 3);
}

/* The first report of a short run: report_now calls the callback before the interval is over, and
 * the next interval starts from it. */
static void check_report_now(void)
{
    recorder r = {0};
    parac_exec exec = {0};
    parac_progress_gate gate;
    exec.progress = record;
    exec.progress_user_data = &r;
    parac_progress_gate_init(&gate, &exec, 10);
    CHECK(parac_progress_gate_add(&gate, 1) == 0, "add cancelled");
    CHECK_EQ_INT(atomic_load(&r.calls), 0); /* within the interval: no report yet */
    CHECK(parac_progress_gate_report_now(&gate) == 0, "report_now cancelled");
    CHECK_EQ_INT(atomic_load(&r.calls), 1);
    CHECK_EQ_INT(r.last_done, 1);
    CHECK(parac_progress_gate_poll(&gate) == 0, "poll cancelled");
    CHECK_EQ_INT(atomic_load(&r.calls), 1); /* a new interval began at the report */
    /* A callback that cancels at once: report_now says so, and so does every later call. */
    r.cancel_after = 2;
    CHECK(parac_progress_gate_report_now(&gate) == 1, "report_now missed the cancel");
    CHECK(parac_progress_gate_cancelled(&gate), "not cancelled");
    CHECK(parac_progress_gate_report_now(&gate) == 1, "report_now forgot the cancel");
    CHECK_EQ_INT(atomic_load(&r.calls), 2);
}

/* A serial loop's absolute position (phases as offsets) and a total that grows between phases:
 * reports see the position set, never above total and never total itself before finish. */
static void check_poll_at_and_set_total(void)
{
    recorder r = {0};
    parac_exec exec = {0};
    parac_progress_gate gate;
    exec.progress = record;
    exec.progress_user_data = &r;
    parac_progress_gate_init(&gate, &exec, 7);
    parac_progress_gate_set(&gate, 5);
    CHECK(parac_progress_gate_report_now(&gate) == 0, "report_now cancelled");
    CHECK_EQ_INT(r.last_done, 5);
    CHECK_EQ_INT(r.last_total, 7);
    sleep_ms(110);
    CHECK(parac_progress_gate_poll_at(&gate, 9) == 0, "poll_at cancelled"); /* past total: shown as total - 1 */
    CHECK_EQ_INT(atomic_load(&r.calls), 2);
    CHECK_EQ_INT(r.last_done, 6);
    parac_progress_gate_set_total(&gate, 21); /* e.g. two more slabs of 7 phases */
    sleep_ms(110);
    CHECK(parac_progress_gate_add(&gate, 3) == 0, "add cancelled");
    CHECK_EQ_INT(atomic_load(&r.calls), 3);
    CHECK_EQ_INT(r.last_done, 12);
    CHECK_EQ_INT(r.last_total, 21);
    CHECK(parac_progress_gate_finish(&gate) == 0, "finish cancelled");
    CHECK_EQ_INT(r.last_done, 21);
    CHECK_EQ_INT(r.done_above_total, 0);
}

int main(void)
{
    check_reports_one_at_a_time();
    check_cancel_is_sticky();
    check_no_callback();
    check_report_now();
    check_poll_at_and_set_total();
    return test_finish("progress_gate");
}

/* core/progress.c — "label [#####     ]  52%  3.1 s" redrawn in place. */
#include "core/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/timer.h"

#define BAR_WIDTH 30

void parac_progress_start(parac_progress_bar *bar, const char *label, int enabled)
{
    bar->label = label ? label : "";
    bar->active = enabled && isatty(fileno(stderr));
    bar->started = parac_now_seconds();
    bar->last_draw = 0.0;
    bar->drawn = 0;
}

int parac_progress_update(void *user_data, uint64_t done, uint64_t total)
{
    parac_progress_bar *bar = user_data;
    double now, fraction;
    char cells[BAR_WIDTH + 1];
    int filled;
    if (!bar || !bar->active) return 0;
    if (total && done >= total) {
        parac_progress_finish(bar);
        return 0;
    }
    now = parac_now_seconds();
    if (bar->drawn && now - bar->last_draw < 0.1 && done < total) return 0;
    fraction = total ? (double)done / (double)total : 0.0;
    if (fraction > 1.0) fraction = 1.0;
    filled = (int)(fraction * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++) cells[i] = i < filled ? '#' : ' ';
    cells[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r%s [%s] %3d%% %6.1f s", bar->label, cells, (int)(fraction * 100.0), now - bar->started);
    fflush(stderr);
    bar->last_draw = now;
    bar->drawn = 1;
    return 0;
}

void parac_progress_finish(parac_progress_bar *bar)
{
    if (!bar || !bar->active || !bar->drawn) return;
    fprintf(stderr, "\r%*s\r", BAR_WIDTH + 40, "");
    fflush(stderr);
    bar->drawn = 0;
}

/* --- parac_progress_gate ------------------------------------------------------------------- */

static uint64_t monotonic_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

void parac_progress_gate_init(parac_progress_gate *gate, const parac_exec *exec, uint64_t total)
{
    gate->callback = exec ? exec->progress : NULL;
    gate->user_data = exec ? exec->progress_user_data : NULL;
    gate->total = total;
    atomic_init(&gate->done, 0);
    atomic_init(&gate->next_report_ns, monotonic_ns() + PARAC_PROGRESS_INTERVAL_NS);
    atomic_init(&gate->reporting, 0);
    atomic_init(&gate->cancelled, 0);
}

/* Calls the callback if the interval has passed and no other thread is in it. The clock read is
 * the expensive part (tens of ns), so callers that add tiny units still only pay for it here. */
static int report_if_due(parac_progress_gate *gate)
{
    uint64_t now, due, done;
    if (atomic_load_explicit(&gate->cancelled, memory_order_relaxed)) return 1;
    if (!gate->callback) return 0;
    now = monotonic_ns();
    due = atomic_load_explicit(&gate->next_report_ns, memory_order_relaxed);
    if (now < due) return 0;
    if (atomic_exchange_explicit(&gate->reporting, 1, memory_order_acquire)) return 0; /* someone else reports */
    atomic_store_explicit(&gate->next_report_ns, now + PARAC_PROGRESS_INTERVAL_NS, memory_order_relaxed);
    done = atomic_load_explicit(&gate->done, memory_order_relaxed);
    if (done > gate->total) done = gate->total;
    /* done < total here: a report of total/total means "finished" to the bar, which the
     * finish call alone may say. */
    if (done >= gate->total && gate->total) done = gate->total - 1;
    if (gate->callback(gate->user_data, done, gate->total)) atomic_store(&gate->cancelled, 1);
    atomic_store_explicit(&gate->reporting, 0, memory_order_release);
    return atomic_load_explicit(&gate->cancelled, memory_order_relaxed);
}

int parac_progress_gate_add(parac_progress_gate *gate, uint64_t units)
{
    atomic_fetch_add_explicit(&gate->done, units, memory_order_relaxed);
    return report_if_due(gate);
}

/* The credit's units to the gate; the next interval starts. */
static int hand_over(parac_progress_gate *gate, parac_progress_credit *credit, uint64_t now)
{
    int cancelled = parac_progress_gate_add(gate, credit->units);
    credit->units = 0;
    credit->additions = 0;
    credit->handed_ns = now;
    return cancelled;
}

/* 1 when PARAC_PROGRESS_CREDIT_NS passed since the credit was last handed over (starts its clock). */
static int credit_due(parac_progress_credit *credit, uint64_t now)
{
    if (!credit->handed_ns) credit->handed_ns = now;
    return now - credit->handed_ns >= PARAC_PROGRESS_CREDIT_NS;
}

int parac_progress_credit_add(parac_progress_gate *gate, parac_progress_credit *credit, uint64_t units)
{
    uint64_t now;
    credit->units += units;
    if (++credit->additions % PARAC_PROGRESS_CREDIT_CLOCK != 0) return 0;
    now = monotonic_ns();
    return credit->additions >= PARAC_PROGRESS_CREDIT_STRIDE || credit_due(credit, now) ? hand_over(gate, credit, now) : 0;
}

int parac_progress_credit_poll(parac_progress_gate *gate, parac_progress_credit *credit)
{
    uint64_t now = monotonic_ns();
    return credit_due(credit, now) ? hand_over(gate, credit, now) : atomic_load_explicit(&gate->cancelled, memory_order_relaxed);
}

int parac_progress_gate_poll(parac_progress_gate *gate)
{
    return report_if_due(gate);
}

int parac_progress_gate_report_now(parac_progress_gate *gate)
{
    atomic_store_explicit(&gate->next_report_ns, 0, memory_order_relaxed);
    return report_if_due(gate);
}

void parac_progress_gate_set_total(parac_progress_gate *gate, uint64_t total)
{
    gate->total = total;
}

int parac_progress_gate_finish(parac_progress_gate *gate)
{
    if (atomic_load(&gate->cancelled)) return 1;
    if (gate->callback && gate->callback(gate->user_data, gate->total, gate->total)) atomic_store(&gate->cancelled, 1);
    return atomic_load(&gate->cancelled);
}

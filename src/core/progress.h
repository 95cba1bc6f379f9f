/* core/progress.h — progress and cancel: the library's one mechanism (parac_report_progress for a
 * plain serial loop, parac_progress_gate for everything else, below) and the CLI's progress bar.
 *
 * The bar on stderr for long runs is drawn only when enabled and stderr is a terminal; redraws at most ten times
 * a second so it costs nothing measurable. Its update function matches
 * parac_progress_fn, so it can be handed straight to the library.
 */
#ifndef PARAC_CORE_PROGRESS_H
#define PARAC_CORE_PROGRESS_H

#include <stdint.h>

#include <parac/exec.h>

typedef struct parac_progress_bar {
    const char *label;
    int active;          /* enabled and stderr is a TTY */
    double started;
    double last_draw;
    int drawn;
} parac_progress_bar;

/* enabled = 0 (e.g. --quiet) turns the bar off whatever stderr is. */
void parac_progress_start(parac_progress_bar *bar, const char *label, int enabled);
/* parac_progress_fn-compatible: user_data is the bar. done >= total erases the bar,
 * so output printed after a finished run starts on a clean line. */
int parac_progress_update(void *user_data, uint64_t done, uint64_t total);
/* Erases the bar's line. */
void parac_progress_finish(parac_progress_bar *bar);

/* What library code calls in its long loops: forwards to the caller's callback, if any, and
 * returns non-zero when the caller asked to stop (the run then returns PARAC_ERR_CANCELLED).
 * Serial loops only; parallel work shares a parac_progress_gate (below). */
static inline int parac_report_progress(const parac_exec *exec, uint64_t done, uint64_t total)
{
    return exec && exec->progress ? exec->progress(exec->progress_user_data, done, total) : 0;
}

/* --- progress shared by the threads of one run -----------------------------------------------
 *
 * The callback may be called by one thread at a time only, a few times a second, yet every worker
 * must stop soon after a cancel. A gate does both: workers add finished units with
 * parac_progress_gate_add (cheap: one atomic add and one clock read), and the
 * first one past the report interval to take the gate's try-lock calls the callback. A non-zero
 * answer sets the gate's sticky `cancelled` flag, which every worker polls for the price of a
 * relaxed load (parac_progress_gate_cancelled) and then unwinds; the run returns
 * PARAC_ERR_CANCELLED. Deep loops that finish no unit for a long time call
 * parac_progress_gate_poll every few thousand steps so a cancel is still seen within ~0.1 s.
 *
 * Usage:
 *     parac_progress_gate gate;
 *     parac_progress_gate_init(&gate, &options->exec, branch_count);
 *     #pragma omp parallel for
 *     for (...) { if (parac_progress_gate_cancelled(&gate)) continue; work(); parac_progress_gate_add(&gate, 1); }
 *     if (parac_progress_gate_finish(&gate)) return cancelled;   // reports total/total once more
 *
 * A serial loop that knows where it is (done points of a pass, phase * n + i for phases) calls
 * parac_progress_gate_poll_at(&gate, done) instead of counting. Runs that must report even when short
 * (dbscan, birch, silhouette: their callers and tests count on one report per run, and a cancel asked for
 * before the run began stops it before any work) call parac_progress_gate_report_now once at the start.
 *
 * Not for CUDA translation units (C11 atomics); a .cu host loop gets the gate by pointer and calls
 * the functions (they are plain extern "C" when seen from C++). */
#define PARAC_PROGRESS_INTERVAL_NS 100000000ull /* 0.1 s between callback calls */

/* A worker's credits on their way to a gate, for workers that finish units far more often than the
 * gate should be visited (a search's nodes): summed locally and handed over every
 * PARAC_PROGRESS_CREDIT_STRIDE additions, or after fewer once PARAC_PROGRESS_CREDIT_NS has passed (the
 * clock is read every PARAC_PROGRESS_CREDIT_CLOCK additions). By count alone, where a unit takes
 * milliseconds (an fca node of a context with tens of thousands of attributes), a cancel waited for
 * 256 of them: 15-20 s after SIGTERM (2026-12-05). Zero-initialise; one per worker. */
#define PARAC_PROGRESS_CREDIT_STRIDE 256
#define PARAC_PROGRESS_CREDIT_CLOCK 16
#define PARAC_PROGRESS_CREDIT_NS 20000000ull /* 20 ms */
typedef struct parac_progress_credit {
    uint64_t units;
    unsigned additions;
    uint64_t handed_ns; /* when the gate was last visited (0: not yet timed) */
} parac_progress_credit;

#ifndef __cplusplus
#include <stdatomic.h>

typedef struct parac_progress_gate {
    parac_progress_fn callback; /* NULL: counting only, never cancelled */
    void *user_data;
    uint64_t total;
    _Alignas(64) _Atomic uint64_t done; /* written by every worker: its own cache line */
    _Atomic uint64_t next_report_ns; /* monotonic time of the next allowed report */
    atomic_int reporting;            /* try-lock: the one thread inside the callback */
    _Alignas(64) atomic_int cancelled; /* sticky: set once the callback returned non-zero; read often */
} parac_progress_gate;

/* Binds the gate to exec's callback (exec may be NULL) for `total` units of work. */
void parac_progress_gate_init(parac_progress_gate *gate, const parac_exec *exec, uint64_t total);

/* Non-zero once the run was cancelled; costs one relaxed load, call it as often as you like. */
static inline int parac_progress_gate_cancelled(parac_progress_gate *gate)
{
    return atomic_load_explicit(&gate->cancelled, memory_order_relaxed);
}


/* For a serial loop that knows where it is rather than what it finished (a pass over the variables
 * that starts again at 0 on the next pass): sets done; reports happen at the next add or poll. */
static inline void parac_progress_gate_set(parac_progress_gate *gate, uint64_t done)
{
    atomic_store_explicit(&gate->done, done, memory_order_relaxed);
}
#else
typedef struct parac_progress_gate parac_progress_gate;
extern "C" {
#endif

/* Adds `units` finished units and reports when due; non-zero once cancelled. Any thread. */
int parac_progress_gate_add(parac_progress_gate *gate, uint64_t units);
/* Adds `units` to the worker's credit, handing the sum to the gate when due (above); non-zero when it
 * visited the gate and the run was cancelled. */
int parac_progress_credit_add(parac_progress_gate *gate, parac_progress_credit *credit, uint64_t units);
/* For a long stretch inside one unit (a node with tens of thousands of candidates): hands the credit
 * over if PARAC_PROGRESS_CREDIT_NS passed (one clock read); non-zero once the run was cancelled. Call
 * it every few dozen steps. */
int parac_progress_credit_poll(parac_progress_gate *gate, parac_progress_credit *credit);
/* Reports when due without adding work (long stretches between units); non-zero once cancelled. */
int parac_progress_gate_poll(parac_progress_gate *gate);
/* From one thread, while no other reports (before the parallel part): reports done now, whatever the
 * interval, and starts the next interval; non-zero once cancelled. */
int parac_progress_gate_report_now(parac_progress_gate *gate);
/* From one thread, between parallel parts: the run turned out to hold `total` units (a GPU run cut
 * into more slabs after it ran out of memory); done stays as it is. */
void parac_progress_gate_set_total(parac_progress_gate *gate, uint64_t total);
/* After the parallel part, from one thread: reports done = total (the bar erases itself) unless
 * cancelled; non-zero when the run was cancelled (or the final report asks to stop). */
int parac_progress_gate_finish(parac_progress_gate *gate);

#ifdef __cplusplus
}
#else
/* A serial loop's checkpoint: sets done (the units finished so far) and reports when due; non-zero
 * once cancelled. */
static inline int parac_progress_gate_poll_at(parac_progress_gate *gate, uint64_t done)
{
    parac_progress_gate_set(gate, done);
    return parac_progress_gate_poll(gate);
}
#endif

#endif

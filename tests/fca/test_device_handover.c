/* tests/fca/test_device_handover.c — --device auto's watcher of the CPU search (fca/device_handover.c):
 * the decision itself (short projected runs stay, long ones go, no progress decides nothing, fewer
 * threads make the CPU look slower), the watcher as the gate calls it (the caller's callback first and
 * its cancel obeyed, no handover without a usable GPU, the reason line for each outcome), and what a
 * handover relies on: a spilled concept stream can be cleared and refilled. Runs everywhere: the
 * handover itself, on a GPU, is fca.device_handover_gpu. */
#include <string.h>
#include <time.h>

#include <parac/devices.h>
#include <parac/fca.h>

#include "core/timer.h"
#include "fca/concept_stream.h"
#include "fca/device_handover.h"
#include "fca/fca_internal.h"
#include "test_util.h"

static void check_decision(void)
{
    double left, gpu, left2, gpu2;
    /* 90 % of the tree in 0.1 s: 0.011 s left, far below any GPU start-up */
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.1, 0.9, 16, 1e4, &left, &gpu), 0);
    CHECK(left > 0.0111 && left < 0.0112 && gpu > 0.38, "left %g gpu %g", left, gpu);
    /* 1 % in 0.1 s: 9.9 s left on the CPU, the GPU's start-up plus a ninth of the work is less */
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.1, 0.01, 16, 1e4, &left, &gpu), 1);
    CHECK(left > 9.89 && left < 9.91 && gpu < left / 2 && gpu > 0.38, "left %g gpu %g", left, gpu);
    /* nothing credited yet (or no time): no projection, no decision */
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.1, 0.0, 16, 1e4, &left, &gpu), 0);
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.0, 0.5, 16, 1e4, &left, &gpu), 0);
    /* the same measured CPU time on 2 threads is an eighth of 16 threads' work: the GPU's share is less */
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.1, 0.05, 16, 1e4, &left, &gpu), 1);
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.1, 0.05, 2, 1e4, &left2, &gpu2), 1);
    CHECK(left == left2 && gpu2 < gpu, "2 threads: gpu %g, 16: %g", gpu2, gpu);
    /* near the crossover (a 1 s run on 16 threads, the GPU about 0.54 s): 0.5 s left stays, 0.7 s goes */
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.5, 0.5, 16, 1e4, &left, &gpu), 0);
    CHECK(gpu > 0.5 && gpu < 0.6, "gpu %g", gpu);
    CHECK_EQ_INT(fca_handover_prefers_gpu(0.3, 0.3, 16, 1e4, &left, &gpu), 1);
}

typedef struct caller {
    int calls, stop;
    uint64_t last_done;
} caller;

static int caller_progress(void *user_data, uint64_t done, uint64_t total)
{
    caller *c = user_data;
    (void)total;
    c->calls++;
    c->last_done = done;
    return c->stop;
}

/* One report to the watcher, as the gate makes it (CHECK_EQ_INT evaluates its arguments twice). */
static int report(fca_handover *handover, uint64_t done, uint64_t total)
{
    return handover->exec.progress(handover->exec.progress_user_data, done, total);
}

static void check_watcher(void)
{
    int answer;
    parac_device_choice chosen;
    parac_exec exec;
    fca_handover handover;
    caller c = {0, 0, 0};
    int gpus = parac_cuda_device_count(NULL, 0);
    memset(&exec, 0, sizeof exec);
    exec.progress = caller_progress;
    exec.progress_user_data = &c;
    exec.chosen = &chosen;

    /* ended before any report */
    fca_handover_begin(&handover, &exec, 4, 1e4);
    CHECK(handover.exec.progress != caller_progress && handover.exec.progress_user_data == &handover, "watcher installed");
    fca_handover_record(&handover, &exec);
    CHECK_EQ_INT(chosen.device, PARAC_DEVICE_CPU);
    CHECK(strstr(chosen.reason, "with no progress report to decide on") != NULL, "%s", chosen.reason);

    /* 60 % after 0.1 s: stays; the caller saw the report */
    fca_handover_begin(&handover, &exec, 4, 1e4);
    handover.started = parac_now_seconds() - 0.1;
    answer = report(&handover, 600, 1000);
    CHECK_EQ_INT(answer, 0);
    CHECK(c.calls == 1 && c.last_done == 600, "caller called first: %d calls, done %llu", c.calls,
          (unsigned long long)c.last_done);
    CHECK(!handover.wants_gpu && !handover.handed_over && handover.decisions == 1, "stays");
    fca_handover_record(&handover, &exec);
    CHECK_EQ_INT(chosen.device, PARAC_DEVICE_CPU);
    CHECK(strstr(chosen.reason, "60 % done") && strstr(chosen.reason, "stayed on the cpu") &&
              strstr(chosen.reason, "on 4 threads"),
          "%s", chosen.reason);

    /* 0.1 % after 0.1 s: the GPU wins; handed over only when one is usable */
    fca_handover_begin(&handover, &exec, 4, 1e4);
    handover.started = parac_now_seconds() - 0.1;
    answer = report(&handover, 1, 1000);
    CHECK_EQ_INT(answer, gpus > 0);
    CHECK(handover.wants_gpu && handover.handed_over == (gpus > 0), "wants the GPU, %d usable", gpus);
    fca_handover_record(&handover, &exec);
    CHECK_EQ_INT(chosen.device, gpus > 0 ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU);
    CHECK(strstr(chosen.reason, gpus > 0 ? "handed over to cuda" : "no usable GPU, stayed on the cpu") != NULL, "%s",
          chosen.reason);
    /* without a GPU the watcher stops deciding: later reports change nothing */
    if (gpus == 0) {
        answer = report(&handover, 2, 1000);
        CHECK_EQ_INT(answer, 0);
        CHECK_EQ_INT(handover.decisions, 1);
    }

    /* the caller's cancel is a cancel, not a handover; the final total/total report is forwarded */
    fca_handover_begin(&handover, &exec, 4, 1e4);
    c.stop = 1;
    answer = report(&handover, 5, 1000);
    CHECK(answer != 0, "caller's stop obeyed");
    CHECK_EQ_INT(handover.handed_over, 0);
    c.stop = 0;
    answer = report(&handover, 1000, 1000);
    CHECK_EQ_INT(answer, 0);
    CHECK(c.last_done == 1000 && handover.decisions == 0, "the end is not a decision");
}

/* A spill that received runs, cleared, then refilled: only the second search's concepts come out. */
typedef struct collected {
    size_t count;
    uint32_t first[4];
    size_t first_size;
} collected;

static void check_spill_clear(void)
{
    parac_fca_context *small = NULL, *other = NULL;
    parac_fca_options options;
    parac_fca_concepts *expected = NULL, store;
    fca_concept_spill *spill = NULL;
    parac_error error = {0};
    uint64_t count = 0;
    CHECK_OK(parac_fca_context_random(40, 12, 0.4, 3, &small, &error), &error);
    CHECK_OK(parac_fca_context_random(40, 12, 0.5, 4, &other, &error), &error);
    parac_fca_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 1;
    CHECK_OK(parac_fca_compute(other, &options, &expected, &error), &error);
    CHECK_OK(fca_concepts_init(&store, 12, &error), &error);
    CHECK_OK(fca_concept_spill_create(12, 12, 64, 1, NULL, &spill, &error), &error); /* 64 bytes: a run per intent */
    fca_concepts_attach_spill(&store, spill);
    CHECK_OK(fca_run_search(small, &options, &store, &count, &error), &error);
    CHECK(spill->spilled > 0, "the first search spilled (%llu)", (unsigned long long)spill->spilled);
    store.count = 0;
    CHECK_OK(fca_concept_spill_clear(spill, &error), &error);
    CHECK(spill->spilled == 0, "cleared");
    CHECK_OK(fca_run_search(other, &options, &store, &count, &error), &error);
    CHECK(count == parac_fca_concepts_size(expected) && spill->spilled + store.count == count,
          "second search: %llu concepts, %llu spilled + %zu stored, expected %zu", (unsigned long long)count,
          (unsigned long long)spill->spilled, store.count, parac_fca_concepts_size(expected));
    fca_concepts_release(&store);
    fca_concept_spill_destroy(spill);
    parac_fca_concepts_destroy(expected);
    parac_fca_context_destroy(small);
    parac_fca_context_destroy(other);
}

int main(void)
{
    check_decision();
    check_watcher();
    check_spill_clear();
    return test_finish("fca.device_handover");
}

/* tests/ac/test_ac_cancel.c — the CPU AC algorithms and SAC1 stop at their checkpoints when the
 * progress callback asks (PARAC_ERR_CANCELLED, soon after the answer), report from one thread,
 * and a callback that never cancels changes no result. */
#include <stdlib.h>
#include <string.h>

#include <parac/ac.h>
#include <parac/csp.h>

#include "ac/ac_algorithms.h"
#include "core/progress.h"
#include "core/timer.h"
#include "csp/csp_handle.h"
#include "test_util.h"

typedef struct watcher {
    int calls, cancel, mid_run_reports;
    uint64_t last_done, last_total;
    double answered_at;
} watcher;

static int watch(void *user_data, uint64_t done, uint64_t total)
{
    watcher *w = user_data;
    w->calls++;
    if (done < total) w->mid_run_reports++;
    w->last_done = done;
    w->last_total = total;
    if (w->cancel && w->answered_at == 0.0) w->answered_at = parac_now_seconds();
    return w->cancel;
}

static parac_status run(const parac_csp *csp, parac_ac_algorithm algorithm, int singleton, watcher *w,
                        uint64_t *domains, parac_ac_stats *stats, parac_error *error)
{
    parac_ac_options options;
    memset(&options, 0, sizeof options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    options.algorithm = algorithm;
    options.singleton = singleton;
    if (w) {
        options.exec.progress = watch;
        options.exec.progress_user_data = w;
    }
    return parac_ac_enforce(csp, &options, domains, stats, error);
}

static void check(const parac_csp *csp, const char *name, parac_ac_algorithm algorithm, int singleton)
{
    size_t words = parac_ac_domain_words(parac_csp_value_count(csp));
    uint64_t *plain = calloc(words + 1, 8), *watched = calloc(words + 1, 8);
    parac_ac_stats stats;
    parac_error error;
    watcher w;
    double seconds, stopped;
    parac_status status;
    CHECK_OK(run(csp, algorithm, singleton, NULL, plain, &stats, &error), &error);
    seconds = stats.propagate_seconds; /* the checkpoints are in propagation, not in the model build */
    memset(&w, 0, sizeof w);
    CHECK_OK(run(csp, algorithm, singleton, &w, watched, &stats, &error), &error);
    CHECK(memcmp(plain, watched, words * 8) == 0, "%s: a progress callback changed the domains", name);
    CHECK(w.calls >= 1 && w.last_done == w.last_total, "%s: no final report (%d calls)", name, w.calls);
    if (seconds < 0.3) { /* the gate reports after 0.1 s: too short a run to see a checkpoint */
        printf("%s: %.3f s of propagation, too fast to test its cancel checkpoint here\n", name, seconds);
    } else {
        memset(&w, 0, sizeof w);
        w.cancel = 1;
        status = run(csp, algorithm, singleton, &w, watched, &stats, &error);
        stopped = parac_now_seconds();
        CHECK(status == PARAC_ERR_CANCELLED, "%s: status %d, not cancelled", name, (int)status);
        CHECK(w.calls == 1 && w.mid_run_reports == 1, "%s: %d calls, %d mid-run: not stopped at a checkpoint", name,
              w.calls, w.mid_run_reports);
        CHECK(stopped - w.answered_at < 0.1 + seconds / 4, "%s: ran %.3f s on after the cancel (a run: %.3f s)", name,
              stopped - w.answered_at, seconds);
    }
    free(plain);
    free(watched);
}

static int always_cancel(void *user_data, uint64_t done, uint64_t total)
{
    (void)done, (void)total;
    ++*(int *)user_data;
    return 1;
}

/* Deterministic: a gate whose first poll reports (its interval already over) and is told to stop;
 * each algorithm must return PARAC_ERR_CANCELLED at its first checkpoint. */
static void check_checkpoints(const parac_csp *csp)
{
    typedef parac_status (*serial_run)(const ac_model *, ac_domains *, parac_ac_stats *, parac_error *);
    static const struct { const char *name; serial_run run; uint64_t first_checkpoint; } RUNS[] = {
        {"ac3", ac_run_ac3, 64}, {"ac3rm", ac_run_ac3rm, 64}, {"ac3bit", ac_run_ac3bit, 64},
        {"ac2001", ac_run_ac2001, 64}, {"ac4", ac_run_ac4, 0},
    };
    ac_model model = {0};
    parac_error error;
    parac_exec exec = {0};
    int calls = 0;
    exec.progress = always_cancel;
    exec.progress_user_data = &calls;
    CHECK_OK(ac_model_build(parac_csp_network_of(csp), 1, &model, &error), &error);
    for (size_t i = 0; i <= sizeof RUNS / sizeof RUNS[0]; i++) {
        const char *name = i < sizeof RUNS / sizeof RUNS[0] ? RUNS[i].name : "bitset rounds";
        ac_domains domains = {0};
        parac_ac_stats stats = {0};
        parac_progress_gate gate;
        parac_status status;
        CHECK_OK(ac_domains_init(&model, &domains, &error), &error);
        parac_progress_gate_init(&gate, &exec, 1);
        atomic_store(&gate.next_report_ns, 0); /* due at once */
        model.progress = &gate;
        calls = 0;
        status = i < sizeof RUNS / sizeof RUNS[0] ? RUNS[i].run(&model, &domains, &stats, &error)
                                                  : ac_run_bitset_rounds(&model, &domains, 2, &stats, &error);
        CHECK(status == PARAC_ERR_CANCELLED, "%s: status %d at its first checkpoint", name, (int)status);
        CHECK(calls == 1, "%s: %d reports", name, calls);
        if (i < sizeof RUNS / sizeof RUNS[0])
            CHECK(stats.iterations == RUNS[i].first_checkpoint, "%s: stopped after %llu iterations", name,
                  (unsigned long long)stats.iterations);
        ac_domains_free(&domains);
    }
    ac_model_free(&model);
}

int main(void)
{
    parac_csp_generate_options generate;
    parac_csp *csp = NULL;
    parac_error error;
    parac_csp_generate_options_default(&generate);
    generate.variables = 600;
    generate.domain = 40;
    generate.constraints = 12000;
    generate.tightness = 0.5;
    generate.seed = 2;
    CHECK_OK(parac_csp_generate(&generate, &csp, &error), &error);
    if (!csp) return test_finish("ac_cancel");
    check_checkpoints(csp);
    check(csp, "ac3", PARAC_AC_AC3, 0);
    check(csp, "ac3bit", PARAC_AC_AC3BIT, 0);
    check(csp, "ac2001", PARAC_AC_AC2001, 0);
    check(csp, "ac4", PARAC_AC_AC4, 0);
    check(csp, "gpu-bitset on the CPU", PARAC_AC_GPU_BITSET, 0);
    parac_csp_destroy(csp);
    /* SAC: a smaller network (every value is probed) */
    generate.variables = 200;
    generate.domain = 20;
    generate.constraints = 2000;
    generate.tightness = 0.3;
    csp = NULL;
    CHECK_OK(parac_csp_generate(&generate, &csp, &error), &error);
    if (csp) check(csp, "sac1", PARAC_AC_AUTO, 1);
    parac_csp_destroy(csp);
    return test_finish("ac_cancel");
}

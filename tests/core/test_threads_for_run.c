/* tests/core/test_threads_for_run.c — a run's default thread count on a shared machine
 * (parac_threads_for_run and parac_threads_for_lockstep_run, core/threads.c): an explicit count is
 * obeyed, the default is between 1 and the cores; with other processes spinning it drops to the
 * fair share (cores x cores / (cores + busy)), and for a team in lockstep (birch) to the idle
 * cores, 1 thread with every core taken; this process's own spinning threads (OpenMP workers after
 * a region) are not other work. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/threads.h"
#include "test_util.h"

static atomic_int stop_spinning;

static void *spin(void *unused)
{
    (void)unused;
    while (!atomic_load_explicit(&stop_spinning, memory_order_relaxed)) {
    }
    return NULL;
}

int main(void)
{
    int cores = parac_threads_available(), spinners = cores < 64 ? cores : 64, started = 0;
    int most = 0, forked = 0, idle_rounds = 0;
    pthread_t threads[64];
    pid_t children[64];
    struct timespec pause = {0, 20 * 1000 * 1000};
    FILE *loadavg = fopen("/proc/loadavg", "r");
    if (!loadavg) {
        puts("core.threads_for_run: no /proc/loadavg here (the default is all cores): skipped");
        return 77;
    }
    fclose(loadavg);
    CHECK_EQ_INT(parac_threads_for_run(3), 3);
    CHECK_EQ_INT(parac_threads_for_lockstep_run(3), 3);
    CHECK_EQ_INT(parac_threads_for_run(1), 1);
    {
        int idle = parac_threads_for_run(0);
        CHECK(idle >= 1 && idle <= cores, "default %d, cores %d", idle, cores);
    }
    /* Our own spinning threads: not other work. Other users may hold cores meanwhile, so this can
     * only be checked in a round where the machine looked idle just before and just after our
     * spinners ran (ctest runs this test alone: RUN_SERIAL); a round where any reading found
     * more than 1 thread passes. Up to 5 rounds: a busy moment in one does not decide it. */
    for (int round = 0; round < 5 && most <= 1; round++) {
        int idle_before = parac_threads_for_run(0), idle_after, round_most = 0;
        started = 0;
        atomic_store(&stop_spinning, 0);
        for (int i = 0; i < spinners - 1; i++) started += pthread_create(&threads[i], NULL, spin, NULL) == 0;
        CHECK_EQ_INT(started, spinners - 1);
        for (int attempt = 0; attempt < 20 && round_most <= 1; attempt++) {
            int now = parac_threads_for_run(0);
            if (now > round_most) round_most = now;
            nanosleep(&pause, NULL);
        }
        atomic_store(&stop_spinning, 1);
        for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
        idle_after = parac_threads_for_run(0);
        if (idle_before == cores && idle_after == cores) {
            idle_rounds++;
            if (round_most > most) most = round_most;
        } else if (round_most > 1) {
            most = round_most;
        }
    }
    if (cores > 1 && idle_rounds > 0)
        CHECK(most > 1, "%d of our own spinning threads made %d idle cores look busy (%d idle rounds)", started, cores,
              idle_rounds);
    else if (cores > 1 && most <= 1)
        printf("core.threads_for_run: the machine was never idle around our spinners: own-thread check not made\n");
    {
        /* One other process spinning, then one on every core: a team of 1..cores at every reading
         * (other users of the machine move the count), and at most half the cores once all of them
         * spin (the fair share: cores x cores / (cores + busy)). The rule
         * itself, on exact counts: */
        static const int rule[][3] = {{16, 0, 16}, {16, 1, 15}, {16, 8, 10}, {16, 9, 10}, {16, 16, 8}, {16, 40, 4},
                                      {2, 0, 2},   {2, 1, 1},   {2, 2, 1},   {1, 0, 1},   {1, 3, 1},   {3, 1, 2},
                                      {3, 2, 1},   {4, -1, 4},  {64, 64, 32}, {2, 100, 1}};
        for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++)
            CHECK(parac_threads_for_load(rule[i][0], rule[i][1]) == rule[i][2], "%d cores, %d busy: %d threads, not %d",
                  rule[i][0], rule[i][1], parac_threads_for_load(rule[i][0], rule[i][1]), rule[i][2]);
        /* ... and the lockstep rule: the idle cores, at least 1 */
        static const int lockstep[][3] = {{16, 0, 16}, {16, 1, 15}, {16, 8, 8}, {16, 16, 1}, {16, 40, 1},
                                          {2, 0, 2},   {2, 1, 1},   {2, 2, 1},  {1, 0, 1},   {4, -1, 4}};
        for (size_t i = 0; i < sizeof lockstep / sizeof lockstep[0]; i++)
            CHECK(parac_threads_for_lockstep_load(lockstep[i][0], lockstep[i][1]) == lockstep[i][2],
                  "lockstep, %d cores, %d busy: %d threads, not %d", lockstep[i][0], lockstep[i][1],
                  parac_threads_for_lockstep_load(lockstep[i][0], lockstep[i][1]), lockstep[i][2]);
        for (int round = 0; round < 2; round++) {
            int wanted = round == 0 ? 1 : spinners, lowest = cores, lowest_lockstep = cores;
            forked = 0;
            for (int i = 0; i < wanted; i++) {
                pid_t child = fork();
                if (child == 0)
                    for (;;) {
                    }
                if (child > 0) children[forked++] = child;
            }
            CHECK_EQ_INT(forked, wanted);
            for (int attempt = 0; attempt < 50; attempt++) { /* the kernel's count is a snapshot */
                int now = parac_threads_for_run(0), lockstep_now = parac_threads_for_lockstep_run(0);
                CHECK(now >= 1 && now <= cores, "a team of %d on %d cores (%d spinning)", now, cores, wanted);
                CHECK(lockstep_now >= 1 && lockstep_now <= cores, "a lockstep team of %d on %d cores (%d spinning)",
                      lockstep_now, cores, wanted);
                if (now < lowest) lowest = now;
                if (lockstep_now < lowest_lockstep) lowest_lockstep = lockstep_now;
                nanosleep(&pause, NULL);
            }
            for (int i = 0; i < forked; i++) {
                kill(children[i], SIGKILL);
                waitpid(children[i], NULL, 0);
            }
            if (round == 1) /* the kernel's count is a snapshot: the fewest of the readings */
                CHECK(lowest <= parac_threads_for_load(cores, wanted),
                      "with %d spinning processes on %d cores the default stayed at %d, not %d or fewer", wanted, cores,
                      lowest, parac_threads_for_load(cores, wanted));
            if (round == 1)
                CHECK(lowest_lockstep == 1, "with %d spinning processes on %d cores the lockstep default stayed at %d",
                      wanted, cores, lowest_lockstep);
        }
    }
    CHECK(parac_threads_resolve(0) == cores, "parac_threads_resolve(0) still means all cores");
    return test_finish("core.threads_for_run");
}

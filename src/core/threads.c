/* core/threads.c — thread counts are passed to each parallel region
 * (num_threads clause) rather than set globally, so two parac calls with
 * different settings in one process do not disturb each other. */
#include "core/threads.h"

#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int parac_threads_available(void)
{
    int cores = omp_get_num_procs();
    return cores > 0 ? cores : 1;
}

int parac_threads_resolve(int requested)
{
    int cores = parac_threads_available();
    int limit = cores <= PARAC_THREADS_MAX / PARAC_THREADS_PER_CORE_MAX ? cores * PARAC_THREADS_PER_CORE_MAX
                                                                        : PARAC_THREADS_MAX;
    if (requested <= 0) return cores < PARAC_THREADS_MAX ? cores : PARAC_THREADS_MAX;
    return requested < limit ? requested : limit;
}

/* Tasks running on the whole machine right now, or -1 when /proc/loadavg is unreadable. */
static int running_tasks(void)
{
    double one, five, fifteen;
    int running = -1, total = 0;
    FILE *file = fopen("/proc/loadavg", "r");
    if (!file) return -1;
    if (fscanf(file, "%lf %lf %lf %d/%d", &one, &five, &fifteen, &running, &total) != 5) running = -1;
    fclose(file);
    return running;
}

/* This process's threads running now (state R in /proc/self/task/<tid>/stat), at least 1 (the caller).
 * They are not "other work": OpenMP workers of the previous parallel region spin for a while after it
 * (libgomp's GOMP_SPINCOUNT) and would otherwise make an idle machine look busy. */
static int own_running_threads(void)
{
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *entry;
    int running = 0;
    if (!tasks) return 1;
    while ((entry = readdir(tasks)) != NULL) {
        /* Room for any d_name (the length check below skips what is not a thread id anyway), so
         * no compiler sees a possible truncation. */
        char path[sizeof "/proc/self/task//stat" + sizeof entry->d_name], line[256], *end;
        FILE *file;
        if (entry->d_name[0] == '.' || strlen(entry->d_name) > 20) continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", entry->d_name);
        if (!(file = fopen(path, "r"))) continue;
        if (fgets(line, sizeof line, file) && (end = strrchr(line, ')')) != NULL && end[1] == ' ' && end[2] == 'R')
            running++;
        fclose(file);
    }
    closedir(tasks);
    return running > 0 ? running : 1;
}

/* Tasks of other processes running now, or -1 when unknown. */
static int other_running(void)
{
    int running = running_tasks(), busy;
    if (running < 1) return -1;
    busy = running - own_running_threads();
    return busy > 0 ? busy : 0;
}

/* Tasks of other processes running on this process's cores right now, or -1 when unknown. */
static int busy_cores(int cores)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int busy = other_running();
    if (busy < 0) return -1;
    if (busy > 0) {
        /* A momentary task (a daemon waking up) must not cost a whole run a core: look again 1 ms
         * later and believe the smaller count. An idle machine answers at once. */
        struct timespec pause = {0, 1000 * 1000};
        int again;
        nanosleep(&pause, NULL);
        again = other_running();
        if (again >= 0 && again < busy) busy = again;
    }
    /* Other tasks spread over all online cores; only our share of them takes our cores. */
    if (online > cores) busy = (int)(((long)busy * cores + online - 1) / online);
    return busy;
}

int parac_threads_for_run(int requested)
{
    int cores = parac_threads_available(), busy;
    if (requested > 0) return parac_threads_resolve(requested);
    busy = busy_cores(cores);
    return busy < 0 ? cores : parac_threads_for_load(cores, busy);
}

int parac_threads_for_lockstep_run(int requested)
{
    int cores = parac_threads_available(), busy;
    if (requested > 0) return parac_threads_resolve(requested);
    busy = busy_cores(cores);
    return busy < 0 ? cores : parac_threads_for_lockstep_load(cores, busy);
}

int parac_threads_for_load(int cores, int busy)
{
    int others = busy > 0 ? busy : 0;
    /* Our fair share of the cores when the kernel shares them among our threads and the other
     * tasks: cores x cores / (cores + busy), at least 1. The idle cores alone were too few on a
     * large machine: with 16 spinners on 16 cores one thread made a 0.5 s dbscan 15x slower, where
     * 16 threads took 1.9x (H100, bench/contention.py, run AY). A team as large as every core is
     * not taken either: each barrier then waits for a thread the kernel has descheduled (tiny runs
     * on 16 cores: dbscan 16x, birch 4.4x, run AR), and on 2 cores with 2 spinners 2 threads made
     * birch 7.6x and dbscan 3.5x slower than unloaded, against 1.6x and 3.3x with one, which this
     * rule keeps (docs/PERFORMANCE.md, 2026-12-04). */
    long share = cores > 0 ? (long)cores * cores / (cores + others) : 1;
    return share < 1 ? 1 : (int)share;
}

int parac_threads_for_lockstep_load(int cores, int busy)
{
    /* Only the idle cores: a team in lockstep runs at the pace of its slowest member, and a member
     * sharing a core with other work is descheduled for whole time slices while the rest of the team
     * spins at the barrier. birch's commit phases, in the same runs as the fair-share figures above:
     * with one thread at k = 16 on 16 cores 3.02x unloaded and 1.00x at k = 1 (run AY); with the
     * fair share's 8 threads at k = 16 no round of the contention benchmark ended within 150 s
     * (2026-12-05, H200 machine); on 2 cores with 2 spinners 2 threads took 4.1 s where 1 took 0.83 s
     * (4.8 M points, 0.52 s unloaded). */
    int idle = cores - (busy > 0 ? busy : 0);
    return idle < 1 ? 1 : idle;
}

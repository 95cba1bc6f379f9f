/* core/threads.c — thread counts are passed to each parallel region
 * (num_threads clause) rather than set globally, so two parac calls with
 * different settings in one process do not disturb each other. */
#include "core/threads.h"

#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int parac_threads_available(void)
{
    int cores = omp_get_num_procs();
    return cores > 0 ? cores : 1;
}

int parac_threads_resolve(int requested)
{
    return requested > 0 ? requested : parac_threads_available();
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
        char path[64], line[256], *end;
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

int parac_threads_for_run(int requested)
{
    int cores = parac_threads_available(), running, busy, idle;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (requested > 0) return requested;
    running = running_tasks();
    if (running < 1) return cores;
    busy = running - own_running_threads();
    if (busy < 0) busy = 0;
    /* Other tasks spread over all online cores; only our share of them takes our cores. */
    if (online > cores) busy = (int)(((long)busy * cores + online - 1) / online);
    idle = cores - busy;
    return idle < 1 ? 1 : idle;
}

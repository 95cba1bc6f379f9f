/* core/timer.c — CLOCK_MONOTONIC, immune to wall-clock adjustments. */
#include "core/timer.h"

#include <time.h>

double parac_now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

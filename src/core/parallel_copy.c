/* core/parallel_copy.c — see parallel_copy.h. */
#include "core/parallel_copy.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this a second thread costs more than it saves. */
#define PARALLEL_COPY_MIN_BYTES ((size_t)1 << 20)
/* Each thread's piece is a multiple of this (whole pages, so no page is faulted by two threads). */
#define PARALLEL_COPY_GRAIN ((size_t)64 << 10)

void parac_parallel_copy(void *dst, const void *src, size_t bytes, int threads)
{
    size_t grains = (bytes + PARALLEL_COPY_GRAIN - 1) / PARALLEL_COPY_GRAIN;
    if (threads < 1) threads = 1;
    if (bytes < PARALLEL_COPY_MIN_BYTES || threads == 1) {
        memcpy(dst, src, bytes);
        return;
    }
    if ((size_t)threads > grains) threads = (int)grains;
#pragma omp parallel num_threads(threads)
    {
        int team = 1, me = 0;
#ifdef _OPENMP
        team = omp_get_num_threads();
        me = omp_get_thread_num();
#endif
        size_t first = grains * (size_t)me / (size_t)team, last = grains * (size_t)(me + 1) / (size_t)team;
        size_t begin = first * PARALLEL_COPY_GRAIN, end = last * PARALLEL_COPY_GRAIN;
        if (end > bytes) end = bytes;
        if (begin < end) memcpy((char *)dst + begin, (const char *)src + begin, end - begin);
    }
}

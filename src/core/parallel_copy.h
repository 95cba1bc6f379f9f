/* core/parallel_copy.h — memcpy split over threads.
 *
 * For copies into memory that was never touched (a fresh malloc of labels) or out of a file mapping
 * (an .npy read in place), the time goes to page faults, not to bandwidth: one thread faults one page
 * at a time, several threads fault their own ranges at once. The staged GPU transfers
 * (cuda/staged_copy.h) copy each piece between pageable and pinned memory with it. */
#ifndef PARAC_CORE_PARALLEL_COPY_H
#define PARAC_CORE_PARALLEL_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* memcpy(dst, src, bytes) on up to `threads` threads (pieces of whole pages; one thread for small
 * copies). The ranges must not overlap. */
void parac_parallel_copy(void *dst, const void *src, size_t bytes, int threads);

#ifdef __cplusplus
}
#endif
#endif

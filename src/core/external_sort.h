/* core/external_sort.h — sorting fixed-size records that may not fit in memory.
 *
 * Records are buffered up to a memory budget; a full buffer is sorted and
 * appended to a temporary file as a run (the file is unlinked as soon as it
 * is created, so nothing is left behind on any exit path, crash included; all
 * runs share that one file, so many runs need no more descriptors). At the
 * end the runs are merged k-way (in several passes when there are more runs
 * than the budget can give read buffers) and every record is handed, in
 * order, to a callback. Without a single spill the records never touch disk.
 *
 * Order: ascending by `compare`; records that compare equal come out in the
 * order they were added (runs given with parac_external_sort_add_sorted_run
 * count as added at that moment), so the output is deterministic.
 * A sorter is used by one thread at a time (callers that share one lock it).
 */
#ifndef PARAC_CORE_EXTERNAL_SORT_H
#define PARAC_CORE_EXTERNAL_SORT_H

#include <stddef.h>
#include <stdint.h>

#include <parac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* <0, 0, >0 as record a comes before, ties with, follows b. */
typedef int (*parac_record_compare_fn)(const void *a, const void *b, void *context);
/* Receives one record in order; non-zero stops the delivery. */
typedef int (*parac_record_fn)(void *user, const void *record);

typedef struct parac_external_sort_config {
    size_t record_bytes;              /* > 0 */
    parac_record_compare_fn compare;  /* required */
    void *compare_context;            /* handed to compare */
    uint64_t memory_bytes;            /* budget for the buffer (and its sort scratch) and the merge's read
                                         buffers; tiny budgets work (one record per run at the least) */
    const char *directory;            /* temporary files; NULL: $TMPDIR, else /tmp */
} parac_external_sort_config;

typedef struct parac_external_sort parac_external_sort;

parac_status parac_external_sort_create(const parac_external_sort_config *config, parac_external_sort **sorter,
                                        parac_error *error);
/* Copies one record in; may sort the buffer and write it out as a run (PARAC_ERR_IO naming the
 * directory when the disk is full or the file cannot be made). */
parac_status parac_external_sort_add(parac_external_sort *sorter, const void *record, parac_error *error);
/* Writes count records, already sorted by the caller, as one run (nothing is buffered). */
parac_status parac_external_sort_add_sorted_run(parac_external_sort *sorter, const void *records, size_t count,
                                                parac_error *error);
/* Forgets every record added so far (buffered and written out: the file is truncated) and starts
 * again as if just created; PARAC_ERR_IO when the file cannot be truncated. Not after finish. */
parac_status parac_external_sort_clear(parac_external_sort *sorter, parac_error *error);
/* Records added so far; runs written so far. */
uint64_t parac_external_sort_count(const parac_external_sort *sorter);
size_t parac_external_sort_runs(const parac_external_sort *sorter);
/* Delivers every record in order to fn (once: the sorter is spent afterwards). PARAC_ERR_CANCELLED
 * when fn returned non-zero; PARAC_ERR_IO on a failed read or write of a temporary file. */
parac_status parac_external_sort_finish(parac_external_sort *sorter, parac_record_fn fn, void *user,
                                        parac_error *error);
void parac_external_sort_destroy(parac_external_sort *sorter); /* NULL is accepted; closes the runs */

/* Stable in-memory merge sort of count records (scratch: as many bytes as records). */
void parac_sort_records(void *records, void *scratch, size_t count, size_t record_bytes,
                        parac_record_compare_fn compare, void *context);

#ifdef __cplusplus
}
#endif
#endif

/* core/external_sort.c — fixed-size records sorted within a memory budget:
 * sorted runs in unlinked temporary files, merged k-way (external_sort.h).
 *
 * Budget split: while adding, the buffer may hold half the budget (its sort
 * needs as much again as scratch). While merging, each of the fan_in runs of
 * a pass gets an equal share of the budget as its read buffer; fan_in is as
 * many runs as leave each at least MERGE_BUFFER_TARGET bytes (2 at the least,
 * MAX_FAN_IN at most: a deeper heap costs compares per record), and more runs than that
 * are merged in consecutive groups, pass after pass. Consecutive groups, and
 * ties going to the earlier run, keep the sort stable. */
#define _POSIX_C_SOURCE 200809L
#include "core/external_sort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

#define INSERTION_RUN 16
#define MERGE_BUFFER_TARGET ((uint64_t)64 << 10) /* a read buffer below this costs more seeks than it saves */
#define MERGE_BUFFER_MAX ((uint64_t)4 << 20)     /* more does not read faster */
#define MAX_FAN_IN 64

typedef struct sort_run {
    uint64_t offset; /* byte offset in the sorter's run file */
    uint64_t count;
} sort_run;

struct parac_external_sort {
    parac_external_sort_config config;
    char *directory;
    unsigned char *buffer;
    size_t buffered, buffer_capacity, buffer_limit; /* records */
    FILE *file;       /* every run, one after the other (one descriptor however many runs) */
    uint64_t file_bytes;
    sort_run *runs;
    size_t run_count, run_capacity;
    uint64_t added;
    int finished;
};

/* ---- the in-memory sort -------------------------------------------------- */

static void insertion_sort(unsigned char *data, size_t count, size_t bytes, unsigned char *held,
                           parac_record_compare_fn compare, void *context)
{
    for (size_t i = 1; i < count; i++) {
        size_t j = i;
        memcpy(held, data + i * bytes, bytes);
        while (j > 0 && compare(held, data + (j - 1) * bytes, context) < 0) {
            memcpy(data + j * bytes, data + (j - 1) * bytes, bytes);
            j--;
        }
        memcpy(data + j * bytes, held, bytes);
    }
}

/* Merges a (na records) and b (nb) into out; ties take a (stable). */
static void merge_pair(const unsigned char *a, size_t na, const unsigned char *b, size_t nb, unsigned char *out,
                       size_t bytes, parac_record_compare_fn compare, void *context)
{
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        const unsigned char *pick = compare(b + j * bytes, a + i * bytes, context) < 0 ? b + j++ * bytes
                                                                                     : a + i++ * bytes;
        memcpy(out, pick, bytes);
        out += bytes;
    }
    memcpy(out, a + i * bytes, (na - i) * bytes);
    memcpy(out + (na - i) * bytes, b + j * bytes, (nb - j) * bytes);
}

void parac_sort_records(void *records, void *scratch, size_t count, size_t record_bytes,
                        parac_record_compare_fn compare, void *context)
{
    unsigned char *from = records, *to = scratch, *swap;
    if (count < 2) return;
    for (size_t left = 0; left < count; left += INSERTION_RUN) {
        size_t run = count - left < INSERTION_RUN ? count - left : INSERTION_RUN;
        insertion_sort(from + left * record_bytes, run, record_bytes, to, compare, context); /* to[0]: one record */
    }
    for (size_t width = INSERTION_RUN; width < count; width *= 2) {
        for (size_t left = 0; left < count; left += 2 * width) {
            size_t middle = left + width < count ? left + width : count;
            size_t right = left + 2 * width < count ? left + 2 * width : count;
            merge_pair(from + left * record_bytes, middle - left, from + middle * record_bytes, right - middle,
                       to + left * record_bytes, record_bytes, compare, context);
        }
        swap = from, from = to, to = swap;
    }
    if (from != (unsigned char *)records) memcpy(records, from, count * record_bytes);
}

/* ---- runs on disk ---------------------------------------------------------- */

static parac_status io_failure(const parac_external_sort *sorter, const char *what, int code, parac_error *error)
{
    return parac_fail(error, PARAC_ERR_IO, "external sort: cannot %s a temporary file in %s: %s", what,
                      sorter->directory, strerror(code ? code : EIO));
}

/* A new temporary file in the sorter's directory, unlinked at once. */
static parac_status open_temporary(const parac_external_sort *sorter, FILE **file, parac_error *error)
{
    size_t length = strlen(sorter->directory) + sizeof "/parac-sort-XXXXXX";
    char *path = malloc(length);
    int descriptor, code;
    if (!path) return parac_fail_no_memory(error, "temporary file name", length);
    snprintf(path, length, "%s/parac-sort-XXXXXX", sorter->directory);
    descriptor = mkstemp(path);
    code = errno;
    if (descriptor >= 0) unlink(path);
    free(path);
    if (descriptor < 0) return io_failure(sorter, "create", code, error);
    *file = fdopen(descriptor, "w+b");
    if (!*file) {
        code = errno;
        close(descriptor);
        return io_failure(sorter, "open", code, error);
    }
    return PARAC_OK;
}

static parac_status push_run(parac_external_sort *sorter, uint64_t offset, uint64_t count, parac_error *error)
{
    if (sorter->run_count == sorter->run_capacity) {
        size_t capacity = sorter->run_capacity ? sorter->run_capacity * 2 : 16;
        sort_run *grown = realloc(sorter->runs, capacity * sizeof *grown);
        if (!grown) return parac_fail_no_memory(error, "external sort runs", capacity * sizeof *grown);
        sorter->runs = grown;
        sorter->run_capacity = capacity;
    }
    sorter->runs[sorter->run_count].offset = offset;
    sorter->runs[sorter->run_count].count = count;
    sorter->run_count++;
    return PARAC_OK;
}

/* Appends count sorted records to the run file as a new run. */
static parac_status write_run(parac_external_sort *sorter, const void *records, size_t count, parac_error *error)
{
    parac_status status;
    if (!sorter->file && (status = open_temporary(sorter, &sorter->file, error)) != PARAC_OK) return status;
    errno = 0;
    if (fwrite(records, sorter->config.record_bytes, count, sorter->file) != count)
        return io_failure(sorter, "write to", errno, error);
    status = push_run(sorter, sorter->file_bytes, count, error);
    sorter->file_bytes += (uint64_t)count * sorter->config.record_bytes;
    return status;
}

/* Sorts the buffer and writes it out as a run. */
static parac_status spill_buffer(parac_external_sort *sorter, parac_error *error)
{
    size_t bytes = sorter->buffered * sorter->config.record_bytes;
    unsigned char *scratch;
    parac_status status;
    if (!sorter->buffered) return PARAC_OK;
    scratch = malloc(bytes);
    if (!scratch) return parac_fail_no_memory(error, "external sort scratch", bytes);
    parac_sort_records(sorter->buffer, scratch, sorter->buffered, sorter->config.record_bytes, sorter->config.compare,
                       sorter->config.compare_context);
    free(scratch);
    status = write_run(sorter, sorter->buffer, sorter->buffered, error);
    if (status == PARAC_OK) sorter->buffered = 0;
    return status;
}

/* ---- the public face ------------------------------------------------------- */

parac_status parac_external_sort_create(const parac_external_sort_config *config, parac_external_sort **sorter,
                                        parac_error *error)
{
    const char *directory;
    parac_external_sort *made;
    uint64_t limit;
    if (!config || !sorter || !config->record_bytes || !config->compare)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "external sort: record size and comparison are required");
    directory = config->directory && *config->directory ? config->directory : getenv("TMPDIR");
    if (!directory || !*directory) directory = "/tmp";
    made = calloc(1, sizeof *made);
    if (!made) return parac_fail_no_memory(error, "external sort", sizeof *made);
    made->config = *config;
    made->directory = malloc(strlen(directory) + 1);
    if (!made->directory) {
        free(made);
        return parac_fail_no_memory(error, "external sort directory", strlen(directory) + 1);
    }
    strcpy(made->directory, directory);
    made->config.directory = made->directory;
    limit = config->memory_bytes / 2 / config->record_bytes;
    made->buffer_limit = limit < 1 ? 1 : limit > SIZE_MAX / config->record_bytes ? SIZE_MAX / config->record_bytes
                                                                                   : (size_t)limit;
    *sorter = made;
    return PARAC_OK;
}

parac_status parac_external_sort_add(parac_external_sort *sorter, const void *record, parac_error *error)
{
    size_t bytes = sorter->config.record_bytes;
    if (sorter->finished) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "external sort: already finished");
    if (sorter->buffered == sorter->buffer_limit) {
        parac_status status = spill_buffer(sorter, error);
        if (status != PARAC_OK) return status;
    }
    if (sorter->buffered == sorter->buffer_capacity) { /* grows by doubling up to the limit */
        size_t capacity = sorter->buffer_capacity ? sorter->buffer_capacity * 2 : 256;
        unsigned char *grown;
        if (capacity > sorter->buffer_limit) capacity = sorter->buffer_limit;
        grown = realloc(sorter->buffer, capacity * bytes);
        if (!grown) return parac_fail_no_memory(error, "external sort buffer", (unsigned long long)capacity * bytes);
        sorter->buffer = grown;
        sorter->buffer_capacity = capacity;
    }
    memcpy(sorter->buffer + sorter->buffered * bytes, record, bytes);
    sorter->buffered++;
    sorter->added++;
    return PARAC_OK;
}

parac_status parac_external_sort_add_sorted_run(parac_external_sort *sorter, const void *records, size_t count,
                                                parac_error *error)
{
    parac_status status;
    if (sorter->finished) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "external sort: already finished");
    if (!count) return PARAC_OK;
    /* records added before this run must stay before it among ties: they go out first */
    if ((status = spill_buffer(sorter, error)) != PARAC_OK) return status;
    if ((status = write_run(sorter, records, count, error)) != PARAC_OK) return status;
    sorter->added += count;
    return PARAC_OK;
}

parac_status parac_external_sort_clear(parac_external_sort *sorter, parac_error *error)
{
    if (sorter->finished) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "external sort: already finished");
    sorter->buffered = 0;
    sorter->run_count = 0;
    sorter->added = 0;
    sorter->file_bytes = 0;
    if (!sorter->file) return PARAC_OK;
    /* the runs' disk space goes back now; the next run is written from the start of the file */
    errno = 0;
    if (fflush(sorter->file) != 0 || ftruncate(fileno(sorter->file), 0) != 0 || fseeko(sorter->file, 0, SEEK_SET) != 0)
        return io_failure(sorter, "truncate", errno, error);
    return PARAC_OK;
}

uint64_t parac_external_sort_count(const parac_external_sort *sorter) { return sorter ? sorter->added : 0; }
size_t parac_external_sort_runs(const parac_external_sort *sorter) { return sorter ? sorter->run_count : 0; }

/* ---- the merge --------------------------------------------------------------- */

typedef struct run_reader {
    int descriptor;
    uint64_t offset;          /* of the next record not yet read */
    uint64_t left;            /* records not yet read */
    unsigned char *buffer;
    size_t capacity, filled, position;
} run_reader;

/* Refills an exhausted reader; 0 at the end of the run, -1 on a read error. */
static int reader_refill(run_reader *reader, size_t bytes)
{
    size_t want = reader->left < reader->capacity ? (size_t)reader->left : reader->capacity, done = 0;
    if (!want) return 0;
    errno = 0;
    while (done < want * bytes) { /* pread may return less than asked */
        ssize_t got = pread(reader->descriptor, reader->buffer + done, want * bytes - done,
                            (off_t)(reader->offset + done));
        if (got <= 0) {
            if (got == 0 && !errno) errno = EIO; /* a run shorter than written */
            return -1;
        }
        done += (size_t)got;
    }
    reader->offset += done;
    reader->left -= want;
    reader->filled = want;
    reader->position = 0;
    return 1;
}

static const unsigned char *reader_record(const run_reader *reader, size_t bytes)
{
    return reader->buffer + reader->position * bytes;
}

/* Heap order: the smaller record first, the earlier run among ties. */
static int reader_before(const parac_external_sort *sorter, const run_reader *readers, size_t a, size_t b)
{
    size_t bytes = sorter->config.record_bytes;
    int order = sorter->config.compare(reader_record(&readers[a], bytes), reader_record(&readers[b], bytes),
                                       sorter->config.compare_context);
    return order < 0 || (order == 0 && a < b);
}

static void heap_sift_down(const parac_external_sort *sorter, const run_reader *readers, size_t *heap, size_t size,
                           size_t at)
{
    for (;;) {
        size_t left = 2 * at + 1, right = left + 1, best = at, swap;
        if (left < size && reader_before(sorter, readers, heap[left], heap[best])) best = left;
        if (right < size && reader_before(sorter, readers, heap[right], heap[best])) best = right;
        if (best == at) return;
        swap = heap[at], heap[at] = heap[best], heap[best] = swap;
        at = best;
    }
}

/* Merges runs[0..count) into emit; *stopped = 1 when emit returned non-zero. */
static parac_status merge_group(parac_external_sort *sorter, sort_run *runs, size_t count, size_t per_reader,
                                parac_record_fn emit, void *emit_user, int *stopped, parac_error *error)
{
    size_t bytes = sorter->config.record_bytes, size = 0;
    run_reader *readers = calloc(count, sizeof *readers);
    size_t *heap = calloc(count, sizeof *heap);
    parac_status status = PARAC_OK;
    *stopped = 0;
    if (!readers || !heap) status = parac_fail_no_memory(error, "merge readers", count * sizeof *readers);
    for (size_t r = 0; r < count && status == PARAC_OK; r++) {
        int filled;
        readers[r].descriptor = fileno(sorter->file);
        readers[r].offset = runs[r].offset;
        readers[r].left = runs[r].count;
        readers[r].capacity = per_reader;
        readers[r].buffer = malloc(per_reader * bytes);
        if (!readers[r].buffer) status = parac_fail_no_memory(error, "merge read buffer", per_reader * bytes);
        else if ((filled = reader_refill(&readers[r], bytes)) < 0) status = io_failure(sorter, "read", errno, error);
        else if (filled) heap[size++] = r;
    }
    for (size_t i = size / 2; i-- > 0 && status == PARAC_OK;) heap_sift_down(sorter, readers, heap, size, i);
    while (size && status == PARAC_OK) {
        run_reader *top = &readers[heap[0]];
        if (emit(emit_user, reader_record(top, bytes))) {
            *stopped = 1;
            break;
        }
        if (++top->position == top->filled) {
            int filled = reader_refill(top, bytes);
            if (filled < 0) status = io_failure(sorter, "read", errno, error);
            else if (!filled) heap[0] = heap[--size];
        }
        heap_sift_down(sorter, readers, heap, size, 0);
    }
    for (size_t r = 0; readers && r < count; r++) free(readers[r].buffer);
    free(readers);
    free(heap);
    return status;
}

typedef struct run_writer {
    FILE *file;
    size_t bytes;
    int failed, code;
} run_writer;

static int write_record(void *user, const void *record)
{
    run_writer *writer = user;
    if (fwrite(record, writer->bytes, 1, writer->file) == 1) return 0;
    writer->failed = 1;
    writer->code = errno;
    return 1;
}

/* Merges consecutive groups of fan_in runs into one run each, in a new run file that replaces
 * the old one. */
static parac_status merge_pass(parac_external_sort *sorter, size_t fan_in, size_t per_reader, parac_error *error)
{
    run_writer writer = {NULL, sorter->config.record_bytes, 0, 0};
    uint64_t written = 0;
    size_t kept = 0;
    parac_status status = open_temporary(sorter, &writer.file, error);
    for (size_t first = 0; first < sorter->run_count && status == PARAC_OK; first += fan_in) {
        size_t group = sorter->run_count - first < fan_in ? sorter->run_count - first : fan_in;
        uint64_t total = 0;
        int stopped;
        for (size_t r = first; r < first + group; r++) total += sorter->runs[r].count;
        status = merge_group(sorter, sorter->runs + first, group, per_reader, write_record, &writer, &stopped, error);
        if (status == PARAC_OK && writer.failed) status = io_failure(sorter, "write to", writer.code, error);
        sorter->runs[kept].offset = written; /* kept <= first: the runs of this group are read already */
        sorter->runs[kept].count = total;
        written += total * sorter->config.record_bytes;
        kept++;
    }
    if (status == PARAC_OK && fflush(writer.file) != 0) status = io_failure(sorter, "write to", errno, error);
    if (status != PARAC_OK) {
        if (writer.file) fclose(writer.file);
        sorter->run_count = 0; /* the runs table is half rewritten: nothing is left to merge */
        return status;
    }
    fclose(sorter->file);
    sorter->file = writer.file;
    sorter->file_bytes = written;
    sorter->run_count = kept;
    return PARAC_OK;
}

static parac_status deliver_buffer(parac_external_sort *sorter, parac_record_fn fn, void *user, parac_error *error)
{
    size_t bytes = sorter->config.record_bytes;
    unsigned char *scratch = malloc(sorter->buffered * bytes + 1);
    if (!scratch) return parac_fail_no_memory(error, "external sort scratch", sorter->buffered * bytes);
    parac_sort_records(sorter->buffer, scratch, sorter->buffered, bytes, sorter->config.compare,
                       sorter->config.compare_context);
    free(scratch);
    for (size_t i = 0; i < sorter->buffered; i++)
        if (fn(user, sorter->buffer + i * bytes))
            return parac_fail(error, PARAC_ERR_CANCELLED, "external sort: stopped by the record callback");
    return PARAC_OK;
}

parac_status parac_external_sort_finish(parac_external_sort *sorter, parac_record_fn fn, void *user,
                                        parac_error *error)
{
    size_t bytes, fan_in, per_reader;
    uint64_t budget, share;
    parac_status status;
    int stopped = 0;
    if (!sorter || !fn) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "external sort: sorter and callback are required");
    if (sorter->finished) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "external sort: already finished");
    sorter->finished = 1;
    if (!sorter->run_count) return deliver_buffer(sorter, fn, user, error);
    /* the buffer's records become the last run, and the buffer's memory goes to the readers */
    if ((status = spill_buffer(sorter, error)) != PARAC_OK) return status;
    if (fflush(sorter->file) != 0) return io_failure(sorter, "write to", errno, error);
    free(sorter->buffer);
    sorter->buffer = NULL;
    sorter->buffer_capacity = 0;
    bytes = sorter->config.record_bytes;
    budget = sorter->config.memory_bytes;
    fan_in = (size_t)(budget / MERGE_BUFFER_TARGET);
    fan_in = fan_in < 2 ? 2 : fan_in > MAX_FAN_IN ? MAX_FAN_IN : fan_in;
    share = budget / (fan_in + 1);
    if (share > MERGE_BUFFER_MAX) share = MERGE_BUFFER_MAX;
    per_reader = share / bytes ? (size_t)(share / bytes) : 1;
    while (sorter->run_count > fan_in)
        if ((status = merge_pass(sorter, fan_in, per_reader, error)) != PARAC_OK) return status;
    status = merge_group(sorter, sorter->runs, sorter->run_count, per_reader, fn, user, &stopped, error);
    if (status == PARAC_OK && stopped)
        status = parac_fail(error, PARAC_ERR_CANCELLED, "external sort: stopped by the record callback");
    return status;
}

void parac_external_sort_destroy(parac_external_sort *sorter)
{
    if (!sorter) return;
    if (sorter->file) fclose(sorter->file);
    free(sorter->runs);
    free(sorter->buffer);
    free(sorter->directory);
    free(sorter);
}

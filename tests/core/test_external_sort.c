/* tests/core/test_external_sort.c — the external sort against qsort-free expectations: random keys
 * with budgets from "all in memory" down to one record per run (thousands of runs, many merge
 * passes), empty input, all-equal records (ties keep insertion order), pre-sorted runs mixed with
 * single records, a callback that stops, a directory that does not exist and a full disk
 * (RLIMIT_FSIZE). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/external_sort.h"
#include "core/rng.h"
#include "test_util.h"

typedef struct record {
    uint32_t key;
    uint32_t sequence; /* the order of addition: ties must keep it */
    uint64_t payload;  /* key * 3 + 1: checks the record travelled whole */
} record;

static int by_key(const void *a, const void *b, void *context)
{
    const record *x = a, *y = b;
    (void)context;
    return x->key < y->key ? -1 : x->key > y->key;
}

typedef struct collected {
    record *records;
    size_t count, capacity, stop_after;
} collected;

static int collect(void *user, const void *data)
{
    collected *c = user;
    if (c->count == c->capacity) return 1;
    memcpy(&c->records[c->count++], data, sizeof(record));
    return c->stop_after && c->count == c->stop_after;
}

static parac_external_sort *make_sorter(uint64_t budget, const char *directory)
{
    parac_external_sort_config config = {sizeof(record), by_key, NULL, budget, directory};
    parac_external_sort *sorter = NULL;
    parac_error error = {0};
    CHECK_OK(parac_external_sort_create(&config, &sorter, &error), &error);
    return sorter;
}

/* Sorted by key, ties in sequence order, every record once and intact. */
static void check_sorted(const collected *c, size_t count)
{
    int ok = c->count == count;
    for (size_t i = 0; i < c->count && ok; i++) {
        ok = c->records[i].payload == (uint64_t)c->records[i].key * 3 + 1;
        if (i) {
            const record *p = &c->records[i - 1], *q = &c->records[i];
            ok = ok && (p->key < q->key || (p->key == q->key && p->sequence < q->sequence));
        }
    }
    CHECK(ok, "%zu records delivered (expected %zu), sorted and stable", c->count, count);
}

static void check_random(size_t count, uint32_t key_range, uint64_t budget)
{
    parac_external_sort *sorter = make_sorter(budget, NULL);
    collected c = {malloc((count + 1) * sizeof(record)), 0, count + 1, 0};
    parac_rng rng;
    parac_error error = {0};
    parac_rng_seed(&rng, 1234 + count);
    for (size_t i = 0; i < count && sorter; i++) {
        record r;
        r.key = (uint32_t)(parac_rng_next(&rng) % key_range);
        r.sequence = (uint32_t)i;
        r.payload = (uint64_t)r.key * 3 + 1;
        CHECK_OK(parac_external_sort_add(sorter, &r, &error), &error);
    }
    CHECK_EQ_INT(parac_external_sort_count(sorter), count);
    /* the buffer holds half the budget, one record at the least */
    if (count > (budget / 2 / sizeof(record) ? budget / 2 / sizeof(record) : 1))
        CHECK(parac_external_sort_runs(sorter) > 0, "budget %llu spilled", (unsigned long long)budget);
    else CHECK_EQ_INT(parac_external_sort_runs(sorter), 0);
    CHECK_OK(parac_external_sort_finish(sorter, collect, &c, &error), &error);
    check_sorted(&c, count);
    parac_external_sort_destroy(sorter);
    free(c.records);
}

/* Pre-sorted runs interleaved with single records: ties keep the order of addition across both. */
static void check_mixed_runs(void)
{
    parac_external_sort *sorter = make_sorter(3 * sizeof(record), NULL);
    collected c = {malloc(400 * sizeof(record)), 0, 400, 0};
    parac_error error = {0};
    uint32_t sequence = 0;
    for (int round = 0; round < 20; round++) {
        record run[10];
        for (int i = 0; i < 10; i++) {
            record r = {(uint32_t)(i / 3), 0, 0};
            r.payload = (uint64_t)r.key * 3 + 1;
            r.sequence = sequence++;
            CHECK_OK(parac_external_sort_add(sorter, &r, &error), &error);
        }
        for (int i = 0; i < 10; i++) {
            run[i].key = (uint32_t)i / 2;
            run[i].sequence = sequence++;
            run[i].payload = (uint64_t)run[i].key * 3 + 1;
        }
        CHECK_OK(parac_external_sort_add_sorted_run(sorter, run, 10, &error), &error);
    }
    CHECK_OK(parac_external_sort_finish(sorter, collect, &c, &error), &error);
    check_sorted(&c, 400);
    parac_external_sort_destroy(sorter);
    free(c.records);
}

/* Records added (some written out as runs, some buffered), then cleared: only those added after the
 * clear come out, sorted, and the count starts again from 0. */
static void check_clear(uint64_t budget)
{
    parac_external_sort *sorter = make_sorter(budget, NULL);
    collected c = {malloc(300 * sizeof(record)), 0, 300, 0};
    parac_error error = {0};
    for (uint32_t i = 0; i < 500; i++) {
        record r = {1000 + i % 7, i, 0}; /* keys no record after the clear has */
        r.payload = (uint64_t)r.key * 3 + 1;
        CHECK_OK(parac_external_sort_add(sorter, &r, &error), &error);
    }
    CHECK(budget > 500 * 2 * sizeof(record) || parac_external_sort_runs(sorter) > 0, "spilled before the clear");
    CHECK_OK(parac_external_sort_clear(sorter, &error), &error);
    CHECK(parac_external_sort_count(sorter) == 0 && parac_external_sort_runs(sorter) == 0, "cleared");
    for (uint32_t i = 0; i < 200; i++) {
        record r = {(i * 37) % 50, i, 0};
        r.payload = (uint64_t)r.key * 3 + 1;
        CHECK_OK(parac_external_sort_add(sorter, &r, &error), &error);
    }
    CHECK_OK(parac_external_sort_finish(sorter, collect, &c, &error), &error);
    check_sorted(&c, 200);
    CHECK(c.count == 200 && c.records[199].key < 1000, "nothing from before the clear");
    CHECK(parac_external_sort_clear(sorter, &error) == PARAC_ERR_INVALID_ARGUMENT, "clear after finish is refused");
    parac_external_sort_destroy(sorter);
    free(c.records);
}

static void check_empty(uint64_t budget)
{
    parac_external_sort *sorter = make_sorter(budget, NULL);
    collected c = {malloc(sizeof(record)), 0, 1, 0};
    parac_error error = {0};
    CHECK_OK(parac_external_sort_finish(sorter, collect, &c, &error), &error);
    CHECK_EQ_INT(c.count, 0);
    CHECK(parac_external_sort_finish(sorter, collect, &c, &error) == PARAC_ERR_INVALID_ARGUMENT, "finish twice is refused");
    parac_external_sort_destroy(sorter);
    free(c.records);
}

static void check_stop(uint64_t budget)
{
    parac_external_sort *sorter = make_sorter(budget, NULL);
    collected c = {malloc(1000 * sizeof(record)), 0, 1000, 7};
    parac_error error = {0};
    for (uint32_t i = 0; i < 1000; i++) {
        record r = {999 - i, i, (uint64_t)(999 - i) * 3 + 1};
        CHECK_OK(parac_external_sort_add(sorter, &r, &error), &error);
    }
    CHECK(parac_external_sort_finish(sorter, collect, &c, &error) == PARAC_ERR_CANCELLED, "a callback stops the merge");
    CHECK(c.count == 7 && c.records[6].key == 6, "stopped after 7 records (%zu)", c.count);
    parac_external_sort_destroy(sorter);
    free(c.records);
}

static void check_missing_directory(void)
{
    parac_external_sort *sorter = make_sorter(sizeof(record), "/nonexistent-parac-dir");
    parac_error error = {0};
    record r = {1, 0, 4};
    parac_status status = PARAC_OK;
    for (int i = 0; i < 4 && status == PARAC_OK; i++) status = parac_external_sort_add(sorter, &r, &error);
    CHECK(status == PARAC_ERR_IO && strstr(error.message, "/nonexistent-parac-dir"), "IO error naming the directory: %s",
          error.message);
    parac_external_sort_destroy(sorter);
}

/* A file size limit makes the run file's writes fail the way a full disk does. */
static void check_full_disk(void)
{
    struct rlimit old, small;
    parac_external_sort *sorter = make_sorter(64 * sizeof(record), NULL);
    parac_error error = {0};
    parac_status status = PARAC_OK;
    collected c = {malloc(sizeof(record)), 0, 1, 0};
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    for (uint32_t i = 0; i < 100000 && status == PARAC_OK; i++) {
        record r = {i % 1000, i, (uint64_t)(i % 1000) * 3 + 1};
        status = parac_external_sort_add(sorter, &r, &error);
    }
    if (status == PARAC_OK) status = parac_external_sort_finish(sorter, collect, &c, &error);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(status == PARAC_ERR_IO && strstr(error.message, "temporary file"), "a full disk is an IO error: %s",
          error.message);
    parac_external_sort_destroy(sorter);
    free(c.records);
}

int main(void)
{
    check_clear(4 * sizeof(record));   /* a run every two records */
    check_clear(1 << 20);              /* all in memory */
    check_random(0, 10, 1 << 20);
    check_random(1, 10, 1);
    check_random(5000, 1u << 30, 1 << 20);                 /* in memory */
    check_random(5000, 1u << 30, 1);                       /* one record per run: 5000 runs, 13 passes */
    check_random(5000, 7, 10 * sizeof(record));            /* many ties */
    check_random(20000, 1u << 30, 3 * 64 * 1024 + 17);     /* fan-in 3, odd buffer sizes */
    check_random(300000, 1000, 1 << 20);                   /* 4.8 MB through 1 MB: 10 runs, one pass */
    check_mixed_runs();
    check_empty(0);
    check_empty(1 << 20);
    check_stop(1 << 20);
    check_stop(100);
    check_missing_directory();
    check_full_disk();
    {
        record sorted[40], scratch[40];
        collected c = {sorted, 40, 40, 0};
        for (uint32_t i = 0; i < 40; i++) sorted[i] = (record){(i * 7) % 5, i, (uint64_t)((i * 7) % 5) * 3 + 1};
        parac_sort_records(sorted, scratch, 40, sizeof(record), by_key, NULL);
        check_sorted(&c, 40);
    }
    return test_finish("external_sort");
}

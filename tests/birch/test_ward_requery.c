/* tests/birch/test_ward_requery.c — the Ward chain's kept answers (birch/ward_requery.c) against a
 * scan of every live cluster: whenever a kept answer is given it is the scan's least (distance, id),
 * bit for bit, through merges that kill clusters, move centroids and grow sizes (the survivor keeps
 * the larger id, as in the chain), on centroids in general position and on a coarse integer grid
 * (many equal distances: the tie must go to the smaller id); and most repeated queries are
 * answered from what was kept (of a few hundred clusters or more), else the cache would be dead
 * weight. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "birch/ward_requery.h"
#include "support_birch.h"
#include "test_util.h"

#define POSITIONS 4

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

typedef struct simulation {
    size_t m, dims, step, live;
    double *centers;
    int64_t *size;
    size_t *changed_at;
    birch_merge *merges;
    ward_candidate *by_scan;
} simulation;

static void merge_pair(simulation *s, size_t x, size_t y)
{
    size_t gone = x < y ? x : y, kept = x < y ? y : x;
    for (size_t k = 0; k < s->dims; k++)
        s->centers[kept * s->dims + k] = (s->centers[gone * s->dims + k] * (double)s->size[gone] +
                                          s->centers[kept * s->dims + k] * (double)s->size[kept]) /
                                         (double)(s->size[gone] + s->size[kept]);
    s->size[kept] += s->size[gone];
    s->size[gone] = 0;
    s->merges[s->step].a = (int32_t)gone, s->merges[s->step].b = (int32_t)kept;
    s->changed_at[kept] = ++s->step;
    s->live--;
}

static size_t random_live(simulation *s, uint64_t *state)
{
    size_t x;
    do x = (size_t)(next_random(state) % s->m);
    while (s->size[x] == 0);
    return x;
}

static void check_answers(size_t m, size_t dims, size_t k, int grid, uint64_t seed)
{
    simulation s = {m, dims, 0, m, malloc(m * dims * sizeof(double)), malloc(m * sizeof(int64_t)),
                    calloc(m, sizeof(size_t)), malloc(m * sizeof(birch_merge)), malloc(m * sizeof(ward_candidate))};
    ward_requery *requery = ward_requery_new(POSITIONS);
    size_t owner[POSITIONS], asked = 0, answered = 0, wrong = 0;
    uint64_t state = seed;
    for (size_t i = 0; i < m * dims; i++)
        s.centers[i] = grid ? (double)(next_random(&state) % 6) : (double)(next_random(&state) % 1000000) / 997.0;
    for (size_t i = 0; i < m; i++) s.size[i] = (int64_t)(next_random(&state) % 4 == 0 ? 1 + next_random(&state) % 500 : 1);
    for (size_t p = 0; p < POSITIONS; p++) owner[p] = random_live(&s, &state);
    while (s.live > 1) {
        for (size_t p = 0; p < POSITIONS; p++) {
            ward_history history = {s.centers, s.size, dims, s.changed_at, s.merges, s.step};
            ward_candidate answer;
            size_t count;
            ward_requery_result result;
            if (s.size[owner[p]] == 0 || next_random(&state) % 16 == 0) owner[p] = random_live(&s, &state);
            count = support_ward_by_scan(s.centers, s.size, m, dims, owner[p], s.by_scan);
            result = ward_requery_answer(requery, &history, p, owner[p], &answer);
            asked++;
            if (result == WARD_REQUERY_ANSWERED) {
                answered++;
                wrong += count == 0 || answer.id != s.by_scan[0].id ||
                         memcmp(&answer.distance, &s.by_scan[0].distance, sizeof(double)) != 0;
            } else if (result == WARD_REQUERY_ASK_K) {
                ward_requery_keep(requery, &history, p, owner[p], s.by_scan, count < k ? count : k, k);
            }
        }
        /* a merge of one of an owner's nearest (what it kept dies or moves away, until the k-th
         * nearest of the build no longer bounds the rest) or anywhere */
        {
            size_t x = random_live(&s, &state), count;
            if (next_random(&state) % 4 != 0) {
                count = support_ward_by_scan(s.centers, s.size, m, dims, owner[next_random(&state) % POSITIONS], s.by_scan);
                x = s.by_scan[next_random(&state) % (count < 2 ? count : 2)].id;
            }
            count = support_ward_by_scan(s.centers, s.size, m, dims, x, s.by_scan);
            size_t y = s.by_scan[next_random(&state) % (count < 3 ? count : 3)].id;
            if (x != y) merge_pair(&s, x, y);
        }
    }
    CHECK(wrong == 0, "%zu of %zu kept answers (m %zu, %zu-D, k %zu, %s) differ from the scan", wrong, answered, m,
          dims, k, grid ? "grid" : "general");
    CHECK(m < 100 || answered * 4 > asked, "only %zu of %zu queries answered from what was kept (m %zu, %zu-D, k %zu, %s)",
          answered, asked, m, dims, k, grid ? "grid" : "general");
    ward_requery_free(requery);
    free(s.centers), free(s.size), free(s.changed_at), free(s.merges), free(s.by_scan);
}

int main(void)
{
    static const size_t dims[] = {1, 2, 3, 8};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        check_answers(800, dims[d], WARD_REQUERY_K, 0, 3 + d);
        check_answers(800, dims[d], WARD_REQUERY_K, 1, 17 + d);
        /* few kept: the k-th nearest of the build bounds the answer often */
        check_answers(800, dims[d], 3, 0, 29 + d);
        check_answers(800, dims[d], 3, 1, 41 + d);
    }
    check_answers(2, 2, WARD_REQUERY_K, 0, 5); /* one merge */
    check_answers(20, 2, WARD_REQUERY_K, 1, 9); /* fewer live clusters than the k kept */
    return test_finish("birch.ward_requery");
}

/* ac/global_cumulative.c — cumulative by timetable reasoning on compulsory parts: task j surely
 * runs during [max o_j, min o_j + min l_j) with at least min h_j; origin a of task i stays only if
 * placing i at [a, a + min l_i) keeps the others' compulsory profile plus min h_i within the
 * capacity (condition le / lt with a constant or variable limit: its largest value). Heights that
 * can be negative disable it. Strength "partial" (the support search gives GAC on small scopes).
 * The parts are swept once into a profile of constant-load pieces; each task's origins are then
 * checked against the pieces it would overload, in one walk: tasks x (tasks + values) a pass, where
 * a scan of every part for every value of every task took tasks^2 x values (1,000 tasks over
 * 0..10000: 16 s).
 */
#include "ac/global_propagate.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct compulsory {
    int64_t start, end, height;  /* [start, end) */
} compulsory;

/* The compulsory profile: pieces [start, end) of constant load > 0, ascending, cut at every part's
 * start and end, so that each piece lies wholly inside or outside any one part. */
typedef struct profile_piece {
    int64_t start, end;
    __int128 load;
} profile_piece;

typedef struct profile_event {
    int64_t time;
    int64_t delta_sign; /* +1 a part starts, -1 it ends */
    int64_t height;
} profile_event;

static int by_time(const void *x, const void *y)
{
    int64_t a = ((const profile_event *)x)->time, b = ((const profile_event *)y)->time;
    return a < b ? -1 : a > b;
}

/* Returns the number of pieces (written to pieces, room for 2n), or SIZE_MAX when out of memory. */
static size_t build_profile(const compulsory *parts, size_t n, profile_piece *pieces)
{
    profile_event *events = malloc((2 * n + 1) * sizeof *events);
    size_t count = 0, pieces_made = 0;
    __int128 load = 0;
    if (!events) return SIZE_MAX;
    for (size_t j = 0; j < n; j++)
        if (parts[j].start < parts[j].end && parts[j].height > 0) {
            events[count++] = (profile_event){parts[j].start, 1, parts[j].height};
            events[count++] = (profile_event){parts[j].end, -1, parts[j].height};
        }
    qsort(events, count, sizeof *events, by_time);
    for (size_t e = 0; e < count;) {
        int64_t time = events[e].time;
        for (; e < count && events[e].time == time; e++) load += events[e].delta_sign * (__int128)events[e].height;
        if (e < count && load > 0) pieces[pieces_made++] = (profile_piece){time, events[e].time, load};
    }
    free(events);
    return pieces_made;
}

/* Origins of task i (placed at [a, a + length) with `height`) that overload the profile without
 * i's own compulsory part: a piece whose load without i plus height passes the capacity rules out
 * every a with [a, a + length) meeting it, a in (piece start - length, piece end). Ascending. */
static size_t overload_intervals(const profile_piece *pieces, size_t piece_count, const compulsory *own,
                                 int64_t length, int64_t height, int64_t capacity, ac_open_interval *out)
{
    size_t count = 0;
    if (height > capacity) { /* too high even where nothing else runs: no origin stays */
        out[0].after = -((__int128)1 << 64);
        out[0].before = (__int128)1 << 64;
        return 1;
    }
    for (size_t p = 0; p < piece_count; p++) {
        __int128 load = pieces[p].load;
        if (own->start <= pieces[p].start && pieces[p].end <= own->end) load -= own->height;
        if (load + height <= capacity) continue;
        out[count].after = (__int128)pieces[p].start - length;
        out[count].before = pieces[p].end;
        count++;
    }
    return count;
}

AC_PROPAGATOR(cumulative)
{
    const ac_term *origins = global->lists[0], *lengths = global->lists[1], *heights = global->lists[2];
    size_t n = global->list_length[0], piece_count;
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values), capacity;
    compulsory *parts = malloc((n + 1) * sizeof *parts);
    profile_piece *pieces = malloc((2 * n + 1) * sizeof *pieces);
    ac_open_interval *intervals = malloc((2 * n + 1) * sizeof *intervals);
    int wipeout = 0;
    (void)stats;
    if (!values || !parts || !pieces || !intervals || global->list_count < 3) goto done;
    if (global->condition.op != AC_OP_LE && global->condition.op != AC_OP_LT) goto done;
    capacity = ac_term_max(model, domains, &global->condition.operand) - (global->condition.op == AC_OP_LT);
    for (size_t j = 0; j < n; j++) {
        int64_t latest = ac_term_max(model, domains, &origins[j]);
        __int128 earliest_end = (__int128)ac_term_min(model, domains, &origins[j]) + ac_term_min(model, domains, &lengths[j]);
        if (ac_term_min(model, domains, &heights[j]) < 0 || ac_term_min(model, domains, &lengths[j]) < 0) goto done;
        if (earliest_end > INT64_MAX) earliest_end = INT64_MAX;
        parts[j] = (compulsory){latest, earliest_end > latest ? (int64_t)earliest_end : latest,
                                ac_term_min(model, domains, &heights[j])};
    }
    /* one profile for the pass: the bounds it reads are the pass's start (revise() runs this weak
     * propagator again until a pass removes nothing; the rule is monotone, so the fixpoint is the
     * same as with bounds re-read after every removal) */
    if ((piece_count = build_profile(parts, n, pieces)) == SIZE_MAX) goto done;
    for (size_t i = 0; i < n && !wipeout; i++) {
        int64_t length = ac_term_min(model, domains, &lengths[i]), height = ac_term_min(model, domains, &heights[i]);
        size_t count;
        if (length == 0) continue;
        count = overload_intervals(pieces, piece_count, &parts[i], length, height, capacity, intervals);
        if (count) wipeout = ac_term_remove_intervals(model, domains, &origins[i], intervals, count, values, changed);
    }
done:
    free(values), free(parts), free(pieces), free(intervals);
    return wipeout;
}

/* birch/ward_requery.c — kept nearest clusters for the Ward chain's repeated queries (see
 * ward_requery.h for why the answer is the tree's).
 *
 * A slot per chain position holds its owner's k nearest from the last tree query and, appended at
 * each re-query, the clusters merged since (each measured once, against its state then). A kept
 * cluster counts only while it is as it was when measured (alive, changed_at equal to its stamp);
 * a later change appends it again. A slot full of such changes asks the tree again.
 */
#include "birch/ward_requery.h"

#include <stdlib.h>

/* k nearest plus room for the clusters changed since: about 50 merges between queries of the
 * chain's bottom before the tree is asked again. */
#define WARD_REQUERY_CAPACITY (WARD_REQUERY_K + 48)

typedef struct kept_cluster {
    ward_candidate candidate;
    size_t stamp; /* the cluster's changed_at when measured */
} kept_cluster;

typedef struct requery_slot {
    size_t owner;       /* SIZE_MAX: none yet */
    size_t owner_stamp; /* the owner's changed_at when it came to this position */
    int kept_any;       /* the tree's k nearest are kept (the owner was asked at least twice) */
    size_t scanned_to;  /* merges whose changed cluster is measured */
    int bounded;        /* k were kept of more: every unchanged cluster not kept is above `bound` */
    ward_candidate bound;
    size_t count;
    kept_cluster kept[WARD_REQUERY_CAPACITY];
} requery_slot;

struct ward_requery {
    size_t depth;
    requery_slot *slots;
};

ward_requery *ward_requery_new(size_t depth)
{
    ward_requery *requery = malloc(sizeof *requery);
    if (!requery) return NULL;
    requery->depth = depth;
    requery->slots = malloc(depth * sizeof *requery->slots);
    if (!requery->slots) {
        free(requery);
        return NULL;
    }
    for (size_t p = 0; p < depth; p++) requery->slots[p].owner = SIZE_MAX;
    return requery;
}

void ward_requery_free(ward_requery *requery)
{
    if (!requery) return;
    free(requery->slots);
    free(requery);
}

static void keep(requery_slot *slot, const ward_history *history, ward_candidate candidate)
{
    slot->kept[slot->count].candidate = candidate;
    slot->kept[slot->count++].stamp = history->changed_at[candidate.id];
}

/* Measures the clusters the merges since the last call changed; 0 when the slot is full. */
static int measure_changed(requery_slot *slot, const ward_history *history, size_t x)
{
    const double *c = history->centers + x * history->dims;
    for (size_t j = slot->scanned_to; j < history->step; j++) {
        size_t y = (size_t)history->merges[j].b;
        ward_candidate candidate;
        if (y == x || history->size[y] == 0 || history->changed_at[y] != j + 1) continue; /* dead, or changed again */
        if (slot->count == WARD_REQUERY_CAPACITY) return 0;
        candidate.distance = birch_ward_squared(c, history->size[x], history->centers + y * history->dims,
                                                history->size[y], history->dims);
        candidate.id = y;
        keep(slot, history, candidate);
    }
    slot->scanned_to = history->step;
    return 1;
}

ward_requery_result ward_requery_answer(ward_requery *requery, const ward_history *history, size_t position,
                                        size_t x, ward_candidate *answer)
{
    requery_slot *slot;
    int found = 0;
    if (position >= requery->depth) return WARD_REQUERY_ASK_ONE;
    slot = &requery->slots[position];
    if (slot->owner != x || slot->owner_stamp != history->changed_at[x]) { /* a new owner: asked once so far */
        slot->owner = x;
        slot->owner_stamp = history->changed_at[x];
        slot->kept_any = 0;
        return WARD_REQUERY_ASK_ONE;
    }
    if (!slot->kept_any || !measure_changed(slot, history, x)) return WARD_REQUERY_ASK_K;
    for (size_t t = 0; t < slot->count; t++) {
        const kept_cluster *kept = &slot->kept[t];
        if (history->size[kept->candidate.id] == 0 || history->changed_at[kept->candidate.id] != kept->stamp) continue;
        if (!found || ward_candidate_less(kept->candidate, *answer)) *answer = kept->candidate, found = 1;
    }
    if (!found || (slot->bounded && ward_candidate_less(slot->bound, *answer))) return WARD_REQUERY_ASK_K;
    return WARD_REQUERY_ANSWERED;
}

void ward_requery_keep(ward_requery *requery, const ward_history *history, size_t position, size_t x,
                       const ward_candidate *nearest, size_t count, size_t k)
{
    requery_slot *slot = &requery->slots[position];
    slot->owner = x;
    slot->owner_stamp = history->changed_at[x];
    slot->kept_any = 1;
    slot->scanned_to = history->step;
    slot->count = 0;
    for (size_t t = 0; t < count; t++) keep(slot, history, nearest[t]);
    slot->bounded = count == k;
    if (slot->bounded) slot->bound = nearest[count - 1];
}

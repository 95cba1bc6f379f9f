/* ac/ac3.c — the AC3 family's variable-queue engine, and AC3's revision.
 *
 * The queue holds variables, not arcs (as ACE and Choco do): when D(y)
 * shrinks, every arc (x, y) and every n-ary constraint (table or global) over y is revised once. A FIFO
 * ring with an in-queue flag keeps each variable at most once in the queue.
 */
#include "ac/ac_algorithms.h"

#include <stdlib.h>

#include "core/error.h"

typedef struct variable_queue {
    uint32_t *items;
    uint8_t *queued;
    size_t capacity, head, count;
} variable_queue;

static void queue_push(variable_queue *queue, uint32_t var)
{
    if (queue->queued[var]) return;
    queue->queued[var] = 1;
    queue->items[(queue->head + queue->count++) % queue->capacity] = var;
}

static uint32_t queue_pop(variable_queue *queue)
{
    uint32_t var = queue->items[queue->head];
    queue->head = (queue->head + 1) % queue->capacity;
    queue->count--;
    queue->queued[var] = 0;
    return var;
}

/* When each variable last changed and each n-ary constraint was last revised, on one clock: popping
 * y revises an n-ary constraint only when y changed after that constraint's last revision (table and
 * global revisions are idempotent, ac_revise_global repeating a weak propagator to its fixpoint, so
 * a constraint's own removals never call it again; a global constraint over 200 variables is
 * revised a few times, not once per variable). */
typedef struct revision_clock {
    uint64_t now;
    uint64_t *changed_at;   /* per variable */
    uint64_t *revised_at;   /* per n-ary constraint */
} revision_clock;

/* Revises every n-ary constraint (table or global) over y that y's last change concerns; pushes
 * the variables that shrank. Returns 1 on wipe-out. */
static int revise_nary_on(const ac_model *model, ac_domains *domains, uint32_t y, uint8_t *changed,
                          variable_queue *queue, revision_clock *clock, parac_ac_stats *stats)
{
    for (size_t i = model->nary_on_offset[y]; i < model->nary_on_offset[y + 1]; i++) {
        size_t c = model->nary_on[i];
        const ac_nary *con = &model->nary[c];
        int wipeout;
        if (clock->revised_at[c] > clock->changed_at[y]) continue;
        wipeout = ac_revise_nary(model, domains, c, changed, stats);
        for (uint32_t k = 0; k < con->arity; k++) {
            uint32_t var = con->scope[k];
            if (changed[var]) {
                queue_push(queue, var);
                clock->changed_at[var] = ++clock->now;
            }
            changed[var] = 0;
        }
        clock->revised_at[c] = ++clock->now;
        if (wipeout) return 1;
    }
    return 0;
}

#define CHECKPOINT_EVERY 64 /* popped variables between cancel checks (each revises every arc on y) */

static int propagate_queue(const ac_model *model, ac_domains *domains, const ac_reviser *reviser,
                           variable_queue *queue, uint8_t *changed, revision_clock *clock, parac_ac_stats *stats,
                           parac_error *error, parac_status *status)
{
    while (queue->count) {
        uint32_t y = queue_pop(queue);
        if (++stats->iterations % CHECKPOINT_EVERY == 0 && ac_cancelled(model, error, status)) return 0;
        for (size_t i = model->arcs_on_offset[y]; i < model->arcs_on_offset[y + 1]; i++) {
            size_t arc = model->arcs_on[i];
            uint32_t x = model->arcs[arc].x;
            uint64_t removed;
            stats->revisions++;
            removed = reviser->revise(reviser->state, model, domains, arc);
            if (!removed) continue;
            domains->size[x] -= (uint32_t)removed;
            if (domains->size[x] == 0) return 1;
            queue_push(queue, x);
            clock->changed_at[x] = ++clock->now;
        }
        if (model->nary_count && revise_nary_on(model, domains, y, changed, queue, clock, stats)) return 1;
    }
    return 0;
}

int ac_propagate_variables(const ac_model *model, ac_domains *domains, const ac_reviser *reviser,
                           const uint32_t *start, size_t start_count, parac_ac_stats *stats, parac_error *error,
                           parac_status *status)
{
    size_t n = model->network->variable_count;
    variable_queue queue = {malloc((n + 1) * sizeof(uint32_t)), calloc(n + 1, 1), n ? n : 1, 0, 0};
    uint8_t *changed = calloc(n + 1, 1);
    revision_clock clock = {1, calloc(n + 1, sizeof(uint64_t)), calloc(model->nary_count + 1, sizeof(uint64_t))};
    int wipeout = 0;
    *status = PARAC_OK;
    if (!queue.items || !queue.queued || !changed || !clock.changed_at || !clock.revised_at) {
        *status = parac_fail_no_memory(error, "propagation queue", (unsigned long long)n * 6);
        goto done;
    }
    for (size_t v = 0; v < n; v++)
        if (domains->size[v] == 0) wipeout = 1;
    if (wipeout) goto done;
    if (start)
        for (size_t i = 0; i < start_count; i++) queue_push(&queue, start[i]);
    else
        for (size_t v = 0; v < n; v++) queue_push(&queue, (uint32_t)v);
    for (size_t v = 0; v < n; v++) clock.changed_at[v] = 1; /* every constraint is due once */
    wipeout = propagate_queue(model, domains, reviser, &queue, changed, &clock, stats, error, status);
done:
    free(queue.items);
    free(queue.queued);
    free(changed);
    free(clock.changed_at);
    free(clock.revised_at);
    return wipeout;
}

/* AC3: for each value a of x, look for a support b in D(y) from slot 0, one check at a time. */
static uint64_t revise_ac3(void *state, const ac_model *model, ac_domains *domains, size_t arc_index)
{
    const ac_arc *arc = &model->arcs[arc_index];
    const parac_csp_network *net = model->network;
    parac_word *dom_x = ac_domain_of(model, domains, arc->x);
    const parac_word *dom_y = ac_domain_of(model, domains, arc->y);
    uint32_t size_x = net->domain_size[arc->x], size_y = net->domain_size[arc->y];
    uint64_t removed = 0;
    (void)state;
    for (size_t a = parac_bitset_next(dom_x, size_x, 0); a < size_x; a = parac_bitset_next(dom_x, size_x, a + 1)) {
        const parac_word *row = arc->matrix + a * arc->row_words;
        if (ac_next_support(dom_y, row, 0, size_y) == size_y) {
            parac_bitset_clear_bit(dom_x, a);
            removed++;
        }
    }
    return removed;
}

parac_status ac_run_ac3(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    ac_reviser reviser = {revise_ac3, NULL};
    parac_status status;
    stats->wipeout = ac_propagate_variables(model, domains, &reviser, NULL, 0, stats, error, &status);
    return status;
}

parac_status ac_run_with_arc_value_state(const ac_model *model, ac_domains *domains,
                                         uint64_t (*revise)(void *, const ac_model *, ac_domains *, size_t),
                                         const char *what, parac_ac_stats *stats, parac_error *error)
{
    uint64_t slots = model->arc_value_offset[model->arc_count];
    uint32_t *state = calloc(slots + 1, sizeof *state);
    ac_reviser reviser = {revise, state};
    parac_status status;
    if (!state) return parac_fail_no_memory(error, what, (unsigned long long)slots * 4);
    stats->wipeout = ac_propagate_variables(model, domains, &reviser, NULL, 0, stats, error, &status);
    free(state);
    return status;
}

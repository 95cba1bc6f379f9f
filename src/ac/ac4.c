/* ac/ac4.c — AC4: a support counter per (arc, a) in one array, and the support
 * lists of every (arc, b) as CSR (offsets + slot list), built from the
 * transposed matrices. Deleting (y, b) walks its lists and decrements
 * counters; a counter reaching 0 deletes its value. N-ary constraints (tables
 * and globals), when present, are revised (GAC) whenever the value queue drains
 * and one of their variables lost a value. */
#include "ac/ac_algorithms.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

typedef struct ac4_value {
    uint32_t var, slot;
} ac4_value;

typedef struct ac4_state {
    const ac_model *model;
    ac_domains *domains;
    uint32_t *counter;          /* per (arc, a) */
    uint64_t *support_offset;   /* per (arc, b) slot of the reverse arc, + 1 */
    uint32_t *support;          /* slots a of x supported by (y, b) */
    ac4_value *stack;
    size_t stack_count;
    uint8_t *table_dirty;       /* per n-ary constraint */
    parac_ac_stats *stats;
    parac_error *error;
    parac_status status;        /* PARAC_ERR_CANCELLED after a checkpoint saw a cancel */
} ac4_state;

#define CHECKPOINT_EVERY 4096 /* arcs counted, or deletions propagated, between cancel checks */

static int cancelled(ac4_state *s, uint64_t step)
{
    return step % CHECKPOINT_EVERY == 0 && ac_cancelled(s->model, s->error, &s->status);
}

/* The support list of (y, b) on arc (x, y) is the set bits of row b of the
 * reverse arc's matrix; it lives at slot arc_value_offset[arc ^ 1] + b. Lists
 * are laid out in slot order so that offset[slot + 1] ends each one. */
static parac_status build_support_lists(ac4_state *s, parac_error *error)
{
    const ac_model *model = s->model;
    uint64_t slots = model->arc_value_offset[model->arc_count], total = 0;
    s->support_offset = malloc((slots + 1) * sizeof *s->support_offset);
    if (!s->support_offset) return parac_fail_no_memory(error, "AC4 support offsets", (unsigned long long)slots * 8);
    for (size_t arc = 0; arc < model->arc_count; arc++) { /* in slot order, so offsets grow */
        const ac_arc *reverse = &model->arcs[arc];
        uint32_t rows = model->network->domain_size[reverse->x];
        for (uint32_t b = 0; b < rows; b++) {
            s->support_offset[model->arc_value_offset[arc] + b] = total;
            total += parac_bitset_popcount(reverse->matrix + (size_t)b * reverse->row_words, reverse->row_words);
        }
    }
    s->support_offset[slots] = total;
    s->support = malloc((total + 1) * sizeof *s->support);
    if (!s->support) return parac_fail_no_memory(error, "AC4 support lists", (unsigned long long)total * 4);
    for (size_t arc = 0; arc < model->arc_count; arc++) {
        const ac_arc *reverse = &model->arcs[arc];
        uint32_t rows = model->network->domain_size[reverse->x], columns = model->network->domain_size[reverse->y];
        for (uint32_t b = 0; b < rows; b++) {
            const parac_word *row = reverse->matrix + (size_t)b * reverse->row_words;
            uint64_t at = s->support_offset[model->arc_value_offset[arc] + b];
            for (size_t a = parac_bitset_next(row, columns, 0); a < columns; a = parac_bitset_next(row, columns, a + 1))
                s->support[at++] = (uint32_t)a;
        }
    }
    return PARAC_OK;
}

/* Returns 1 on wipe-out. */
static int delete_value(ac4_state *s, uint32_t var, uint32_t slot)
{
    parac_word *dom = ac_domain_of(s->model, s->domains, var);
    if (!parac_bitset_test(dom, slot)) return 0;
    parac_bitset_clear_bit(dom, slot);
    s->stack[s->stack_count++] = (ac4_value){var, slot};
    return --s->domains->size[var] == 0;
}

/* Counters from the initial domains first, then the deletions (deleting while
 * counting would count a deleted support twice). */
static int init_counters(ac4_state *s)
{
    const ac_model *model = s->model;
    const parac_csp_network *net = model->network;
    for (size_t arc = 0; arc < model->arc_count; arc++) {
        const ac_arc *a_ = &model->arcs[arc];
        const parac_word *dom_y = ac_domain_of(model, s->domains, a_->y);
        if (cancelled(s, arc + 1)) return 0;
        for (uint32_t a = 0; a < net->domain_size[a_->x]; a++) {
            parac_word count = 0;
            const parac_word *row = a_->matrix + (size_t)a * a_->row_words;
            for (size_t w = 0; w < a_->row_words; w++) count += (parac_word)__builtin_popcountll(row[w] & dom_y[w]);
            s->counter[model->arc_value_offset[arc] + a] = (uint32_t)count;
        }
    }
    for (size_t arc = 0; arc < model->arc_count; arc++) {
        uint32_t x = model->arcs[arc].x;
        for (uint32_t a = 0; a < net->domain_size[x]; a++)
            if (s->counter[model->arc_value_offset[arc] + a] == 0 && delete_value(s, x, a)) return 1;
    }
    return 0;
}

static int propagate_deletion(ac4_state *s, ac4_value deleted)
{
    const ac_model *model = s->model;
    for (size_t i = model->arcs_on_offset[deleted.var]; i < model->arcs_on_offset[deleted.var + 1]; i++) {
        size_t arc = model->arcs_on[i];
        uint32_t x = model->arcs[arc].x;
        uint32_t *counter = s->counter + model->arc_value_offset[arc];
        uint64_t list = model->arc_value_offset[arc ^ 1] + deleted.slot;
        const parac_word *dom_x = ac_domain_of(model, s->domains, x);
        for (uint64_t k = s->support_offset[list]; k < s->support_offset[list + 1]; k++) {
            uint32_t a = s->support[k];
            s->stats->revisions++;
            if (parac_bitset_test(dom_x, a) && --counter[a] == 0 && delete_value(s, x, a)) return 1;
        }
    }
    for (size_t i = model->nary_on_offset[deleted.var]; i < model->nary_on_offset[deleted.var + 1]; i++)
        s->table_dirty[model->nary_on[i]] = 1;
    return 0;
}

/* GAC on each dirty n-ary constraint (table or global); its deletions go on the stack like AC4's own. */
static int revise_dirty_tables(ac4_state *s, parac_word *before)
{
    const ac_model *model = s->model;
    const parac_csp_network *net = model->network;
    for (size_t c = 0; c < model->nary_count; c++) {
        const ac_nary *con = &model->nary[c];
        if (!s->table_dirty[c]) continue;
        s->table_dirty[c] = 0;
        for (uint32_t i = 0; i < con->arity; i++) { /* snapshot the scope only, to diff after the revision */
            uint32_t var = con->scope[i];
            size_t at = model->domain_word_offset[var];
            memcpy(before + at, s->domains->words + at, (model->domain_word_offset[var + 1] - at) * sizeof *before);
        }
        if (ac_revise_nary(model, s->domains, c, NULL, s->stats)) return 1;
        for (uint32_t i = 0; i < con->arity; i++) {
            uint32_t var = con->scope[i];
            const parac_word *now = ac_domain_of(model, s->domains, var);
            const parac_word *old = before + model->domain_word_offset[var];
            uint32_t size = net->domain_size[var];
            for (size_t b = parac_bitset_next(old, size, 0); b < size; b = parac_bitset_next(old, size, b + 1))
                if (!parac_bitset_test(now, b)) s->stack[s->stack_count++] = (ac4_value){var, (uint32_t)b};
            if (s->domains->size[var] == 0) return 1;
        }
    }
    return 0;
}

static int ac4_propagate(ac4_state *s, parac_word *before)
{
    for (;;) {
        while (s->stack_count) {
            if (cancelled(s, ++s->stats->iterations)) return 0;
            if (propagate_deletion(s, s->stack[--s->stack_count])) return 1;
        }
        if (!s->model->nary_count) return 0;
        if (revise_dirty_tables(s, before)) return 1;
        if (!s->stack_count) return 0;
    }
}

parac_status ac_run_ac4(const ac_model *model, ac_domains *domains, parac_ac_stats *stats, parac_error *error)
{
    const parac_csp_network *net = model->network;
    uint64_t slots = model->arc_value_offset[model->arc_count];
    size_t words = model->domain_word_offset[net->variable_count];
    ac4_state s = {model, domains, calloc(slots + 1, sizeof(uint32_t)), NULL, NULL,
                   malloc((net->value_count + 1) * sizeof(ac4_value)), 0, calloc(model->nary_count + 1, 1), stats,
                   error, PARAC_OK};
    parac_word *before = malloc((words + 1) * sizeof *before);
    parac_status status = PARAC_OK;
    stats->wipeout = 0;
    if (!s.counter || !s.stack || !s.table_dirty || !before) {
        status = parac_fail_no_memory(error, "AC4 counters", (unsigned long long)slots * 4);
        goto done;
    }
    for (size_t v = 0; v < net->variable_count; v++)
        if (domains->size[v] == 0) stats->wipeout = 1;
    if (stats->wipeout) goto done;
    if ((status = build_support_lists(&s, error)) != PARAC_OK) goto done;
    for (size_t c = 0; c < model->nary_count; c++) s.table_dirty[c] = 1;
    if (ac_cancelled(model, error, &status)) goto done; /* the support lists may have taken a while */
    stats->wipeout = init_counters(&s);
    if (s.status == PARAC_OK && !stats->wipeout) stats->wipeout = ac4_propagate(&s, before);
    status = s.status;
done:
    free(s.counter);
    free(s.support_offset);
    free(s.support);
    free(s.stack);
    free(s.table_dirty);
    free(before);
    return status;
}

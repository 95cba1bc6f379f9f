/* fca/association_rules.c — association rules between frequent closed itemsets.
 *
 * The frequent closed itemsets are the intents with at least min_support
 * objects (parac_fca_compute with that min_support). A rule X -> Y joins two of
 * them, B1 ⊊ B2: X = B1, Y = B2 \ B1, support |B2'|, confidence |B2'| / |B1'|.
 *
 * The Luxenburger basis keeps the pairs where B2 covers B1: the lattice's
 * covering edges (lattice.c, which works on iceberg lattices too: a concept
 * between two frequent ones is frequent). Every pair is the end of a path of
 * covers, and its confidence the product of theirs.
 *
 * All rules: from each B2, a breadth-first walk up through its upper covers.
 * Confidence only falls going up (B1 ⊆ B0 gives |B1'| >= |B0'|), so the walk
 * stops where it drops below min_confidence and visits nothing it will not
 * report; max_rules stops it before the rules outgrow what the caller allowed.
 */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/error.h"
#include "core/threads.h"
#include "fca/concept_stream.h"
#include "fca/fca_internal.h"
#include "fca/itemset_pairs.h"

struct parac_fca_rules {
    fca_itemset_pairs rules;
};

/* The frequent closed itemsets with their supports and the lattice's covers. */
typedef struct closed_itemsets {
    parac_fca_concepts *concepts;
    parac_fca_lattice *lattice;
    uint64_t *supports;
    uint32_t *premise_ids, *whole_ids; /* a rule's two intents, decoded (room for every attribute) */
} closed_itemsets;

static void closed_itemsets_release(closed_itemsets *closed)
{
    parac_fca_lattice_destroy(closed->lattice);
    parac_fca_concepts_destroy(closed->concepts);
    free(closed->supports);
    free(closed->premise_ids);
    free(closed->whole_ids);
}

/* |B'| of a concept's intent B, given by its ids: on a wide sparse context (no bit matrices:
 * fca_covers_use_cells) the objects of B's shortest column that hold all of B, else the AND of B's
 * columns, counted. */
static uint64_t intent_support(const parac_fca_context *context, const uint32_t *ids, size_t size,
                               const parac_word *columns, const fca_column_lists *lists, parac_word *extent)
{
    size_t object_words = context->object_words;
    if (lists) return fca_extent_from_cells(context, lists, ids, size, NULL, 0);
    parac_bitset_fill(extent, context->objects);
    for (size_t i = 0; i < size; i++) parac_bitset_and(extent, extent, columns + ids[i] * object_words, object_words);
    return parac_bitset_popcount(extent, object_words);
}

/* |B'| for every intent B (in parallel over the concepts). */
static parac_status count_supports(const parac_fca_context *context, closed_itemsets *closed, int threads,
                                   parac_error *error)
{
    const parac_fca_concepts *concepts = closed->concepts;
    size_t count = concepts->count, scratch_bytes = (context->attributes + 1) * sizeof(uint32_t);
    int failed = 0;
    const fca_column_lists *lists = NULL;
    const parac_word *columns = NULL;
    if (fca_covers_use_cells(context)) {
        if (!(lists = fca_context_columns(context, error))) return error ? error->status : PARAC_ERR_NO_MEMORY;
    } else {
        const fca_bit_matrices *bits = fca_context_bits(context, error);
        if (!bits) return error ? error->status : PARAC_ERR_NO_MEMORY;
        columns = bits->columns;
        scratch_bytes += (context->object_words + 1) * sizeof(parac_word);
    }
    if (!(closed->supports = calloc(count + 1, sizeof *closed->supports)))
        return parac_fail_no_memory(error, "rule supports", (count + 1) * 8);
#pragma omp parallel num_threads(threads) default(none) \
    shared(context, concepts, closed, count, failed, columns, lists, scratch_bytes)
    {
        parac_word *extent = malloc(scratch_bytes); /* the extent's words, then the intent's ids */
        uint32_t *ids = extent ? (uint32_t *)(extent + (lists ? 0 : context->object_words + 1)) : NULL;
        if (!extent) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 256)
        for (size_t c = 0; c < count; c++)
            if (extent) {
                size_t size = fca_record_decode(&concepts->format, concepts->intents + c * concepts->format.words, ids);
                closed->supports[c] = intent_support(context, ids, size, columns, lists, extent);
            }
        free(extent);
    }
    return failed ? parac_fail_no_memory(error, "rule supports", scratch_bytes) : PARAC_OK;
}

static parac_status find_closed_itemsets(const parac_fca_context *context, const parac_fca_rule_options *options,
                                         uint64_t min_support, closed_itemsets *closed, parac_error *error)
{
    parac_fca_options search;
    parac_status status;
    memset(closed, 0, sizeof *closed);
    parac_fca_options_init(&search);
    search.exec = options->exec;
    search.min_support = min_support;
    closed->premise_ids = malloc((context->attributes + 1) * sizeof *closed->premise_ids);
    closed->whole_ids = malloc((context->attributes + 1) * sizeof *closed->whole_ids);
    if (!closed->premise_ids || !closed->whole_ids)
        return parac_fail_no_memory(error, "association rules", (context->attributes + 1) * 8);
    status = parac_fca_compute(context, &search, &closed->concepts, error);
    if (status == PARAC_OK)
        status = count_supports(context, closed, parac_threads_resolve(options->exec.threads), error);
    if (status == PARAC_OK)
        status = fca_lattice_build(context, closed->concepts, min_support, &options->exec, &closed->lattice, error);
    return status;
}

/* Stores B1 -> B2 \ B1 for concepts upper (B1) and lower (B2). */
static parac_status add_rule(fca_itemset_pairs *rules, closed_itemsets *closed, size_t upper, size_t lower,
                             parac_error *error)
{
    const parac_fca_concepts *concepts = closed->concepts;
    const fca_record_format *format = &concepts->format;
    size_t premise = fca_record_decode(format, concepts->intents + upper * format->words, closed->premise_ids);
    size_t whole = fca_record_decode(format, concepts->intents + lower * format->words, closed->whole_ids);
    return fca_itemset_pairs_append_ids(rules, closed->premise_ids, premise, closed->whole_ids, whole,
                                        closed->supports[lower], closed->supports[upper], "association rules", error);
}

static int confident(const closed_itemsets *closed, size_t upper, size_t lower, double min_confidence)
{
    return (double)closed->supports[lower] / (double)closed->supports[upper] >= min_confidence;
}

/* The Luxenburger basis: one rule per covering edge with enough confidence. */
static parac_status covering_rules(closed_itemsets *closed, double min_confidence, fca_itemset_pairs *rules,
                                   parac_error *error)
{
    parac_status status;
    for (size_t e = 0; e < parac_fca_lattice_edge_count(closed->lattice); e++) {
        size_t upper, lower;
        parac_fca_lattice_edge(closed->lattice, e, &upper, &lower);
        if (confident(closed, upper, lower, min_confidence) &&
            (status = add_rule(rules, closed, upper, lower, error)) != PARAC_OK)
            return status;
    }
    return PARAC_OK;
}

/* Upper covers by lower concept: offsets (count + 1) into uppers (one per edge). */
typedef struct upper_covers {
    size_t *offsets, *uppers;
} upper_covers;

static int build_upper_covers(const closed_itemsets *closed, upper_covers *covers)
{
    size_t count = closed->concepts->count, edges = parac_fca_lattice_edge_count(closed->lattice);
    covers->offsets = calloc(count + 2, sizeof *covers->offsets);
    covers->uppers = malloc((edges + 1) * sizeof *covers->uppers);
    if (!covers->offsets || !covers->uppers) return -1;
    for (size_t e = 0; e < edges; e++) {
        size_t upper, lower;
        parac_fca_lattice_edge(closed->lattice, e, &upper, &lower);
        covers->offsets[lower + 2]++;
    }
    for (size_t c = 0; c < count; c++) covers->offsets[c + 2] += covers->offsets[c + 1];
    for (size_t e = 0; e < edges; e++) { /* edges come by upper, so each list is ascending */
        size_t upper, lower;
        parac_fca_lattice_edge(closed->lattice, e, &upper, &lower);
        covers->uppers[covers->offsets[lower + 1]++] = upper;
    }
    return 0;
}

/* Every pair B1 ⊊ B2 with enough confidence: a walk up from each B2, pruned by confidence. */
static parac_status all_pair_rules(closed_itemsets *closed, const parac_fca_rule_options *options,
                                   fca_itemset_pairs *rules, parac_error *error)
{
    size_t count = closed->concepts->count;
    upper_covers covers = {NULL, NULL};
    size_t *queue = malloc((count + 1) * sizeof *queue), *seen = calloc(count + 1, sizeof *seen);
    parac_status status = PARAC_OK;
    if (!queue || !seen || build_upper_covers(closed, &covers))
        status = parac_fail_no_memory(error, "association rules", (count + 1) * 24);
    for (size_t lower = 0; lower < count && status == PARAC_OK; lower++) {
        size_t head = 0, tail = 0;
        queue[tail++] = lower;
        seen[lower] = lower + 1;
        while (head < tail && status == PARAC_OK) {
            size_t at = queue[head++];
            for (size_t u = covers.offsets[at]; u < covers.offsets[at + 1] && status == PARAC_OK; u++) {
                size_t upper = covers.uppers[u];
                if (seen[upper] == lower + 1 || !confident(closed, upper, lower, options->min_confidence)) continue;
                seen[upper] = lower + 1;
                queue[tail++] = upper;
                if (options->max_rules && rules->count >= options->max_rules)
                    status = parac_fail(error, PARAC_ERR_INVALID_ARGUMENT,
                                        "fca rules: more than %llu rules (raise the limit or min_confidence)",
                                        (unsigned long long)options->max_rules);
                else
                    status = add_rule(rules, closed, upper, lower, error);
            }
        }
    }
    free(queue);
    free(seen);
    free(covers.offsets);
    free(covers.uppers);
    return status;
}

parac_status parac_fca_rules_compute(const parac_fca_context *context, const parac_fca_rule_options *options,
                                     parac_fca_rules **rules, parac_error *error)
{
    parac_fca_rule_options defaults;
    parac_fca_rules *made;
    closed_itemsets closed;
    parac_status status;
    if (!context || !rules) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca rules: context and result are required");
    if (!options) {
        parac_fca_rule_options_init(&defaults);
        options = &defaults;
    }
    if (!(options->min_confidence >= 0.0 && options->min_confidence <= 1.0)) /* NaN fails too */
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "fca rules: min_confidence %g is outside [0, 1]",
                          options->min_confidence);
    if (!(made = calloc(1, sizeof *made))) return parac_fail_no_memory(error, "association rules", sizeof *made);
    fca_itemset_pairs_init(&made->rules, context->attributes,
                           options->max_host_bytes ? options->max_host_bytes : fca_default_host_budget());
    made->rules.hint = "a higher min_support or min_confidence gives fewer rules";
    status = find_closed_itemsets(context, options, options->min_support ? options->min_support : 1, &closed, error);
    if (status == PARAC_OK)
        status = options->all_rules ? all_pair_rules(&closed, options, &made->rules, error)
                                    : covering_rules(&closed, options->min_confidence, &made->rules, error);
    closed_itemsets_release(&closed);
    if (status == PARAC_OK) status = fca_itemset_pairs_sort(&made->rules, "association rules", error);
    if (status != PARAC_OK) {
        parac_fca_rules_destroy(made);
        return status;
    }
    *rules = made;
    return PARAC_OK;
}

void parac_fca_rules_destroy(parac_fca_rules *rules)
{
    if (!rules) return;
    fca_itemset_pairs_release(&rules->rules);
    free(rules);
}

size_t parac_fca_rules_size(const parac_fca_rules *rules) { return rules ? rules->rules.count : 0; }

size_t parac_fca_rule_premise(const parac_fca_rules *rules, size_t index, uint32_t *ids, size_t capacity)
{
    size_t size;
    const uint32_t *set;
    if (!rules || index >= rules->rules.count) return 0;
    set = fca_itemset_pairs_premise(&rules->rules, index, &size);
    return fca_itemset_pairs_copy(set, size, ids, capacity);
}

size_t parac_fca_rule_conclusion(const parac_fca_rules *rules, size_t index, uint32_t *ids, size_t capacity)
{
    size_t size;
    const uint32_t *set;
    if (!rules || index >= rules->rules.count) return 0;
    set = fca_itemset_pairs_conclusion(&rules->rules, index, &size);
    return fca_itemset_pairs_copy(set, size, ids, capacity);
}

uint64_t parac_fca_rule_support(const parac_fca_rules *rules, size_t index)
{
    return rules && index < rules->rules.count ? rules->rules.supports[index] : 0;
}

uint64_t parac_fca_rule_premise_support(const parac_fca_rules *rules, size_t index)
{
    return rules && index < rules->rules.count ? rules->rules.premise_supports[index] : 0;
}

double parac_fca_rule_confidence(const parac_fca_rules *rules, size_t index)
{
    if (!rules || index >= rules->rules.count || !rules->rules.premise_supports[index]) return 0.0;
    return (double)rules->rules.supports[index] / (double)rules->rules.premise_supports[index];
}

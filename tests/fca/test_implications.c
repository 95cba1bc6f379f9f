/* tests/fca/test_implications.c — the Duquenne-Guigues basis against its definition:
 * on small random contexts (<= 12 attributes) every attribute subset is closed by
 * brute force and the pseudo-intents found by definition (P != P'' and Q'' ⊆ P
 * for every pseudo-intent Q ⊊ P) must be exactly the premises returned, with
 * P'' \ P as conclusions, |P'| as supports, in canonical order; with min_support
 * the frequent pseudo-intents. On wider contexts (up to 64 attributes): every
 * implication holds (sound), the closure under the basis of random sets and of
 * premises plus one attribute equals the context closure (complete), and
 * no implication follows from the others (non-redundant). */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "fca/concept_stream.h"
#include "fca/fca_internal.h"
#include "support_fca.h"
#include "test_util.h"

typedef struct small_context {
    size_t objects, attributes;
    uint64_t *rows; /* attribute masks */
} small_context;

static small_context masks_of(const parac_fca_context *context)
{
    small_context small = {parac_fca_context_objects(context), parac_fca_context_attributes(context), NULL};
    small.rows = calloc(small.objects + 1, sizeof *small.rows);
    for (size_t o = 0; o < small.objects; o++)
        for (size_t a = 0; a < small.attributes; a++)
            if (parac_fca_context_has(context, o, a)) small.rows[o] |= (uint64_t)1 << a;
    return small;
}

static uint64_t all_attributes(const small_context *small)
{
    return small->attributes == 64 ? ~(uint64_t)0 : (((uint64_t)1 << small->attributes) - 1);
}

static uint64_t support_of(const small_context *small, uint64_t set)
{
    uint64_t count = 0;
    for (size_t o = 0; o < small->objects; o++) count += (small->rows[o] & set) == set;
    return count;
}

static uint64_t closure_of(const small_context *small, uint64_t set)
{
    uint64_t closure = all_attributes(small);
    for (size_t o = 0; o < small->objects; o++)
        if ((small->rows[o] & set) == set) closure &= small->rows[o];
    return closure;
}

static uint64_t ids_mask(const uint32_t *ids, size_t count)
{
    uint64_t mask = 0;
    for (size_t i = 0; i < count; i++) mask |= (uint64_t)1 << ids[i];
    return mask;
}

typedef struct basis_masks {
    size_t count;
    uint64_t *premises, *conclusions, *supports;
} basis_masks;

static basis_masks masks_of_basis(const parac_fca_implications *implications)
{
    basis_masks basis = {parac_fca_implications_size(implications), NULL, NULL, NULL};
    uint32_t ids[64];
    basis.premises = calloc(basis.count + 1, sizeof *basis.premises);
    basis.conclusions = calloc(basis.count + 1, sizeof *basis.conclusions);
    basis.supports = calloc(basis.count + 1, sizeof *basis.supports);
    for (size_t i = 0; i < basis.count; i++) {
        basis.premises[i] = ids_mask(ids, parac_fca_implication_premise(implications, i, ids, 64));
        basis.conclusions[i] = ids_mask(ids, parac_fca_implication_conclusion(implications, i, ids, 64));
        basis.supports[i] = parac_fca_implication_support(implications, i);
    }
    return basis;
}

static void basis_free(basis_masks *basis)
{
    free(basis->premises);
    free(basis->conclusions);
    free(basis->supports);
}

/* Canonical order of attribute sets: lexicographic by ascending ids (a prefix first). */
static int ids_compare(uint64_t a, uint64_t b)
{
    while (a && b) {
        int x = __builtin_ctzll(a), y = __builtin_ctzll(b);
        if (x != y) return x < y ? -1 : 1;
        a &= a - 1;
        b &= b - 1;
    }
    return a ? 1 : (b ? -1 : 0);
}

/* The closure of set under the basis, leaving out implication `skip` (SIZE_MAX: none). */
static uint64_t basis_closure(const basis_masks *basis, uint64_t set, size_t skip)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t i = 0; i < basis->count; i++)
            if (i != skip && (basis->premises[i] & ~set) == 0 && (basis->conclusions[i] & ~set)) {
                set |= basis->conclusions[i];
                changed = 1;
            }
    }
    return set;
}

static parac_fca_implications *compute(const parac_fca_context *context, uint64_t min_support)
{
    parac_fca_rule_options options;
    parac_fca_implications *implications = NULL;
    parac_error error = {0};
    parac_fca_rule_options_init(&options);
    options.min_support = min_support;
    CHECK_OK(parac_fca_implications_compute(context, &options, &implications, &error), &error);
    return implications;
}

static int by_popcount(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    int px = __builtin_popcountll(x), py = __builtin_popcountll(y);
    if (px != py) return px < py ? -1 : 1;
    return x < y ? -1 : (x > y);
}

/* Every pseudo-intent by definition (subsets before supersets); returns how many, masks in order. */
static size_t brute_force_pseudo_intents(const small_context *small, uint64_t *pseudo)
{
    size_t subsets = (size_t)1 << small->attributes, found = 0;
    uint64_t *order = malloc(subsets * sizeof *order), *closures = malloc(subsets * sizeof *closures);
    for (size_t s = 0; s < subsets; s++) order[s] = s;
    qsort(order, subsets, sizeof *order, by_popcount);
    for (size_t s = 0; s < subsets; s++) {
        uint64_t set = order[s], closure = closure_of(small, set);
        int is_pseudo = closure != set;
        for (size_t q = 0; q < found && is_pseudo; q++)
            if ((pseudo[q] & ~set) == 0 && pseudo[q] != set && (closures[q] & ~set)) is_pseudo = 0;
        if (is_pseudo) {
            closures[found] = closure;
            pseudo[found++] = set;
        }
    }
    free(order);
    free(closures);
    return found;
}

static void check_against_definition(size_t objects, size_t attributes, double density, uint64_t seed,
                                     uint64_t min_support)
{
    parac_fca_context *context = fca_test_random_context(objects, attributes, density, seed);
    small_context small = masks_of(context);
    uint64_t *pseudo = malloc(((size_t)1 << attributes) * sizeof *pseudo);
    size_t found = brute_force_pseudo_intents(&small, pseudo), expected = 0, wrong = 0;
    parac_fca_implications *implications = compute(context, min_support);
    basis_masks basis = masks_of_basis(implications);
    uint64_t *expected_premises = malloc((found + 1) * sizeof *expected_premises);
    for (size_t i = 0; i < found; i++)
        if (support_of(&small, pseudo[i]) >= min_support) expected_premises[expected++] = pseudo[i];
    if (attributes >= 16) CHECK(expected >= 128, "seed %llu: only %zu pseudo-intents", (unsigned long long)seed, expected);
    CHECK(basis.count == expected, "seed %llu (%zu x %zu, support %llu): %zu implications, %zu pseudo-intents",
          (unsigned long long)seed, objects, attributes, (unsigned long long)min_support, basis.count, expected);
    for (size_t i = 0; i < basis.count; i++) {
        uint64_t premise = basis.premises[i];
        int known = 0;
        for (size_t e = 0; e < expected && !known; e++) known = expected_premises[e] == premise;
        wrong += !known || basis.conclusions[i] != (closure_of(&small, premise) & ~premise) ||
                 basis.supports[i] != support_of(&small, premise) ||
                 (i > 0 && ids_compare(basis.premises[i - 1], premise) >= 0);
    }
    CHECK(wrong == 0, "seed %llu: %zu implications differ from the definition or are out of order",
          (unsigned long long)seed, wrong);
    basis_free(&basis);
    parac_fca_implications_destroy(implications);
    free(expected_premises);
    free(pseudo);
    free(small.rows);
    parac_fca_context_destroy(context);
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void check_sound_complete(size_t objects, size_t attributes, double density, uint64_t seed)
{
    parac_fca_context *context = fca_test_random_context(objects, attributes, density, seed);
    small_context small = masks_of(context);
    parac_fca_implications *implications = compute(context, 0);
    basis_masks basis = masks_of_basis(implications);
    uint64_t state = seed * 2654435761u + 1, mask = all_attributes(&small);
    size_t unsound = 0, incomplete = 0, redundant = 0;
    for (size_t i = 0; i < basis.count; i++) {
        uint64_t premise = basis.premises[i];
        unsound += basis.conclusions[i] == 0 || (basis.conclusions[i] & premise) ||
                   (closure_of(&small, premise) & basis.conclusions[i]) != basis.conclusions[i];
        redundant += (basis_closure(&basis, premise, i) & basis.conclusions[i]) == basis.conclusions[i];
        for (size_t a = 0; a < attributes && i % (1 + basis.count / 150) == 0; a++) { /* about 150 premises */
            uint64_t set = premise | ((uint64_t)1 << a);
            incomplete += basis_closure(&basis, set, SIZE_MAX) != closure_of(&small, set);
        }
    }
    for (int trial = 0; trial < 500; trial++) {
        uint64_t set = next_random(&state) & next_random(&state) & next_random(&state) & mask;
        incomplete += basis_closure(&basis, set, SIZE_MAX) != closure_of(&small, set);
    }
    CHECK(basis.count > 0, "seed %llu: an empty basis", (unsigned long long)seed);
    CHECK(unsound == 0, "seed %llu: %zu implications do not hold", (unsigned long long)seed, unsound);
    CHECK(incomplete == 0, "seed %llu: %zu sets close differently", (unsigned long long)seed, incomplete);
    CHECK(redundant == 0, "seed %llu: %zu implications follow from the others", (unsigned long long)seed, redundant);
    basis_free(&basis);
    parac_fca_implications_destroy(implications);
    free(small.rows);
    parac_fca_context_destroy(context);
}

/* A context by hand: objects {0,1}, {1,2}, {0,1,2}; attribute 3 nobody has. */
static void check_small_by_hand(void)
{
    const uint8_t cells[] = {1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0};
    parac_fca_context *context = NULL;
    parac_fca_implications *implications;
    parac_error error = {0};
    uint32_t ids[4];
    CHECK_OK(parac_fca_context_create(3, 4, cells, &context, &error), &error);
    implications = compute(context, 0);
    /* ∅'' = {1}: ∅ -> 1; {1,3} -> 0 2 (nobody has 3); {0,1,2} is closed; {0,1} and {1,2} are intents */
    CHECK(parac_fca_implications_size(implications) == 2, "%zu implications", parac_fca_implications_size(implications));
    CHECK(parac_fca_implication_premise(implications, 0, ids, 4) == 0, "first premise not empty");
    CHECK(parac_fca_implication_conclusion(implications, 0, ids, 4) == 1 && ids[0] == 1, "∅ -> 1");
    CHECK(parac_fca_implication_support(implications, 0) == 3, "∅ has 3 objects");
    CHECK(parac_fca_implication_premise(implications, 1, ids, 4) == 2 && ids[0] == 1 && ids[1] == 3, "{1,3}");
    CHECK(parac_fca_implication_conclusion(implications, 1, ids, 4) == 2 && ids[0] == 0 && ids[1] == 2, "-> 0 2");
    CHECK(parac_fca_implication_support(implications, 1) == 0, "{1,3} has no object");
    parac_fca_implications_destroy(implications);
    implications = compute(context, 1); /* {1,3} has no object: only ∅ -> 1 */
    CHECK(parac_fca_implications_size(implications) == 1, "support 1: %zu", parac_fca_implications_size(implications));
    parac_fca_implications_destroy(implications);
    CHECK(parac_fca_implications_compute(NULL, NULL, &implications, &error) == PARAC_ERR_INVALID_ARGUMENT, "NULL context");
    parac_fca_context_destroy(context);
}

/* A wide context with one object {1, 3000} and 3001 attributes: ∅ -> {1, 3000}, then one
 * implication {a, 1, 3000} -> everything else per attribute a nobody has. Each node then holds
 * thousands of implications below it: before the filter kept unchanged keys without rescanning
 * premises (and the tail was tested by its key bit), 1 x 20,001 took 564 s, 7 s after; this size
 * 1.0 s before, 0.13 s after (a check of the answer, not of the time). */
static void check_wide_unused_attributes(void)
{
    size_t attributes = 3001;
    uint8_t *cells = calloc(attributes, 1);
    parac_fca_context *context = NULL;
    parac_fca_implications *implications;
    parac_error error = {0};
    uint32_t *ids = malloc(attributes * sizeof *ids);
    size_t wrong = 0, count;
    cells[1] = cells[3000] = 1;
    CHECK_OK(parac_fca_context_create(1, attributes, cells, &context, &error), &error);
    implications = compute(context, 0);
    count = parac_fca_implications_size(implications);
    CHECK(count == 3000, "wide: %zu implications, expected 3000", count);
    for (size_t i = 1; i < count; i++) {
        size_t premise = parac_fca_implication_premise(implications, i, ids, attributes);
        size_t conclusion = parac_fca_implication_conclusion(implications, i, NULL, 0);
        wrong += premise != 3 || conclusion != attributes - 3 || parac_fca_implication_support(implications, i) != 0;
    }
    CHECK(wrong == 0, "wide: %zu implications are not {a, 1, 3000} -> the rest", wrong);
    parac_fca_implications_destroy(implications);
    parac_fca_context_destroy(context);
    free(cells);
    free(ids);
}

/* A wide sparse context (rows of 5 among 20,000 attributes): without min_support its basis grows
 * with the square of the attributes (every pair of attributes that no row joins, every unused
 * attribute, implies everything else), so it must stop at the result budget with
 * PARAC_ERR_NO_MEMORY and a hint; with min_support 1 it fits, and rules fit the same budget (the
 * basis and rules hold id lists: bitsets took 5 KB a set here). */
static void check_result_budget(void)
{
    size_t objects = 300, attributes = 20000;
    uint8_t *cells = calloc(objects * attributes, 1);
    uint64_t state = 42;
    parac_fca_context *context = NULL;
    parac_fca_rule_options options;
    parac_fca_implications *implications = NULL;
    parac_fca_rules *rules = NULL;
    parac_error error = {0};
    for (size_t o = 0; o < objects; o++)
        for (int k = 0; k < 5; k++) cells[o * attributes + next_random(&state) % attributes] = 1;
    CHECK_OK(parac_fca_context_create(objects, attributes, cells, &context, &error), &error);
    parac_fca_rule_options_init(&options);
    options.max_host_bytes = 4u << 20;
    CHECK(parac_fca_implications_compute(context, &options, &implications, &error) == PARAC_ERR_NO_MEMORY,
          "budget: the whole basis of a wide context did not stop at 4 MB");
    CHECK(implications == NULL && strstr(error.message, "min_support"), "budget: no result and a hint expected: %s",
          error.message);
    options.min_support = 1;
    CHECK_OK(parac_fca_implications_compute(context, &options, &implications, &error), &error);
    CHECK(parac_fca_implications_size(implications) > 0, "budget: the frequent basis is empty");
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_fca_rules_compute(context, &options, &rules, &error), &error);
    CHECK(parac_fca_rules_size(rules) > objects, "budget: %zu rules", parac_fca_rules_size(rules));
    parac_fca_rules_destroy(rules);
    rules = NULL;
    options.max_host_bytes = 1024;
    CHECK(parac_fca_rules_compute(context, &options, &rules, &error) == PARAC_ERR_NO_MEMORY && rules == NULL,
          "budget: rules did not stop at 1 KB");
    parac_fca_implications_destroy(implications);
    parac_fca_context_destroy(context);
    free(cells);
}

/* The frequent part of a wide sparse context's basis (found from the cells: no bit matrices) against
 * the same context with its unused attributes removed (narrow enough for the bit matrices): with
 * min_support >= 1 no implication involves an unused attribute, so both bases are the same once the
 * ids are mapped back. */
static void check_wide_frequent_by_cells(void)
{
    size_t objects = 2000, attributes = 200000, used = 0;
    uint8_t *wide = calloc(objects * attributes, 1), *narrow;
    uint32_t *narrow_id = malloc(attributes * sizeof *narrow_id), *original = malloc(attributes * sizeof *original);
    uint32_t *a = malloc(attributes * sizeof *a), *b = malloc(attributes * sizeof *b);
    uint64_t state = 7;
    parac_fca_context *wide_context = NULL, *narrow_context = NULL;
    parac_fca_implications *by_cells, *by_bits;
    parac_error error = {0};
    size_t differ = 0, count;
    for (size_t o = 0; o < objects; o++) /* rows of 3-6 items, a few hundred items much more frequent */
        for (int k = 0, n = 3 + (int)(next_random(&state) % 4); k < n; k++) {
            uint64_t r = next_random(&state);
            wide[o * attributes + (r % 3 == 0 ? r % 300 * 600 : r % attributes)] = 1;
        }
    for (size_t j = 0; j < attributes; j++) {
        size_t o = 0;
        while (o < objects && !wide[o * attributes + j]) o++;
        narrow_id[j] = o < objects ? (uint32_t)used : UINT32_MAX;
        if (o < objects) original[used++] = (uint32_t)j;
    }
    narrow = calloc(objects * used + 1, 1);
    for (size_t o = 0; o < objects; o++)
        for (size_t j = 0; j < attributes; j++)
            if (wide[o * attributes + j]) narrow[o * used + narrow_id[j]] = 1;
    CHECK_OK(parac_fca_context_create(objects, attributes, wide, &wide_context, &error), &error);
    CHECK_OK(parac_fca_context_create(objects, used, narrow, &narrow_context, &error), &error);
    CHECK(fca_covers_use_cells(wide_context) && !fca_covers_use_cells(narrow_context),
          "wide by cells: the contexts do not take the two ways (%zu attributes used)", used);
    by_cells = compute(wide_context, 1);
    by_bits = compute(narrow_context, 1);
    count = parac_fca_implications_size(by_cells);
    CHECK(count > 100 && count == parac_fca_implications_size(by_bits), "wide by cells: %zu implications, narrow %zu",
          count, parac_fca_implications_size(by_bits));
    for (size_t i = 0; i < count && count == parac_fca_implications_size(by_bits); i++) {
        size_t pa = parac_fca_implication_premise(by_cells, i, a, attributes);
        size_t pb = parac_fca_implication_premise(by_bits, i, b, attributes), same = pa == pb;
        for (size_t k = 0; same && k < pa; k++) same = a[k] == original[b[k]];
        pa = parac_fca_implication_conclusion(by_cells, i, a, attributes);
        pb = parac_fca_implication_conclusion(by_bits, i, b, attributes);
        same = same && pa == pb;
        for (size_t k = 0; same && k < pa; k++) same = a[k] == original[b[k]];
        differ += !same || parac_fca_implication_support(by_cells, i) != parac_fca_implication_support(by_bits, i);
    }
    CHECK(differ == 0, "wide by cells: %zu of %zu implications differ from the narrow context's", differ, count);
    parac_fca_implications_destroy(by_cells);
    parac_fca_implications_destroy(by_bits);
    parac_fca_context_destroy(wide_context);
    parac_fca_context_destroy(narrow_context);
    free(wide), free(narrow), free(narrow_id), free(original), free(a), free(b);
}

typedef struct progress_record {
    int calls, cancel_after;
    uint64_t last_done, last_total;
} progress_record;

static int record_progress(void *user_data, uint64_t done, uint64_t total)
{
    progress_record *record = user_data;
    record->calls++;
    record->last_done = done;
    record->last_total = total;
    return record->cancel_after && record->calls >= record->cancel_after;
}

/* Progress ends at total/total; a callback asking to stop cancels both computations. */
static void check_progress_and_cancel(void)
{
    parac_fca_context *context = fca_test_random_context(80, 40, 0.35, 5);
    parac_fca_rule_options options;
    parac_fca_implications *implications = NULL;
    parac_fca_rules *rules = NULL;
    parac_error error = {0};
    progress_record record = {0, 0, 0, 0};
    parac_fca_rule_options_init(&options);
    options.exec.progress = record_progress;
    options.exec.progress_user_data = &record;
    CHECK_OK(parac_fca_implications_compute(context, &options, &implications, &error), &error);
    CHECK(record.calls > 0 && record.last_done == record.last_total, "progress: %d calls, last %llu/%llu", record.calls,
          (unsigned long long)record.last_done, (unsigned long long)record.last_total);
    parac_fca_implications_destroy(implications);
    implications = NULL;
    record.calls = 0;
    record.cancel_after = 1;
    CHECK(parac_fca_implications_compute(context, &options, &implications, &error) == PARAC_ERR_CANCELLED,
          "implications not cancelled");
    CHECK(implications == NULL, "a cancelled run handed out a result");
    record.calls = 0;
    options.exec.device = PARAC_DEVICE_CPU;
    CHECK(parac_fca_rules_compute(context, &options, &rules, &error) == PARAC_ERR_CANCELLED, "rules not cancelled");
    CHECK(rules == NULL, "a cancelled rules run handed out a result");
    parac_fca_context_destroy(context);
}

int main(void)
{
    check_small_by_hand();
    check_progress_and_cancel();
    check_wide_unused_attributes();
    check_result_budget();
    check_wide_frequent_by_cells();
    for (uint64_t seed = 1; seed <= 60; seed++)
        check_against_definition(2 + seed % 15, 1 + seed % 11, 0.2 + 0.06 * (double)(seed % 10), seed,
                                 seed % 5 == 0 ? 1 + seed % 3 : 0);
    /* bases of a few hundred: lists long enough that the search folds their tails into the sorted
     * part and indexes them whole (src/fca/implications.c, absorb_tail and bucket_of) */
    for (uint64_t seed = 61; seed <= 66; seed++) {
        size_t objects = 50 + 10 * (seed % 3), attributes = 16;
        check_against_definition(objects, attributes, 0.4 + 0.05 * (double)(seed % 3), seed, seed % 2);
    }
    for (uint64_t seed = 100; seed < 110; seed++)
        check_sound_complete(20 + seed % 30, 20 + (seed * 7) % 45, 0.2 + 0.05 * (double)(seed % 5), seed);
    return test_finish("fca.implications");
}

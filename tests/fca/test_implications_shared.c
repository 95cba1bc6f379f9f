/* tests/fca/test_implications_shared.c — the Duquenne-Guigues basis of the shared data sets,
 * checked for consistency (no published basis size for these files was found to assert):
 *  - sound: every implication holds (the objects having the premise have the conclusion, as many
 *    as its support says) and its premise is not closed;
 *  - complete: for a sample of premises plus one attribute, and random sets, the closure under the
 *    basis equals the context closure;
 *  - non-redundant: for a sample of implications, the others do not imply it;
 *  - the frequent part: with min_support s the result is exactly the full basis's implications
 *    with support >= s (found by a pruned search, so this checks the pruning);
 *  - one attribute that no object has (the FIMI files' unused id 0) adds exactly one implication,
 *    ∅'' ∪ {0} -> everything: the basis without column 0 has one fewer.
 * Skips (77) when the data files are absent. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

typedef struct wide_set {
    size_t words;
    uint64_t *bits;
} wide_set;

typedef struct basis_sets {
    size_t count, attributes, words;
    uint64_t *premises, *conclusions, *supports;
} basis_sets;

static basis_sets basis_of(const parac_fca_implications *implications, size_t attributes)
{
    basis_sets basis = {parac_fca_implications_size(implications), attributes, (attributes + 63) / 64, NULL, NULL, NULL};
    uint32_t *ids = malloc((attributes + 1) * sizeof *ids);
    basis.premises = calloc(basis.count * basis.words + 1, sizeof *basis.premises);
    basis.conclusions = calloc(basis.count * basis.words + 1, sizeof *basis.conclusions);
    basis.supports = calloc(basis.count + 1, sizeof *basis.supports);
    for (size_t i = 0; i < basis.count; i++) {
        size_t size = parac_fca_implication_premise(implications, i, ids, attributes);
        for (size_t k = 0; k < size; k++) basis.premises[i * basis.words + ids[k] / 64] |= (uint64_t)1 << (ids[k] % 64);
        size = parac_fca_implication_conclusion(implications, i, ids, attributes);
        for (size_t k = 0; k < size; k++) basis.conclusions[i * basis.words + ids[k] / 64] |= (uint64_t)1 << (ids[k] % 64);
        basis.supports[i] = parac_fca_implication_support(implications, i);
    }
    free(ids);
    return basis;
}

static void basis_free(basis_sets *basis)
{
    free(basis->premises);
    free(basis->conclusions);
    free(basis->supports);
}

static int subset(const uint64_t *a, const uint64_t *b, size_t words)
{
    for (size_t w = 0; w < words; w++)
        if (a[w] & ~b[w]) return 0;
    return 1;
}

/* set := its closure under the basis without implication skip (SIZE_MAX: none). */
static void basis_closure(const basis_sets *basis, uint64_t *set, size_t skip)
{
    size_t words = basis->words;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t i = 0; i < basis->count; i++)
            if (i != skip && subset(basis->premises + i * words, set, words) &&
                !subset(basis->conclusions + i * words, set, words)) {
                for (size_t w = 0; w < words; w++) set[w] |= basis->conclusions[i * words + w];
                changed = 1;
            }
    }
}

/* closure := set'' and returns |set'|. */
static uint64_t context_closure(const parac_fca_context *context, const uint64_t *set, uint64_t *closure, size_t words)
{
    size_t objects = parac_fca_context_objects(context), attributes = parac_fca_context_attributes(context);
    uint64_t support = 0;
    for (size_t w = 0; w < words; w++) closure[w] = ~(uint64_t)0;
    if (attributes % 64) closure[words - 1] = ((uint64_t)1 << (attributes % 64)) - 1;
    for (size_t o = 0; o < objects; o++) {
        int has_all = 1;
        for (size_t a = 0; a < attributes && has_all; a++)
            if ((set[a / 64] >> (a % 64) & 1) && !parac_fca_context_has(context, o, a)) has_all = 0;
        if (!has_all) continue;
        support++;
        for (size_t a = 0; a < attributes; a++)
            if (!parac_fca_context_has(context, o, a)) closure[a / 64] &= ~((uint64_t)1 << (a % 64));
    }
    return support;
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

static void check_consistent(const char *name, const parac_fca_context *context, const basis_sets *basis)
{
    size_t words = basis->words, unsound = 0, incomplete = 0, redundant = 0, stride = 1 + basis->count / 60;
    uint64_t *set = calloc(words + 1, sizeof *set), *closure = calloc(words + 1, sizeof *closure);
    uint64_t state = 88172645463325252ull;
    for (size_t i = 0; i < basis->count; i++) {
        const uint64_t *premise = basis->premises + i * words, *conclusion = basis->conclusions + i * words;
        uint64_t support = context_closure(context, premise, closure, words);
        unsound += support != basis->supports[i] || !subset(conclusion, closure, words) ||
                   subset(closure, premise, words);
        if (i % stride) continue;
        memcpy(set, premise, words * sizeof *set);
        basis_closure(basis, set, i);
        redundant += subset(conclusion, set, words);
        for (size_t a = 0; a < basis->attributes; a += 7) {
            memcpy(set, premise, words * sizeof *set);
            set[a / 64] |= (uint64_t)1 << (a % 64);
            basis_closure(basis, set, SIZE_MAX);
            context_closure(context, set, closure, words);
            incomplete += memcmp(set, closure, words * sizeof *set) != 0;
        }
    }
    for (int trial = 0; trial < 200; trial++) { /* sets of about 3 random attributes */
        memset(set, 0, words * sizeof *set);
        for (int k = 0; k < 3; k++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            size_t a = (size_t)(state % basis->attributes);
            set[a / 64] |= (uint64_t)1 << (a % 64);
        }
        context_closure(context, set, closure, words);
        basis_closure(basis, set, SIZE_MAX);
        incomplete += memcmp(set, closure, words * sizeof *set) != 0;
    }
    CHECK(basis->count > 0, "%s: no implications", name);
    CHECK(unsound == 0, "%s: %zu implications do not hold or have closed premises", name, unsound);
    CHECK(incomplete == 0, "%s: %zu sets close differently under the basis", name, incomplete);
    CHECK(redundant == 0, "%s: %zu implications follow from the others", name, redundant);
    free(set);
    free(closure);
}

/* The min_support basis must be the full basis's implications with support >= min_support. */
static void check_frequent_part(const char *name, const parac_fca_context *context, const basis_sets *full,
                                uint64_t min_support)
{
    parac_fca_implications *implications = compute(context, min_support);
    basis_sets frequent = basis_of(implications, full->attributes);
    size_t expected = 0, k = 0, wrong = 0, words = full->words;
    for (size_t i = 0; i < full->count; i++) {
        if (full->supports[i] < min_support) continue;
        expected++;
        if (k < frequent.count)
            wrong += memcmp(full->premises + i * words, frequent.premises + k * words, words * 8) != 0 ||
                     memcmp(full->conclusions + i * words, frequent.conclusions + k * words, words * 8) != 0;
        k++;
    }
    CHECK(frequent.count == expected && wrong == 0, "%s support %llu: %zu implications (%zu differ), filtered %zu",
          name, (unsigned long long)min_support, frequent.count, wrong, expected);
    CHECK(expected > 0 && expected < full->count, "%s support %llu: a useless threshold (%zu of %zu)", name,
          (unsigned long long)min_support, expected, full->count);
    basis_free(&frequent);
    parac_fca_implications_destroy(implications);
}

/* The context without attribute 0 (no object has it in these files) has one implication fewer. */
static void check_unused_attribute(const char *name, const parac_fca_context *context, size_t full_count)
{
    size_t objects = parac_fca_context_objects(context), attributes = parac_fca_context_attributes(context);
    uint8_t *cells = malloc(objects * (attributes - 1) + 1);
    parac_fca_context *shifted = NULL;
    parac_fca_implications *implications;
    parac_error error = {0};
    int unused = 1;
    for (size_t o = 0; o < objects; o++) {
        unused &= !parac_fca_context_has(context, o, 0);
        for (size_t a = 1; a < attributes; a++) cells[o * (attributes - 1) + a - 1] = (uint8_t)parac_fca_context_has(context, o, a);
    }
    CHECK(unused, "%s: attribute 0 is used", name);
    CHECK_OK(parac_fca_context_create(objects, attributes - 1, cells, &shifted, &error), &error);
    implications = compute(shifted, 0);
    CHECK(parac_fca_implications_size(implications) + 1 == full_count, "%s without attribute 0: %zu implications, %zu with",
          name, parac_fca_implications_size(implications), full_count);
    parac_fca_implications_destroy(implications);
    parac_fca_context_destroy(shifted);
    free(cells);
}

static int check_file(const char *name, uint64_t min_support)
{
    parac_fca_context *context = NULL;
    parac_fca_implications *implications;
    basis_sets basis;
    parac_error error = {0};
    char path[4096];
    snprintf(path, sizeof path, "%s/fca/%s", test_data_dir(), name);
    if (parac_fca_context_read(path, PARAC_FCA_FORMAT_AUTO, &context, &error) != PARAC_OK) {
        printf("skipped: %s (%s)\n", name, error.message);
        return 0;
    }
    implications = compute(context, 0);
    basis = basis_of(implications, parac_fca_context_attributes(context));
    printf("%s: %zu implications\n", name, basis.count);
    check_consistent(name, context, &basis);
    check_frequent_part(name, context, &basis, min_support);
    check_unused_attribute(name, context, basis.count);
    basis_free(&basis);
    parac_fca_implications_destroy(implications);
    parac_fca_context_destroy(context);
    return 1;
}

int main(void)
{
    int found = check_file("primary-tumor.dat", 20);
    found += check_file("mushroom.dat", 500);
    if (!found) return 77;
    return test_finish("fca.implications_shared");
}

/* tests/fca/test_implications_rules.c — association rules against brute force: on
 * small random contexts every attribute subset is closed by hand, the frequent
 * closed itemsets listed, and every pair B1 ⊊ B2 with its support and
 * confidence enumerated; parac_fca_rules_compute must return exactly the pairs
 * with confidence >= min_confidence (all_rules), or exactly those among them
 * with no closed itemset strictly between (the Luxenburger basis), in
 * canonical order; max_rules and a bad min_confidence fail. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "support_fca.h"
#include "test_util.h"

typedef struct rule_masks {
    uint64_t premise, conclusion, support, premise_support;
} rule_masks;

static uint64_t ids_mask(const uint32_t *ids, size_t count)
{
    uint64_t mask = 0;
    for (size_t i = 0; i < count; i++) mask |= (uint64_t)1 << ids[i];
    return mask;
}

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

static int by_rule(const void *a, const void *b)
{
    const rule_masks *x = a, *y = b;
    int order = ids_compare(x->premise, y->premise);
    return order ? order : ids_compare(x->conclusion, y->conclusion);
}

/* The frequent closed itemsets of the context (masks) with their supports; returns how many. */
static size_t brute_force_closed(const parac_fca_context *context, uint64_t min_support, uint64_t *closed,
                                 uint64_t *supports)
{
    size_t objects = parac_fca_context_objects(context), attributes = parac_fca_context_attributes(context), found = 0;
    uint64_t rows[64] = {0}, all = ((uint64_t)1 << attributes) - 1;
    for (size_t o = 0; o < objects; o++)
        for (size_t a = 0; a < attributes; a++)
            if (parac_fca_context_has(context, o, a)) rows[o] |= (uint64_t)1 << a;
    for (uint64_t set = 0; set <= all; set++) {
        uint64_t closure = all, support = 0;
        for (size_t o = 0; o < objects; o++)
            if ((rows[o] & set) == set) closure &= rows[o], support++;
        if (closure == set && support >= min_support && support > 0) {
            closed[found] = set;
            supports[found++] = support;
        }
    }
    return found;
}

static size_t brute_force_rules(const uint64_t *closed, const uint64_t *supports, size_t count, double min_confidence,
                                int covering_only, rule_masks *rules)
{
    size_t found = 0;
    for (size_t u = 0; u < count; u++)
        for (size_t l = 0; l < count; l++) {
            int between = 0;
            if (closed[u] == closed[l] || (closed[u] & ~closed[l])) continue;
            if ((double)supports[l] / (double)supports[u] < min_confidence) continue;
            for (size_t m = 0; m < count && covering_only && !between; m++)
                between = closed[m] != closed[u] && closed[m] != closed[l] && !(closed[u] & ~closed[m]) &&
                          !(closed[m] & ~closed[l]);
            if (between) continue;
            rules[found].premise = closed[u];
            rules[found].conclusion = closed[l] & ~closed[u];
            rules[found].support = supports[l];
            rules[found++].premise_support = supports[u];
        }
    qsort(rules, found, sizeof *rules, by_rule);
    return found;
}

static void check_rules(size_t objects, size_t attributes, double density, uint64_t seed, uint64_t min_support,
                        double min_confidence, int all_rules)
{
    parac_fca_context *context = fca_test_random_context(objects, attributes, density, seed);
    size_t subsets = (size_t)1 << attributes, closed_count, expected_count, wrong = 0, count;
    uint64_t *closed = malloc(subsets * sizeof *closed), *supports = malloc(subsets * sizeof *supports);
    rule_masks *expected = malloc(subsets * subsets * sizeof *expected);
    parac_fca_rule_options options;
    parac_fca_rules *rules = NULL;
    parac_error error = {0};
    uint32_t ids[64];
    closed_count = brute_force_closed(context, min_support, closed, supports);
    expected_count = brute_force_rules(closed, supports, closed_count, min_confidence, !all_rules, expected);
    parac_fca_rule_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 1 + (int)(seed % 3);
    options.min_support = min_support;
    options.min_confidence = min_confidence;
    options.all_rules = all_rules;
    CHECK_OK(parac_fca_rules_compute(context, &options, &rules, &error), &error);
    count = parac_fca_rules_size(rules);
    CHECK(count == expected_count, "seed %llu (%s, support %llu, confidence %.2f): %zu rules, brute force %zu",
          (unsigned long long)seed, all_rules ? "all" : "basis", (unsigned long long)min_support, min_confidence, count,
          expected_count);
    for (size_t r = 0; r < count && r < expected_count; r++) {
        uint64_t premise = ids_mask(ids, parac_fca_rule_premise(rules, r, ids, 64));
        uint64_t conclusion = ids_mask(ids, parac_fca_rule_conclusion(rules, r, ids, 64));
        double confidence = (double)expected[r].support / (double)expected[r].premise_support;
        wrong += premise != expected[r].premise || conclusion != expected[r].conclusion ||
                 parac_fca_rule_support(rules, r) != expected[r].support ||
                 parac_fca_rule_premise_support(rules, r) != expected[r].premise_support ||
                 parac_fca_rule_confidence(rules, r) != confidence || confidence >= 1.0;
    }
    CHECK(wrong == 0, "seed %llu: %zu rules differ from brute force", (unsigned long long)seed, wrong);
    if (all_rules && expected_count > 1) { /* one rule fewer than needed is refused */
        parac_fca_rules *limited = NULL;
        options.max_rules = expected_count - 1;
        CHECK(parac_fca_rules_compute(context, &options, &limited, &error) == PARAC_ERR_INVALID_ARGUMENT,
              "seed %llu: max_rules %zu not enforced", (unsigned long long)seed, expected_count - 1);
        options.max_rules = expected_count;
        CHECK_OK(parac_fca_rules_compute(context, &options, &limited, &error), &error);
        parac_fca_rules_destroy(limited);
    }
    parac_fca_rules_destroy(rules);
    parac_fca_context_destroy(context);
    free(closed);
    free(supports);
    free(expected);
}

static void check_bad_options(void)
{
    parac_fca_context *context = fca_test_random_context(10, 5, 0.5, 3);
    parac_fca_rule_options options;
    parac_fca_rules *rules = NULL;
    parac_error error = {0};
    parac_fca_rule_options_init(&options);
    options.min_confidence = 1.5;
    CHECK(parac_fca_rules_compute(context, &options, &rules, &error) == PARAC_ERR_INVALID_ARGUMENT, "confidence 1.5");
    options.min_confidence = -0.1;
    CHECK(parac_fca_rules_compute(context, &options, &rules, &error) == PARAC_ERR_INVALID_ARGUMENT, "confidence -0.1");
    CHECK(parac_fca_rules_compute(NULL, NULL, &rules, &error) == PARAC_ERR_INVALID_ARGUMENT, "NULL context");
    parac_fca_context_destroy(context);
}

int main(void)
{
    check_bad_options();
    for (uint64_t seed = 1; seed <= 40; seed++) {
        size_t objects = 3 + seed % 14, attributes = 2 + seed % 8;
        double density = 0.25 + 0.07 * (double)(seed % 8), confidence = (double)(seed % 5) * 0.2;
        uint64_t support = seed % 4;
        check_rules(objects, attributes, density, seed, support, confidence, 0);
        check_rules(objects, attributes, density, seed, support, confidence, 1);
    }
    return test_finish("fca.implications_rules");
}

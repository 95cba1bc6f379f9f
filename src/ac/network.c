/* ac/network.c — building a constraint network (see network.h).
 *
 * Arrays grow geometrically; their capacity is a function of their length
 * (next power of two), so no capacity fields are needed for variables and values.
 * Constraints are merged through one hash index (core/hash_index) keyed by their
 * sorted scope: binary ones by the ordered pair (x < y), so a parser adding 10^5
 * constraints never scans the constraint list. Tables are stored with their scope
 * sorted ascending (columns permuted to match), so two tables over the same
 * variables in any order share one key, and are merged by intersecting their
 * sorted tuple lists.
 */
#include "ac/network.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hash_index.h"

/* Constraints by sorted scope (binary: first < second; tables: ascending). */
typedef struct parac_csp_scope_index {
    parac_hash_index constraints;
} parac_csp_scope_index;

typedef struct scope_key {
    uint32_t arity;
    const uint32_t *scope; /* sorted */
} scope_key;

static uint64_t hash_scope(uint32_t arity, const uint32_t *scope) { return parac_hash_bytes(scope, arity * sizeof *scope); }

static uint64_t constraint_hash(const void *context, size_t item)
{
    const parac_csp_constraint *c = &((const parac_csp_network *)context)->constraints[item];
    return hash_scope(c->arity, c->scope);
}

static int constraint_has_scope(const void *context, size_t item, const void *key)
{
    const parac_csp_constraint *c = &((const parac_csp_network *)context)->constraints[item];
    const scope_key *k = key;
    return c->arity == k->arity && memcmp(c->scope, k->scope, k->arity * sizeof *k->scope) == 0;
}

/* The constraint over this sorted scope, or SIZE_MAX; *slot: where to index a new one. */
static size_t find_scope(const parac_csp_network *network, uint32_t arity, const uint32_t *sorted_scope, size_t *slot)
{
    scope_key key = {arity, sorted_scope};
    return parac_hash_index_find(&network->scope_index->constraints, hash_scope(arity, sorted_scope), &key,
                                 constraint_has_scope, network, slot);
}

/* Room in the index for one more constraint: 0, or -1 out of memory. */
static int reserve_scope(parac_csp_network *network)
{
    return parac_hash_index_reserve(&network->scope_index->constraints, constraint_hash, network);
}

static size_t capacity_for(size_t length)
{
    size_t capacity = 16;
    while (capacity < length) capacity *= 2;
    return capacity;
}

/* Grows *array (element_size bytes each) so that it can hold new_length elements, when the
 * capacity implied by old_length is too small. */
static int grow_array(void **array, size_t element_size, size_t old_length, size_t new_length)
{
    void *grown;
    if (*array && new_length <= capacity_for(old_length)) return 1;
    grown = realloc(*array, capacity_for(new_length) * element_size);
    if (!grown) return 0;
    *array = grown;
    return 1;
}

static char *copy_string(const char *text)
{
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy) memcpy(copy, text, length + 1);
    return copy;
}

parac_status parac_csp_network_init(parac_csp_network *network, parac_error *error)
{
    memset(network, 0, sizeof *network);
    network->scope_index = calloc(1, sizeof *network->scope_index);
    network->value_offset = calloc(capacity_for(1), sizeof *network->value_offset);
    if (!network->scope_index || !network->value_offset) {
        parac_csp_network_free(network);
        return parac_fail_no_memory(error, "constraint network", sizeof(parac_csp_scope_index));
    }
    return PARAC_OK;
}

parac_status parac_csp_add_variable(parac_csp_network *network, const char *name, const int64_t *values,
                                    uint32_t count, uint32_t *index, parac_error *error)
{
    size_t n = network->variable_count;
    uint64_t first = network->value_count;
    char *name_copy;
    if (network->present)
        return parac_fail(error, PARAC_ERR_INTERNAL, "variable '%s' added after parac_csp_finish_variables", name);
    for (uint32_t i = 1; i < count; i++)
        if (values[i] <= values[i - 1])
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "domain of '%s' is not sorted and distinct", name);
    name_copy = copy_string(name ? name : "");
    if (!name_copy || !grow_array((void **)&network->variable_names, sizeof(char *), n, n + 1) ||
        !grow_array((void **)&network->domain_size, sizeof(uint32_t), n, n + 1) ||
        !grow_array((void **)&network->value_offset, sizeof(uint64_t), n + 1, n + 2) ||
        !grow_array((void **)&network->values, sizeof(int64_t), (size_t)first, (size_t)first + count)) {
        free(name_copy);
        /* which array failed matters less than how large the network had grown */
        return parac_fail(error, PARAC_ERR_NO_MEMORY,
                          "out of host memory growing the network to %zu variables and %llu values (%llu bytes of "
                          "values)", n + 1, (unsigned long long)(first + count),
                          (unsigned long long)((first + count) * sizeof(int64_t)));
    }
    network->variable_names[n] = name_copy;
    network->domain_size[n] = count;
    network->value_offset[n] = first;
    if (count) memcpy(network->values + first, values, count * sizeof *values);
    network->value_count = first + count;
    network->value_offset[n + 1] = network->value_count;
    network->variable_count = n + 1;
    if (index) *index = (uint32_t)n;
    return PARAC_OK;
}

parac_status parac_csp_finish_variables(parac_csp_network *network, parac_error *error)
{
    size_t words = parac_bitset_words((size_t)network->value_count);
    if (network->present) return PARAC_OK;
    network->present = malloc((words ? words : 1) * sizeof(parac_word));
    if (!network->present) return parac_fail_no_memory(error, "domains", words * sizeof(parac_word));
    network->present[0] = 0;
    parac_bitset_fill(network->present, (size_t)network->value_count);
    network->value_offset[network->variable_count] = network->value_count;
    network->declared_variable_count = network->variable_count;
    return PARAC_OK;
}

parac_status parac_csp_add_auxiliary_variable(parac_csp_network *network, const char *name, const int64_t *values,
                                              uint32_t count, uint32_t *index, parac_error *error)
{
    uint64_t first = network->value_count;
    size_t old_words = parac_bitset_words((size_t)first), new_words = parac_bitset_words((size_t)first + count);
    parac_word *present;
    parac_status status;
    if (!network->present)
        return parac_fail(error, PARAC_ERR_INTERNAL, "auxiliary variable '%s' before parac_csp_finish_variables", name);
    present = network->present;
    if (new_words > old_words && !(present = realloc(present, new_words * sizeof *present)))
        return parac_fail_no_memory(error, "domains", new_words * sizeof *present);
    network->present = NULL; /* parac_csp_add_variable appends only before the layout is fixed */
    status = parac_csp_add_variable(network, name, values, count, index, error);
    network->present = present;
    if (status != PARAC_OK) return status;
    for (uint64_t id = first; id < first + count; id++) {
        if (id % PARAC_WORD_BITS == 0) present[id / PARAC_WORD_BITS] = 0;
        parac_bitset_set(present, (size_t)id);
    }
    return PARAC_OK;
}

static parac_csp_constraint *append_constraint(parac_csp_network *network, parac_error *error)
{
    parac_csp_constraint *constraint;
    if (network->constraint_count == network->constraint_capacity) {
        size_t capacity = network->constraint_capacity ? network->constraint_capacity * 2 : 64;
        parac_csp_constraint *grown = realloc(network->constraints, capacity * sizeof *grown);
        if (!grown) {
            parac_fail_no_memory(error, "constraints", capacity * sizeof *grown);
            return NULL;
        }
        network->constraints = grown;
        network->constraint_capacity = capacity;
    }
    constraint = &network->constraints[network->constraint_count];
    memset(constraint, 0, sizeof *constraint);
    return constraint;
}

/* x = x: a pair (a, b) is allowed only when a == b, so keep the values whose diagonal bit is set. */
static void apply_diagonal(parac_csp_network *network, uint32_t x, const parac_word *matrix)
{
    uint32_t size = network->domain_size[x];
    size_t row_words = parac_bitset_words(size);
    for (uint32_t a = 0; a < size; a++)
        if (!parac_bitset_test(matrix + (size_t)a * row_words, a)) parac_csp_remove_initial_value(network, x, a);
}

/* Copies matrix (rows of x, columns of y) into out laid out as rows of `first`, transposing when x > y. */
static void copy_oriented(const parac_csp_network *network, uint32_t x, uint32_t y, const parac_word *matrix,
                          parac_word *out)
{
    uint32_t size_x = network->domain_size[x], size_y = network->domain_size[y];
    size_t words_y = parac_bitset_words(size_y), words_x = parac_bitset_words(size_x);
    if (x < y) {
        memcpy(out, matrix, (size_t)size_x * words_y * sizeof *out);
        return;
    }
    memset(out, 0, (size_t)size_y * words_x * sizeof *out);
    for (uint32_t a = 0; a < size_x; a++)
        for (uint32_t b = 0; b < size_y; b++)
            if (parac_bitset_test(matrix + (size_t)a * words_y, b)) parac_bitset_set(out + (size_t)b * words_x, a);
}

static parac_status check_binary_scope(const parac_csp_network *network, uint32_t x, uint32_t y, parac_error *error)
{
    if (!network->present)
        return parac_fail(error, PARAC_ERR_INTERNAL, "constraint added before parac_csp_finish_variables");
    if (x >= network->variable_count || y >= network->variable_count)
        return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "constraint scope (%u, %u) names no variable", x, y);
    return PARAC_OK;
}

/* Appends a new binary constraint owning `matrix` (rows of first < second). */
static parac_status append_binary(parac_csp_network *network, uint32_t first, uint32_t second, parac_word *matrix,
                                  parac_error *error)
{
    parac_csp_constraint *constraint = append_constraint(network, error);
    uint32_t *scope = constraint ? malloc(2 * sizeof *scope) : NULL;
    if (!scope) {
        free(matrix);
        return constraint ? parac_fail_no_memory(error, "constraint scope", 2 * sizeof *scope) : PARAC_ERR_NO_MEMORY;
    }
    scope[0] = first;
    scope[1] = second;
    constraint->arity = 2;
    constraint->scope = scope;
    constraint->matrix = matrix;
    constraint->row_words = parac_bitset_words(network->domain_size[second]);
    network->constraint_count++;
    return PARAC_OK;
}

parac_status parac_csp_add_binary(parac_csp_network *network, uint32_t x, uint32_t y, const parac_word *matrix,
                                  parac_error *error)
{
    uint32_t first = x < y ? x : y, second = x < y ? y : x, pair[2] = {first, second};
    size_t words, slot, earlier_index;
    parac_word *oriented;
    parac_status status = check_binary_scope(network, x, y, error);
    if (status != PARAC_OK) return status;
    if (x == y) {
        apply_diagonal(network, x, matrix);
        return PARAC_OK;
    }
    words = (size_t)network->domain_size[first] * parac_bitset_words(network->domain_size[second]);
    oriented = malloc((words ? words : 1) * sizeof *oriented);
    if (!oriented) return parac_fail_no_memory(error, "binary constraint", words * sizeof *oriented);
    copy_oriented(network, x, y, matrix, oriented);
    if (reserve_scope(network) != 0) {
        free(oriented);
        return parac_fail_no_memory(error, "constraint scope index", 2 * network->constraint_count * sizeof(size_t));
    }
    earlier_index = find_scope(network, 2, pair, &slot);
    if (earlier_index != SIZE_MAX) { /* same scope as an earlier constraint: keep the pairs both allow */
        parac_csp_constraint *earlier = &network->constraints[earlier_index];
        parac_bitset_and(earlier->matrix, earlier->matrix, oriented, words);
        free(oriented);
        return PARAC_OK;
    }
    status = append_binary(network, first, second, oriented, error);
    if (status != PARAC_OK) return status;
    parac_hash_index_insert(&network->scope_index->constraints, slot, network->constraint_count - 1);
    return PARAC_OK;
}

/* ---- tables ------------------------------------------------------------------------------ */

/* Lexicographic order of two tuples of `arity` slots. */
static int tuple_less(const uint32_t *a, const uint32_t *b, uint32_t arity)
{
    for (uint32_t i = 0; i < arity; i++)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

/* Sorts tuple indices by their tuples (bottom-up merge sort: no global comparator state). */
static void sort_tuple_order(const uint32_t *tuples, uint32_t arity, size_t *order, size_t *scratch, size_t count)
{
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t lo = 0; lo < count; lo += 2 * width) {
            size_t mid = lo + width < count ? lo + width : count;
            size_t hi = lo + 2 * width < count ? lo + 2 * width : count;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                scratch[k++] = tuple_less(tuples + order[j] * arity, tuples + order[i] * arity, arity) ? order[j++]
                                                                                                      : order[i++];
            while (i < mid) scratch[k++] = order[i++];
            while (j < hi) scratch[k++] = order[j++];
        }
        memcpy(order, scratch, count * sizeof *order);
    }
}

/* The table in canonical form (sorted, no duplicates) written to out; returns the count kept,
 * or SIZE_MAX when out of memory. */
static size_t canonical_tuples(const uint32_t *tuples, uint32_t arity, size_t count, uint32_t *out)
{
    size_t *order = malloc((count ? count : 1) * sizeof *order);
    size_t *scratch = malloc((count ? count : 1) * sizeof *scratch);
    size_t kept = 0;
    if (!order || !scratch) {
        free(order);
        free(scratch);
        return SIZE_MAX;
    }
    for (size_t i = 0; i < count; i++) order[i] = i;
    sort_tuple_order(tuples, arity, order, scratch, count);
    for (size_t i = 0; i < count; i++) {
        const uint32_t *tuple = tuples + order[i] * arity;
        if (kept && memcmp(out + (kept - 1) * arity, tuple, arity * sizeof *tuple) == 0) continue;
        memcpy(out + kept * arity, tuple, arity * sizeof *tuple);
        kept++;
    }
    free(order);
    free(scratch);
    return kept;
}

/* A scope that repeats a variable, (x, y, x), keeps the tuples whose repeated positions agree and
 * drops the repeated columns. Fills new_scope/new_tuples (room for arity and tuple_count*arity);
 * returns the reduced arity and sets *new_count. */
static uint32_t remove_repeated_variables(uint32_t arity, const uint32_t *scope, const uint32_t *tuples,
                                          size_t tuple_count, uint32_t *new_scope, uint32_t *column_of,
                                          uint32_t *new_tuples, size_t *new_count)
{
    uint32_t reduced = 0;
    size_t kept = 0;
    for (uint32_t i = 0; i < arity; i++) {
        uint32_t j = 0;
        while (j < reduced && new_scope[j] != scope[i]) j++;
        if (j == reduced) new_scope[reduced++] = scope[i];
        column_of[i] = j;
    }
    for (size_t t = 0; t < tuple_count; t++) {
        const uint32_t *tuple = tuples + t * arity;
        uint32_t *out = new_tuples + kept * reduced;
        uint32_t filled = 0;
        int consistent = 1;
        for (uint32_t i = 0; i < arity && consistent; i++) {
            if (column_of[i] == filled) out[filled++] = tuple[i];
            else if (out[column_of[i]] != tuple[i]) consistent = 0;
        }
        if (consistent) kept++;
    }
    *new_count = kept;
    return reduced;
}

/* A table over one variable: keep the values that appear in it. */
static parac_status apply_unary_table(parac_csp_network *network, uint32_t var, const uint32_t *tuples,
                                      size_t count, parac_error *error)
{
    uint32_t size = network->domain_size[var];
    parac_word *allowed = calloc(parac_bitset_words(size) + 1, sizeof *allowed);
    if (!allowed) return parac_fail_no_memory(error, "unary constraint", size / 8 + 8);
    for (size_t t = 0; t < count; t++)
        if (tuples[t] < size) parac_bitset_set(allowed, tuples[t]);
    for (uint32_t a = 0; a < size; a++)
        if (!parac_bitset_test(allowed, a)) parac_csp_remove_initial_value(network, var, a);
    free(allowed);
    return PARAC_OK;
}

static parac_status add_binary_table(parac_csp_network *network, const uint32_t *scope, const uint32_t *tuples,
                                     size_t count, parac_error *error)
{
    uint32_t size_x = network->domain_size[scope[0]];
    size_t row_words = parac_bitset_words(network->domain_size[scope[1]]);
    size_t words = (size_t)size_x * row_words;
    parac_word *matrix = calloc(words ? words : 1, sizeof *matrix);
    parac_status status;
    if (!matrix) return parac_fail_no_memory(error, "binary constraint", words * sizeof *matrix);
    for (size_t t = 0; t < count; t++) parac_bitset_set(matrix + (size_t)tuples[2 * t] * row_words, tuples[2 * t + 1]);
    status = parac_csp_add_binary(network, scope[0], scope[1], matrix, error);
    free(matrix);
    return status;
}

static parac_status check_table(const parac_csp_network *network, uint32_t arity, const uint32_t *scope,
                                const uint32_t *tuples, size_t tuple_count, parac_error *error)
{
    if (!network->present)
        return parac_fail(error, PARAC_ERR_INTERNAL, "constraint added before parac_csp_finish_variables");
    if (arity == 0) return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "table constraint of arity 0");
    for (uint32_t i = 0; i < arity; i++)
        if (scope[i] >= network->variable_count)
            return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "table scope names variable %u of %zu", scope[i],
                              network->variable_count);
    for (size_t t = 0; t < tuple_count; t++)
        for (uint32_t i = 0; i < arity; i++)
            if (tuples[t * arity + i] >= network->domain_size[scope[i]])
                return parac_fail(error, PARAC_ERR_INVALID_ARGUMENT, "table tuple %zu has slot %u past the domain of %s",
                                  t, tuples[t * arity + i], network->variable_names[scope[i]]);
    return PARAC_OK;
}

/* The scope sorted ascending, and for each sorted position the original column it comes from. */
static void sort_scope(uint32_t arity, const uint32_t *scope, uint32_t *sorted, uint32_t *column)
{
    for (uint32_t i = 0; i < arity; i++) {
        uint32_t k = i;
        for (; k > 0 && scope[column[k - 1]] > scope[i]; k--) column[k] = column[k - 1];
        column[k] = i;
    }
    for (uint32_t k = 0; k < arity; k++) sorted[k] = scope[column[k]];
}

/* Keeps in `into` only the tuples also in `other`; both sorted and distinct, same columns. */
static void intersect_tuples(parac_csp_constraint *into, const uint32_t *other, size_t other_count)
{
    uint32_t arity = into->arity;
    size_t i = 0, j = 0, kept = 0;
    while (i < into->tuple_count && j < other_count) {
        const uint32_t *a = into->tuples + i * arity, *b = other + j * arity;
        if (tuple_less(a, b, arity)) i++;
        else if (tuple_less(b, a, arity)) j++;
        else {
            memmove(into->tuples + kept * arity, a, arity * sizeof *a);
            kept++, i++, j++;
        }
    }
    into->tuple_count = kept;
}

/* Appends a table owning scope and canonical tuples, and indexes it by its (sorted) scope. */
static parac_status append_table(parac_csp_network *network, uint32_t arity, uint32_t *scope, uint32_t *tuples,
                                 size_t count, size_t slot, parac_error *error)
{
    parac_csp_constraint *constraint = append_constraint(network, error);
    if (!constraint) {
        free(scope);
        free(tuples);
        return PARAC_ERR_NO_MEMORY;
    }
    constraint->arity = arity;
    constraint->scope = scope;
    constraint->tuples = tuples;
    constraint->tuple_count = count;
    network->constraint_count++;
    parac_hash_index_insert(&network->scope_index->constraints, slot, network->constraint_count - 1);
    return PARAC_OK;
}

/* Stores an already reduced (distinct variables) table of arity >= 3: columns permuted to the
 * sorted scope, tuples in canonical form, intersected with an earlier table over the same variables. */
static parac_status store_table(parac_csp_network *network, uint32_t arity, const uint32_t *scope,
                                const uint32_t *tuples, size_t tuple_count, parac_error *error)
{
    size_t bytes = (tuple_count ? tuple_count : 1) * arity * sizeof(uint32_t), kept = SIZE_MAX, slot, earlier;
    uint32_t *permuted = malloc(bytes), *canonical = malloc(bytes);
    uint32_t *sorted = malloc(arity * sizeof *sorted), *column = malloc(arity * sizeof *column);
    if (permuted && canonical && sorted && column) {
        sort_scope(arity, scope, sorted, column);
        for (size_t t = 0; t < tuple_count; t++)
            for (uint32_t k = 0; k < arity; k++) permuted[t * arity + k] = tuples[t * arity + column[k]];
        kept = canonical_tuples(permuted, arity, tuple_count, canonical);
    }
    free(permuted);
    free(column);
    if (kept == SIZE_MAX || reserve_scope(network) != 0) {
        free(canonical);
        free(sorted);
        return parac_fail_no_memory(error, "table constraint", bytes);
    }
    earlier = find_scope(network, arity, sorted, &slot);
    if (earlier != SIZE_MAX) { /* same variables as an earlier table: keep the tuples both allow */
        intersect_tuples(&network->constraints[earlier], canonical, kept);
        free(canonical);
        free(sorted);
        return PARAC_OK;
    }
    return append_table(network, arity, sorted, canonical, kept, slot, error);
}

parac_status parac_csp_add_table(parac_csp_network *network, uint32_t arity, const uint32_t *scope,
                                 const uint32_t *tuples, size_t tuple_count, parac_error *error)
{
    uint32_t *new_scope, *column_of, *new_tuples, reduced;
    size_t new_count = 0;
    parac_status status = check_table(network, arity, scope, tuples, tuple_count, error);
    if (status != PARAC_OK) return status;
    new_scope = malloc(arity * sizeof *new_scope);
    column_of = malloc(arity * sizeof *column_of);
    new_tuples = malloc((tuple_count ? tuple_count : 1) * arity * sizeof *new_tuples);
    if (!new_scope || !column_of || !new_tuples) {
        status = parac_fail_no_memory(error, "table constraint", tuple_count * arity * sizeof *new_tuples);
        goto done;
    }
    reduced = remove_repeated_variables(arity, scope, tuples, tuple_count, new_scope, column_of, new_tuples,
                                        &new_count);
    if (reduced == 1) status = apply_unary_table(network, new_scope[0], new_tuples, new_count, error);
    else if (reduced == 2) status = add_binary_table(network, new_scope, new_tuples, new_count, error);
    else status = store_table(network, reduced, new_scope, new_tuples, new_count, error);
done:
    free(new_scope);
    free(column_of);
    free(new_tuples);
    return status;
}

/* ---- global constraints --------------------------------------------------------------------- */

static int term_ok(const parac_csp_network *network, const ac_term *term)
{
    return term->var == AC_TERM_CONSTANT || (term->var >= 0 && (uint64_t)term->var < network->variable_count);
}

static int global_terms_ok(const parac_csp_network *network, const parac_csp_global *global)
{
    if (global->list_count > AC_GLOBAL_MAX_LISTS) return 0;
    for (size_t l = 0; l < global->list_count; l++)
        for (size_t i = 0; i < global->list_length[l]; i++)
            if (!term_ok(network, &global->lists[l][i])) return 0;
    return term_ok(network, &global->condition.operand) && term_ok(network, &global->index) &&
           term_ok(network, &global->index2) && term_ok(network, &global->size);
}

parac_status parac_csp_add_global(parac_csp_network *network, const parac_csp_global *global, parac_error *error)
{
    size_t n = network->global_count;
    if (!global_terms_ok(network, global))
        return parac_fail(error, PARAC_ERR_PARSE, "line %ld: %s names a variable that does not exist", global->line,
                          ac_global_kind_name(global->kind));
    if (!grow_array((void **)&network->globals, sizeof *network->globals, n, n + 1))
        return parac_fail_no_memory(error, "global constraint list", (n + 1) * sizeof *network->globals);
    if (ac_global_copy(&network->globals[n], global) != 0)
        return parac_fail_no_memory(error, "global constraint", sizeof *global);
    network->global_count = n + 1;
    return PARAC_OK;
}

/* ---- domains, dropped constraints, counts --------------------------------------------------- */

void parac_csp_remove_initial_value(parac_csp_network *network, uint32_t var, uint32_t slot)
{
    if (!network->present || var >= network->variable_count || slot >= network->domain_size[var]) return;
    parac_bitset_clear_bit(network->present, (size_t)(network->value_offset[var] + slot));
}

parac_status parac_csp_note_dropped(parac_csp_network *network, const char *description, parac_error *error)
{
    size_t n = network->dropped_count;
    char *copy = copy_string(description);
    if (!copy || !grow_array((void **)&network->dropped, sizeof(char *), n, n + 1)) {
        free(copy);
        return parac_fail_no_memory(error, "dropped constraint list", strlen(description) + 1);
    }
    network->dropped[n] = copy;
    network->dropped_count = n + 1;
    return PARAC_OK;
}

size_t parac_csp_declared_variables(const parac_csp_network *network)
{
    return network->present && network->declared_variable_count ? network->declared_variable_count
                                                                 : network->variable_count;
}

uint64_t parac_csp_declared_values(const parac_csp_network *network)
{
    return network->value_offset ? network->value_offset[parac_csp_declared_variables(network)] : 0;
}

uint64_t parac_csp_declared_values_in(const parac_csp_network *network, const parac_word *bits)
{
    uint64_t values = parac_csp_declared_values(network);
    size_t full = (size_t)(values / PARAC_WORD_BITS);
    uint64_t count = parac_bitset_popcount(bits, full);
    if (values % PARAC_WORD_BITS) count += (uint64_t)__builtin_popcountll(bits[full] & parac_bitset_tail_mask((size_t)values));
    return count;
}

void parac_csp_network_free(parac_csp_network *network)
{
    if (!network) return;
    for (size_t i = 0; i < network->variable_count; i++) free(network->variable_names[i]);
    for (size_t i = 0; i < network->constraint_count; i++) {
        free(network->constraints[i].scope);
        free(network->constraints[i].matrix);
        free(network->constraints[i].tuples);
    }
    for (size_t i = 0; i < network->global_count; i++) ac_global_free(&network->globals[i]);
    free(network->globals);
    for (size_t i = 0; i < network->dropped_count; i++) free(network->dropped[i]);
    if (network->scope_index) {
        parac_hash_index_free(&network->scope_index->constraints);
        free(network->scope_index);
    }
    free(network->variable_names);
    free(network->domain_size);
    free(network->value_offset);
    free(network->values);
    free(network->present);
    free(network->constraints);
    free(network->dropped);
    memset(network, 0, sizeof *network);
}

size_t parac_csp_binary_count(const parac_csp_network *network)
{
    size_t count = 0;
    for (size_t i = 0; i < network->constraint_count; i++) count += network->constraints[i].arity == 2;
    return count;
}

uint64_t parac_csp_edge_count(const parac_csp_network *network)
{
    uint64_t edges = 0;
    for (size_t i = 0; i < network->constraint_count; i++) {
        const parac_csp_constraint *constraint = &network->constraints[i];
        if (constraint->arity != 2) continue;
        edges += (uint64_t)network->domain_size[constraint->scope[0]] * network->domain_size[constraint->scope[1]];
    }
    return edges;
}

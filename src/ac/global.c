/* ac/global.c — the plain-data side of global constraints (global.h): their
 * scope, deep copies for the network, and their XCSP3 names. */
#include "ac/global.h"

#include <stdlib.h>
#include <string.h>

#include "core/sort_ids.h"

void ac_global_init(parac_csp_global *global, ac_global_kind kind)
{
    static const ac_term constant_zero = {AC_TERM_CONSTANT, 0};
    memset(global, 0, sizeof *global);
    global->kind = kind;
    global->condition.operand = global->condition2.operand = constant_zero;
    global->index = global->index2 = global->size = constant_zero;
}

/* Appends term's variable to scope (unsorted, may repeat) while there is room; counts it always. */
static void note_term(const ac_term *term, uint32_t *scope, size_t capacity, size_t *count)
{
    if (term->var < 0) return;
    if (*count < capacity) scope[*count] = (uint32_t)term->var;
    (*count)++;
}

static size_t collect_variables(const parac_csp_global *global, uint32_t *scope, size_t capacity)
{
    size_t count = 0;
    for (size_t l = 0; l < global->list_count && l < AC_GLOBAL_MAX_LISTS; l++)
        for (size_t i = 0; i < global->list_length[l]; i++) note_term(&global->lists[l][i], scope, capacity, &count);
    note_term(&global->condition.operand, scope, capacity, &count);
    note_term(&global->condition2.operand, scope, capacity, &count);
    note_term(&global->index, scope, capacity, &count);
    note_term(&global->index2, scope, capacity, &count);
    note_term(&global->size, scope, capacity, &count);
    return count;
}

size_t ac_global_scope(const parac_csp_global *global, uint32_t *scope, size_t capacity)
{
    size_t all = collect_variables(global, NULL, 0), distinct = 0;
    uint32_t *every = malloc((all ? all : 1) * sizeof *every);
    if (!every) return 0;
    collect_variables(global, every, all);
    parac_sort_u32(every, all);
    for (size_t i = 0; i < all; i++) {
        if (i > 0 && every[i] == every[i - 1]) continue;
        if (distinct < capacity) scope[distinct] = every[i];
        distinct++;
    }
    free(every);
    return distinct;
}

/* *to = a malloc'd copy of count elements of size bytes at from (NULL when count is 0). 0 ok, -1 no memory. */
static int copy_array(void **to, const void *from, size_t count, size_t size)
{
    *to = NULL;
    if (!count || !from) return 0;
    if (count > SIZE_MAX / size) return -1;
    *to = malloc(count * size);
    if (!*to) return -1;
    memcpy(*to, from, count * size);
    return 0;
}

int ac_global_copy(parac_csp_global *to, const parac_csp_global *from)
{
    int failed = 0;
    *to = *from;
    for (size_t l = 0; l < AC_GLOBAL_MAX_LISTS; l++) {
        to->lists[l] = NULL;
        if (l < from->list_count) failed |= copy_array((void **)&to->lists[l], from->lists[l], from->list_length[l], sizeof(ac_term));
    }
    failed |= copy_array((void **)&to->coeffs, from->coeffs, from->coeff_count, sizeof(int64_t));
    failed |= copy_array((void **)&to->values, from->values, from->value_count, sizeof(int64_t));
    failed |= copy_array((void **)&to->ranges, from->ranges, from->has_ranges && from->list_count > 2 ? from->list_length[2] : 0,
                         sizeof(ac_range));
    failed |= copy_array((void **)&to->condition.set, from->condition.set, from->condition.set_count, sizeof(int64_t));
    failed |= copy_array((void **)&to->condition2.set, from->condition2.set, from->condition2.set_count, sizeof(int64_t));
    failed |= copy_array((void **)&to->finals, from->finals, from->final_count, sizeof(int64_t));
    if (from->transition_count > SIZE_MAX / 3) failed = -1;
    else failed |= copy_array((void **)&to->transitions, from->transitions, 3 * from->transition_count, sizeof(int64_t));
    if (failed) {
        ac_global_free(to);
        return -1;
    }
    return 0;
}

void ac_global_free(parac_csp_global *global)
{
    if (!global) return;
    for (size_t l = 0; l < AC_GLOBAL_MAX_LISTS; l++) free(global->lists[l]);
    free(global->coeffs);
    free(global->values);
    free(global->ranges);
    free(global->condition.set);
    free(global->condition2.set);
    free(global->finals);
    free(global->transitions);
    memset(global, 0, sizeof *global);
}

const char *ac_global_kind_name(ac_global_kind kind)
{
    static const char *const names[AC_GLOBAL_KIND_COUNT] = {
        [AC_GLOBAL_ALL_DIFFERENT] = "allDifferent", [AC_GLOBAL_ALL_EQUAL] = "allEqual",
        [AC_GLOBAL_SUM] = "sum",                    [AC_GLOBAL_COUNT] = "count",
        [AC_GLOBAL_NVALUES] = "nValues",            [AC_GLOBAL_CARDINALITY] = "cardinality",
        [AC_GLOBAL_ELEMENT] = "element",            [AC_GLOBAL_CHANNEL] = "channel",
        [AC_GLOBAL_ORDERED] = "ordered",            [AC_GLOBAL_LEX] = "lex",
        [AC_GLOBAL_REGULAR] = "regular",            [AC_GLOBAL_MDD] = "mdd",
        [AC_GLOBAL_MINIMUM] = "minimum",            [AC_GLOBAL_MAXIMUM] = "maximum",
        [AC_GLOBAL_NO_OVERLAP] = "noOverlap",       [AC_GLOBAL_CUMULATIVE] = "cumulative",
        [AC_GLOBAL_CIRCUIT] = "circuit",            [AC_GLOBAL_BIN_PACKING] = "binPacking",
        [AC_GLOBAL_KNAPSACK] = "knapsack",
    };
    return kind > 0 && kind < AC_GLOBAL_KIND_COUNT ? names[kind] : "unknown";
}

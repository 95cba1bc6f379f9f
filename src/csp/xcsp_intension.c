/* csp/xcsp_intension.c — intension constraints into the network (csp/xcsp_build.h): the
 * expression evaluated on every combination of its variables' slots, the allowed tuples kept;
 * and an expression met as a term of a list, turned into an auxiliary variable tied to its
 * variables by a table. */
#include "csp/xcsp_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "csp/xcsp_slot_space.h"

/* ---- intension ---------------------------------------------------------------------------- */

typedef struct intension {
    uint32_t scope[64];
    uint32_t arity;
    int64_t *operands;  /* values handed to the evaluator */
    int32_t *position;  /* operand -> scope position, or -1 for a constant */
    int64_t *stack;
    uint8_t *states;    /* the evaluator's state per stack entry */
} intension;

/* Distinct variables of the operands, in order of first appearance. */
static int collect_scope(intension *in, const int64_t *operand_var, size_t operand_count)
{
    in->arity = 0;
    for (size_t k = 0; k < operand_count; k++) {
        uint32_t p = 0;
        if (operand_var[k] < 0) {
            in->position[k] = -1;
            continue;
        }
        while (p < in->arity && in->scope[p] != (uint32_t)operand_var[k]) p++;
        if (p == in->arity) {
            if (in->arity == 64) return -1;
            in->scope[in->arity++] = (uint32_t)operand_var[k];
        }
        in->position[k] = (int32_t)p;
    }
    return 0;
}

/* The expression's value at these scope slots: 1 and *result, 0 when undefined, -1 on overflow. */
static int evaluate_at(const parac_csp_network *network, const xcsp_expr *expr, intension *in, size_t operand_count,
                       const uint32_t *slots, int64_t *result)
{
    for (size_t k = 0; k < operand_count; k++) {
        int32_t p = in->position[k];
        if (p >= 0) in->operands[k] = network->values[network->value_offset[in->scope[p]] + slots[p]];
    }
    return xcsp_expr_eval(expr, in->operands, in->stack, in->states, result);
}

/* 1 when the expression holds at these scope slots, 0 when not (or undefined), -1 on overflow. */
static int holds(const parac_csp_network *network, const xcsp_expr *expr, intension *in, size_t operand_count,
                 const uint32_t *slots)
{
    int64_t result;
    int evaluated = evaluate_at(network, expr, in, operand_count, slots, &result);
    return evaluated < 0 ? -1 : evaluated && result != 0;
}

/* Refuses a constraint whose expression overflows 64 bits at `slots`, naming the tuple. */
static parac_status fail_overflow(const parac_csp_network *network, const intension *in, const uint32_t *slots,
                                  const xcsp_site *site, parac_error *error)
{
    char tuple[160] = "";
    size_t used = 0;
    for (uint32_t p = 0; p < in->arity && p < 4 && used < sizeof tuple; p++)
        used += (size_t)snprintf(tuple + used, sizeof tuple - used, "%s%s=%lld", p ? ", " : "",
                                 network->variable_names[in->scope[p]],
                                 (long long)network->values[network->value_offset[in->scope[p]] + (slots ? slots[p] : 0)]);
    return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                         "intension arithmetic overflows 64-bit integers%s%s%s", in->arity ? " at (" : "", tuple,
                         in->arity ? (in->arity > 4 ? ", ...)" : ")") : "");
}

/* Evaluation steps (tuples times program length) allowed per tuple of max_table_tuples: 10^10 steps,
 * tens of seconds, with the default 10^7. */
#define INTENSION_STEPS_PER_TUPLE 1000

/* PARAC_OK when evaluating expr on every one of `product` tuples fits the budgets. */
static parac_status intension_work_fits(const xcsp_expr *expr, uint32_t arity, uint64_t product, const xcsp_site *site,
                                        parac_error *error)
{
    uint64_t steps;
    if (product > site->max_table_tuples)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "intension over %u variables spans %llu tuples (limit %llu)", arity,
                             (unsigned long long)product, (unsigned long long)site->max_table_tuples);
    /* the work of one constraint: every tuple runs the whole program (a 10^7-byte expression over
     * 10^7 tuples would run for days) */
    if (__builtin_mul_overflow(product, (uint64_t)expr->count, &steps) ||
        steps / INTENSION_STEPS_PER_TUPLE > site->max_table_tuples)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                             "intension of %zu operations over %llu tuples: more than %llu evaluation steps (limit: "
                             "%d per allowed table tuple)", expr->count, (unsigned long long)product,
                             (unsigned long long)site->max_table_tuples * INTENSION_STEPS_PER_TUPLE,
                             INTENSION_STEPS_PER_TUPLE);
    return PARAC_OK;
}

static parac_status enumerate_intension(parac_csp_network *network, const xcsp_expr *expr, intension *in,
                                        size_t operand_count, const xcsp_site *site, parac_error *error)
{
    uint64_t product = xcsp_product_size(network, in->scope, in->arity);
    slot_table table = {0};
    uint32_t slots[64] = {0};
    parac_status status = intension_work_fits(expr, in->arity, product, site, error);
    if (status != PARAC_OK) return status;
    if (product) do {
            int allowed = holds(network, expr, in, operand_count, slots);
            if (allowed < 0) {
                free(table.tuples);
                return fail_overflow(network, in, slots, site, error);
            }
            if (allowed && xcsp_table_push(&table, slots, in->arity) < 0) {
                free(table.tuples);
                return parac_fail_no_memory(error, "intension table", table.count * in->arity * 4);
            }
        } while (xcsp_next_combination(network, in->scope, in->arity, slots));
    status = parac_csp_add_table(network, in->arity, in->scope, table.tuples, table.count, error);
    free(table.tuples);
    return status;
}

/* The evaluator's buffers for expr and its operands, and the scope; PARAC_OK or an error. */
static parac_status intension_begin(intension *in, const xcsp_expr *expr, const int64_t *operand_var,
                                    const int64_t *operand_constant, size_t operand_count, const xcsp_site *site,
                                    parac_error *error)
{
    memset(in, 0, sizeof *in);
    in->operands = malloc((operand_count + 1) * sizeof *in->operands);
    in->position = malloc((operand_count + 1) * sizeof *in->position);
    in->stack = malloc((expr->max_stack + 1) * sizeof *in->stack);
    in->states = malloc(expr->max_stack + 1);
    if (!in->operands || !in->position || !in->stack || !in->states)
        return parac_fail_no_memory(error, "intension", operand_count * 8);
    for (size_t k = 0; k < operand_count; k++) in->operands[k] = operand_constant ? operand_constant[k] : 0;
    if (collect_scope(in, operand_var, operand_count) < 0)
        return parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line, "intension over more than 64 variables");
    return PARAC_OK;
}

static void intension_end(intension *in)
{
    free(in->operands);
    free(in->position);
    free(in->stack);
    free(in->states);
}

parac_status xcsp_add_intension(parac_csp_network *network, const xcsp_expr *expr, const int64_t *operand_var,
                                const int64_t *operand_constant, size_t operand_count, const xcsp_site *site,
                                parac_error *error)
{
    intension in;
    parac_status status = intension_begin(&in, expr, operand_var, operand_constant, operand_count, site, error);
    if (status != PARAC_OK) {
        /* reported by intension_begin */
    } else if (in.arity == 0) {
        int64_t result;
        int evaluated = xcsp_expr_eval(expr, in.operands, in.stack, in.states, &result);
        if (evaluated < 0) status = fail_overflow(network, &in, NULL, site, error);
        else if (!evaluated || !result)
            status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                                   "intension without variables is always false");
    } else {
        status = enumerate_intension(network, expr, &in, operand_count, site, error);
    }
    intension_end(&in);
    return status;
}

/* ---- expressions as terms of a list ------------------------------------------------------- */

static int compare_values(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The value of expr at every combination of in's scope (defined[t] = 0 where it is undefined). */
static parac_status expression_image(const parac_csp_network *network, const xcsp_expr *expr, intension *in,
                                     size_t operand_count, uint64_t product, const xcsp_site *site, int64_t *results,
                                     uint8_t *defined, parac_error *error)
{
    uint32_t slots[64] = {0};
    uint64_t t = 0;
    if (product) do {
            int evaluated = evaluate_at(network, expr, in, operand_count, slots, &results[t]);
            if (evaluated < 0) return fail_overflow(network, in, slots, site, error);
            defined[t++] = (uint8_t)evaluated;
        } while (xcsp_next_combination(network, in->scope, in->arity, slots));
    return PARAC_OK;
}

/* The auxiliary variable z = expr over in's scope: its domain is the image of expr, its table
 * (scope..., z) the graph of expr (one tuple per combination where expr is defined). */
static parac_status add_expression_table(parac_csp_network *network, const xcsp_expr *expr, intension *in,
                                         size_t operand_count, const char *name, uint64_t max_values,
                                         const xcsp_site *site, int64_t *var, parac_error *error)
{
    uint64_t product = xcsp_product_size(network, in->scope, in->arity);
    parac_status status = intension_work_fits(expr, in->arity, product, site, error);
    int64_t *results = NULL, *image = NULL;
    uint8_t *defined = NULL;
    uint32_t *tuples = NULL, scope[65], slots[64] = {0}, aux;
    size_t distinct = 0, rows = 0;
    if (status != PARAC_OK) return status;
    results = malloc((product + 1) * sizeof *results);
    image = malloc((product + 1) * sizeof *image);
    defined = malloc(product + 1);
    tuples = malloc((product + 1) * (in->arity + 1) * sizeof *tuples);
    if (!results || !image || !defined || !tuples) {
        status = parac_fail_no_memory(error, "expression term", (product + 1) * (in->arity + 17) * 4);
        goto done;
    }
    status = expression_image(network, expr, in, operand_count, product, site, results, defined, error);
    if (status != PARAC_OK) goto done;
    for (uint64_t t = 0; t < product; t++)
        if (defined[t]) image[distinct++] = results[t];
    qsort(image, distinct, sizeof *image, compare_values);
    if (distinct) {
        size_t kept = 1;
        for (size_t i = 1; i < distinct; i++)
            if (image[i] != image[kept - 1]) image[kept++] = image[i];
        distinct = kept;
    }
    if (network->value_count + distinct > max_values) {
        status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                               "an expression term's values take the domains past %llu values (the value budget)",
                               (unsigned long long)max_values);
        goto done;
    }
    status = parac_csp_add_auxiliary_variable(network, name, image, (uint32_t)distinct, &aux, error);
    if (status != PARAC_OK) goto done;
    memcpy(scope, in->scope, in->arity * sizeof *scope);
    scope[in->arity] = aux;
    for (uint64_t t = 0; t < product; t++, xcsp_next_combination(network, in->scope, in->arity, slots)) {
        int64_t *at;
        if (!defined[t]) continue;
        at = bsearch(&results[t], image, distinct, sizeof *image, compare_values);
        memcpy(tuples + rows * (in->arity + 1), slots, in->arity * sizeof *slots);
        tuples[rows * (in->arity + 1) + in->arity] = (uint32_t)(at - image);
        rows++;
    }
    status = parac_csp_add_table(network, in->arity + 1, scope, tuples, rows, error);
    *var = aux;
done:
    free(results);
    free(image);
    free(defined);
    free(tuples);
    return status;
}

parac_status xcsp_add_expression_variable(parac_csp_network *network, const xcsp_expr *expr, const int64_t *operand_var,
                                          const int64_t *operand_constant, size_t operand_count, const char *name,
                                          uint64_t max_values, const xcsp_site *site, int64_t *var, int64_t *constant,
                                          parac_error *error)
{
    intension in;
    parac_status status = intension_begin(&in, expr, operand_var, operand_constant, operand_count, site, error);
    *var = -1;
    *constant = 0;
    if (status != PARAC_OK) {
        /* reported by intension_begin */
    } else if (in.arity == 0) { /* add(2,3): a constant */
        int evaluated = xcsp_expr_eval(expr, in.operands, in.stack, in.states, constant);
        if (evaluated < 0) status = fail_overflow(network, &in, NULL, site, error);
        else if (!evaluated)
            status = parac_fail_at(error, PARAC_ERR_UNSUPPORTED, site->file, site->line,
                                   "an expression term without variables that has no value (division by zero)");
    } else {
        status = add_expression_table(network, expr, &in, operand_count, name, max_values, site, var, error);
    }
    intension_end(&in);
    return status;
}

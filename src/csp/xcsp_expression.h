/* csp/xcsp_expression.h — the XCSP functional syntax (XCSP3 intension, XCSP 2.1
 * <functional>): parsing to a postfix program and evaluating it on integers.
 *
 * Operators: add sub mul div mod pow abs neg dist min max eq ne lt le gt ge not
 * and or xor iff imp if, and in(x, set(...)). Booleans are 0/1. div and mod
 * truncate toward zero (as ACE, in Java); a division by zero makes the
 * evaluation invalid (the tuple is not allowed). The parser keeps its open
 * operators on a heap stack: nesting depth costs memory, never C stack.
 *
 * Leaves that are not integers ("x[2][3]", "%1", "X0") are handed to a resolver
 * callback that gives them an operand number; evaluation reads operand values
 * from an array indexed by those numbers.
 */
#ifndef PARAC_CSP_XCSP_EXPRESSION_H
#define PARAC_CSP_XCSP_EXPRESSION_H

#include <stddef.h>
#include <stdint.h>

typedef struct xcsp_expr_node {
    uint8_t op;     /* xcsp_op */
    uint32_t argc;  /* children, for operators */
    int64_t value;  /* the constant, or the operand number */
} xcsp_expr_node;

typedef struct xcsp_expr {
    xcsp_expr_node *nodes; /* postfix order */
    size_t count;
    size_t capacity;
    size_t max_stack;      /* evaluation stack depth needed */
} xcsp_expr;

/* Gives the operand number (>= 0) of a leaf name of `length` chars, or -1 when the
 * name is unknown (the parser then fails, quoting the name). */
typedef int64_t (*xcsp_resolver)(void *context, const char *name, size_t length);

/* Parses `text` into expr (which the caller frees with xcsp_expr_free, even on failure).
 * Returns 0, or -1 with a reason in why; -2 when out of memory. */
int xcsp_expr_parse(const char *text, xcsp_resolver resolve, void *context, xcsp_expr *expr, char *why,
                    size_t why_size);

/* Evaluates expr with the given operand values, using stack and states (expr->max_stack entries
 * each). Returns 1 and sets *result; 0 when the value is undefined (division by zero, pow with a
 * negative exponent: the tuple is not allowed); -1 when it does not fit 64-bit integers (the
 * caller refuses the constraint: wrapping or dropping the tuple would change the network).
 * All arithmetic is overflow-checked; if/and/or/imp ignore an argument the others decide. */
int xcsp_expr_eval(const xcsp_expr *expr, const int64_t *operands, int64_t *stack, uint8_t *states,
                   int64_t *result);

void xcsp_expr_free(xcsp_expr *expr);

#endif

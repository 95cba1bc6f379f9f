/* csp/xcsp_expression.c — recursive-descent parser of the functional syntax to a
 * postfix program, and a stack evaluator (see xcsp_expression.h).
 * Postfix because intension constraints are evaluated once per tuple of the
 * Cartesian product of their domains: a flat loop beats walking a tree. */
#include "csp/xcsp_expression.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum xcsp_op {
    OP_CONST, OP_OPERAND,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_ABS, OP_NEG, OP_DIST, OP_MIN, OP_MAX,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_NOT, OP_AND, OP_OR, OP_XOR, OP_IFF, OP_IMP, OP_IF, OP_IN
};

typedef struct op_name {
    const char *name;
    uint8_t op;
    uint8_t min_args, max_args; /* max 0: any number >= min */
} op_name;

static const op_name OPERATORS[] = {
    {"add", OP_ADD, 2, 0}, {"sub", OP_SUB, 2, 2}, {"mul", OP_MUL, 2, 0}, {"div", OP_DIV, 2, 2},
    {"mod", OP_MOD, 2, 2}, {"pow", OP_POW, 2, 2}, {"abs", OP_ABS, 1, 1}, {"neg", OP_NEG, 1, 1},
    {"dist", OP_DIST, 2, 2}, {"min", OP_MIN, 1, 0}, {"max", OP_MAX, 1, 0}, {"eq", OP_EQ, 2, 0},
    {"ne", OP_NE, 2, 2}, {"lt", OP_LT, 2, 2}, {"le", OP_LE, 2, 2}, {"gt", OP_GT, 2, 2}, {"ge", OP_GE, 2, 2},
    {"not", OP_NOT, 1, 1}, {"and", OP_AND, 1, 0}, {"or", OP_OR, 1, 0}, {"xor", OP_XOR, 1, 0},
    {"iff", OP_IFF, 2, 0}, {"imp", OP_IMP, 2, 2}, {"if", OP_IF, 3, 3},
};
#define OPERATOR_COUNT (sizeof OPERATORS / sizeof OPERATORS[0])

typedef struct parser {
    const char *text;
    const char *at;
    xcsp_resolver resolve;
    void *context;
    xcsp_expr *expr;
    size_t depth;     /* current evaluation stack depth */
    char *why;
    size_t why_size;
    int out_of_memory;
} parser;

static void skip_space(parser *p)
{
    while (isspace((unsigned char)*p->at)) p->at++;
}

static int fail(parser *p, const char *what)
{
    snprintf(p->why, p->why_size, "%s at offset %ld of expression '%.60s'", what, (long)(p->at - p->text), p->text);
    return -1;
}

/* Appends a node and tracks the evaluation stack depth (operands push 1, an operator pops argc, pushes 1). */
static int emit(parser *p, uint8_t op, uint32_t argc, int64_t value)
{
    xcsp_expr *expr = p->expr;
    if (expr->count == expr->capacity) {
        size_t capacity = expr->capacity ? expr->capacity * 2 : 16;
        xcsp_expr_node *grown = realloc(expr->nodes, capacity * sizeof *grown);
        if (!grown) {
            p->out_of_memory = 1;
            return -1;
        }
        expr->nodes = grown;
        expr->capacity = capacity;
    }
    expr->nodes[expr->count++] = (xcsp_expr_node){op, argc, value};
    p->depth = (op == OP_CONST || op == OP_OPERAND) ? p->depth + 1 : p->depth - argc + 1;
    if (p->depth > expr->max_stack) expr->max_stack = p->depth;
    return 0;
}

static int parse_expression(parser *p);

/* A leaf name: identifier with optional [index] parts, or %N, or %... (which the XCSP3 reader
 * expands before parsing, so the resolver rejects it when it is left, outside a group). */
static size_t leaf_length(const char *at)
{
    size_t n = 0;
    if (strncmp(at, "%...", 4) == 0) return 4;
    if (at[0] == '%') {
        n = 1;
        while (isdigit((unsigned char)at[n])) n++;
        return n;
    }
    while (isalnum((unsigned char)at[n]) || at[n] == '_' || at[n] == '[' || at[n] == ']') n++;
    return n;
}

static int parse_integer(parser *p)
{
    char *end;
    long long value = strtoll(p->at, &end, 10);
    if (end == p->at) return fail(p, "expected a number");
    p->at = end;
    return emit(p, OP_CONST, 0, value);
}

/* Arguments "(a, b, ...)" after an operator name; returns the count or -1. */
static int parse_arguments(parser *p)
{
    int count = 0;
    skip_space(p);
    if (*p->at != '(') return fail(p, "expected '('");
    p->at++;
    for (;;) {
        if (parse_expression(p) < 0) return -1;
        count++;
        skip_space(p);
        if (*p->at == ',') {
            p->at++;
            continue;
        }
        if (*p->at == ')') {
            p->at++;
            return count;
        }
        return fail(p, "expected ',' or ')'");
    }
}

/* in(x, set(v1, ..., vk)): emitted as x v1 .. vk IN(argc = k + 1). */
static int parse_in(parser *p)
{
    int set_count;
    skip_space(p);
    if (*p->at != '(') return fail(p, "expected '(' after in");
    p->at++;
    if (parse_expression(p) < 0) return -1;
    skip_space(p);
    if (*p->at != ',') return fail(p, "expected ',' in in(...)");
    p->at++;
    skip_space(p);
    if (strncmp(p->at, "set", 3) != 0) return fail(p, "in(...) needs set(...) as its second argument");
    p->at += 3;
    set_count = parse_arguments(p);
    if (set_count < 0) return -1;
    skip_space(p);
    if (*p->at != ')') return fail(p, "expected ')' after in(x, set(...))");
    p->at++;
    return emit(p, OP_IN, (uint32_t)set_count + 1, 0);
}

static int parse_call(parser *p, const char *name, size_t length)
{
    int argc;
    if (length == 2 && strncmp(name, "in", 2) == 0) return parse_in(p);
    for (size_t i = 0; i < OPERATOR_COUNT; i++) {
        const op_name *op = &OPERATORS[i];
        if (strlen(op->name) != length || strncmp(op->name, name, length) != 0) continue;
        argc = parse_arguments(p);
        if (argc < 0) return -1;
        if (argc < op->min_args || (op->max_args && argc > op->max_args)) return fail(p, "wrong number of arguments");
        return emit(p, op->op, (uint32_t)argc, 0);
    }
    snprintf(p->why, p->why_size, "unsupported operator '%.*s' in expression '%.60s'", (int)length, name, p->text);
    return -1;
}

static int parse_expression(parser *p)
{
    size_t length;
    const char *name;
    skip_space(p);
    if (*p->at == '-' || *p->at == '+' || isdigit((unsigned char)*p->at)) return parse_integer(p);
    name = p->at;
    length = leaf_length(name);
    if (length == 0) return fail(p, "expected an operator, a variable or a number");
    p->at += length;
    skip_space(p);
    if (*p->at == '(' && name[0] != '%') return parse_call(p, name, length);
    if (length == 4 && strncmp(name, "true", 4) == 0) return emit(p, OP_CONST, 0, 1);
    if (length == 5 && strncmp(name, "false", 5) == 0) return emit(p, OP_CONST, 0, 0);
    {
        int64_t operand = p->resolve(p->context, name, length);
        if (operand < 0) {
            snprintf(p->why, p->why_size, "unknown variable or parameter '%.*s' in expression '%.60s'", (int)length,
                     name, p->text);
            return -1;
        }
        return emit(p, OP_OPERAND, 0, operand);
    }
}

int xcsp_expr_parse(const char *text, xcsp_resolver resolve, void *context, xcsp_expr *expr, char *why,
                    size_t why_size)
{
    parser p = {text, text, resolve, context, expr, 0, why, why_size, 0};
    memset(expr, 0, sizeof *expr);
    if (parse_expression(&p) < 0) return p.out_of_memory ? -2 : -1;
    skip_space(&p);
    if (*p.at) return fail(&p, "unexpected text after the expression");
    return 0;
}

void xcsp_expr_free(xcsp_expr *expr)
{
    free(expr->nodes);
    memset(expr, 0, sizeof *expr);
}

/* ---- evaluation --------------------------------------------------------------------------- */

static int64_t fold(uint8_t op, const int64_t *args, uint32_t argc)
{
    int64_t acc = args[0];
    for (uint32_t i = 1; i < argc; i++) {
        switch (op) {
        case OP_ADD: acc += args[i]; break;
        case OP_MUL: acc *= args[i]; break;
        case OP_MIN: acc = args[i] < acc ? args[i] : acc; break;
        case OP_MAX: acc = args[i] > acc ? args[i] : acc; break;
        case OP_AND: acc = acc && args[i]; break;
        case OP_OR: acc = acc || args[i]; break;
        case OP_XOR: acc = (acc != 0) ^ (args[i] != 0); break;
        default: break;
        }
    }
    return op == OP_AND || op == OP_OR || op == OP_XOR ? acc != 0 : acc;
}

static int64_t power(int64_t base, int64_t exponent)
{
    int64_t result = 1;
    while (exponent-- > 0) result *= base;
    return result;
}

static int all_equal(const int64_t *args, uint32_t argc, int as_booleans)
{
    for (uint32_t i = 1; i < argc; i++)
        if (as_booleans ? ((args[i] != 0) != (args[0] != 0)) : args[i] != args[0]) return 0;
    return 1;
}

static int is_member(const int64_t *args, uint32_t argc)
{
    for (uint32_t i = 1; i < argc; i++)
        if (args[i] == args[0]) return 1;
    return 0;
}

/* Applies one operator to its arguments; 0 when undefined. */
static int apply(uint8_t op, const int64_t *a, uint32_t argc, int64_t *out)
{
    switch (op) {
    case OP_ADD: case OP_MUL: case OP_MIN: case OP_MAX: case OP_AND: case OP_OR: case OP_XOR:
        *out = fold(op, a, argc); return 1;
    case OP_SUB: *out = a[0] - a[1]; return 1;
    case OP_DIV: if (a[1] == 0) return 0; *out = a[0] / a[1]; return 1;
    case OP_MOD: if (a[1] == 0) return 0; *out = a[0] % a[1]; return 1;
    case OP_POW: if (a[1] < 0) return 0; *out = power(a[0], a[1]); return 1;
    case OP_ABS: *out = a[0] < 0 ? -a[0] : a[0]; return 1;
    case OP_NEG: *out = -a[0]; return 1;
    case OP_DIST: *out = a[0] > a[1] ? a[0] - a[1] : a[1] - a[0]; return 1;
    case OP_EQ: *out = all_equal(a, argc, 0); return 1;
    case OP_NE: *out = a[0] != a[1]; return 1;
    case OP_LT: *out = a[0] < a[1]; return 1;
    case OP_LE: *out = a[0] <= a[1]; return 1;
    case OP_GT: *out = a[0] > a[1]; return 1;
    case OP_GE: *out = a[0] >= a[1]; return 1;
    case OP_NOT: *out = !a[0]; return 1;
    case OP_IFF: *out = all_equal(a, argc, 1); return 1;
    case OP_IMP: *out = !a[0] || a[1]; return 1;
    case OP_IF: *out = a[0] ? a[1] : a[2]; return 1;
    case OP_IN: *out = is_member(a, argc); return 1;
    default: return 0;
    }
}

int xcsp_expr_eval(const xcsp_expr *expr, const int64_t *operands, int64_t *stack, int64_t *result)
{
    size_t top = 0;
    for (size_t i = 0; i < expr->count; i++) {
        const xcsp_expr_node *node = &expr->nodes[i];
        if (node->op == OP_CONST) stack[top++] = node->value;
        else if (node->op == OP_OPERAND) stack[top++] = operands[node->value];
        else {
            top -= node->argc;
            if (!apply(node->op, stack + top, node->argc, &stack[top])) return 0;
            top++;
        }
    }
    *result = stack[0];
    return 1;
}

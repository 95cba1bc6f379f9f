/* csp/xcsp_expression.c — a parser of the functional syntax to a postfix program (iterative,
 * postfix program, and a stack evaluator (see xcsp_expression.h).
 * Postfix because intension constraints are evaluated once per tuple of the
 * Cartesian product of their domains: a flat loop beats walking a tree. */
#include "csp/xcsp_expression.h"

#include <ctype.h>
#include <errno.h>
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
    long long value;
    errno = 0;
    value = strtoll(p->at, &end, 10);
    if (end == p->at) return fail(p, "expected a number");
    if (errno == ERANGE) return fail(p, "integer outside the 64-bit range");
    p->at = end;
    return emit(p, OP_CONST, 0, value);
}

/* An operator whose arguments are being read. The parser keeps these on a heap stack rather
 * than recursing, so the nesting depth of an expression is bounded by its length only. */
enum frame_kind { FRAME_CALL, FRAME_IN_VALUE, FRAME_IN_SET };

typedef struct frame {
    uint8_t kind;
    const op_name *op; /* FRAME_CALL */
    size_t argc;       /* arguments read so far (for in: the value and the set members) */
} frame;

typedef struct frame_stack {
    frame *items;
    size_t count, capacity;
} frame_stack;

static int push_frame(parser *p, frame_stack *frames, uint8_t kind, const op_name *op)
{
    if (frames->count == frames->capacity) {
        size_t capacity = frames->capacity ? frames->capacity * 2 : 16;
        frame *grown = realloc(frames->items, capacity * sizeof *grown);
        if (!grown) {
            p->out_of_memory = 1;
            return -1;
        }
        frames->items = grown;
        frames->capacity = capacity;
    }
    frames->items[frames->count++] = (frame){kind, op, 0};
    return 1;
}

static const op_name *find_operator(const char *name, size_t length)
{
    for (size_t i = 0; i < OPERATOR_COUNT; i++)
        if (strlen(OPERATORS[i].name) == length && strncmp(OPERATORS[i].name, name, length) == 0) return &OPERATORS[i];
    return NULL;
}

/* Reads the start of an operand: a number or a leaf (emitted: returns 0), or "op(" / "in("
 * (a frame pushed: returns 1); -1 on error. */
static int start_operand(parser *p, frame_stack *frames)
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
    if (*p->at == '(' && name[0] != '%') {
        const op_name *op = find_operator(name, length);
        int is_in = length == 2 && strncmp(name, "in", 2) == 0;
        if (!op && !is_in) {
            snprintf(p->why, p->why_size, "unsupported operator '%.*s' in expression '%.60s'", (int)length, name,
                     p->text);
            return -1;
        }
        p->at++;
        return push_frame(p, frames, is_in ? FRAME_IN_VALUE : FRAME_CALL, op);
    }
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

/* After `in(value`: ", set(" must follow. */
static int open_set(parser *p, frame *top)
{
    if (*p->at != ',') return fail(p, "expected ',' in in(...)");
    p->at++;
    skip_space(p);
    if (strncmp(p->at, "set", 3) != 0) return fail(p, "in(...) needs set(...) as its second argument");
    p->at += 3;
    skip_space(p);
    if (*p->at != '(') return fail(p, "expected '('");
    p->at++;
    top->kind = FRAME_IN_SET;
    return 0;
}

/* The ')' of the top frame was read: emits its operator. */
static int close_frame(parser *p, const frame *top)
{
    if (top->argc > UINT32_MAX) return fail(p, "too many arguments");
    if (top->kind == FRAME_IN_SET) { /* in(x, set(v1, ..., vk)): x v1 .. vk IN(argc = k + 1) */
        skip_space(p);
        if (*p->at != ')') return fail(p, "expected ')' after in(x, set(...))");
        p->at++;
        return emit(p, OP_IN, (uint32_t)top->argc, 0);
    }
    if (top->argc < top->op->min_args || (top->op->max_args && top->argc > top->op->max_args))
        return fail(p, "wrong number of arguments");
    return emit(p, top->op->op, (uint32_t)top->argc, 0);
}

/* An operand was completed: reads the ',' or ')' after it, closing frames as long as operands
 * complete. 1 when another operand follows, 0 at the end of the expression, -1 on error. */
static int after_operand(parser *p, frame_stack *frames)
{
    while (frames->count) {
        frame *top = &frames->items[frames->count - 1];
        top->argc++;
        skip_space(p);
        if (top->kind == FRAME_IN_VALUE) return open_set(p, top) < 0 ? -1 : 1;
        if (*p->at == ',') {
            p->at++;
            return 1;
        }
        if (*p->at != ')') return fail(p, "expected ',' or ')'");
        p->at++;
        if (close_frame(p, top) < 0) return -1;
        frames->count--;
    }
    return 0;
}

static int parse_all(parser *p, frame_stack *frames)
{
    for (;;) {
        int started = start_operand(p, frames), more;
        if (started < 0) return -1;
        if (started == 1) continue; /* an operator opened: read its first argument */
        more = after_operand(p, frames);
        if (more <= 0) return more;
    }
}

int xcsp_expr_parse(const char *text, xcsp_resolver resolve, void *context, xcsp_expr *expr, char *why,
                    size_t why_size)
{
    parser p = {text, text, resolve, context, expr, 0, why, why_size, 0};
    frame_stack frames = {0};
    int parsed;
    memset(expr, 0, sizeof *expr);
    parsed = parse_all(&p, &frames);
    free(frames.items);
    if (parsed < 0) return p.out_of_memory ? -2 : -1;
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

/* Each stack entry carries a state beside its value. XCSP integers are mathematical integers:
 * a result that does not fit 64 bits is not wrapped but marked OVERFLOW, an undefined operation
 * (division by zero, pow with a negative exponent) UNDEFINED. Strict operators pass on the worst
 * state of their arguments (UNDEFINED > OVERFLOW: an undefined operand makes the expression
 * undefined whatever its size); if/and/or/imp ignore an argument that their other arguments
 * decide (imp(ne(y,0), eq(div(x,y),z)) holds at y = 0), as a lazy evaluation would. */
enum value_state { DEFINED = 0, OVERFLOW = 1, UNDEFINED = 2 };

static uint8_t worst_state(const uint8_t *states, uint32_t argc)
{
    uint8_t worst = DEFINED;
    for (uint32_t i = 0; i < argc; i++)
        if (states[i] > worst) worst = states[i];
    return worst;
}

static uint8_t fold(uint8_t op, const int64_t *args, uint32_t argc, int64_t *out)
{
    int64_t acc = args[0];
    for (uint32_t i = 1; i < argc; i++) {
        switch (op) {
        case OP_ADD: if (__builtin_add_overflow(acc, args[i], &acc)) return OVERFLOW; break;
        case OP_MUL: if (__builtin_mul_overflow(acc, args[i], &acc)) return OVERFLOW; break;
        case OP_MIN: acc = args[i] < acc ? args[i] : acc; break;
        case OP_MAX: acc = args[i] > acc ? args[i] : acc; break;
        case OP_XOR: acc = (acc != 0) ^ (args[i] != 0); break;
        default: break;
        }
    }
    *out = op == OP_XOR ? acc != 0 : acc;
    return DEFINED;
}

/* base^exponent by squaring, in O(log exponent) steps. The base is squared only while bits of
 * the exponent remain, so an overflow there means the result overflows too (|base| >= 2). */
static uint8_t power(int64_t base, int64_t exponent, int64_t *out)
{
    int64_t result = 1;
    if (exponent < 0) return UNDEFINED;
    while (exponent > 0) {
        if ((exponent & 1) && __builtin_mul_overflow(result, base, &result)) return OVERFLOW;
        exponent >>= 1;
        if (exponent && __builtin_mul_overflow(base, base, &base)) return OVERFLOW;
    }
    *out = result;
    return DEFINED;
}

static uint8_t divide(int64_t a, int64_t b, int remainder, int64_t *out)
{
    if (b == 0) return UNDEFINED;
    if (b == -1) { /* INT64_MIN / -1 does not fit; INT64_MIN % -1 traps on x86 although it is 0 */
        if (remainder) *out = 0;
        else if (__builtin_sub_overflow((int64_t)0, a, out)) return OVERFLOW;
        return DEFINED;
    }
    *out = remainder ? a % b : a / b; /* truncated toward zero, as Java and ACE */
    return DEFINED;
}

static uint8_t absolute(int64_t a, int64_t *out)
{
    if (a >= 0) {
        *out = a;
        return DEFINED;
    }
    return __builtin_sub_overflow((int64_t)0, a, out) ? OVERFLOW : DEFINED;
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

/* and (decider 0) / or (decider 1): a defined argument equal to the decider settles it. */
static uint8_t junction(int decider, const int64_t *a, const uint8_t *states, uint32_t argc, int64_t *out)
{
    for (uint32_t i = 0; i < argc; i++)
        if (states[i] == DEFINED && (a[i] != 0) == decider) {
            *out = decider;
            return DEFINED;
        }
    *out = !decider;
    return worst_state(states, argc);
}

/* The operators that may ignore an argument: if, and, or, imp. 1 when op is one of them. */
static int apply_lazy(uint8_t op, const int64_t *a, const uint8_t *states, uint32_t argc, int64_t *out,
                      uint8_t *state)
{
    switch (op) {
    case OP_IF:
        *state = states[0] ? states[0] : states[a[0] ? 1 : 2];
        *out = a[0] ? a[1] : a[2];
        return 1;
    case OP_AND: *state = junction(0, a, states, argc, out); return 1;
    case OP_OR: *state = junction(1, a, states, argc, out); return 1;
    case OP_IMP: {
        int64_t negated[2] = {!a[0], a[1]};
        *state = junction(1, negated, states, 2, out);
        return 1;
    }
    default: return 0;
    }
}

static int all_nonzero(const int64_t *args, uint32_t argc)
{
    for (uint32_t i = 0; i < argc; i++)
        if (!args[i]) return 0;
    return 1;
}

static int any_nonzero(const int64_t *args, uint32_t argc)
{
    for (uint32_t i = 0; i < argc; i++)
        if (args[i]) return 1;
    return 0;
}

/* Applies an operator to defined arguments (if/and/or/imp included: with every argument defined,
 * lazy and strict agree). */
static inline __attribute__((always_inline)) uint8_t apply(uint8_t op, const int64_t *a, uint32_t argc, int64_t *out)
{
    switch (op) {
    case OP_IF: *out = a[0] ? a[1] : a[2]; return DEFINED;
    case OP_AND: *out = all_nonzero(a, argc); return DEFINED;
    case OP_OR: *out = any_nonzero(a, argc); return DEFINED;
    case OP_IMP: *out = !a[0] || a[1]; return DEFINED;
    case OP_ADD: case OP_MUL: case OP_MIN: case OP_MAX: case OP_XOR: return fold(op, a, argc, out);
    case OP_SUB: return __builtin_sub_overflow(a[0], a[1], out) ? OVERFLOW : DEFINED;
    case OP_DIV: return divide(a[0], a[1], 0, out);
    case OP_MOD: return divide(a[0], a[1], 1, out);
    case OP_POW: return power(a[0], a[1], out);
    case OP_ABS: return absolute(a[0], out);
    case OP_NEG: return __builtin_sub_overflow((int64_t)0, a[0], out) ? OVERFLOW : DEFINED;
    case OP_DIST: {
        int64_t difference;
        if (__builtin_sub_overflow(a[0], a[1], &difference)) return OVERFLOW;
        return absolute(difference, out);
    }
    case OP_EQ: *out = all_equal(a, argc, 0); return DEFINED;
    case OP_NE: *out = a[0] != a[1]; return DEFINED;
    case OP_LT: *out = a[0] < a[1]; return DEFINED;
    case OP_LE: *out = a[0] <= a[1]; return DEFINED;
    case OP_GT: *out = a[0] > a[1]; return DEFINED;
    case OP_GE: *out = a[0] >= a[1]; return DEFINED;
    case OP_NOT: *out = !a[0]; return DEFINED;
    case OP_IFF: *out = all_equal(a, argc, 1); return DEFINED;
    case OP_IN: *out = is_member(a, argc); return DEFINED;
    default: return UNDEFINED;
    }
}

/* The slow path, once some entry is not DEFINED: states are read and lazy operators used. */
static uint8_t apply_with_states(uint8_t op, const int64_t *a, const uint8_t *states, uint32_t argc, int64_t *out)
{
    uint8_t state;
    if (apply_lazy(op, a, states, argc, out, &state)) return state;
    state = worst_state(states, argc);
    return state == DEFINED ? apply(op, a, argc, out) : state;
}

int xcsp_expr_eval(const xcsp_expr *expr, const int64_t *operands, int64_t *stack, uint8_t *states,
                   int64_t *result)
{
    size_t top = 0;
    int tainted = 0; /* some entry was not DEFINED: states[] is kept from then on */
    for (size_t i = 0; i < expr->count; i++) {
        const xcsp_expr_node *node = &expr->nodes[i];
        int64_t value = 0; /* not written in place: __builtin_*_overflow misbehaves when out aliases an input */
        uint8_t state;
        if (node->op == OP_CONST || node->op == OP_OPERAND) {
            stack[top] = node->op == OP_CONST ? node->value : operands[node->value];
            if (tainted) states[top] = DEFINED;
            top++;
            continue;
        }
        top -= node->argc;
        if (!tainted) {
            state = apply(node->op, stack + top, node->argc, &value);
            if (state != DEFINED) {
                memset(states, DEFINED, top); /* everything below was defined */
                tainted = 1;
            }
        } else {
            state = apply_with_states(node->op, stack + top, states + top, node->argc, &value);
        }
        stack[top] = value;
        if (tainted) states[top] = state;
        top++;
    }
    *result = stack[0];
    if (!tainted) return 1;
    return states[0] == DEFINED ? 1 : states[0] == OVERFLOW ? -1 : 0;
}

/* csp/xcsp3_internal.h — what the XCSP3 reader's files share: the reader state,
 * term lists (a variable or an integer constant per entry, the layout of
 * ac_term), and the list parser that knows compact references (x[], m[][2]),
 * integer constants and group parameters (%i, %...). xcsp3_reader.c reads the
 * document and dispatches each constraint element (block included), xcsp3_terms.c
 * the lists, xcsp3_variables.c <var> and <array>, xcsp3_constraints.c extension and
 * intension, xcsp3_groups.c group and slide; xcsp3_globals.c the global constraints. */
#ifndef PARAC_CSP_XCSP3_INTERNAL_H
#define PARAC_CSP_XCSP3_INTERNAL_H

#include <parac/csp.h>

#include "csp/xcsp_build.h"
#include "csp/xcsp_readers.h"

#define XCSP3_MAX_DIMS 8

typedef struct xcsp3_array {
    uint32_t base;         /* first variable index; cells are row-major */
    uint32_t dims[XCSP3_MAX_DIMS];
    uint32_t dim_count;
} xcsp3_array;

/* A term of a list or args: a variable (var >= 0) or an integer constant (var == -1). */
typedef struct term {
    int64_t var;
    int64_t constant;
} term;

typedef struct term_list {
    term *items;
    size_t count, capacity;
} term_list;

typedef struct xcsp3 {
    xcsp_input *in;
    parac_csp_network *network;
    const parac_csp_load_options *options;
    xcsp_names names; /* variable name -> index; array name -> -2 - array number */
    xcsp3_array *arrays;
    size_t array_count;
    uint64_t global_terms;   /* terms stored in global constraints so far (within max_values) */
    uint64_t expression_terms; /* auxiliary variables named so far (parac_aux_<k>) */
    term_list args_expression_variables; /* variables of the expressions in the current <args> of a group over a global */
    uint64_t template_bytes; /* template text re-read by groups and slides over globals (within max_bytes) */
    char *objectives;        /* the <minimize>/<maximize> elements, verbatim (NULL when none) */
    size_t objectives_length;
    char why[256];
} xcsp3;

/* Appends a term. 0 ok, -1 out of memory. */
int xcsp3_push_term(term_list *list, int64_t var, int64_t constant);
/* Terms of a whitespace-separated list (see xcsp3_reader.c): 0 ok, -1 bad (x->why says why),
 * -2 out of memory. args (may be NULL) binds %i and %... */
int xcsp3_parse_terms(xcsp3 *x, const char *text, const term_list *args, term_list *out);
/* The shape of a compact two-dimensional reference such as m[][] or m[1..3][] (rows, columns):
 * the index ranges of a two-dimensional array, or of the two positions that vary in a higher one
 * (c[2][][]). 0 ok, -1 when the token is not such a reference. */
int xcsp3_matrix_shape(const xcsp3 *x, const char *token, size_t length, size_t *rows, size_t *columns);

/* An expression term of a list (text[0..length), e.g. "add(x[1],%0)"; args binds %i): its
 * constant value, or the auxiliary variable that stands for it (xcsp_add_expression_variable),
 * in *out; the distinct variables it reads are appended to `variables`. */
parac_status xcsp3_expression_term(xcsp3 *x, xmlNodePtr node, const char *text, size_t length, const term_list *args,
                                   term *out, term_list *variables, parac_error *error);

/* The end of the term that starts at `at`: the next space outside parentheses (an expression
 * such as "add(x[0], 1)" may hold spaces); NULL when a parenthesis is left open. */
const char *xcsp3_term_end(const char *at);

parac_status xcsp3_fail_node(xcsp3 *x, xmlNodePtr node, parac_status status, const char *what, parac_error *error);
/* An element parac does not handle: PARAC_ERR_UNSUPPORTED naming it and its line, or recorded
 * as dropped under ignore_unsupported. */
parac_status xcsp3_unsupported(xcsp3 *x, xmlNodePtr node, parac_error *error);

/* Global constraints (xcsp3_globals.c). xcsp3_is_global: 1 when `name` is an element that
 * xcsp3_read_global handles. args binds %i / %... when the element is a group's or a slide's
 * template (NULL otherwise). */
int xcsp3_is_global(const char *name);
parac_status xcsp3_read_global(xcsp3 *x, xmlNodePtr node, const term_list *args, parac_error *error);
/* Counts one more reading of a group's or slide's template against max_bytes (a short <args>
 * must not re-read a long template a million times). PARAC_OK, or PARAC_ERR_UNSUPPORTED. */
parac_status xcsp3_count_template(xcsp3 *x, xmlNodePtr template, size_t template_length, parac_error *error);

/* ---- what the reader's files share -------------------------------------------------------- */

/* The parts of an <extension>: its list text and its tuples. */
typedef struct extension_parts {
    char *list;
    xcsp_tuples tuples;
    int supports;
} extension_parts;

/* Operands of an intension: each distinct leaf is a parameter (%i) or a variable. Finding a
 * leaf again is O(1) for a parameter (an expanded %... may name a million) and a scan of at
 * most 64 for a variable (an intension has at most 64). */
#define MAX_INTENSION_VARIABLES 64

typedef struct leaf_context {
    xcsp3 *x;
    term_list leaves;            /* var >= 0: a variable; var = -1 - i: parameter %i */
    size_t *parameter_leaf;      /* parameter i -> its leaf + 1, or 0 */
    size_t parameter_capacity;
    size_t variable_leaf[MAX_INTENSION_VARIABLES]; /* the leaves that are variables */
    size_t variable_count;
    int too_many_variables;
} leaf_context;

/* The site of an element (file, line, table budget) for the network builder (xcsp3_reader.c). */
xcsp_site xcsp3_site_of(const xcsp3 *x, xmlNodePtr node);
/* Appends the variables a reference names. 0 ok, -1 unknown/bad, -2 no memory, -3 over the budget. */
int xcsp3_expand_reference(const xcsp3 *x, const char *token, size_t length, term_list *out);
/* The highest N of the parameters %N in a template text, or -1 when it has none. %... stands for
 * the arguments after that one (XCSP3: "all effective parameters after the highest numbered"). */
int64_t xcsp3_highest_parameter(const char *text);
int xcsp3_is_space(char c);
/* 1 when node is an element named `name`. */
int xcsp3_is_named(xmlNodePtr node, const char *name);

/* xcsp3_variables.c: <var> and <array>. */
parac_status xcsp3_read_var(xcsp3 *x, xmlNodePtr node, parac_error *error);
parac_status xcsp3_read_array(xcsp3 *x, xmlNodePtr node, parac_error *error);

/* xcsp3_constraints.c: extension and intension, also as the templates of groups and slides. */
parac_status xcsp3_read_extension(xcsp3 *x, xmlNodePtr node, const term_list *args, parac_error *error);
/* An extension over `scope_terms` with its tuples already parsed. */
parac_status xcsp3_add_extension_terms(xcsp3 *x, xmlNodePtr node, const term_list *scope_terms,
                                       const xcsp_tuples *tuples, int supports, parac_error *error);
parac_status xcsp3_read_extension_parts(xcsp3 *x, xmlNodePtr node, const term_list *args, extension_parts *p,
                                        term_list *scope, parac_error *error);
void xcsp3_free_extension_parts(extension_parts *p);
void xcsp3_leaves_reset(leaf_context *c);
void xcsp3_leaves_free(leaf_context *c);
parac_status xcsp3_parse_intension_text(xcsp3 *x, xmlNodePtr node, const char *text, xcsp_expr *expr,
                                        leaf_context *leaves, parac_error *error);
/* Adds the intension once its leaves are bound to args (when a group template). */
parac_status xcsp3_bind_intension(xcsp3 *x, xmlNodePtr node, const xcsp_expr *expr, const term_list *leaves,
                                  const term_list *args, parac_error *error);
/* The text of an <intension> (or of its <function> child), malloc'd by libxml2. */
char *xcsp3_intension_text(xmlNodePtr node);
parac_status xcsp3_read_intension(xcsp3 *x, xmlNodePtr node, parac_error *error);

/* xcsp3_groups.c: <group> and <slide>. */
parac_status xcsp3_read_group(xcsp3 *x, xmlNodePtr node, parac_error *error);
parac_status xcsp3_read_slide(xcsp3 *x, xmlNodePtr slide, parac_error *error);

#endif

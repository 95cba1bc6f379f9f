/* csp/xcsp3_global_reader.h — what the readers of XCSP3 global constraints share
 * (xcsp3_global_*.c): the reader state of one constraint element, its messages, and the
 * parts that many kinds read (children, lists, conditions, tuples of terms, adding).
 * Each function is in xcsp3_global_reader.c; the readers of the kinds, one file per
 * family, are dispatched by name in xcsp3_globals.c.
 */
#ifndef PARAC_CSP_XCSP3_GLOBAL_READER_H
#define PARAC_CSP_XCSP3_GLOBAL_READER_H

#include "csp/xcsp3_internal.h"

typedef struct global_reader {
    xcsp3 *x;
    const term_list *args; /* group / slide parameters, or NULL */
    xmlNodePtr node;       /* the constraint element */
    parac_csp_global g;
    parac_error *error;
    int droppable; /* the failure is a form parac does not read: ignore_unsupported drops the constraint */
    term_list expression_variables; /* the distinct variables of each expression term read, one run per term */
} global_reader;

/* A malformed element (PARAC_ERR_PARSE) and a form parac does not read (PARAC_ERR_UNSUPPORTED). */
#define BAD(r, at, ...) xcsp3_fail_at(r, at, PARAC_ERR_PARSE, __VA_ARGS__)
#define UNSUPPORTED(r, at, ...) xcsp3_fail_at(r, at, PARAC_ERR_UNSUPPORTED, __VA_ARGS__)

/* Fails with "<element>: what" at the line of `at` (of the element when NULL); an unsupported
 * form marks the constraint droppable. BAD / UNSUPPORTED above. */
parac_status xcsp3_fail_at(global_reader *r, xmlNodePtr at, parac_status status, const char *format, ...);
parac_status xcsp3_no_memory(global_reader *r);
int xcsp3_has_element_children(xmlNodePtr node);
size_t xcsp3_count_children(xmlNodePtr node, const char *name);
/* Refuses a child element outside `known` (a NULL-terminated list of names). */
parac_status xcsp3_only_children(global_reader *r, const char *const *known);
/* The value of attribute `name` as an integer (fallback when absent). */
parac_status xcsp3_integer_attribute(global_reader *r, xmlNodePtr node, const char *name, int64_t fallback,
                                     int64_t *value);
/* 1 when attribute `name` is "true" (fallback when absent). */
int xcsp3_boolean_attribute(xmlNodePtr node, const char *name, int fallback);
const char *xcsp3_skip_spaces(const char *at);
parac_status xcsp3_parse_text(global_reader *r, xmlNodePtr at, const char *text, term_list *out);
/* The terms of node's text, appended to out. */
parac_status xcsp3_node_terms(global_reader *r, xmlNodePtr node, term_list *out);
/* A copy of terms as ac_terms (NULL when empty). */
ac_term *xcsp3_copy_terms(const term_list *terms);
/* Stores terms as lists[which] of the global. */
parac_status xcsp3_set_list(global_reader *r, size_t which, const term_list *terms);
parac_status xcsp3_node_list(global_reader *r, xmlNodePtr node, size_t which);
/* The constraint's main list: its <list> child, or its own text in the simple form
 * (<allDifferent> x[] </allDifferent>). *list_node is the node read (for startIndex). */
parac_status xcsp3_main_list(global_reader *r, xmlNodePtr *list_node);
/* Integer constants of node's text (parameters bound to constants allowed), as a malloc'd array. */
parac_status xcsp3_node_integers(global_reader *r, xmlNodePtr node, int64_t **values, size_t *count);
size_t xcsp3_sort_distinct(int64_t *values, size_t count);
/* <except> into values (sorted, distinct), when present. */
parac_status xcsp3_read_except(global_reader *r);
parac_status xcsp3_parse_condition(global_reader *r, xmlNodePtr node, ac_condition *c);
parac_status xcsp3_required_condition(global_reader *r);
/* A term given alone (<value>, <index>, <size>, <k>) into *out. */
parac_status xcsp3_single_term(global_reader *r, xmlNodePtr node, ac_term *out);
parac_status xcsp3_read_operator(global_reader *r);
/* Appends every group's terms to out; *groups and *width give their count and common size.
 * Returns -1 (no change) when the text has no '(' (the caller then tries the compact form). */
int xcsp3_parse_groups(global_reader *r, xmlNodePtr node, const char *text, term_list *out, size_t *groups,
                       size_t *width, parac_status *status);
/* A <matrix>: rows "(a,b)(c,d)" or a compact two-dimensional reference "m[][]". */
parac_status xcsp3_read_matrix(global_reader *r, xmlNodePtr node, term_list *cells, size_t *rows, size_t *columns);
/* Adds the global, within the value budget for all globals together: a compact reference (x[])
 * repeated in many constraints must not multiply into unbounded memory. */
parac_status xcsp3_add_global(global_reader *r);
/* Adds one constraint of kind `kind` per row and one per column of a matrix (allDifferent, lex). */
parac_status xcsp3_add_rows_and_columns(global_reader *r, const term_list *cells, size_t rows, size_t columns);

/* The readers of the kinds (dispatched by xcsp3_globals.c), one file per family. */
/* xcsp3_global_comparison.c */
parac_status xcsp3_read_all_different(global_reader *r);
parac_status xcsp3_read_all_equal(global_reader *r);
parac_status xcsp3_read_ordered(global_reader *r);
parac_status xcsp3_read_lex(global_reader *r);
/* xcsp3_global_counting.c */
parac_status xcsp3_read_sum(global_reader *r);
parac_status xcsp3_read_count(global_reader *r);
parac_status xcsp3_read_at_least(global_reader *r);
parac_status xcsp3_read_at_most(global_reader *r);
parac_status xcsp3_read_exactly(global_reader *r);
parac_status xcsp3_read_n_values(global_reader *r);
parac_status xcsp3_read_cardinality(global_reader *r);
/* xcsp3_global_connection.c */
parac_status xcsp3_read_element(global_reader *r);
parac_status xcsp3_read_channel(global_reader *r);
parac_status xcsp3_read_extremum(global_reader *r);
parac_status xcsp3_read_instantiation(global_reader *r);
/* xcsp3_global_language.c */
parac_status xcsp3_read_regular(global_reader *r);
parac_status xcsp3_read_mdd(global_reader *r);
/* xcsp3_global_packing.c */
parac_status xcsp3_read_no_overlap(global_reader *r);
parac_status xcsp3_read_cumulative(global_reader *r);
parac_status xcsp3_read_bin_packing(global_reader *r);
parac_status xcsp3_read_knapsack(global_reader *r);
parac_status xcsp3_read_circuit(global_reader *r);

#endif

/* csp/xcsp3_global_language.c — readers of the XCSP3 language globals: regular (an
 * automaton's transitions, start and finals) and mdd (its transitions, root and terminal
 * found from them); state names numbered in order of first appearance.
 */
#include <stdlib.h>
#include <string.h>

#include "csp/xcsp3_global_reader.h"

/* State names of an automaton or nodes of an mdd -> 0, 1, ... in order of first appearance. */
typedef struct state_names {
    xcsp_names names;
    int64_t count;
} state_names;

static int64_t state_number(state_names *s, const char *name, size_t length)
{
    int64_t number = xcsp_names_get(&s->names, name, length);
    if (number >= 0) return number;
    if (xcsp_names_put(&s->names, name, length, s->count) < 0) return -1;
    return s->count++;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
           c == '$' || c == '%';
}

/* One state name at *at (advanced); -1 when none or out of memory. */
static int64_t read_state(state_names *s, const char **at)
{
    const char *start = *at = xcsp3_skip_spaces(*at);
    while (is_name_char(**at)) (*at)++;
    if (*at == start) return -1;
    return state_number(s, start, (size_t)(*at - start));
}

/* "(a,0,b)(b,1,a)" into (from, value, to) triples. */
static parac_status read_transitions(global_reader *r, xmlNodePtr node, state_names *states)
{
    char *text = xcsp_node_text(node);
    const char *at = xcsp3_skip_spaces(text);
    size_t capacity = 0;
    parac_status status = PARAC_OK;
    while (status == PARAC_OK && *at) {
        int64_t from = -1, value = 0, to = -1;
        int ok = *at == '(';
        if (ok) at++;
        ok = ok && (from = read_state(states, &at)) >= 0 && *(at = xcsp3_skip_spaces(at)) == ',';
        if (ok) at++;
        ok = ok && xcsp_read_integer(&at, &value) && *(at = xcsp3_skip_spaces(at)) == ',';
        if (ok) at++;
        ok = ok && (to = read_state(states, &at)) >= 0 && *(at = xcsp3_skip_spaces(at)) == ')';
        if (!ok) {
            status = BAD(r, node, "a transition is (state,value,state)");
            break;
        }
        at = xcsp3_skip_spaces(at + 1);
        if (r->g.transition_count == capacity) {
            int64_t *grown = realloc(r->g.transitions, (capacity = capacity ? 2 * capacity : 64) * 3 * sizeof *grown);
            if (!grown) {
                status = xcsp3_no_memory(r);
                break;
            }
            r->g.transitions = grown;
        }
        r->g.transitions[3 * r->g.transition_count] = from;
        r->g.transitions[3 * r->g.transition_count + 1] = value;
        r->g.transitions[3 * r->g.transition_count + 2] = to;
        r->g.transition_count++;
    }
    xmlFree(text);
    if (status == PARAC_OK && !r->g.transition_count) status = BAD(r, node, "no transition");
    return status;
}

/* The states named in a <start> / <final> text, appended to finals (or the one start). */
static parac_status read_state_list(global_reader *r, xmlNodePtr node, state_names *states, int64_t **out, size_t *count)
{
    char *text = xcsp_node_text(node);
    const char *at = xcsp3_skip_spaces(text);
    parac_status status = PARAC_OK;
    size_t capacity = 0;
    while (status == PARAC_OK && *at) {
        int64_t state = read_state(states, &at);
        if (state < 0 || (*at && !xcsp3_is_space(*at))) {
            status = BAD(r, node, "bad state name");
            break;
        }
        at = xcsp3_skip_spaces(at);
        if (*count == capacity) {
            int64_t *grown = realloc(*out, (capacity = capacity ? 2 * capacity : 8) * sizeof *grown);
            if (!grown) {
                status = xcsp3_no_memory(r);
                break;
            }
            *out = grown;
        }
        (*out)[(*count)++] = state;
    }
    xmlFree(text);
    return status;
}

parac_status xcsp3_read_regular(global_reader *r)
{
    static const char *const known[] = {"list", "transitions", "start", "final", NULL};
    xmlNodePtr transitions = xcsp_child(r->node, "transitions"), start = xcsp_child(r->node, "start");
    xmlNodePtr final = xcsp_child(r->node, "final");
    state_names states = {0};
    int64_t *start_state = NULL;
    size_t start_count = 0;
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && (!transitions || !start || !final)) status = BAD(r, NULL, "needs <transitions>, <start> and <final>");
    if (status == PARAC_OK) status = read_state_list(r, start, &states, &start_state, &start_count);
    if (status == PARAC_OK && start_count != 1) status = BAD(r, start, "<start> names one state");
    if (status == PARAC_OK) status = read_transitions(r, transitions, &states);
    if (status == PARAC_OK) status = read_state_list(r, final, &states, &r->g.finals, &r->g.final_count);
    if (status == PARAC_OK) {
        r->g.start = start_state[0];
        r->g.state_count = states.count;
        r->g.final_count = xcsp3_sort_distinct(r->g.finals, r->g.final_count);
    }
    free(start_state);
    xcsp_names_free(&states.names);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* mdd: the root is the one node without an incoming arc, the terminal(s) those without outgoing ones. */
static parac_status mdd_ends(global_reader *r, xmlNodePtr transitions)
{
    size_t n = (size_t)r->g.state_count;
    unsigned char *role = calloc(n ? n : 1, 1); /* bit 0: has an incoming arc, bit 1: an outgoing one */
    size_t roots = 0;
    if (!role) return xcsp3_no_memory(r);
    for (size_t t = 0; t < r->g.transition_count; t++) {
        role[r->g.transitions[3 * t]] |= 2;
        role[r->g.transitions[3 * t + 2]] |= 1;
    }
    for (size_t s = 0; s < n; s++) {
        if (!(role[s] & 1)) r->g.start = (int64_t)s, roots++;
        if (!(role[s] & 2)) r->g.final_count++;
    }
    if (roots != 1 || !r->g.final_count) {
        free(role);
        return BAD(r, transitions, "an mdd has one root and at least one terminal node (%zu roots)", roots);
    }
    if (!(r->g.finals = malloc(r->g.final_count * sizeof *r->g.finals))) return free(role), xcsp3_no_memory(r);
    r->g.final_count = 0;
    for (size_t s = 0; s < n; s++)
        if (!(role[s] & 2)) r->g.finals[r->g.final_count++] = (int64_t)s;
    free(role);
    return PARAC_OK;
}

parac_status xcsp3_read_mdd(global_reader *r)
{
    static const char *const known[] = {"list", "transitions", NULL};
    xmlNodePtr transitions = xcsp_child(r->node, "transitions");
    state_names states = {0};
    parac_status status = xcsp3_only_children(r, known);
    if (status == PARAC_OK) status = xcsp3_main_list(r, NULL);
    if (status == PARAC_OK && !transitions) status = BAD(r, NULL, "no <transitions>");
    if (status == PARAC_OK) status = read_transitions(r, transitions, &states);
    r->g.state_count = states.count;
    xcsp_names_free(&states.names);
    if (status == PARAC_OK) status = mdd_ends(r, transitions);
    return status == PARAC_OK ? xcsp3_add_global(r) : status;
}

/* ac/global_all_different.c — allDifferent by Régin's algorithm (AAAI 1994): GAC.
 *
 * The value graph links each term (position) to its values. A maximum matching that covers every
 * position exists iff the constraint is satisfiable; a value v of position p then has a support iff
 * (p, v) belongs to some maximum matching: it is matched, or it lies on an even alternating path
 * from a free value, or on an alternating cycle (p and v in one strongly connected component of the
 * graph orienting matched edges p -> v and the others v -> p). Except values never conflict: each
 * position whose domain holds one gets a private "joker" value node standing for all of them.
 * Cost: O(n * E) for the matching (Kuhn's augmenting paths, breadth-first), O(n + E) for the rest.
 */
#include "ac/global_propagate.h"

#include <stdlib.h>
#include <string.h>

typedef struct value_graph {
    size_t positions, value_nodes, edges;
    size_t *edge_offset;      /* positions + 1 */
    uint32_t *edge_value;     /* value node of each edge */
    int64_t *edge_integer;    /* the integer value of each edge (unused for jokers) */
    uint8_t *edge_joker;
    int64_t *distinct;        /* the non-except values, ascending: value node k < distinct_count */
    size_t distinct_count;
    uint32_t *match_of_position, *match_of_value; /* UINT32_MAX: free */
} value_graph;

#define FREE UINT32_MAX

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int is_except(const int64_t *except, size_t count, int64_t v)
{
    return count && bsearch(&v, except, count, sizeof *except, compare_i64) != NULL;
}

static void graph_free(value_graph *g)
{
    free(g->edge_offset), free(g->edge_value), free(g->edge_integer), free(g->edge_joker), free(g->distinct);
    free(g->match_of_position), free(g->match_of_value);
}

/* Builds the value graph; returns 0, or -1 when out of memory. */
static int graph_build(const ac_model *model, const ac_domains *domains, const ac_term *terms, size_t count,
                       const int64_t *except, size_t except_count, value_graph *g)
{
    size_t total = 0, k = 0, jokers = 0;
    for (size_t i = 0; i < count; i++) total += ac_term_size(model, domains, &terms[i]);
    g->positions = count;
    g->edge_offset = malloc((count + 1) * sizeof *g->edge_offset);
    g->edge_value = malloc((total + 1) * sizeof *g->edge_value);
    g->edge_integer = malloc((total + 1) * sizeof *g->edge_integer);
    g->edge_joker = calloc(total + 1, 1);
    g->distinct = malloc((total + 1) * sizeof *g->distinct);
    if (!g->edge_offset || !g->edge_value || !g->edge_integer || !g->edge_joker || !g->distinct) return -1;
    for (size_t i = 0; i < count; i++) {
        g->edge_offset[i] = k;
        k += ac_term_values(model, domains, &terms[i], g->edge_integer + k);
    }
    g->edge_offset[count] = k;
    memcpy(g->distinct, g->edge_integer, k * sizeof *g->distinct);
    qsort(g->distinct, k, sizeof *g->distinct, compare_i64);
    for (size_t i = 0; i < k; i++)
        if ((i == 0 || g->distinct[i] != g->distinct[i - 1]) && !is_except(except, except_count, g->distinct[i]))
            g->distinct[g->distinct_count++] = g->distinct[i];
    for (size_t i = 0; i < count; i++) {
        int has_joker = 0;
        for (size_t e = g->edge_offset[i]; e < g->edge_offset[i + 1]; e++) {
            int64_t v = g->edge_integer[e];
            if (is_except(except, except_count, v)) {
                g->edge_joker[e] = 1;
                g->edge_value[e] = (uint32_t)(g->distinct_count + jokers);
                has_joker = 1;
            } else {
                g->edge_value[e] = (uint32_t)((int64_t *)bsearch(&v, g->distinct, g->distinct_count, sizeof v,
                                                                  compare_i64) - g->distinct);
            }
        }
        jokers += has_joker;
    }
    g->edges = k;
    g->value_nodes = g->distinct_count + jokers;
    g->match_of_position = malloc((count + 1) * sizeof *g->match_of_position);
    g->match_of_value = malloc((g->value_nodes + 1) * sizeof *g->match_of_value);
    if (!g->match_of_position || !g->match_of_value) return -1;
    for (size_t i = 0; i < count; i++) g->match_of_position[i] = FREE;
    for (size_t v = 0; v < g->value_nodes; v++) g->match_of_value[v] = FREE;
    return 0;
}

/* Kuhn's algorithm with breadth-first augmenting paths; returns the matching's size or -1 (memory). */
static long maximum_matching(value_graph *g)
{
    size_t n = g->positions, matched = 0;
    uint32_t *queue = malloc((n + 1) * sizeof *queue);
    uint32_t *came_from = malloc((n + 1) * sizeof *came_from), *seen = calloc(g->value_nodes + 1, sizeof *seen);
    if (!queue || !came_from || !seen) {
        free(queue), free(came_from), free(seen);
        return -1;
    }
    for (size_t p = 0; p < n; p++) /* greedy start */
        for (size_t e = g->edge_offset[p]; e < g->edge_offset[p + 1]; e++)
            if (g->match_of_value[g->edge_value[e]] == FREE) {
                g->match_of_value[g->edge_value[e]] = (uint32_t)p, g->match_of_position[p] = g->edge_value[e];
                matched++;
                break;
            }
    for (size_t root = 0; root < n; root++) {
        size_t head = 0, tail = 0;
        uint32_t end_value = FREE, end_position = FREE;
        if (g->match_of_position[root] != FREE) continue;
        queue[tail++] = (uint32_t)root;
        came_from[root] = FREE;
        while (head < tail && end_value == FREE) {
            uint32_t p = queue[head++];
            for (size_t e = g->edge_offset[p]; e < g->edge_offset[p + 1]; e++) {
                uint32_t v = g->edge_value[e], q;
                if (seen[v] == root + 1) continue;
                seen[v] = (uint32_t)root + 1;
                q = g->match_of_value[v];
                if (q == FREE) {
                    end_value = v, end_position = p;
                    break;
                }
                came_from[q] = p;
                queue[tail++] = q;
            }
        }
        if (end_value == FREE) continue;
        for (uint32_t p = end_position, v = end_value; p != FREE;) { /* flip the path back to the root */
            uint32_t previous = g->match_of_position[p];
            g->match_of_position[p] = v, g->match_of_value[v] = p;
            v = previous;
            p = came_from[p];
        }
        matched++;
    }
    free(queue), free(came_from), free(seen);
    return (long)matched;
}

/* Marks supported[e] for each edge in some maximum matching, on the residual graph: node p < n is
 * a position, n + v a value node; position p's one arc goes to its matched value, value v's arcs
 * to the positions adjacent through an unmatched edge. Returns 0 or -1 (memory). */
static int find_supported_edges(const value_graph *g, uint8_t *supported)
{
    size_t n = g->positions, m = g->value_nodes, nodes = n + m, head = 0, tail = 0;
    size_t *offset = calloc(nodes + 2, sizeof *offset), *fill = calloc(nodes + 1, sizeof *fill);
    uint32_t *target = malloc((g->edges + n + 1) * sizeof *target);
    uint32_t *component = malloc((nodes + 1) * sizeof *component), *queue = malloc((nodes + 1) * sizeof *queue);
    uint8_t *reached = calloc(nodes + 1, 1);
    int status = -1;
    if (!offset || !fill || !target || !component || !queue || !reached) goto done;
    for (size_t p = 0; p < n; p++) {
        offset[p + 1] += g->match_of_position[p] != FREE;
        for (size_t e = g->edge_offset[p]; e < g->edge_offset[p + 1]; e++)
            if (g->match_of_position[p] != g->edge_value[e]) offset[n + g->edge_value[e] + 1]++;
    }
    for (size_t v = 0; v < nodes; v++) offset[v + 1] += offset[v];
    for (size_t p = 0; p < n; p++) {
        if (g->match_of_position[p] != FREE) target[offset[p] + fill[p]++] = (uint32_t)(n + g->match_of_position[p]);
        for (size_t e = g->edge_offset[p]; e < g->edge_offset[p + 1]; e++) {
            size_t v = n + g->edge_value[e];
            if (g->match_of_position[p] != g->edge_value[e]) target[offset[v] + fill[v]++] = (uint32_t)p;
        }
    }
    if (ac_strong_components(nodes, offset, target, component) != 0) goto done;
    for (size_t v = 0; v < m; v++) /* even alternating paths start at the free values */
        if (g->match_of_value[v] == FREE) reached[n + v] = 1, queue[tail++] = (uint32_t)(n + v);
    while (head < tail) {
        uint32_t node = queue[head++];
        for (size_t k = offset[node]; k < offset[node + 1]; k++)
            if (!reached[target[k]]) reached[target[k]] = 1, queue[tail++] = target[k];
    }
    for (size_t p = 0; p < n; p++)
        for (size_t e = g->edge_offset[p]; e < g->edge_offset[p + 1]; e++) {
            uint32_t v = g->edge_value[e];
            supported[e] = g->match_of_position[p] == v || reached[n + v] || component[p] == component[n + v];
        }
    status = 0;
done:
    free(offset), free(fill), free(target), free(component), free(queue), free(reached);
    return status;
}

int ac_all_different_terms(const ac_model *model, ac_domains *domains, const ac_term *terms, size_t count,
                           const int64_t *except, size_t except_count, uint8_t *changed)
{
    value_graph g = {0};
    uint8_t *supported = NULL;
    int wipeout = 0;
    long matched;
    if (graph_build(model, domains, terms, count, except, except_count, &g) != 0) goto done; /* memory: no pruning */
    matched = maximum_matching(&g);
    if (matched < 0) goto done;
    if ((size_t)matched < count) {
        wipeout = 1;
        goto done;
    }
    supported = malloc(g.edges + 1);
    if (!supported || find_supported_edges(&g, supported) != 0) goto done;
    for (size_t p = 0; p < count && !wipeout; p++)
        for (size_t e = g.edge_offset[p]; e < g.edge_offset[p + 1] && !wipeout; e++)
            if (!supported[e]) wipeout = ac_term_remove(model, domains, &terms[p], g.edge_integer[e], changed);
done:
    free(supported);
    graph_free(&g);
    return wipeout;
}

AC_PROPAGATOR(all_different)
{
    (void)stats;
    return ac_all_different_terms(model, domains, global->lists[0], global->list_length[0], global->values,
                                  global->value_count, changed);
}

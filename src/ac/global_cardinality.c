/* ac/global_cardinality.c — cardinality (global cardinality constraint): value v_k occurs o_k
 * times in the list (o_k a constant, a variable or a range); closed: only listed values.
 *
 * 1. Counting: with sure_k terms fixed to v_k and possible_k terms able to take it, o_k keeps
 *    [sure_k, possible_k]; when sure_k reaches o_k's maximum the other terms lose v_k; when
 *    possible_k equals o_k's minimum every term able to take v_k takes it; closed: values not
 *    listed go. Values given as variables are skipped.
 * 2. Régin's flow (AAAI 1996), when the values are distinct constants: terms send one unit each to
 *    value nodes bounded by [min o_k, max o_k] (one more node, [0, n], for every value not listed
 *    when the constraint is not closed). A feasible flow is found in two phases of augmenting paths
 *    (lower bounds first, then every term; loads never drop); an edge outside it lies in another
 *    feasible flow iff its ends share a strongly connected component of the residual graph
 *    (through the sink for the value bounds). With constant or range occurrences this is GAC; with
 *    occurrence variables the term side uses their bounds (GAC there is NP-hard: Quimper et al.
 *    2004) and the strength is "partial".
 */
#include "ac/global_propagate.h"

#include <stdlib.h>

#define NONE UINT32_MAX

static int all_values_constant(const parac_csp_global *g)
{
    for (size_t k = 0; k < g->list_length[1]; k++)
        if (g->lists[1][k].var >= 0) return 0;
    return 1;
}

/* The constant values of the values list, sorted, each with its first position k: a lookup is a
 * binary search. A linear scan per lookup made the closed check and the flow's value nodes cost
 * terms x values x listed values (5,000 x 5,000 x 5,000: minutes on one propagation). */
typedef struct listed_values {
    int64_t *value;
    uint32_t *first;
    size_t count;
} listed_values;

static void listed_free(listed_values *l) { free(l->value), free(l->first); }

typedef struct listed_entry {
    int64_t value;
    uint32_t position;
} listed_entry;

static int by_value_then_position(const void *x, const void *y)
{
    const listed_entry *a = x, *b = y;
    if (a->value != b->value) return a->value < b->value ? -1 : 1;
    return a->position < b->position ? -1 : a->position > b->position;
}

static int listed_build(const parac_csp_global *g, listed_values *l)
{
    size_t m = g->list_length[1], count = 0;
    listed_entry *entries = malloc((m + 1) * sizeof *entries);
    l->value = malloc((m + 1) * sizeof *l->value);
    l->first = malloc((m + 1) * sizeof *l->first);
    l->count = 0;
    if (!entries || !l->value || !l->first) {
        free(entries);
        return -1;
    }
    for (size_t k = 0; k < m; k++)
        if (g->lists[1][k].var < 0) entries[count++] = (listed_entry){g->lists[1][k].value, (uint32_t)k};
    qsort(entries, count, sizeof *entries, by_value_then_position);
    for (size_t i = 0; i < count; i++) {
        if (l->count && l->value[l->count - 1] == entries[i].value) continue; /* a repeated value: its first position */
        l->value[l->count] = entries[i].value;
        l->first[l->count++] = entries[i].position;
    }
    free(entries);
    return 0;
}

/* The first position of constant v in the values list, or NONE. */
static uint32_t listed_find(const listed_values *l, int64_t v)
{
    size_t at = ac_lower_bound(l->value, l->count, v);
    return at < l->count && l->value[at] == v ? l->first[at] : NONE;
}

#define NONE UINT32_MAX

typedef struct gcc_flow {
    size_t n, m;              /* terms; value nodes (listed values, then the node of the others) */
    size_t *edge_offset;      /* n + 1 */
    uint32_t *edge_node;
    int64_t *edge_value;
    size_t edges;
    int64_t *low, *high, *load;
    uint32_t *assigned;       /* per term: its value node, or NONE */
    size_t *by_node_offset;   /* m + 1: the terms adjacent to each value node (repeats allowed) */
    uint32_t *by_node;
} gcc_flow;

static void flow_free(gcc_flow *f)
{
    free(f->edge_offset), free(f->edge_node), free(f->edge_value), free(f->low), free(f->high), free(f->load);
    free(f->assigned), free(f->by_node_offset), free(f->by_node);
}

/* The value node of v: its index among the listed values, the "others" node, or NONE (closed). */
static uint32_t node_of(const parac_csp_global *g, const listed_values *listed, int64_t v)
{
    uint32_t k = listed_find(listed, v);
    if (k != NONE) return k;
    return g->closed ? NONE : (uint32_t)g->list_length[1];
}

static int flow_build(const ac_model *model, const ac_domains *domains, const parac_csp_global *g,
                      const listed_values *listed, gcc_flow *f)
{
    size_t n = g->list_length[0], k_count = g->list_length[1], total = 0, e = 0;
    f->n = n, f->m = k_count + 1;
    for (size_t i = 0; i < n; i++) total += ac_term_size(model, domains, &g->lists[0][i]);
    f->edge_offset = malloc((n + 1) * sizeof *f->edge_offset);
    f->edge_node = malloc((total + 1) * sizeof *f->edge_node);
    f->edge_value = malloc((total + 1) * sizeof *f->edge_value);
    f->low = malloc((f->m + 1) * sizeof *f->low), f->high = malloc((f->m + 1) * sizeof *f->high);
    f->load = calloc(f->m + 1, sizeof *f->load);
    f->assigned = malloc((n + 1) * sizeof *f->assigned);
    f->by_node_offset = calloc(f->m + 2, sizeof *f->by_node_offset);
    f->by_node = malloc((total + 1) * sizeof *f->by_node);
    if (!f->edge_offset || !f->edge_node || !f->edge_value || !f->low || !f->high || !f->load || !f->assigned ||
        !f->by_node_offset || !f->by_node)
        return -1;
    for (size_t k = 0; k < k_count; k++) {
        const ac_term *occurs = &g->lists[2][k];
        if (g->has_ranges && occurs->var < 0) f->low[k] = g->ranges[k].low, f->high[k] = g->ranges[k].high;
        else f->low[k] = ac_term_min(model, domains, occurs), f->high[k] = ac_term_max(model, domains, occurs);
        if (f->low[k] < 0) f->low[k] = 0;
    }
    f->low[k_count] = 0, f->high[k_count] = g->closed ? 0 : (int64_t)n;
    for (size_t i = 0; i < n; i++) {
        size_t start = e, count = ac_term_values(model, domains, &g->lists[0][i], f->edge_value + start);
        f->edge_offset[i] = start;
        for (size_t c = 0; c < count; c++) { /* keep the values with a node, compacted in place */
            int64_t v = f->edge_value[start + c];
            uint32_t node = node_of(g, listed, v);
            if (node == NONE) continue; /* closed: the counting step removed it already */
            f->edge_value[e] = v;
            f->edge_node[e++] = node;
        }
        f->assigned[i] = NONE;
    }
    f->edge_offset[n] = f->edges = e;
    for (size_t x = 0; x < e; x++) f->by_node_offset[f->edge_node[x] + 1]++;
    for (size_t v = 0; v < f->m; v++) f->by_node_offset[v + 1] += f->by_node_offset[v];
    {
        size_t *fill = calloc(f->m + 1, sizeof *fill);
        if (!fill) return -1;
        for (size_t i = 0; i < n; i++)
            for (size_t x = f->edge_offset[i]; x < f->edge_offset[i + 1]; x++)
                f->by_node[f->by_node_offset[f->edge_node[x]] + fill[f->edge_node[x]]++] = (uint32_t)i;
        free(fill);
    }
    return 0;
}

/* One augmenting path from unassigned term `root` to a value node with load < capacity (low in
 * phase 1, high in phase 2), breadth first; 1 when the flow grew. */
static int augment(gcc_flow *f, size_t root, const int64_t *capacity, uint32_t *came_from, uint32_t *queue,
                   uint32_t *seen_node, uint32_t *seen_term, uint32_t stamp)
{
    size_t head = 0, tail = 0;
    uint32_t end_term = NONE, end_node = NONE;
    queue[tail++] = (uint32_t)root, came_from[root] = NONE, seen_term[root] = stamp;
    while (head < tail && end_node == NONE) {
        uint32_t t = queue[head++];
        for (size_t e = f->edge_offset[t]; e < f->edge_offset[t + 1] && end_node == NONE; e++) {
            uint32_t v = f->edge_node[e];
            if (seen_node[v] == stamp || f->assigned[t] == v) continue;
            seen_node[v] = stamp;
            if (f->load[v] < capacity[v]) {
                end_term = t, end_node = v;
                break;
            }
            for (size_t k = f->by_node_offset[v]; k < f->by_node_offset[v + 1]; k++) {
                uint32_t y = f->by_node[k];
                if (f->assigned[y] != v || seen_term[y] == stamp) continue;
                seen_term[y] = stamp, came_from[y] = t;
                queue[tail++] = y;
            }
        }
    }
    if (end_node == NONE) return 0;
    f->load[end_node]++;
    for (uint32_t t = end_term, v = end_node; t != NONE;) { /* each term on the path takes the next node */
        uint32_t previous = f->assigned[t];
        f->assigned[t] = v;
        v = previous;
        t = came_from[t];
    }
    return 1;
}

/* The two phases; 1 when a feasible flow exists (f->assigned then gives it), 0 if not, -1 memory. */
static int feasible_flow(gcc_flow *f)
{
    uint32_t *came_from = malloc((f->n + 1) * sizeof *came_from), *queue = malloc((f->n + 1) * sizeof *queue);
    uint32_t *seen_node = calloc(f->m + 1, sizeof *seen_node), *seen_term = calloc(f->n + 1, sizeof *seen_term);
    uint32_t stamp = 0;
    int64_t lows = 0, loaded = 0;
    int result = -1;
    if (!came_from || !queue || !seen_node || !seen_term) goto done;
    for (size_t v = 0; v < f->m; v++) lows += f->low[v];
    /* Phase 1 until no value lacks its lower bound. The marks of a search that found nothing are
     * kept for the next root (Kuhn's rule: what it reached leads to no free capacity until the
     * flow changes), so the failures between two augmentations cost one pass over the edges: with
     * every lower bound 0 the first search fails and the others stop at once, where a fresh search
     * per term cost terms x edges (5,000 terms x 25 M edges). */
    ++stamp;
    for (size_t t = 0; t < f->n && loaded < lows; t++)
        if (augment(f, t, f->low, came_from, queue, seen_node, seen_term, stamp)) loaded++, ++stamp;
    result = 0;
    if (loaded < lows) goto done;
    for (size_t t = 0; t < f->n; t++)
        if (f->assigned[t] == NONE && !augment(f, t, f->high, came_from, queue, seen_node, seen_term, ++stamp)) goto done;
    result = 1;
done:
    free(came_from), free(queue), free(seen_node), free(seen_term);
    return result;
}

/* supported[e]: the edge is in the flow or in one SCC of the residual graph (terms 0..n-1, value
 * nodes n.., the sink n + m). Returns 0 or -1. */
static int flow_supports(const gcc_flow *f, uint8_t *supported)
{
    size_t n = f->n, m = f->m, nodes = n + m + 1, sink = n + m;
    size_t *offset = calloc(nodes + 1, sizeof *offset), *fill = calloc(nodes + 1, sizeof *fill);
    uint32_t *target = malloc((f->edges + 2 * m + 1) * sizeof *target), *component = malloc((nodes + 1) * sizeof *component);
    int status = -1;
    if (!offset || !fill || !target || !component) goto done;
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        for (size_t t = 0; t < n; t++)
            for (size_t e = f->edge_offset[t]; e < f->edge_offset[t + 1]; e++) {
                size_t from = f->assigned[t] == f->edge_node[e] ? n + f->edge_node[e] : t;
                size_t to = from == t ? n + f->edge_node[e] : t;
                if (pass == 0) offset[from + 1]++;
                else target[offset[from] + fill[from]++] = (uint32_t)to;
            }
        for (size_t v = 0; v < m; v++) {
            if (f->load[v] < f->high[v]) {
                if (pass == 0) offset[n + v + 1]++;
                else target[offset[n + v] + fill[n + v]++] = (uint32_t)sink;
            }
            if (f->load[v] > f->low[v]) {
                if (pass == 0) offset[sink + 1]++;
                else target[offset[sink] + fill[sink]++] = (uint32_t)(n + v);
            }
        }
        if (pass == 0)
            for (size_t v = 0; v < nodes; v++) offset[v + 1] += offset[v];
    }
    if (ac_strong_components(nodes, offset, target, component) != 0) goto done;
    for (size_t t = 0; t < n; t++)
        for (size_t e = f->edge_offset[t]; e < f->edge_offset[t + 1]; e++)
            supported[e] = f->assigned[t] == f->edge_node[e] || component[t] == component[n + f->edge_node[e]];
    status = 0;
done:
    free(offset), free(fill), free(target), free(component);
    return status;
}

/* Step 2; returns 1 on wipe-out (no feasible flow). */
static int propagate_flow(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                          const listed_values *listed, uint8_t *changed)
{
    gcc_flow f = {0};
    uint8_t *supported = NULL;
    int wipeout = 0, feasible;
    if (flow_build(model, domains, global, listed, &f) != 0) goto done;
    feasible = feasible_flow(&f);
    if (feasible <= 0) {
        wipeout = feasible == 0;
        goto done;
    }
    supported = malloc(f.edges + 1);
    if (!supported || flow_supports(&f, supported) != 0) goto done;
    for (size_t t = 0; t < f.n && !wipeout; t++)
        for (size_t e = f.edge_offset[t]; e < f.edge_offset[t + 1] && !wipeout; e++)
            if (!supported[e]) wipeout = ac_term_remove(model, domains, &global->lists[0][t], f.edge_value[e], changed);
done:
    free(supported);
    flow_free(&f);
    return wipeout;
}

/* The values are distinct constants: the flow applies. */
static int flow_applies(const parac_csp_global *g, const listed_values *listed)
{
    return all_values_constant(g) && listed->count == g->list_length[1];
}

int ac_cardinality_flow_exact(const parac_csp_global *global)
{
    listed_values listed;
    int applies = listed_build(global, &listed) == 0 && flow_applies(global, &listed);
    listed_free(&listed);
    if (!applies) return 0;
    for (size_t k = 0; k < global->list_length[1]; k++)
        if (global->lists[2][k].var >= 0) return 0;
    return 1;
}

static int propagate_counting(const ac_model *model, ac_domains *domains, const parac_csp_global *global,
                              const listed_values *listed, uint8_t *changed)
{
    const ac_term *terms = global->lists[0];
    size_t n = global->list_length[0];
    int64_t *values = malloc((ac_largest_domain(model->network) + 1) * sizeof *values);
    int wipeout = 0;
    if (!values) return 0;
    for (size_t k = 0; k < global->list_length[1] && !wipeout; k++) {
        const ac_term *occurs = &global->lists[2][k];
        int64_t v = global->lists[1][k].value, sure = 0, possible = 0, low, high;
        if (global->lists[1][k].var >= 0) continue;
        for (size_t i = 0; i < n; i++)
            if (ac_term_has(model, domains, &terms[i], v)) {
                possible++;
                sure += ac_term_size(model, domains, &terms[i]) == 1;
            }
        if (global->has_ranges && occurs->var < 0) {
            low = global->ranges[k].low, high = global->ranges[k].high;
        } else {
            if (ac_term_restrict(model, domains, occurs, sure, possible, changed)) {
                wipeout = 1;
                break;
            }
            low = ac_term_min(model, domains, occurs), high = ac_term_max(model, domains, occurs);
        }
        /* an empty occurrence range (low > high) is satisfied by no assignment: caught here, since
         * the flow's first phase fills a value to its low bound before checking its high one */
        if (sure > high || possible < low || low > high) {
            wipeout = 1;
            break;
        }
        for (size_t i = 0; i < n && !wipeout; i++) {
            if (!ac_term_has(model, domains, &terms[i], v) || ac_term_size(model, domains, &terms[i]) == 1) continue;
            if (sure == high) wipeout = ac_term_remove(model, domains, &terms[i], v, changed);
            else if (possible == low) wipeout = ac_term_restrict(model, domains, &terms[i], v, v, changed);
        }
    }
    if (global->closed && all_values_constant(global))
        for (size_t i = 0; i < n && !wipeout; i++) {
            size_t count = ac_term_values(model, domains, &terms[i], values);
            for (size_t k = 0; k < count && !wipeout; k++)
                if (listed_find(listed, values[k]) == NONE)
                    wipeout = ac_term_remove(model, domains, &terms[i], values[k], changed);
        }
    free(values);
    return wipeout;
}

AC_PROPAGATOR(cardinality)
{
    listed_values listed;
    int wipeout = 0;
    (void)stats;
    if (listed_build(global, &listed) == 0) { /* out of memory: nothing removed (never a wrong removal) */
        wipeout = propagate_counting(model, domains, global, &listed, changed);
        if (!wipeout && flow_applies(global, &listed)) wipeout = propagate_flow(model, domains, global, &listed, changed);
    }
    listed_free(&listed);
    return wipeout;
}

/* gemm/dag.c — the tile-kernel DAG: size, critical path and invariants.
 *
 * Node ids: tile kernel at k_list position p is node p; the reduction of
 * split C tile r is node tile_kernels + r. Edges are read-after-write on one
 * accumulator: p -> p+1 inside a work item (same C tile, next k tile), and
 * the last kernel of each segment -> its tile's reduction node. Separate
 * partial buffers per segment remove WAR/WAW hazards between segments, so
 * segments carry no edges between them.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gemm/gemm_internal.h"

void gemm_dag_measure(parac_gemm_plan *plan)
{
    int64_t edges = 0, critical = 0;
    for (int64_t i = 0; i < plan->item_count; i++) {
        const gemm_work_item *w = &plan->items[i];
        int64_t length = w->list_end - w->list_begin;
        int64_t path = length + (w->partial_slot >= 0 ? 1 : 0);
        if (length > 0) edges += length - 1 + (w->partial_slot >= 0 ? 1 : 0);
        if (path > critical) critical = path;
    }
    plan->info.dag_nodes = plan->c_offsets[plan->tiles_m * plan->tiles_n] + plan->reduction_count;
    plan->info.dag_edges = edges;
    plan->info.critical_path = critical;
}

/* Every C tile's list holds exactly the k tiles whose A and B tiles are both
 * non-zero, strictly ascending. */
static parac_status check_k_lists(const parac_gemm_plan *plan, parac_error *error)
{
    for (int64_t t = 0; t < plan->tiles_m * plan->tiles_n; t++) {
        int64_t i = t / plan->tiles_n, j = t % plan->tiles_n, at = plan->c_offsets[t];
        for (int64_t kt = 0; kt < plan->tiles_k; kt++) {
            if (!(plan->a_mask[i * plan->tiles_k + kt] && plan->b_mask[kt * plan->tiles_n + j])) continue;
            if (at >= plan->c_offsets[t + 1] || plan->k_list[at] != kt)
                return parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: C tile (%lld,%lld) misses k tile %lld",
                                  (long long)i, (long long)j, (long long)kt);
            at++;
        }
        if (at != plan->c_offsets[t + 1])
            return parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: C tile (%lld,%lld) has extra tile kernels",
                              (long long)i, (long long)j);
    }
    return PARAC_OK;
}

/* The work items of each C tile cover its list exactly once, in contiguous
 * ascending segments, and split tiles use consecutive partial slots. */
static parac_status check_segments(const parac_gemm_plan *plan, int64_t *next_position, parac_error *error)
{
    int64_t c_tiles = plan->tiles_m * plan->tiles_n;
    for (int64_t t = 0; t < c_tiles; t++) next_position[t] = plan->c_offsets[t];
    for (int64_t i = 0; i < plan->item_count; i++) {
        const gemm_work_item *w = &plan->items[i];
        int64_t t = (int64_t)w->tile_row * plan->tiles_n + w->tile_col;
        if (w->tile_row < 0 || w->tile_row >= plan->tiles_m || w->tile_col < 0 || w->tile_col >= plan->tiles_n ||
            w->list_begin != next_position[t] || w->list_end < w->list_begin)
            return parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: work item %lld breaks its tile's k chain",
                              (long long)i);
        next_position[t] = w->list_end;
    }
    for (int64_t t = 0; t < c_tiles; t++)
        if (next_position[t] != plan->c_offsets[t + 1])
            return parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: C tile %lld's k chain is incomplete", (long long)t);
    return PARAC_OK;
}

typedef struct dag_edges {
    int64_t *from, *to;
    int64_t count;
} dag_edges;

static int64_t reduction_node_of(const parac_gemm_plan *plan, int32_t slot)
{
    for (int64_t r = 0; r < plan->reduction_count; r++)
        if (slot >= plan->reductions[r].first_slot && slot < plan->reductions[r].first_slot + plan->reductions[r].slot_count)
            return plan->c_offsets[plan->tiles_m * plan->tiles_n] + r;
    return -1;
}

static void collect_edges(const parac_gemm_plan *plan, dag_edges *edges)
{
    edges->count = 0;
    for (int64_t i = 0; i < plan->item_count; i++) {
        const gemm_work_item *w = &plan->items[i];
        for (int64_t p = w->list_begin; p + 1 < w->list_end; p++) {
            edges->from[edges->count] = p;
            edges->to[edges->count++] = p + 1;
        }
        if (w->partial_slot >= 0 && w->list_end > w->list_begin) {
            edges->from[edges->count] = w->list_end - 1;
            edges->to[edges->count++] = reduction_node_of(plan, w->partial_slot);
        }
    }
}

/* Kahn's algorithm over a CSR adjacency: every node must come out, or there is a cycle.
 * scratch holds 3 * nodes + 1 + edges entries. */
static int64_t topological_count(int64_t nodes, const dag_edges *edges, int64_t *scratch)
{
    int64_t *in_degree = scratch, *queue = scratch + nodes, *start = scratch + 2 * nodes;
    int64_t *targets = scratch + 3 * nodes + 1, head = 0, tail = 0;
    memset(in_degree, 0, (size_t)nodes * sizeof *in_degree);
    memset(start, 0, (size_t)(nodes + 1) * sizeof *start);
    for (int64_t e = 0; e < edges->count; e++) {
        in_degree[edges->to[e]]++;
        start[edges->from[e] + 1]++;
    }
    for (int64_t v = 0; v < nodes; v++) start[v + 1] += start[v];
    for (int64_t e = 0; e < edges->count; e++) targets[start[edges->from[e]]++] = edges->to[e];
    for (int64_t v = nodes; v > 0; v--) start[v] = start[v - 1]; /* undo the fill's shift */
    start[0] = 0;
    for (int64_t v = 0; v < nodes; v++)
        if (in_degree[v] == 0) queue[tail++] = v;
    while (head < tail) {
        int64_t v = queue[head++];
        for (int64_t e = start[v]; e < start[v + 1]; e++)
            if (--in_degree[targets[e]] == 0) queue[tail++] = targets[e];
    }
    return tail;
}

static parac_status check_acyclic(const parac_gemm_plan *plan, parac_error *error)
{
    int64_t nodes = plan->info.dag_nodes, edge_capacity = plan->info.dag_edges + 1;
    dag_edges edges = {malloc((size_t)edge_capacity * 8), malloc((size_t)edge_capacity * 8), 0};
    int64_t *scratch = malloc((size_t)(3 * nodes + 1 + edge_capacity) * 8);
    parac_status status = PARAC_OK;
    if (!edges.from || !edges.to || !scratch) {
        status = parac_fail_no_memory(error, "gemm dag check", (size_t)(edge_capacity + nodes) * 16);
    } else {
        collect_edges(plan, &edges);
        if (edges.count != plan->info.dag_edges)
            status = parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: %lld edges, info says %lld",
                                (long long)edges.count, (long long)plan->info.dag_edges);
        for (int64_t e = 0; status == PARAC_OK && e < edges.count; e++)
            if (edges.to[e] < 0 || edges.to[e] >= nodes)
                status = parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: edge %lld points nowhere", (long long)e);
        if (status == PARAC_OK && topological_count(nodes, &edges, scratch) != nodes)
            status = parac_fail(error, PARAC_ERR_INTERNAL, "gemm dag: the graph has a cycle");
    }
    free(edges.from);
    free(edges.to);
    free(scratch);
    return status;
}

parac_status gemm_dag_check(const parac_gemm_plan *plan, parac_error *error)
{
    int64_t c_tiles = plan->tiles_m * plan->tiles_n;
    int64_t *next_position = malloc((size_t)c_tiles * sizeof *next_position);
    parac_status status;
    if (!next_position) return parac_fail_no_memory(error, "gemm dag check", (size_t)c_tiles * 8);
    status = check_k_lists(plan, error);
    if (status == PARAC_OK) status = check_segments(plan, next_position, error);
    free(next_position);
    if (status == PARAC_OK) status = check_acyclic(plan, error);
    return status;
}

parac_status parac_gemm_plan_check(const parac_gemm_plan *plan, parac_error *error)
{
    return gemm_dag_check(plan, error);
}

/* ac/global_graph.c — strongly connected components of a directed graph in CSR form (Tarjan,
 * iterative so deep graphs need no deep C stack), for the matching- and flow-based propagators
 * (allDifferent, cardinality): an edge outside the current matching or flow is in another one iff
 * its ends lie in one component of the residual graph. */
#include "ac/global_propagate.h"

#include <stdlib.h>

int ac_strong_components(size_t nodes, const size_t *offset, const uint32_t *target, uint32_t *component)
{
    size_t counter = 0, stack_count = 0, call_count = 0;
    uint32_t components = 0;
    uint32_t *index = malloc((nodes + 1) * sizeof *index), *low = malloc((nodes + 1) * sizeof *low);
    uint32_t *stack = malloc((nodes + 1) * sizeof *stack), *call_node = malloc((nodes + 1) * sizeof *call_node);
    size_t *call_arc = malloc((nodes + 1) * sizeof *call_arc);
    uint8_t *on_stack = calloc(nodes + 1, 1);
    int status = -1;
    if (!index || !low || !stack || !call_node || !call_arc || !on_stack) goto done;
    for (size_t v = 0; v < nodes; v++) index[v] = UINT32_MAX;
    for (size_t root = 0; root < nodes; root++) {
        if (index[root] != UINT32_MAX) continue;
        call_node[0] = (uint32_t)root, call_arc[0] = offset[root], call_count = 1;
        index[root] = low[root] = (uint32_t)counter++;
        stack[stack_count++] = (uint32_t)root, on_stack[root] = 1;
        while (call_count) {
            uint32_t v = call_node[call_count - 1];
            if (call_arc[call_count - 1] < offset[v + 1]) {
                uint32_t w = target[call_arc[call_count - 1]++];
                if (index[w] == UINT32_MAX) {
                    index[w] = low[w] = (uint32_t)counter++;
                    stack[stack_count++] = w, on_stack[w] = 1;
                    call_node[call_count] = w, call_arc[call_count] = offset[w], call_count++;
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--stack_count];
                    on_stack[w] = 0;
                    component[w] = components;
                } while (w != v);
                components++;
            }
            call_count--;
            if (call_count && low[v] < low[call_node[call_count - 1]]) low[call_node[call_count - 1]] = low[v];
        }
    }
    status = 0;
done:
    free(index), free(low), free(stack), free(call_node), free(call_arc), free(on_stack);
    return status;
}

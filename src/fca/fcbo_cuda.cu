/* fca/fcbo_cuda.cu — FCbO on the GPU with a device-resident task pool.
 *
 * A task is a search-tree node: extent bitmap, intent bitmap, next attribute
 * and its failed-attribute sets N_j (attributes x attribute_words), stored
 * struct-of-arrays. The pool is a stack; each round the host takes the top
 * `batch` tasks, and one kernel expands them:
 *   - warps fetch task indices from an atomic head (batched fetch, no host
 *     scheduling), one warp per task;
 *   - a warp tries attributes j = y..n-1 in order (FCbO's order: failures at
 *     j feed the N_j of every child), spreading bitmap work over its lanes:
 *     C = A ∩ {j}' word-parallel, D = C' attribute-parallel (lane m tests
 *     C ⊆ column m, a ballot packs 32 attributes), the canonicity test on
 *     the prefix before j only (never bit j);
 *   - canonical children get their slot, which is also their concept id
 *     within the round, by atomicAdd; after the loop the warp copies the
 *     final failed sets into each child.
 * Children are pushed back on the pool. The pool is bounded: when it would
 * overflow, its top part spills to host memory and comes back when the
 * device pool runs dry. Buffer sizes follow free device memory and halve on
 * out-of-memory. --count downloads only one counter per round; otherwise the
 * children's intents are downloaded and mapped to original ids.
 * The CPU twin is fcbo_serial.c: same tree, same concepts.
 *
 * Strategies (parac_fca_gpu_strategy), each a kernel + host loop:
 *   ROUNDS     — version 1: one node per warp per round, every child goes
 *                back to the pool (rounds = tree depth x pool refills); also
 *                what LOCAL_ROWS falls back to when no two stack levels fit.
 *   LOCAL_ROWS — version 3, the default: a warp finishes its task's subtree
 *                depth-first in a private stack (up to LOCAL_MAX_LEVELS levels)
 *                and pushes children to the pool only when another warp has run
 *                dry, or when its stack is full: far fewer rounds, far less
 *                global traffic. Child slots are reserved before a node is
 *                expanded, so the child and output buffers cannot overflow.
 *                D = C' is the AND of the rows of C's objects (work ~ |C|).
 * Versions 2, 4 and 5 (LOCAL: closure by attribute columns; LOCAL_STREAM: a
 * per-block task queue and streamed output; LOCAL_STAGED: pushed children
 * staged in shared memory) never won and live in the kernel lab, dev/fca/04-06
 * (issue 20), built on fcbo_cuda_search.cuh; their enum values are refused.
 *
 * Files, by concern (one translation unit: fcbo_cuda_search.cuh includes them, the kernels stay static):
 *   fcbo_cuda_warp.cuh   warp-wide bitset steps (intersection, closure by columns, canonicity
 *                        test) and the ROUNDS kernel
 *   fcbo_cuda_local.cuh  LOCAL_ROWS: depth-first subtrees in a warp's stack, closure by rows,
 *                        child-slot reservations, pushes, the kernel entry
 *   fcbo_cuda_pool.cuh   the host's gpu_search: counted device buffers, the pool, spill to host
 *   fcbo_cuda_setup.cuh  sizing: budgets and growth, output buffer, stacks, the device cap plan
 *   fcbo_cuda_search.cuh the shared types, rounds (one launch helper: launch_on_grid), storing
 *                        intents, the stall guard, the host loop of each strategy, run_gpu_search
 *   this file            the entry point
 */
#include "fca/fcbo_cuda_search.cuh"

extern "C" parac_status fca_fcbo_cuda(const fca_search *search, int cuda_device, parac_cuda_context *shared_context,
                                      parac_fca_gpu_strategy strategy, uint64_t pool_bytes,
                                      uint64_t max_device_bytes, parac_fca_concepts *concepts, uint64_t *count,
                                      parac_error *error)
{
    /* The engine's (or the run's) device during the search; the caller's current device after it. */
    parac_caller_device_guard caller_device(shared_context ? shared_context->ordinal : cuda_device);
    gpu_search g;
    memset(&g, 0, sizeof g);
    /* fca.c refused the removed strategies: what is left is AUTO, ROUNDS and LOCAL_ROWS */
    g.strategy = strategy == PARAC_FCA_GPU_ROUNDS ? PARAC_FCA_GPU_ROUNDS : PARAC_FCA_GPU_LOCAL_ROWS;
    return run_gpu_search(&g, search_local, search, cuda_device, shared_context, pool_bytes, max_device_bytes, concepts,
                          count, error);
}

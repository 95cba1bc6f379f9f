/* fca/sparse_parallel.c — the sparse search on all cores: one shared root, then OpenMP tasks,
 * spawned only while few wait.
 *
 * The root (every object: the whole context's database) is built, delivered and tested once, in a
 * worker of its own that the threads then only read. Each thread takes the root's children from one
 * atomic counter, builds the child's database from the shared root into its own worker and
 * searches it. Below the root, once some thread has no root child left to take, a worker at a
 * canonical child hands the child to the task queue instead of expanding it when fewer than
 * PENDING_PER_THREAD tasks per thread wait (so some thread is, or soon will be, idle) and the
 * child's database is not tiny. A task carries a self-contained copy of its node (intent,
 * transactions, items: the cells of its conditional database, usually a few kB) and runs on
 * whichever thread takes it, with that thread's own worker (taken by thread number: tasks are
 * tied, so a task run inline at a scheduling point nests on the worker's arrays LIFO, and the
 * search addresses them by index, never by a pointer held across a spawn). With every thread busy
 * nothing is copied. Why not steal_team.h's deques: their tasks hold dense bitset nodes; a sparse
 * node is a database whose copy is proportional to its cells, and a plain task queue with a
 * throttle was enough on the machines measured (docs/fca.md, "Sparse contexts").
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/sparse_search.h"

#define PENDING_PER_THREAD 2
/* A smaller database is searched in place: copying it costs more than it balances. Measured on the
 * 2-core machine, 2 threads, T10I4D100K (CPU time; one thread 5.3 s): 32 cells 7.6 s, 2,048 cells
 * 5.4 s (the copies and the idle threads' spinning between tiny tasks were the difference). */
#define SMALLEST_SPAWNED_CELLS 2048

typedef struct sparse_team {
    const fca_search *search;
    sparse_worker *workers;
    int threads;
    atomic_int pending; /* tasks spawned, not yet started */
    atomic_int claiming; /* threads still taking the root's children */
    sparse_worker root_worker; /* the root's database and tested candidates: read-only in the region */
    sparse_node root;
    sparse_children root_children;
    atomic_size_t next_root_child;
    atomic_int stop;    /* a worker failed or the run was cancelled */
} sparse_team;

/* A node copied out of its worker: transactions, then the intent and the items (uint32). */
typedef struct sparse_bundle {
    size_t intent_length, transaction_count, item_count;
    uint64_t weight;
    sparse_transaction transactions[];
} sparse_bundle;

static uint32_t *bundle_intent(sparse_bundle *bundle) { return (uint32_t *)(bundle->transactions + bundle->transaction_count); }
static uint32_t *bundle_items(sparse_bundle *bundle) { return bundle_intent(bundle) + bundle->intent_length; }

static sparse_bundle *copy_node(const sparse_worker *worker, const sparse_node *node)
{
    const sparse_transaction *transactions = (const sparse_transaction *)worker->transactions.data + node->transaction_first;
    const uint32_t *items = worker->items.data;
    size_t item_count = 0;
    sparse_bundle *bundle;
    for (size_t t = 0; t < node->transaction_count; t++)
        item_count += transactions[t].prefix_length + transactions[t].suffix_length;
    bundle = malloc(sizeof *bundle + node->transaction_count * sizeof(sparse_transaction) +
                    (node->intent_length + item_count) * sizeof(uint32_t));
    if (!bundle) return NULL;
    bundle->intent_length = node->intent_length;
    bundle->transaction_count = node->transaction_count;
    bundle->item_count = item_count;
    bundle->weight = node->weight;
    memcpy(bundle_intent(bundle), (const uint32_t *)worker->intents.data + node->intent_first,
           node->intent_length * sizeof(uint32_t));
    item_count = 0;
    for (size_t t = 0; t < node->transaction_count; t++) {
        sparse_transaction copy = transactions[t];
        uint32_t *to = bundle_items(bundle) + item_count;
        memcpy(to, items + copy.prefix_start, copy.prefix_length * sizeof(uint32_t));
        memcpy(to + copy.prefix_length, items + copy.suffix_start, copy.suffix_length * sizeof(uint32_t));
        copy.prefix_start = item_count;
        copy.suffix_start = item_count + copy.prefix_length;
        item_count += copy.prefix_length + copy.suffix_length;
        bundle->transactions[t] = copy;
    }
    return bundle;
}

/* The bundle's node at the end of the worker's arrays; 0 when out of memory. */
static int load_node(sparse_worker *worker, sparse_bundle *bundle, sparse_node *node)
{
    if (!sparse_array_reserve(worker, &worker->intents, bundle->intent_length) ||
        !sparse_array_reserve(worker, &worker->items, bundle->item_count) ||
        !sparse_array_reserve(worker, &worker->transactions, bundle->transaction_count))
        return 0;
    node->intent_first = worker->intents.size;
    node->intent_length = bundle->intent_length;
    node->items_first = worker->items.size;
    node->transaction_first = worker->transactions.size;
    node->transaction_count = bundle->transaction_count;
    node->weight = bundle->weight;
    memcpy((uint32_t *)worker->intents.data + node->intent_first, bundle_intent(bundle),
           bundle->intent_length * sizeof(uint32_t));
    memcpy((uint32_t *)worker->items.data + node->items_first, bundle_items(bundle), bundle->item_count * sizeof(uint32_t));
    for (size_t t = 0; t < bundle->transaction_count; t++) {
        sparse_transaction *to = (sparse_transaction *)worker->transactions.data + node->transaction_first + t;
        *to = bundle->transactions[t];
        to->prefix_start += node->items_first;
        to->suffix_start += node->items_first;
    }
    worker->intents.size += bundle->intent_length;
    worker->items.size += bundle->item_count;
    worker->transactions.size += bundle->transaction_count;
    return 1;
}

static void expand_bundle(sparse_worker *worker, sparse_bundle *bundle)
{
    sparse_node node;
    worker->busy++;
    if (load_node(worker, bundle, &node)) {
        sparse_mark_intent(worker, worker, &node, 1);
        sparse_expand(worker, &node);
        sparse_mark_intent(worker, worker, &node, 0);
        sparse_truncate_to(worker, &node);
    }
    worker->busy--;
}

/* A task nested at a scheduling point inside its thread's own expansion (the runtime may run one
 * there) works on a worker of its own, whose results join the thread's worker afterwards. */
static void expand_nested(sparse_team *team, sparse_worker *owner, sparse_bundle *bundle)
{
    sparse_worker nested;
    parac_error error;
    parac_status status = sparse_worker_init(&nested, team->search, owner->concepts != NULL, &error);
    nested.spawn = owner->spawn;
    nested.spawn_data = owner->spawn_data;
    nested.stop = owner->stop;
    if (status == PARAC_OK) expand_bundle(&nested, bundle);
    else nested.status = status, nested.error = error;
    owner->count += nested.count;
    if (status == PARAC_OK && nested.status == PARAC_OK && owner->concepts)
        status = fca_concepts_take(owner->concepts, nested.concepts, &nested.error);
    if (status != PARAC_OK || nested.status != PARAC_OK) {
        if (owner->status == PARAC_OK) {
            owner->status = status != PARAC_OK ? status : nested.status;
            owner->error = nested.error;
        }
        atomic_store_explicit(&team->stop, 1, memory_order_relaxed);
    }
    sparse_worker_destroy(&nested);
}

static void run_bundle(sparse_team *team, sparse_bundle *bundle)
{
    sparse_worker *worker = &team->workers[omp_get_thread_num()];
    atomic_fetch_sub_explicit(&team->pending, 1, memory_order_relaxed);
    if (!atomic_load_explicit(&team->stop, memory_order_relaxed)) {
        if (worker->busy) expand_nested(team, worker, bundle);
        else expand_bundle(worker, bundle);
    }
    free(bundle);
}

static int spawn_child(sparse_worker *worker, const sparse_node *child)
{
    sparse_team *team = worker->spawn_data;
    sparse_bundle *bundle;
    /* while every thread still has root children to take, none is idle: nothing to hand out */
    if (atomic_load_explicit(&team->claiming, memory_order_relaxed) == team->threads) return 0;
    if (atomic_load_explicit(&team->pending, memory_order_relaxed) >= PENDING_PER_THREAD * team->threads) return 0;
    if (worker->items.size - child->items_first < SMALLEST_SPAWNED_CELLS) return 0;
    bundle = copy_node(worker, child);
    if (!bundle) return 0; /* no memory for a copy: expand in place */
    atomic_fetch_add_explicit(&team->pending, 1, memory_order_relaxed);
#pragma omp task default(none) firstprivate(team, bundle)
    run_bundle(team, bundle);
    return 1;
}

/* One thread's share of the root's children, taken from the team's counter. The root's failed
 * candidates hold for every node (each is below the root), so their witnesses are copied once. */
static void take_root_children(sparse_team *team, sparse_worker *worker)
{
    const sparse_worker *root_worker = &team->root_worker;
    const sparse_candidate *candidates = root_worker->candidates.data;
    const sparse_children *children = &team->root_children;
    for (size_t c = 0; c < children->count; c++)
        if (candidates[children->first + c].witness)
            worker->witness_of[candidates[children->first + c].attribute] = candidates[children->first + c].witness;
    sparse_mark_intent(worker, root_worker, &team->root, 1);
    worker->busy++;
    for (size_t c = atomic_fetch_add_explicit(&team->next_root_child, 1, memory_order_relaxed);
         c < children->count && !atomic_load_explicit(&team->stop, memory_order_relaxed) && worker->status == PARAC_OK;
         c = atomic_fetch_add_explicit(&team->next_root_child, 1, memory_order_relaxed)) {
        sparse_node child;
        if (candidates[children->first + c].witness ||
            !sparse_make_child(worker, root_worker, &team->root, children->first + c, &child)) {
            sparse_skip_child(worker, children->share);
            continue;
        }
        child.weight = children->share;
        if (!spawn_child(worker, &child)) sparse_expand_child(worker, root_worker, &team->root, &child);
        sparse_truncate_to(worker, &child);
    }
    worker->busy--;
}

/* Adds a worker's count and concepts to the run's; its first failure becomes the run's. */
static parac_status gather_worker(sparse_worker *worker, parac_status status, parac_fca_concepts *concepts,
                                  uint64_t *count, parac_error *error)
{
    *count += worker->count;
    if (status == PARAC_OK && worker->status != PARAC_OK) {
        status = worker->status;
        if (error) *error = worker->error;
    }
    if (status == PARAC_OK && concepts && worker->concepts) status = fca_concepts_take(concepts, worker->concepts, error);
    sparse_worker_destroy(worker);
    return status;
}

parac_status sparse_search_parallel(const fca_search *search, const sparse_rows *rows, int threads,
                                    parac_fca_concepts *concepts, uint64_t *count, parac_error *error)
{
    sparse_team team;
    parac_status status;
    int has_root;
    memset(&team, 0, sizeof team);
    team.search = search;
    team.threads = threads;
    atomic_init(&team.pending, 0);
    atomic_init(&team.stop, 0);
    atomic_init(&team.claiming, threads);
    atomic_init(&team.next_root_child, 0);
    *count = 0;
    team.workers = calloc((size_t)threads, sizeof *team.workers);
    if (!team.workers) return parac_fail_no_memory(error, "sparse FCbO workers", (unsigned long long)threads * sizeof *team.workers);
    status = sparse_worker_init(&team.root_worker, search, concepts != NULL, error);
    team.root_worker.stop = &team.stop;
    for (int t = 0; t < threads && status == PARAC_OK; t++) {
        status = sparse_worker_init(&team.workers[t], search, concepts != NULL, error);
        team.workers[t].spawn = spawn_child;
        team.workers[t].spawn_data = &team;
        team.workers[t].stop = &team.stop;
    }
    /* the root's database is built once: its cells are the whole context's, so a copy per thread
     * cost 16 x its memory, and 16 threads building it at once competed for memory bandwidth */
    has_root = status == PARAC_OK && sparse_make_root(&team.root_worker, rows, &team.root);
    if (has_root) {
        sparse_mark_intent(&team.root_worker, &team.root_worker, &team.root, 1);
        sparse_open_children(&team.root_worker, &team.root, &team.root_children);
        has_root = team.root_worker.status == PARAC_OK;
    }
    if (has_root) {
#pragma omp parallel num_threads(threads) default(none) shared(team)
        {
            take_root_children(&team, &team.workers[omp_get_thread_num()]);
            atomic_fetch_sub_explicit(&team.claiming, 1, memory_order_relaxed);
        } /* the region's barrier runs every task */
    }
    status = gather_worker(&team.root_worker, status, concepts, count, error);
    for (int t = 0; t < threads; t++) status = gather_worker(&team.workers[t], status, concepts, count, error);
    free(team.workers);
    return status;
}

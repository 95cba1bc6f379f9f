/* mpi/distributed_fca.c — FCbO over MPI ranks with work stealing (distributed_fca.h).
 *
 * Every rank searches depth first on its own worker, keeping each level's children it has not
 * started yet (its pending nodes: they live on the worker's stack, as in fcbo_on_demand.c). A rank
 * with nothing left asks another rank for work; the one asked gives its shallowest pending node
 * (nearest the root: usually the largest subtree it holds), packed into words, or answers "none". Who has finished is decided
 * by Safra's token ring (EWD998), below.
 *
 * Messages, all on a duplicate of the caller's communicator:
 *   REQUEST (empty)   an idle rank asks; it sends no other request until its answer came
 *   WORK (words)      the answer: one node (next attribute, extent, intent, FCbO's failed rows)
 *   NONE (empty)      the answer: nothing worth sending
 *   TOKEN (2 words)   Safra's token: the sum of (work sent - work received) so far, and its colour
 *   DONE (empty)      rank 0 to the others: the search is over
 * A busy rank looks for messages (MPI_Iprobe) every POLL_INTERVAL_NS; an idle one between naps, so
 * ranks that share cores (mpirun --oversubscribe) leave them to the busy ones. */
#include "mpi/distributed_fca.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "fca/fcbo_tree.h"
#include "mpi/cpu_time.h"

enum { TAG_REQUEST = 1, TAG_WORK, TAG_NONE, TAG_TOKEN, TAG_DONE };

#define POLL_NODES 16           /* a busy rank reads the clock every POLL_NODES nodes ... */
#define POLL_INTERVAL_NS 200000 /* ... and looks for requests once this long has passed since its last look.
                                  With mpi_yield_when_idle (oversubscribed runs) every MPI_Iprobe that finds
                                  nothing is a sched_yield: probing every 16 nodes raised a one-rank search's
                                  system time from 0.05-0.09 s to 0.17-0.27 s (3.3 M concepts), every 50 us
                                  made 18 000 yields a second (strace); at 200 us it is 0.08 s. The clock is
                                  a vDSO read. A busy victim answers within this much of its running time. */
#define SMALLEST_TAIL 3         /* a node with fewer attributes left is cheaper to expand than to send
                                  (steal_team.h's STEAL_SMALLEST_TAIL, for threads, is the same) */
#define NAP_SHORTEST_NS 20000   /* an idle rank's nap doubles from here while nothing arrives ... */
#define NAP_LONGEST_NS 500000   /* ... up to here, and starts again at the shortest after a message */

/* One level of the current task: its node's children, children[next..count) not started yet. */
typedef struct pending_level {
    fcbo_node **children;
    size_t count, next;
} pending_level;

typedef struct rank_search {
    MPI_Comm comm; /* the steal protocol's own (a duplicate): no tag meets the caller's messages */
    int rank, ranks;
    fcbo_worker *worker;
    pending_level *levels; /* attributes + 2: a path adds at least one attribute a level */
    size_t depth;
    unsigned since_poll;   /* nodes since the clock was read */
    uint64_t polled_ns;    /* when this rank last looked for messages */
    parac_word *packed;    /* one node as words, room for the largest (packed_words): sent or received */
    size_t packed_words;
    task_bundle *stolen;   /* the node received last, unpacked (fcbo_copy_node's layout) */
    long nap_ns;
    uint64_t random;       /* victim choice (xorshift) */
    /* waiting for an answer: 1 while asked, 2 when WORK came, 0 otherwise */
    int waiting;
    /* Safra: work messages sent minus received, colour (1 black: received work since the token left),
     * the token when held, and whether rank 0's probe is out. */
    int64_t balance;
    int black, has_token, probe_out, done;
    int64_t token_sum, token_black;
    mpi_fca_info *info;
} rank_search;

/* Words of a packed node: next attribute, nonzero count, weight; (word index, extent word) pairs;
 * the intent; failed rows next..attributes. */
static size_t packed_size(const fca_search *search, size_t nonzero_count, size_t next)
{
    size_t next_rows = next < search->attributes ? search->attributes - next : 0;
    return 3 + 2 * nonzero_count + search->attribute_words * (1 + next_rows);
}

static size_t pack_node(const fca_search *search, const fcbo_node *node, parac_word *out)
{
    size_t words = search->attribute_words, y = node->next_attribute, at = 3;
    size_t rows = y < search->attributes ? search->attributes - y : 0;
    out[0] = y, out[1] = node->nonzero_count, out[2] = node->weight;
    for (size_t i = 0; i < node->nonzero_count; i++) {
        out[at++] = node->nonzero_words[i];
        out[at++] = node->extent[node->nonzero_words[i]];
    }
    memcpy(out + at, node->intent, words * sizeof *out), at += words;
    if (rows) memcpy(out + at, node->failed + y * words, rows * words * sizeof *out), at += rows * words;
    return at;
}

/* Into s->stolen; 0 when the words are not a node of this search (a broken message). */
static int unpack_node(rank_search *s, const parac_word *in, size_t size)
{
    const fca_search *search = s->worker->search;
    fcbo_node *node = &s->stolen->node;
    size_t words = search->attribute_words, y, count, at = 3;
    if (size < 3) return 0;
    y = in[0], count = in[1];
    if (y > search->attributes || count > search->object_words || size != packed_size(search, count, y)) return 0;
    node->next_attribute = y, node->nonzero_count = count, node->weight = in[2];
    for (size_t i = 0; i < count; i++, at += 2) {
        if (in[at] >= search->object_words) return 0;
        node->nonzero_words[i] = (uint32_t)in[at];
        node->extent[in[at]] = in[at + 1];
    }
    memcpy(node->intent, in + at, words * sizeof *in), at += words;
    if (y < search->attributes) memcpy(node->failed + y * words, in + at, (search->attributes - y) * words * sizeof *in);
    return 1;
}

static uint64_t now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* A busy rank: every POLL_NODES nodes, the messages that came are handled if POLL_INTERVAL_NS passed. */
static int handle_message(rank_search *s);
static void poll_while_busy(rank_search *s)
{
    uint64_t now;
    if (++s->since_poll < POLL_NODES) return;
    s->since_poll = 0;
    if ((now = now_ns()) - s->polled_ns < POLL_INTERVAL_NS) return;
    s->polled_ns = now;
    while (handle_message(s)) {}
}

static void nap(rank_search *s)
{
    struct timespec pause = {0, s->nap_ns};
    nanosleep(&pause, NULL);
    if (s->nap_ns < NAP_LONGEST_NS) s->nap_ns *= 2;
}

/* Answers a request: the shallowest pending node that is worth sending (the first not started at
 * the lowest level with one; later siblings have shorter tails, so a level whose first has too short
 * a tail has none), or NONE. An idle rank has no levels and always answers NONE. */
static void answer_request(rank_search *s, int thief)
{
    const fca_search *search = s->worker->search;
    for (size_t d = 0; d < s->depth; d++) {
        pending_level *level = &s->levels[d];
        const fcbo_node *node;
        size_t size;
        if (level->next >= level->count) continue;
        node = level->children[level->next];
        if (node->next_attribute + SMALLEST_TAIL > search->attributes) continue;
        size = pack_node(search, node, s->packed);
        MPI_Send(s->packed, (int)size, MPI_UINT64_T, thief, TAG_WORK, s->comm);
        level->next++;
        s->balance++;
        s->info->nodes_given++;
        return;
    }
    MPI_Send(NULL, 0, MPI_BYTE, thief, TAG_NONE, s->comm);
}

/* Receives and handles one message if one is there; returns whether one was. */
static int handle_message(rank_search *s)
{
    int there = 0, size = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &there, &status);
    if (!there) return 0;
    if (status.MPI_TAG == TAG_WORK) {
        /* every rank sized packed for the largest node of the same context: a larger message would be
         * truncated, which MPI's default error handler turns into the job's end */
        MPI_Get_count(&status, MPI_UINT64_T, &size);
        MPI_Recv(s->packed, (int)s->packed_words, MPI_UINT64_T, status.MPI_SOURCE, TAG_WORK, s->comm, MPI_STATUS_IGNORE);
        s->balance--;
        s->black = 1;
        if (!unpack_node(s, s->packed, (size_t)size) && s->worker->status == PARAC_OK)
            s->worker->status = parac_fail(&s->worker->error, PARAC_ERR_INTERNAL, "fca: rank %d: a stolen node of "
                                           "%d words does not fit the context", s->rank, size);
        s->waiting = 2;
    } else if (status.MPI_TAG == TAG_TOKEN) {
        int64_t token[2];
        MPI_Recv(token, 2, MPI_INT64_T, status.MPI_SOURCE, TAG_TOKEN, s->comm, MPI_STATUS_IGNORE);
        s->token_sum = token[0], s->token_black = token[1], s->has_token = 1;
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, s->comm, MPI_STATUS_IGNORE);
        if (status.MPI_TAG == TAG_REQUEST) answer_request(s, status.MPI_SOURCE);
        else if (status.MPI_TAG == TAG_NONE) s->waiting = 0;
        else if (status.MPI_TAG == TAG_DONE) s->done = 1;
    }
    s->nap_ns = NAP_SHORTEST_NS;
    return 1;
}

/* Safra's rules for a passive rank that holds the token. Rank 0 starts a probe (itself white, the
 * token white with sum 0); every other rank adds its balance, blackens the token if it is black
 * itself, passes it on and turns white. When the token is back at a white rank 0, white, and its
 * sum plus rank 0's balance is 0, no rank is busy and no work is in flight: rank 0 sends DONE.
 * Otherwise rank 0 starts another probe. */
static void pass_token(rank_search *s)
{
    int64_t token[2];
    if (!s->has_token || s->done) return;
    s->has_token = 0;
    if (s->rank == 0) {
        if (s->ranks == 1 || (s->probe_out && !s->token_black && !s->black && s->token_sum + s->balance == 0)) {
            for (int r = 1; r < s->ranks; r++) MPI_Send(NULL, 0, MPI_BYTE, r, TAG_DONE, s->comm);
            s->done = 1;
            return;
        }
        s->black = 0, s->probe_out = 1;
        token[0] = 0, token[1] = 0;
    } else {
        token[0] = s->token_sum + s->balance, token[1] = s->token_black || s->black;
        s->black = 0;
    }
    MPI_Send(token, 2, MPI_INT64_T, (s->rank + 1) % s->ranks, TAG_TOKEN, s->comm);
}

static void expand_node(rank_search *s, const fcbo_node *node);

/* The children of one node (or this rank's share of the root's), depth first; before each, the
 * messages that came may be handled (poll_while_busy: requests answered from the levels). */
static void search_children(rank_search *s, fcbo_node **children, size_t count)
{
    pending_level *level = &s->levels[s->depth++];
    level->children = children, level->count = count, level->next = 0;
    while (level->next < level->count && s->worker->status == PARAC_OK) {
        const fcbo_node *child = children[level->next++];
        poll_while_busy(s);
        expand_node(s, child);
    }
    s->depth--;
}

static void expand_node(rank_search *s, const fcbo_node *node)
{
    fcbo_stack_mark mark = fcbo_stack_save(&s->worker->stack);
    fcbo_node **children = NULL;
    size_t count = fcbo_open_node(s->worker, node, &children);
    if (count) search_children(s, children, count);
    fcbo_stack_restore(&s->worker->stack, mark);
}

static int pick_victim(rank_search *s)
{
    s->random ^= s->random << 13, s->random ^= s->random >> 7, s->random ^= s->random << 17;
    return (int)((uint64_t)s->rank + 1 + s->random % (uint64_t)(s->ranks - 1)) % s->ranks;
}

/* Idle: pass the token on, ask random ranks for work and search what comes, until DONE. Returns at
 * once when the worker failed (the caller aborts the job). */
static void steal_until_done(rank_search *s)
{
    double idle_since = MPI_Wtime();
    while (!s->done && s->worker->status == PARAC_OK) {
        pass_token(s);
        if (s->done) break;
        MPI_Send(NULL, 0, MPI_BYTE, pick_victim(s), TAG_REQUEST, s->comm);
        s->info->requests++;
        for (s->waiting = 1; s->waiting == 1;) {
            if (!handle_message(s)) nap(s);
            if (s->waiting == 1) pass_token(s); /* not with a stolen node in hand: busy again */
        }
        if (s->waiting == 2 && s->worker->status == PARAC_OK) {
            s->info->seconds_idle += MPI_Wtime() - idle_since;
            s->info->steals++;
            s->since_poll = 0;
            expand_node(s, &s->stolen->node);
            idle_since = MPI_Wtime();
        }
        s->waiting = 0;
    }
    s->info->seconds_idle += MPI_Wtime() - idle_since;
}

/* After DONE: answer (NONE) whatever requests are still coming until every rank got here; a rank
 * enters the barrier only once its own last request was answered, so none is left unanswered. */
static void drain(rank_search *s)
{
    MPI_Request barrier;
    int complete = 0;
    MPI_Ibarrier(s->comm, &barrier);
    for (;;) {
        MPI_Test(&barrier, &complete, MPI_STATUS_IGNORE);
        if (complete) break;
        if (!handle_message(s)) nap(s);
    }
}

/* Opens the root on every rank (the same children everywhere; its concept is rank 0's), keeps
 * children r, r + R, r + 2R, ... and searches them, then steals until the search is over. */
static void search_shared(rank_search *s)
{
    fcbo_worker *worker = s->worker;
    fcbo_node root, **children = NULL;
    parac_fca_concepts *kept = worker->concepts;
    size_t count = 0, mine = 0;
    fcbo_stack_mark mark = fcbo_stack_save(&worker->stack);
    if (fcbo_make_root(worker, &root)) {
        if (s->rank != 0) worker->concepts = NULL; /* the root concept is rank 0's */
        count = fcbo_open_node(worker, &root, &children);
        worker->concepts = kept;
        if (s->rank != 0) worker->count--;
    }
    s->info->subtrees = count;
    for (size_t i = (size_t)s->rank; i < count; i += (size_t)s->ranks) children[mine++] = children[i];
    if (mine) search_children(s, children, mine);
    fcbo_stack_restore(&worker->stack, mark);
    if (worker->status != PARAC_OK) return;
    steal_until_done(s);
    if (worker->status == PARAC_OK && s->ranks > 1) drain(s);
}

/* The steal protocol's buffers: a packed node of the largest size and one unpacked node. */
static parac_status rank_search_init(rank_search *s, MPI_Comm comm, fcbo_worker *worker, mpi_fca_info *info,
                                     parac_error *error)
{
    const fca_search *search = worker->search;
    size_t object_words = search->object_words, words = search->attribute_words, n = search->attributes;
    size_t list_words = fcbo_words_for(object_words, sizeof(uint32_t));
    memset(s, 0, sizeof *s);
    s->comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->ranks);
    s->worker = worker, s->info = info;
    s->has_token = s->rank == 0;
    s->nap_ns = NAP_SHORTEST_NS;
    s->random = 0x9e3779b97f4a7c15ull * (uint64_t)(s->rank + 1);
    s->packed_words = packed_size(search, object_words, 0);
    s->packed = malloc(s->packed_words * sizeof *s->packed);
    s->levels = malloc((n + 2) * sizeof *s->levels);
    s->stolen = malloc(sizeof *s->stolen + (object_words + list_words + words + (n ? n : 1) * words) * sizeof(parac_word));
    if (!s->packed || !s->levels || !s->stolen)
        return parac_fail_no_memory(error, "FCbO steal buffers", s->packed_words * 16);
    s->stolen->node.extent = s->stolen->words;
    s->stolen->node.nonzero_words = (uint32_t *)(s->stolen->words + object_words);
    s->stolen->node.intent = s->stolen->words + object_words + list_words;
    s->stolen->node.failed = s->stolen->node.intent + words;
    MPI_Comm_dup(comm, &s->comm);
    return PARAC_OK;
}

/* free_comm 0 after a failure: MPI_Comm_free is collective and the other ranks may be searching still
 * (the caller aborts the job). */
static void rank_search_destroy(rank_search *s, int free_comm)
{
    if (free_comm && s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
    free(s->packed);
    free(s->levels);
    free(s->stolen);
}

/* Rank 0 appends every other rank's intents (original ids, original_words words each). */
static parac_status gather_concepts(MPI_Comm comm, parac_fca_concepts *mine, parac_error *error)
{
    int rank, ranks;
    size_t words = mine->attribute_words;
    parac_status status = PARAC_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    if (rank != 0) {
        uint64_t count = mine->count;
        MPI_Send(&count, 1, MPI_UINT64_T, 0, 10, comm);
        for (size_t done = 0; done < mine->count;) { /* in pieces within an int count of words */
            size_t piece = mine->count - done, limit = (size_t)INT_MAX / (words ? words : 1);
            piece = piece < limit ? piece : limit;
            MPI_Send(mine->intents + done * words, (int)(piece * words), MPI_UINT64_T, 0, 11, comm);
            done += piece;
        }
        return PARAC_OK;
    }
    for (int r = 1; r < ranks; r++) {
        uint64_t count;
        parac_word *intents;
        MPI_Recv(&count, 1, MPI_UINT64_T, r, 10, comm, MPI_STATUS_IGNORE);
        intents = malloc((size_t)count * words * sizeof(parac_word) + 8);
        if (!intents) return parac_fail_no_memory(error, "gathered concepts", count * words * 8);
        for (size_t done = 0; done < count;) {
            size_t piece = (size_t)count - done, limit = (size_t)INT_MAX / (words ? words : 1);
            piece = piece < limit ? piece : limit;
            MPI_Recv(intents + done * words, (int)(piece * words), MPI_UINT64_T, r, 11, comm, MPI_STATUS_IGNORE);
            done += piece;
        }
        for (size_t c = 0; c < count && status == PARAC_OK; c++)
            status = fca_concepts_append(mine, intents + c * words, error);
        free(intents);
        if (status != PARAC_OK) return status;
    }
    return PARAC_OK;
}

parac_status mpi_fca_run(MPI_Comm comm, const parac_fca_context *context, uint64_t min_support, int sort_threads,
                         parac_fca_concepts **concepts, uint64_t *count, mpi_fca_info *info, parac_error *error)
{
    fca_search search;
    fcbo_worker worker;
    rank_search shared;
    uint64_t found = 0;
    int rank;
    double clock = MPI_Wtime(), cpu = mpi_process_cpu_seconds();
    parac_status status;
    MPI_Comm_rank(comm, &rank);
    memset(info, 0, sizeof *info);
    memset(&shared, 0, sizeof shared);
    if (concepts) *concepts = NULL;
    if ((status = fca_search_create(context, min_support, &search, error)) != PARAC_OK) return status;
    status = fcbo_worker_init(&worker, &search, concepts != NULL, error);
    if (status == PARAC_OK) status = rank_search_init(&shared, comm, &worker, info, error);
    if (status == PARAC_OK) {
        search_shared(&shared);
        if ((status = worker.status) != PARAC_OK && error) *error = worker.error;
    }
    info->concepts_here = worker.count;
    info->seconds_search = MPI_Wtime() - clock, clock = MPI_Wtime();
    info->cpu_seconds_search = mpi_process_cpu_seconds() - cpu;
    if (status != PARAC_OK) goto done; /* the caller aborts the job */
    MPI_Reduce(&worker.count, &found, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
    if (concepts) status = gather_concepts(comm, worker.concepts, error);
    if (status == PARAC_OK && rank == 0) status = fca_search_finish(&search, worker.concepts, &found, error);
    if (status == PARAC_OK && rank == 0 && concepts) {
        status = fca_concepts_sort(worker.concepts, sort_threads, error);
        if (status == PARAC_OK) {
            *concepts = worker.concepts; /* handed over: the worker must not release it */
            worker.concepts = NULL;
        }
    }
    if (status != PARAC_OK) goto done;
    MPI_Bcast(&found, 1, MPI_UINT64_T, 0, comm);
    *count = found;
    info->seconds_gather = MPI_Wtime() - clock;
done:
    rank_search_destroy(&shared, status == PARAC_OK);
    fcbo_worker_destroy(&worker);
    fca_search_destroy(&search);
    return status;
}

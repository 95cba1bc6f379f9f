/* mpi/distributed_fca.c — first-level FCbO subtrees handed out over MPI (distributed_fca.h). */
#include "mpi/distributed_fca.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fcbo_tree.h"

/* The next subtree index from the shared counter on rank 0. */
static uint64_t next_subtree(MPI_Win counter)
{
    uint64_t one = 1, taken = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, counter);
    MPI_Fetch_and_op(&one, &taken, MPI_UINT64_T, 0, 0, MPI_SUM, counter);
    MPI_Win_unlock(0, counter);
    return taken;
}

/* Opens the root (emitting its concept on rank 0 only) and searches the subtrees the counter hands
 * this rank. */
static void search_subtrees(MPI_Comm comm, fcbo_worker *worker, mpi_fca_info *info)
{
    int rank;
    fcbo_node root, **children = NULL;
    parac_fca_concepts *kept = worker->concepts;
    uint64_t *counter_memory = NULL;
    size_t count = 0;
    MPI_Win counter;
    MPI_Comm_rank(comm, &rank);
    if (fcbo_make_root(worker, &root)) {
        if (rank != 0) worker->concepts = NULL; /* the root concept is rank 0's */
        count = fcbo_open_node(worker, &root, &children);
        worker->concepts = kept;
        if (rank != 0) worker->count--;
    }
    MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof(uint64_t) : 0, sizeof(uint64_t), MPI_INFO_NULL, comm,
                     &counter_memory, &counter);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, counter);
        *counter_memory = 0;
        MPI_Win_unlock(0, counter);
    }
    MPI_Barrier(comm); /* the counter is zero before anyone takes from it */
    info->subtrees = count;
    for (uint64_t next = next_subtree(counter); next < count && worker->status == PARAC_OK; next = next_subtree(counter)) {
        fcbo_expand(worker, children[next]);
        info->subtrees_here++;
    }
    MPI_Barrier(comm); /* nobody frees the window while another rank still takes from it */
    MPI_Win_free(&counter);
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

parac_status mpi_fca_run(MPI_Comm comm, const parac_fca_context *context, uint64_t min_support,
                         parac_fca_concepts **concepts, uint64_t *count, mpi_fca_info *info, parac_error *error)
{
    fca_search search;
    fcbo_worker worker;
    uint64_t found = 0;
    int rank;
    double clock = MPI_Wtime();
    parac_status status;
    MPI_Comm_rank(comm, &rank);
    memset(info, 0, sizeof *info);
    if (concepts) *concepts = NULL;
    if ((status = fca_search_create(context, min_support, &search, error)) != PARAC_OK) return status;
    status = fcbo_worker_init(&worker, &search, concepts != NULL, error);
    if (status == PARAC_OK) {
        search_subtrees(comm, &worker, info);
        if ((status = worker.status) != PARAC_OK && error) *error = worker.error;
    }
    info->concepts_here = worker.count;
    info->seconds_search = MPI_Wtime() - clock, clock = MPI_Wtime();
    if (status != PARAC_OK) goto done; /* the caller aborts the job */
    MPI_Reduce(&worker.count, &found, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
    if (concepts) status = gather_concepts(comm, worker.concepts, error);
    if (status == PARAC_OK && rank == 0) status = fca_search_finish(&search, worker.concepts, &found, error);
    if (status == PARAC_OK && rank == 0 && concepts) {
        status = fca_concepts_sort(worker.concepts, 1, error);
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
    fcbo_worker_destroy(&worker);
    fca_search_destroy(&search);
    return status;
}

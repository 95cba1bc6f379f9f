/* mpi/distributed_fca.h — FCbO over the ranks of an MPI communicator: the same concepts as one process.
 *
 * Every rank reads the whole context (contexts are small next to their concept sets) and opens the
 * root of the FCbO tree itself (the same first-level children everywhere: the search is
 * deterministic); rank r starts with children r, r + R, r + 2R, ... Then the tree is shared by work
 * stealing: each rank searches depth first and keeps the children it has not started yet; a rank
 * with nothing left asks a random other rank, which gives its shallowest pending node (extent,
 * intent and FCbO's failed sets, packed into words) or answers that it has none; Safra's token ring
 * tells rank 0 when no rank is busy and no node is in flight (distributed_fca.c). Counts are summed
 * with MPI_Reduce; stored concepts are gathered on rank 0 and put in canonical order
 * (fca_concepts_sort), so the output is `parac fca`'s byte for byte. Uses the fca module's internal
 * search (fca/fcbo_tree.h): the public API has no entry point that runs one node's subtree.
 *
 * Errors are returned; a failure on one rank leaves the others searching or in a collective: the
 * caller aborts.
 */
#ifndef PARAC_MPI_DISTRIBUTED_FCA_H
#define PARAC_MPI_DISTRIBUTED_FCA_H

#include <mpi.h>
#include <stdint.h>

#include <parac/fca.h>

typedef struct mpi_fca_info {
    uint64_t subtrees;       /* first-level subtrees (dealt out round robin at the start) */
    uint64_t steals;         /* nodes this rank received from others */
    uint64_t nodes_given;    /* nodes this rank gave away */
    uint64_t requests;       /* requests for work this rank sent (answered with a node or none) */
    uint64_t concepts_here;  /* concepts this rank found */
    double seconds_search;   /* this rank's search, waiting for the end included */
    double seconds_idle;     /* of which with nothing to search (asking, waiting, the end) */
    double cpu_seconds_search; /* the process's CPU time in the search (a shared machine's wall time is not the work) */
    double seconds_gather;   /* collecting counts and concepts on rank 0 */
} mpi_fca_info;

/* Collective. count (rank 0; every rank gets it) = the number of concepts with at least min_support
 * objects. When concepts is not NULL, rank 0 gets them all in canonical order in *concepts
 * (release with parac_fca_concepts_destroy; NULL on other ranks), sorted there on sort_threads
 * threads (core/threads.h; the search itself runs one thread a rank). */
parac_status mpi_fca_run(MPI_Comm comm, const parac_fca_context *context, uint64_t min_support, int sort_threads,
                         parac_fca_concepts **concepts, uint64_t *count, mpi_fca_info *info, parac_error *error);

#endif

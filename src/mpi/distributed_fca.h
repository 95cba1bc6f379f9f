/* mpi/distributed_fca.h — FCbO over the ranks of an MPI communicator: the same concepts as one process.
 *
 * Every rank reads the whole context (contexts are small next to their concept sets) and opens the
 * root of the FCbO tree itself (the same first-level children everywhere: the search is
 * deterministic). The first level's subtrees are then handed out dynamically: a counter on rank 0
 * (an MPI window, MPI_Fetch_and_op) gives each rank that finishes a subtree the next one, so a few
 * huge subtrees do not leave ranks idle behind a static split. Counts are summed with MPI_Reduce;
 * stored concepts are gathered on rank 0 and put in canonical order (fca_concepts_sort), so the output
 * is `parac fca`'s byte for byte. Uses the fca module's internal search (fca/fcbo_tree.h): the public
 * API has no entry point that runs one subtree.
 *
 * Errors are returned; a failure on one rank leaves the others in a collective: the caller aborts.
 */
#ifndef PARAC_MPI_DISTRIBUTED_FCA_H
#define PARAC_MPI_DISTRIBUTED_FCA_H

#include <mpi.h>
#include <stdint.h>

#include <parac/fca.h>

typedef struct mpi_fca_info {
    uint64_t subtrees;       /* first-level subtrees handed out */
    uint64_t subtrees_here;  /* of which this rank searched */
    uint64_t concepts_here;  /* concepts this rank found */
    double seconds_search;   /* this rank's search */
    double seconds_gather;   /* collecting counts and concepts on rank 0 */
} mpi_fca_info;

/* Collective. count (rank 0; every rank gets it) = the number of concepts with at least min_support
 * objects. When concepts is not NULL, rank 0 gets them all in canonical order in *concepts
 * (release with parac_fca_concepts_destroy; NULL on other ranks). */
parac_status mpi_fca_run(MPI_Comm comm, const parac_fca_context *context, uint64_t min_support,
                         parac_fca_concepts **concepts, uint64_t *count, mpi_fca_info *info, parac_error *error);

#endif

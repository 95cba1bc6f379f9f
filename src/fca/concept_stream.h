/* fca/concept_stream.h — the spill behind parac_fca_enumerate (concept_stream.c), for the files of
 * the fca module that stream concepts (the lattice). */
#ifndef PARAC_FCA_CONCEPT_STREAM_H
#define PARAC_FCA_CONCEPT_STREAM_H

#include <stdint.h>

#include "fca/fca_internal.h"

/* The default of options->max_host_bytes: a quarter of the memory this process may use
 * (parac_host_memory_limit: physical memory, or less under an rlimit or a cgroup limit). */
uint64_t fca_default_host_budget(void);

/* A spill for intents of `attributes` bits, each of at most longest_row of them but every
 * attribute (the records: fca_record_format_for): stores get budget / 2 among threads + 1 of them,
 * the merge budget / 2; runs go to directory (NULL: $TMPDIR, else /tmp). */
parac_status fca_concept_spill_create(size_t attributes, size_t longest_row, uint64_t budget, int threads,
                                      const char *directory, fca_concept_spill **spill, parac_error *error);
void fca_concept_spill_destroy(fca_concept_spill *spill); /* NULL is accepted */

/* Lindig's neighbour test (lattice.c), shared by parac_fca_lattice_create and the streamed lattice:
 * scratch for one thread, and the lower covers of one intent (attribute_words words, at least one),
 * each closure handed to found (its buffer is the scratch's); the first non-zero from found stops
 * the walk and is returned. Covers whose extent is below min_support are skipped. */
typedef struct fca_cover_scratch {
    parac_word *extent, *child_extent, *closure, *minimal;
    uint64_t *support; /* per attribute, zero between uses: supports counted from the extent's rows */
    uint32_t *members; /* the extent's objects, when its rows are walked */
    uint32_t *touched; /* the attributes those rows hold, ascending (touched_count of them) */
    size_t touched_count;
} fca_cover_scratch;
typedef int (*fca_cover_fn)(void *user, const parac_word *closure);
int fca_cover_scratch_init(fca_cover_scratch *scratch, const parac_fca_context *context); /* -1: no memory */
void fca_cover_scratch_free(fca_cover_scratch *scratch);
int fca_lower_covers(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                     fca_cover_scratch *scratch, fca_cover_fn found, void *user);

#endif

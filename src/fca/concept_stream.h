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

/* Where a streamed run's records go, in canonical order (fca_stream_records): start is told their
 * format before the search; take gets a record that stays where it is until finish has returned
 * (lasts 1) or only during the call (0), take_transient one valid during the call; non-zero from
 * either stops the run (PARAC_ERR_CANCELLED). finish (may be NULL) follows the last record. */
typedef struct fca_record_sink {
    parac_status (*start)(void *self, const fca_record_format *format, parac_error *error);
    int (*take)(void *self, const parac_word *record, int lasts);
    int (*take_transient)(void *self, const void *record);
    parac_status (*finish)(void *self, parac_error *error);
    void *self;
} fca_record_sink;

/* The search, its records spilled beyond options->max_host_bytes (default fca_default_host_budget)
 * and handed to sink in canonical order: parac_fca_enumerate and parac_fca_write_text. */
parac_status fca_stream_records(const parac_fca_context *context, const parac_fca_options *options,
                                const fca_record_sink *sink, parac_error *error);

/* Lindig's neighbour test (lattice.c), shared by parac_fca_lattice_create and the streamed lattice:
 * scratch for one thread, and the lower covers of one intent (attribute_words words, at least one),
 * each closure handed to found (its buffer is the scratch's); the first non-zero from found stops
 * the walk and is returned. Covers whose extent is below min_support are skipped. */
/* The cells-based test's own scratch (lattice_cells.c), set up only for contexts it runs on. */
typedef struct fca_cover_cells {
    uint32_t *intent_ids;    /* the intent's ids */
    uint32_t *slot_of;       /* attribute -> its list among the touched ones */
    size_t *list_offsets;    /* touched + 1: each touched attribute's members in lists */
    uint32_t *lists, *closure_count, *closure_ids;
    size_t list_capacity;
} fca_cover_cells;

typedef struct fca_cover_scratch {
    parac_word *extent, *child_extent, *closure, *minimal;
    uint64_t *support; /* per attribute, zero between uses: supports counted from the extent's rows */
    uint32_t *members; /* the extent's objects, when its rows are walked */
    uint32_t *touched; /* the attributes those rows hold (touched_count of them) */
    size_t touched_count;
    fca_cover_cells cells;
    /* equal columns (fca_context_groups, NULL when it could not be built): of a group outside the
     * intent only the last member can give a cover, and it gives the same closure as every other
     * member (all are in it), so the others are dropped from `minimal` unclosed (fca_cover_skips) */
    const struct fca_column_groups *groups;
} fca_cover_scratch;

/* 1 (and m dropped from scratch->minimal) when candidate m is a group's member other than its last:
 * walked in ascending order, its closure holds the last member, still minimal, so it is no cover. */
int fca_cover_skips(fca_cover_scratch *scratch, size_t m);
typedef int (*fca_cover_fn)(void *user, const parac_word *closure);
int fca_cover_scratch_init(fca_cover_scratch *scratch, const parac_fca_context *context); /* -1: no memory */
void fca_cover_scratch_free(fca_cover_scratch *scratch);
int fca_lower_covers(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                     fca_cover_scratch *scratch, fca_cover_fn found, void *user);
/* counts[a] += the members whose row holds a (counts zero for every attribute before), and each
 * attribute met listed once in touched (unordered); returns how many were met. The one count of
 * attributes over object rows: the covers, --verify's closure test and the implications' closures
 * read the cells with it; the caller zeroes counts[touched[..]] after. */
size_t fca_count_row_attributes(const parac_fca_context *context, const uint32_t *members, size_t count,
                                uint64_t *counts, uint32_t *touched);
/* Adds (add 1) or takes back (add 0: zeroes) each attribute's count over the members' rows into
 * scratch->support; adding lists the attributes met in scratch->touched (unordered). */
void fca_count_supports(const parac_fca_context *context, const uint32_t *members, size_t count,
                        fca_cover_scratch *scratch, int add);

/* The covers' last case: with min_support 0, the concept with an empty extent (every attribute) is
 * a lower cover exactly when no candidate attribute was left (none beyond the intent occurs in the
 * extent's rows) and the intent is not every attribute already; hands it to found then, else 0. */
int fca_cover_empty_extent(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                           size_t candidates, fca_cover_scratch *scratch, fca_cover_fn found, void *user);

/* lattice_cells.c: 1 when the covers are found from the cells, not the bit matrices (which would be
 * large against the cells); the entry points then build the column lists instead of the matrices.
 * fca_lower_covers takes that way by itself; -2 from it: out of memory. */
int fca_covers_use_cells(const parac_fca_context *context);
int fca_lower_covers_cells(const parac_fca_context *context, const parac_word *intent, uint64_t min_support,
                           fca_cover_scratch *scratch, fca_cover_fn found, void *user);
int fca_cover_cells_init(fca_cover_cells *cells, const parac_fca_context *context); /* -1: no memory */
/* The objects having every id (ascending, each below the attribute count): the shortest column
 * filtered by the rows; writes up to capacity of them, returns how many there are. */
size_t fca_extent_from_cells(const parac_fca_context *context, const fca_column_lists *columns, const uint32_t *ids,
                             size_t size, uint32_t *out, size_t capacity);
void fca_cover_cells_free(fca_cover_cells *cells);
/* The context's bit matrices or, where covers come from the cells, its column lists (what
 * fca_lower_covers needs); NULL after filling error. */
const void *fca_cover_index(const parac_fca_context *context, parac_error *error);

#endif

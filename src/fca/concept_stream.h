/* fca/concept_stream.h — the spill behind parac_fca_enumerate (concept_stream.c), for the files of
 * the fca module that stream concepts (the lattice). */
#ifndef PARAC_FCA_CONCEPT_STREAM_H
#define PARAC_FCA_CONCEPT_STREAM_H

#include <stdint.h>

#include "fca/fca_internal.h"

/* The default of options->max_host_bytes: a quarter of physical memory (1 GiB when unknown). */
uint64_t fca_default_host_budget(void);

/* A spill for intents of `attributes` bits: stores get budget / 2 among threads + 1 of them, the
 * merge budget / 2; runs go to directory (NULL: $TMPDIR, else /tmp). */
parac_status fca_concept_spill_create(size_t attributes, uint64_t budget, int threads, const char *directory,
                                      fca_concept_spill **spill, parac_error *error);
void fca_concept_spill_destroy(fca_concept_spill *spill); /* NULL is accepted */

#endif

/* tests/fca/support_fca.h — helpers the fca tests share. */
#ifndef PARAC_TEST_SUPPORT_FCA_H
#define PARAC_TEST_SUPPORT_FCA_H

#include <stddef.h>
#include <stdint.h>

#include <parac/fca.h>

/* A random context with some empty rows/columns and duplicate rows mixed in. */
/* A context from the shared data set ($PARAC_DATA/fca/NAME); NULL (and a failed check) if unreadable. */
parac_fca_context *fca_test_read_shared(const char *name);

parac_fca_context *fca_test_random_context(size_t objects, size_t attributes, double density, uint64_t seed);
/* Concepts with the given device and threads (asserting success); NULL on failure. */
parac_fca_concepts *fca_test_compute(const parac_fca_context *context, parac_device device, int threads,
                                     uint64_t min_support);
/* 1 when both lists hold the same intents in the same order. */
int fca_test_same_concepts(const parac_fca_concepts *a, const parac_fca_concepts *b);

#endif

/* parac/fca.h — formal concept analysis: all formal concepts of a binary
 * context with FCbO (Outrata & Vychodil 2012), on one CPU thread, on all
 * cores, or on a GPU, with one answer; and the covering edges of the lattice.
 *
 * A formal context is a binary relation between objects (rows) and
 * attributes (columns). A concept is a pair (A, B): A a set of objects, B a
 * set of attributes, B = the attributes every object of A has (A') and
 * A = the objects having every attribute of B (B'). Concepts are reported by
 * their intent B; the extent A is derived on demand.
 *
 * Memory: every create/read function hands out a handle the caller frees
 * with the matching destroy. Buffers passed in are caller-owned and only
 * read during the call. Handles are not shared between threads while one of
 * them writes; the library keeps no global state and never prints.
 *
 * Order: parac_fca_compute returns concepts in one canonical order,
 * lexicographic by the ascending list of intent attribute ids (so the top
 * concept, with the smallest intent, usually comes first). The order and
 * contents do not depend on device or thread count.
 */
#ifndef PARAC_FCA_H
#define PARAC_FCA_H

#include <stddef.h>
#include <stdint.h>

#include "exec.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- contexts ------------------------------------------------------------ */

typedef enum parac_fca_format {
    PARAC_FCA_FORMAT_AUTO = 0, /* by extension: .cxt Burmeister, .csv/.tsv 0/1 matrix, anything else FIMI */
    PARAC_FCA_FORMAT_FIMI,     /* one object per line, attribute ids separated by blanks */
    PARAC_FCA_FORMAT_CXT,      /* Burmeister: B, counts, names, rows of 'X' and '.' */
    PARAC_FCA_FORMAT_CSV       /* 0/1 matrix, ',' or tab separated, optional header row/column of names */
} parac_fca_format;

typedef struct parac_fca_context parac_fca_context;

/* Largest attribute id accepted in a FIMI file (ids 0..PARAC_FCA_MAX_ATTRIBUTE_ID). */
#define PARAC_FCA_MAX_ATTRIBUTE_ID 1000000
/* Largest context, in cells (objects x attributes): 2^34, a 2 GiB bit matrix
 * (held twice, by rows and by columns). A file, or a call, asking for more is
 * refused (PARAC_ERR_PARSE naming the file for a reader, PARAC_ERR_INVALID_ARGUMENT
 * for a call) instead of allocating it: a 7 MB FIMI file of a million lines
 * "999999" would otherwise ask for 250 GB. .cxt counts are at most 10^8 each. */
#define PARAC_FCA_MAX_CONTEXT_CELLS ((uint64_t)1 << 34)

/* Reads a context (plain or .gz). FIMI ids are kept as written: a file whose
 * ids are 1..m has attributes 0..m, attribute 0 belonging to no object (it
 * changes no count: it only joins the bottom concept's intent). Lines are
 * objects; an empty line is an object with no attributes; '#' starts a
 * comment line. Fails with PARAC_ERR_PARSE and "file:line: problem" on a
 * non-integer token, a negative or absurd id, an inconsistent .cxt (counts
 * that disagree with the names and rows that follow), a cell other than 0/1
 * (CSV) or X/. (.cxt), a truncated or empty file, a context above
 * PARAC_FCA_MAX_CONTEXT_CELLS, a line above 64 MiB; PARAC_ERR_IO when the file
 * cannot be read. CRLF line ends and a UTF-8 byte-order mark are accepted. */
parac_status parac_fca_context_read(const char *path, parac_fca_format format, parac_fca_context **context,
                                    parac_error *error);
/* The same from size bytes at data (plain text, or gzip-compressed: bytes starting with the gzip
 * magic are inflated in memory), with the same rules and messages. name stands for the file name in
 * messages ("name:line: problem"; NULL gives "<memory>") and, with PARAC_FCA_FORMAT_AUTO, chooses
 * the format by its extension as a path would. The bytes are only read during the call. */
parac_status parac_fca_context_read_memory(const void *data, size_t size, const char *name, parac_fca_format format,
                                           parac_fca_context **context, parac_error *error);

/* A context from a row-major objects x attributes matrix of 0/1 bytes
 * (nonzero = the object has the attribute). cells may be NULL when
 * objects * attributes == 0. */
parac_status parac_fca_context_create(size_t objects, size_t attributes, const uint8_t *cells,
                                      parac_fca_context **context, parac_error *error);

/* A random context: each cell is 1 with probability density, reproducible
 * from seed on every machine. */
parac_status parac_fca_context_random(size_t objects, size_t attributes, double density, uint64_t seed,
                                      parac_fca_context **context, parac_error *error);

/* Writes the context as FIMI (0-based ids, one object per line). */
parac_status parac_fca_context_write_fimi(const parac_fca_context *context, const char *path, parac_error *error);

void parac_fca_context_destroy(parac_fca_context *context); /* NULL is accepted */

size_t parac_fca_context_objects(const parac_fca_context *context);
size_t parac_fca_context_attributes(const parac_fca_context *context);
/* 1 when object has attribute. */
int parac_fca_context_has(const parac_fca_context *context, size_t object, size_t attribute);
/* Names from .cxt or CSV headers; NULL when the file had none. Owned by the context. */
const char *parac_fca_context_object_name(const parac_fca_context *context, size_t object);
const char *parac_fca_context_attribute_name(const parac_fca_context *context, size_t attribute);

/* ---- concepts -------------------------------------------------------------- */

/* How the GPU walks the search tree (every strategy gives the same concepts). */
typedef enum parac_fca_gpu_strategy {
    PARAC_FCA_GPU_AUTO = 0,      /* the current best: PARAC_FCA_GPU_LOCAL_ROWS */
    PARAC_FCA_GPU_ROUNDS,        /* one node per warp per kernel round; every child goes back to the pool */
    PARAC_FCA_GPU_LOCAL,         /* each warp finishes subtrees depth-first in its own stack and pushes
                                    children back to the pool only while other warps are idle */
    PARAC_FCA_GPU_LOCAL_ROWS,    /* LOCAL, closing C' as the AND of C's object rows instead of testing
                                    every attribute column (cheaper for small extents) */
    PARAC_FCA_GPU_LOCAL_STREAM,  /* LOCAL_ROWS with a per-block shared-memory queue of batch tasks and,
                                    when concepts are stored, output streamed back in batches (two
                                    device buffers, pinned host buffers, a copy stream) while the next
                                    round computes; counting downloads nothing but counters */
    PARAC_FCA_GPU_LOCAL_STAGED   /* LOCAL_ROWS buffering the children a warp pushes to the pool in a
                                    shared-memory slot (2-8 of them) and writing them as one burst;
                                    runs as LOCAL_ROWS when two children do not fit in 6,000 bytes */
} parac_fca_gpu_strategy;

/* How the CPU threads share the tree (same concepts either way). */
typedef enum parac_fca_cpu_strategy {
    PARAC_FCA_CPU_AUTO = 0,      /* the measured best: PARAC_FCA_CPU_ON_DEMAND */
    PARAC_FCA_CPU_SHARED_POOL,   /* tasks borrow scratch from a locked pool of workers */
    PARAC_FCA_CPU_PER_THREAD,    /* one cache-line-aligned worker per thread, no lock on the task path */
    PARAC_FCA_CPU_WORK_STEALING, /* a locked deque per thread: the owner works newest-first, idle
                                    threads steal the oldest half; spawns only while a thread is idle
                                    or its deque is nearly empty */
    PARAC_FCA_CPU_ON_DEMAND      /* the same deques, but a thread recurses in place and copies a node
                                    (the pending one nearest the root) only while some thread is idle
                                    and its deque is empty: no copies while every thread is busy */
} parac_fca_cpu_strategy;

/* An execution handle: keeps a GPU context (stream, memory pool) alive
 * between runs so repeated counts do not pay for device setup. Optional. */
typedef struct parac_fca_engine parac_fca_engine;

typedef struct parac_fca_options {
    parac_exec exec;      /* device and threads; zero = auto device, all cores */
    uint64_t min_support; /* only concepts whose extent has >= min_support objects; 0 = all
                             (the bottom concept, possibly with an empty extent, included) */
    parac_fca_gpu_strategy gpu_strategy; /* 0 = auto */
    parac_fca_cpu_strategy cpu_strategy; /* 0 = auto */
    parac_fca_engine *engine;            /* NULL: set up (and tear down) the device for this run alone */
    uint64_t gpu_pool_bytes;             /* cap on the GPU task pool + child buffers; 0 = half the free
                                            device memory, at most 16 GiB. Tasks beyond it spill to host
                                            memory (a small cap forces spilling: tests use it). */
    uint64_t max_device_bytes;           /* cap on ALL device memory the GPU search allocates (context
                                            copies, task pool, child buffers, warp stacks, output
                                            buffers); 0 = no cap beyond the defaults. A small cap
                                            means fewer warps, fewer stack levels, smaller batches and
                                            output buffers, and spilling the pool to host memory, not
                                            failure; PARAC_ERR_NO_MEMORY only below the minimum the
                                            context needs (about 6·(M+1) pending tasks' bytes plus one
                                            block's scratch), named in the message. */
} parac_fca_options;

/* The defaults: all concepts (min_support 0), automatic GPU and CPU strategies, no engine, no
 * caps on the GPU pool or device memory, parac_exec_init's device and threads. */
void parac_fca_options_init(parac_fca_options *options);

/* Creates an engine for exec's device (exec->cuda_device for the GPU; on the
 * CPU, or without a GPU, the engine holds nothing). The engine is used by one
 * call at a time; it must outlive every run given it. PARAC_ERR_DEVICE when
 * the GPU cannot be set up. */
parac_status parac_fca_engine_create(const parac_exec *exec, parac_fca_engine **engine, parac_error *error);
void parac_fca_engine_destroy(parac_fca_engine *engine); /* NULL is accepted */

typedef struct parac_fca_concepts parac_fca_concepts;

/* Counts the concepts without storing any (memory: the search path only). */
parac_status parac_fca_count(const parac_fca_context *context, const parac_fca_options *options, uint64_t *count,
                             parac_error *error);

/* All concepts, in canonical order. PARAC_ERR_NO_MEMORY when they do not fit
 * in host memory (each costs ceil(attributes/64) * 8 bytes). */
parac_status parac_fca_compute(const parac_fca_context *context, const parac_fca_options *options,
                               parac_fca_concepts **concepts, parac_error *error);

void parac_fca_concepts_destroy(parac_fca_concepts *concepts); /* NULL is accepted */

size_t parac_fca_concepts_size(const parac_fca_concepts *concepts);

/* Writes the ascending attribute ids of concept `index`'s intent into ids
 * (at most capacity of them) and returns the intent's size. */
size_t parac_fca_concept_intent(const parac_fca_concepts *concepts, size_t index, uint32_t *ids, size_t capacity);

/* Writes the ascending object ids of the extent (at most capacity) and returns
 * its size. context must be the one the concepts were computed from. */
size_t parac_fca_concept_extent(const parac_fca_context *context, const parac_fca_concepts *concepts, size_t index,
                                uint32_t *ids, size_t capacity);

/* Checks every concept: B'' = B (so (B', B) is a concept), no duplicates, the
 * canonical order, and min_support. PARAC_ERR_INTERNAL naming the first bad
 * concept otherwise. */
parac_status parac_fca_verify(const parac_fca_context *context, const parac_fca_concepts *concepts,
                              uint64_t min_support, parac_error *error);

/* ---- lattice ------------------------------------------------------------------- */

typedef struct parac_fca_lattice parac_fca_lattice;

/* The covering relation (Hasse diagram) of the concepts, by Lindig's
 * neighbour test on every concept (in parallel). An edge (upper, lower) joins
 * two concept indices where lower's intent strictly contains upper's with no
 * concept between. Edges are sorted by (upper, lower). context and
 * min_support must be those the concepts were computed with;
 * PARAC_ERR_INVALID_ARGUMENT when a cover is missing from the list. */
parac_status parac_fca_lattice_create(const parac_fca_context *context, const parac_fca_concepts *concepts,
                                      uint64_t min_support, parac_fca_lattice **lattice, parac_error *error);
void parac_fca_lattice_destroy(parac_fca_lattice *lattice); /* NULL is accepted */
size_t parac_fca_lattice_edge_count(const parac_fca_lattice *lattice);
void parac_fca_lattice_edge(const parac_fca_lattice *lattice, size_t index, size_t *upper, size_t *lower);

#ifdef __cplusplus
}
#endif
#endif

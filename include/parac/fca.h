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
 * (held twice, by rows and by columns, when a path that works on bitsets asks
 * for them; a context itself holds only its occupied cells). A file, or a call, asking for more is
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
    PARAC_FCA_GPU_ROUNDS,        /* one node per warp per kernel round; every child goes back to the pool
                                    (also what LOCAL_ROWS falls back to when warp stacks do not fit) */
    PARAC_FCA_GPU_REMOVED_LOCAL, /* removed (LOCAL_ROWS closing by attribute columns: never ahead of
                                    LOCAL_ROWS beyond timing noise, 1.9x slower on mushroom, docs/fca.md):
                                    now dev/fca/04_gpu_local.cu; refused with INVALID_ARGUMENT. The
                                    number stays reserved */
    PARAC_FCA_GPU_LOCAL_ROWS,    /* each warp finishes subtrees depth-first in its own stack, closing C'
                                    as the AND of C's object rows, and pushes children back to the pool
                                    only while other warps are idle */
    PARAC_FCA_GPU_REMOVED_LOCAL_STREAM, /* removed (a per-block task queue and stored output streamed
                                           back during the next round: ties LOCAL_ROWS counting, 2x
                                           slower storing mushroom): now dev/fca/05_gpu_local_stream.cu;
                                           refused as REMOVED_LOCAL */
    PARAC_FCA_GPU_REMOVED_LOCAL_STAGED  /* removed (pushed children staged in shared memory, written in
                                           bursts: 3-39 % slower than LOCAL_ROWS everywhere):
                                           now dev/fca/06_gpu_local_staged.cu; refused as REMOVED_LOCAL */
} parac_fca_gpu_strategy;

/* How the CPU threads share the tree (same concepts either way). */
typedef enum parac_fca_cpu_strategy {
    PARAC_FCA_CPU_AUTO = 0,      /* the measured best: PARAC_FCA_CPU_SPARSE on contexts under 5 % dense,
                                    PARAC_FCA_CPU_ON_DEMAND on the others */
    PARAC_FCA_CPU_REMOVED_SHARED_POOL,   /* removed (OpenMP tasks borrowing scratch from a locked pool:
                                            slower than ON_DEMAND on every case measured, docs/fca.md):
                                            now dev/fca/01_shared_pool.c; refused with
                                            INVALID_ARGUMENT. The number stays reserved */
    PARAC_FCA_CPU_REMOVED_PER_THREAD,    /* removed (OpenMP tasks, one worker per thread: slower than
                                            ON_DEMAND everywhere): now dev/fca/02_per_thread.c; refused
                                            as REMOVED_SHARED_POOL */
    PARAC_FCA_CPU_REMOVED_WORK_STEALING, /* removed (ON_DEMAND's deques, copying ahead: slower than
                                            ON_DEMAND everywhere): now dev/fca/03_work_stealing.c;
                                            refused as REMOVED_SHARED_POOL */
    PARAC_FCA_CPU_ON_DEMAND,     /* a deque per thread, idle threads steal the oldest half of another's;
                                    a thread recurses in place and copies a node (the pending one
                                    nearest the root) only while some thread is idle and its deque is
                                    empty: no copies while every thread is busy */
    PARAC_FCA_CPU_SPARSE         /* the context by its occupied cells and each closure found as LCM
                                    does (occurrence delivery over conditional databases of merged
                                    transactions): time and memory follow the cells, not objects x
                                    attributes; on one thread or OpenMP tasks. The other values
                                    search dense bitsets. Same concepts; the CPU only (a GPU run
                                    searches dense bitsets whatever this says) */
} parac_fca_cpu_strategy;

/* An execution handle: keeps a GPU context (stream, memory pool) alive
 * between runs so repeated counts do not pay for device setup. Optional. */
typedef struct parac_fca_engine parac_fca_engine;

typedef struct parac_fca_options {
    parac_exec exec;      /* device and threads; zero = auto device, all cores */
    uint64_t min_support; /* only concepts whose extent has >= min_support objects; 0 = all
                             (the bottom concept, possibly with an empty extent, included) */
    parac_fca_gpu_strategy gpu_strategy; /* 0 = auto; a removed or unknown value: INVALID_ARGUMENT */
    parac_fca_cpu_strategy cpu_strategy; /* 0 = auto; a removed or unknown value: INVALID_ARGUMENT */
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
    uint64_t max_host_bytes;             /* parac_fca_enumerate and parac_fca_lattice_enumerate: cap on the
                                            host memory that holds concepts (and lattice edges); beyond
                                            it they are sorted into runs in temporary files and merged.
                                            0 = a quarter of the memory the process may use
                                            (physical memory, or an rlimit or cgroup limit below
                                            it). The context and the search's own memory are not
                                            counted. */
    const char *temp_directory;          /* where those runs go (files unlinked at once); NULL = $TMPDIR,
                                            else /tmp. A full disk is PARAC_ERR_IO naming it. */
} parac_fca_options;

/* The defaults: all concepts (min_support 0), automatic GPU and CPU strategies, no engine, no
 * caps on the GPU pool or device memory, the enumerations' host budget a quarter of the memory
 * the process may use (max_host_bytes 0) with runs in $TMPDIR (temp_directory NULL), parac_exec_init's device
 * and threads. */
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

/* Receives one concept's intent (ascending attribute ids, size of them; the buffer is the
 * library's, valid during the call). Non-zero stops the enumeration. */
typedef int (*parac_fca_concept_fn)(void *user, const uint32_t *intent, size_t size);

/* Every concept, in the canonical order of parac_fca_compute, handed to fn one at a time, with
 * the host memory for concepts capped by options->max_host_bytes whatever their number (the
 * output may be larger than memory: the excess goes through sorted runs in temporary files).
 * Same concepts, same order on every device and thread count. PARAC_ERR_CANCELLED when fn (or
 * the progress callback) stops it, PARAC_ERR_IO when a temporary file cannot be written. */
parac_status parac_fca_enumerate(const parac_fca_context *context, const parac_fca_options *options,
                                 parac_fca_concept_fn fn, void *user, parac_error *error);

/* How parac_fca_write_text writes a concept: its intent (ascending attribute ids, separated by one
 * space), with extents " | " and its extent (ascending object ids), then a newline. With names,
 * an attribute or object that has a name in the context is written by it, the others by id. */
typedef struct parac_fca_text_options {
    int extents;
    int names;
} parac_fca_text_options;

/* Receives the next piece of the text (the pieces in order make the whole output; the buffer is
 * the library's, valid during the call). Non-zero stops the run. */
typedef int (*parac_fca_text_fn)(void *user, const char *text, size_t size);

/* Every concept as text (text NULL: intents only), in the order and within the memory of
 * parac_fca_enumerate, formatted on options->exec.threads threads in blocks and handed to write
 * in order: the same bytes on every device and thread count. *count (may be NULL): the concepts
 * written. PARAC_ERR_CANCELLED when write (or the progress callback) stops it. */
parac_status parac_fca_write_text(const parac_fca_context *context, const parac_fca_options *options,
                                  const parac_fca_text_options *text, parac_fca_text_fn write, void *user,
                                  uint64_t *count, parac_error *error);

/* The same text for concepts already computed (parac_fca_compute), on `threads` threads (0: every
 * core). PARAC_ERR_CANCELLED when write stops it. */
parac_status parac_fca_concepts_write_text(const parac_fca_context *context, const parac_fca_concepts *concepts,
                                           const parac_fca_text_options *text, int threads, parac_fca_text_fn write,
                                           void *user, parac_error *error);

/* Writes the ascending ids of the objects having every attribute of intent (size ids; an id
 * outside the context has no object) into ids (at most capacity) and returns the extent's size. */
size_t parac_fca_context_extent(const parac_fca_context *context, const uint32_t *intent, size_t size, uint32_t *ids,
                                size_t capacity);

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

/* ---- implications and rules ------------------------------------------------------
 *
 * Implications: the Duquenne-Guigues (canonical, stem) basis of the context's
 * attribute implications: one implication P -> P'' \ P for every pseudo-intent
 * P (P != P'' and Q'' ⊆ P for every pseudo-intent Q ⊊ P). Every implication
 * that holds in the context follows from the basis, no smaller set of
 * implications does that, and none of its implications follows from the others.
 * Computed by a CbO search over the sets closed under the implications found so
 * far, visited in lectic order as in LinCbO (Janostik, Konecny & Krajca 2021),
 * each closure continuing from its parent's over the implications that can still
 * fire below that node (src/fca/implications.c), on one CPU thread whatever
 * exec.threads says (the basis is built in lectic order, each implication from
 * the ones before it). Attributes no object has are part of the
 * context: an unused FIMI id a gives an implication whose conclusion is every
 * attribute (nothing has a, so a implies everything).
 *
 * With min_support s > 0 the result is the basis of the frequent part: the
 * implications P -> P'' \ P for the pseudo-intents P with |P'| >= s (frequent
 * pseudo-closed itemsets; every exact rule between frequent itemsets follows
 * from them). Infrequent sets are not visited, so a high s is also faster.
 *
 * Association rules come from the frequent closed itemsets: the intents B with
 * |B'| >= min_support (parac_fca_compute with min_support; min_support 0 counts
 * as 1 here, the bottom concept with an empty extent is no itemset). A rule
 * X -> Y joins two frequent intents B1 ⊊ B2: X = B1, Y = B2 \ B1, support
 * |B2'| (the objects having X ∪ Y), confidence |B2'| / |B1'| (always < 1: two
 * intents have different extents), kept when confidence >= min_confidence.
 * all_rules = 0 gives the Luxenburger basis of the approximate rules: only the
 * pairs where B2 covers B1 in the lattice (no intent between them); every
 * rule between frequent closed itemsets is a product of such rules along a
 * path of the lattice. The exact rules (confidence 1) are the implications
 * above. all_rules = 1 gives every pair B1 ⊊ B2 with confidence >=
 * min_confidence (no pair has B1 with zero objects); max_rules > 0 bounds
 * their number: more fail with PARAC_ERR_INVALID_ARGUMENT before they are
 * all stored.
 *
 * Order: implications by premise, rules by premise then conclusion, both in the
 * concepts' canonical order (lexicographic by ascending attribute ids), the
 * same on every device and thread count. Progress and cancel through exec
 * (PARAC_ERR_CANCELLED).
 */

typedef struct parac_fca_rule_options {
    parac_exec exec;       /* rules: device and threads of the concept search (and threads of the lattice);
                              implications: one CPU thread. progress/cancel for both */
    uint64_t min_support;  /* implications: only pseudo-intents with >= min_support objects (0 = all);
                              rules: only itemsets with >= min_support objects (0 and 1 alike) */
    double min_confidence; /* rules: keep confidence >= min_confidence, in [0, 1] (0 = all) */
    int all_rules;         /* rules: 0 = the Luxenburger basis (covering pairs), 1 = every pair B1 ⊊ B2 */
    uint64_t max_rules;    /* rules with all_rules: fail beyond this many; 0 = no limit */
    uint64_t max_host_bytes; /* cap on the memory the result holds (each implication or rule: its sets'
                                ids, 4 bytes each, and 32 bytes); past it PARAC_ERR_NO_MEMORY. 0 = a
                                quarter of what the process may use (physical memory, or an rlimit or
                                cgroup limit below it). The basis of a wide sparse context without
                                min_support grows with the square of its attributes: this makes it fail
                                early instead of filling the machine */
} parac_fca_rule_options;

/* The defaults: the whole basis, the Luxenburger basis of all frequent closed itemsets with
 * confidence >= 0, no limit, parac_exec_init's device and threads. */
void parac_fca_rule_options_init(parac_fca_rule_options *options);

typedef struct parac_fca_implications parac_fca_implications;

/* The Duquenne-Guigues basis (options may be NULL: the defaults). PARAC_ERR_NO_MEMORY when it
 * does not fit in options->max_host_bytes or in memory;
 * PARAC_ERR_CANCELLED when the progress callback asked to stop. */
parac_status parac_fca_implications_compute(const parac_fca_context *context, const parac_fca_rule_options *options,
                                            parac_fca_implications **implications, parac_error *error);
void parac_fca_implications_destroy(parac_fca_implications *implications); /* NULL is accepted */
size_t parac_fca_implications_size(const parac_fca_implications *implications);
/* Writes the ascending ids of implication `index`'s premise P (at most capacity) and returns |P|. */
size_t parac_fca_implication_premise(const parac_fca_implications *implications, size_t index, uint32_t *ids,
                                     size_t capacity);
/* The same for its conclusion P'' \ P (never empty). */
size_t parac_fca_implication_conclusion(const parac_fca_implications *implications, size_t index, uint32_t *ids,
                                        size_t capacity);
/* |P'|: the objects having the premise (and so the conclusion). */
uint64_t parac_fca_implication_support(const parac_fca_implications *implications, size_t index);

typedef struct parac_fca_rules parac_fca_rules;

/* The association rules above (options may be NULL: the defaults). PARAC_ERR_INVALID_ARGUMENT for a
 * min_confidence outside [0, 1] or more than max_rules rules; PARAC_ERR_NO_MEMORY, PARAC_ERR_CANCELLED,
 * device errors as parac_fca_compute. */
parac_status parac_fca_rules_compute(const parac_fca_context *context, const parac_fca_rule_options *options,
                                     parac_fca_rules **rules, parac_error *error);
void parac_fca_rules_destroy(parac_fca_rules *rules); /* NULL is accepted */
size_t parac_fca_rules_size(const parac_fca_rules *rules);
/* Ascending ids of rule `index`'s premise X (at most capacity); returns |X|. */
size_t parac_fca_rule_premise(const parac_fca_rules *rules, size_t index, uint32_t *ids, size_t capacity);
/* Ascending ids of its conclusion Y (disjoint from X, never empty); returns |Y|. */
size_t parac_fca_rule_conclusion(const parac_fca_rules *rules, size_t index, uint32_t *ids, size_t capacity);
uint64_t parac_fca_rule_support(const parac_fca_rules *rules, size_t index);         /* |(X ∪ Y)'| */
uint64_t parac_fca_rule_premise_support(const parac_fca_rules *rules, size_t index); /* |X'| */
double parac_fca_rule_confidence(const parac_fca_rules *rules, size_t index);        /* support / premise support */

/* Receives one covering edge: concept indices (positions in the canonical order). Non-zero stops. */
typedef int (*parac_fca_edge_fn)(void *user, uint64_t upper, uint64_t lower);

/* The lattice of a context whose concepts need not fit in memory: computes the concepts
 * (options->min_support: an iceberg lattice) and hands them to concept_fn in canonical order
 * (the n-th call is concept n), then every covering edge to edge_fn, sorted by (upper, lower):
 * the concepts and edges of parac_fca_compute + parac_fca_lattice_create. Host memory for
 * concepts and edges stays within options->max_host_bytes (sorted runs in temporary files
 * beyond it). Either callback may be NULL. Errors as parac_fca_enumerate. */
parac_status parac_fca_lattice_enumerate(const parac_fca_context *context, const parac_fca_options *options,
                                         parac_fca_concept_fn concept_fn, parac_fca_edge_fn edge_fn, void *user,
                                         parac_error *error);

#ifdef __cplusplus
}
#endif
#endif

/* fca/fca_internal.h — what the files of the fca module share: the context
 * layout, the concept store, the search setup and the FCbO entry points. */
#ifndef PARAC_FCA_INTERNAL_H
#define PARAC_FCA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <parac/fca.h>

#include "core/bitset.h"
#include "core/input.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bit matrices of a context: rows answer A' (AND of object rows), columns answer B' and A ∩ {j}'
 * (AND with one column). 2 x objects x attributes bits: built only when a path that works on
 * bitsets asks for them (fca_context_bits). */
typedef struct fca_bit_matrices {
    parac_word *rows;    /* objects x attribute_words */
    parac_word *columns; /* attributes x object_words */
} fca_bit_matrices;

/* The context is kept by its occupied cells (issue 18: memory proportional to the cells, not to
 * objects x attributes): object o's attributes, ascending and distinct, at
 * cell_attributes[cell_offsets[o] .. cell_offsets[o + 1]). */
struct parac_fca_context {
    size_t objects, attributes;
    size_t object_words, attribute_words;
    size_t *cell_offsets;      /* objects + 1 */
    uint32_t *cell_attributes; /* cell_offsets[objects] of them */
    size_t cell_capacity;      /* while a reader adds cells (fca_context_add) */
    size_t last_object;        /* the object fca_context_add last added to (cells come row by row) */
    fca_bit_matrices *bits;    /* NULL until fca_context_bits built them; published atomically */
    struct fca_column_lists *columns; /* NULL until fca_context_columns built them; published atomically */
    struct fca_column_groups *groups; /* NULL until fca_context_groups built them; published atomically */
    char **object_names;       /* NULL or objects strings */
    char **attribute_names;
};

/* An objects x attributes context with no cells; cells come through fca_context_add (object by
 * object, each object's attributes ascending, then fca_context_end_cells) or fca_context_adopt_cells. */
parac_status fca_context_alloc(size_t objects, size_t attributes, parac_fca_context **context, parac_error *error);
/* 1 when objects x attributes is within PARAC_FCA_MAX_CONTEXT_CELLS (readers check before they allocate). */
int fca_context_size_ok(size_t objects, size_t attributes);
/* Adds cell (object, attribute): objects in ascending order, within an object attributes ascending
 * (every reader fills row by row). PARAC_ERR_NO_MEMORY when the cell list cannot grow. */
parac_status fca_context_add(parac_fca_context *context, size_t object, size_t attribute, parac_error *error);
/* Completes the offsets after the last fca_context_add (objects after the last one with cells). */
void fca_context_end_cells(parac_fca_context *context);
/* A context taking over ready cells (offsets: objects + 1 entries; each object's attributes
 * ascending and distinct, all below attributes; both malloc'd; freed even when this fails). */
parac_status fca_context_adopt_cells(size_t objects, size_t attributes, size_t *offsets, uint32_t *cell_attributes,
                                     parac_fca_context **context, parac_error *error);
/* Occupied cells. */
static inline size_t fca_context_cells(const parac_fca_context *context)
{
    return context->cell_offsets[context->objects];
}
/* The most attributes one object has: every intent with a non-empty extent is at most as long. */
static inline size_t fca_context_longest_row(const parac_fca_context *context)
{
    size_t longest = 0;
    for (size_t o = 0; o < context->objects; o++)
        if (context->cell_offsets[o + 1] - context->cell_offsets[o] > longest)
            longest = context->cell_offsets[o + 1] - context->cell_offsets[o];
    return longest;
}
/* The cells by attribute: attribute a's objects, ascending, at objects[offsets[a] .. offsets[a + 1]).
 * As many entries as cells (the bit matrices take objects x attributes bits twice). */
typedef struct fca_column_lists {
    size_t *offsets; /* attributes + 1 */
    uint32_t *objects;
} fca_column_lists;
/* Built at the first call, as fca_context_bits; NULL with PARAC_ERR_NO_MEMORY when they do not fit. */
const fca_column_lists *fca_context_columns(const parac_fca_context *context, parac_error *error);

/* The attributes grouped by equal columns (column_groups.c): first[a] and last[a] are the smallest and
 * the largest id whose column is attribute a's (a itself when none other has it; the attributes no
 * object has are one group). Built at the first call, as fca_context_columns. */
typedef struct fca_column_groups {
    uint32_t *first, *last;
} fca_column_groups;
const fca_column_groups *fca_context_groups(const parac_fca_context *context, parac_error *error);
void fca_column_groups_free(fca_column_groups *groups);

/* The bit matrices, built at the first call (thread-safe: concurrent first calls build one copy
 * each and all but one are freed); NULL with PARAC_ERR_NO_MEMORY when they do not fit. */
const fca_bit_matrices *fca_context_bits(const parac_fca_context *context, parac_error *error);
/* The bit matrices of a context whose fca_context_bits already succeeded (entry points ask first). */
static inline const fca_bit_matrices *fca_context_bits_built(const parac_fca_context *context)
{
    return __atomic_load_n(&context->bits, __ATOMIC_ACQUIRE);
}
/* 1 when the bit matrices exist (tests: a sparse run must not build them). */
int fca_context_has_bits(const parac_fca_context *context);

parac_status fca_read_fimi(const parac_input *input, parac_fca_context **context, parac_error *error);
/* fca_read_fimi with ids above id_limit (<= PARAC_FCA_MAX_ATTRIBUTE_ID) refused as too large: the fuzz
 * target reads with a lower limit, since each input naming id 10^6 builds a 10^6-column context. */
parac_status fca_read_fimi_limited(const parac_input *input, uint32_t id_limit, parac_fca_context **context,
                                   parac_error *error);
/* fca_read_fimi_limited on `threads` threads (1: the serial reader; the reader takes all cores); tests
 * compare the two. */
parac_status fca_read_fimi_threads(const parac_input *input, uint32_t id_limit, int threads,
                                   parac_fca_context **context, parac_error *error);
parac_status fca_read_cxt(const parac_input *input, parac_fca_context **context, parac_error *error);
parac_status fca_read_csv01(const parac_input *input, parac_fca_context **context, parac_error *error);

/* Where stores of one streamed run spill their intents (concept_stream.c); NULL elsewhere. */
typedef struct fca_concept_spill fca_concept_spill;

/* How a store holds one intent (concept_record.c): a bitset over the original attribute ids
 * (ids 0, words = attribute_words), or, over a wide sparse context (a streamed run's store, and
 * parac_fca_compute's: fca_record_format_for), `ids` slots of (id + 1) ascending with 0 after the last, words =
 * ids / 2: an intent with a non-empty extent lies in one object's row, so the longest row bounds
 * it (T10I4D100K: 15 words instead of 16; 16,470 items of at most 76 a row: 38 instead of 258),
 * and a store packs each record to its own length until it is sorted (`packed` below).
 * The one longer intent, every attribute (the concept with an empty extent), is FCA_RECORD_ALL in
 * the first slot. Both orders are the canonical one (fca_record_compare). */
typedef struct fca_record_format {
    size_t attributes;
    size_t words; /* parac_words per intent */
    size_t ids;   /* 0: a bitset; K > 0: K slots (K even) */
} fca_record_format;
#define FCA_RECORD_ALL UINT32_MAX

/* The id-list format for intents of at most longest_row attributes, when it takes fewer words than
 * the bitset (a store packs its records, so most take far fewer: T10I4D100K's 2.3 M intents, 15
 * words against 16 at the longest, average 3); else the bitset format. */
fca_record_format fca_record_format_for(size_t attributes, size_t longest_row);
/* The record of a bitset intent (`format.attributes` bits); 0 when it does not fit the format (an
 * intent longer than the slots that is not every attribute: never from a search). */
int fca_record_encode(const fca_record_format *format, const parac_word *intent, parac_word *record);
/* The same from the intent's ids (ascending, distinct, below format.attributes). */
int fca_record_encode_ids(const fca_record_format *format, const uint32_t *ids, size_t count, parac_word *record);
/* The intent as a bitset over format.attributes (its words, zeroed first). */
void fca_record_bitset(const fca_record_format *format, const parac_word *record, parac_word *bits);
/* The intent's ids, ascending, into ids (room for format.attributes); returns how many. */
size_t fca_record_decode(const fca_record_format *format, const parac_word *record, uint32_t *ids);
/* The same with at most capacity ids written (ids may be NULL); returns the intent's size. */
size_t fca_record_ids(const fca_record_format *format, const parac_word *record, uint32_t *ids, size_t capacity);
/* <0, 0, >0 as record a comes before, equals, follows b in canonical order (whole or packed
 * records: a packed one is read up to its 0). */
int fca_record_compare(const parac_word *a, const parac_word *b, const fca_record_format *format);
/* The packed record of an id-list format for ids (ascending, distinct, below format.attributes) at
 * to (room for format.words + 1 words); returns its words, 0 when it does not fit the format. */
size_t fca_record_pack_ids(const fca_record_format *format, const uint32_t *ids, size_t count, parac_word *to);
/* The words of the packed record at record. */
size_t fca_record_packed_words(const fca_record_format *format, const parac_word *record);

/* Intents as records of format (bitsets unless the context is wide and sparse: fca_record_format_for;
 * attribute_words stays the bitset's size, format.words is a record's). */
typedef struct fca_store_part {
    parac_word *intents;
    size_t count;
} fca_store_part;
struct parac_fca_concepts {
    size_t attributes, attribute_words;
    fca_record_format format;
    size_t count;             /* records in intents */
    size_t used, capacity;    /* words used and allocated in intents */
    parac_word *intents;      /* count records of format.words words, or packed: */
    /* Packed (an id-list format, until the store is sorted): each record takes only its own ids + 1
     * and a 0, padded to whole words (fca_record_packed_words), not the longest row's slots. A
     * retail-like context's 2.3 M intents of mostly 3-6 ids took 38 words each in that format. The
     * sort gathers them into whole records; readers by index see only sorted stores. */
    int packed;
    /* Stores moved in by fca_concepts_take, left where they lie (copying the workers' stores into
     * one was 300 MB of page zeroing and copying on one thread for T10I4D100K's 2.3 M concepts):
     * part_records more records, in no particular order. fca_concepts_sort gathers them into
     * intents; fca_concepts_order reads them in place. A sorted store has none. */
    fca_store_part *parts;
    size_t part_count, part_capacity, part_records;
    fca_concept_spill *spill; /* set: the store holds at most the spill's store_limit intents; beyond it,
                                 they are sorted and written out as a run (append and take do it) */
};
/* Records held: count plus those of the parts. */
static inline size_t fca_concepts_total(const parac_fca_concepts *concepts)
{
    return concepts->count + concepts->part_records;
}

parac_status fca_concepts_init(parac_fca_concepts *concepts, size_t attributes, parac_error *error);
/* An empty store's record format (packed when it is an id list). */
void fca_concepts_set_format(parac_fca_concepts *concepts, const fca_record_format *format);
/* Attaches an empty store to a streamed run's spill: its records take the spill's format. */
void fca_concepts_attach_spill(parac_fca_concepts *concepts, fca_concept_spill *spill);
struct fca_search;
/* A worker's empty store for a search's run: the run's record format (search->store_format), attached
 * to the run's spill when it streams. */
parac_status fca_concepts_init_worker(parac_fca_concepts *concepts, const struct fca_search *search,
                                      parac_error *error);
/* Appends a bitset intent (encoded in the store's format). */
parac_status fca_concepts_append(parac_fca_concepts *concepts, const parac_word *intent, parac_error *error);
/* Appends an intent given by its ids (ascending, distinct): no bitset to build and scan. */
parac_status fca_concepts_append_ids(parac_fca_concepts *concepts, const uint32_t *ids, size_t count,
                                     parac_error *error);
/* Moves every intent of source into target (as a part, or copied when small) and empties source. */
parac_status fca_concepts_take(parac_fca_concepts *target, parac_fca_concepts *source, parac_error *error);
/* Sorts into the canonical order (lexicographic by ascending id lists) with up to `threads` threads;
 * the result does not depend on the thread count (concept_sort.c). */
parac_status fca_concepts_sort(parac_fca_concepts *concepts, int threads, parac_error *error);
/* One record of a store in a sort: its first ids packed into a key (most comparisons end there) and
 * where it lies. */
typedef struct fca_sort_entry {
    uint64_t key[2];
    const parac_word *record;
} fca_sort_entry;
/* The store's records in canonical order, without moving them: *order (fca_concepts_total
 * entries, the caller frees it) points into the store's intents and parts, valid while the store is
 * not changed. */
parac_status fca_concepts_order(const parac_fca_concepts *concepts, int threads, fca_sort_entry **order,
                                parac_error *error);
void fca_concepts_release(parac_fca_concepts *concepts);
/* Forgets every record (the parts' memory is freed, intents' kept for reuse). */
void fca_concepts_clear(parac_fca_concepts *concepts);
/* <0, 0, >0 as bitset intent a comes before, equals, follows b in canonical order. */
int fca_intent_compare(const parac_word *a, const parac_word *b, size_t words);

/* The spill of a streamed run (concept_stream.c): a store attached to it sorts and writes its
 * intents out as a run when it reaches store_limit; thread-safe (stores of several workers). */
struct fca_concept_spill {
    struct parac_external_sort *sorter; /* the runs, merged by parac_fca_enumerate */
    size_t store_limit;                 /* intents a store holds before it spills */
    uint64_t spilled;                   /* intents written out so far */
    fca_record_format *format;          /* its stores' records: the sorter's comparison context */
    void *lock;                         /* omp_lock_t, guarding sorter and spilled */
};
/* Sorts the store's intents (with `threads` threads), writes them as one run, empties the store. */
parac_status fca_concept_spill_store(fca_concept_spill *spill, parac_fca_concepts *store, int threads,
                                     parac_error *error);

/* Forgets every intent the spill holds (a search that was stopped and starts again elsewhere:
 * fca/device_handover.h); not thread-safe: between searches only. */
parac_status fca_concept_spill_clear(fca_concept_spill *spill, parac_error *error);

/* The search works on a copy of the context whose attributes are sorted by
 * ascending support (rarest first): the concept set is the same, the tree
 * is smaller because rare attributes shrink extents early. Attributes no
 * object has are left out (they only join the intent of the concept with an
 * empty extent, and would make the N_j sets quadratic in the id range of
 * sparse FIMI files); fca_search_finish puts them back. Attributes with the
 * same column (the same objects) are one search attribute, the smallest id
 * standing for the group (the context is clarified): every intent holds all
 * of a group or none of it, so the concepts map one to one, and each intent
 * is written back with every member (fca_search_original_intent,
 * fca_search_original_ids). A context of few objects and many attributes
 * has at most 2^objects distinct columns: 10 objects with 100,000 attributes
 * took minutes and 6 GB unclarified (N_j rows are attributes x attributes). */
typedef struct fca_search {
    size_t objects, attributes;       /* attributes: those in the search */
    size_t object_words, attribute_words;
    size_t original_attributes, original_words;
    parac_word *rows;                 /* permuted attributes */
    parac_word *columns;              /* permuted attributes */
    uint32_t *original_attribute;     /* search attribute -> original id (its group's smallest) */
    uint32_t *member_offset;          /* NULL: no group of equal columns has two attributes; else search */
    uint32_t *members;                /* attribute s stands for members[member_offset[s] .. [s + 1]), ascending */
    parac_word *empty_attributes;     /* original ids with no object (original_words) */
    size_t empty_count;
    int full_intent_has_empty_extent; /* no object has every search attribute */
    uint64_t min_support;
    struct parac_progress_gate *progress; /* NULL: no callback; else every worker reports and polls here */
    fca_concept_spill *concept_spill;     /* NULL, or the spill every worker's store attaches to */
    const fca_record_format *store_format; /* NULL (count only), or the records of the run's store:
                                             every worker's store takes them (fca_concepts_init_worker) */
} fca_search;

/* Progress units of a whole search: the root node's weight (fcbo_tree.h). */
#define FCA_PROGRESS_TOTAL (1ull << 48)

parac_status fca_search_create(const parac_fca_context *context, uint64_t min_support, fca_search *search,
                               parac_error *error);
/* fca_search_create in two halves: the attribute order alone (rows and columns NULL; what the sparse
 * search needs), then the dense permuted rows and columns (and full_intent_has_empty_extent). Both
 * destroy the search when they fail. */
parac_status fca_search_create_order(const parac_fca_context *context, uint64_t min_support, fca_search *search,
                                     parac_error *error);
parac_status fca_search_fill_dense(const parac_fca_context *context, fca_search *search, parac_error *error);
void fca_search_destroy(fca_search *search);
/* Maps a search-order intent to original ids (original_words words). */
void fca_search_original_intent(const fca_search *search, const parac_word *intent, parac_word *original);
/* The original ids of search attributes intent[0..length), ascending, into ids (room for the longest
 * row of the context: an intent other than the bottom one is inside a row); returns their number. */
size_t fca_search_original_ids(const fca_search *search, const uint32_t *intent, size_t length, uint32_t *ids);
/* How many original attributes search attributes intent[0..length) stand for. */
size_t fca_search_original_length(const fca_search *search, const uint32_t *intent, size_t length);
/* search_of[a] = the search attribute of every original id a that some object has (context->attributes
 * entries; those of empty attributes are left as they are). */
void fca_search_map_originals(const fca_search *search, uint32_t *search_of);
/* The root concept: extent all objects, intent their common attributes. */
void fca_search_root(const fca_search *search, parac_word *extent, parac_word *intent);
/* Adds the concept (empty extent, all attributes) when leaving out empty
 * attributes hid it: the search's own full intent had objects. */
parac_status fca_search_finish(const fca_search *search, parac_fca_concepts *concepts, uint64_t *count,
                               parac_error *error);
/* 1 (error filled with PARAC_ERR_CANCELLED) when the run's progress callback asked to stop; the GPU
 * host loop asks between rounds (CPU workers poll the gate themselves, fcbo_serial.c). */
int fca_search_cancelled(const fca_search *search, parac_error *error);

/* parac_fca_lattice_create with a caller's exec (NULL: none) whose progress callback sees one unit a
 * concept and may cancel (PARAC_ERR_CANCELLED): the association rules' lattice. */
parac_status fca_lattice_build(const parac_fca_context *context, const parac_fca_concepts *concepts,
                               uint64_t min_support, const parac_exec *exec, parac_fca_lattice **lattice,
                               parac_error *error);

/* Runs the search chosen by options into concepts (NULL: count only); concepts->spill, when set,
 * is handed to every worker's store (fca.c). */
parac_status fca_run_search(const parac_fca_context *context, const parac_fca_options *options,
                            parac_fca_concepts *concepts, uint64_t *count, parac_error *error);

/* FCbO on one thread / on all cores (PARAC_FCA_CPU_ON_DEMAND: a deque per thread, a node copied out only
 * while some thread is idle; fcbo_on_demand.c over steal_team.c) / on the GPU. concepts NULL = count
 * only. Concepts come out in search order, mapped to original ids, unsorted. */
parac_status fca_fcbo_serial(const fca_search *search, parac_fca_concepts *concepts, uint64_t *count,
                             parac_error *error);
parac_status fca_fcbo_on_demand(const fca_search *search, int threads, parac_fca_concepts *concepts,
                                uint64_t *count, parac_error *error);

/* The sparse search (sparse_search.c, sparse_parallel.c): FCbO's canonicity test over a context held
 * by its occupied cells, each node's closure found LCM's way (occurrence delivery over a conditional
 * database of merged transactions). Needs only fca_search_create_order's fields; sets
 * search->full_intent_has_empty_extent itself. Same concepts and count as fca_fcbo_serial. threads <= 1:
 * one thread. Objects beyond UINT32_MAX are refused (fca_sparse_suits says no). */
parac_status fca_sparse_search(const parac_fca_context *context, fca_search *search, int threads,
                               parac_fca_concepts *concepts, uint64_t *count, parac_error *error);
/* 1 when the sparse search can take the context (objects within 32-bit ids). */
int fca_sparse_suits(const parac_fca_context *context);

/* The engine: a GPU context kept between runs (cuda_context NULL when none). */
struct parac_cuda_context;
struct parac_fca_engine {
    int cuda_device;
    struct parac_cuda_context *cuda_context;
};

#ifdef PARAC_HAVE_CUDA
/* shared_context: an engine's context to run on, or NULL to create one for this run. */
parac_status fca_fcbo_cuda(const fca_search *search, int cuda_device, struct parac_cuda_context *shared_context,
                           parac_fca_gpu_strategy strategy, uint64_t pool_bytes, uint64_t max_device_bytes,
                           parac_fca_concepts *concepts, uint64_t *count, parac_error *error);
#endif

#ifdef __cplusplus
}
#endif
#endif

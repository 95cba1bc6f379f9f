/* fca/concept_set.c — the concept store (intents as records: bitsets over original
 * attribute ids, or short id lists in a streamed run: concept_record.c), the bitsets'
 * comparison behind the canonical order (sorted in concept_sort.c), and the public
 * accessors (whose stores, from parac_fca_compute, hold bitsets). A store attached to a
 * spill (a streamed run, concept_stream.c) never grows past the spill's store_limit: the
 * intents it holds then are sorted and written out. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fca/fca_internal.h"

parac_status fca_concepts_init(parac_fca_concepts *concepts, size_t attributes, parac_error *error)
{
    (void)error;
    memset(concepts, 0, sizeof *concepts);
    concepts->attributes = attributes;
    concepts->attribute_words = parac_bitset_words(attributes) ? parac_bitset_words(attributes) : 1;
    concepts->format.attributes = attributes;
    concepts->format.words = concepts->attribute_words;
    concepts->format.ids = 0;
    return PARAC_OK;
}

void fca_concepts_set_format(parac_fca_concepts *concepts, const fca_record_format *format)
{
    concepts->format = *format;
    concepts->packed = format->ids != 0;
}

void fca_concepts_attach_spill(parac_fca_concepts *concepts, fca_concept_spill *spill)
{
    concepts->spill = spill;
    if (spill) fca_concepts_set_format(concepts, spill->format);
}

parac_status fca_concepts_init_worker(parac_fca_concepts *concepts, const fca_search *search, parac_error *error)
{
    parac_status status = fca_concepts_init(concepts, search->original_attributes, error);
    if (status != PARAC_OK) return status;
    if (search->store_format) fca_concepts_set_format(concepts, search->store_format);
    fca_concepts_attach_spill(concepts, search->concept_spill); /* a streamed run: spill beyond its share */
    return PARAC_OK;
}

/* Room for `wanted` words in intents. */
static parac_status reserve(parac_fca_concepts *concepts, size_t wanted, parac_error *error)
{
    size_t capacity = concepts->capacity ? concepts->capacity : 1024 * concepts->format.words;
    /* a packed record takes at most one word more than a whole one (its 0 after the longest row) */
    size_t limit = concepts->spill ? concepts->spill->store_limit * (concepts->format.words + 1) : SIZE_MAX;
    parac_word *grown;
    if (wanted <= concepts->capacity) return PARAC_OK;
    while (capacity < wanted) capacity *= 2;
    if (capacity > limit && wanted <= limit) capacity = limit; /* the budget's share, not the next power of two */
    grown = realloc(concepts->intents, capacity * sizeof(parac_word));
    if (!grown)
        return parac_fail_no_memory(error, "concept intents", (unsigned long long)capacity * sizeof(parac_word));
    concepts->intents = grown;
    concepts->capacity = capacity;
    return PARAC_OK;
}

/* Room for one more record (spilling the store first when it holds its share). */
static parac_status make_room(parac_fca_concepts *concepts, parac_error *error)
{
    parac_status status;
    if (concepts->spill && concepts->count >= concepts->spill->store_limit &&
        (status = fca_concept_spill_store(concepts->spill, concepts, 1, error)) != PARAC_OK)
        return status;
    /* a packed record may take one word more than a whole one */
    return reserve(concepts, concepts->used + concepts->format.words + 1, error);
}

static parac_status longer_than_rows(parac_error *error)
{
    return parac_fail(error, PARAC_ERR_INTERNAL, "fca: an intent longer than every object's row");
}

/* Counts the record just written at intents + used (words of it; 0: it did not fit the format). */
static parac_status appended(parac_fca_concepts *concepts, size_t words, parac_error *error)
{
    if (words == 0) return longer_than_rows(error);
    concepts->used += words;
    concepts->count++;
    return PARAC_OK;
}

parac_status fca_concepts_append(parac_fca_concepts *concepts, const parac_word *intent, parac_error *error)
{
    parac_status status = make_room(concepts, error);
    parac_word *to = concepts->intents + concepts->used;
    fca_record_format bitset = {concepts->attributes, concepts->attribute_words, 0};
    size_t count;
    if (status != PARAC_OK) return status;
    if (!concepts->packed)
        return appended(concepts, fca_record_encode(&concepts->format, intent, to) ? concepts->format.words : 0, error);
    /* packed: the ids straight into the slots (a record has room for format.ids of them, and the 0),
     * then made ids + 1 in place; a longer intent is only ever every attribute (no ids read then) */
    count = fca_record_ids(&bitset, intent, (uint32_t *)to, concepts->format.ids);
    return appended(concepts, fca_record_pack_ids(&concepts->format, (const uint32_t *)to, count, to), error);
}

parac_status fca_concepts_append_ids(parac_fca_concepts *concepts, const uint32_t *ids, size_t count,
                                     parac_error *error)
{
    parac_status status = make_room(concepts, error);
    parac_word *to = concepts->intents + concepts->used;
    if (status != PARAC_OK) return status;
    if (concepts->packed) return appended(concepts, fca_record_pack_ids(&concepts->format, ids, count, to), error);
    return appended(concepts, fca_record_encode_ids(&concepts->format, ids, count, to) ? concepts->format.words : 0,
                    error);
}

/* Spills what would not fit in target's share: target's intents, or source's own when they alone
 * pass it (source is sorted in place: it is emptied anyway). */
static parac_status spill_before_take(parac_fca_concepts *target, parac_fca_concepts *source, parac_error *error)
{
    fca_concept_spill *spill = target->spill;
    parac_status status = PARAC_OK;
    if (fca_concepts_total(target) + fca_concepts_total(source) <= spill->store_limit) return PARAC_OK;
    if (fca_concepts_total(target)) status = fca_concept_spill_store(spill, target, 1, error);
    if (status == PARAC_OK && fca_concepts_total(source) > spill->store_limit)
        status = fca_concept_spill_store(spill, source, 1, error);
    return status;
}

/* A store smaller than this is copied into the target rather than kept as a part: a part is a
 * buffer of its own, and the sparse search's nested workers hand over many tiny stores. */
#define SMALLEST_PART_BYTES (64 * 1024)

static parac_status add_part(parac_fca_concepts *target, parac_word *intents, size_t count, parac_error *error)
{
    if (target->part_count == target->part_capacity) {
        size_t capacity = target->part_capacity ? 2 * target->part_capacity : 16;
        fca_store_part *grown = realloc(target->parts, capacity * sizeof *grown);
        if (!grown) return parac_fail_no_memory(error, "concept store parts", capacity * sizeof *grown);
        target->parts = grown;
        target->part_capacity = capacity;
    }
    target->parts[target->part_count].intents = intents;
    target->parts[target->part_count++].count = count;
    target->part_records += count;
    return PARAC_OK;
}

static parac_status copy_in(parac_fca_concepts *target, const parac_fca_concepts *source, parac_error *error)
{
    parac_status status = reserve(target, target->used + source->used, error);
    if (status != PARAC_OK || source->count == 0) return status;
    memcpy(target->intents + target->used, source->intents, source->used * sizeof(parac_word));
    target->used += source->used;
    target->count += source->count;
    return PARAC_OK;
}

parac_status fca_concepts_take(parac_fca_concepts *target, parac_fca_concepts *source, parac_error *error)
{
    parac_status status = target->spill ? spill_before_take(target, source, error) : PARAC_OK;
    if (status == PARAC_OK && source->used * sizeof(parac_word) < SMALLEST_PART_BYTES)
        status = copy_in(target, source, error);
    else if (status == PARAC_OK && (status = add_part(target, source->intents, source->count, error)) == PARAC_OK)
        source->intents = NULL; /* the target's now */
    for (size_t p = 0; p < source->part_count && status == PARAC_OK; p++) {
        status = add_part(target, source->parts[p].intents, source->parts[p].count, error);
        if (status == PARAC_OK) source->parts[p].intents = NULL;
    }
    fca_concepts_release(source);
    return status;
}

void fca_concepts_clear(parac_fca_concepts *concepts)
{
    for (size_t p = 0; p < concepts->part_count; p++) free(concepts->parts[p].intents);
    free(concepts->parts);
    concepts->parts = NULL;
    concepts->part_count = concepts->part_capacity = concepts->part_records = 0;
    concepts->count = concepts->used = 0;
    concepts->packed = concepts->format.ids != 0;
}

void fca_concepts_release(parac_fca_concepts *concepts)
{
    fca_concepts_clear(concepts);
    free(concepts->intents);
    concepts->intents = NULL;
    concepts->capacity = 0;
}

/* Lexicographic order of ascending id lists: at the first id p where the sets
 * differ, the set holding p comes first unless the other set ends before p
 * (then the other is a prefix and comes first). */
int fca_intent_compare(const parac_word *a, const parac_word *b, size_t words)
{
    for (size_t w = 0; w < words; w++) {
        parac_word differ = a[w] ^ b[w];
        if (differ) {
            int bit = __builtin_ctzll(differ);
            int a_has = (int)((a[w] >> bit) & 1);
            const parac_word *other = a_has ? b : a;
            parac_word above = bit == 63 ? 0 : other[w] >> bit >> 1;
            int other_continues = above != 0;
            for (size_t v = w + 1; v < words && !other_continues; v++) other_continues = other[v] != 0;
            if (other_continues) return a_has ? -1 : 1;
            return a_has ? 1 : -1;
        }
    }
    return 0;
}

void parac_fca_concepts_destroy(parac_fca_concepts *concepts)
{
    if (!concepts) return;
    fca_concepts_release(concepts);
    free(concepts);
}

size_t parac_fca_concepts_size(const parac_fca_concepts *concepts) { return concepts ? concepts->count : 0; }

size_t parac_fca_concept_intent(const parac_fca_concepts *concepts, size_t index, uint32_t *ids, size_t capacity)
{
    if (!concepts || index >= concepts->count) return 0;
    return fca_record_ids(&concepts->format, concepts->intents + index * concepts->format.words, ids, capacity);
}

size_t parac_fca_concept_extent(const parac_fca_context *context, const parac_fca_concepts *concepts, size_t index,
                                uint32_t *ids, size_t capacity)
{
    uint32_t *intent;
    size_t size, count;
    if (!concepts || index >= concepts->count || concepts->attributes != context->attributes) return 0;
    intent = malloc((concepts->attributes + 1) * sizeof *intent);
    if (!intent) return 0;
    size = fca_record_decode(&concepts->format, concepts->intents + index * concepts->format.words, intent);
    count = parac_fca_context_extent(context, intent, size, ids, capacity); /* bit matrices or cells */
    free(intent);
    return count;
}

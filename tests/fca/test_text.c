/* tests/fca/test_text.c — parac_fca_write_text against text built here from parac_fca_compute's
 * concepts (intents, extents from parac_fca_concept_extent, names from the context): the same bytes
 * on 1-4 threads, in memory and spilled (the merge's records are copied into the blocks), with and
 * without extents and names, and parac_fca_concepts_write_text on the computed set; bitset records
 * (mushroom: 238,710 concepts, several blocks) and id-list records (a wide sparse context, from the
 * sparse search's ids and the dense search's bitsets); a writer that stops; missing arguments. */
#include <stdlib.h>
#include <string.h>

#include <parac/fca.h>

#include "core/rng.h"
#include "core/text_buffer.h"
#include "support_fca.h"
#include "test_util.h"

typedef struct collected {
    parac_text_buffer text;
    size_t pieces, stop_after; /* stop_after pieces: non-zero from the writer */
} collected;

static int collect(void *user, const char *text, size_t size)
{
    collected *out = user;
    parac_text_append(&out->text, text, size);
    out->pieces++;
    return out->stop_after && out->pieces == out->stop_after;
}

static void append_ids(parac_text_buffer *text, const parac_fca_context *context, const uint32_t *ids, size_t count,
                       int names, int objects)
{
    for (size_t i = 0; i < count; i++) {
        const char *name = !names ? NULL
                           : objects ? parac_fca_context_object_name(context, ids[i])
                                     : parac_fca_context_attribute_name(context, ids[i]);
        if (i) parac_text_append(text, " ", 1);
        if (name) parac_text_append(text, name, strlen(name));
        else parac_text_append_uint(text, ids[i]);
    }
}

/* The text the CLI wrote before parac_fca_write_text, built concept by concept. */
static parac_text_buffer expected_text(const parac_fca_context *context, const parac_fca_text_options *options)
{
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, 0);
    size_t attributes = parac_fca_context_attributes(context), objects = parac_fca_context_objects(context);
    uint32_t *ids = malloc((attributes > objects ? attributes : objects) * sizeof *ids + 4);
    parac_text_buffer text = {0};
    for (size_t c = 0; concepts && c < parac_fca_concepts_size(concepts); c++) {
        size_t size = parac_fca_concept_intent(concepts, c, ids, attributes);
        append_ids(&text, context, ids, size, options->names, 0);
        if (options->extents) {
            parac_text_append(&text, " | ", 3);
            size = parac_fca_concept_extent(context, concepts, c, ids, objects);
            append_ids(&text, context, ids, size, options->names, 1);
        }
        parac_text_append(&text, "\n", 1);
    }
    free(ids);
    parac_fca_concepts_destroy(concepts);
    return text;
}

static uint64_t newlines(const parac_text_buffer *text)
{
    uint64_t count = 0;
    for (size_t i = 0; i < text->size; i++) count += text->bytes[i] == '\n';
    return count;
}

/* parac_fca_concepts_write_text on the computed set: the same bytes on 1 and 3 threads. */
static void check_computed(const parac_fca_context *context, const parac_fca_text_options *text,
                           const parac_text_buffer *expected, const char *label)
{
    parac_fca_concepts *concepts = fca_test_compute(context, PARAC_DEVICE_CPU, 1, 0);
    for (int threads = 1; concepts && threads <= 3; threads += 2) {
        collected out = {{0}, 0, 0};
        parac_error error = {0};
        CHECK_OK(parac_fca_concepts_write_text(context, concepts, text, threads, collect, &out, &error), &error);
        CHECK(out.text.size == expected->size &&
                  (expected->size == 0 || memcmp(out.text.bytes, expected->bytes, expected->size) == 0),
              "%s (extents %d, names %d, computed, %d threads): %zu bytes, expected %zu, or others", label,
              text->extents, text->names, threads, out.text.size, expected->size);
        parac_text_buffer_free(&out.text);
    }
    parac_fca_concepts_destroy(concepts);
}

/* thread_step 1: 1-4 threads; 3: 1 and 4 (mushroom's extents take seconds a run under the sanitizers).
 * The dense search hands bitsets to the stores (packed there on a wide context), the sparse one ids. */
static void check_context(const parac_fca_context *context, const char *label, int with_names, int thread_step,
                          parac_fca_cpu_strategy strategy)
{
    static const uint64_t budgets[] = {0, 20000};
    for (int variant = 0; variant < (with_names ? 4 : 2); variant++) {
        parac_fca_text_options text = {variant & 1, variant >> 1};
        parac_text_buffer expected = expected_text(context, &text);
        for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
            for (int threads = 1; threads <= 4; threads += thread_step) {
                parac_fca_options options;
                collected out = {{0}, 0, 0};
                parac_error error = {0};
                uint64_t count = 0;
                parac_fca_options_init(&options);
                options.exec.device = PARAC_DEVICE_CPU;
                options.exec.threads = threads;
                options.max_host_bytes = budgets[b];
                options.cpu_strategy = strategy;
                CHECK_OK(parac_fca_write_text(context, &options, &text, collect, &out, &count, &error), &error);
                CHECK(out.text.size == expected.size &&
                          (expected.size == 0 || memcmp(out.text.bytes, expected.bytes, expected.size) == 0),
                      "%s (extents %d, names %d, budget %llu, %d threads): %zu bytes, expected %zu, or others", label,
                      text.extents, text.names, (unsigned long long)budgets[b], threads, out.text.size, expected.size);
                CHECK(count == newlines(&expected), "%s: %llu concepts written, %llu lines expected", label,
                      (unsigned long long)count, (unsigned long long)newlines(&expected));
                parac_text_buffer_free(&out.text);
            }
        check_computed(context, &text, &expected, label);
        parac_text_buffer_free(&expected);
    }
}

/* A wide sparse context (3,000 attributes, rows of at most 12): its records are id lists. */
static parac_fca_context *wide_sparse_context(void)
{
    const size_t objects = 500, attributes = 3000;
    uint8_t *cells = calloc(objects * attributes, 1);
    parac_fca_context *context = NULL;
    parac_error error;
    parac_rng rng;
    parac_rng_seed(&rng, 11);
    for (size_t o = 0; o < objects; o++)
        for (size_t k = 1 + parac_rng_below(&rng, 12); k > 0; k--) { /* popular attributes: shared prefixes */
            size_t attribute = parac_rng_below(&rng, 3) ? parac_rng_below(&rng, 40) : parac_rng_below(&rng, attributes);
            cells[o * attributes + attribute] = 1;
        }
    CHECK_OK(parac_fca_context_create(objects, attributes, cells, &context, &error), &error);
    free(cells);
    return context;
}

static void check_stop_and_arguments(const parac_fca_context *context)
{
    parac_fca_options options;
    collected out = {{0}, 0, 1};
    parac_error error = {0};
    uint64_t count = 7;
    parac_status status;
    parac_fca_options_init(&options);
    options.exec.device = PARAC_DEVICE_CPU;
    options.exec.threads = 2;
    status = parac_fca_write_text(context, &options, NULL, collect, &out, &count, &error);
    CHECK(status == PARAC_ERR_CANCELLED && out.pieces == 1 && count == 0,
          "a writer that stops after its first piece: status %d, %zu pieces, %llu counted", (int)status, out.pieces,
          (unsigned long long)count);
    parac_text_buffer_free(&out.text);
    CHECK(parac_fca_write_text(context, NULL, NULL, NULL, NULL, NULL, &error) == PARAC_ERR_INVALID_ARGUMENT,
          "no writer");
    CHECK(parac_fca_write_text(NULL, NULL, NULL, collect, &out, NULL, &error) == PARAC_ERR_INVALID_ARGUMENT,
          "no context");
}

int main(void)
{
    static const char named[] = "B\n\n4\n3\n\nduck\nowl\nfrog\ncat\nflies\nswims\nfurry\nXX.\nX..\n.X.\n..X\n";
    parac_fca_context *context = NULL;
    parac_error error;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        char label[64];
        context = fca_test_random_context(30 + seed * 10, 8 + seed * 9, 0.3, seed);
        snprintf(label, sizeof label, "random seed %llu", (unsigned long long)seed);
        if (context) check_context(context, label, 0, 1, PARAC_FCA_CPU_AUTO);
        if (context && seed == 1) check_stop_and_arguments(context);
        parac_fca_context_destroy(context);
    }
    CHECK_OK(parac_fca_context_read_memory(named, sizeof named - 1, "animals.cxt", PARAC_FCA_FORMAT_CXT, &context,
                                           &error),
             &error);
    if (context) check_context(context, "named .cxt", 1, 1, PARAC_FCA_CPU_AUTO);
    parac_fca_context_destroy(context);
    context = wide_sparse_context();
    if (context) check_context(context, "wide sparse", 0, 1, PARAC_FCA_CPU_SPARSE);
    if (context) check_context(context, "wide sparse, dense search", 0, 3, PARAC_FCA_CPU_ON_DEMAND);
    parac_fca_context_destroy(context);
    context = fca_test_read_shared("mushroom.dat");
    if (context) check_context(context, "mushroom", 0, 3, PARAC_FCA_CPU_AUTO);
    parac_fca_context_destroy(context);
    return test_finish("fca.text");
}

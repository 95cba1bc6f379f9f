/* csp/xcsp3_writer.c — a network as XCSP3 (parac_csp_write_xcsp3).
 *
 * Variables are written as one array x[N] (names are not kept: XCSP3 ids
 * cannot hold "x[3]"-style names of other arrays); domains are the initially
 * present values. Each binary constraint lists its supports or its conflicts,
 * whichever is shorter, as values. Constraints are formatted in parallel into
 * per-constraint text blocks, then written in order, so the bytes do not depend
 * on the thread count; a 10^8-edge network is written in seconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/threads.h"
#include "csp/csp_handle.h"

#define WRITE_BATCH 4096

typedef struct text {
    char *data;
    size_t length, capacity;
    int failed;
} text;

static void reserve(text *t, size_t more)
{
    size_t capacity;
    char *grown;
    if (t->length + more <= t->capacity || t->failed) return;
    capacity = t->capacity ? t->capacity : 4096;
    while (capacity < t->length + more) capacity *= 2;
    grown = realloc(t->data, capacity);
    if (!grown) {
        t->failed = 1;
        return;
    }
    t->data = grown;
    t->capacity = capacity;
}

static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    reserve(t, n);
    if (t->failed) return;
    memcpy(t->data + t->length, s, n);
    t->length += n;
}

static void put_int(text *t, int64_t value)
{
    char digits[24];
    int n = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    reserve(t, 24);
    if (t->failed) return;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (value < 0) t->data[t->length++] = '-';
    while (n) t->data[t->length++] = digits[--n];
}

static int present(const parac_csp_network *n, uint32_t var, uint32_t slot)
{
    return parac_bitset_test(n->present, (size_t)(n->value_offset[var] + slot));
}

static void put_domain(text *t, const parac_csp_network *n, uint32_t var)
{
    for (uint32_t s = 0; s < n->domain_size[var]; s++) {
        if (!present(n, var, s)) continue;
        put(t, " ");
        put_int(t, n->values[n->value_offset[var] + s]);
    }
}

static int same_domains(const parac_csp_network *n)
{
    for (size_t v = 1; v < n->variable_count; v++) {
        if (n->domain_size[v] != n->domain_size[0]) return 0;
        for (uint32_t s = 0; s < n->domain_size[v]; s++)
            if (n->values[n->value_offset[v] + s] != n->values[s] || present(n, (uint32_t)v, s) != present(n, 0, s))
                return 0;
    }
    return 1;
}

static void put_variables(text *t, const parac_csp_network *n)
{
    put(t, "<instance format=\"XCSP3\" type=\"CSP\">\n  <variables>\n    <array id=\"x\" size=\"[");
    put_int(t, (int64_t)n->variable_count);
    put(t, "]\">");
    if (n->variable_count && same_domains(n)) {
        put_domain(t, n, 0);
        put(t, " </array>\n  </variables>\n  <constraints>\n");
        return;
    }
    put(t, "\n");
    for (size_t v = 0; v < n->variable_count; v++) {
        put(t, "      <domain for=\"x[");
        put_int(t, (int64_t)v);
        put(t, "]\">");
        put_domain(t, n, (uint32_t)v);
        put(t, " </domain>\n");
    }
    put(t, "    </array>\n  </variables>\n  <constraints>\n");
}

static void put_scope(text *t, const parac_csp_constraint *c)
{
    put(t, "    <extension>\n      <list>");
    for (uint32_t i = 0; i < c->arity; i++) {
        put(t, " x[");
        put_int(t, c->scope[i]);
        put(t, "]");
    }
    put(t, " </list>\n");
}

static void put_binary(text *t, const parac_csp_network *n, const parac_csp_constraint *c)
{
    uint32_t x = c->scope[0], y = c->scope[1];
    uint64_t allowed = 0, pairs = 0;
    int as_supports;
    for (uint32_t a = 0; a < n->domain_size[x]; a++) {
        if (!present(n, x, a)) continue;
        for (uint32_t b = 0; b < n->domain_size[y]; b++) {
            if (!present(n, y, b)) continue;
            pairs++;
            allowed += (uint64_t)parac_bitset_test(c->matrix + (size_t)a * c->row_words, b);
        }
    }
    as_supports = allowed * 2 <= pairs;
    put_scope(t, c);
    put(t, as_supports ? "      <supports> " : "      <conflicts> ");
    for (uint32_t a = 0; a < n->domain_size[x]; a++) {
        if (!present(n, x, a)) continue;
        for (uint32_t b = 0; b < n->domain_size[y]; b++) {
            if (!present(n, y, b) || parac_bitset_test(c->matrix + (size_t)a * c->row_words, b) != as_supports) continue;
            put(t, "(");
            put_int(t, n->values[n->value_offset[x] + a]);
            put(t, ",");
            put_int(t, n->values[n->value_offset[y] + b]);
            put(t, ")");
        }
    }
    put(t, as_supports ? " </supports>\n    </extension>\n" : " </conflicts>\n    </extension>\n");
}

static void put_table(text *t, const parac_csp_network *n, const parac_csp_constraint *c)
{
    put_scope(t, c);
    put(t, "      <supports> ");
    for (size_t k = 0; k < c->tuple_count; k++) {
        const uint32_t *tuple = c->tuples + k * c->arity;
        int all_present = 1;
        for (uint32_t i = 0; i < c->arity; i++) all_present &= present(n, c->scope[i], tuple[i]);
        if (!all_present) continue;
        for (uint32_t i = 0; i < c->arity; i++) {
            put(t, i ? "," : "(");
            put_int(t, n->values[n->value_offset[c->scope[i]] + tuple[i]]);
        }
        put(t, ")");
    }
    put(t, " </supports>\n    </extension>\n");
}

/* Formats constraints [start, end) into texts[0..], in parallel. 0 ok, -1 out of memory. */
static int format_batch(const parac_csp_network *n, size_t start, size_t end, text *texts, int threads)
{
    int failed = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 8) reduction(| : failed)
    for (int64_t i = (int64_t)start; i < (int64_t)end; i++) {
        text *t = &texts[i - (int64_t)start];
        const parac_csp_constraint *c = &n->constraints[i];
        t->length = 0;
        if (c->arity == 2) put_binary(t, n, c);
        else put_table(t, n, c);
        failed |= t->failed;
    }
    return failed ? -1 : 0;
}

static parac_status write_constraints(FILE *out, const parac_csp_network *n, int threads, const char *path,
                                      parac_error *error)
{
    text *texts = calloc(WRITE_BATCH, sizeof *texts);
    parac_status status = PARAC_OK;
    if (!texts) return parac_fail_no_memory(error, "writer buffers", WRITE_BATCH * sizeof *texts);
    for (size_t start = 0; start < n->constraint_count && status == PARAC_OK; start += WRITE_BATCH) {
        size_t end = start + WRITE_BATCH < n->constraint_count ? start + WRITE_BATCH : n->constraint_count;
        if (format_batch(n, start, end, texts, threads) < 0) status = parac_fail_no_memory(error, "writer", 0);
        for (size_t i = start; i < end && status == PARAC_OK; i++)
            if (fwrite(texts[i - start].data, 1, texts[i - start].length, out) != texts[i - start].length)
                status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    }
    for (size_t i = 0; i < WRITE_BATCH; i++) free(texts[i].data);
    free(texts);
    return status;
}

parac_status parac_csp_write_xcsp3(const parac_csp *csp, const char *path, int threads, parac_error *error)
{
    const parac_csp_network *n = &csp->network;
    int to_stdout = !path || strcmp(path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(path, "wb");
    text head = {0};
    parac_status status = PARAC_OK;
    if (to_stdout) path = "<stdout>";
    if (!out) return parac_fail_at(error, PARAC_ERR_IO, path, 0, "cannot create: %s", strerror(errno));
    put_variables(&head, n);
    if (head.failed) status = parac_fail_no_memory(error, "writer", head.capacity);
    else if (fwrite(head.data, 1, head.length, out) != head.length)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    if (status == PARAC_OK) status = write_constraints(out, n, parac_threads_resolve(threads), path, error);
    if (status == PARAC_OK && fputs("  </constraints>\n</instance>\n", out) < 0)
        status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    if (to_stdout ? fflush(out) != 0 : fclose(out) != 0)
        if (status == PARAC_OK) status = parac_fail_at(error, PARAC_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    free(head.data);
    return status;
}

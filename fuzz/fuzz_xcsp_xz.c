/* fuzz/fuzz_xcsp_xz.c — the file path of the XCSP reader (xcsp_load_file): format detection from
 * the first bytes, the xz/lzma decoder, gzip/plain through zlib, and the byte budget counted
 * after decompression. The first byte picks the mode:
 *   even: the rest is written as is (corrupt or truncated .xz/.lzma/.gz streams, plain XML);
 *   odd:  the rest is XML that is xz-compressed first, so the decoder always yields a valid
 *         stream and the budgets see decompressed bytes (a byte budget of 16 KiB here).
 *
 * Speed (this target ran ~450 inputs a second, the others thousands): the bytes go to one
 * memory-backed file per process (memfd_create), rewritten for each input and opened by the reader
 * through its /proc/self/fd path, instead of a new file in /tmp created and removed per input; and
 * the odd mode compresses with LZMA2 at preset 0 but the smallest dictionary (4 KiB, not 256 KiB),
 * so that neither the encoder's match finder nor the decoder's dictionary (sized from the stream
 * header) is a fresh mapping per input. The decoder still reads real .xz streams of any header the
 * even mode gives it; inputs stay under the 16 KiB budget, so a larger window would find nothing
 * a 4 KiB one cannot. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lzma.h>

#include "xcsp_fuzz_common.h"

/* The process's one input file and the path the reader opens it by; aborts when it cannot be made. */
static const char *input_file(int *descriptor)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_xcsp_xz", 0);
        if (fd < 0) {
            perror("fuzz_xcsp_xz: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    *descriptor = fd;
    return path;
}

/* Replaces the file's contents with data; 1 on success. */
static int rewrite(int fd, const uint8_t *data, size_t size)
{
    size_t done = 0;
    if (ftruncate(fd, 0) != 0) return 0;
    while (done < size) {
        ssize_t wrote = pwrite(fd, data + done, size - done, (off_t)done);
        if (wrote <= 0) return 0;
        done += (size_t)wrote;
    }
    return 1;
}

/* data as one .xz stream (LZMA2, preset 0, 4 KiB dictionary, CRC32) in a new buffer; NULL on failure. */
static uint8_t *xz_compress(const uint8_t *data, size_t size, size_t *compressed_size)
{
    lzma_options_lzma lzma2;
    lzma_filter filters[2];
    size_t capacity = lzma_stream_buffer_bound(size);
    uint8_t *compressed = malloc(capacity);
    *compressed_size = 0;
    if (!compressed || lzma_lzma_preset(&lzma2, 0)) {
        free(compressed);
        return NULL;
    }
    lzma2.dict_size = LZMA_DICT_SIZE_MIN;
    filters[0].id = LZMA_FILTER_LZMA2, filters[0].options = &lzma2;
    filters[1].id = LZMA_VLI_UNKNOWN, filters[1].options = NULL;
    if (lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL, data, size, compressed, compressed_size,
                                  capacity) != LZMA_OK) {
        free(compressed);
        return NULL;
    }
    return compressed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xcsp_limits limits;
    parac_csp_load_options options;
    parac_csp *csp = NULL;
    parac_error error = {0};
    uint8_t *compressed = NULL;
    size_t compressed_size = 0;
    int fd, written;
    const char *path;
    if (size == 0) return 0;
    xcsp_fuzz_limits(&limits, &options, 1);
    limits.max_bytes = 1 << 14;
    if ((data[0] & 1) && !(compressed = xz_compress(data + 1, size - 1, &compressed_size))) return 0;
    path = input_file(&fd);
    written = compressed ? rewrite(fd, compressed, compressed_size) : rewrite(fd, data + 1, size - 1);
    if (written && xcsp_load_file(path, &options, &limits, &csp, &error) == PARAC_OK) {
        xcsp_fuzz_check_ac(csp);
        parac_csp_destroy(csp);
    }
    free(compressed);
    return 0;
}

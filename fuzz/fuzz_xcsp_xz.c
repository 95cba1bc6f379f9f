/* fuzz/fuzz_xcsp_xz.c — the file path of the XCSP reader (xcsp_load_file): format detection from
 * the first bytes, the xz/lzma decoder, gzip/plain through zlib, and the byte budget counted
 * after decompression. The first byte picks the mode:
 *   even: the rest is written as is (corrupt or truncated .xz/.lzma/.gz streams, plain XML);
 *   odd:  the rest is XML that is xz-compressed first, so the decoder always yields a valid
 *         stream and the budgets see decompressed bytes (a byte budget of 16 KiB here).
 * The bytes go to a mkstemp file in /tmp, removed before returning. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <lzma.h>

#include "xcsp_fuzz_common.h"

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    int ok = file && (size == 0 || fwrite(data, 1, size, file) == size);
    if (file && fclose(file) != 0) ok = 0;
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_xcsp_xz_XXXXXX";
    xcsp_limits limits;
    parac_csp_load_options options;
    parac_csp *csp = NULL;
    parac_error error = {0};
    uint8_t *compressed = NULL;
    size_t compressed_size = 0;
    int fd, written;
    if (size == 0) return 0;
    xcsp_fuzz_limits(&limits, &options, 1);
    limits.max_bytes = 1 << 14;
    if (data[0] & 1) {
        size_t capacity = lzma_stream_buffer_bound(size - 1);
        compressed = malloc(capacity);
        if (!compressed || lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, data + 1, size - 1, compressed,
                                                   &compressed_size, capacity) != LZMA_OK) {
            free(compressed);
            return 0;
        }
    }
    if ((fd = mkstemp(path)) < 0) {
        free(compressed);
        return 0;
    }
    close(fd);
    written = compressed ? write_file(path, compressed, compressed_size) : write_file(path, data + 1, size - 1);
    if (written && xcsp_load_file(path, &options, &limits, &csp, &error) == PARAC_OK) {
        xcsp_fuzz_check_ac(csp);
        parac_csp_destroy(csp);
    }
    unlink(path);
    free(compressed);
    return 0;
}

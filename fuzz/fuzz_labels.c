/* fuzz/fuzz_labels.c — the label-file reader (parac_labels_load: .npy int32/int64, or text with one
 * integer per line), the input of `parac metrics --labels/--truth`. The reader takes a path and
 * decides by extension, so the bytes go to a temporary file named .npy when they start with the
 * NumPy magic and .txt otherwise. Any input must give PARAC_OK or a clean error, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/matrix_file.h"

/* Writes the bytes to DIRECTORY/input<suffix> in a fresh mkdtemp directory (mkstemps, which keeps
 * a suffix, is not POSIX). Returns 0 on success. */
static int write_temp_file(const uint8_t *data, size_t size, const char *suffix, char *directory,
                           size_t directory_size, char *path, size_t path_size)
{
    FILE *file;
    size_t wrote;
    snprintf(directory, directory_size, "/tmp/parac-fuzz-labels-XXXXXX");
    if (!mkdtemp(directory)) return -1;
    snprintf(path, path_size, "%s/input%s", directory, suffix);
    file = fopen(path, "wb");
    if (!file) {
        rmdir(directory);
        return -1;
    }
    wrote = size ? fwrite(data, 1, size, file) : 0;
    if (fclose(file) != 0 || wrote != size) {
        unlink(path);
        rmdir(directory);
        return -1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    const char *suffix = size >= 6 && memcmp(data, npy_magic, 6) == 0 ? ".npy" : ".txt";
    char directory[64], path[96];
    int32_t *labels = NULL;
    size_t count = 0;
    parac_error error;
    if (write_temp_file(data, size, suffix, directory, sizeof directory, path, sizeof path) != 0) return 0;
    if (parac_labels_load(path, &labels, &count, &error) == PARAC_OK) {
        /* Touch every label so an over-short buffer shows up under ASan. */
        volatile int64_t sum = 0;
        for (size_t i = 0; i < count; i++) sum += labels[i];
        (void)sum;
    }
    free(labels);
    unlink(path);
    rmdir(directory);
    return 0;
}

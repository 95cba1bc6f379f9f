/* fuzz/fuzz_labels.c — label files (parac_labels_load): text, one integer per
 * line; an input starting with the .npy magic is read as .npy. */
#include "core/matrix_file.h"
#include "temp_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_SIZE];
    parac_error error = {0};
    int32_t *labels = NULL;
    size_t count = 0;
    const char *suffix = size >= 6 && memcmp(data, "\x93NUMPY", 6) == 0 ? ".npy" : ".txt";
    if (fuzz_write_temp(data, size, suffix, path)) return 0;
    if (parac_labels_load(path, &labels, &count, &error) == PARAC_OK) free(labels);
    fuzz_remove_temp(path);
    return 0;
}

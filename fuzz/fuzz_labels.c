/* fuzz/fuzz_labels.c — label files from memory (parac_labels_load_input, the body of
 * parac_labels_load): text, one integer per line; an input starting with the .npy magic is named
 * "fuzz.npy" and so read as .npy, as a file of that name would be. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/matrix_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parac_error error = {0};
    int32_t *labels = NULL;
    size_t count = 0;
    const char *name = size >= 6 && memcmp(data, "\x93NUMPY", 6) == 0 ? "fuzz.npy" : "fuzz.txt";
    parac_input input = parac_input_memory(data, size, name);
    if (parac_labels_load_input(&input, &labels, &count, &error) == PARAC_OK) free(labels);
    return 0;
}

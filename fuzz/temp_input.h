/* fuzz/temp_input.h — the readers take paths, and pick formats by extension:
 * each fuzz input is written to "input<suffix>" in a fresh temporary directory
 * (mkdtemp in /tmp: POSIX, unlike mkstemps), read through, then removed. */
#ifndef PARAC_FUZZ_TEMP_INPUT_H
#define PARAC_FUZZ_TEMP_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_PATH_SIZE 96

/* Writes data to /tmp/parac-fuzz-XXXXXX/input<suffix>; path receives the name. 0 on success. */
static int fuzz_write_temp(const uint8_t *data, size_t size, const char *suffix, char path[FUZZ_PATH_SIZE])
{
    char directory[] = "/tmp/parac-fuzz-XXXXXX";
    FILE *file;
    int ok;
    if (!mkdtemp(directory)) return -1;
    snprintf(path, FUZZ_PATH_SIZE, "%s/input%s", directory, suffix);
    file = fopen(path, "wb");
    if (!file) {
        rmdir(directory);
        return -1;
    }
    ok = fwrite(data, 1, size, file) == size;
    ok = fclose(file) == 0 && ok;
    if (!ok) {
        unlink(path);
        rmdir(directory);
        return -1;
    }
    return 0;
}

/* Removes the file and its directory. */
static void fuzz_remove_temp(char path[FUZZ_PATH_SIZE])
{
    char *slash = strrchr(path, '/');
    unlink(path);
    if (slash) {
        *slash = '\0';
        rmdir(path);
    }
}

#endif

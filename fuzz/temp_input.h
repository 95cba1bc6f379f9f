/* fuzz/temp_input.h — the readers take paths, and pick formats by extension:
 * each fuzz input is written to a fresh temporary file with the right suffix
 * (mkstemps in /tmp), read through, then unlinked. */
#ifndef PARAC_FUZZ_TEMP_INPUT_H
#define PARAC_FUZZ_TEMP_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes data to /tmp/parac-fuzz-XXXXXX<suffix>; path[64] receives the name. 0 on success. */
static int fuzz_write_temp(const uint8_t *data, size_t size, const char *suffix, char path[64])
{
    int fd;
    size_t done = 0;
    snprintf(path, 64, "/tmp/parac-fuzz-XXXXXX%s", suffix);
    fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0) return -1;
    while (done < size) {
        ssize_t wrote = write(fd, data + done, size - done);
        if (wrote <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)wrote;
    }
    close(fd);
    return 0;
}

#endif

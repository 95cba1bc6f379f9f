/* fuzz/replay_main.c — the main() that turns a libFuzzer target into an ordinary test.
 *
 * Every fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput. In the ordinary build (any compiler, no
 * libFuzzer) it is linked with this file and run by ctest as "fuzz.replay_<name>" over its seed
 * corpus (fuzz/corpus/<name>/) and its regression inputs (tests/regress/<name>/): each file is fed
 * once, in name order, from a buffer of exactly its size (so the ASan build catches over-reads).
 * A crash or sanitizer report fails the test; so does a non-zero return (libFuzzer reserves it) and
 * an empty or missing corpus (a target without seeds would test nothing).
 *
 *   usage: fuzz_replay_<name> CORPUS_DIR [MORE_DIRS_OR_FILES...]   (missing extra dirs are fine)
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target, as in libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads a whole file into a malloc'd buffer of exactly its size (1 byte for an empty file). */
static uint8_t *read_whole_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    uint8_t *data = NULL;
    long length;
    if (!file) return NULL;
    if (fseek(file, 0, SEEK_END) == 0 && (length = ftell(file)) >= 0 && fseek(file, 0, SEEK_SET) == 0) {
        data = malloc(length ? (size_t)length : 1);
        if (data && fread(data, 1, (size_t)length, file) != (size_t)length) {
            free(data);
            data = NULL;
        }
        *size = (size_t)length;
    }
    fclose(file);
    return data;
}

/* Feeds one file; returns 0 when the target returned 0. */
static int replay_file(const char *path)
{
    size_t size = 0;
    uint8_t *data = read_whole_file(path, &size);
    int result;
    if (!data) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        return 1;
    }
    result = LLVMFuzzerTestOneInput(data, size);
    free(data);
    if (result != 0) fprintf(stderr, "replay: %s: LLVMFuzzerTestOneInput returned %d (must be 0)\n", path, result);
    return result != 0;
}

/* Feeds every regular, non-hidden file of a directory in name order; counts them in *files. */
static int replay_directory(const char *directory, int *files)
{
    DIR *dir = opendir(directory);
    struct dirent *entry;
    char **names = NULL, path[4096];
    size_t count = 0, capacity = 0;
    int failures = 0;
    if (!dir) return 0; /* an absent tests/regress/<name> is normal */
    while ((entry = readdir(dir)) != NULL) {
        struct stat info;
        if (entry->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
        if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) continue;
        if (count == capacity) {
            char **grown = realloc(names, (capacity = capacity ? 2 * capacity : 64) * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        if (!(names[count] = strdup(entry->d_name))) break;
        count++;
    }
    closedir(dir);
    if (count) qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", directory, names[i]);
        failures += replay_file(path);
        free(names[i]);
    }
    free(names);
    *files += (int)count;
    printf("replay: %zu file(s) from %s\n", count, directory);
    return failures;
}

int main(int argc, char **argv)
{
    int failures = 0, corpus_files = 0, files = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR [MORE_DIRS_OR_FILES...]\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat info;
        if (stat(argv[i], &info) == 0 && S_ISREG(info.st_mode)) {
            failures += replay_file(argv[i]);
            files++;
        } else {
            failures += replay_directory(argv[i], &files);
        }
        if (i == 1) corpus_files = files;
    }
    if (corpus_files == 0) {
        fprintf(stderr, "replay: no seed inputs in %s (a fuzz target needs a committed corpus)\n", argv[1]);
        return 1;
    }
    printf("replay: %d input(s), %d failed\n", files, failures);
    return failures ? 1 : 0;
}

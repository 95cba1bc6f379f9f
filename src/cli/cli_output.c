/* cli/cli_output.c — every output file is written whole or not at all.
 *
 * A command never writes its target directly: it writes a temporary file beside it
 * (".parac-<pid>-<n>-<name>", same folder so the final rename is atomic, same name ending so
 * savers that pick the format from the extension still do) and renames it over the target only
 * once every write, the flush and the close succeeded. On failure or Ctrl-C the temporary file is
 * removed and the target keeps its old contents. Targets that are not regular files (/dev/null,
 * /dev/full, a FIFO, /dev/stdout) are written in place, with the same checks. An output that is
 * the same file as an input (compared by device and inode, so hard links and symlinks count) is
 * refused before anything runs. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/text_buffer.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#define NAME_LIMIT 255 /* longest file name most file systems take */

static int is_stdout_path(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

/* Two outputs of one command naming one file: the second rename would silently win. */
static int same_output(const char *a, const char *b)
{
    struct stat a_stat, b_stat;
    if (is_stdout_path(a) || is_stdout_path(b)) return 0;
    if (strcmp(a, b) == 0) return 1;
    return stat(a, &a_stat) == 0 && stat(b, &b_stat) == 0 && S_ISREG(a_stat.st_mode) &&
           a_stat.st_dev == b_stat.st_dev && a_stat.st_ino == b_stat.st_ino;
}

parac_status cli_check_outputs(const char *const *outputs, size_t output_count, const char *const *inputs,
                               size_t input_count, parac_error *error)
{
    for (size_t o = 0; o < output_count; o++) {
        struct stat output_stat, input_stat;
        for (size_t earlier = 0; earlier < o; earlier++)
            if (same_output(outputs[earlier], outputs[o]))
                return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, outputs[o], 0,
                                     "is given for two outputs; give each its own file");
        if (is_stdout_path(outputs[o]) || stat(outputs[o], &output_stat) != 0) continue; /* new file: no clash */
        for (size_t i = 0; i < input_count; i++) {
            if (is_stdout_path(inputs[i]) || stat(inputs[i], &input_stat) != 0) continue;
            if (output_stat.st_dev == input_stat.st_dev && output_stat.st_ino == input_stat.st_ino)
                return parac_fail_at(error, PARAC_ERR_INVALID_ARGUMENT, outputs[o], 0,
                                     "is the input file %s; writing it would destroy the input", inputs[i]);
        }
    }
    return PARAC_OK;
}

/* The file to replace: a symlink's target (so the link stays and its file gets the output). */
static void resolve_target(cli_output *out, const char *path)
{
    struct stat link_stat;
    char *resolved = NULL;
    if (lstat(path, &link_stat) == 0 && S_ISLNK(link_stat.st_mode)) resolved = realpath(path, NULL);
    if (resolved && strlen(resolved) < sizeof out->target) snprintf(out->target, sizeof out->target, "%s", resolved);
    else snprintf(out->target, sizeof out->target, "%s", path);
    free(resolved);
}

/* Creates the temporary file beside out->target; its name keeps the target's ending. */
static parac_status reserve_temporary(cli_output *out, mode_t mode, parac_error *error)
{
    static unsigned serial = 0;
    const char *slash = strrchr(out->target, '/');
    const char *base = slash ? slash + 1 : out->target;
    int directory_length = slash ? (int)(slash - out->target + 1) : 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        char prefix[64];
        const char *ending = base;
        int fd, length = snprintf(prefix, sizeof prefix, ".parac-%ld-%u-", (long)getpid(), serial++);
        if (length + strlen(base) > NAME_LIMIT) { /* keep only the extensions */
            ending = strchr(base + 1, '.');
            if (!ending || strlen(ending) > 32) ending = "";
        }
        if ((size_t)directory_length + (size_t)length + strlen(ending) + 1 > sizeof out->temporary)
            return parac_fail_at(error, PARAC_ERR_IO, out->given, 0, "path too long");
        memcpy(out->temporary, out->target, (size_t)directory_length);
        memcpy(out->temporary + directory_length, prefix, (size_t)length);
        memcpy(out->temporary + directory_length + length, ending, strlen(ending) + 1);
        fd = open(out->temporary, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            if (mode) (void)fchmod(fd, mode); /* a replaced file keeps its permissions */
            close(fd);
            out->signal_ticket = cli_signals_track(out->temporary) + 1;
            return PARAC_OK;
        }
        if (errno != EEXIST) /* the folder refuses a new file: say so, the target itself may be writable */
            return parac_fail_at(error, PARAC_ERR_IO, out->given, 0, "cannot create a file in its folder: %s",
                                 strerror(errno));
    }
    return parac_fail_at(error, PARAC_ERR_IO, out->given, 0, "cannot create a temporary file beside it");
}

parac_status cli_output_begin(cli_output *out, const char *path, parac_error *error)
{
    struct stat target_stat;
    parac_status status;
    memset(out, 0, sizeof *out);
    out->given = is_stdout_path(path) ? "<stdout>" : path;
    out->path = path;
    if (is_stdout_path(path)) return PARAC_OK;
    resolve_target(out, path);
    if (stat(out->target, &target_stat) == 0 && !S_ISREG(target_stat.st_mode)) return PARAC_OK; /* a device: in place */
    status = reserve_temporary(out, stat(out->target, &target_stat) == 0 ? target_stat.st_mode & 07777 : 0, error);
    if (status != PARAC_OK) return status;
    out->path = out->temporary;
    out->renames = 1;
    return PARAC_OK;
}

int cli_write_text(void *file, const char *text, size_t size)
{
    FILE *out = file;
    fwrite(text, 1, size, out);
    return ferror(out) || cli_interrupted();
}

FILE *cli_output_open(cli_output *out, const char *path, parac_error *error)
{
    if (cli_output_begin(out, path, error) != PARAC_OK) return NULL;
    if (is_stdout_path(path)) return out->file = stdout;
    out->file = fopen(out->path, "w");
    if (!out->file) {
        parac_fail_at(error, PARAC_ERR_IO, out->given, 0, "cannot create: %s", strerror(errno));
        cli_output_abort(out, NULL);
    }
    return out->file;
}

/* Flushes and closes the stream of cli_output_open; 0 when every write reached the file. */
static int close_stream(cli_output *out, int *saved_errno)
{
    int failed;
    if (!out->file) return 0;
    failed = ferror(out->file);
    errno = 0;
    if (out->file == stdout) failed |= fflush(stdout) != 0 || ferror(stdout);
    else failed |= fclose(out->file) != 0;
    *saved_errno = errno;
    out->file = NULL;
    return failed;
}

parac_status cli_output_commit(cli_output *out, parac_error *error)
{
    int saved_errno = 0;
    if (close_stream(out, &saved_errno)) {
        parac_fail_at(error, PARAC_ERR_IO, out->given, 0, "write failed%s%s", saved_errno ? ": " : "",
                      saved_errno ? strerror(saved_errno) : "");
        cli_output_abort(out, NULL);
        return PARAC_ERR_IO;
    }
    if (cli_interrupted()) { /* Ctrl-C while writing: the output may be whole, but the user said stop */
        cli_output_abort(out, NULL);
        return parac_fail(error, PARAC_ERR_CANCELLED, "interrupted");
    }
    if (out->renames && rename(out->temporary, out->target) != 0) {
        saved_errno = errno;
        cli_output_abort(out, NULL);
        return parac_fail_at(error, PARAC_ERR_IO, out->given, 0, "cannot replace: %s", strerror(saved_errno));
    }
    out->renames = 0;
    if (out->signal_ticket) cli_signals_untrack(out->signal_ticket - 1);
    out->signal_ticket = 0;
    return PARAC_OK;
}

/* "<temporary>: problem" from a saver becomes "<target>: problem". */
static void name_the_target(const cli_output *out, parac_error *error)
{
    size_t length = strlen(out->temporary);
    char message[PARAC_ERROR_MESSAGE_SIZE];
    char *found;
    if (!error || !length || !(found = strstr(error->message, out->temporary))) return;
    snprintf(message, sizeof message, "%.*s%s%s", (int)(found - error->message), error->message, out->given,
             found + length);
    snprintf(error->message, sizeof error->message, "%s", message);
}

void cli_output_abort(cli_output *out, parac_error *error)
{
    int ignored;
    if (out->file && out->file != stdout) fclose(out->file);
    else if (out->file) (void)close_stream(out, &ignored);
    out->file = NULL;
    if (out->renames) unlink(out->temporary);
    out->renames = 0;
    name_the_target(out, error);
    if (out->signal_ticket) cli_signals_untrack(out->signal_ticket - 1);
    out->signal_ticket = 0;
}

void cli_write_uint(FILE *out, uint32_t value)
{
    char text[PARAC_UINT_DIGITS];
    fwrite(text, 1, parac_format_uint(text, value), out);
}

void cli_write_ids(FILE *out, const uint32_t *ids, size_t count)
{
    char buffer[4096];
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (used + 11 > sizeof buffer) fwrite(buffer, 1, used, out), used = 0;
        if (i) buffer[used++] = ' ';
        used += parac_format_uint(buffer + used, ids[i]);
    }
    if (used) fwrite(buffer, 1, used, out);
}

void cli_write_fca_ids(FILE *out, const uint32_t *ids, size_t count, const parac_fca_context *context, int names,
                       int objects)
{
    if (!names) {
        cli_write_ids(out, ids, count);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const char *name = objects ? parac_fca_context_object_name(context, ids[i])
                                   : parac_fca_context_attribute_name(context, ids[i]);
        if (i) fputc(' ', out);
        if (name) fputs(name, out);
        else cli_write_uint(out, ids[i]);
    }
}

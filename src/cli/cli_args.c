/* cli/cli_args.c — GNU-style long options ("--eps 0.5", "--eps=0.5"), short
 * aliases ("-o FILE"), and the options every command shares. */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <parac/version.h>

/* Raw values of the options every command shares, before validation. */
typedef struct common_slots {
    const char *device;
    int threads;
    int64_t cuda_device;
    int json;
    int quiet;
    int64_t seed;
} common_slots;

#define COMMON_COUNT 6

static void common_options(common_slots *slots, cli_option options[COMMON_COUNT])
{
    const cli_option table[COMMON_COUNT] = {
        {"--device", 0, CLI_STRING, &slots->device, "auto|cpu|cuda", "where to run (auto: the faster by a cost model, --json says why)"},
        {"--threads", 0, CLI_INT, &slots->threads, "N", "CPU threads (default: all cores)"},
        {"--cuda-device", 0, CLI_INT64, &slots->cuda_device, "I", "CUDA device ordinal (default 0)"},
        {"--json", 0, CLI_FLAG, &slots->json, NULL, "print a one-line JSON summary last on stdout"},
        {"--quiet", 'q', CLI_FLAG, &slots->quiet, NULL, "no progress bar or warnings on stderr"},
        {"--seed", 0, CLI_INT64, &slots->seed, "S", "random seed (reproducible runs)"},
    };
    memcpy(options, table, sizeof table);
}


int cli_usage_error(const char *command, const char *format, ...)
{
    va_list args;
    fprintf(stderr, "parac: error: %s%s", command ? command : "", command ? ": " : "");
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, " (see 'parac %s%s--help')\n", command ? command : "", command ? " " : "");
    return CLI_EXIT_USAGE;
}

int cli_bad_value(const char *command, const char *format, ...)
{
    va_list args;
    fprintf(stderr, "parac: error: %s: ", command);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    return parac_status_exit_code(PARAC_ERR_INVALID_ARGUMENT);
}

static void print_option(const cli_option *option)
{
    char left[64];
    if (option->short_name)
        snprintf(left, sizeof left, "-%c, %s%s%s", option->short_name, option->name, option->metavar ? " " : "",
                 option->metavar ? option->metavar : "");
    else
        snprintf(left, sizeof left, "    %s%s%s", option->name, option->metavar ? " " : "",
                 option->metavar ? option->metavar : "");
    printf("  %-30s %s\n", left, option->help ? option->help : "");
}

static void print_help(const cli_command *command, const cli_option *common)
{
    printf("usage: parac %s %s\n\n%s\n\noptions:\n", command->name, command->usage, command->description);
    for (size_t i = 0; i < command->option_count; i++) print_option(&command->options[i]);
    printf("\ncommon options:\n");
    for (size_t i = 0; i < COMMON_COUNT; i++) print_option(&common[i]);
    printf("  %-30s %s\n", "-h, --help", "this help");
}

static const cli_option *find_option(const cli_option *options, size_t count, const char *name, size_t name_length,
                                     char short_name)
{
    for (size_t i = 0; i < count; i++) {
        if (short_name) {
            if (options[i].short_name == short_name) return &options[i];
        } else if (strlen(options[i].name) == name_length && strncmp(options[i].name, name, name_length) == 0) {
            return &options[i];
        }
    }
    return NULL;
}

static int store_value(const char *command, const cli_option *option, const char *value)
{
    char *end;
    errno = 0;
    switch (option->kind) {
    case CLI_FLAG: *(int *)option->target = 1; return 0;
    case CLI_STRING: *(const char **)option->target = value; return 0;
    /* Malformed text is a usage error (1); a number too large for its type is well-formed but out
     * of range: bad input (2), like any other out-of-range value. */
    case CLI_INT: {
        long parsed = strtol(value, &end, 10);
        if (*end || end == value) return cli_usage_error(command, "%s expects an integer, got '%s'", option->name, value);
        if (errno == ERANGE || parsed < -2147483647L || parsed > 2147483647L)
            return cli_bad_value(command, "%s %s is out of range", option->name, value);
        *(int *)option->target = (int)parsed;
        return 0;
    }
    case CLI_INT64: {
        long long parsed = strtoll(value, &end, 10);
        if (*end || end == value) return cli_usage_error(command, "%s expects an integer, got '%s'", option->name, value);
        if (errno == ERANGE) return cli_bad_value(command, "%s %s is out of range", option->name, value);
        *(int64_t *)option->target = parsed;
        return 0;
    }
    case CLI_DOUBLE: {
        double parsed = strtod(value, &end);
        if (*end || end == value || isnan(parsed) || (isinf(parsed) && errno != ERANGE))
            return cli_usage_error(command, "%s expects a finite number, got '%s'", option->name, value);
        if (errno == ERANGE && (isinf(parsed) || parsed == 0.0)) /* 1e999; 1e-999 underflows to 0 */
            return cli_bad_value(command, "%s %s is out of range", option->name, value);
        *(double *)option->target = parsed;
        return 0;
    }
    }
    return 0;
}

/* Handles argv[*index]; advances *index past a separate value. 0 ok, else exit code. */
static int parse_one_option(const cli_command *command, const cli_option *common, int argc, char **argv, int *index)
{
    const char *arg = argv[*index], *value = NULL, *equals;
    const cli_option *option;
    size_t name_length;
    if (arg[1] != '-') { /* -x */
        option = find_option(command->options, command->option_count, NULL, 0, arg[1]);
        if (!option) option = find_option(common, COMMON_COUNT, NULL, 0, arg[1]);
        if (!option || arg[2]) return cli_usage_error(command->name, "unknown option '%s'", arg);
    } else {
        equals = strchr(arg, '=');
        name_length = equals ? (size_t)(equals - arg) : strlen(arg);
        option = find_option(command->options, command->option_count, arg, name_length, 0);
        if (!option) option = find_option(common, COMMON_COUNT, arg, name_length, 0);
        if (!option) return cli_usage_error(command->name, "unknown option '%s'", arg);
        if (equals) value = equals + 1;
    }
    if (option->kind == CLI_FLAG) {
        if (value) return cli_usage_error(command->name, "%s takes no value", option->name);
        return store_value(command->name, option, "1");
    }
    if (!value) {
        if (*index + 1 >= argc) return cli_usage_error(command->name, "%s needs a value", option->name);
        value = argv[++*index];
    }
    return store_value(command->name, option, value);
}

static int finish_common(const cli_command *command, const common_slots *slots, cli_common *common)
{
    const char *device_text = slots->device;
    memset(common, 0, sizeof *common);
    if (!device_text || strcmp(device_text, "auto") == 0) common->exec.device = PARAC_DEVICE_AUTO;
    else if (strcmp(device_text, "cpu") == 0) common->exec.device = PARAC_DEVICE_CPU;
    else if (strcmp(device_text, "cuda") == 0 || strcmp(device_text, "gpu") == 0) common->exec.device = PARAC_DEVICE_CUDA;
    else return cli_usage_error(command->name, "--device must be auto, cpu or cuda, got '%s'", device_text);
    if (slots->threads < 0) return cli_bad_value(command->name, "--threads must be >= 1 (0: all cores), got %d", slots->threads);
    if (slots->cuda_device < 0 || slots->cuda_device > 1024)
        return cli_bad_value(command->name, "--cuda-device must be between 0 and 1024");
    common->exec.threads = slots->threads;
    common->exec.cuda_device = (int)slots->cuda_device;
    common->json = slots->json;
    common->quiet = slots->quiet;
    common->seed = (uint64_t)slots->seed;
    common->seed_given = slots->seed != 0;
    /* A bar on stderr for long runs: drawn only on a terminal, never with --quiet. */
    parac_progress_start(&common->progress, command->name, !common->quiet);
    common->exec.progress = cli_progress;
    common->exec.progress_user_data = &common->progress;
    common->exec.chosen = &common->device_choice;
    return CLI_CONTINUE;
}

int cli_parse(const cli_command *command, int argc, char **argv, cli_common *common, const char **positionals,
              int *positional_count)
{
    int only_positionals = 0;
    common_slots slots = {0};
    cli_option common_table[COMMON_COUNT];
    common_options(&slots, common_table);
    *positional_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_positionals && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            print_help(command, common_table);
            return CLI_EXIT_OK;
        }
        if (!only_positionals && strcmp(arg, "--") == 0) {
            only_positionals = 1;
        } else if (!only_positionals && arg[0] == '-' && arg[1] != '\0') {
            int code = parse_one_option(command, common_table, argc, argv, &i);
            if (code) return code;
        } else {
            if (*positional_count >= command->max_positionals)
                return cli_usage_error(command->name, "unexpected argument '%s'", arg);
            positionals[(*positional_count)++] = arg;
        }
    }
    if (*positional_count < command->min_positionals)
        return cli_usage_error(command->name, "missing argument (usage: parac %s %s)", command->name, command->usage);
    return finish_common(command, &slots, common);
}

int cli_parse_byte_size(const char *text, uint64_t *bytes)
{
    char *end = NULL;
    unsigned long long value, shift = 0;
    if (text && text[0] == '-') return cli_parse_byte_size(text + 1, bytes) == -1 ? -1 : -2; /* -5M: negative */
    if (!text || *text < '0' || *text > '9') return -1;
    errno = 0;
    value = strtoull(text, &end, 10);
    if (*end == 'K' || *end == 'k') shift = 10;
    else if (*end == 'M' || *end == 'm') shift = 20;
    else if (*end == 'G' || *end == 'g') shift = 30;
    if (shift) end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return -1;
    if (errno == ERANGE || value == 0 || value > (~0ULL >> shift)) return -2;
    *bytes = value << shift;
    return 0;
}

int cli_byte_size_option(const char *command, const char *option, const char *text, uint64_t *bytes)
{
    int parsed = cli_parse_byte_size(text, bytes);
    if (parsed == -1) return cli_usage_error(command, "%s wants a size like 256M, got '%s'", option, text);
    if (parsed == -2) return cli_bad_value(command, "%s must be a positive size below 16 EiB, got '%s'", option, text);
    return CLI_CONTINUE;
}

int cli_too_large(uint64_t count, uint64_t per_item, uint64_t item_bytes)
{
    uint64_t limit = SIZE_MAX / 2;
    if (per_item && count > limit / per_item) return 1;
    count *= per_item;
    return item_bytes && count > limit / item_bytes;
}

/* cli/cmd_devices.c — `parac devices`: the GPUs this build can use. */
#include "cli/cli.h"

#include "core/threads.h"

static const cli_command DEVICES_COMMAND = {
    "devices", "[--json]", "Lists the CUDA devices parac can use, with memory and compute capability.", NULL, 0, 0, 0};

int cli_devices(int argc, char **argv)
{
    cli_common common;
    const char *positionals[1];
    int positional_count;
    char why[256] = "";
    int code = cli_parse(&DEVICES_COMMAND, argc, argv, &common, positionals, &positional_count);
    int count;
    parac_json_writer json;
    if (code != CLI_CONTINUE) return code;
    count = parac_cuda_device_count(why, sizeof why);
    if (common.json) {
        cli_summary_begin(&json, "devices", &common, count ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU, 0.0);
        parac_json_field_bool(&json, "built_with_cuda", parac_built_with_cuda());
        parac_json_field_int(&json, "cpu_cores", parac_threads_available());
        parac_json_key(&json, "gpus");
        parac_json_begin_array(&json);
    }
    if (count == 0 && !common.json)
        printf("no GPU: %s; parac runs on the CPU (%d cores)\n", why, parac_threads_available());
    for (int i = 0; i < count; i++) {
        parac_device_info info;
        parac_error error;
        if (parac_cuda_device_info(i, &info, &error) != PARAC_OK) return cli_report(&error);
        if (common.json) {
            parac_json_begin_object(&json);
            parac_json_field_int(&json, "ordinal", i);
            parac_json_field_string(&json, "name", info.name);
            parac_json_field_int(&json, "compute_major", info.compute_major);
            parac_json_field_int(&json, "compute_minor", info.compute_minor);
            parac_json_field_int(&json, "multiprocessors", info.multiprocessors);
            parac_json_field_uint(&json, "total_memory_bytes", info.total_memory_bytes);
            parac_json_field_uint(&json, "free_memory_bytes", info.free_memory_bytes);
            parac_json_end_object(&json);
        } else {
            printf("cuda:%d  %s  compute %d.%d  %d SMs  %.1f GiB total, %.1f GiB free\n", i, info.name,
                   info.compute_major, info.compute_minor, info.multiprocessors,
                   (double)info.total_memory_bytes / (1u << 30), (double)info.free_memory_bytes / (1u << 30));
        }
    }
    if (common.json) {
        parac_json_end_array(&json);
        cli_summary_end(&json);
    }
    return CLI_EXIT_OK;
}

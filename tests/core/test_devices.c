/* tests/core/test_devices.c — device choice: AUTO, CPU, CUDA with and without a GPU.
 * Runs everywhere; the expectations follow from parac_cuda_device_count(). */
#include <string.h>

#include <parac/devices.h>

#include "test_util.h"

int main(void)
{
    char why[256] = "";
    int count = parac_cuda_device_count(why, sizeof why);
    parac_exec exec;
    parac_device resolved = PARAC_DEVICE_AUTO;
    parac_error error = {0};
    CHECK(count >= 0);
    if (!parac_built_with_cuda()) CHECK(count == 0 && strstr(why, "without CUDA"), "why: %s", why);
    if (count == 0) CHECK(why[0] != '\0', "no reason given for zero GPUs");

    memset(&exec, 0, sizeof exec); /* zero = defaults = AUTO */
    CHECK_OK(parac_exec_resolve_device(&exec, &resolved, &error), &error);
    CHECK_EQ_INT(resolved, count > 0 ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU);
    CHECK_OK(parac_exec_resolve_device(NULL, &resolved, &error), &error);
    CHECK_EQ_INT(resolved, count > 0 ? PARAC_DEVICE_CUDA : PARAC_DEVICE_CPU);

    exec.device = PARAC_DEVICE_CPU;
    CHECK_OK(parac_exec_resolve_device(&exec, &resolved, &error), &error);
    CHECK_EQ_INT(resolved, PARAC_DEVICE_CPU);

    exec.device = PARAC_DEVICE_CUDA;
    if (count == 0) {
        parac_status status = parac_exec_resolve_device(&exec, &resolved, &error);
        CHECK(status == PARAC_ERR_NO_DEVICE, "status %d", (int)status);
        CHECK_EQ_INT(parac_status_exit_code(status), 3);
        CHECK(strstr(error.message, "--device cuda: no usable GPU") != NULL, "%s", error.message);
    } else {
        parac_device_info info;
        CHECK_OK(parac_exec_resolve_device(&exec, &resolved, &error), &error);
        CHECK_EQ_INT(resolved, PARAC_DEVICE_CUDA);
        exec.cuda_device = count; /* one past the last */
        CHECK(parac_exec_resolve_device(&exec, &resolved, &error) == PARAC_ERR_NO_DEVICE);
        CHECK(strstr(error.message, "does not exist") != NULL, "%s", error.message);
        exec.cuda_device = -1;
        CHECK(parac_exec_resolve_device(&exec, &resolved, &error) == PARAC_ERR_NO_DEVICE);
        CHECK_OK(parac_cuda_device_info(0, &info, &error), &error);
        CHECK(info.total_memory_bytes > 0 && info.free_memory_bytes <= info.total_memory_bytes && info.name[0]);
        CHECK(info.compute_major >= 5 && info.multiprocessors > 0);
    }
    if (count == 0) {
        parac_device_info info;
        CHECK(parac_cuda_device_info(0, &info, &error) != PARAC_OK);
    }
    return test_finish("core.devices");
}

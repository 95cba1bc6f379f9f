/* tests/core/test_error.c — message formats, truncation, names and exit codes. */
#include <string.h>

#include <parac/exec.h>
#include <parac/status.h>

#include "core/error.h"
#include "test_util.h"

static void check_messages(void)
{
    parac_error error;
    char long_name[1000];
    parac_error_clear(&error);
    CHECK(error.status == PARAC_OK && error.message[0] == '\0');
    CHECK(parac_fail_at(&error, PARAC_ERR_PARSE, "data/points.csv", 17, "column %d: '%s' is not a number", 3, "x") ==
          PARAC_ERR_PARSE);
    CHECK(error.status == PARAC_ERR_PARSE);
    CHECK(strcmp(error.message, "data/points.csv:17: column 3: 'x' is not a number") == 0, "%s", error.message);
    parac_fail_at(&error, PARAC_ERR_IO, "a.npy", 0, "cannot open: %s", "No such file or directory");
    CHECK(strcmp(error.message, "a.npy: cannot open: No such file or directory") == 0, "%s", error.message);
    parac_fail_at(&error, PARAC_ERR_IO, NULL, 3, "bad");
    CHECK(strcmp(error.message, "<input>:3: bad") == 0, "%s", error.message);
    CHECK(parac_fail(&error, PARAC_ERR_INVALID_ARGUMENT, "eps must be > 0, got %g", -1.0) == PARAC_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(error.message, "eps must be > 0, got -1") == 0, "%s", error.message);
    CHECK(parac_fail_no_memory(&error, "a distance matrix", 123456789ULL) == PARAC_ERR_NO_MEMORY);
    CHECK(strstr(error.message, "123456789 bytes") && strstr(error.message, "a distance matrix"), "%s", error.message);
    /* NULL error reports are allowed everywhere and still return the status. */
    CHECK(parac_fail(NULL, PARAC_ERR_PARSE, "x") == PARAC_ERR_PARSE);
    CHECK(parac_fail_at(NULL, PARAC_ERR_IO, "f", 1, "x") == PARAC_ERR_IO);
    CHECK(parac_fail_no_memory(NULL, "x", 1) == PARAC_ERR_NO_MEMORY);
    parac_error_clear(NULL);
    /* Over-long file names and messages are cut, never overflowed, and stay terminated. */
    memset(long_name, 'f', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    parac_fail_at(&error, PARAC_ERR_PARSE, long_name, 5, "%s", long_name);
    CHECK(strlen(error.message) == PARAC_ERROR_MESSAGE_SIZE - 1, "length %zu", strlen(error.message));
    CHECK(strncmp(error.message, "fff", 3) == 0);
}

static void check_codes(void)
{
    static const struct {
        parac_status status;
        int exit_code;
        const char *name;
    } table[] = {
        {PARAC_OK, 0, "ok"},
        {PARAC_ERR_INVALID_ARGUMENT, 2, "invalid argument"},
        {PARAC_ERR_IO, 2, "i/o error"},
        {PARAC_ERR_PARSE, 2, "parse error"},
        {PARAC_ERR_UNSUPPORTED, 2, "unsupported"},
        {PARAC_ERR_NO_MEMORY, 3, "out of memory"},
        {PARAC_ERR_NO_DEVICE, 3, "no usable GPU"},
        {PARAC_ERR_DEVICE, 3, "device failure"},
        {PARAC_ERR_INTERNAL, 4, "internal error"},
        {PARAC_ERR_CANCELLED, 130, "cancelled"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        CHECK_EQ_INT(parac_status_exit_code(table[i].status), table[i].exit_code);
        CHECK(strcmp(parac_status_name(table[i].status), table[i].name) == 0, "%s", parac_status_name(table[i].status));
    }
    CHECK_EQ_INT(parac_status_exit_code((parac_status)99), 4);
    CHECK(strcmp(parac_status_name((parac_status)99), "unknown status") == 0);
    CHECK(strcmp(parac_device_name(PARAC_DEVICE_AUTO), "auto") == 0);
    CHECK(strcmp(parac_device_name(PARAC_DEVICE_CPU), "cpu") == 0);
    CHECK(strcmp(parac_device_name(PARAC_DEVICE_CUDA), "cuda") == 0);
}

int main(void)
{
    check_messages();
    check_codes();
    return test_finish("core.error");
}

/* tests/core/test_memory_limit.c — parac_host_memory_limit (core/memory_limit.c): at most the
 * machine's memory, and at most an address-space or data rlimit set on the process (checked in
 * forked children, so this process keeps its own limits); parac_require_host_bytes at and past it. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/memory_limit.h"
#include "test_util.h"

/* In a child: sets `resource` to `bytes` and exits 0 when the limit reads at most that. */
static int limited_child_agrees(int resource, uint64_t bytes)
{
    int status = 0;
    pid_t child = fork();
    if (child == 0) {
        struct rlimit limit;
        getrlimit(resource, &limit);
        limit.rlim_cur = (rlim_t)bytes;
        if (setrlimit(resource, &limit) != 0) _exit(3);
        _exit(parac_host_memory_limit() <= bytes && parac_host_memory_limit() > bytes / 2 ? 0 : 1);
    }
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

int main(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
    uint64_t limit = parac_host_memory_limit();
    CHECK(limit >= ((uint64_t)64 << 20), "a limit of %llu bytes", (unsigned long long)limit);
    if (pages > 0 && page_bytes > 0)
        CHECK(limit <= (uint64_t)pages * (uint64_t)page_bytes, "above the machine's memory: %llu",
              (unsigned long long)limit);
    {
        int as = limited_child_agrees(RLIMIT_AS, (uint64_t)700 << 20);
        int data = limited_child_agrees(RLIMIT_DATA, (uint64_t)900 << 20);
        /* 3: the machine refused the limit (it cannot be lowered here): nothing to compare */
        CHECK(as == 0 || as == 3, "RLIMIT_AS of 700 MB: the child read another limit (status %d)", as);
        CHECK(data == 0 || data == 3, "RLIMIT_DATA of 900 MB: the child read another limit (status %d)", data);
    }
    {
        /* parac_require_host_bytes against the limit just read: at it passes, one byte past it fails
         * with NO_MEMORY naming the file, line and what was asked */
        parac_error error = {0};
        CHECK(parac_require_host_bytes(&error, "m.mtx", 2, limit, "a dense matrix") == PARAC_OK, "at the limit");
        CHECK(parac_require_host_bytes(&error, "m.mtx", 2, limit + 1, "a dense matrix") == PARAC_ERR_NO_MEMORY,
              "one byte past the limit passed");
        CHECK(strstr(error.message, "m.mtx:2: a dense matrix would take") != NULL, "message: %s", error.message);
        CHECK(parac_require_host_bytes(&error, NULL, 0, UINT64_MAX, "C") == PARAC_ERR_NO_MEMORY, "2^64 - 1 bytes");
        CHECK(strncmp(error.message, "C would take", 12) == 0, "message without a file: %s", error.message);
    }
    return test_finish("core.memory_limit");
}

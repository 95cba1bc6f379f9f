/* core/memory_limit.c — the host memory this process may use (memory_limit.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/memory_limit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define UNKNOWN_LIMIT ((uint64_t)1 << 30)

static uint64_t smaller(uint64_t limit, uint64_t other) { return other > 0 && other < limit ? other : limit; }

static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_bytes > 0 ? (uint64_t)pages * (uint64_t)page_bytes : 0;
}

static uint64_t rlimit_bytes(int resource)
{
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
    return (uint64_t)limit.rlim_cur;
}

/* A number of bytes from the first line of a file ("max" and unreadable files: 0, no limit). */
static uint64_t bytes_in_file(const char *path)
{
    char line[64];
    uint64_t value = 0;
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    if (fgets(line, sizeof line, file) && sscanf(line, "%" SCNu64, &value) != 1) value = 0;
    fclose(file);
    return value;
}

/* The limit of this process's cgroup: /proc/self/cgroup names it ("0::/path" on v2, "N:memory:/path"
 * on v1), and the cgroup file system is mounted at /sys/fs/cgroup as on every systemd machine and
 * in containers. */
static uint64_t cgroup_limit(void)
{
    char line[512], path[768];
    uint64_t limit = 0;
    FILE *file = fopen("/proc/self/cgroup", "r");
    if (!file) return 0;
    while (fgets(line, sizeof line, file)) {
        char *group, *end = strchr(line, '\n');
        if (end) *end = '\0';
        if (strncmp(line, "0::", 3) == 0) {
            group = line + 3;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", strcmp(group, "/") == 0 ? "" : group);
            limit = smaller(limit ? limit : UINT64_MAX, bytes_in_file(path));
        } else if ((group = strstr(line, ":memory:")) != NULL) {
            group += strlen(":memory:");
            snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
                     strcmp(group, "/") == 0 ? "" : group);
            limit = smaller(limit ? limit : UINT64_MAX, bytes_in_file(path));
        }
    }
    fclose(file);
    return limit == UINT64_MAX ? 0 : limit;
}

uint64_t parac_host_memory_limit(void)
{
    uint64_t limit = physical_memory();
    if (limit == 0) limit = UNKNOWN_LIMIT;
    limit = smaller(limit, rlimit_bytes(RLIMIT_AS));
    limit = smaller(limit, rlimit_bytes(RLIMIT_DATA));
    return smaller(limit, cgroup_limit());
}

#define TOO_LARGE "%s would take %" PRIu64 " bytes, more than the %" PRIu64 " bytes this process may use"

parac_status parac_require_host_bytes(parac_error *error, const char *file, long line, uint64_t bytes,
                                      const char *what)
{
    uint64_t limit = parac_host_memory_limit();
    if (bytes <= limit) return PARAC_OK;
    if (file) return parac_fail_at(error, PARAC_ERR_NO_MEMORY, file, line, TOO_LARGE, what, bytes, limit);
    return parac_fail(error, PARAC_ERR_NO_MEMORY, TOO_LARGE, what, bytes, limit);
}

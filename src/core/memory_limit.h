/* core/memory_limit.h — how much host memory this process may use: the machine's physical memory,
 * or less where the process is held to less (an address-space or data rlimit, a cgroup's memory
 * limit: a container, a batch scheduler, `ulimit -v`). Budgets that decide when to spill to disk
 * start from this, so a run under a limit spills instead of failing to allocate. */
#ifndef PARAC_CORE_MEMORY_LIMIT_H
#define PARAC_CORE_MEMORY_LIMIT_H

#include <stdint.h>

/* The smallest of physical memory, RLIMIT_AS, RLIMIT_DATA and the memory limit of this process's
 * cgroup (v2 memory.max, or v1 memory.limit_in_bytes); 1 GiB when none of them can be read. */
uint64_t parac_host_memory_limit(void);

#endif

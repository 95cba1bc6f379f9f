/* core/memory_limit.h — how much host memory this process may use: the machine's physical memory,
 * or less where the process is held to less (an address-space or data rlimit, a cgroup's memory
 * limit: a container, a batch scheduler, `ulimit -v`). Budgets that decide when to spill to disk
 * start from this, so a run under a limit spills instead of failing to allocate. */
#ifndef PARAC_CORE_MEMORY_LIMIT_H
#define PARAC_CORE_MEMORY_LIMIT_H

#include <stdint.h>

#include "core/error.h"

/* The smallest of physical memory, RLIMIT_AS, RLIMIT_DATA and the memory limit of this process's
 * cgroup (v2 memory.max, or v1 memory.limit_in_bytes); 1 GiB when none of them can be read. */
uint64_t parac_host_memory_limit(void);

/* PARAC_OK when `bytes` fit in parac_host_memory_limit(), else PARAC_ERR_NO_MEMORY (exit 3) saying that
 * `what` would take more than this process may use, at file:line when file is given. For sizes an input
 * declares before its data (a Matrix Market size line): refusing at once beats an allocation that
 * overcommit grants and the OOM killer ends when the pages are touched. */
parac_status parac_require_host_bytes(parac_error *error, const char *file, long line, uint64_t bytes,
                                      const char *what);

#endif

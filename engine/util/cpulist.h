/*
 * util/cpulist.h — a list of CPUs as an operator writes one (Linux's cpuset syntax, as
 * taskset -c and /sys/devices/system/cpu/online use it), for colfamd's rpc_io_cpus:
 * which CPUs its event loops are pinned to.
 *
 * Accepted text:
 *   "" or "none"  no CPUs: nothing is pinned;
 *   "auto"        every CPU this process may run on (sched_getaffinity), ascending;
 *   "0,2-3,6"     CPU numbers and inclusive ranges, comma-separated, in the order
 *                 written (a range ascending), each at most once.
 * Every CPU of the list must be one this process may run on: pinning a thread to a
 * CPU outside its cgroup's or taskset's set would fail only later, thread by thread.
 *
 * Thread safety: pure functions, save for reading the calling thread's affinity.
 */
#ifndef CF_UTIL_CPULIST_H
#define CF_UTIL_CPULIST_H

#include <stddef.h>

#include "util/status.h"

/* Largest CPU number accepted (CPU_SETSIZE - 1 of glibc). */
#define CF_CPU_MAX 1023

/*
 * Parses text into *cpus (malloc'd, free() it; NULL when *n is 0) and *n. Errors:
 * CF_ERR_INVALID whose message names the text, what is wrong with it and the valid
 * forms, or the CPU that is not allowed and the CPUs that are ("CPU 7 is not one
 * this process may run on (it may run on 0-1)"); it ends without a period, so
 * callers may prefix the option's name. CF_ERR_IO when the affinity cannot be read.
 */
cf_status  *cf_cpu_list_parse(const char *text, int **cpus, size_t *n);

/*
 * Writes cpus as the shortest list text ("0-3,6") into out, NUL-terminated, cut
 * short (ending in "...") when it does not fit. Returns out.
 */
char	   *cf_cpu_list_format(const int *cpus, size_t n, char *out, size_t size);

#endif							/* CF_UTIL_CPULIST_H */

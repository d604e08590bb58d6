/*
 * What keeps a range of this process's memory from being registered, read from /proc/self/maps: the
 * kernel pins the pages of an MR (ib_umem_get), which fails with EFAULT on a gap in the mappings, on a
 * mapping without access, and on a read-only mapping when the MR is writable. Shared by the shim (to
 * name the real cause of a failed ibv_reg_mr) and the fake libibverbs (to refuse as the kernel does).
 */
#ifndef VTE_MEMMAP_H
#define VTE_MEMMAP_H

#include <stdint.h>
#include <stdio.h>

#define VTE_RANGE_UNMAPPED 1  /* part of the range is not mapped at all */
#define VTE_RANGE_NO_ACCESS 2 /* mapped, but not readable, or not writable when write is asked */

/*
 * Describes in buf the first part of [addr, addr + len) that cannot be pinned (writable: every page must
 * be writable). Returns VTE_RANGE_UNMAPPED or VTE_RANGE_NO_ACCESS with the description, or 0 with buf
 * empty when the range is fine or the maps cannot be read.
 */
static inline int vte_range_problem(uint64_t addr, uint64_t len, int writable, char *buf, size_t size)
{
	char line[4096];
	uint64_t cur = addr, end = addr + len;
	int problem = 0;

	buf[0] = '\0';
	FILE *f = fopen("/proc/self/maps", "re");
	if (f == NULL)
		return 0;
	while (cur < end && fgets(line, sizeof(line), f) != NULL) {
		unsigned long long lo, hi;
		char perms[5];
		if (sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) != 3 || hi <= cur)
			continue;
		if (lo > cur)
			break; /* a gap: the maps are sorted */
		if (perms[0] != 'r' && perms[1] != 'w') {
			snprintf(buf, size, "0x%llx..0x%llx is mapped without access (%s)", lo, hi, perms);
			problem = VTE_RANGE_NO_ACCESS;
			break;
		}
		if (writable && perms[1] != 'w') {
			snprintf(buf, size, "0x%llx..0x%llx is mapped read-only (%s) but the access flags ask to write",
				 lo, hi, perms);
			problem = VTE_RANGE_NO_ACCESS;
			break;
		}
		cur = hi;
	}
	fclose(f);
	if (!problem && cur < end) {
		snprintf(buf, size, "0x%llx is not mapped", (unsigned long long)cur);
		problem = VTE_RANGE_UNMAPPED;
	}
	return problem;
}

/* The access flags the kernel pins writable (ib_access_writable). */
#define VTE_WRITABLE_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC \
	| IBV_ACCESS_MW_BIND)

#endif

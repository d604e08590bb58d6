/* Protection domains and memory regions. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "vte_ibv.h"
#include "vte_memmap.h"

static jlong alloc_pd(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)cls;
	errno = 0;
	struct ibv_pd *pd = ibv_alloc_pd(VTE_PTR(ctx));
	if (pd == NULL)
		vte_throw(env, "ibv_alloc_pd", errno ? errno : ENOMEM, "context 0x%llx", (unsigned long long)ctx);
	return VTE_HANDLE(pd);
}

static void dealloc_pd(JNIEnv *env, jclass cls, jlong pd)
{
	(void)cls;
	int rc = ibv_dealloc_pd(VTE_PTR(pd));
	if (rc != 0)
		vte_throw(env, "ibv_dealloc_pd", rc, "pd 0x%llx", (unsigned long long)pd);
}

/*
 * (ibv_reg_mr) is the IBVERBS_1.1 function: the ibv_reg_mr macro of rdma-core 28+ headers would bind
 * ibv_reg_mr_iova2 (IBVERBS_1.8) and refuse to load on an older libibverbs. Both register [addr, +length)
 * at iova addr.
 */
static jlong reg_mr(JNIEnv *env, jclass cls, jlong pd, jlong address, jlong length, jint access,
		    jintArray jkeys)
{
	(void)cls;
	errno = 0;
	struct ibv_mr *mr = (ibv_reg_mr)(VTE_PTR(pd), VTE_PTR(address), (size_t)length, access);
	if (mr == NULL) {
		int err = errno ? errno : ENOMEM;
		char why[224] = "";
		struct rlimit lim;
		if (vte_range_problem((uint64_t)address, (uint64_t)length, (access & VTE_WRITABLE_ACCESS) != 0,
				      why + 2, sizeof(why) - 2)) {
			/* The kernel's answer is EFAULT; with ibv_fork_init libibverbs' madvise says ENOMEM first. */
			why[0] = ':';
			why[1] = ' ';
			if (err != EFAULT) {
				size_t n = strlen(why);
				snprintf(why + n, sizeof(why) - n, " (libibverbs reported errno %d)", err);
				err = EFAULT;
			}
		} else if (err == ENOMEM && getrlimit(RLIMIT_MEMLOCK, &lim) == 0) {
			if (lim.rlim_cur == RLIM_INFINITY)
				snprintf(why, sizeof(why), " (RLIMIT_MEMLOCK is unlimited: the NIC is out of"
					" translation resources)");
			else
				snprintf(why, sizeof(why), "; RLIMIT_MEMLOCK is %llu bytes: raise it"
					" (ulimit -l, limits.conf memlock, systemd LimitMEMLOCK)",
					(unsigned long long)lim.rlim_cur);
		}
		vte_throw(env, "ibv_reg_mr", err, "address 0x%llx length %lld access 0x%x%s",
			(unsigned long long)address, (long long)length, (unsigned int)access, why);
		return 0;
	}
	const jint keys[2] = { (jint)mr->lkey, (jint)mr->rkey };
	(*env)->SetIntArrayRegion(env, jkeys, 0, 2, keys);
	return VTE_HANDLE(mr);
}

static void dereg_mr(JNIEnv *env, jclass cls, jlong mr)
{
	(void)cls;
	int rc = ibv_dereg_mr(VTE_PTR(mr));
	if (rc != 0)
		vte_throw(env, "ibv_dereg_mr", rc, "mr 0x%llx", (unsigned long long)mr);
}

static const JNINativeMethod methods[] = {
	{ "allocPd", "(J)J", (void *)alloc_pd },
	{ "deallocPd", "(J)V", (void *)dealloc_pd },
	{ "regMr", "(JJJI[I)J", (void *)reg_mr },
	{ "deregMr", "(J)V", (void *)dereg_mr },
};

int vte_register_pd_mr(JNIEnv *env, jclass cls)
{
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

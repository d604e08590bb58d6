/* Protection domains and memory regions. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>

#include "vte_ibv.h"

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

static jlong reg_mr(JNIEnv *env, jclass cls, jlong pd, jlong address, jlong length, jint access,
		    jintArray jkeys)
{
	(void)cls;
	errno = 0;
	struct ibv_mr *mr = ibv_reg_mr(VTE_PTR(pd), VTE_PTR(address), (size_t)length, (unsigned int)access);
	if (mr == NULL) {
		int err = errno ? errno : ENOMEM;
		struct rlimit lim;
		char memlock[160] = "";
		if (err == ENOMEM && getrlimit(RLIMIT_MEMLOCK, &lim) == 0) {
			if (lim.rlim_cur == RLIM_INFINITY)
				snprintf(memlock, sizeof(memlock), " (RLIMIT_MEMLOCK is unlimited: the NIC is out of"
					" translation resources)");
			else
				snprintf(memlock, sizeof(memlock), "; RLIMIT_MEMLOCK is %llu bytes: raise it"
					" (ulimit -l, limits.conf memlock, systemd LimitMEMLOCK)",
					(unsigned long long)lim.rlim_cur);
		}
		vte_throw(env, "ibv_reg_mr", err, "address 0x%llx length %lld access 0x%x%s",
			(unsigned long long)address, (long long)length, (unsigned int)access, memlock);
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

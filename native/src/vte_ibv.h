/*
 * Shared declarations of the VTE ibverbs JNI shim. Each vte_*.c file covers one concept and registers
 * its own methods on io.vte.verbs.ibv.IbvNative from JNI_OnLoad (vte_onload.c).
 */
#ifndef VTE_IBV_H
#define VTE_IBV_H

#include <errno.h>
#include <stdint.h>
#include <jni.h>
#include <infiniband/verbs.h>

#include "io_vte_verbs_ibv_IbvNative.h"

#define VTE_IBV_ABI_VERSION 3
#define VTE_NATIVE_CLASS "io/vte/verbs/ibv/IbvNative"

/* One entry of io.vte.verbs.WorkRequestBatch (48-byte stride, native order). */
struct vte_wr {
	uint64_t wr_id;
	uint64_t local_addr;
	uint64_t remote_addr;
	uint32_t length;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t imm_data;
	uint8_t opcode;
	uint8_t flags;
	uint8_t reserved[6];
};

/* One entry of io.vte.verbs.WorkCompletionBatch (32-byte stride, native order). */
struct vte_wc {
	uint64_t wr_id;
	uint32_t byte_len;
	uint32_t qp_num;
	uint32_t status;
	uint32_t opcode;
	uint32_t vendor_err;
	uint32_t imm_data;
};

#define VTE_PTR(h) ((void *)(intptr_t)(h))
#define VTE_HANDLE(p) ((jlong)(intptr_t)(p))
#define VTE_COUNT(a) ((jint)(sizeof(a) / sizeof((a)[0])))

/* Throws a VerbsException for errno `err` from verbs call `call`; detail names the offending value. */
void vte_throw(JNIEnv *env, const char *call, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Caches the Java error factory; returns 0 or -1 with a pending exception. */
int vte_errors_init(JNIEnv *env);

int vte_register_device(JNIEnv *env, jclass cls);
int vte_resolve_optional(void);
int vte_register_pd_mr(JNIEnv *env, jclass cls);
int vte_register_cq(JNIEnv *env, jclass cls);
int vte_register_qp(JNIEnv *env, jclass cls);
int vte_register_post_poll(JNIEnv *env, jclass cls);
int vte_register_async(JNIEnv *env, jclass cls);

#endif

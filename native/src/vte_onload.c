/* JNI_OnLoad: method registration, the ABI/layout probe and the errno -> VerbsException bridge. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vte_ibv.h"

static jclass errors_class;
static jmethodID errors_from_errno;

int vte_errors_init(JNIEnv *env)
{
	jclass local = (*env)->FindClass(env, "io/vte/verbs/ibv/IbvErrors");
	if (local == NULL)
		return -1;
	errors_class = (*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);
	if (errors_class == NULL)
		return -1;
	errors_from_errno = (*env)->GetStaticMethodID(env, errors_class, "fromErrno",
		"(Ljava/lang/String;ILjava/lang/String;)Lio/vte/verbs/VerbsException;");
	return errors_from_errno == NULL ? -1 : 0;
}

void vte_throw(JNIEnv *env, const char *call, int err, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	if ((*env)->ExceptionCheck(env))
		return;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	jstring jcall = (*env)->NewStringUTF(env, call);
	jstring jdetail = (*env)->NewStringUTF(env, detail);
	if (jcall == NULL || jdetail == NULL)
		return;
	jobject ex = (*env)->CallStaticObjectMethod(env, errors_class, errors_from_errno, jcall,
		(jint)err, jdetail);
	if (ex != NULL && !(*env)->ExceptionCheck(env))
		(*env)->Throw(env, (jthrowable)ex);
}

static jint abi_version(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return VTE_IBV_ABI_VERSION;
}

static jintArray layout(JNIEnv *env, jclass cls)
{
	(void)cls;
	const jint values[] = {
		sizeof(struct vte_wr), offsetof(struct vte_wr, wr_id), offsetof(struct vte_wr, local_addr),
		offsetof(struct vte_wr, remote_addr), offsetof(struct vte_wr, length),
		offsetof(struct vte_wr, lkey), offsetof(struct vte_wr, rkey),
		offsetof(struct vte_wr, imm_data), offsetof(struct vte_wr, opcode),
		offsetof(struct vte_wr, flags),
		sizeof(struct vte_wc), offsetof(struct vte_wc, wr_id), offsetof(struct vte_wc, byte_len),
		offsetof(struct vte_wc, qp_num), offsetof(struct vte_wc, status),
		offsetof(struct vte_wc, opcode), offsetof(struct vte_wc, vendor_err),
		offsetof(struct vte_wc, imm_data),
	};
	jintArray out = (*env)->NewIntArray(env, VTE_COUNT(values));
	if (out != NULL)
		(*env)->SetIntArrayRegion(env, out, 0, VTE_COUNT(values), values);
	return out;
}

static const JNINativeMethod methods[] = {
	{ "abiVersion", "()I", (void *)abi_version },
	{ "layout", "()[I", (void *)layout },
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
	JNIEnv *env;
	(void)reserved;

	if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
		return JNI_ERR;
	jclass cls = (*env)->FindClass(env, VTE_NATIVE_CLASS);
	if (cls == NULL || vte_errors_init(env) != 0)
		return JNI_ERR;
	if ((*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods)) != 0
	    || vte_register_device(env, cls) != 0 || vte_register_pd_mr(env, cls) != 0
	    || vte_register_cq(env, cls) != 0 || vte_register_qp(env, cls) != 0
	    || vte_register_post_poll(env, cls) != 0 || vte_register_async(env, cls) != 0)
		return JNI_ERR;
	(*env)->DeleteLocalRef(env, cls);
	return JNI_VERSION_1_8;
}

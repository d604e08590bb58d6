/* Async events: wait on the (non-blocking) async fd, read one event, copy it out and ack it exactly once. */
#define _GNU_SOURCE
#include <poll.h>

#include "vte_ibv.h"

static jint await_async_event(JNIEnv *env, jclass cls, jlong handle, jint timeout_ms)
{
	struct ibv_context *ctx = VTE_PTR(handle);
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	(void)env;
	(void)cls;

	int n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0 ? 1 : 0;
}

static jint next_async_event(JNIEnv *env, jclass cls, jlong handle, jlongArray jout)
{
	struct ibv_async_event event;
	jlong out[io_vte_verbs_ibv_IbvNative_ASYNC_OUT_LEN] = { 0, -1, -1, 0 };
	(void)cls;

	if (ibv_get_async_event(VTE_PTR(handle), &event) != 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	out[io_vte_verbs_ibv_IbvNative_ASYNC_TYPE] = event.event_type;
	switch (event.event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		out[io_vte_verbs_ibv_IbvNative_ASYNC_QP_NUM] = event.element.qp->qp_num;
		break;
	case IBV_EVENT_CQ_ERR:
		out[io_vte_verbs_ibv_IbvNative_ASYNC_CQ] = VTE_HANDLE(event.element.cq);
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		out[io_vte_verbs_ibv_IbvNative_ASYNC_PORT] = event.element.port_num;
		break;
	default:
		break;
	}
	ibv_ack_async_event(&event);
	(*env)->SetLongArrayRegion(env, jout, 0, io_vte_verbs_ibv_IbvNative_ASYNC_OUT_LEN, out);
	return 1;
}

static const JNINativeMethod methods[] = {
	{ "awaitAsyncEvent", "(JI)I", (void *)await_async_event },
	{ "nextAsyncEvent", "(J[J)I", (void *)next_async_event },
};

int vte_register_async(JNIEnv *env, jclass cls)
{
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

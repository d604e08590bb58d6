/* Completion queues and completion channels. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>

#include "vte_ibv.h"

static jlong create_comp_channel(JNIEnv *env, jclass cls, jlong ctx)
{
	(void)cls;
	errno = 0;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(VTE_PTR(ctx));
	if (ch == NULL) {
		vte_throw(env, "ibv_create_comp_channel", errno ? errno : ENOMEM, "context 0x%llx",
			(unsigned long long)ctx);
		return 0;
	}
	int flags = fcntl(ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int err = errno;
		ibv_destroy_comp_channel(ch);
		vte_throw(env, "fcntl", err, "O_NONBLOCK on completion channel fd");
		return 0;
	}
	return VTE_HANDLE(ch);
}

static void destroy_comp_channel(JNIEnv *env, jclass cls, jlong ch)
{
	(void)cls;
	int rc = ibv_destroy_comp_channel(VTE_PTR(ch));
	if (rc != 0)
		vte_throw(env, "ibv_destroy_comp_channel", rc, "channel 0x%llx", (unsigned long long)ch);
}

static jlong next_cq_event(JNIEnv *env, jclass cls, jlong handle, jint timeout_ms)
{
	struct ibv_comp_channel *ch = VTE_PTR(handle);
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_context;
	(void)cls;

	int n = poll(&pfd, 1, timeout_ms);
	if (n == 0 || (n < 0 && errno == EINTR))
		return 0;
	if (n < 0) {
		vte_throw(env, "poll", errno, "completion channel fd %d", ch->fd);
		return 0;
	}
	if (ibv_get_cq_event(ch, &cq, &cq_context) != 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		vte_throw(env, "ibv_get_cq_event", errno, "completion channel fd %d", ch->fd);
		return 0;
	}
	return VTE_HANDLE(cq);
}

static void ack_cq_events(JNIEnv *env, jclass cls, jlong cq, jint count)
{
	(void)env;
	(void)cls;
	ibv_ack_cq_events(VTE_PTR(cq), (unsigned int)count);
}

/* out: [cqe] as the device granted it (at least capacity). */
static jlong create_cq(JNIEnv *env, jclass cls, jlong ctx, jint capacity, jlong channel, jint comp_vector,
		       jintArray jout)
{
	(void)cls;
	errno = 0;
	struct ibv_cq *cq = ibv_create_cq(VTE_PTR(ctx), capacity, NULL, VTE_PTR(channel), comp_vector);
	if (cq == NULL) {
		vte_throw(env, "ibv_create_cq", errno ? errno : ENOMEM, "capacity %d comp_vector %d", capacity,
			comp_vector);
		return 0;
	}
	const jint cqe = cq->cqe;
	(*env)->SetIntArrayRegion(env, jout, 0, 1, &cqe);
	return VTE_HANDLE(cq);
}

static void destroy_cq(JNIEnv *env, jclass cls, jlong cq)
{
	(void)cls;
	int rc = ibv_destroy_cq(VTE_PTR(cq));
	if (rc != 0)
		vte_throw(env, "ibv_destroy_cq", rc, "cq 0x%llx", (unsigned long long)cq);
}

static jint req_notify_cq(JNIEnv *env, jclass cls, jlong cq)
{
	(void)env;
	(void)cls;
	int rc = ibv_req_notify_cq(VTE_PTR(cq), 0);
	return rc > 0 ? -rc : rc;
}

static const JNINativeMethod methods[] = {
	{ "createCompChannel", "(J)J", (void *)create_comp_channel },
	{ "destroyCompChannel", "(J)V", (void *)destroy_comp_channel },
	{ "nextCqEvent", "(JI)J", (void *)next_cq_event },
	{ "ackCqEvents", "(JI)V", (void *)ack_cq_events },
	{ "createCq", "(JIJI[I)J", (void *)create_cq },
	{ "destroyCq", "(J)V", (void *)destroy_cq },
	{ "reqNotifyCq", "(J)I", (void *)req_notify_cq },
};

int vte_register_cq(JNIEnv *env, jclass cls)
{
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

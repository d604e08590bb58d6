/* RC queue pairs: create, destroy and the attribute masks of each state transition. */
#define _GNU_SOURCE
#include <string.h>

#include "vte_ibv.h"

/* Creates an RC QP; out: [qp_num, max_send_wr, max_recv_wr, max_inline_data] as the device granted them. */
static jlong create_qp(JNIEnv *env, jclass cls, jlong pd, jlong send_cq, jlong recv_cq, jint max_send_wr,
		       jint max_recv_wr, jint max_inline, jintArray jout)
{
	struct ibv_qp_init_attr attr;
	(void)cls;

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = VTE_PTR(send_cq);
	attr.recv_cq = VTE_PTR(recv_cq);
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 0;
	attr.cap.max_send_wr = (uint32_t)max_send_wr;
	attr.cap.max_recv_wr = (uint32_t)max_recv_wr;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.cap.max_inline_data = (uint32_t)max_inline;
	errno = 0;
	struct ibv_qp *qp = ibv_create_qp(VTE_PTR(pd), &attr);
	if (qp == NULL) {
		vte_throw(env, "ibv_create_qp", errno ? errno : ENOMEM,
			"max_send_wr %d max_recv_wr %d max_inline_data %d", max_send_wr, max_recv_wr, max_inline);
		return 0;
	}
	const jint out[4] = { (jint)qp->qp_num, (jint)attr.cap.max_send_wr, (jint)attr.cap.max_recv_wr,
		(jint)attr.cap.max_inline_data };
	(*env)->SetIntArrayRegion(env, jout, 0, 4, out);
	return VTE_HANDLE(qp);
}

static void destroy_qp(JNIEnv *env, jclass cls, jlong qp)
{
	(void)cls;
	int rc = ibv_destroy_qp(VTE_PTR(qp));
	if (rc != 0)
		vte_throw(env, "ibv_destroy_qp", rc, "qp 0x%llx", (unsigned long long)qp);
}

static void modify(JNIEnv *env, jlong handle, struct ibv_qp_attr *attr, int mask, const char *transition)
{
	struct ibv_qp *qp = VTE_PTR(handle);
	int rc = ibv_modify_qp(qp, attr, mask);
	if (rc != 0)
		vte_throw(env, "ibv_modify_qp", rc, "qp %u %s (attr_mask 0x%x)", qp->qp_num, transition, mask);
}

static void to_init(JNIEnv *env, jclass cls, jlong qp, jint port, jint pkey_index, jint access)
{
	struct ibv_qp_attr attr;
	(void)cls;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = (uint16_t)pkey_index;
	attr.port_num = (uint8_t)port;
	attr.qp_access_flags = (unsigned int)access;
	modify(env, qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		"RESET->INIT");
}

static void gid_from_halves(union ibv_gid *gid, jlong hi, jlong lo)
{
	for (int i = 0; i < 8; i++) {
		gid->raw[i] = (uint8_t)((uint64_t)hi >> (56 - 8 * i));
		gid->raw[8 + i] = (uint8_t)((uint64_t)lo >> (56 - 8 * i));
	}
}

/*
 * INIT->RTR. The address vector: the peer's LID, and a GRH (peer GID, local sgid_index, traffic class)
 * when `global` is set: the Java side sets it from the local link layer (always on RoCE).
 */
static void to_rtr(JNIEnv *env, jclass cls, jlong qp, jint port, jint mtu, jint dest_qp_num, jint dest_lid,
		   jboolean global, jlong gid_hi, jlong gid_lo, jint sgid_index, jint traffic_class,
		   jint service_level, jint rq_psn, jint max_dest_rd_atomic, jint min_rnr_timer)
{
	struct ibv_qp_attr attr;
	(void)cls;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = (enum ibv_mtu)mtu;
	attr.dest_qp_num = (uint32_t)dest_qp_num;
	attr.rq_psn = (uint32_t)rq_psn;
	attr.max_dest_rd_atomic = (uint8_t)max_dest_rd_atomic;
	attr.min_rnr_timer = (uint8_t)min_rnr_timer;
	attr.ah_attr.dlid = (uint16_t)dest_lid;
	attr.ah_attr.sl = (uint8_t)service_level;
	attr.ah_attr.port_num = (uint8_t)port;
	if (global) {
		attr.ah_attr.is_global = 1;
		gid_from_halves(&attr.ah_attr.grh.dgid, gid_hi, gid_lo);
		attr.ah_attr.grh.sgid_index = (uint8_t)sgid_index;
		attr.ah_attr.grh.hop_limit = 64;
		attr.ah_attr.grh.traffic_class = (uint8_t)traffic_class;
	}
	modify(env, qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
		| IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "INIT->RTR");
}

static void to_rts(JNIEnv *env, jclass cls, jlong qp, jint sq_psn, jint timeout, jint retry_cnt, jint rnr_retry,
		   jint max_rd_atomic)
{
	struct ibv_qp_attr attr;
	(void)cls;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = (uint32_t)sq_psn;
	attr.timeout = (uint8_t)timeout;
	attr.retry_cnt = (uint8_t)retry_cnt;
	attr.rnr_retry = (uint8_t)rnr_retry;
	attr.max_rd_atomic = (uint8_t)max_rd_atomic;
	modify(env, qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT
		| IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC, "RTR->RTS");
}

static void to_state(JNIEnv *env, jclass cls, jlong qp, jint state)
{
	struct ibv_qp_attr attr;
	(void)cls;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = (enum ibv_qp_state)state;
	modify(env, qp, &attr, IBV_QP_STATE, state == IBV_QPS_ERR ? "->ERR" : "->RESET");
}

static const JNINativeMethod methods[] = {
	{ "createQp", "(JJJIII[I)J", (void *)create_qp },
	{ "destroyQp", "(J)V", (void *)destroy_qp },
	{ "modifyQpToInit", "(JIII)V", (void *)to_init },
	{ "modifyQpToRtr", "(JIIIIZJJIIIIII)V", (void *)to_rtr },
	{ "modifyQpToRts", "(JIIIII)V", (void *)to_rts },
	{ "modifyQpState", "(JI)V", (void *)to_state },
};

int vte_register_qp(JNIEnv *env, jclass cls)
{
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

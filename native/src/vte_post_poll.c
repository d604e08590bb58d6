/*
 * The hot path: batched post send/recv from a flat WorkRequestBatch buffer (one JNI call per batch,
 * ibv_*_wr chains built here in chunks on the stack) and batched poll into a flat WorkCompletionBatch.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <string.h>

#include "vte_ibv.h"

#define CHUNK 64
#define KNOWN_SEND_FLAGS (IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static jlong post_result(int index, int err)
{
	return -(((jlong)index << io_vte_verbs_ibv_IbvNative_POST_BAD_INDEX_SHIFT) | (jlong)err);
}

static int wr_opcode(uint8_t opcode, enum ibv_wr_opcode *out)
{
	switch (opcode) {
	case 0: *out = IBV_WR_RDMA_WRITE; return 0;
	case 1: *out = IBV_WR_RDMA_WRITE_WITH_IMM; return 0;
	case 2: *out = IBV_WR_SEND; return 0;
	case 3: *out = IBV_WR_SEND_WITH_IMM; return 0;
	case 4: *out = IBV_WR_RDMA_READ; return 0;
	default: return -1;
	}
}

/*
 * Posts entries [base, base + n) as one chain; an invalid entry ends the chain before it: the entries ahead
 * of it are posted, then it is reported as the bad one with EINVAL.
 */
static jlong post_send(JNIEnv *env, jclass cls, jlong handle, jlong address, jint count)
{
	struct ibv_qp *qp = VTE_PTR(handle);
	const struct vte_wr *in = VTE_PTR(address);
	struct ibv_send_wr wrs[CHUNK];
	struct ibv_sge sges[CHUNK];
	(void)env;
	(void)cls;

	for (int base = 0; base < count; base += CHUNK) {
		int n = count - base < CHUNK ? count - base : CHUNK;
		int built = 0;
		for (; built < n; built++) {
			const struct vte_wr *w = &in[base + built];
			struct ibv_send_wr *wr = &wrs[built];
			memset(wr, 0, sizeof(*wr));
			if (wr_opcode(w->opcode, &wr->opcode) != 0 || (w->flags & ~KNOWN_SEND_FLAGS) != 0)
				break;
			sges[built].addr = w->local_addr;
			sges[built].length = w->length;
			sges[built].lkey = w->lkey;
			wr->wr_id = w->wr_id;
			wr->sg_list = &sges[built];
			wr->num_sge = 1;
			wr->send_flags = w->flags;
			wr->imm_data = htonl(w->imm_data);
			wr->wr.rdma.remote_addr = w->remote_addr;
			wr->wr.rdma.rkey = w->rkey;
			wr->next = NULL;
			if (built > 0)
				wrs[built - 1].next = wr;
		}
		if (built > 0) {
			struct ibv_send_wr *bad = NULL;
			int rc = ibv_post_send(qp, wrs, &bad);
			if (rc != 0)
				return post_result(base + (bad != NULL ? (int)(bad - wrs) : 0), rc < 0 ? -rc : rc);
		}
		if (built < n)
			return post_result(base + built, EINVAL);
	}
	return 0;
}

static jlong post_recv(JNIEnv *env, jclass cls, jlong handle, jlong address, jint count)
{
	struct ibv_qp *qp = VTE_PTR(handle);
	const struct vte_wr *in = VTE_PTR(address);
	struct ibv_recv_wr wrs[CHUNK];
	struct ibv_sge sges[CHUNK];
	(void)env;
	(void)cls;

	for (int base = 0; base < count; base += CHUNK) {
		int n = count - base < CHUNK ? count - base : CHUNK;
		for (int i = 0; i < n; i++) {
			const struct vte_wr *w = &in[base + i];
			sges[i].addr = w->local_addr;
			sges[i].length = w->length;
			sges[i].lkey = w->lkey;
			wrs[i].wr_id = w->wr_id;
			wrs[i].sg_list = &sges[i];
			wrs[i].num_sge = 1;
			wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		}
		struct ibv_recv_wr *bad = NULL;
		int rc = ibv_post_recv(qp, wrs, &bad);
		if (rc != 0)
			return post_result(base + (bad != NULL ? (int)(bad - wrs) : 0), rc < 0 ? -rc : rc);
	}
	return 0;
}

static jint poll_cq(JNIEnv *env, jclass cls, jlong handle, jlong address, jint max)
{
	struct ibv_cq *cq = VTE_PTR(handle);
	struct vte_wc *out = VTE_PTR(address);
	struct ibv_wc wcs[CHUNK];
	int total = 0;
	(void)env;
	(void)cls;

	while (total < max) {
		int want = max - total < CHUNK ? max - total : CHUNK;
		int n = ibv_poll_cq(cq, want, wcs);
		if (n < 0) {
			/* The completions already copied out stay valid: report them with the error. */
			int err = n == -1 ? EIO : -n;
			return -(jint)(((uint32_t)total << io_vte_verbs_ibv_IbvNative_POLL_COUNT_SHIFT) | (uint32_t)err);
		}
		for (int i = 0; i < n; i++) {
			const struct ibv_wc *wc = &wcs[i];
			struct vte_wc *o = &out[total + i];
			o->wr_id = wc->wr_id;
			o->byte_len = wc->byte_len;
			o->qp_num = wc->qp_num;
			o->status = wc->status;
			o->opcode = wc->opcode;
			o->vendor_err = wc->vendor_err;
			o->imm_data = (wc->wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc->imm_data) : 0;
		}
		total += n;
		if (n < want)
			break;
	}
	return total;
}

static const JNINativeMethod methods[] = {
	{ "postSend", "(JJI)J", (void *)post_send },
	{ "postRecv", "(JJI)J", (void *)post_recv },
	{ "pollCq", "(JJI)I", (void *)poll_cq },
};

int vte_register_post_poll(JNIEnv *env, jclass cls)
{
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

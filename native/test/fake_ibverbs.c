/*
 * A fake libibverbs.so.1 for tests: the same symbols, versions and structs as rdma-core's, backed by
 * scripted state instead of a kernel driver. Every call is appended to a text log; live objects are
 * counted per kind; failures are scripted one-shot per function. Tests drive it through the JNI
 * functions of io.vte.verbs.ibv.FakeIbverbs at the end of this file.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jni.h>
#include <infiniband/verbs.h>

#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_get_device_list

#define MAX_DEVICES 4
#define MAX_PORTS 4
#define MAX_GIDS 16
#define MAX_OBJECTS 256
#define MAX_QUEUE 4096
#define MAX_FAILS 16

enum kind { K_CONTEXT, K_PD, K_MR, K_CQ, K_CHANNEL, K_QP, K_DEVICE_LIST, K_COUNT };
static const char *const kind_names[K_COUNT] = { "context", "pd", "mr", "cq", "channel", "qp", "device_list" };

struct fake_port {
	struct ibv_port_attr attr;
	union ibv_gid gids[MAX_GIDS];
	int gid_types[MAX_GIDS];
};

struct fake_cq {
	struct ibv_cq cq;
	struct ibv_wc queue[MAX_QUEUE];
	int head, count, armed, ordinal;
	unsigned int events_delivered, events_acked;
};

struct fake_ctx {
	struct ibv_context ctx;
	int async_write_fd;
};

struct fake_channel {
	struct ibv_comp_channel ch;
	int write_fd;
	struct fake_cq *pending[MAX_QUEUE];
	int head, count;
};

struct fail_rule {
	char fn[64];
	int err, arg, used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acked = PTHREAD_COND_INITIALIZER;
static struct {
	char names[MAX_DEVICES][IBV_SYSFS_NAME_MAX];
	int device_count, list_errno, port_count;
	struct fake_port ports[MAX_PORTS + 1];
	struct ibv_device devices[MAX_DEVICES];
	struct fail_rule fails[MAX_FAILS];
	int live[K_COUNT];
	struct fake_cq *cqs[MAX_OBJECTS];
	int cq_count;
	struct ibv_qp *qps[MAX_OBJECTS];
	int qp_count;
	struct fake_ctx *last_ctx;
	struct ibv_async_event async_queue[MAX_QUEUE];
	int async_head, async_count;
	long async_delivered, async_acked, async_bad_acks, cq_destroyed_unacked;
	uint32_t next_key, next_qp_num;
	char *log;
	size_t log_len, log_cap;
} st;

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (st.log_len + n + 1 > st.log_cap) {
		size_t cap = (st.log_cap + n + 1) * 2;
		char *grown = realloc(st.log, cap);
		if (grown == NULL)
			return;
		st.log = grown;
		st.log_cap = cap;
	}
	memcpy(st.log + st.log_len, line, n);
	st.log_len += n;
	st.log[st.log_len] = '\0';
}

/* Returns the scripted errno for `fn` (and `arg`, -1 = any) once, or 0. */
static int scripted_failure(const char *fn, int arg)
{
	for (int i = 0; i < MAX_FAILS; i++) {
		struct fail_rule *r = &st.fails[i];
		if (r->fn[0] != '\0' && !r->used && strcmp(r->fn, fn) == 0 && (r->arg < 0 || r->arg == arg)) {
			r->used = 1;
			return r->err;
		}
	}
	return 0;
}

static void reset_state(void)
{
	free(st.log);
	memset(&st, 0, sizeof(st));
	st.device_count = 1;
	snprintf(st.names[0], IBV_SYSFS_NAME_MAX, "fake_mlx5_0");
	st.port_count = 1;
	for (int p = 1; p <= MAX_PORTS; p++) {
		st.ports[p].attr.state = IBV_PORT_ACTIVE;
		st.ports[p].attr.max_mtu = IBV_MTU_4096;
		st.ports[p].attr.active_mtu = IBV_MTU_1024;
		st.ports[p].attr.lid = (uint16_t)p;
		st.ports[p].attr.link_layer = IBV_LINK_LAYER_ETHERNET;
		st.ports[p].attr.gid_tbl_len = 1;
		st.ports[p].gids[0].raw[0] = 0xfe;
		st.ports[p].gids[0].raw[1] = 0x80;
		st.ports[p].gids[0].raw[15] = (uint8_t)p;
		st.ports[p].gid_types[0] = IBV_GID_TYPE_ROCE_V1;
	}
	st.next_key = 0x1000;
	st.next_qp_num = 0x100;
}

/* ---- devices and ports ---- */

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_get_device_list");
	struct ibv_device **list = NULL;
	if (st.list_errno != 0) {
		errno = st.list_errno;
	} else {
		list = calloc(st.device_count + 1, sizeof(*list));
		for (int i = 0; list != NULL && i < st.device_count; i++) {
			memcpy(st.devices[i].name, st.names[i], IBV_SYSFS_NAME_MAX);
			list[i] = &st.devices[i];
		}
		if (list != NULL) {
			st.live[K_DEVICE_LIST]++;
			if (num_devices != NULL)
				*num_devices = st.device_count;
		}
	}
	pthread_mutex_unlock(&lock);
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_free_device_list");
	st.live[K_DEVICE_LIST]--;
	pthread_mutex_unlock(&lock);
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only);
static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_open_device name=%s", device->name);
	struct fake_ctx *f = NULL;
	int err = scripted_failure("ibv_open_device", -1);
	int fds[2];
	if (err == 0 && pipe2(fds, O_CLOEXEC) == 0) {
		f = calloc(1, sizeof(*f));
		f->ctx.device = device;
		f->ctx.async_fd = fds[0];
		f->async_write_fd = fds[1];
		f->ctx.num_comp_vectors = 1;
		f->ctx.ops.poll_cq = fake_poll_cq;
		f->ctx.ops.req_notify_cq = fake_req_notify_cq;
		f->ctx.ops.post_send = fake_post_send;
		f->ctx.ops.post_recv = fake_post_recv;
		st.live[K_CONTEXT]++;
		st.last_ctx = f;
	} else if (err != 0) {
		errno = err;
	}
	pthread_mutex_unlock(&lock);
	return f == NULL ? NULL : &f->ctx;
}

int ibv_close_device(struct ibv_context *context)
{
	struct fake_ctx *f = (struct fake_ctx *)context;
	pthread_mutex_lock(&lock);
	log_line("ibv_close_device name=%s", context->device->name);
	close(f->ctx.async_fd);
	close(f->async_write_fd);
	if (st.last_ctx == f)
		st.last_ctx = NULL;
	st.live[K_CONTEXT]--;
	pthread_mutex_unlock(&lock);
	free(f);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context;
	pthread_mutex_lock(&lock);
	memset(attr, 0, sizeof(*attr));
	attr->phys_port_cnt = (uint8_t)st.port_count;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* The shim passes a full struct ibv_port_attr through the compat entry point (non-extended context). */
int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *out)
{
	(void)context;
	pthread_mutex_lock(&lock);
	log_line("ibv_query_port port=%u", port_num);
	int rc = scripted_failure("ibv_query_port", port_num);
	if (rc == 0 && (port_num < 1 || port_num > st.port_count))
		rc = EINVAL;
	if (rc == 0)
		memcpy(out, &st.ports[port_num].attr, sizeof(struct ibv_port_attr));
	pthread_mutex_unlock(&lock);
	return rc;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	(void)context;
	pthread_mutex_lock(&lock);
	int rc = 0;
	if (port_num < 1 || port_num > st.port_count || index < 0 || index >= MAX_GIDS
	    || index >= st.ports[port_num].attr.gid_tbl_len)
		rc = -1;
	else
		*gid = st.ports[port_num].gids[index];
	pthread_mutex_unlock(&lock);
	return rc;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	(void)context;
	(void)flags;
	if (entry_size < sizeof(*entry))
		return EINVAL;
	pthread_mutex_lock(&lock);
	int rc = 0;
	if (port_num < 1 || port_num > (uint32_t)st.port_count || gid_index >= MAX_GIDS
	    || (int)gid_index >= st.ports[port_num].attr.gid_tbl_len) {
		rc = EINVAL;
	} else {
		memset(entry, 0, sizeof(*entry));
		entry->gid = st.ports[port_num].gids[gid_index];
		entry->gid_index = gid_index;
		entry->port_num = port_num;
		entry->gid_type = (uint32_t)st.ports[port_num].gid_types[gid_index];
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ---- PD and MR ---- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_alloc_pd");
	struct ibv_pd *pd = NULL;
	int err = scripted_failure("ibv_alloc_pd", -1);
	if (err != 0) {
		errno = err;
	} else {
		pd = calloc(1, sizeof(*pd));
		pd->context = context;
		st.live[K_PD]++;
	}
	pthread_mutex_unlock(&lock);
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_dealloc_pd");
	st.live[K_PD]--;
	pthread_mutex_unlock(&lock);
	free(pd);
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_reg_mr addr=0x%llx length=%zu iova=0x%llx access=0x%x", (unsigned long long)(uintptr_t)addr,
		length, (unsigned long long)iova, access);
	struct ibv_mr *mr = NULL;
	int err = scripted_failure("ibv_reg_mr", -1);
	if (err != 0) {
		errno = err;
	} else {
		mr = calloc(1, sizeof(*mr));
		mr->context = pd->context;
		mr->pd = pd;
		mr->addr = addr;
		mr->length = length;
		mr->lkey = st.next_key++;
		mr->rkey = st.next_key++;
		st.live[K_MR]++;
	}
	pthread_mutex_unlock(&lock);
	return mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_dereg_mr lkey=%u", mr->lkey);
	st.live[K_MR]--;
	pthread_mutex_unlock(&lock);
	free(mr);
	return 0;
}

/* ---- completion channels and CQs ---- */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_create_comp_channel");
	struct fake_channel *c = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) == 0) {
		c = calloc(1, sizeof(*c));
		c->ch.context = context;
		c->ch.fd = fds[0];
		c->write_fd = fds[1];
		st.live[K_CHANNEL]++;
	}
	pthread_mutex_unlock(&lock);
	return c == NULL ? NULL : &c->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct fake_channel *c = (struct fake_channel *)channel;
	pthread_mutex_lock(&lock);
	log_line("ibv_destroy_comp_channel");
	close(c->ch.fd);
	close(c->write_fd);
	st.live[K_CHANNEL]--;
	pthread_mutex_unlock(&lock);
	free(c);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_create_cq cqe=%d channel=%d comp_vector=%d", cqe, channel != NULL, comp_vector);
	struct fake_cq *f = NULL;
	int err = scripted_failure("ibv_create_cq", -1);
	if (err != 0 || st.cq_count == MAX_OBJECTS) {
		errno = err != 0 ? err : ENOMEM;
	} else {
		f = calloc(1, sizeof(*f));
		f->cq.context = context;
		f->cq.channel = channel;
		f->cq.cq_context = cq_context;
		f->cq.cqe = cqe;
		f->ordinal = st.cq_count;
		st.cqs[st.cq_count++] = f;
		st.live[K_CQ]++;
	}
	pthread_mutex_unlock(&lock);
	return f == NULL ? NULL : &f->cq;
}

/* Like rdma-core, waits until every delivered channel event is acked (here: at most 2 s, then counts a violation). */
int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 2;
	pthread_mutex_lock(&lock);
	while (f->events_delivered != f->events_acked
	       && pthread_cond_timedwait(&acked, &lock, &deadline) == 0)
		;
	log_line("ibv_destroy_cq ordinal=%d unacked=%u", f->ordinal, f->events_delivered - f->events_acked);
	if (f->events_delivered != f->events_acked)
		st.cq_destroyed_unacked++;
	if (f->cq.channel != NULL) {
		/* As the kernel does: events of a destroyed CQ still queued on its channel are dropped. */
		struct fake_channel *c = (struct fake_channel *)f->cq.channel;
		for (int i = 0; i < c->count; i++)
			if (c->pending[(c->head + i) % MAX_QUEUE] == f)
				c->pending[(c->head + i) % MAX_QUEUE] = NULL;
	}
	st.cqs[f->ordinal] = NULL;
	st.live[K_CQ]--;
	pthread_mutex_unlock(&lock);
	free(f);
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct fake_channel *c = (struct fake_channel *)channel;
	char b;
	if (read(c->ch.fd, &b, 1) != 1)
		return -1;
	pthread_mutex_lock(&lock);
	struct fake_cq *f = c->pending[c->head];
	c->head = (c->head + 1) % MAX_QUEUE;
	c->count--;
	if (f == NULL) {
		pthread_mutex_unlock(&lock);
		errno = EAGAIN;
		return -1;
	}
	f->events_delivered++;
	*cq = &f->cq;
	*cq_context = f->cq.cq_context;
	pthread_mutex_unlock(&lock);
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	pthread_mutex_lock(&lock);
	log_line("ibv_ack_cq_events ordinal=%d n=%u", f->ordinal, nevents);
	f->events_acked += nevents;
	pthread_cond_broadcast(&acked);
	pthread_mutex_unlock(&lock);
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	pthread_mutex_lock(&lock);
	int rc = scripted_failure("ibv_poll_cq", f->ordinal);
	int n = 0;
	if (rc != 0) {
		n = -rc;
	} else {
		for (; n < num_entries && f->count > 0; n++) {
			wc[n] = f->queue[f->head];
			f->head = (f->head + 1) % MAX_QUEUE;
			f->count--;
		}
	}
	pthread_mutex_unlock(&lock);
	return n;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	pthread_mutex_lock(&lock);
	log_line("ibv_req_notify_cq ordinal=%d solicited_only=%d", f->ordinal, solicited_only);
	f->armed = 1;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---- QPs ---- */

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_create_qp type=%d max_send_wr=%u max_recv_wr=%u max_send_sge=%u max_recv_sge=%u "
		 "max_inline_data=%u sq_sig_all=%d", attr->qp_type, attr->cap.max_send_wr, attr->cap.max_recv_wr,
		 attr->cap.max_send_sge, attr->cap.max_recv_sge, attr->cap.max_inline_data, attr->sq_sig_all);
	struct ibv_qp *qp = NULL;
	int err = scripted_failure("ibv_create_qp", -1);
	if (err != 0 || st.qp_count == MAX_OBJECTS) {
		errno = err != 0 ? err : ENOMEM;
	} else {
		qp = calloc(1, sizeof(*qp));
		qp->context = pd->context;
		qp->pd = pd;
		qp->send_cq = attr->send_cq;
		qp->recv_cq = attr->recv_cq;
		qp->qp_num = st.next_qp_num++;
		qp->qp_type = attr->qp_type;
		qp->state = IBV_QPS_RESET;
		st.qps[st.qp_count++] = qp;
		st.live[K_QP]++;
	}
	pthread_mutex_unlock(&lock);
	return qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_destroy_qp qpn=%u", qp->qp_num);
	for (int i = 0; i < st.qp_count; i++)
		if (st.qps[i] == qp)
			st.qps[i] = NULL;
	st.live[K_QP]--;
	pthread_mutex_unlock(&lock);
	free(qp);
	return 0;
}

static void log_modify(struct ibv_qp *qp, const struct ibv_qp_attr *a, int mask)
{
	char buf[768];
	int n = snprintf(buf, sizeof(buf), "ibv_modify_qp qpn=%u mask=0x%x", qp->qp_num, mask);
#define FIELD(bit, fmt, val)                                                                                   \
	do {                                                                                                   \
		if ((mask & (bit)) && n < (int)sizeof(buf))                                                    \
			n += snprintf(buf + n, sizeof(buf) - n, fmt, val);                                     \
	} while (0)
	FIELD(IBV_QP_STATE, " state=%d", a->qp_state);
	FIELD(IBV_QP_PKEY_INDEX, " pkey_index=%u", a->pkey_index);
	FIELD(IBV_QP_PORT, " port=%u", a->port_num);
	FIELD(IBV_QP_ACCESS_FLAGS, " access=0x%x", a->qp_access_flags);
	FIELD(IBV_QP_PATH_MTU, " path_mtu=%d", a->path_mtu);
	FIELD(IBV_QP_DEST_QPN, " dest_qpn=%u", a->dest_qp_num);
	FIELD(IBV_QP_RQ_PSN, " rq_psn=%u", a->rq_psn);
	FIELD(IBV_QP_MAX_DEST_RD_ATOMIC, " max_dest_rd_atomic=%u", a->max_dest_rd_atomic);
	FIELD(IBV_QP_MIN_RNR_TIMER, " min_rnr_timer=%u", a->min_rnr_timer);
	FIELD(IBV_QP_AV, " dlid=%u", a->ah_attr.dlid);
	FIELD(IBV_QP_AV, " ah_port=%u", a->ah_attr.port_num);
	FIELD(IBV_QP_AV, " is_global=%u", a->ah_attr.is_global);
	FIELD(IBV_QP_AV, " sgid_index=%u", a->ah_attr.grh.sgid_index);
	FIELD(IBV_QP_AV, " hop_limit=%u", a->ah_attr.grh.hop_limit);
	if ((mask & IBV_QP_AV) && n < (int)sizeof(buf) - 40) {
		n += snprintf(buf + n, sizeof(buf) - n, " dgid=");
		for (int i = 0; i < 16; i++)
			n += snprintf(buf + n, sizeof(buf) - n, "%02x", a->ah_attr.grh.dgid.raw[i]);
	}
	FIELD(IBV_QP_SQ_PSN, " sq_psn=%u", a->sq_psn);
	FIELD(IBV_QP_TIMEOUT, " timeout=%u", a->timeout);
	FIELD(IBV_QP_RETRY_CNT, " retry_cnt=%u", a->retry_cnt);
	FIELD(IBV_QP_RNR_RETRY, " rnr_retry=%u", a->rnr_retry);
	FIELD(IBV_QP_MAX_QP_RD_ATOMIC, " max_rd_atomic=%u", a->max_rd_atomic);
#undef FIELD
	log_line("%s", buf);
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	pthread_mutex_lock(&lock);
	log_modify(qp, attr, attr_mask);
	int rc = scripted_failure("ibv_modify_qp", attr->qp_state);
	if (rc == 0)
		qp->state = attr->qp_state;
	pthread_mutex_unlock(&lock);
	return rc;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	pthread_mutex_lock(&lock);
	int rc = 0, chain = 0;
	for (struct ibv_send_wr *w = wr; w != NULL; w = w->next)
		chain++;
	log_line("ibv_post_send qpn=%u chain=%d", qp->qp_num, chain);
	for (int i = 0; wr != NULL; wr = wr->next, i++) {
		rc = scripted_failure("ibv_post_send", i);
		if (rc != 0) {
			*bad_wr = wr;
			break;
		}
		log_line("post_send qpn=%u wr_id=%llu opcode=%d flags=0x%x num_sge=%d addr=0x%llx length=%u lkey=%u "
			 "remote_addr=0x%llx rkey=%u imm=0x%x", qp->qp_num, (unsigned long long)wr->wr_id, wr->opcode,
			 wr->send_flags, wr->num_sge, (unsigned long long)wr->sg_list[0].addr, wr->sg_list[0].length,
			 wr->sg_list[0].lkey, (unsigned long long)wr->wr.rdma.remote_addr, wr->wr.rdma.rkey,
			 ntohl(wr->imm_data));
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	pthread_mutex_lock(&lock);
	int rc = 0, chain = 0;
	for (struct ibv_recv_wr *w = wr; w != NULL; w = w->next)
		chain++;
	log_line("ibv_post_recv qpn=%u chain=%d", qp->qp_num, chain);
	for (int i = 0; wr != NULL; wr = wr->next, i++) {
		rc = scripted_failure("ibv_post_recv", i);
		if (rc != 0) {
			*bad_wr = wr;
			break;
		}
		log_line("post_recv qpn=%u wr_id=%llu num_sge=%d addr=0x%llx length=%u lkey=%u", qp->qp_num,
			 (unsigned long long)wr->wr_id, wr->num_sge, (unsigned long long)wr->sg_list[0].addr,
			 wr->sg_list[0].length, wr->sg_list[0].lkey);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ---- async events ---- */

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	char b;
	if (read(context->async_fd, &b, 1) != 1)
		return -1; /* errno EAGAIN from the non-blocking pipe */
	pthread_mutex_lock(&lock);
	*event = st.async_queue[st.async_head];
	st.async_head = (st.async_head + 1) % MAX_QUEUE;
	st.async_count--;
	st.async_delivered++;
	log_line("ibv_get_async_event type=%d", event->event_type);
	pthread_mutex_unlock(&lock);
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_ack_async_event type=%d", event->event_type);
	if (st.async_acked >= st.async_delivered)
		st.async_bad_acks++;
	else
		st.async_acked++;
	pthread_mutex_unlock(&lock);
}

/* ---- the test control interface: io.vte.verbs.ibv.FakeIbverbs ---- */

#define CONTROL(name) Java_io_vte_verbs_ibv_FakeIbverbs_##name

JNIEXPORT void JNICALL CONTROL(reset)(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	reset_state();
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(setDevices)(JNIEnv *env, jclass cls, jobjectArray names, jint ports)
{
	(void)cls;
	pthread_mutex_lock(&lock);
	st.device_count = (*env)->GetArrayLength(env, names);
	if (st.device_count > MAX_DEVICES)
		st.device_count = MAX_DEVICES;
	for (int i = 0; i < st.device_count; i++) {
		jstring s = (*env)->GetObjectArrayElement(env, names, i);
		const char *c = (*env)->GetStringUTFChars(env, s, NULL);
		snprintf(st.names[i], IBV_SYSFS_NAME_MAX, "%s", c);
		(*env)->ReleaseStringUTFChars(env, s, c);
	}
	st.port_count = ports < 1 ? 1 : (ports > MAX_PORTS ? MAX_PORTS : ports);
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(setDeviceListErrno)(JNIEnv *env, jclass cls, jint err)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	st.list_errno = err;
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(setPort)(JNIEnv *env, jclass cls, jint port, jint state, jint mtu, jint lid,
					jint link_layer, jint gid_table_len)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	struct ibv_port_attr *a = &st.ports[port].attr;
	a->state = (enum ibv_port_state)state;
	a->active_mtu = (enum ibv_mtu)mtu;
	a->lid = (uint16_t)lid;
	a->link_layer = (uint8_t)link_layer;
	a->gid_tbl_len = gid_table_len > MAX_GIDS ? MAX_GIDS : gid_table_len;
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(setGid)(JNIEnv *env, jclass cls, jint port, jint index, jbyteArray gid, jint type)
{
	(void)cls;
	pthread_mutex_lock(&lock);
	(*env)->GetByteArrayRegion(env, gid, 0, 16, (jbyte *)st.ports[port].gids[index].raw);
	st.ports[port].gid_types[index] = type;
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(failNext)(JNIEnv *env, jclass cls, jstring fn, jint err, jint arg)
{
	(void)cls;
	const char *c = (*env)->GetStringUTFChars(env, fn, NULL);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_FAILS; i++) {
		if (st.fails[i].fn[0] == '\0' || st.fails[i].used) {
			snprintf(st.fails[i].fn, sizeof(st.fails[i].fn), "%s", c);
			st.fails[i].err = err;
			st.fails[i].arg = arg;
			st.fails[i].used = 0;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	(*env)->ReleaseStringUTFChars(env, fn, c);
}

/* Queues a completion on the CQ created `ordinal`-th since reset; wakes its channel if the CQ is armed. */
JNIEXPORT jboolean JNICALL CONTROL(pushCompletion)(JNIEnv *env, jclass cls, jint ordinal, jlong wr_id, jint status,
						   jint opcode, jint byte_len, jint qp_num, jint vendor_err,
						   jint imm, jint wc_flags)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	struct fake_cq *f = ordinal >= 0 && ordinal < st.cq_count ? st.cqs[ordinal] : NULL;
	if (f == NULL || f->count == MAX_QUEUE) {
		pthread_mutex_unlock(&lock);
		return JNI_FALSE;
	}
	struct ibv_wc *wc = &f->queue[(f->head + f->count++) % MAX_QUEUE];
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = (uint64_t)wr_id;
	wc->status = (enum ibv_wc_status)status;
	wc->opcode = (enum ibv_wc_opcode)opcode;
	wc->byte_len = (uint32_t)byte_len;
	wc->qp_num = (uint32_t)qp_num;
	wc->vendor_err = (uint32_t)vendor_err;
	wc->imm_data = htonl((uint32_t)imm);
	wc->wc_flags = (unsigned int)wc_flags;
	if (f->armed && f->cq.channel != NULL) {
		struct fake_channel *c = (struct fake_channel *)f->cq.channel;
		f->armed = 0;
		c->pending[(c->head + c->count++) % MAX_QUEUE] = f;
		if (write(c->write_fd, "c", 1) != 1)
			c->count--;
	}
	pthread_mutex_unlock(&lock);
	return JNI_TRUE;
}

/* arg: the QP number (QP events), the port (port events) or the CQ ordinal (CQ_ERR). */
JNIEXPORT jboolean JNICALL CONTROL(pushAsyncEvent)(JNIEnv *env, jclass cls, jint type, jint arg)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	struct ibv_async_event e;
	memset(&e, 0, sizeof(e));
	e.event_type = (enum ibv_event_type)type;
	int ok = st.last_ctx != NULL && st.async_count < MAX_QUEUE;
	switch (e.event_type) {
	case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR: case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED: case IBV_EVENT_PATH_MIG: case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		e.element.qp = NULL;
		for (int i = 0; i < st.qp_count; i++)
			if (st.qps[i] != NULL && st.qps[i]->qp_num == (uint32_t)arg)
				e.element.qp = st.qps[i];
		ok = ok && e.element.qp != NULL;
		break;
	case IBV_EVENT_CQ_ERR:
		e.element.cq = arg >= 0 && arg < st.cq_count && st.cqs[arg] != NULL ? &st.cqs[arg]->cq : NULL;
		ok = ok && e.element.cq != NULL;
		break;
	default:
		e.element.port_num = arg;
		break;
	}
	if (ok) {
		st.async_queue[(st.async_head + st.async_count++) % MAX_QUEUE] = e;
		if (write(st.last_ctx->async_write_fd, "a", 1) != 1)
			st.async_count--;
	}
	pthread_mutex_unlock(&lock);
	return ok ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jstring JNICALL CONTROL(log)(JNIEnv *env, jclass cls)
{
	(void)cls;
	pthread_mutex_lock(&lock);
	jstring s = (*env)->NewStringUTF(env, st.log == NULL ? "" : st.log);
	pthread_mutex_unlock(&lock);
	return s;
}

JNIEXPORT void JNICALL CONTROL(clearLog)(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	st.log_len = 0;
	if (st.log != NULL)
		st.log[0] = '\0';
	pthread_mutex_unlock(&lock);
}

/* Live objects of a kind (context, pd, mr, cq, channel, qp, device_list), or a counter by name. */
JNIEXPORT jlong JNICALL CONTROL(count)(JNIEnv *env, jclass cls, jstring jname)
{
	(void)cls;
	const char *name = (*env)->GetStringUTFChars(env, jname, NULL);
	jlong v = -1;
	pthread_mutex_lock(&lock);
	for (int k = 0; k < K_COUNT; k++)
		if (strcmp(name, kind_names[k]) == 0)
			v = st.live[k];
	if (strcmp(name, "async_delivered") == 0)
		v = st.async_delivered;
	else if (strcmp(name, "async_acked") == 0)
		v = st.async_acked;
	else if (strcmp(name, "async_bad_acks") == 0)
		v = st.async_bad_acks;
	else if (strcmp(name, "async_pending") == 0)
		v = st.async_count;
	else if (strcmp(name, "cq_destroyed_unacked") == 0)
		v = st.cq_destroyed_unacked;
	pthread_mutex_unlock(&lock);
	(*env)->ReleaseStringUTFChars(env, jname, name);
	return v;
}

__attribute__((constructor)) static void fake_init(void)
{
	reset_state();
}

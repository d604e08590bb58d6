/*
 * A fake libibverbs.so.1 for tests: the same symbols, versions and structs as rdma-core's, with the
 * rules a kernel and an RC NIC enforce instead of a driver:
 *  - ibv_modify_qp checks each transition against the kernel's table of required and optional
 *    attribute masks (qp_state_table in drivers/infiniband/core/verbs.c, RC rows) and the values:
 *    RoCE ports need a GRH whose sgid_index names a non-empty GID, InfiniBand ports a non-zero DLID,
 *    path_mtu at most the port's active MTU, RDMA READ depths within the device caps;
 *  - device caps bound QP and CQ sizes; ibv_create_qp/ibv_create_cq return the granted (rounded) sizes;
 *  - posting is refused in the wrong QP state or beyond the queue depth;
 *  - RDMA WRITE, READ and SEND between QPs of this process move the bytes after checking lkey, rkey,
 *    bounds and access; completions, flushes and error completions (LOC_PROT_ERR, REM_ACCESS_ERR,
 *    RETRY_EXC_ERR when the peer QP is gone or a port is down, RNR_RETRY_EXC_ERR) come from here;
 *  - a send WR nobody answers (the peer QP not yet in RTR, as when the passive side of a handshake
 *    sends before the active side connected its QP; the peer QP gone or connected elsewhere; a port
 *    down) is dropped and retransmitted as a NIC does: it waits, with the WRs posted after it, for the
 *    next try one ACK timeout (4.096 us x 2^timeout) later, and ends RETRY_EXC_ERR (the rest flushed)
 *    when retry_cnt retries found nobody either: timeout x (retry_cnt + 1) after it was posted;
 *  - PSNs: a request whose PSN is not the one the responder expects is NAKed on every try
 *    (RETRY_EXC_ERR, nothing moved); a packet larger than the responder's path MTU is an invalid
 *    request (REM_INV_REQ_ERR); INLINE on a READ is refused at post; a send queue holds max_send_wr
 *    WRs until a completion at or after them is polled (as on a ConnectX);
 *  - ibv_reg_mr pins the range as the kernel does: unmapped memory or read-only memory asked writable
 *    is EFAULT (ENOMEM for unmapped memory after ibv_fork_init, from libibverbs' madvise);
 *  - port state changes raise PORT_ERR/PORT_ACTIVE on every open context.
 * Every call is appended to a text log, every refusal as a "refused" line naming the rule; live objects
 * are counted per kind; failures can be scripted one-shot per function. Tests drive it through the JNI
 * functions of io.vte.verbs.ibv.FakeIbverbs at the end of this file.
 * Built with -DFAKE_NO_QUERY_GID_EX it is an rdma-core older than 32 (no _ibv_query_gid_ex).
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

#include "vte_memmap.h"

#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_get_device_list

#define MAX_DEVICES 4
#define MAX_PORTS 4
#define MAX_GIDS 16
#define MAX_OBJECTS 256
#define MAX_QUEUE 4096
#define MAX_FAILS 16
#define MAX_RECV 1024
#define MAX_RETRANSMIT 1024 /* send WRs one QP holds while its peer QP is not ready */

enum kind { K_CONTEXT, K_PD, K_MR, K_CQ, K_CHANNEL, K_QP, K_DEVICE_LIST, K_COUNT };
static const char *const kind_names[K_COUNT] = { "context", "pd", "mr", "cq", "channel", "qp", "device_list" };

struct fake_port {
	struct ibv_port_attr attr;
	union ibv_gid gids[MAX_GIDS];
	int gid_types[MAX_GIDS];
	int gid_ifindex[MAX_GIDS]; /* netdev of each GID, as ibv_query_gid_ex reports it */
};

struct fake_cq {
	struct ibv_cq cq;
	struct ibv_wc queue[MAX_QUEUE];
	uint64_t send_seq[MAX_QUEUE]; /* of a send completion: the WR's place in its QP's send queue, else 0 */
	int head, count, armed, ordinal, overflowed;
	int users; /* QPs on it */
	unsigned int events_delivered, events_acked;
};

/* An extended context, as every mlx5 context is: the shim's inline ibv_query_port takes vctx.query_port. */
struct fake_ctx {
	struct verbs_context vctx; /* its last field is the struct ibv_context handed out */
	int async_write_fd;
	struct ibv_async_event async_queue[MAX_QUEUE];
	int async_head, async_count;
};

#define CTX(f) ((f)->vctx.context)

static struct fake_ctx *fake_ctx_of(struct ibv_context *ctx)
{
	return (struct fake_ctx *)((uint8_t *)ctx - offsetof(struct fake_ctx, vctx.context));
}

struct fake_channel {
	struct ibv_comp_channel ch;
	int write_fd;
	struct fake_cq *pending[MAX_QUEUE];
	int head, count;
};

struct fake_pd {
	struct ibv_pd pd;
	int users; /* MRs and QPs */
};

struct fake_mr {
	struct ibv_mr mr;
	unsigned int access;
};

struct fake_recv {
	uint64_t wr_id;
	struct ibv_sge sge;
};

/* A send WR held for retransmission: a copy of the WR, its scatter list and, when inline, its data. */
struct fake_held {
	struct ibv_send_wr wr;
	uint64_t seq; /* its place in the send queue */
	struct ibv_sge *sg;
	uint8_t *inline_data;
};

struct fake_qp {
	struct ibv_qp qp;
	struct ibv_qp_cap cap;
	int sq_sig_all, port;
	unsigned int access;
	struct ibv_qp_attr attr; /* what RTR/RTS set */
	struct fake_recv rq[MAX_RECV];
	int rq_head, rq_count;
	struct fake_held held[MAX_RETRANSMIT];
	int held_head, held_count;
	long long next_try_ns; /* when the first held WR is retransmitted */
	int tries;             /* retries of the first held WR so far */
	uint64_t sq_posted, sq_freed; /* send WRs posted; freed by polling a completion at or after them */
	uint32_t psn_send, psn_expect; /* next PSN this QP sends; next PSN it accepts as responder */
};

struct fail_rule {
	char fn[64];
	int err, arg, skip, used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long fork_inits; /* survives reset: ibv_fork_init runs once per process */
static long lists_before_fork_init; /* device lists before the first ibv_fork_init (too late after) */
static pthread_cond_t acked = PTHREAD_COND_INITIALIZER;
static struct {
	char names[MAX_DEVICES][IBV_SYSFS_NAME_MAX];
	char sysfs_root[IBV_SYSFS_PATH_MAX - IBV_SYSFS_NAME_MAX - 2];
	int device_count, list_errno, port_count, record_only, max_inline, comp_vectors;
	/* portDownAfterSends: that many more send WRs on the device (-1: any), then its port goes down */
	long down_after_sends;
	int down_after_device, down_after_port;
	struct ibv_device_attr caps;
	struct fake_port ports[MAX_DEVICES][MAX_PORTS + 1]; /* by device index, then port */
	struct ibv_device devices[MAX_DEVICES];
	struct fail_rule fails[MAX_FAILS];
	int live[K_COUNT];
	struct fake_cq *cqs[MAX_OBJECTS];
	int cq_count;
	struct fake_qp *qps[MAX_OBJECTS];
	int qp_count;
	struct fake_mr *mrs[MAX_OBJECTS * 4];
	struct fake_ctx *ctxs[MAX_OBJECTS];
	struct fake_ctx *last_ctx;
	long async_delivered, async_acked, async_bad_acks, cq_destroyed_unacked, bytes_moved, refusals;
	long port_changes, qp_fatals, log_dropped, retransmits;
	/* corruptLanded: that many more RDMA WRITEs / READs land with one byte of their destination flipped */
	long corrupt_writes, corrupt_reads, landed_corrupted;
	uint32_t next_key, next_qp_num;
	char *log;
	size_t log_len, log_cap;
} st;

/* Bytes of log kept: a long data-path run logs every work request and completion (about 1 GB for a
 * 30 s port-flap run), so later lines are only counted (log_dropped); counters say what a long run
 * needs (refusals, port_changes, qp_fatals, bytes_moved). */
#define LOG_LIMIT ((size_t)64 << 20)

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
	if (st.log_len + n + 1 > LOG_LIMIT) {
		st.log_dropped++;
		return;
	}
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

/* Logs a refused call with the rule it broke and returns `err` (for `return refuse(...)`). */
static int refuse(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(int err, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	st.refusals++;
	log_line("refused %s", why);
	return err;
}

/* Returns the scripted errno for `fn` (and `arg`, -1 = any) once, after `skip` matching calls, or 0. */
static int scripted_failure(const char *fn, int arg)
{
	for (int i = 0; i < MAX_FAILS; i++) {
		struct fail_rule *r = &st.fails[i];
		if (r->fn[0] != '\0' && !r->used && strcmp(r->fn, fn) == 0 && (r->arg < 0 || r->arg == arg)) {
			if (r->skip > 0) {
				r->skip--;
				return 0;
			}
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
	snprintf(st.sysfs_root, sizeof(st.sysfs_root), "/sys/class/infiniband");
	st.port_count = 1;
	for (int d = 0; d < MAX_DEVICES; d++)
		for (int p = 1; p <= MAX_PORTS; p++) {
			struct fake_port *fp = &st.ports[d][p];
			fp->attr.state = IBV_PORT_ACTIVE;
			fp->attr.max_mtu = IBV_MTU_4096;
			fp->attr.active_mtu = IBV_MTU_1024;
			fp->attr.lid = (uint16_t)p;
			fp->attr.link_layer = IBV_LINK_LAYER_ETHERNET;
			fp->attr.gid_tbl_len = 1;
			fp->attr.pkey_tbl_len = 1;
			fp->attr.max_msg_sz = 1u << 30; /* a ConnectX's; rxe: 8 MiB */
			fp->gids[0].raw[0] = 0xfe;
			fp->gids[0].raw[1] = 0x80;
			fp->gids[0].raw[14] = (uint8_t)d; /* each device its own GIDs, as on real NICs */
			fp->gids[0].raw[15] = (uint8_t)p;
			fp->gid_types[0] = IBV_GID_TYPE_ROCE_V1;
		}
	/* A ConnectX-5's limits, give or take. */
	st.caps.max_qp_wr = 32768;
	st.caps.max_sge = 30;
	st.caps.max_cqe = 4194303;
	st.caps.max_qp_rd_atom = 16;
	st.caps.max_qp_init_rd_atom = 16;
	st.caps.max_mr_size = ~0ULL;
	st.caps.max_qp = 262144;
	st.caps.max_cq = 16777216;
	st.caps.max_mr = 16777216;
	st.caps.max_pd = 16777216;
	st.max_inline = 256;
	st.comp_vectors = 4;
	st.next_key = 0x1000;
	st.next_qp_num = 0x100;
}

static uint32_t round_pow2(uint32_t v)
{
	uint32_t r = 1;
	while (r < v)
		r <<= 1;
	return r;
}

/* ---- devices and ports ---- */

/* A port of the device a context was opened on. */
static struct fake_port *port_of(struct ibv_context *ctx, int port)
{
	return &st.ports[ctx->device - st.devices][port];
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_get_device_list");
	if (fork_inits == 0)
		lists_before_fork_init++;
	struct ibv_device **list = NULL;
	if (st.list_errno != 0) {
		errno = st.list_errno;
	} else {
		list = calloc(st.device_count + 1, sizeof(*list));
		for (int i = 0; list != NULL && i < st.device_count; i++) {
			memcpy(st.devices[i].name, st.names[i], IBV_SYSFS_NAME_MAX);
			snprintf(st.devices[i].ibdev_path, IBV_SYSFS_PATH_MAX, "%s/%s", st.sysfs_root, st.names[i]);
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

int ibv_fork_init(void)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_fork_init");
	fork_inits++;
	pthread_mutex_unlock(&lock);
	return 0;
}

static int fake_query_port_ex(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
			      size_t attr_len);
static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only);
static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
static void retransmit(long long now);
static void drop_held(struct fake_qp *q);
static void drop_first_held(struct fake_qp *q);
static long long now_ns(void);
static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op);
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
		CTX(f).device = device;
		CTX(f).async_fd = fds[0];
		f->async_write_fd = fds[1];
		CTX(f).num_comp_vectors = st.comp_vectors;
		CTX(f).ops.poll_cq = fake_poll_cq;
		CTX(f).ops.req_notify_cq = fake_req_notify_cq;
		CTX(f).ops.post_send = fake_post_send;
		CTX(f).ops.post_recv = fake_post_recv;
		CTX(f).abi_compat = __VERBS_ABI_IS_EXTENDED;
		f->vctx.sz = sizeof(f->vctx);
		f->vctx.query_port = fake_query_port_ex;
		st.live[K_CONTEXT]++;
		st.last_ctx = f;
		for (int i = 0; i < MAX_OBJECTS; i++)
			if (st.ctxs[i] == NULL) {
				st.ctxs[i] = f;
				break;
			}
	} else if (err != 0) {
		errno = err;
	}
	pthread_mutex_unlock(&lock);
	return f == NULL ? NULL : &CTX(f);
}

int ibv_close_device(struct ibv_context *context)
{
	struct fake_ctx *f = fake_ctx_of(context);
	pthread_mutex_lock(&lock);
	log_line("ibv_close_device name=%s", context->device->name);
	close(CTX(f).async_fd);
	close(f->async_write_fd);
	if (st.last_ctx == f)
		st.last_ctx = NULL;
	for (int i = 0; i < MAX_OBJECTS; i++)
		if (st.ctxs[i] == f)
			st.ctxs[i] = NULL;
	st.live[K_CONTEXT]--;
	pthread_mutex_unlock(&lock);
	free(f);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context;
	pthread_mutex_lock(&lock);
	*attr = st.caps;
	attr->phys_port_cnt = (uint8_t)st.port_count;
	pthread_mutex_unlock(&lock);
	return 0;
}

static int query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *out, const char *path)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_query_port port=%u path=%s", port_num, path);
	int rc = scripted_failure("ibv_query_port", port_num);
	if (rc == 0 && (port_num < 1 || port_num > st.port_count))
		rc = EINVAL;
	if (rc == 0)
		*out = port_of(context, port_num)->attr;
	pthread_mutex_unlock(&lock);
	return rc;
}

/* The extended context's op, which rdma-core's inline ibv_query_port calls on an mlx5 context. */
static int fake_query_port_ex(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
			      size_t attr_len)
{
	if (attr_len < sizeof(*attr))
		return EINVAL;
	return query_port(context, port_num, attr, "extended");
}

/* The compat entry point, for callers that see a non-extended context. */
int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *out)
{
	return query_port(context, port_num, (struct ibv_port_attr *)out, "compat");
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_query_gid port=%u index=%d", port_num, index);
	int rc = 0;
	if (port_num < 1 || port_num > st.port_count || index < 0 || index >= MAX_GIDS
	    || index >= port_of(context, port_num)->attr.gid_tbl_len)
		rc = -1;
	else
		*gid = port_of(context, port_num)->gids[index];
	pthread_mutex_unlock(&lock);
	return rc;
}

#ifndef FAKE_NO_QUERY_GID_EX
int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	(void)flags;
	if (entry_size < sizeof(*entry))
		return EINVAL;
	pthread_mutex_lock(&lock);
	int rc = 0;
	if (port_num < 1 || port_num > (uint32_t)st.port_count || gid_index >= MAX_GIDS
	    || (int)gid_index >= port_of(context, port_num)->attr.gid_tbl_len) {
		rc = EINVAL;
	} else {
		memset(entry, 0, sizeof(*entry));
		entry->gid = port_of(context, port_num)->gids[gid_index];
		entry->gid_index = gid_index;
		entry->port_num = port_num;
		entry->gid_type = (uint32_t)port_of(context, port_num)->gid_types[gid_index];
		entry->ndev_ifindex = (uint32_t)port_of(context, port_num)->gid_ifindex[gid_index];
	}
	pthread_mutex_unlock(&lock);
	return rc;
}
#endif

/* ---- PD and MR ---- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_alloc_pd");
	struct fake_pd *pd = NULL;
	int err = scripted_failure("ibv_alloc_pd", -1);
	if (err != 0) {
		errno = err;
	} else {
		pd = calloc(1, sizeof(*pd));
		pd->pd.context = context;
		st.live[K_PD]++;
	}
	pthread_mutex_unlock(&lock);
	return pd == NULL ? NULL : &pd->pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct fake_pd *f = (struct fake_pd *)pd;
	pthread_mutex_lock(&lock);
	log_line("ibv_dealloc_pd");
	if (f->users > 0) {
		int rc = refuse(EBUSY, "ibv_dealloc_pd: %d MR(s)/QP(s) still use the PD", f->users);
		pthread_mutex_unlock(&lock);
		return rc;
	}
	st.live[K_PD]--;
	pthread_mutex_unlock(&lock);
	free(f);
	return 0;
}

#define KNOWN_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ \
	| IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING)

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_reg_mr addr=0x%llx length=%zu iova=0x%llx access=0x%x", (unsigned long long)(uintptr_t)addr,
		length, (unsigned long long)iova, access);
	struct fake_mr *mr = NULL;
	int err = scripted_failure("ibv_reg_mr", -1);
	if (err == 0 && (access & ~KNOWN_ACCESS) != 0)
		err = refuse(EINVAL, "ibv_reg_mr: unknown access bits 0x%x", access & ~KNOWN_ACCESS);
	/* The kernel's rule (ib_check_mr_access): remote write or atomic needs local write. */
	if (err == 0 && (access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC))
	    && !(access & IBV_ACCESS_LOCAL_WRITE))
		err = refuse(EINVAL, "ibv_reg_mr: access 0x%x has remote write/atomic without local write", access);
	if (err == 0 && length > st.caps.max_mr_size)
		err = refuse(EINVAL, "ibv_reg_mr: length %zu exceeds max_mr_size", length);
	char why[256];
	int problem = err == 0 ? vte_range_problem((uintptr_t)addr, length, (access & VTE_WRITABLE_ACCESS) != 0,
						   why, sizeof(why))
			       : 0;
	/* ibv_fork_init makes libibverbs madvise(MADV_DONTFORK) the range first: ENOMEM on a gap */
	if (problem != 0)
		err = refuse(problem == VTE_RANGE_UNMAPPED && fork_inits > 0 ? ENOMEM : EFAULT, "ibv_reg_mr: %s", why);
	int slot = -1;
	for (int i = 0; err == 0 && i < MAX_OBJECTS * 4; i++)
		if (st.mrs[i] == NULL) {
			slot = i;
			break;
		}
	if (err == 0 && slot < 0)
		err = ENOMEM;
	if (err != 0) {
		errno = err;
	} else {
		mr = calloc(1, sizeof(*mr));
		mr->mr.context = pd->context;
		mr->mr.pd = pd;
		mr->mr.addr = addr;
		mr->mr.length = length;
		mr->mr.lkey = st.next_key++;
		mr->mr.rkey = st.next_key++;
		mr->access = access;
		st.mrs[slot] = mr;
		((struct fake_pd *)pd)->users++;
		st.live[K_MR]++;
	}
	pthread_mutex_unlock(&lock);
	return mr == NULL ? NULL : &mr->mr;
}

#ifndef FAKE_NO_REG_MR_IOVA2
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}
#endif

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_dereg_mr lkey=%u", mr->lkey);
	for (int i = 0; i < MAX_OBJECTS * 4; i++)
		if (st.mrs[i] == (struct fake_mr *)mr)
			st.mrs[i] = NULL;
	((struct fake_pd *)mr->pd)->users--;
	st.live[K_MR]--;
	pthread_mutex_unlock(&lock);
	free(mr);
	return 0;
}

/* The MR of `pd` with this key (lkey or rkey) covering [addr, addr + len), or NULL. */
static struct fake_mr *find_mr(struct ibv_pd *pd, uint32_t key, int remote, uint64_t addr, uint64_t len)
{
	for (int i = 0; i < MAX_OBJECTS * 4; i++) {
		struct fake_mr *m = st.mrs[i];
		if (m == NULL || m->mr.pd != pd || (remote ? m->mr.rkey : m->mr.lkey) != key)
			continue;
		uint64_t start = (uintptr_t)m->mr.addr;
		if (addr >= start && len <= m->mr.length && addr - start <= m->mr.length - len)
			return m;
		return NULL;
	}
	return NULL;
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
	if (err == 0 && (cqe < 1 || cqe > st.caps.max_cqe))
		err = refuse(EINVAL, "ibv_create_cq: cqe %d outside 1..max_cqe %d", cqe, st.caps.max_cqe);
	if (err == 0 && (comp_vector < 0 || comp_vector >= context->num_comp_vectors))
		err = refuse(EINVAL, "ibv_create_cq: comp_vector %d outside 0..%d", comp_vector,
			     context->num_comp_vectors - 1);
	if (err != 0 || st.cq_count == MAX_OBJECTS) {
		errno = err != 0 ? err : ENOMEM;
	} else {
		f = calloc(1, sizeof(*f));
		f->cq.context = context;
		f->cq.channel = channel;
		f->cq.cq_context = cq_context;
		/* As mlx5: the next power of two minus one, at least what was asked. */
		f->cq.cqe = (int)round_pow2((uint32_t)cqe + 1) - 1;
		if (f->cq.cqe > MAX_QUEUE)
			f->cq.cqe = MAX_QUEUE;
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
	if (f->users > 0) {
		int rc = refuse(EBUSY, "ibv_destroy_cq: %d QP(s) still use CQ %d", f->users, f->ordinal);
		pthread_mutex_unlock(&lock);
		return rc;
	}
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
	pthread_mutex_lock(&lock);
	int rc = scripted_failure("ibv_get_cq_event", -1);
	pthread_mutex_unlock(&lock);
	if (rc != 0) {
		/* a failed read leaves the event queued, as a real channel does */
		errno = rc;
		return -1;
	}
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

static void queue_async(struct fake_ctx *ctx, const struct ibv_async_event *e)
{
	if (ctx == NULL || ctx->async_count == MAX_QUEUE)
		return;
	ctx->async_queue[(ctx->async_head + ctx->async_count++) % MAX_QUEUE] = *e;
	if (write(ctx->async_write_fd, "a", 1) != 1)
		ctx->async_count--;
}

/* Queues one event of an armed CQ on its channel and disarms it (lock held). */
static void wake_channel(struct fake_cq *f)
{
	if (f->armed && f->cq.channel != NULL) {
		struct fake_channel *c = (struct fake_channel *)f->cq.channel;
		f->armed = 0;
		c->pending[(c->head + c->count++) % MAX_QUEUE] = f;
		if (write(c->write_fd, "c", 1) != 1)
			c->count--;
	}
}

/* Adds a completion (lock held); wakes the channel if armed; a full CQ overflows into CQ_ERR. */
static int cq_push(struct fake_cq *f, const struct ibv_wc *wc, uint64_t send_seq)
{
	if (f->count >= f->cq.cqe) {
		if (!f->overflowed) {
			struct ibv_async_event e = { .event_type = IBV_EVENT_CQ_ERR };
			e.element.cq = &f->cq;
			queue_async(fake_ctx_of(f->cq.context), &e);
		}
		f->overflowed = 1;
		refuse(ENOSPC, "completion on CQ %d: overrun (cqe %d)", f->ordinal, f->cq.cqe);
		return -1;
	}
	f->send_seq[(f->head + f->count) % MAX_QUEUE] = send_seq;
	f->queue[(f->head + f->count++) % MAX_QUEUE] = *wc;
	wake_channel(f);
	return 0;
}

static struct fake_qp *find_qp(uint32_t qpn);

/* Polling a send completion frees its WR's send queue slot and those of the WRs before it (lock held). */
static void free_send_slots(uint32_t qpn, uint64_t send_seq)
{
	struct fake_qp *q = send_seq != 0 ? find_qp(qpn) : NULL;
	if (q != NULL && send_seq > q->sq_freed)
		q->sq_freed = send_seq;
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	pthread_mutex_lock(&lock);
	retransmit(now_ns());
	int rc = scripted_failure("ibv_poll_cq", f->ordinal);
	int n = 0;
	if (rc != 0) {
		n = -rc;
	} else if (f->overflowed) {
		n = -EOVERFLOW;
	} else {
		for (; n < num_entries && f->count > 0; n++) {
			wc[n] = f->queue[f->head];
			free_send_slots(wc[n].qp_num, f->send_seq[f->head]);
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
	int rc = scripted_failure("ibv_req_notify_cq", f->ordinal);
	/* As on a real CQ: the arm is for the next completion; those already queued raise no event. */
	if (rc == 0)
		f->armed = 1;
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ---- QPs ---- */

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_create_qp type=%d max_send_wr=%u max_recv_wr=%u max_send_sge=%u max_recv_sge=%u "
		 "max_inline_data=%u sq_sig_all=%d", attr->qp_type, attr->cap.max_send_wr, attr->cap.max_recv_wr,
		 attr->cap.max_send_sge, attr->cap.max_recv_sge, attr->cap.max_inline_data, attr->sq_sig_all);
	struct fake_qp *qp = NULL;
	int err = scripted_failure("ibv_create_qp", -1);
	struct ibv_qp_cap *cap = &attr->cap;
	if (err == 0 && attr->qp_type != IBV_QPT_RC)
		err = refuse(EOPNOTSUPP, "ibv_create_qp: qp_type %d (the fake does RC only)", attr->qp_type);
	if (err == 0 && (attr->send_cq == NULL || attr->recv_cq == NULL || attr->send_cq->context != pd->context
			 || attr->recv_cq->context != pd->context))
		err = refuse(EINVAL, "ibv_create_qp: CQs missing or of another context");
	if (err == 0 && (cap->max_send_wr < 1 || cap->max_send_wr > (uint32_t)st.caps.max_qp_wr
			 || cap->max_recv_wr > (uint32_t)st.caps.max_qp_wr))
		err = refuse(EINVAL, "ibv_create_qp: max_send_wr %u/max_recv_wr %u outside 1..max_qp_wr %d",
			     cap->max_send_wr, cap->max_recv_wr, st.caps.max_qp_wr);
	if (err == 0 && (cap->max_send_sge > (uint32_t)st.caps.max_sge || cap->max_recv_sge > (uint32_t)st.caps.max_sge))
		err = refuse(EINVAL, "ibv_create_qp: sge %u/%u above max_sge %d", cap->max_send_sge,
			     cap->max_recv_sge, st.caps.max_sge);
	if (err == 0 && cap->max_inline_data > (uint32_t)st.max_inline)
		err = refuse(EINVAL, "ibv_create_qp: max_inline_data %u above the device's %d", cap->max_inline_data,
			     st.max_inline);
	/* a destroyed QP's slot is reused: endpoints that reconnect for a long time never run out */
	int slot = 0;
	while (slot < st.qp_count && st.qps[slot] != NULL)
		slot++;
	if (err != 0 || slot == MAX_OBJECTS) {
		errno = err != 0 ? err : ENOMEM;
	} else {
		qp = calloc(1, sizeof(*qp));
		qp->qp.context = pd->context;
		qp->qp.pd = pd;
		qp->qp.send_cq = attr->send_cq;
		qp->qp.recv_cq = attr->recv_cq;
		qp->qp.qp_num = st.next_qp_num++;
		qp->qp.qp_type = attr->qp_type;
		qp->qp.state = IBV_QPS_RESET;
		qp->sq_sig_all = attr->sq_sig_all;
		/* As mlx5: depths round up to a power of two; the granted caps go back to the caller. */
		cap->max_send_wr = round_pow2(cap->max_send_wr);
		cap->max_recv_wr = round_pow2(cap->max_recv_wr < 1 ? 1 : cap->max_recv_wr);
		if (cap->max_recv_wr > MAX_RECV)
			cap->max_recv_wr = MAX_RECV;
		qp->cap = *cap;
		((struct fake_cq *)attr->send_cq)->users++;
		((struct fake_cq *)attr->recv_cq)->users++;
		((struct fake_pd *)pd)->users++;
		st.qps[slot] = qp;
		if (slot == st.qp_count)
			st.qp_count++;
		st.live[K_QP]++;
	}
	pthread_mutex_unlock(&lock);
	return qp == NULL ? NULL : &qp->qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	pthread_mutex_lock(&lock);
	log_line("ibv_destroy_qp qpn=%u", qp->qp_num);
	for (int i = 0; i < st.qp_count; i++)
		if (st.qps[i] == (struct fake_qp *)qp)
			st.qps[i] = NULL;
	drop_held((struct fake_qp *)qp); /* WRs others hold for it meet a QP that is gone at their next try */
	((struct fake_cq *)qp->send_cq)->users--;
	((struct fake_cq *)qp->recv_cq)->users--;
	((struct fake_pd *)qp->pd)->users--;
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
	FIELD(IBV_QP_AV, " sl=%u", a->ah_attr.sl);
	FIELD(IBV_QP_AV, " ah_port=%u", a->ah_attr.port_num);
	FIELD(IBV_QP_AV, " is_global=%u", a->ah_attr.is_global);
	FIELD(IBV_QP_AV, " sgid_index=%u", a->ah_attr.grh.sgid_index);
	FIELD(IBV_QP_AV, " hop_limit=%u", a->ah_attr.grh.hop_limit);
	FIELD(IBV_QP_AV, " traffic_class=%u", a->ah_attr.grh.traffic_class);
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

/*
 * The RC rows of the kernel's qp_state_table: for (cur, next), whether the transition is valid and which
 * attribute bits it requires and allows (besides IBV_QP_STATE). Transitions to RESET and ERR take none.
 */
struct transition {
	int valid, req, opt;
};

static struct transition rc_transition(enum ibv_qp_state cur, enum ibv_qp_state next)
{
	struct transition t = { 0, 0, 0 };
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
		t.valid = 1;
		return t;
	}
	switch (cur) {
	case IBV_QPS_RESET:
		if (next == IBV_QPS_INIT)
			t = (struct transition){ 1, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 };
		break;
	case IBV_QPS_INIT:
		if (next == IBV_QPS_INIT)
			t = (struct transition){ 1, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS };
		else if (next == IBV_QPS_RTR)
			t = (struct transition){ 1,
				IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
					| IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
				IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX };
		break;
	case IBV_QPS_RTR:
		if (next == IBV_QPS_RTS)
			t = (struct transition){ 1,
				IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY
					| IBV_QP_MAX_QP_RD_ATOMIC,
				IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER
					| IBV_QP_PATH_MIG_STATE };
		break;
	case IBV_QPS_RTS:
		if (next == IBV_QPS_RTS)
			t = (struct transition){ 1, 0,
				IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE
					| IBV_QP_MIN_RNR_TIMER };
		break;
	default:
		break;
	}
	return t;
}

static int gid_index_usable(const struct fake_port *fp, int index)
{
	static const union ibv_gid zero;
	return index >= 0 && index < fp->attr.gid_tbl_len && index < MAX_GIDS
		&& memcmp(fp->gids[index].raw, zero.raw, 16) != 0;
}

/* The value checks of a valid transition with a valid mask; 0 or the errno, with a "refused" line. */
static int check_values(struct fake_qp *q, enum ibv_qp_state next, const struct ibv_qp_attr *a, int mask)
{
	unsigned int qpn = q->qp.qp_num;
	if (mask & IBV_QP_PORT) {
		if (a->port_num < 1 || a->port_num > st.port_count)
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: port %u does not exist", qpn, a->port_num);
	}
	int port = (mask & IBV_QP_PORT) ? a->port_num : q->port;
	struct fake_port *fp = port_of(q->qp.context, port);
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index >= fp->attr.pkey_tbl_len)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: pkey_index %u beyond the P_Key table", qpn, a->pkey_index);
	if ((mask & IBV_QP_ACCESS_FLAGS)
	    && (a->qp_access_flags & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE
						     | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)) != 0)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: qp_access_flags 0x%x", qpn, a->qp_access_flags);
	if (next != IBV_QPS_RTR && next != IBV_QPS_RTS)
		return 0;
	const struct ibv_port_attr *pa = &fp->attr;
	if (mask & IBV_QP_PATH_MTU) {
		if (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096)
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: path_mtu %d", qpn, a->path_mtu);
		if (a->path_mtu > pa->active_mtu)
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: path_mtu %d above the active MTU %d of port %d",
				      qpn, a->path_mtu, pa->active_mtu, port);
	}
	if ((mask & IBV_QP_DEST_QPN) && (a->dest_qp_num & ~0xffffffu) != 0)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: dest_qp_num 0x%x beyond 24 bits", qpn, a->dest_qp_num);
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > st.caps.max_qp_rd_atom)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: max_dest_rd_atomic %u above max_qp_rd_atom %d", qpn,
			      a->max_dest_rd_atomic, st.caps.max_qp_rd_atom);
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > st.caps.max_qp_init_rd_atom)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: max_rd_atomic %u above max_qp_init_rd_atom %d", qpn,
			      a->max_rd_atomic, st.caps.max_qp_init_rd_atom);
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: min_rnr_timer %u", qpn, a->min_rnr_timer);
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: timeout %u", qpn, a->timeout);
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: retry_cnt %u", qpn, a->retry_cnt);
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: rnr_retry %u", qpn, a->rnr_retry);
	if ((mask & (IBV_QP_RQ_PSN | IBV_QP_SQ_PSN))
	    && (((mask & IBV_QP_RQ_PSN) && (a->rq_psn & ~0xffffffu)) || ((mask & IBV_QP_SQ_PSN) && (a->sq_psn & ~0xffffffu))))
		return refuse(EINVAL, "ibv_modify_qp qpn=%u: PSN beyond 24 bits", qpn);
	if (mask & IBV_QP_AV) {
		const struct ibv_ah_attr *ah = &a->ah_attr;
		if (ah->port_num != 0 && ah->port_num != port)
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: ah port %u is not the QP's port %d", qpn,
				      ah->port_num, port);
		if (ah->sl > 15)
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: sl %u", qpn, ah->sl);
		if (pa->link_layer == IBV_LINK_LAYER_ETHERNET) {
			if (!ah->is_global)
				return refuse(EINVAL, "ibv_modify_qp qpn=%u: RoCE port %d needs a GRH (is_global=0)",
					      qpn, port);
		} else if (ah->dlid == 0) {
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: InfiniBand port %d needs a non-zero DLID", qpn,
				      port);
		}
		if (ah->is_global && !gid_index_usable(fp, ah->grh.sgid_index))
			return refuse(EINVAL, "ibv_modify_qp qpn=%u: sgid_index %u names no GID of port %d (table %d)",
				      qpn, ah->grh.sgid_index, port, pa->gid_tbl_len);
	}
	return 0;
}

static void flush_queues(struct fake_qp *q);

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct fake_qp *q = (struct fake_qp *)qp;
	pthread_mutex_lock(&lock);
	log_modify(qp, attr, attr_mask);
	enum ibv_qp_state cur = qp->state;
	enum ibv_qp_state next = (attr_mask & IBV_QP_STATE) ? attr->qp_state : cur;
	int rc = scripted_failure("ibv_modify_qp", next);
	struct transition t = rc_transition(cur, next);
	if (rc == 0 && !t.valid)
		rc = refuse(EINVAL, "ibv_modify_qp qpn=%u: %d -> %d is not a transition", qp->qp_num, cur, next);
	int extra = attr_mask & ~(t.req | t.opt | IBV_QP_STATE);
	if (rc == 0 && (attr_mask & t.req) != t.req)
		rc = refuse(EINVAL, "ibv_modify_qp qpn=%u: %d -> %d misses required attr_mask 0x%x", qp->qp_num, cur,
			    next, t.req & ~attr_mask);
	if (rc == 0 && extra != 0)
		rc = refuse(EINVAL, "ibv_modify_qp qpn=%u: %d -> %d does not allow attr_mask 0x%x", qp->qp_num, cur,
			    next, extra);
	if (rc == 0)
		rc = check_values(q, next, attr, attr_mask);
	if (rc == 0) {
		if (attr_mask & IBV_QP_PORT)
			q->port = attr->port_num;
		if (attr_mask & IBV_QP_ACCESS_FLAGS)
			q->access = attr->qp_access_flags;
		if (next == IBV_QPS_RTR) {
			q->attr.ah_attr = attr->ah_attr;
			q->attr.dest_qp_num = attr->dest_qp_num;
			q->attr.path_mtu = attr->path_mtu;
			q->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
			q->psn_expect = attr->rq_psn;
		}
		if (next == IBV_QPS_RTS && cur == IBV_QPS_RTR) {
			q->attr.timeout = attr->timeout;
			q->attr.retry_cnt = attr->retry_cnt;
			q->attr.rnr_retry = attr->rnr_retry;
			q->attr.max_rd_atomic = attr->max_rd_atomic;
			q->psn_send = attr->sq_psn;
		}
		qp->state = next;
		if (next == IBV_QPS_ERR)
			flush_queues(q);
		if (next == IBV_QPS_RESET) {
			q->rq_count = 0;
			drop_held(q);
			q->sq_freed = q->sq_posted;
		}
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ---- the wire: RC semantics between QPs of this process ---- */

static const char *status_name(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "LOC_QP_OP_ERR";
	default: return "OTHER";
	}
}

/* Queues a completion; send_seq: a send WR's place in its QP's send queue, 0 for a receive. */
static void complete(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status status, enum ibv_wc_opcode opcode,
		     uint32_t byte_len, uint32_t qp_num, unsigned int flags, uint32_t imm_be, uint64_t send_seq)
{
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = status;
	wc.opcode = opcode;
	wc.byte_len = byte_len;
	wc.qp_num = qp_num;
	wc.wc_flags = flags;
	wc.imm_data = imm_be;
	cq_push((struct fake_cq *)cq, &wc, send_seq);
}

/* Moves a QP to ERR as the NIC does on an error: every queued receive is flushed. */
static void to_error(struct fake_qp *q)
{
	q->qp.state = IBV_QPS_ERR;
	flush_queues(q);
}

static void flush_queues(struct fake_qp *q)
{
	while (q->held_count > 0) {
		struct fake_held *h = &q->held[q->held_head];
		complete(q->qp.send_cq, h->wr.wr_id, IBV_WC_WR_FLUSH_ERR, wc_opcode(h->wr.opcode), 0, q->qp.qp_num, 0, 0,
			 h->seq);
		drop_first_held(q);
	}
	while (q->rq_count > 0) {
		struct fake_recv *r = &q->rq[q->rq_head];
		complete(q->qp.recv_cq, r->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, q->qp.qp_num, 0, 0, 0);
		q->rq_head = (q->rq_head + 1) % MAX_RECV;
		q->rq_count--;
	}
}

static struct fake_qp *find_qp(uint32_t qpn)
{
	for (int i = 0; i < st.qp_count; i++)
		if (st.qps[i] != NULL && st.qps[i]->qp.qp_num == qpn)
			return st.qps[i];
	return NULL;
}

/* Whether the requester's address vector reaches `peer`'s port: the DGID (RoCE) or the DLID (IB). */
static int av_reaches(const struct fake_qp *q, const struct fake_qp *peer)
{
	const struct fake_port *pp = port_of(peer->qp.context, peer->port);
	const struct ibv_ah_attr *ah = &q->attr.ah_attr;
	if (pp->attr.link_layer != IBV_LINK_LAYER_ETHERNET)
		return ah->dlid == pp->attr.lid;
	for (int i = 0; i < pp->attr.gid_tbl_len && i < MAX_GIDS; i++)
		if (memcmp(pp->gids[i].raw, ah->grh.dgid.raw, 16) == 0)
			return 1;
	return 0;
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	default:
		return IBV_WC_SEND;
	}
}

static uint64_t sge_total(const struct ibv_send_wr *wr)
{
	uint64_t n = 0;
	for (int i = 0; i < wr->num_sge; i++)
		n += wr->sg_list[i].length;
	return n;
}

/* Checks every local SGE against the QP's PD (not for inline data); 0 or -1. */
static int local_sges_ok(struct fake_qp *q, const struct ibv_sge *sg, int n, int needs_write)
{
	for (int i = 0; i < n; i++) {
		struct fake_mr *m = find_mr(q->qp.pd, sg[i].lkey, 0, sg[i].addr, sg[i].length);
		if (m == NULL || (needs_write && !(m->access & IBV_ACCESS_LOCAL_WRITE)))
			return -1;
	}
	return 0;
}

/* Copies between the scatter list and [remote, remote + total): to_remote for WRITE/SEND. */
static void copy_sges(const struct ibv_sge *sg, int n, uint8_t *remote, int to_remote)
{
	uint64_t off = 0;
	for (int i = 0; i < n; i++) {
		uint8_t *local = (uint8_t *)(uintptr_t)sg[i].addr;
		if (to_remote)
			memmove(remote + off, local, sg[i].length);
		else
			memmove(local, remote + off, sg[i].length);
		off += sg[i].length;
	}
	st.bytes_moved += (long)off;
}

/*
 * corruptLanded: damage in memory after the DMA, which no link CRC sees (a bad DIMM, a stray write). Flips
 * one byte in the middle of what a WRITE landed at the responder, or a READ landed in the requester's first
 * SGE, while the count of that kind lasts (lock held).
 */
static void damage_landed(const struct fake_qp *q, const struct ibv_send_wr *wr, uint64_t len, int read)
{
	long *left = read ? &st.corrupt_reads : &st.corrupt_writes;
	if (*left <= 0 || len == 0 || wr->num_sge < 1 || wr->sg_list[0].length == 0)
		return;
	(*left)--;
	uint8_t *at = read ? (uint8_t *)(uintptr_t)wr->sg_list[0].addr + wr->sg_list[0].length / 2
			   : (uint8_t *)(uintptr_t)wr->wr.rdma.remote_addr + len / 2;
	*at ^= 0x5a;
	st.landed_corrupted++;
	log_line("corrupt qpn=%u wr_id=%llu %s at=0x%llx", q->qp.qp_num, (unsigned long long)wr->wr_id,
		 read ? "read" : "write", (unsigned long long)(uintptr_t)at);
}

static int peer_answers(const struct fake_qp *q);

/* Bytes of an enum ibv_mtu (IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5). */
static uint64_t mtu_bytes(enum ibv_mtu mtu)
{
	return 128u << mtu;
}

/*
 * Executes one send WR of a QP in RTS (lock held): the checks a requester and a responder make, then
 * the data movement and the completions. Returns the requester's status.
 */
static enum ibv_wc_status execute(struct fake_qp *q, struct ibv_send_wr *wr)
{
	uint64_t len = sge_total(wr);
	int inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
	if (port_of(q->qp.context, q->port)->attr.state != IBV_PORT_ACTIVE)
		return IBV_WC_RETRY_EXC_ERR;
	if (len > port_of(q->qp.context, q->port)->attr.max_msg_sz) {
		refuse(EMSGSIZE, "work request qpn=%u wr_id=%llu: %llu bytes above max_msg_sz %u", q->qp.qp_num,
		       (unsigned long long)wr->wr_id, (unsigned long long)len,
		       port_of(q->qp.context, q->port)->attr.max_msg_sz);
		return IBV_WC_LOC_LEN_ERR;
	}
	if (!inl && local_sges_ok(q, wr->sg_list, wr->num_sge, wr->opcode == IBV_WR_RDMA_READ) != 0)
		return IBV_WC_LOC_PROT_ERR;
	if (!peer_answers(q))
		return IBV_WC_RETRY_EXC_ERR; /* nobody answers: the transport retries run out */
	struct fake_qp *peer = find_qp(q->attr.dest_qp_num);
	if (q->psn_send != peer->psn_expect) {
		/* the responder NAKs an out-of-sequence PSN on every try: nothing moves */
		log_line("nak qpn=%u psn=%u: QP %u expects psn %u", q->qp.qp_num, q->psn_send, peer->qp.qp_num,
			 peer->psn_expect);
		return IBV_WC_RETRY_EXC_ERR;
	}
	uint64_t mtu = mtu_bytes(q->attr.path_mtu), peer_mtu = mtu_bytes(peer->attr.path_mtu);
	if (wr->opcode != IBV_WR_RDMA_READ && mtu > peer_mtu && len > peer_mtu) {
		/* packets of our path MTU are larger than the responder's: an invalid request there */
		log_line("nak qpn=%u: %llu-byte packets above the path MTU %llu of QP %u", q->qp.qp_num,
			 (unsigned long long)mtu, (unsigned long long)peer_mtu, peer->qp.qp_num);
		to_error(peer);
		return IBV_WC_REM_INV_REQ_ERR;
	}
	uint32_t packets = len == 0 ? 1 : (uint32_t)((len + mtu - 1) / mtu);
	q->psn_send = (q->psn_send + packets) & 0xffffff;
	peer->psn_expect = (peer->psn_expect + packets) & 0xffffff;
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ: {
		int read = wr->opcode == IBV_WR_RDMA_READ;
		unsigned int need = read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
		struct fake_mr *m = find_mr(peer->qp.pd, wr->wr.rdma.rkey, 1, wr->wr.rdma.remote_addr, len);
		if (m == NULL || !(m->access & need) || !(peer->access & need)
		    || (read && (q->attr.max_rd_atomic == 0 || peer->attr.max_dest_rd_atomic == 0))) {
			to_error(peer);
			return IBV_WC_REM_ACCESS_ERR;
		}
		if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM && peer->rq_count == 0)
			return IBV_WC_RNR_RETRY_EXC_ERR;
		copy_sges(wr->sg_list, wr->num_sge, (uint8_t *)(uintptr_t)wr->wr.rdma.remote_addr, !read);
		damage_landed(q, wr, len, read);
		if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
			struct fake_recv *r = &peer->rq[peer->rq_head];
			complete(peer->qp.recv_cq, r->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, (uint32_t)len,
				 peer->qp.qp_num, IBV_WC_WITH_IMM, wr->imm_data, 0);
			peer->rq_head = (peer->rq_head + 1) % MAX_RECV;
			peer->rq_count--;
		}
		return IBV_WC_SUCCESS;
	}
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM: {
		if (peer->rq_count == 0)
			return IBV_WC_RNR_RETRY_EXC_ERR;
		struct fake_recv *r = &peer->rq[peer->rq_head];
		peer->rq_head = (peer->rq_head + 1) % MAX_RECV;
		peer->rq_count--;
		if (len > r->sge.length) {
			complete(peer->qp.recv_cq, r->wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, peer->qp.qp_num, 0, 0, 0);
			to_error(peer);
			return IBV_WC_REM_INV_REQ_ERR;
		}
		if (local_sges_ok(peer, &r->sge, 1, 1) != 0) {
			complete(peer->qp.recv_cq, r->wr_id, IBV_WC_LOC_PROT_ERR, IBV_WC_RECV, 0, peer->qp.qp_num, 0, 0, 0);
			to_error(peer);
			return IBV_WC_REM_OP_ERR;
		}
		copy_sges(wr->sg_list, wr->num_sge, (uint8_t *)(uintptr_t)r->sge.addr, 1);
		int imm = wr->opcode == IBV_WR_SEND_WITH_IMM;
		complete(peer->qp.recv_cq, r->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, (uint32_t)len, peer->qp.qp_num,
			 imm ? IBV_WC_WITH_IMM : 0, imm ? wr->imm_data : 0, 0);
		return IBV_WC_SUCCESS;
	}
	default:
		return IBV_WC_LOC_QP_OP_ERR;
	}
}

/* Sets a port's state on one device (-1: every device); a change raises PORT_ACTIVE or PORT_ERR on the
 * contexts open on that device (lock held). */
static void set_port_state(int device, int port, int state)
{
	for (int d = 0; d < MAX_DEVICES; d++) {
		if (device >= 0 && d != device)
			continue;
		struct ibv_port_attr *a = &st.ports[d][port].attr;
		int was_active = a->state == IBV_PORT_ACTIVE;
		a->state = (enum ibv_port_state)state;
		int active = a->state == IBV_PORT_ACTIVE;
		if (was_active == active)
			continue;
		struct ibv_async_event e = { .event_type = active ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR };
		e.element.port_num = port;
		for (int i = 0; i < MAX_OBJECTS; i++)
			if (st.ctxs[i] != NULL && CTX(st.ctxs[i]).device == &st.devices[d])
				queue_async(st.ctxs[i], &e);
	}
	st.port_changes++;
	log_line("port %d of device %d state=%d", port, device, state);
}

/* Counts a send WR towards portDownAfterSends (lock held). */
static void count_send(struct ibv_qp *qp)
{
	if (st.down_after_sends <= 0)
		return;
	int d = (int)(CTX(fake_ctx_of(qp->context)).device - st.devices);
	if (st.down_after_device >= 0 && d != st.down_after_device)
		return;
	if (--st.down_after_sends == 0)
		set_port_state(st.down_after_device, st.down_after_port, IBV_PORT_DOWN);
}

/*
 * Completes a send WR that ran (lock held): an error then moves the QP to ERR, as the NIC does, which
 * flushes the WRs behind it.
 */
static void finish_send(struct fake_qp *q, const struct ibv_send_wr *wr, uint64_t seq, enum ibv_wc_status status)
{
	if (status != IBV_WC_SUCCESS || q->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED))
		complete(q->qp.send_cq, wr->wr_id, status, wc_opcode(wr->opcode),
			 wr->opcode == IBV_WR_RDMA_READ ? (uint32_t)sge_total(wr) : 0, q->qp.qp_num, 0, 0, seq);
	if (status != IBV_WC_SUCCESS && status != IBV_WC_WR_FLUSH_ERR) {
		log_line("wc qpn=%u wr_id=%llu status=%s", q->qp.qp_num, (unsigned long long)wr->wr_id,
			 status_name(status));
		to_error(q);
	}
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * True when the peer answers this QP's packets: both ports are up, the address vector reaches the peer
 * QP's port, and the peer QP is in RTR or RTS and connected back to this one (lock held). Otherwise its
 * NIC drops the packets (or nobody is there) and ours retransmits.
 */
static int peer_answers(const struct fake_qp *q)
{
	if (port_of(q->qp.context, q->port)->attr.state != IBV_PORT_ACTIVE)
		return 0;
	const struct fake_qp *peer = find_qp(q->attr.dest_qp_num);
	return peer != NULL && (peer->qp.state == IBV_QPS_RTR || peer->qp.state == IBV_QPS_RTS)
	       && peer->attr.dest_qp_num == q->qp.qp_num
	       && port_of(peer->qp.context, peer->port)->attr.state == IBV_PORT_ACTIVE && av_reaches(q, peer);
}

/* The local ACK timeout: 4.096 us x 2^timeout per try (0, infinite on a NIC: 10 s here). */
static long long ack_timeout_ns(const struct fake_qp *q)
{
	if (q->attr.timeout == 0)
		return 10000000000LL;
	return 4096LL << q->attr.timeout;
}

/* Copies a send WR to wait behind the others of its QP (lock held). */
static void hold(struct fake_qp *q, const struct ibv_send_wr *wr, uint64_t seq)
{
	struct fake_held *h = &q->held[(q->held_head + q->held_count) % MAX_RETRANSMIT];
	h->wr = *wr;
	h->wr.next = NULL;
	h->seq = seq;
	h->inline_data = NULL;
	h->sg = calloc(wr->num_sge > 0 ? wr->num_sge : 1, sizeof(struct ibv_sge));
	memcpy(h->sg, wr->sg_list, sizeof(struct ibv_sge) * wr->num_sge);
	if (wr->send_flags & IBV_SEND_INLINE) {
		/* the caller may reuse inline data once ibv_post_send returns */
		uint64_t len = sge_total(wr);
		h->inline_data = malloc(len > 0 ? len : 1);
		copy_sges(wr->sg_list, wr->num_sge, h->inline_data, 1);
		st.bytes_moved -= (long)len;
		h->sg[0].addr = (uintptr_t)h->inline_data;
		h->sg[0].length = (uint32_t)len;
		h->wr.num_sge = wr->num_sge > 0 ? 1 : 0;
	}
	h->wr.sg_list = h->sg;
	if (q->held_count++ == 0) {
		q->next_try_ns = now_ns() + ack_timeout_ns(q);
		q->tries = 0;
	}
	log_line("held qpn=%u wr_id=%llu: peer QP %u does not answer", q->qp.qp_num, (unsigned long long)wr->wr_id,
		 q->attr.dest_qp_num);
}

static void drop_first_held(struct fake_qp *q)
{
	struct fake_held *h = &q->held[q->held_head];
	free(h->sg);
	free(h->inline_data);
	q->held_head = (q->held_head + 1) % MAX_RETRANSMIT;
	q->held_count--;
}

/*
 * Takes the first held WR out and ends it: executed when status is IBV_WC_SUCCESS, else with that
 * status. Out of the queue first, so that an error's flush of the others does not end it twice.
 */
static void run_first_held(struct fake_qp *q, enum ibv_wc_status status)
{
	struct fake_held h = q->held[q->held_head];
	q->held_head = (q->held_head + 1) % MAX_RETRANSMIT;
	q->held_count--;
	finish_send(q, &h.wr, h.seq, status == IBV_WC_SUCCESS ? execute(q, &h.wr) : status);
	free(h.sg);
	free(h.inline_data);
}

/* Forgets the WRs a QP being destroyed or reset holds (lock held). */
static void drop_held(struct fake_qp *q)
{
	while (q->held_count > 0)
		drop_first_held(q);
}

/*
 * The retransmit timers, run when a CQ is polled (lock held): a QP whose next try is due sends its held
 * WRs again; when the peer answers now they run, in order; otherwise one more retry is used up, and
 * after retry_cnt of them the first WR ends RETRY_EXC_ERR, which flushes the rest.
 */
static void retransmit(long long now)
{
	for (int i = 0; i < st.qp_count; i++) {
		struct fake_qp *q = st.qps[i];
		if (q == NULL || q->held_count == 0 || q->qp.state == IBV_QPS_ERR || now - q->next_try_ns < 0)
			continue;
		if (++q->tries > q->attr.retry_cnt) {
			run_first_held(q, IBV_WC_RETRY_EXC_ERR); /* the last try's ACK timeout passed too */
			continue;
		}
		st.retransmits++;
		if (peer_answers(q)) {
			log_line("retransmit qpn=%u: peer QP %u answers try %d", q->qp.qp_num, q->attr.dest_qp_num,
				 q->tries);
			while (q->held_count > 0 && q->qp.state != IBV_QPS_ERR)
				run_first_held(q, IBV_WC_SUCCESS);
		} else {
			q->next_try_ns = now + ack_timeout_ns(q);
		}
	}
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct fake_qp *q = (struct fake_qp *)qp;
	pthread_mutex_lock(&lock);
	int rc = 0, chain = 0;
	for (struct ibv_send_wr *w = wr; w != NULL; w = w->next)
		chain++;
	log_line("ibv_post_send qpn=%u chain=%d", qp->qp_num, chain);
	for (int i = 0; wr != NULL; wr = wr->next, i++) {
		rc = scripted_failure("ibv_post_send", i);
		if (rc == 0 && qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR && qp->state != IBV_QPS_SQD)
			rc = refuse(EINVAL, "ibv_post_send qpn=%u: QP state %d cannot send", qp->qp_num, qp->state);
		if (rc == 0 && wr->num_sge > (int)q->cap.max_send_sge)
			rc = refuse(EINVAL, "ibv_post_send qpn=%u: num_sge %d above max_send_sge %u", qp->qp_num,
				    wr->num_sge, q->cap.max_send_sge);
		if (rc == 0 && (wr->send_flags & IBV_SEND_INLINE) && wr->opcode == IBV_WR_RDMA_READ)
			rc = refuse(EINVAL, "ibv_post_send qpn=%u: INLINE on an RDMA READ", qp->qp_num);
		if (rc == 0 && !st.record_only && (wr->send_flags & IBV_SEND_INLINE)
		    && sge_total(wr) > q->cap.max_inline_data)
			rc = refuse(EINVAL, "ibv_post_send qpn=%u: inline %llu bytes above max_inline_data %u",
				    qp->qp_num, (unsigned long long)sge_total(wr), q->cap.max_inline_data);
		if (rc == 0 && !st.record_only && q->sq_posted - q->sq_freed >= q->cap.max_send_wr)
			rc = refuse(ENOMEM, "ibv_post_send qpn=%u: send queue full (max_send_wr %u; a slot frees when a"
				    " completion at or after its WR is polled)", qp->qp_num, q->cap.max_send_wr);
		if (rc != 0) {
			*bad_wr = wr;
			break;
		}
		log_line("post_send qpn=%u wr_id=%llu opcode=%d flags=0x%x num_sge=%d addr=0x%llx length=%u lkey=%u "
			 "remote_addr=0x%llx rkey=%u imm=0x%x", qp->qp_num, (unsigned long long)wr->wr_id, wr->opcode,
			 wr->send_flags, wr->num_sge, (unsigned long long)(wr->num_sge > 0 ? wr->sg_list[0].addr : 0),
			 wr->num_sge > 0 ? wr->sg_list[0].length : 0, wr->num_sge > 0 ? wr->sg_list[0].lkey : 0,
			 (unsigned long long)wr->wr.rdma.remote_addr, wr->wr.rdma.rkey, ntohl(wr->imm_data));
		if (st.record_only)
			continue;
		count_send(qp);
		if (qp->state != IBV_QPS_ERR && (q->held_count > 0 || !peer_answers(q))) {
			if (q->held_count == MAX_RETRANSMIT) {
				rc = refuse(ENOMEM, "ibv_post_send qpn=%u: %d WRs already wait for the peer QP", qp->qp_num,
					    MAX_RETRANSMIT);
				*bad_wr = wr;
				break;
			}
			hold(q, wr, ++q->sq_posted);
			continue;
		}
		uint64_t seq = ++q->sq_posted;
		finish_send(q, wr, seq, qp->state == IBV_QPS_ERR ? IBV_WC_WR_FLUSH_ERR : execute(q, wr));
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct fake_qp *q = (struct fake_qp *)qp;
	pthread_mutex_lock(&lock);
	int rc = 0, chain = 0;
	for (struct ibv_recv_wr *w = wr; w != NULL; w = w->next)
		chain++;
	log_line("ibv_post_recv qpn=%u chain=%d", qp->qp_num, chain);
	for (int i = 0; wr != NULL; wr = wr->next, i++) {
		rc = scripted_failure("ibv_post_recv", i);
		if (rc == 0 && qp->state == IBV_QPS_RESET)
			rc = refuse(EINVAL, "ibv_post_recv qpn=%u: QP in RESET", qp->qp_num);
		if (rc == 0 && wr->num_sge != 1)
			rc = refuse(EINVAL, "ibv_post_recv qpn=%u: num_sge %d (the fake takes 1)", qp->qp_num,
				    wr->num_sge);
		if (rc == 0 && !st.record_only && qp->state != IBV_QPS_ERR && q->rq_count >= (int)q->cap.max_recv_wr)
			rc = refuse(ENOMEM, "ibv_post_recv qpn=%u: receive queue full (max_recv_wr %u)", qp->qp_num,
				    q->cap.max_recv_wr);
		if (rc != 0) {
			*bad_wr = wr;
			break;
		}
		log_line("post_recv qpn=%u wr_id=%llu num_sge=%d addr=0x%llx length=%u lkey=%u", qp->qp_num,
			 (unsigned long long)wr->wr_id, wr->num_sge, (unsigned long long)wr->sg_list[0].addr,
			 wr->sg_list[0].length, wr->sg_list[0].lkey);
		if (st.record_only)
			continue;
		if (qp->state == IBV_QPS_ERR) {
			complete(qp->recv_cq, wr->wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, qp->qp_num, 0, 0, 0);
			continue;
		}
		struct fake_recv *r = &q->rq[(q->rq_head + q->rq_count++) % MAX_RECV];
		r->wr_id = wr->wr_id;
		r->sge = wr->sg_list[0];
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

/* ---- async events ---- */

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct fake_ctx *f = fake_ctx_of(context);
	char b;
	pthread_mutex_lock(&lock);
	int rc = scripted_failure("ibv_get_async_event", -1);
	pthread_mutex_unlock(&lock);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	if (read(context->async_fd, &b, 1) != 1)
		return -1; /* errno EAGAIN from the non-blocking pipe */
	pthread_mutex_lock(&lock);
	*event = f->async_queue[f->async_head];
	f->async_head = (f->async_head + 1) % MAX_QUEUE;
	f->async_count--;
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

JNIEXPORT void JNICALL CONTROL(setSysfsRoot)(JNIEnv *env, jclass cls, jstring root)
{
	(void)cls;
	const char *c = (*env)->GetStringUTFChars(env, root, NULL);
	pthread_mutex_lock(&lock);
	snprintf(st.sysfs_root, sizeof(st.sysfs_root), "%s", c);
	pthread_mutex_unlock(&lock);
	(*env)->ReleaseStringUTFChars(env, root, c);
}

JNIEXPORT void JNICALL CONTROL(setCaps)(JNIEnv *env, jclass cls, jint max_qp_wr, jint max_cqe, jint max_qp_rd_atom,
					jint max_qp_init_rd_atom, jint max_inline, jint comp_vectors)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	st.caps.max_qp_wr = max_qp_wr;
	st.caps.max_cqe = max_cqe;
	st.caps.max_qp_rd_atom = max_qp_rd_atom;
	st.caps.max_qp_init_rd_atom = max_qp_init_rd_atom;
	st.max_inline = max_inline;
	st.comp_vectors = comp_vectors;
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(recordOnly)(JNIEnv *env, jclass cls, jboolean on)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	st.record_only = on == JNI_TRUE;
	pthread_mutex_unlock(&lock);
}

/* Sets a port's attributes on one device (-1: every device); no event is raised. */
JNIEXPORT void JNICALL CONTROL(setDevicePort)(JNIEnv *env, jclass cls, jint device, jint port, jint state, jint mtu,
					      jint lid, jint link_layer, jint gid_table_len)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	for (int d = 0; d < MAX_DEVICES; d++) {
		if (device >= 0 && d != device)
			continue;
		struct ibv_port_attr *a = &st.ports[d][port].attr;
		a->state = (enum ibv_port_state)state;
		a->active_mtu = (enum ibv_mtu)mtu;
		a->lid = (uint16_t)lid;
		a->link_layer = (uint8_t)link_layer;
		a->gid_tbl_len = gid_table_len > MAX_GIDS ? MAX_GIDS : gid_table_len;
	}
	pthread_mutex_unlock(&lock);
}

/* Sets a port's max_msg_sz and P_Key table length on every device. */
JNIEXPORT void JNICALL CONTROL(setPortLimits)(JNIEnv *env, jclass cls, jint port, jlong max_msg_sz, jint pkeys)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	for (int d = 0; d < MAX_DEVICES; d++) {
		st.ports[d][port].attr.max_msg_sz = (uint32_t)max_msg_sz;
		st.ports[d][port].attr.pkey_tbl_len = (uint16_t)pkeys;
	}
	pthread_mutex_unlock(&lock);
}

/* Sets a port's state on one device (-1: every device); a change raises PORT_ACTIVE or PORT_ERR on the
 * contexts open on that device. */
JNIEXPORT void JNICALL CONTROL(setDevicePortState)(JNIEnv *env, jclass cls, jint device, jint port, jint state)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	set_port_state(device, port, state);
	pthread_mutex_unlock(&lock);
}

/* After `sends` more send work requests on a device (-1: on any), its port `port` goes down (-1: every
 * device's), raising PORT_ERR: the WRs after it meet a down port, deterministically mid-transfer. */
JNIEXPORT void JNICALL CONTROL(portDownAfterSends)(JNIEnv *env, jclass cls, jint device, jint port, jlong sends)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	st.down_after_device = device;
	st.down_after_port = port;
	st.down_after_sends = sends;
	pthread_mutex_unlock(&lock);
}

/* Sets a GID table entry and its type on one device (-1: every device). */
JNIEXPORT void JNICALL CONTROL(setDeviceGid)(JNIEnv *env, jclass cls, jint device, jint port, jint index,
					     jbyteArray gid, jint type)
{
	(void)cls;
	pthread_mutex_lock(&lock);
	for (int d = 0; d < MAX_DEVICES; d++) {
		if (device >= 0 && d != device)
			continue;
		(*env)->GetByteArrayRegion(env, gid, 0, 16, (jbyte *)st.ports[d][port].gids[index].raw);
		st.ports[d][port].gid_types[index] = type;
	}
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(setGidIfindex)(JNIEnv *env, jclass cls, jint port, jint index, jint ifindex)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	for (int d = 0; d < MAX_DEVICES; d++)
		st.ports[d][port].gid_ifindex[index] = ifindex;
	pthread_mutex_unlock(&lock);
}

JNIEXPORT void JNICALL CONTROL(failNextAfter)(JNIEnv *env, jclass cls, jstring fn, jint err, jint arg, jint skip)
{
	(void)cls;
	const char *c = (*env)->GetStringUTFChars(env, fn, NULL);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_FAILS; i++) {
		if (st.fails[i].fn[0] == '\0' || st.fails[i].used) {
			snprintf(st.fails[i].fn, sizeof(st.fails[i].fn), "%s", c);
			st.fails[i].err = err;
			st.fails[i].arg = arg;
			st.fails[i].skip = skip;
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
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = (uint64_t)wr_id;
	wc.status = (enum ibv_wc_status)status;
	wc.opcode = (enum ibv_wc_opcode)opcode;
	wc.byte_len = (uint32_t)byte_len;
	wc.qp_num = (uint32_t)qp_num;
	wc.vendor_err = (uint32_t)vendor_err;
	wc.imm_data = htonl((uint32_t)imm);
	wc.wc_flags = (unsigned int)wc_flags;
	/* Scripted completions ignore the CQ's size: tests use them to fill batches beyond it. */
	f->send_seq[(f->head + f->count) % MAX_QUEUE] = 0;
	f->queue[(f->head + f->count++) % MAX_QUEUE] = wc;
	wake_channel(f);
	pthread_mutex_unlock(&lock);
	return JNI_TRUE;
}

/* arg: the QP number (QP events), the port (port events: every open context) or the CQ ordinal (CQ_ERR). */
JNIEXPORT jboolean JNICALL CONTROL(pushAsyncEvent)(JNIEnv *env, jclass cls, jint type, jint arg)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	struct ibv_async_event e;
	memset(&e, 0, sizeof(e));
	e.event_type = (enum ibv_event_type)type;
	struct fake_ctx *target = st.last_ctx;
	int ok = target != NULL;
	switch (e.event_type) {
	case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR: case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED: case IBV_EVENT_PATH_MIG: case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct fake_qp *q = find_qp((uint32_t)arg);
		e.element.qp = q == NULL ? NULL : &q->qp;
		target = q == NULL ? NULL : fake_ctx_of(q->qp.context);
		ok = q != NULL;
		break;
	}
	case IBV_EVENT_CQ_ERR:
		e.element.cq = arg >= 0 && arg < st.cq_count && st.cqs[arg] != NULL ? &st.cqs[arg]->cq : NULL;
		target = e.element.cq == NULL ? NULL : fake_ctx_of(e.element.cq->context);
		ok = e.element.cq != NULL;
		break;
	default:
		e.element.port_num = arg;
		target = NULL;
		for (int i = 0; i < MAX_OBJECTS; i++)
			if (st.ctxs[i] != NULL) {
				queue_async(st.ctxs[i], &e);
				ok = 1;
			}
		break;
	}
	if (ok && target != NULL)
		queue_async(target, &e);
	pthread_mutex_unlock(&lock);
	return ok ? JNI_TRUE : JNI_FALSE;
}

/* A QP-fatal error, as a NIC raises one: the QP moves to ERR (its receives are flushed, later sends complete
 * WR_FLUSH_ERR) and its context gets IBV_EVENT_QP_FATAL. False when no QP has that number. */
JNIEXPORT jboolean JNICALL CONTROL(failQp)(JNIEnv *env, jclass cls, jint qpn)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	struct fake_qp *q = find_qp((uint32_t)qpn);
	if (q != NULL) {
		to_error(q);
		struct ibv_async_event e = { .event_type = IBV_EVENT_QP_FATAL };
		e.element.qp = &q->qp;
		queue_async(fake_ctx_of(q->qp.context), &e);
		st.qp_fatals++;
		log_line("qp_fatal qpn=%u", q->qp.qp_num);
	}
	pthread_mutex_unlock(&lock);
	return q != NULL ? JNI_TRUE : JNI_FALSE;
}

/* The next `writes` RDMA WRITEs and `reads` RDMA READs land with one byte of their destination flipped, after
 * the copy (counted in landed_corrupted); 0, 0 stops it. */
JNIEXPORT void JNICALL CONTROL(corruptLanded)(JNIEnv *env, jclass cls, jlong writes, jlong reads)
{
	(void)env;
	(void)cls;
	pthread_mutex_lock(&lock);
	st.corrupt_writes = writes;
	st.corrupt_reads = reads;
	pthread_mutex_unlock(&lock);
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
	st.log_dropped = 0;
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
	long pending = 0;
	for (int i = 0; i < MAX_OBJECTS; i++)
		if (st.ctxs[i] != NULL)
			pending += st.ctxs[i]->async_count;
	if (strcmp(name, "async_delivered") == 0)
		v = st.async_delivered;
	else if (strcmp(name, "async_acked") == 0)
		v = st.async_acked;
	else if (strcmp(name, "async_bad_acks") == 0)
		v = st.async_bad_acks;
	else if (strcmp(name, "async_pending") == 0)
		v = pending;
	else if (strcmp(name, "cq_destroyed_unacked") == 0)
		v = st.cq_destroyed_unacked;
	else if (strcmp(name, "bytes_moved") == 0)
		v = st.bytes_moved;
	else if (strcmp(name, "refusals") == 0)
		v = st.refusals;
	else if (strcmp(name, "port_changes") == 0)
		v = st.port_changes;
	else if (strcmp(name, "qp_fatals") == 0)
		v = st.qp_fatals;
	else if (strcmp(name, "log_dropped") == 0)
		v = st.log_dropped;
	else if (strcmp(name, "retransmits") == 0)
		v = st.retransmits;
	else if (strcmp(name, "landed_corrupted") == 0)
		v = st.landed_corrupted;
	else if (strcmp(name, "fork_inits") == 0)
		v = fork_inits;
	else if (strcmp(name, "lists_before_fork_init") == 0)
		v = lists_before_fork_init;
	pthread_mutex_unlock(&lock);
	(*env)->ReleaseStringUTFChars(env, jname, name);
	return v;
}

__attribute__((constructor)) static void fake_init(void)
{
	reset_state();
}

/* Devices and ports: list, open/close, device limits, port attributes and the GID table. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "vte_ibv.h"

#define GID_UNKNOWN_TYPE (-1)

static jobjectArray device_names(JNIEnv *env, jclass cls)
{
	int n = 0;
	(void)cls;

	errno = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (list == NULL) {
		vte_throw(env, "ibv_get_device_list", errno, "returned NULL");
		return NULL;
	}
	jclass string_class = (*env)->FindClass(env, "java/lang/String");
	jobjectArray names = string_class == NULL ? NULL : (*env)->NewObjectArray(env, n, string_class, NULL);
	for (int i = 0; names != NULL && i < n; i++) {
		jstring s = (*env)->NewStringUTF(env, ibv_get_device_name(list[i]));
		if (s == NULL) {
			names = NULL;
			break;
		}
		(*env)->SetObjectArrayElement(env, names, i, s);
		(*env)->DeleteLocalRef(env, s);
	}
	ibv_free_device_list(list);
	return names;
}

static jlong open_device(JNIEnv *env, jclass cls, jstring jname)
{
	(void)cls;
	const char *name = (*env)->GetStringUTFChars(env, jname, NULL);
	if (name == NULL)
		return 0;
	struct ibv_context *ctx = NULL;
	errno = 0;
	struct ibv_device **list = ibv_get_device_list(NULL);
	if (list == NULL) {
		vte_throw(env, "ibv_get_device_list", errno, "returned NULL while opening '%s'", name);
		goto out;
	}
	for (int i = 0; list[i] != NULL; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name) == 0) {
			errno = 0;
			ctx = ibv_open_device(list[i]);
			if (ctx == NULL)
				vte_throw(env, "ibv_open_device", errno ? errno : EIO, "device '%s'", name);
			break;
		}
	}
	if (ctx == NULL && !(*env)->ExceptionCheck(env))
		vte_throw(env, "ibv_open_device", ENODEV, "no device named '%s'", name);
	ibv_free_device_list(list);
	if (ctx != NULL) {
		int flags = fcntl(ctx->async_fd, F_GETFL);
		if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
			int err = errno;
			ibv_close_device(ctx);
			ctx = NULL;
			vte_throw(env, "fcntl", err, "O_NONBLOCK on the async fd of '%s'", name);
		}
	}
out:
	(*env)->ReleaseStringUTFChars(env, jname, name);
	return VTE_HANDLE(ctx);
}

static void close_device(JNIEnv *env, jclass cls, jlong handle)
{
	(void)cls;
	int rc = ibv_close_device(VTE_PTR(handle));
	if (rc != 0)
		vte_throw(env, "ibv_close_device", rc < 0 ? -rc : rc, "context 0x%llx",
			(unsigned long long)handle);
}

/*
 * _ibv_query_gid_ex exists from rdma-core 32 (IBVERBS_1.11). It is looked up at run time so the shim
 * also loads on older rdma-core, where the GID type comes from sysfs (gid_attrs/types) instead.
 */
typedef int (*query_gid_ex_fn)(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t,
			       size_t);
static query_gid_ex_fn query_gid_ex;

int vte_resolve_optional(void)
{
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (lib == NULL)
		return 0;
	query_gid_ex = (query_gid_ex_fn)dlvsym(lib, "_ibv_query_gid_ex", "IBVERBS_1.11");
	dlclose(lib); /* still loaded: the shim links against it */
	return 0;
}

static jboolean has_query_gid_ex(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return query_gid_ex != NULL ? JNI_TRUE : JNI_FALSE;
}

/* Reads one line of <ibdev_path>/ports/<port>/gid_attrs/<what>/<index> into buf; 0 or -1. */
static int read_gid_attr(struct ibv_context *ctx, int port, int index, const char *what, char *buf, size_t len)
{
	char path[IBV_SYSFS_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/ports/%d/gid_attrs/%s/%d", ctx->device->ibdev_path, port, what, index);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	char *line = fgets(buf, (int)len, f);
	fclose(f);
	if (line == NULL)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* GID type and netdev ifindex of one entry: from ibv_query_gid_ex, else from sysfs; -1/0 when unknown. */
static void gid_attrs(struct ibv_context *ctx, int port, int index, int ethernet, jlong *type, jlong *ifindex)
{
	struct ibv_gid_entry entry;
	char buf[64];

	*type = GID_UNKNOWN_TYPE;
	*ifindex = 0;
	if (query_gid_ex != NULL) {
		if (query_gid_ex(ctx, (uint32_t)port, (uint32_t)index, &entry, 0, sizeof(entry)) == 0) {
			*type = entry.gid_type;
			*ifindex = entry.ndev_ifindex;
		}
		return;
	}
	if (read_gid_attr(ctx, port, index, "types", buf, sizeof(buf)) == 0) {
		if (strcmp(buf, "RoCE v2") == 0)
			*type = IBV_GID_TYPE_ROCE_V2;
		else if (strcmp(buf, "IB/RoCE v1") == 0)
			*type = ethernet ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	}
	if (read_gid_attr(ctx, port, index, "ndevs", buf, sizeof(buf)) == 0)
		*ifindex = if_nametoindex(buf);
}

static jlong gid_half(const union ibv_gid *gid, int from)
{
	uint64_t v = 0;
	for (int i = from; i < from + 8; i++)
		v = (v << 8) | gid->raw[i];
	return (jlong)v;
}

static void query_port(JNIEnv *env, jclass cls, jlong handle, jint port, jlongArray jout)
{
	struct ibv_context *ctx = VTE_PTR(handle);
	struct ibv_port_attr attr;
	(void)cls;

	if (port < 1 || port > 255) {
		vte_throw(env, "ibv_query_port", EINVAL, "port %d", port);
		return;
	}
	int rc = ibv_query_port(ctx, (uint8_t)port, &attr);
	if (rc != 0) {
		vte_throw(env, "ibv_query_port", rc, "port %d of '%s'", port, ibv_get_device_name(ctx->device));
		return;
	}
	jlong out[io_vte_verbs_ibv_IbvNative_PORT_OUT_LEN];
	out[io_vte_verbs_ibv_IbvNative_PORT_STATE] = attr.state;
	out[io_vte_verbs_ibv_IbvNative_PORT_ACTIVE_MTU] = attr.active_mtu;
	out[io_vte_verbs_ibv_IbvNative_PORT_MAX_MTU] = attr.max_mtu;
	out[io_vte_verbs_ibv_IbvNative_PORT_LID] = attr.lid;
	out[io_vte_verbs_ibv_IbvNative_PORT_LINK_LAYER] = attr.link_layer;
	out[io_vte_verbs_ibv_IbvNative_PORT_GID_TABLE_LEN] = attr.gid_tbl_len;
	out[io_vte_verbs_ibv_IbvNative_PORT_PKEY_TABLE_LEN] = attr.pkey_tbl_len;
	out[io_vte_verbs_ibv_IbvNative_PORT_MAX_MSG_SIZE] = attr.max_msg_sz;
	(*env)->SetLongArrayRegion(env, jout, 0, io_vte_verbs_ibv_IbvNative_PORT_OUT_LEN, out);
}

/*
 * Reads GID entries [0, count) of a port, GID_SLOTS longs each: the GID's halves, its type and its
 * netdev's ifindex. An empty or unreadable entry reads as a zero GID.
 */
static void query_gids(JNIEnv *env, jclass cls, jlong handle, jint port, jint link_layer, jint count,
		       jlongArray jout)
{
	struct ibv_context *ctx = VTE_PTR(handle);
	(void)cls;

	jlong *out = (*env)->GetLongArrayElements(env, jout, NULL);
	if (out == NULL)
		return;
	for (int i = 0; i < count; i++) {
		union ibv_gid gid;
		jlong *e = out + (size_t)i * io_vte_verbs_ibv_IbvNative_GID_SLOTS;
		memset(e, 0, sizeof(jlong) * io_vte_verbs_ibv_IbvNative_GID_SLOTS);
		e[io_vte_verbs_ibv_IbvNative_GID_TYPE] = GID_UNKNOWN_TYPE;
		if (ibv_query_gid(ctx, (uint8_t)port, i, &gid) != 0)
			continue;
		e[io_vte_verbs_ibv_IbvNative_GID_HI] = gid_half(&gid, 0);
		e[io_vte_verbs_ibv_IbvNative_GID_LO] = gid_half(&gid, 8);
		if (e[0] != 0 || e[1] != 0)
			gid_attrs(ctx, port, i, link_layer == IBV_LINK_LAYER_ETHERNET,
				  &e[io_vte_verbs_ibv_IbvNative_GID_TYPE], &e[io_vte_verbs_ibv_IbvNative_GID_IFINDEX]);
	}
	(*env)->ReleaseLongArrayElements(env, jout, out, 0);
}

/* The device's limits VTE checks its options against (DEVICE_* slots). */
static void query_device(JNIEnv *env, jclass cls, jlong handle, jlongArray jout)
{
	struct ibv_context *ctx = VTE_PTR(handle);
	struct ibv_device_attr attr;
	(void)cls;

	int rc = ibv_query_device(ctx, &attr);
	if (rc != 0) {
		vte_throw(env, "ibv_query_device", rc, "device '%s'", ibv_get_device_name(ctx->device));
		return;
	}
	jlong out[io_vte_verbs_ibv_IbvNative_DEVICE_OUT_LEN];
	out[io_vte_verbs_ibv_IbvNative_DEVICE_PORTS] = attr.phys_port_cnt;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_QP_WR] = attr.max_qp_wr;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_SGE] = attr.max_sge;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_CQE] = attr.max_cqe;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_QP_RD_ATOM] = attr.max_qp_rd_atom;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_QP_INIT_RD_ATOM] = attr.max_qp_init_rd_atom;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_MR_SIZE] = (jlong)attr.max_mr_size;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_QP] = attr.max_qp;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_MAX_CQ] = attr.max_cq;
	out[io_vte_verbs_ibv_IbvNative_DEVICE_COMP_VECTORS] = ctx->num_comp_vectors;
	(*env)->SetLongArrayRegion(env, jout, 0, io_vte_verbs_ibv_IbvNative_DEVICE_OUT_LEN, out);
}

/* ibv_fork_init: makes registered memory safe across fork(); must come before other verbs calls. */
static jint fork_init(JNIEnv *env, jclass cls)
{
	(void)env;
	(void)cls;
	return ibv_fork_init();
}

static const JNINativeMethod methods[] = {
	{ "deviceNames", "()[Ljava/lang/String;", (void *)device_names },
	{ "openDevice", "(Ljava/lang/String;)J", (void *)open_device },
	{ "closeDevice", "(J)V", (void *)close_device },
	{ "queryPort", "(JI[J)V", (void *)query_port },
	{ "queryGids", "(JIII[J)V", (void *)query_gids },
	{ "queryDevice", "(J[J)V", (void *)query_device },
	{ "hasQueryGidEx", "()Z", (void *)has_query_gid_ex },
	{ "forkInit", "()I", (void *)fork_init },
};

int vte_register_device(JNIEnv *env, jclass cls)
{
	if (vte_resolve_optional() != 0)
		return -1;
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

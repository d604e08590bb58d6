/* Devices and ports: list, open/close, port attributes, GID table and GID index selection. */
#define _GNU_SOURCE
#include <fcntl.h>
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

static jint port_count(JNIEnv *env, jclass cls, jlong handle)
{
	struct ibv_device_attr attr;
	(void)cls;

	int rc = ibv_query_device(VTE_PTR(handle), &attr);
	if (rc != 0) {
		vte_throw(env, "ibv_query_device", rc, "device '%s'",
			ibv_get_device_name(((struct ibv_context *)VTE_PTR(handle))->device));
		return -1;
	}
	return attr.phys_port_cnt;
}

static void close_device(JNIEnv *env, jclass cls, jlong handle)
{
	(void)cls;
	int rc = ibv_close_device(VTE_PTR(handle));
	if (rc != 0)
		vte_throw(env, "ibv_close_device", rc < 0 ? -rc : rc, "context 0x%llx",
			(unsigned long long)handle);
}

static int is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;
	return memcmp(gid->raw, zero.raw, sizeof(zero.raw)) == 0;
}

static int is_ipv4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

static int is_link_local(const union ibv_gid *gid)
{
	return gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80;
}

/*
 * Higher is better: RoCE v2 first, then IPv4-mapped, then other routable GIDs; link-local GIDs last
 * (they do not route across subnets).
 */
static int gid_score(const union ibv_gid *gid, int type)
{
	int score = type == IBV_GID_TYPE_ROCE_V2 ? 4 : 0;
	if (is_ipv4_mapped(gid))
		return score + 2;
	return score + (is_link_local(gid) ? 0 : 1);
}

static int gid_type(struct ibv_context *ctx, int port, int index)
{
	struct ibv_gid_entry entry;
	return ibv_query_gid_ex(ctx, port, index, &entry, 0) == 0 ? (int)entry.gid_type : GID_UNKNOWN_TYPE;
}

static jlong gid_half(const union ibv_gid *gid, int from)
{
	uint64_t v = 0;
	for (int i = from; i < from + 8; i++)
		v = (v << 8) | gid->raw[i];
	return (jlong)v;
}

/* Picks the GID: `wanted` >= 0 must name a non-empty entry; -1 picks the best scored one (lowest index on ties). */
static int select_gid(JNIEnv *env, struct ibv_context *ctx, int port, int table_len, int wanted,
		      union ibv_gid *out)
{
	if (wanted >= 0) {
		if (wanted >= table_len || ibv_query_gid(ctx, port, wanted, out) != 0 || is_zero(out)) {
			vte_throw(env, "ibv_query_gid", EINVAL,
				"GID index %d of port %d is out of range or empty (table has %d entries)",
				wanted, port, table_len);
			return -2;
		}
		return wanted;
	}
	int best = -1, best_score = -1;
	for (int i = 0; i < table_len; i++) {
		union ibv_gid gid;
		if (ibv_query_gid(ctx, port, i, &gid) != 0 || is_zero(&gid))
			continue;
		int score = gid_score(&gid, gid_type(ctx, port, i));
		if (score > best_score) {
			best = i;
			best_score = score;
			*out = gid;
		}
	}
	if (best < 0)
		memset(out, 0, sizeof(*out));
	return best;
}

static void query_port(JNIEnv *env, jclass cls, jlong handle, jint port, jint wanted, jlongArray jout)
{
	struct ibv_context *ctx = VTE_PTR(handle);
	struct ibv_port_attr attr;
	union ibv_gid gid;
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
	int index = select_gid(env, ctx, port, attr.gid_tbl_len, wanted, &gid);
	if (index == -2)
		return;
	jlong out[io_vte_verbs_ibv_IbvNative_PORT_OUT_LEN];
	out[io_vte_verbs_ibv_IbvNative_PORT_STATE] = attr.state;
	out[io_vte_verbs_ibv_IbvNative_PORT_ACTIVE_MTU] = attr.active_mtu;
	out[io_vte_verbs_ibv_IbvNative_PORT_LID] = attr.lid;
	out[io_vte_verbs_ibv_IbvNative_PORT_LINK_LAYER] = attr.link_layer;
	out[io_vte_verbs_ibv_IbvNative_PORT_GID_HI] = gid_half(&gid, 0);
	out[io_vte_verbs_ibv_IbvNative_PORT_GID_LO] = gid_half(&gid, 8);
	out[io_vte_verbs_ibv_IbvNative_PORT_GID_INDEX] = index;
	out[io_vte_verbs_ibv_IbvNative_PORT_GID_TABLE_LEN] = attr.gid_tbl_len;
	(*env)->SetLongArrayRegion(env, jout, 0, io_vte_verbs_ibv_IbvNative_PORT_OUT_LEN, out);
}

static const JNINativeMethod methods[] = {
	{ "deviceNames", "()[Ljava/lang/String;", (void *)device_names },
	{ "openDevice", "(Ljava/lang/String;)J", (void *)open_device },
	{ "portCount", "(J)I", (void *)port_count },
	{ "closeDevice", "(J)V", (void *)close_device },
	{ "queryPort", "(JII[J)V", (void *)query_port },
};

int vte_register_device(JNIEnv *env, jclass cls)
{
	return (*env)->RegisterNatives(env, cls, methods, VTE_COUNT(methods));
}

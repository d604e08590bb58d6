package io.vte.verbs.ibv;

/**
 * The JNI entry points of the native shim ({@code native/src}). Methods are bound with {@code
 * RegisterNatives} in the shim's {@code JNI_OnLoad}; handles are native pointers carried as longs.
 *
 * <p>Control-plane calls throw {@link io.vte.verbs.VerbsException} built by {@link
 * IbvErrors#fromErrno(String, int, String)}; hot-path calls return negative {@code -errno} codes.
 * Only {@link IbvLibrary} loads the shim; everything else goes through the {@code Ibv*} objects.
 */
final class IbvNative {

  /** Version of the Java/C contract; the shim reports its own from {@link #abiVersion()}. */
  static final int ABI_VERSION = 3;

  /** {@link #queryPort} output: port state ({@code enum ibv_port_state}). */
  static final int PORT_STATE = 0;

  /** {@link #queryPort} output: active MTU ({@code enum ibv_mtu}, 1..5). */
  static final int PORT_ACTIVE_MTU = 1;

  /** {@link #queryPort} output: largest MTU the port supports ({@code enum ibv_mtu}). */
  static final int PORT_MAX_MTU = 2;

  /** {@link #queryPort} output: LID (0 on an InfiniBand port without a subnet manager). */
  static final int PORT_LID = 3;

  /** {@link #queryPort} output: link layer ({@code IBV_LINK_LAYER_*}). */
  static final int PORT_LINK_LAYER = 4;

  /** {@link #queryPort} output: GID table length. */
  static final int PORT_GID_TABLE_LEN = 5;

  /** {@link #queryPort} output: P_Key table length. */
  static final int PORT_PKEY_TABLE_LEN = 6;

  /** {@link #queryPort} output: largest message a work request may carry ({@code max_msg_sz}). */
  static final int PORT_MAX_MSG_SIZE = 7;

  /** {@link #queryPort} output: number of slots. */
  static final int PORT_OUT_LEN = 8;

  /** {@link #queryGids} entry: first 8 GID bytes, big-endian (0 with GID_LO 0: empty entry). */
  static final int GID_HI = 0;

  /** {@link #queryGids} entry: last 8 GID bytes, big-endian. */
  static final int GID_LO = 1;

  /**
   * {@link #queryGids} entry: {@code enum ibv_gid_type} (0 IB, 1 RoCE v1, 2 RoCE v2), -1 unknown.
   */
  static final int GID_TYPE = 2;

  /** {@link #queryGids} entry: ifindex of the GID's netdev, 0 when none or unknown. */
  static final int GID_IFINDEX = 3;

  /** {@link #queryGids}: longs per entry. */
  static final int GID_SLOTS = 4;

  /** {@link #queryDevice} output: phys_port_cnt. */
  static final int DEVICE_PORTS = 0;

  /** {@link #queryDevice} output: max_qp_wr. */
  static final int DEVICE_MAX_QP_WR = 1;

  /** {@link #queryDevice} output: max_sge. */
  static final int DEVICE_MAX_SGE = 2;

  /** {@link #queryDevice} output: max_cqe. */
  static final int DEVICE_MAX_CQE = 3;

  /** {@link #queryDevice} output: max_qp_rd_atom (RDMA READs a QP answers at once). */
  static final int DEVICE_MAX_QP_RD_ATOM = 4;

  /** {@link #queryDevice} output: max_qp_init_rd_atom (RDMA READs a QP issues at once). */
  static final int DEVICE_MAX_QP_INIT_RD_ATOM = 5;

  /** {@link #queryDevice} output: max_mr_size. */
  static final int DEVICE_MAX_MR_SIZE = 6;

  /** {@link #queryDevice} output: max_qp. */
  static final int DEVICE_MAX_QP = 7;

  /** {@link #queryDevice} output: max_cq. */
  static final int DEVICE_MAX_CQ = 8;

  /** {@link #queryDevice} output: the context's num_comp_vectors. */
  static final int DEVICE_COMP_VECTORS = 9;

  /** {@link #queryDevice} output: number of slots. */
  static final int DEVICE_OUT_LEN = 10;

  /** {@link #nextAsyncEvent} output: {@code enum ibv_event_type}. */
  static final int ASYNC_TYPE = 0;

  /** {@link #nextAsyncEvent} output: QP number for QP events, else -1. */
  static final int ASYNC_QP_NUM = 1;

  /** {@link #nextAsyncEvent} output: port for port events, else -1. */
  static final int ASYNC_PORT = 2;

  /** {@link #nextAsyncEvent} output: CQ handle for CQ events, else 0. */
  static final int ASYNC_CQ = 3;

  /** {@link #nextAsyncEvent} output: number of slots. */
  static final int ASYNC_OUT_LEN = 4;

  /** {@link #postSend}/{@link #postRecv} result: bits of the bad index above the errno. */
  static final int POST_BAD_INDEX_SHIFT = 16;

  /**
   * {@link #pollCq} error result: bits of the count of completions written before the error, above
   * the errno.
   */
  static final int POLL_COUNT_SHIFT = 12;

  private IbvNative() {}

  /**
   * @return the shim's {@link #ABI_VERSION}
   */
  static native int abiVersion();

  /**
   * @return the shim's view of the flat layouts: {@code [wrStride, wr_id, local_addr, remote_addr,
   *     length, lkey, rkey, imm, opcode, flags, wcStride, wr_id, byte_len, qp_num, status, opcode,
   *     vendor_err, imm]}
   */
  static native int[] layout();

  /**
   * @return names of the devices ({@code ibv_get_device_list}); throws when the list is NULL
   */
  static native String[] deviceNames();

  /**
   * @param name device name @return an {@code ibv_context*} with a non-blocking async fd
   */
  static native long openDevice(String name);

  /**
   * @param ctx context
   * @param out {@link #DEVICE_OUT_LEN} slots of {@code ibv_query_device}
   */
  static native void queryDevice(long ctx, long[] out);

  /**
   * @param ctx context to close ({@code ibv_close_device})
   */
  static native void closeDevice(long ctx);

  /**
   * @param ctx context
   * @param port port number
   * @param out {@link #PORT_OUT_LEN} slots of {@code ibv_query_port}
   */
  static native void queryPort(long ctx, int port, long[] out);

  /**
   * Reads a port's GID table.
   *
   * @param ctx context
   * @param port port number
   * @param linkLayer the port's link layer (decides what a sysfs "IB/RoCE v1" type means)
   * @param count entries to read, from index 0
   * @param out {@code count * GID_SLOTS} longs
   */
  static native void queryGids(long ctx, int port, int linkLayer, int count, long[] out);

  /**
   * @return true when libibverbs has {@code _ibv_query_gid_ex} (rdma-core 32 or later); otherwise
   *     GID types and netdevs come from sysfs
   */
  static native boolean hasQueryGidEx();

  /**
   * @return {@code ibv_fork_init()}: 0, or an errno
   */
  static native int forkInit();

  /**
   * @param ctx context @return an {@code ibv_pd*}
   */
  static native long allocPd(long ctx);

  /**
   * @param pd domain to free
   */
  static native void deallocPd(long pd);

  /**
   * @param pd domain
   * @param address start
   * @param length bytes
   * @param access {@code ibv_access_flags}
   * @param keys out: {@code [lkey, rkey]}
   * @return an {@code ibv_mr*}
   */
  static native long regMr(long pd, long address, long length, int access, int[] keys);

  /**
   * @param mr region to deregister
   */
  static native void deregMr(long mr);

  /**
   * @param ctx context @return an {@code ibv_comp_channel*} with a non-blocking fd
   */
  static native long createCompChannel(long ctx);

  /**
   * @param channel channel to destroy
   */
  static native void destroyCompChannel(long channel);

  /**
   * Waits up to {@code timeoutMs} for one CQ event on the channel.
   *
   * @param channel channel
   * @param timeoutMs poll timeout
   * @return the {@code ibv_cq*} that has an event (to be acked with {@link #ackCqEvents}), 0 on
   *     timeout
   */
  static native long nextCqEvent(long channel, int timeoutMs);

  /**
   * @param cq CQ @param count events to acknowledge
   */
  static native void ackCqEvents(long cq, int count);

  /**
   * @param ctx context
   * @param capacity entries
   * @param channel completion channel, or 0
   * @param compVector completion vector (interrupt) the CQ's events use, 0..comp vectors - 1
   * @param cqe out: {@code [cqe]} as granted
   * @return an {@code ibv_cq*}
   */
  static native long createCq(long ctx, int capacity, long channel, int compVector, int[] cqe);

  /**
   * @param cq CQ to destroy (all its events acked)
   */
  static native void destroyCq(long cq);

  /**
   * @param cq CQ @return 0 or -errno of {@code ibv_req_notify_cq}
   */
  static native int reqNotifyCq(long cq);

  /**
   * Polls into a flat {@link io.vte.verbs.WorkCompletionBatch} buffer.
   *
   * @param cq CQ
   * @param wcAddress buffer address
   * @param max entries that fit
   * @return completions written, or {@code -((written << POLL_COUNT_SHIFT) | errno)}
   */
  static native int pollCq(long cq, long wcAddress, int max);

  /**
   * @param pd domain
   * @param sendCq send CQ
   * @param recvCq receive CQ
   * @param maxSendWr send depth
   * @param maxRecvWr receive depth
   * @param maxInline inline bytes
   * @param out out: {@code [qp_num, max_send_wr, max_recv_wr, max_inline_data]} as granted
   * @return an {@code ibv_qp*}
   */
  static native long createQp(
      long pd, long sendCq, long recvCq, int maxSendWr, int maxRecvWr, int maxInline, int[] out);

  /**
   * @param qp QP to destroy
   */
  static native void destroyQp(long qp);

  /**
   * @param qp QP
   * @param port port
   * @param pkeyIndex index in the port's P_Key table
   * @param access remote access flags
   */
  static native void modifyQpToInit(long qp, int port, int pkeyIndex, int access);

  /**
   * @param qp QP
   * @param port local port
   * @param mtuEnum {@code enum ibv_mtu}
   * @param destQpNum peer QP number
   * @param destLid peer LID
   * @param global whether the address vector has a GRH (always on RoCE)
   * @param gidHi peer GID, first 8 bytes
   * @param gidLo peer GID, last 8 bytes
   * @param sgidIndex local GID index of the GRH
   * @param trafficClass GRH traffic class (DSCP and ECN bits)
   * @param serviceLevel service level (InfiniBand SL; on RoCE the priority)
   * @param rqPsn expected receive PSN
   * @param maxDestRdAtomic responder RDMA READ depth
   * @param minRnrTimer RNR NAK timer code
   */
  static native void modifyQpToRtr(
      long qp,
      int port,
      int mtuEnum,
      int destQpNum,
      int destLid,
      boolean global,
      long gidHi,
      long gidLo,
      int sgidIndex,
      int trafficClass,
      int serviceLevel,
      int rqPsn,
      int maxDestRdAtomic,
      int minRnrTimer);

  /**
   * @param qp QP
   * @param sqPsn send PSN
   * @param timeout ACK timeout code
   * @param retryCount retries
   * @param rnrRetry RNR retries
   * @param maxRdAtomic initiator RDMA READ depth
   */
  static native void modifyQpToRts(
      long qp, int sqPsn, int timeout, int retryCount, int rnrRetry, int maxRdAtomic);

  /**
   * @param qp QP @param state {@code enum ibv_qp_state} (ERR or RESET)
   */
  static native void modifyQpState(long qp, int state);

  /**
   * Posts a flat {@link io.vte.verbs.WorkRequestBatch} as chained {@code ibv_send_wr}s.
   *
   * @param qp QP
   * @param wrAddress buffer address
   * @param count entries
   * @return 0, or {@code -((badIndex << POST_BAD_INDEX_SHIFT) | errno)}
   */
  static native long postSend(long qp, long wrAddress, int count);

  /**
   * Posts a flat batch as chained {@code ibv_recv_wr}s.
   *
   * @param qp QP
   * @param wrAddress buffer address
   * @param count entries
   * @return as {@link #postSend}
   */
  static native long postRecv(long qp, long wrAddress, int count);

  /**
   * Waits up to {@code timeoutMs} for the async fd to become readable.
   *
   * @param ctx context
   * @param timeoutMs timeout
   * @return 1 readable, 0 timeout, -errno on failure
   */
  static native int awaitAsyncEvent(long ctx, int timeoutMs);

  /**
   * Reads and acknowledges one async event.
   *
   * @param ctx context
   * @param out {@link #ASYNC_OUT_LEN} slots
   * @return 1 with an event in {@code out}, 0 when none is pending (EAGAIN), -errno on failure
   */
  static native int nextAsyncEvent(long ctx, long[] out);
}

package io.vte.verbs.ibv;

import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventHandler;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.Closeables;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortCounters;
import io.vte.verbs.PortState;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QueueLimits;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.ibv.device.IbvGidEntry;
import io.vte.verbs.ibv.device.SysfsPortCounters;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An opened RDMA device ({@code ibv_context}) with one completion channel shared by its CQs, a
 * thread waiting on that channel and a thread draining async events. Closing it stops both threads,
 * then closes protection domains (their QPs and MRs first), CQs, the channel and the device, in
 * that order.
 */
final class IbvContext implements VerbsContext {

  private static final System.Logger LOG = System.getLogger(IbvContext.class.getName());

  private final IbvProvider provider;
  private final String deviceName;
  private final IbvSettings settings;
  private final long ctx;
  private final int portCount;
  private final IbvDeviceCaps caps;

  /** The smallest {@code max_msg_sz} of the ports, read at open (it does not change). */
  private final long maxMessageSize;

  private final IbvGidSelector gidSelector;
  private final AtomicReferenceArray<IbvPortInfo> ports;
  private final AtomicReferenceArray<IbvGidEntry> sourceGids;
  private final AtomicInteger cqsCreated = new AtomicInteger();
  private final long channel;
  private final Set<IbvProtectionDomain> pds = ConcurrentHashMap.newKeySet();
  private final Map<Long, IbvCompletionQueue> cqs = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final EventThread channelThread;
  private final EventThread asyncThread;
  private volatile AsyncEventHandler asyncHandler;

  /**
   * Opens the device and starts its event threads.
   *
   * @param provider the provider that tracks it
   * @param deviceName device name
   * @param settings provider settings
   */
  IbvContext(IbvProvider provider, String deviceName, IbvSettings settings) {
    this.provider = provider;
    this.deviceName = deviceName;
    this.settings = settings;
    this.ctx = IbvNative.openDevice(deviceName);
    long ch = 0;
    try {
      this.caps = IbvDeviceCaps.query(ctx);
      this.portCount = caps.ports();
      this.maxMessageSize = maxMessageSize(ctx, portCount);
      ch = IbvNative.createCompChannel(ctx);
    } catch (RuntimeException e) {
      IbvNative.closeDevice(ctx);
      throw e;
    }
    this.channel = ch;
    this.gidSelector = new IbvGidSelector(settings);
    this.ports = new AtomicReferenceArray<>(portCount + 1);
    this.sourceGids = new AtomicReferenceArray<>(portCount + 1);
    this.channelThread =
        new EventThread(
            "vte-ibv-cq-" + deviceName,
            new CompletionChannelPump(this, channel),
            settings.eventPollMillis());
    this.asyncThread =
        new EventThread(
            "vte-ibv-async-" + deviceName,
            new AsyncEventPump(this, ctx),
            settings.eventPollMillis());
  }

  @Override
  public String deviceName() {
    return deviceName;
  }

  @Override
  public String providerName() {
    return IbvVerbsProviderFactory.NAME;
  }

  @Override
  public int portCount() {
    return portCount;
  }

  /** The kernel's counters of the port, read from sysfs ({@link SysfsPortCounters}). */
  @Override
  public PortCounters portCounters(int port) {
    checkPort(port);
    return SysfsPortCounters.of(deviceName, port);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code ibv_query_port}; the GID table is read once and cached (re-read on {@code
   * GID_CHANGE}), so this is cheap enough for a handshake on an event loop.
   *
   * @throws VerbsException when the port has no usable GID, or is an active InfiniBand port with
   *     LID 0 (no subnet manager)
   */
  @Override
  public PortAttributes queryPort(int port) {
    checkOpen();
    checkPort(port);
    IbvPortInfo info = refreshedPort(port);
    IbvGidEntry gid = gidSelector.select(deviceName, info);
    if (!info.isRoce() && info.state() == PortState.ACTIVE && info.lid() == 0) {
      throw new VerbsException(
          VerbsError.NO_DEVICE,
          "InfiniBand port "
              + port
              + " of '"
              + deviceName
              + "' is active with LID 0: no subnet manager has assigned it a LID (start opensm"
              + " or the switch's SM)");
    }
    sourceGids.set(port, gid);
    return new PortAttributes(
        port,
        info.state(),
        info.activeMtu(),
        info.lid(),
        gid.gid(),
        gid.index(),
        info.linkLayer(),
        gid.type().neutral());
  }

  private void checkPort(int port) {
    if (port < 1 || port > portCount) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "port " + port + " does not exist on '" + deviceName + "' (ports 1.." + portCount + ")");
    }
  }

  /**
   * @param port a port number
   * @return the port's cached attributes and GID table (read on first use)
   */
  IbvPortInfo portInfo(int port) {
    checkPort(port);
    IbvPortInfo info = ports.get(port);
    if (info == null) {
      info = IbvPortInfo.query(ctx, port);
      ports.compareAndSet(port, null, info);
    }
    return ports.get(port);
  }

  private IbvPortInfo refreshedPort(int port) {
    IbvPortInfo cached = ports.get(port);
    if (cached == null) {
      return portInfo(port);
    }
    IbvPortInfo fresh = cached.requery(ctx);
    return ports.accumulateAndGet(port, fresh, (current, f) -> f.withGids(current.gids()));
  }

  /** Re-reads a port's GID table (after {@code IBV_EVENT_GID_CHANGE}; runs on the async thread). */
  private void refreshGids(int port) {
    if (port >= 1 && port <= portCount) {
      ports.set(port, IbvPortInfo.query(ctx, port));
      sourceGids.set(port, null);
    }
  }

  /**
   * @param port a port number
   * @return the GID entry QPs on that port use as source GID (chosen on first use)
   */
  IbvGidEntry sourceGid(int port) {
    IbvGidEntry gid = sourceGids.get(port);
    if (gid == null) {
      queryPort(port);
      gid = sourceGids.get(port);
    }
    return gid;
  }

  /**
   * @return the device's limits, queried at open
   */
  IbvDeviceCaps caps() {
    return caps;
  }

  /**
   * {@inheritDoc}
   *
   * <p>With the ibverbs option {@code readBackVerify} (the default): work requests flagged {@link
   * io.vte.verbs.WrFlags#INTEGRITY} are checked by reading the bytes back ({@link
   * ReadBackVerifier}).
   */
  @Override
  public boolean checksPayloadIntegrity() {
    return settings.readBackVerify();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The largest message is the smallest {@code max_msg_sz} of the device's ports; the READ depth
   * is {@link #responderRdAtomic()}. With READ-back verify, queue depths and CQ sizes are half the
   * device's: a verified work request takes two send-queue entries, and both may complete (flushed)
   * when the QP fails.
   */
  @Override
  public QueueLimits queueLimits() {
    int share = checksPayloadIntegrity() ? 2 : 1;
    return new QueueLimits(
        caps.maxQpWr() / share, caps.maxCqe() / share, maxMessageSize, responderRdAtomic());
  }

  /** The smallest {@code max_msg_sz} of the ports: one {@code ibv_query_port} each. */
  private static long maxMessageSize(long ctx, int ports) {
    long smallest = Long.MAX_VALUE;
    long[] out = new long[IbvNative.PORT_OUT_LEN];
    for (int p = 1; p <= ports; p++) {
      IbvNative.queryPort(ctx, p, out);
      smallest = Math.min(smallest, out[IbvNative.PORT_MAX_MSG_SIZE]);
    }
    return smallest;
  }

  /**
   * @return RDMA READs a QP may issue: the setting, lowered to {@code max_qp_init_rd_atom}
   */
  int initiatorRdAtomic() {
    return Math.min(settings.maxRdAtomic(), caps.maxQpInitRdAtom());
  }

  /**
   * @return RDMA READs a QP answers at once: the setting, lowered to {@code max_qp_rd_atom}
   */
  int responderRdAtomic() {
    return Math.min(settings.maxRdAtomic(), caps.maxQpRdAtom());
  }

  /**
   * @return the provider settings
   */
  IbvSettings settings() {
    return settings;
  }

  @Override
  public ProtectionDomain allocPd() {
    checkOpen();
    IbvProtectionDomain pd = new IbvProtectionDomain(this, IbvNative.allocPd(ctx));
    pds.add(pd);
    return pd;
  }

  @Override
  public CompletionQueue createCq(int capacity) {
    checkOpen();
    boolean verify = checksPayloadIntegrity();
    int limit = queueLimits().maxCqe();
    if (capacity < 1 || capacity > limit) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "CQ capacity must be 1.."
              + (verify ? limit + ", half of max_cqe " : "max_cqe ")
              + caps.maxCqe()
              + " of '"
              + deviceName
              + "'"
              + (verify ? ReadBackVerifier.WHY_HALF : "")
              + ", got "
              + capacity);
    }
    // Spread CQs over the completion vectors (interrupts, hence cores) instead of all on vector 0.
    int vector = Math.floorMod(cqsCreated.getAndIncrement(), caps.compVectors());
    // A verified work request's two halves both complete when its QP fails (flushed): room for
    // both.
    long handle =
        IbvNative.createCq(ctx, verify ? 2 * capacity : capacity, channel, vector, new int[1]);
    IbvCompletionQueue cq = new IbvCompletionQueue(this, handle, capacity);
    cqs.put(handle, cq);
    return cq;
  }

  @Override
  public void setAsyncEventHandler(AsyncEventHandler handler) {
    this.asyncHandler = handler;
  }

  /**
   * @param event an event read by the async thread: a GID change re-reads that port's GID table
   *     first; then it is handed to the handler, whose failures are logged
   */
  void deliver(AsyncEvent event) {
    if (event.type() == AsyncEventType.GID_CHANGE) {
      refreshGids(event.port());
    }
    AsyncEventHandler h = asyncHandler;
    if (h == null) {
      return;
    }
    try {
      h.onEvent(event);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "async event handler of '" + deviceName + "' failed on " + event, e);
    }
  }

  /**
   * @param handle an {@code ibv_cq*} @return the CQ, or null when it is not (or no longer) open
   */
  IbvCompletionQueue cqByHandle(long handle) {
    return cqs.get(handle);
  }

  /**
   * @param cq a destroyed CQ to forget
   */
  void forget(IbvCompletionQueue cq) {
    cqs.remove(cq.handle());
  }

  /**
   * @param pd a closed domain to forget
   */
  void forget(IbvProtectionDomain pd) {
    pds.remove(pd);
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new VerbsException(VerbsError.CLOSED, "device '" + deviceName + "' is closed");
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    channelThread.close();
    asyncThread.close();
    RuntimeException failure = Closeables.closeAll(pds, null);
    failure = Closeables.closeAll(cqs.values(), failure);
    if (cqs.isEmpty()) {
      IbvNative.destroyCompChannel(channel);
      IbvNative.closeDevice(ctx);
    }
    provider.forget(this);
    if (failure != null) {
      throw failure;
    }
  }
}

package io.vte.verbs.ibv;

import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventHandler;
import io.vte.verbs.Closeables;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

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
  private final int[] gidIndexByPort;
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
      this.portCount = IbvNative.portCount(ctx);
      ch = IbvNative.createCompChannel(ctx);
    } catch (RuntimeException e) {
      IbvNative.closeDevice(ctx);
      throw e;
    }
    this.channel = ch;
    this.gidIndexByPort = new int[portCount + 1];
    Arrays.fill(gidIndexByPort, Integer.MIN_VALUE);
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

  @Override
  public PortAttributes queryPort(int port) {
    checkOpen();
    if (port < 1 || port > portCount) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "port " + port + " does not exist on '" + deviceName + "' (ports 1.." + portCount + ")");
    }
    PortAttributes attributes = IbvPorts.query(ctx, port, settings.gidIndex());
    gidIndexByPort[port] = attributes.gidIndex();
    return attributes;
  }

  /**
   * @param port a port number
   * @return the GID index QPs on that port use as source GID (queried on first use)
   */
  int sourceGidIndex(int port) {
    if (port < 1 || port > portCount) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "port " + port + " does not exist on '" + deviceName + "' (ports 1.." + portCount + ")");
    }
    if (gidIndexByPort[port] == Integer.MIN_VALUE) {
      queryPort(port);
    }
    return gidIndexByPort[port];
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
    if (capacity < 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "CQ capacity must be >= 1, got " + capacity);
    }
    long handle = IbvNative.createCq(ctx, capacity, channel);
    IbvCompletionQueue cq = new IbvCompletionQueue(this, handle, capacity);
    cqs.put(handle, cq);
    return cq;
  }

  @Override
  public void setAsyncEventHandler(AsyncEventHandler handler) {
    this.asyncHandler = handler;
  }

  /**
   * @param event an event read by the async thread; handed to the handler, whose failures are
   *     logged
   */
  void deliver(AsyncEvent event) {
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

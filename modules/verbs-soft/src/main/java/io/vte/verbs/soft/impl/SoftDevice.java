package io.vte.verbs.soft.impl;

import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventHandler;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.Closeables;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PayloadFaults;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.ServedCounters;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.soft.impl.link.LinkProbe;
import io.vte.verbs.soft.impl.link.PortLink;
import io.vte.verbs.soft.impl.wire.FrameFaults;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * An opened soft device: one port bound to a TCP address (GID = IPv4-mapped address, LID = listen
 * port), its MR and QP key tables, its NIC thread and its async events. Public only so the provider
 * and the fault injector in {@code io.vte.verbs.soft} can reach it; applications use {@link
 * VerbsContext}.
 */
public final class SoftDevice implements VerbsContext {

  /** What this device served to peers as a responder. */
  private final ServedCounters served = new ServedCounters();

  /** Soft devices have exactly one port. */
  public static final int PORT = 1;

  private final String name;
  private final InetSocketAddress localBind;
  private final int mtu;
  private final long maxMessageBytes;

  /** A QP connection idle this long is closed by its requester; 0 = never. */
  private volatile long idleConnectionNanos;

  private final Nic nic;
  private final Gid gid;
  private final int lid;
  private final Runnable onClose;
  private final KeyTable<SoftMr> mrs = new KeyTable<>(1 << 23);
  private final KeyTable<SoftQp> qps = new KeyTable<>(1 << 16);
  private final Set<SoftPd> pds = new LinkedHashSet<>();
  private final Set<SoftCq> cqs = new LinkedHashSet<>();
  private final AsyncEvents events;
  private final DeviceLog log;
  private final FrameFaults frameFaults = new FrameFaults();
  private volatile PayloadFaults landingFaults;
  private final PortLink link;
  private final DeviceFaults faults = new DeviceFaults(this);
  private volatile PortState portState;

  /** Polls in a row that saw the link up before it counts as up again ({@link PortLink}). */
  public static final int LINK_UP_POLLS = PortLink.UP_POLLS;

  private volatile boolean dead;
  private volatile boolean closed;

  /**
   * Opens a device watching the kernel link under its address ({@link LinkProbe#forAddress}).
   *
   * @param name device name
   * @param host bind address (its GID)
   * @param port TCP port (its LID); 0 picks a free one
   * @param mtu active MTU reported by the port
   * @param maxMessageBytes largest message accepted, in bytes
   * @param socketBufferBytes socket send/receive buffer size, 0 for the OS default
   * @param spin how long the NIC thread busy-polls after it served a peer's request, and the budget
   *     of polling NIC threads it shares
   * @param onClose called once when the device closes
   * @return the open device
   * @throws VerbsException {@link VerbsError#IO_ERROR} naming the address when binding fails
   */
  public static SoftDevice open(
      String name,
      InetAddress host,
      int port,
      int mtu,
      long maxMessageBytes,
      int socketBufferBytes,
      NicSpin spin,
      Runnable onClose) {
    return open(
        name,
        host,
        port,
        mtu,
        maxMessageBytes,
        socketBufferBytes,
        spin,
        LinkProbe.forAddress(host),
        onClose);
  }

  /**
   * Opens a device: binds its listener and starts its NIC thread. The port starts ACTIVE when
   * {@code link} says up, else DOWN; from then on the NIC thread follows the link (PORT_ERR on
   * down, PORT_ACTIVE on up).
   *
   * @param name device name
   * @param host bind address (its GID)
   * @param port TCP port (its LID); 0 picks a free one
   * @param mtu active MTU reported by the port
   * @param maxMessageBytes largest message accepted, in bytes
   * @param socketBufferBytes socket send/receive buffer size, 0 for the OS default
   * @param spin how long the NIC thread busy-polls after it served a peer's request, and the budget
   *     of polling NIC threads it shares
   * @param link the link under the address, polled by the NIC thread
   * @param onClose called once when the device closes
   * @return the open device
   * @throws VerbsException {@link VerbsError#IO_ERROR} naming the address when binding fails
   */
  public static SoftDevice open(
      String name,
      InetAddress host,
      int port,
      int mtu,
      long maxMessageBytes,
      int socketBufferBytes,
      NicSpin spin,
      LinkProbe link,
      Runnable onClose) {
    try {
      return new SoftDevice(
          name, host, port, mtu, maxMessageBytes, socketBufferBytes, spin, link, onClose);
    } catch (IOException e) {
      throw new VerbsException(
          VerbsError.IO_ERROR,
          "cannot bind soft device "
              + name
              + " to "
              + host.getHostAddress()
              + ":"
              + port
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private SoftDevice(
      String name,
      InetAddress host,
      int port,
      int mtu,
      long maxMessageBytes,
      int socketBufferBytes,
      NicSpin spin,
      LinkProbe link,
      Runnable onClose)
      throws IOException {
    this.name = name;
    this.link = new PortLink(link);
    this.portState = this.link.isUp() ? PortState.ACTIVE : PortState.DOWN;
    this.mtu = mtu;
    this.maxMessageBytes = maxMessageBytes;
    this.onClose = onClose;
    this.localBind = new InetSocketAddress(host, 0);
    this.log = new DeviceLog(name);
    this.nic = new Nic(this, new InetSocketAddress(host, port), socketBufferBytes, spin);
    this.events = new AsyncEvents(nic::wake, log);
    this.lid = nic.listenPort();
    this.gid = Gid.fromInetAddress(host);
    nic.start();
  }

  @Override
  public ServedCounters servedCounters() {
    return served;
  }

  @Override
  public String deviceName() {
    return name;
  }

  @Override
  public String providerName() {
    return "soft";
  }

  @Override
  public int portCount() {
    return 1;
  }

  @Override
  public PortAttributes queryPort(int port) {
    requirePort(port);
    return new PortAttributes(PORT, portState, mtu, lid, gid, 0, LinkLayer.ETHERNET);
  }

  @Override
  public synchronized ProtectionDomain allocPd() {
    requireUsable();
    SoftPd pd = new SoftPd(this);
    pds.add(pd);
    return pd;
  }

  @Override
  public synchronized CompletionQueue createCq(int capacity) {
    requireUsable();
    if (capacity < 1 || capacity > 1 << 22) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "CQ capacity must be 1..4194304, got " + capacity);
    }
    SoftCq cq = new SoftCq(this, capacity);
    cqs.add(cq);
    return cq;
  }

  @Override
  public void setAsyncEventHandler(AsyncEventHandler handler) {
    events.setHandler(handler);
  }

  /**
   * @return the fault injector's handle on this device (port down/up, frame faults, a stalled or
   *     crashed NIC thread, a dead device, a QP error)
   */
  public DeviceFaults faults() {
    return faults;
  }

  /** NIC thread: the fault injector holds the port down, or lets it come back. */
  void holdPortDown(boolean down) {
    link.setInjectorUp(!down);
    followPort();
  }

  // ---- internals ----

  /**
   * @return whether the NIC thread has a link to poll
   */
  boolean watchesLink() {
    return link.watches();
  }

  /** NIC thread: reads the link and follows it ({@link PortLink}). */
  void pollLink() {
    if (link.poll(log::nicFailure)) {
      log.linkChanged(link, link.isLinkUp());
      followPort();
    }
  }

  /**
   * NIC thread: the port is ACTIVE exactly when the link is up, the fault injector does not hold it
   * down and the device lives. Going down closes every connection and raises PORT_ERR; coming up
   * raises PORT_ACTIVE and lets every QP send again.
   */
  private void followPort() {
    boolean active = link.isUp() && !dead;
    if (!active && portState == PortState.ACTIVE) {
      portState = PortState.DOWN;
      nic.closeAllConnections();
      raise(AsyncEvent.port(name, AsyncEventType.PORT_ERR, PORT));
    } else if (active && portState == PortState.DOWN) {
      portState = PortState.ACTIVE;
      raise(AsyncEvent.port(name, AsyncEventType.PORT_ACTIVE, PORT));
      nic.serviceAll();
    }
  }

  /**
   * NIC thread: the device is dead (killed, or its loop failed unexpectedly): port down for good,
   * every connection closed, every QP to ERR and flushing on the thread's next turn, DEVICE_FATAL
   * raised.
   */
  void die() {
    if (dead || closed) {
      return;
    }
    dead = true;
    portState = PortState.DOWN;
    try {
      nic.closeAllConnections();
    } catch (RuntimeException e) {
      log.nicFailure(e); // the selector may be what failed: the connections close at shutdown
    }
    for (SoftQp qp : liveQps()) {
      qp.enterError();
      nic.schedule(qp);
    }
    raise(new AsyncEvent(AsyncEventType.DEVICE_FATAL, name, -1, -1, null));
  }

  Nic nic() {
    return nic;
  }

  FrameFaults frameFaults() {
    return frameFaults;
  }

  /**
   * @return the post-copy corruption in force on payloads that land here, or null (any thread)
   */
  PayloadFaults landingFaults() {
    return landingFaults;
  }

  /** Sets (null: clears) the post-copy corruption of payloads that land here. */
  void setLandingFaults(PayloadFaults faults) {
    landingFaults = faults;
  }

  /** Soft verbs check {@link io.vte.verbs.WrFlags#INTEGRITY} work requests end to end. */
  @Override
  public boolean checksPayloadIntegrity() {
    return true;
  }

  KeyTable<SoftMr> mrTable() {
    return mrs;
  }

  KeyTable<SoftQp> qpTable() {
    return qps;
  }

  SoftMr mr(int key) {
    return mrs.get(key);
  }

  SoftQp qp(int qpn) {
    return qps.get(qpn);
  }

  long maxMessageBytes() {
    return maxMessageBytes;
  }

  /**
   * Sets how long a QP's connection may carry nothing before its requester closes it (its socket
   * and buffers freed; the next work request opens a new one, which the peer's responder accepts as
   * any reconnect).
   *
   * @param nanos the idle time, 0 for never
   */
  public void setIdleConnectionTimeout(long nanos) {
    idleConnectionNanos = Math.max(0, nanos);
  }

  /**
   * @return this device's TCP connections open now (each QP's outbound one, and inbound ones from
   *     peer requesters)
   */
  public int openConnections() {
    return nic.openConnections();
  }

  long idleConnectionNanos() {
    return idleConnectionNanos;
  }

  PortState portState() {
    return portState;
  }

  boolean isDead() {
    return dead;
  }

  boolean acceptsTraffic() {
    return portState == PortState.ACTIVE && !dead && !closed;
  }

  InetSocketAddress localBindAddress() {
    return localBind;
  }

  void requireOwnCq(CompletionQueue cq) {
    if (!(cq instanceof SoftCq) || ((SoftCq) cq).device() != this) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "CQ " + cq + " does not belong to device " + name);
    }
  }

  void requireUsable() {
    if (closed) {
      throw new VerbsException(VerbsError.CLOSED, "device " + name + " is closed");
    }
    if (dead) {
      throw new VerbsException(
          VerbsError.IO_ERROR, "device " + name + " is dead (DEVICE_FATAL); close it");
    }
  }

  void requirePort(int port) {
    if (port != PORT) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "port " + port + " does not exist on " + name + " (ports: 1)");
    }
  }

  private synchronized List<SoftQp> liveQps() {
    List<SoftQp> list = new ArrayList<>();
    for (SoftPd pd : pds) {
      list.addAll(pd.qpsSnapshot());
    }
    return list;
  }

  /** NIC thread: a CQ overflowed. Raise CQ_ERR and move the QPs that use it to ERR. */
  void onCqOverflow(SoftCq cq) {
    raise(new AsyncEvent(AsyncEventType.CQ_ERR, name, -1, -1, cq));
    for (SoftQp qp : liveQps()) {
      if ((qp.sendCq == cq || qp.recvCq == cq) && qp.enterError()) {
        nic.schedule(qp);
      }
    }
  }

  /**
   * NIC thread: a QP of this device hit an error the HCA reports asynchronously (e.g.
   * QP_ACCESS_ERR).
   */
  void raiseQpEvent(AsyncEventType type, int qpNum) {
    raise(AsyncEvent.qp(name, type, qpNum));
  }

  private void raise(AsyncEvent event) {
    events.raise(event);
  }

  synchronized void forget(SoftPd pd) {
    pds.remove(pd);
  }

  synchronized void forget(SoftCq cq) {
    cqs.remove(cq);
  }

  @Override
  public void close() {
    List<AutoCloseable> toClose;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toClose = new ArrayList<>(pds);
      toClose.addAll(cqs);
    }
    RuntimeException failure = Closeables.closeAll(toClose, null);
    if (failure != null) {
      log.handlerFailure("closing children", failure);
    }
    nic.stop();
    onClose.run();
  }

  DeviceLog log() {
    return log;
  }

  AsyncEvents events() {
    return events;
  }

  @Override
  public String toString() {
    return "soft device " + name + " " + gid + " lid " + lid + ", " + link;
  }
}

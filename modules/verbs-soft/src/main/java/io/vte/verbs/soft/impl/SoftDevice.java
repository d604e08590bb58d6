package io.vte.verbs.soft.impl;

import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventHandler;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.Closeables;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.ServedCounters;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * An opened soft device: one port bound to a TCP address (GID = IPv4-mapped address, LID = listen
 * port), its MR and QP key tables, its NIC thread and its async events. Public only so the provider
 * and the fault injector in {@code io.vte.verbs.soft} can reach it; applications use {@link
 * VerbsContext}.
 */
public final class SoftDevice implements VerbsContext {

  /** What this device served to peers as a responder. */
  private final ServedCounters served = new ServedCounters();

  private static final System.Logger LOG = System.getLogger(SoftDevice.class.getName());

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
  private final ConcurrentLinkedQueue<AsyncEvent> events = new ConcurrentLinkedQueue<>();
  private final FrameFaults frameFaults = new FrameFaults();
  private final LinkProbe link;
  private volatile AsyncEventHandler eventHandler;
  private volatile PortState portState;

  /** Polls in a row that saw the link up before it counts as up again (see {@link #pollLink()}). */
  public static final int LINK_UP_POLLS = 4;

  /** What the kernel says of the link under the address, settled (NIC thread after open). */
  private boolean linkUp;

  /** Polls in a row that saw the link up (NIC thread). */
  private int upPolls;

  /** False while the fault injector holds the port down (NIC thread). */
  private boolean injectorUp = true;

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
    this.link = link;
    this.linkUp = link.isUp();
    this.portState = linkUp ? PortState.ACTIVE : PortState.DOWN;
    this.mtu = mtu;
    this.maxMessageBytes = maxMessageBytes;
    this.onClose = onClose;
    this.localBind = new InetSocketAddress(host, 0);
    this.nic = new Nic(this, new InetSocketAddress(host, port), socketBufferBytes, spin);
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
    this.eventHandler = handler;
  }

  // ---- fault injection (any thread) ----

  /**
   * Takes the port down (the fault injector): every connection through it closes, new ones are
   * refused, PORT_ERR is raised. The port stays down until {@link #portUp(int)}, whatever the link
   * does.
   *
   * @param port the port number (1)
   */
  public void portDown(int port) {
    requirePort(port);
    nic.execute(
        () -> {
          injectorUp = false;
          followPort();
        });
  }

  /**
   * Lets the port come back (the fault injector): it is ACTIVE again, with PORT_ACTIVE raised, once
   * the kernel link is up too.
   *
   * @param port the port number (1)
   */
  public void portUp(int port) {
    requirePort(port);
    nic.execute(
        () -> {
          injectorUp = true;
          followPort();
        });
  }

  /**
   * Drops and delays a fraction of the frames this device sends.
   *
   * @param dropFraction fraction of frames dropped, 0..1
   * @param delayFraction fraction of frames held back, 0..1
   * @param delayNanos how long a held frame (and those behind it on its connection) waits
   * @param seed seed of the generator that picks the frames
   */
  public void setFrameFaults(
      double dropFraction, double delayFraction, long delayNanos, long seed) {
    if (!(dropFraction >= 0 && dropFraction <= 1)
        || !(delayFraction >= 0 && delayFraction <= 1)
        || delayNanos < 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "fault fractions must be 0..1 and the delay >= 0, got drop="
              + dropFraction
              + " delay="
              + delayFraction
              + " delayNanos="
              + delayNanos);
    }
    frameFaults.set(dropFraction, delayFraction, delayNanos, seed);
  }

  /**
   * Drops exactly one of the request and response frames this device sends: the {@code nth} from
   * now on.
   *
   * @param nth 1 for the next frame, 2 for the one after, ...
   */
  public void dropOneFrame(long nth) {
    if (nth < 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "the frame to drop is counted from 1, got " + nth);
    }
    frameFaults.dropOne(nth);
  }

  /** Stops dropping and delaying frames. */
  public void clearFrameFaults() {
    frameFaults.clear();
  }

  /**
   * Holds the device's NIC thread (the fault injector's stalled NIC): it reads no socket and serves
   * no QP until {@link #releaseNic()}, while peers' requests wait unread in its sockets, as behind
   * a wedged NIC. The port stays ACTIVE and the control plane works (QP state changes, close).
   * Never blocks, so an event loop may call it; stalling a stalled NIC adds no second hold.
   *
   * @return completes once the thread is held; fails with {@link VerbsException} {@link
   *     VerbsError#INVALID_STATE} when it is not held within {@link #STALL_TIMEOUT}
   */
  public CompletionStage<Void> stallNic() {
    return nic.hold()
        .orTimeout(STALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            e ->
                CompletableFuture.failedFuture(
                    new VerbsException(
                        VerbsError.INVALID_STATE,
                        "the NIC thread of "
                            + name
                            + " was not held within "
                            + STALL_TIMEOUT.toSeconds()
                            + " s",
                        e)));
  }

  /** How long {@link #stallNic()} waits for the NIC thread to be held. */
  public static final Duration STALL_TIMEOUT = Duration.ofSeconds(10);

  /** Lets the NIC thread held by {@link #stallNic()} go on; nothing when it is not held. */
  public void releaseNic() {
    nic.releaseHold();
  }

  /** Kills the device: port down for good, every QP to ERR (flushing), DEVICE_FATAL raised. */
  public void kill() {
    nic.execute(this::die);
  }

  /**
   * Makes the NIC thread fail as an unexpected internal error would (the fault injector): the
   * device dies as after {@link #kill()}, and the thread stays only to flush what is outstanding or
   * posted later.
   */
  public void crashNic() {
    nic.execute(
        () -> {
          throw new InjectedNicCrash(name);
        });
  }

  /** What {@link #crashNic()} throws on the NIC thread: an error no command handler catches. */
  private static final class InjectedNicCrash extends Error {
    InjectedNicCrash(String device) {
      super("injected crash of the NIC thread of " + device);
    }
  }

  /**
   * Forces a QP into ERR as a fatal error would: its work flushes and QP_FATAL is raised.
   *
   * @param qpNum the QP number
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for an unknown QP number
   */
  public void forceQpError(int qpNum) {
    SoftQp qp = qps.get(qpNum);
    if (qp == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "no QP " + qpNum + " on " + name);
    }
    nic.execute(
        () -> {
          if (qp.enterError()) {
            nic.schedule(qp);
            raise(AsyncEvent.qp(name, AsyncEventType.QP_FATAL, qpNum));
          }
        });
  }

  // ---- internals ----

  /**
   * @return whether the NIC thread has a link to poll
   */
  boolean watchesLink() {
    return link.watches();
  }

  /**
   * NIC thread: reads the link and follows it. Down counts at once; up only once the link has been
   * seen up at {@link #LINK_UP_POLLS} polls in a row (as a NIC's port turns ACTIVE only after link
   * training), so a link whose addresses and routes are still being restored right after it came up
   * is not announced yet.
   */
  void pollLink() {
    boolean up;
    try {
      up = link.isUp();
    } catch (RuntimeException e) {
      logNicFailure(e);
      up = false;
    }
    upPolls = up ? upPolls + 1 : 0;
    boolean settled = up && (linkUp || upPolls >= LINK_UP_POLLS);
    if (settled != linkUp) {
      linkUp = settled;
      LOG.log(Level.INFO, () -> name + ": " + link + " went " + (settled ? "up" : "down"));
      followPort();
    }
  }

  /**
   * NIC thread: the port is ACTIVE exactly when the link is up, the fault injector does not hold it
   * down and the device lives. Going down closes every connection and raises PORT_ERR; coming up
   * raises PORT_ACTIVE and lets every QP send again.
   */
  private void followPort() {
    boolean active = linkUp && injectorUp && !dead;
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
      logNicFailure(e); // the selector may be what failed: the connections close at shutdown
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

  private void requirePort(int port) {
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
    events.offer(event);
    nic.wake();
  }

  boolean hasPendingEvents() {
    return !events.isEmpty();
  }

  /** NIC thread: hands queued events to the handler, each exactly once, holding no lock. */
  void deliverEvents() {
    AsyncEvent e;
    while ((e = events.poll()) != null) {
      AsyncEventHandler h = eventHandler;
      if (h != null) {
        try {
          h.onEvent(e);
        } catch (RuntimeException | Error ex) { // a user's handler must not take the NIC down
          logHandlerFailure("async event handler", ex);
        }
      }
    }
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
      logHandlerFailure("closing children", failure);
    }
    nic.stop();
    onClose.run();
  }

  void logConnectionFailure(Connection c, Throwable e) {
    LOG.log(Level.DEBUG, () -> name + ": connection " + c + " failed: " + e);
  }

  void logRefusedHello(int qpn, int srcQpn) {
    LOG.log(
        Level.DEBUG,
        () ->
            name
                + ": refused a connection to QP "
                + qpn
                + " from QP "
                + srcQpn
                + " (unknown, or not in RTR/RTS with that peer)");
  }

  void logProtocolError(Connection c, String what) {
    LOG.log(
        Level.WARNING,
        () -> name + ": protocol error on " + c + ": " + what + "; connection closed");
  }

  void logHandlerFailure(String what, Throwable e) {
    LOG.log(Level.WARNING, name + ": " + what + " threw", e);
  }

  void logNicFailure(Throwable e) {
    LOG.log(Level.ERROR, name + ": NIC thread failed", e);
  }

  @Override
  public String toString() {
    return "soft device " + name + " " + gid + " lid " + lid + ", " + link;
  }
}

package io.vte.engine.impl.owner;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.engine.impl.Rail;
import io.vte.engine.impl.Slice;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.VerbsContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One opened local device and its owners: the PD, {@code workersPerContext} owners each with its own CQ
 * and event loop, the one place that maps a peer NIC path to its owner, memory registration, and the
 * routing of the device's async events to the owners they concern.
 */
public final class LocalContext {

  private final Vertx vertx;
  private final VerbsContext device;
  private final OwnerConfig config;
  private final String localNicPath;
  private final ProtectionDomain pd;
  private final Owner[] owners;
  private final Map<Integer, Owner> qpOwners = new ConcurrentHashMap<>();
  private final Set<MemoryRegion> regions = ConcurrentHashMap.newKeySet();
  private final List<PortListener> portListeners = new CopyOnWriteArrayList<>();
  private final List<String> deployments = new ArrayList<>();
  private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
  private Future<Void> closing;

  private LocalContext(Vertx vertx, VerbsContext device, OwnerConfig config, String localServerName,
      HandshakeChannel channel, NanoClock clock) {
    this.vertx = vertx;
    this.device = device;
    this.config = config;
    this.localNicPath = localServerName + "@" + device.deviceName();
    this.pd = device.allocPd();
    int workers = config.workersPerContext();
    this.owners = new Owner[workers];
    List<CompletionQueue> cqs = new ArrayList<>();
    try {
      for (int i = 0; i < workers; i++) {
        CompletionQueue cq = device.createCq(config.cqSize());
        cqs.add(cq);
        OwnerProxy proxy = new OwnerProxy();
        cq.setNotificationHandler(c -> proxy.wake());
        owners[i] = new Owner(i, config, localNicPath, device, pd, cq, channel, clock, proxy, qpOwners);
      }
    } catch (RuntimeException e) {
      pd.close();
      cqs.forEach(CompletionQueue::close);
      throw e;
    }
    device.setAsyncEventHandler(this::onAsyncEvent);
  }

  /**
   * Opens the owners of a device: allocates the PD and one CQ per owner and deploys one owner verticle
   * per owner, each on its own event-loop context.
   *
   * @param vertx the Vert.x instance
   * @param device the opened device; closed by {@link #close()}
   * @param config owner sizing (validated on construction)
   * @param localServerName this node's handshake server name, {@code host:port}
   * @param channel sends active handshakes
   * @param clock monotonic clock
   * @return the context once every owner runs
   */
  public static Future<LocalContext> open(Vertx vertx, VerbsContext device, OwnerConfig config,
      String localServerName, HandshakeChannel channel, NanoClock clock) {
    LocalContext ctx;
    try {
      ctx = new LocalContext(vertx, device, config, localServerName, channel, clock);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    List<Future<String>> deployed = new ArrayList<>();
    for (Owner owner : ctx.owners) {
      deployed.add(vertx.deployVerticle(new OwnerVerticle(owner, config)).onSuccess(id -> {
        synchronized (ctx.deployments) {
          ctx.deployments.add(id);
        }
      }));
    }
    // join, not all: every deployment settles before a failure closes the context.
    return Future.join(deployed).transform(ar -> {
      if (ar.succeeded()) {
        return Future.succeededFuture(ctx);
      }
      return ctx.close().transform(ignored -> Future.failedFuture(ar.cause()));
    });
  }

  /**
   * The one place mapping a peer NIC path to an owner: FNV-1a over the path's characters, mod the
   * worker count. Stable across runs (unlike identity hashes) and computed without building the string.
   *
   * @param server peer server name
   * @param deviceName peer device name
   * @param workers the worker-count snapshot
   * @return owner index in {@code [0, workers)}
   */
  static int ownerIndex(String server, String deviceName, int workers) {
    int h = 0x811c9dc5;
    h = fnv(h, server);
    h = (h ^ '@') * 0x01000193;
    h = fnv(h, deviceName);
    return Math.floorMod(h, workers);
  }

  /**
   * @param peerNicPath {@code <server>@<device>}
   * @param workers the worker-count snapshot
   * @return owner index, equal to {@link #ownerIndex(String, String, int)} of its parts
   */
  static int ownerIndex(String peerNicPath, int workers) {
    return Math.floorMod(fnv(0x811c9dc5, peerNicPath), workers);
  }

  private static int fnv(int h, String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      h = (h ^ s.charAt(i)) * 0x01000193;
    }
    return h;
  }

  /** @return the device name */
  public String deviceName() {
    return device.deviceName();
  }

  /** @return {@code <local server>@<device>} */
  public String localNicPath() {
    return localNicPath;
  }

  /** @return the underlying verbs device */
  public VerbsContext device() {
    return device;
  }

  /** @return the attributes of the port the owners use */
  public PortAttributes portAttributes() {
    return device.queryPort(config.port());
  }

  /** @return the owner configuration */
  public OwnerConfig config() {
    return config;
  }

  /** @return the number of owners (the worker-count snapshot) */
  public int ownerCount() {
    return owners.length;
  }

  /**
   * @param index owner index
   * @return that owner's metrics
   */
  public OwnerMetrics ownerMetrics(int index) {
    return owners[index].metrics();
  }

  /** @return the number of QPs currently owned by this context's endpoints */
  public int liveQpCount() {
    return qpOwners.size();
  }

  /**
   * For fault injection and diagnostics: which QPs the endpoints of this context own right now. Thread-safe.
   *
   * @return a snapshot of their QP numbers
   */
  public List<Integer> liveQpNumbers() {
    return List.copyOf(qpOwners.keySet());
  }

  /**
   * Registers memory on this device's PD. Thread-safe.
   *
   * @param address start address
   * @param length bytes
   * @param accessFlags {@link io.vte.verbs.AccessFlags}
   * @return the region
   */
  public MemoryRegion registerMemory(long address, long length, int accessFlags) {
    MemoryRegion mr;
    synchronized (pd) {
      mr = pd.registerMemory(address, length, accessFlags);
    }
    regions.add(mr);
    return mr;
  }

  /**
   * Registers a whole direct buffer on this device's PD. Thread-safe.
   *
   * @param buffer a direct buffer
   * @param accessFlags {@link io.vte.verbs.AccessFlags}
   * @return the region
   */
  public MemoryRegion registerMemory(ByteBuffer buffer, int accessFlags) {
    MemoryRegion mr;
    synchronized (pd) {
      mr = pd.registerMemory(buffer, accessFlags);
    }
    regions.add(mr);
    return mr;
  }

  /**
   * Deregisters a region made by this context. Thread-safe, idempotent.
   *
   * @param region the region
   */
  public void deregisterMemory(MemoryRegion region) {
    if (regions.remove(region)) {
      synchronized (pd) {
        region.close();
      }
    }
  }

  /** @param listener told of port down/up events of this device (for rail health) */
  public void addPortListener(PortListener listener) {
    portListeners.add(listener);
  }

  Owner owner(int index) {
    return owners[index];
  }

  Owner ownerOf(Rail rail) {
    return owners[ownerIndex(rail.peerServerName(), rail.peerDeviceName(), owners.length)];
  }

  /** Routes a slice to its owner and wakes it. */
  void submit(Slice slice) {
    ownerOf(slice.rail()).proxy().submit(slice);
  }

  /**
   * Hands a peer's connect request to the owner of the requester's NIC path; the owner answers.
   *
   * @param request the request (its peer_nic_path names this device)
   * @return the reply
   */
  Future<ConnectReply> passiveConnect(ConnectRequest request) {
    Promise<ConnectReply> reply = Promise.promise();
    Owner owner = owners[ownerIndex(request.getLocalNicPath(), owners.length)];
    owner.proxy().execute(new OwnerCommand() {
      @Override
      public void execute(Owner o) {
        o.onPassiveConnect(request, reply);
      }

      @Override
      public void abort() {
        reply.tryComplete(ConnectReply.newBuilder().setStatus(ConnectStatus.SHUTTING_DOWN)
            .setReason(localNicPath + " is closed").setLocalNicPath(localNicPath).build());
      }
    });
    return reply.future();
  }

  private void onAsyncEvent(AsyncEvent event) {
    switch (event.type()) {
      case QP_FATAL:
      case QP_REQ_ERR:
      case QP_ACCESS_ERR: {
        Owner owner = qpOwners.get(event.qpNum());
        if (owner != null) {
          int qpNum = event.qpNum();
          owner.proxy().execute(o -> o.onQpFatal(qpNum));
        }
        break;
      }
      case PORT_ERR:
        // Rail selection first: the slices the owners now fail with RAIL_DOWN must not be re-routed here.
        notifyPort(event.port(), false);
        broadcast(o -> o.onPortDown(event.port()));
        break;
      case PORT_ACTIVE:
        // Owners first: a slice routed here after selection sees the port up lands behind this command.
        broadcast(o -> o.onPortUp(event.port()));
        notifyPort(event.port(), true);
        break;
      case CQ_ERR:
        for (Owner owner : owners) {
          if (owner.cq() == event.cq()) {
            owner.proxy().execute(Owner::onCqError);
          }
        }
        break;
      case DEVICE_FATAL:
        for (int port = 1; port <= device.portCount(); port++) {
          notifyPort(port, false);
        }
        broadcast(Owner::onDeviceFatal);
        break;
      default:
        break;
    }
  }

  private void broadcast(OwnerCommand command) {
    for (Owner owner : owners) {
      owner.proxy().execute(command);
    }
  }

  private void notifyPort(int port, boolean active) {
    for (PortListener listener : portListeners) {
      try {
        listener.onPortChange(device.deviceName(), port, active);
      } catch (RuntimeException e) {
        // A listener's failure must not stop the others from hearing about the port.
      }
    }
  }

  /**
   * Closes the context: every owner retires its endpoints (their slices complete ENGINE_CLOSED or flush),
   * waits until every work request is accounted for (bounded by the flush deadline), the owner verticles
   * are undeployed, then QPs, MRs, PD, CQs and the device are destroyed, in that order. Idempotent.
   *
   * @return completes when everything is released
   */
  public synchronized Future<Void> close() {
    if (closing != null) {
      return closing;
    }
    List<Future<Void>> drained = new ArrayList<>();
    for (Owner owner : owners) {
      Promise<Void> done = Promise.promise();
      drained.add(done.future());
      owner.proxy().execute(new OwnerCommand() {
        @Override
        public void execute(Owner o) {
          o.beginClose(done);
        }

        @Override
        public void abort() {
          done.tryComplete();
        }
      });
      if (!owner.proxy().isBound()) {
        // Its verticle never started (failed deployment): nothing will drain the queue.
        owner.proxy().close();
      }
    }
    closing = Future.join(drained)
        .transform(ignored -> undeployOwners())
        .transform(ignored -> vertx.executeBlocking(() -> {
          releaseVerbs();
          return null;
        }, false))
        // Vert.x already closed: no worker is left, release on this thread.
        .recover(failure -> {
          if (released.get()) {
            return Future.failedFuture(failure);
          }
          releaseVerbs();
          return Future.succeededFuture();
        })
        .mapEmpty();
    return closing;
  }

  private Future<Void> undeployOwners() {
    List<Future<Void>> undeployed = new ArrayList<>();
    synchronized (deployments) {
      for (String id : deployments) {
        undeployed.add(vertx.undeploy(id));
      }
      deployments.clear();
    }
    return Future.join(undeployed).transform(ignored -> {
      for (Owner owner : owners) {
        owner.proxy().close();
      }
      return Future.succeededFuture();
    });
  }

  private void releaseVerbs() {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    device.setAsyncEventHandler(null);
    for (Owner owner : owners) {
      owner.destroyRemaining();
    }
    for (MemoryRegion mr : regions) {
      mr.close();
    }
    regions.clear();
    pd.close();
    for (Owner owner : owners) {
      owner.cq().close();
    }
    device.close();
  }
}

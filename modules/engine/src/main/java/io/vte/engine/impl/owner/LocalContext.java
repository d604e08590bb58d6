package io.vte.engine.impl.owner;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.handshake.HandshakeChannel;
import io.vte.engine.impl.owner.connect.PeerLiveness;
import io.vte.engine.impl.owner.runtime.QpThreads;
import io.vte.engine.impl.owner.runtime.SliceQueue;
import io.vte.engine.impl.rail.Rail;
import io.vte.engine.impl.rail.Slice;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.VerbsContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One opened local device and its owners: the PD, {@code workersPerContext} owners each with its
 * own CQ and event loop, their {@link OwnerDirectory} (the one place that maps a rail, a peer NIC
 * path or a QP to its owner), memory registration, and the routing of the device's async events to
 * the owners they concern.
 */
public final class LocalContext {

  private final Vertx vertx;
  private final VerbsContext device;
  private final OwnerConfig config;
  private final NicPath localNicPath;
  private final ProtectionDomain pd;
  private final OwnerDirectory owners;

  /** Stops telling this context's owners of gone peers. */
  private final Runnable peerWatch;

  /** Runs the owners' QP create, modify and destroy off their event loops. */
  private final QpThreads qpThreads;

  private final Set<MemoryRegion> regions = ConcurrentHashMap.newKeySet();
  private final List<PortListener> portListeners = new CopyOnWriteArrayList<>();
  private final List<String> deployments = new ArrayList<>();
  private final java.util.concurrent.atomic.AtomicBoolean released =
      new java.util.concurrent.atomic.AtomicBoolean();
  private Future<Void> closing;

  private LocalContext(
      Vertx vertx,
      VerbsContext device,
      OwnerConfig config,
      String localServerName,
      HandshakeChannel channel,
      NanoClock clock,
      PeerLiveness peers) {
    this.vertx = vertx;
    this.device = device;
    this.config = config;
    this.localNicPath = NicPath.of(localServerName, device.deviceName());
    this.pd = device.allocPd();
    int workers = config.workersPerContext();
    this.owners = new OwnerDirectory(workers);
    this.qpThreads = new QpThreads(device.deviceName());
    List<CompletionQueue> cqs = new ArrayList<>();
    try {
      for (int i = 0; i < workers; i++) {
        CompletionQueue cq = device.createCq(config.cqSize());
        cqs.add(cq);
        OwnerProxy proxy = new OwnerProxy(localNicPath, SliceQueue.capacityFor(config.cqSize()));
        cq.setNotificationHandler(c -> proxy.wake());
        owners.add(
            new Owner(
                i,
                config,
                localNicPath,
                device,
                pd,
                cq,
                channel,
                clock,
                proxy,
                owners,
                HandshakeBackoff.standard(),
                peers,
                qpThreads));
      }
    } catch (RuntimeException e) {
      qpThreads.close();
      pd.close();
      cqs.forEach(CompletionQueue::close);
      throw e;
    }
    device.setAsyncEventHandler(this::onAsyncEvent);
    this.peerWatch =
        peers.onGone(
            (server, cause) -> {
              for (Owner owner : owners.all()) {
                owner.proxy().peerGone(server, cause);
              }
            });
  }

  /**
   * Opens the owners of a device: allocates the PD and one CQ per owner and deploys one owner
   * verticle per owner, each on its own event-loop context.
   *
   * @param vertx the Vert.x instance
   * @param device the opened device; closed by {@link #close()}
   * @param config owner sizing (validated on construction)
   * @param localServerName this node's handshake server name, {@code host:port}
   * @param channel sends active handshakes
   * @param clock monotonic clock
   * @param peers what the engine knows of its peers' processes, shared by all its contexts
   * @return the context once every owner runs
   */
  public static Future<LocalContext> open(
      Vertx vertx,
      VerbsContext device,
      OwnerConfig config,
      String localServerName,
      HandshakeChannel channel,
      NanoClock clock,
      PeerLiveness peers) {
    LocalContext ctx;
    try {
      ctx = new LocalContext(vertx, device, config, localServerName, channel, clock, peers);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    List<Future<String>> deployed = new ArrayList<>();
    for (Owner owner : ctx.owners.all()) {
      deployed.add(
          vertx
              .deployVerticle(new OwnerVerticle(owner, config))
              .onSuccess(
                  id -> {
                    synchronized (ctx.deployments) {
                      ctx.deployments.add(id);
                    }
                  }));
    }
    // join, not all: every deployment settles before a failure closes the context.
    return Future.join(deployed)
        .transform(
            ar -> {
              if (ar.succeeded()) {
                return Future.succeededFuture(ctx);
              }
              return ctx.close().transform(ignored -> Future.failedFuture(ar.cause()));
            });
  }

  /**
   * @return the device name
   */
  public String deviceName() {
    return device.deviceName();
  }

  /**
   * @return {@code <local server>@<device>}, as the handshake messages carry it
   */
  public String localNicPath() {
    return localNicPath.toString();
  }

  /**
   * @return the underlying verbs device
   */
  public VerbsContext device() {
    return device;
  }

  /**
   * @return the attributes of the port the owners use
   */
  public PortAttributes portAttributes() {
    return device.queryPort(config.port());
  }

  /**
   * @return the owner configuration
   */
  public OwnerConfig config() {
    return config;
  }

  /**
   * @return the number of owners (the worker-count snapshot)
   */
  public int ownerCount() {
    return config.workersPerContext();
  }

  /**
   * @param index owner index
   * @return that owner's metrics
   */
  public OwnerMetrics ownerMetrics(int index) {
    return owners.owner(index).metrics();
  }

  /**
   * @return the number of QPs currently owned by this context's endpoints
   */
  public int liveQpCount() {
    return owners.liveQpCount();
  }

  /**
   * For fault injection and diagnostics: which QPs the endpoints of this context own right now.
   * Thread-safe.
   *
   * @return a snapshot of their QP numbers
   */
  public List<Integer> liveQpNumbers() {
    return owners.liveQpNumbers();
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

  /**
   * @param listener told of port down/up events of this device (for rail health)
   */
  public void addPortListener(PortListener listener) {
    portListeners.add(listener);
  }

  Owner owner(int index) {
    return owners.owner(index);
  }

  /**
   * @return the owner of a rail's endpoint ({@link OwnerDirectory#ownerOf(Rail)}): every slice's
   *     route
   */
  Owner ownerOf(Rail rail) {
    return owners.ownerOf(rail);
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
    String from = request.getLocalNicPath();
    // A request naming no valid NIC path is refused by name by whichever owner gets it.
    Owner owner =
        NicPath.problem(from) == null ? owners.ownerOf(NicPath.parse(from)) : owners.owner(0);
    owner.proxy().passiveConnect(request, reply);
    return reply.future();
  }

  /**
   * The peer says its device {@code path} is down: the owner of the endpoint to it retires it.
   *
   * @param path the peer's device
   * @param cause what the endpoint's slices are told
   */
  public void peerDeviceDown(NicPath path, VteException cause) {
    owners.ownerOf(path).proxy().peerDeviceDown(path, cause);
  }

  private void onAsyncEvent(AsyncEvent event) {
    switch (event.type()) {
      case QP_FATAL:
      case QP_REQ_ERR:
      case QP_ACCESS_ERR:
        {
          Owner owner = owners.ownerOfQp(event.qpNum());
          if (owner != null) {
            owner.proxy().qpFatal(event.qpNum());
          }
          break;
        }
      case PORT_ERR:
        // Rail selection first: the slices the owners now fail with RAIL_DOWN must not be re-routed
        // here.
        notifyPort(event.port(), false);
        owners.all().forEach(o -> o.proxy().portDown(event.port()));
        break;
      case PORT_ACTIVE:
        // Owners first: a slice routed here after selection sees the port up lands behind this
        // command.
        owners.all().forEach(o -> o.proxy().portUp(event.port()));
        notifyPort(event.port(), true);
        break;
      case CQ_ERR:
        for (Owner owner : owners.all()) {
          if (owner.cq() == event.cq()) {
            owner.proxy().cqError();
          }
        }
        break;
      case DEVICE_FATAL:
        for (int port = 1; port <= device.portCount(); port++) {
          notifyPort(port, false);
        }
        owners.all().forEach(o -> o.proxy().deviceFatal());
        break;
      default:
        break;
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
   * Closes the context: every owner retires its endpoints (their slices complete ENGINE_CLOSED or
   * flush), waits until every work request is accounted for (bounded by the flush deadline), the
   * owner verticles are undeployed, then QPs, MRs, PD, CQs and the device are destroyed, in that
   * order. Idempotent.
   *
   * @return completes when everything is released
   */
  public synchronized Future<Void> close() {
    if (closing != null) {
      return closing;
    }
    peerWatch.run();
    List<Future<Void>> drained = new ArrayList<>();
    for (Owner owner : owners.all()) {
      Promise<Void> done = Promise.promise();
      drained.add(done.future());
      owner.proxy().beginClose(done);
      if (!owner.proxy().isBound()) {
        // Its verticle never started (failed deployment): nothing will drain the queue.
        owner.proxy().close();
      }
    }
    closing =
        Future.join(drained)
            .transform(ignored -> undeployOwners())
            .transform(
                ignored ->
                    vertx.executeBlocking(
                        () -> {
                          releaseVerbs();
                          return null;
                        },
                        false))
            // Vert.x already closed: no worker is left, release on this thread.
            .recover(
                failure -> {
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
    return Future.join(undeployed)
        .transform(
            ignored -> {
              for (Owner owner : owners.all()) {
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
    // QP jobs still running finish first (their results find the owners closed and release what
    // they made), then whatever QPs the owners hold are destroyed here.
    qpThreads.close();
    for (Owner owner : owners.all()) {
      owner.destroyRemaining();
    }
    for (MemoryRegion mr : regions) {
      mr.close();
    }
    regions.clear();
    pd.close();
    for (Owner owner : owners.all()) {
      owner.cq().close();
    }
    device.close();
  }
}

package io.vte.engine.impl;

import com.google.protobuf.ByteString;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.micrometer.backends.BackendRegistries;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TaskState;
import io.vte.api.TaskStatus;
import io.vte.api.TransferBatch;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.owner.NanoClock;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.OwnerRouter;
import io.vte.engine.impl.owner.PassiveConnectHandler;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.HandshakeServer;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.metadata.MetadataOptions;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.MetadataStores;
import io.vte.metadata.StartDeadline;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine: wires the verbs provider, the owner layer (one {@link LocalContext} per device), the
 * handshake service and client, the metadata store and the data path ({@link TransferSubmitter}) behind
 * the public {@link TransferEngine} API. {@link #start} opens everything in order and closes what it
 * opened when a step fails; {@link #close} releases everything in reverse order.
 */
public final class TransferEngineImpl implements TransferEngine {

  /** Largest notification payload. */
  public static final int MAX_NOTIFICATION_BYTES = 64 * 1024;

  private final Vertx vertx;
  private final EngineOptions options;
  private final EngineHandshakeHandler handshakeHandler = new EngineHandshakeHandler();
  private final EngineCounters counters = new EngineCounters();
  private final BatchIdTable batchIds = new BatchIdTable();
  private final List<LocalContext> contexts = new ArrayList<>();
  private final Map<String, Future<Void>> notifyTails = new ConcurrentHashMap<>();
  private VerbsProvider provider;
  private HandshakeServer server;
  private HandshakeClientPool clients;
  private volatile MetadataStore metadata;
  private MemoryRegistry memory;
  private LocalDescriptorBuilder descriptor;
  private SegmentCache segments;
  private RailSelector rails;
  private TransferSubmitter submitter;
  private NotificationDispatcher notifications;
  private List<Meter> meters = List.of();
  private MeterRegistry meterRegistry;
  private volatile boolean closed;
  private Future<Void> closing;

  private TransferEngineImpl(Vertx vertx, EngineOptions options) {
    this.vertx = vertx;
    this.options = options;
  }

  /**
   * Creates and starts an engine.
   *
   * @param vertx the Vert.x instance
   * @param options validated options
   * @return the running engine, or a typed failure after everything opened so far was closed
   */
  public static Future<TransferEngine> start(Vertx vertx, EngineOptions options) {
    Future<EngineOptions> resolved;
    if ("soft".equals(options.getTransport()) && options.getDevices() != null && options.getDevices().isEmpty()) {
      // Listing the host's interfaces reads kernel tables: on a worker, never on the caller's event loop.
      resolved = vertx.executeBlocking(options::withHostDefaults, false);
    } else {
      try {
        resolved = Future.succeededFuture(options.withHostDefaults());
      } catch (VteException e) {
        return Future.failedFuture(e);
      }
    }
    return resolved.compose(o -> {
      TransferEngineImpl engine = new TransferEngineImpl(vertx, o);
      return engine.open().<TransferEngine>map(engine)
          .recover(e -> engine.close().transform(ignored -> Future.failedFuture(e)));
    });
  }

  private Future<Void> open() {
    try {
      options.validate();
      provider = VerbsProviders.create(options.getTransport(), ProviderConfig.of(options));
      if (!provider.isAvailable()) {
        throw new VteException(ErrorCode.DEVICE_UNAVAILABLE, "verbs provider '" + options.getTransport()
            + "' is unavailable (" + provider.unavailabilityCause() + "); use transport 'soft' on hosts without RDMA");
      }
      clients = HandshakeClientPool.create(vertx, EnginePartOptions.handshakeClient(options));
      return HandshakeServer.start(vertx, EnginePartOptions.handshakeServer(options), handshakeHandler)
          .compose(s -> {
            server = s;
            return openContexts(ProviderConfig.deviceNames(options), 0);
          })
          .compose(v -> startMetadata())
          .compose(startDeadline -> {
            wireDataPath();
            // like the store's start, the first publish waits for a slow backend within the start deadline
            return startDeadline.retry("first publish of segment '" + segmentName() + "'",
                left -> metadata.publish(descriptor.build()));
          });
    } catch (VerbsException e) {
      return Future.failedFuture(new VteException(ErrorCode.DEVICE_UNAVAILABLE, e.getMessage(), e));
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<Void> openContexts(List<String> names, int index) {
    if (index == names.size()) {
      return Future.succeededFuture();
    }
    VerbsContext device;
    try {
      device = provider.open(names.get(index));
    } catch (VerbsException e) {
      return Future.failedFuture(new VteException(ErrorCode.DEVICE_UNAVAILABLE,
          "cannot open device '" + names.get(index) + "': " + e.getMessage(), e));
    }
    return LocalContext.open(vertx, device, OwnerConfig.from(options), server.serverName(), clients::connect, NanoClock.SYSTEM)
        .compose(ctx -> {
          contexts.add(ctx);
          return openContexts(names, index + 1);
        });
  }

  /**
   * @param options engine options
   * @return how long a QP takes to give up on a peer that stopped answering: the encoded ACK timeout times the
   *     QP retries
   */
  static Duration qpFailureTime(EngineOptions options) {
    return Duration.ofNanos(Math.max(1, options.getQpRetryCount()) * (4096L << OwnerConfig.qpTimeoutExponent(options.getQpTimeout())));
  }

  /**
   * Creates and starts the metadata store on a worker context of its own, so that its etcd calls, watch
   * callbacks and timers never run on an owner's event loop.
   *
   * @return the metadata start deadline, begun before the store started, which the first publish shares
   */
  private Future<StartDeadline> startMetadata() {
    MetadataOptions mo;
    try {
      mo = EnginePartOptions.metadata(options).setSegmentFetcher(clients::getSegment);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    ContextInternal metadataContext = ((VertxInternal) vertx).createWorkerContext();
    Promise<MetadataStore> created = Promise.promise();
    metadataContext.runOnContext(v -> {
      try {
        created.complete(MetadataStores.create(vertx, options.getMetadataUri(), mo));
      } catch (VteException e) {
        created.fail(e);
      }
    });
    StartDeadline startDeadline = StartDeadline.startingNow(vertx, mo.getStartDeadline());
    return created.future().compose(store -> {
      metadata = store;
      return store.start().map(startDeadline);
    });
  }

  private void wireDataPath() {
    List<String> names = new ArrayList<>();
    contexts.forEach(c -> names.add(c.deviceName()));
    memory = new MemoryRegistry(new ContextMemory(), this::descriptorChanged);
    descriptor = new LocalDescriptorBuilder(segmentName(), server.serverName(), options.getTransport(), names,
        i -> contexts.get(i).portAttributes(), memory);
    segments = new SegmentCache(metadata::lookup);
    metadata.setInvalidationHandler(segments::invalidate);
    long holdDown = options.getRailHoldDown().toNanos();
    rails = new RailSelector(names, 3, holdDown, Math.max(holdDown, qpFailureTime(options).toNanos()),
        System::nanoTime);
    submitter = new TransferSubmitter(vertx, memory, segments, rails, new TransferTracker.Services(
        new Slicer(options.getSliceSize()), new OwnerRouter(contexts), options.getRetryCount(), counters,
        seg -> segments.invalidate(seg.name()), new PeerDeviceStates(segments, rails)));
    notifications = new NotificationDispatcher(vertx.getOrCreateContext(), 1024, options.getHandshakeDeadline().toMillis(),
        NotificationDispatcher.newEpoch());
    for (int i = 0; i < contexts.size(); i++) {
      int index = i;
      contexts.get(i).addPortListener((device, port, active) -> {
        rails.setLocalPortUp(index, active);
        descriptorChanged();
      });
    }
    handshakeHandler.bind(new PassiveConnectHandler(contexts), descriptor, notifications);
    meterRegistry = BackendRegistries.getDefaultNow();
    if (meterRegistry != null) {
      meters = new ArrayList<>(counters.bindTo(meterRegistry, server.serverName()));
      meters.addAll(OwnerMeters.bind(meterRegistry, server.serverName(), contexts));
      meters.addAll(metadataMeters(meterRegistry, server.serverName(), metadata));
    }
  }

  /**
   * @return {@code vte.metadata.degraded} (1 while the backend is unreachable and cached descriptors are
   *     served, else 0) and {@code vte.metadata.degradations} (times the store turned degraded)
   */
  static List<Meter> metadataMeters(MeterRegistry registry, String serverName, MetadataStore store) {
    return List.of(
        Gauge.builder("vte.metadata.degraded", store, m -> m.isDegraded() ? 1 : 0).tag("engine", serverName)
            .description("1 while the metadata backend is unreachable and cached descriptors are served")
            .register(registry),
        FunctionCounter.builder("vte.metadata.degradations", store, MetadataStore::degradedCount)
            .tag("engine", serverName).description("times the metadata store turned degraded").register(registry));
  }

  private void descriptorChanged() {
    LocalDescriptorBuilder d = descriptor;
    if (d != null && !closed) {
      d.changed();
      metadata.publish(d.build());
    }
  }

  /** Registers memory on every opened context, by device index. */
  private final class ContextMemory implements DeviceMemory {
    @Override
    public int deviceCount() {
      return contexts.size();
    }

    @Override
    public MemoryRegion register(int deviceIndex, long address, long length, int accessFlags) {
      return contexts.get(deviceIndex).registerMemory(address, length, accessFlags);
    }

    @Override
    public void deregister(int deviceIndex, MemoryRegion region) {
      contexts.get(deviceIndex).deregisterMemory(region);
    }
  }

  @Override
  public String serverName() {
    return server.serverName();
  }

  /** @return the logical name this node's segment is published under (default: the server name) */
  public String segmentName() {
    return options.getSegmentName() != null ? options.getSegmentName() : server.serverName();
  }

  /** @return true while the metadata store serves cached descriptors because its backend is unreachable */
  public boolean metadataDegraded() {
    MetadataStore m = metadata;
    return m != null && m.isDegraded();
  }

  /** @return the engine-layer counters */
  public EngineCounters counters() {
    return counters;
  }

  /** @return bytes of slices routed to a rail and not yet ended (0 when nothing is in flight) */
  public long railBacklogBytes() {
    return rails.outstandingBytes();
  }

  /** @return the verbs provider (soft verbs: its fault injector drives fault tests) */
  public VerbsProvider provider() {
    return provider;
  }

  /** @return the local contexts (one per device), for diagnostics and fault-injection tests */
  public List<LocalContext> contexts() {
    return List.copyOf(contexts);
  }

  @Override
  public Future<RegisteredBuffer> register(ByteBuffer buffer, String location) {
    if (buffer == null || !buffer.isDirect()) {
      return Future.failedFuture(new VteException(ErrorCode.INVALID_ARGUMENT,
          "memory must be off-heap: got " + (buffer == null ? "null" : "a heap ByteBuffer of " + buffer.capacity() + " bytes")));
    }
    return register(DirectMemory.address(buffer), buffer.capacity(), location);
  }

  @Override
  public Future<RegisteredBuffer> register(long address, long length, String location) {
    if (closed) {
      return closedFailure();
    }
    return vertx.executeBlocking(() -> memory.register(address, length, location), false);
  }

  @Override
  public Future<Void> unregister(RegisteredBuffer buffer) {
    if (closed) {
      return closedFailure();
    }
    return vertx.executeBlocking(() -> {
      memory.unregister(buffer);
      return null;
    }, false);
  }

  @Override
  public Future<SegmentHandle> openSegment(String name) {
    if (closed) {
      return closedFailure();
    }
    if (name == null || name.isBlank()) {
      return Future.failedFuture(new VteException(ErrorCode.INVALID_ARGUMENT, "segment name is blank: '" + name + "'"));
    }
    return segments.open(name).map(s -> s);
  }

  @Override
  public TransferBatch submit(List<TransferRequest> requests, TransferOptions transferOptions) {
    return submitter.submit(requests, transferOptions);
  }

  @Override
  public long allocateBatch(int capacity) {
    if (closed) {
      throw new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed");
    }
    return batchIds.allocate(capacity);
  }

  @Override
  public Future<Void> submit(long batchId, List<TransferRequest> requests) {
    return batchIds.submit(batchId, requests, r -> submitter.submit(r, new TransferOptions()));
  }

  @Override
  public TaskStatus status(long batchId, int taskIndex) {
    return batchIds.status(batchId, taskIndex);
  }

  @Override
  public TaskState batchStatus(long batchId) {
    return batchIds.batchStatus(batchId);
  }

  @Override
  public void freeBatch(long batchId) {
    batchIds.free(batchId);
  }

  @Override
  public Future<Void> notify(String segmentOrServer, String topic, Buffer payload) {
    if (closed) {
      return closedFailure();
    }
    if (payload == null || payload.length() > MAX_NOTIFICATION_BYTES || topic == null) {
      return Future.failedFuture(new VteException(ErrorCode.INVALID_ARGUMENT, "notification topic must be set and payload "
          + "at most " + MAX_NOTIFICATION_BYTES + " bytes, got topic " + topic + ", payload "
          + (payload == null ? "null" : payload.length() + " bytes")));
    }
    byte[] bytes = payload.getBytes();
    return openSegment(segmentOrServer).compose(seg -> {
      String peer = seg.serverName();
      Promise<Void> sent = Promise.promise();
      // One notification in flight per peer keeps them in order; the receiver re-orders as a safety net.
      notifyTails.compute(peer, (k, tail) -> {
        Future<Void> previous = tail == null ? Future.succeededFuture() : tail.transform(ar -> Future.succeededFuture());
        Future<Void> next = previous.compose(v -> send(peer, topic, bytes));
        next.onComplete(sent);
        return next;
      });
      return sent.future();
    });
  }

  private Future<Void> send(String peer, String topic, byte[] payload) {
    NotifyRequest request = NotifyRequest.newBuilder().setFrom(server.serverName()).setTopic(topic)
        .setPayload(ByteString.copyFrom(payload)).setSequence(notifications.nextSequence(peer))
        .setSenderEpoch(notifications.epoch()).build();
    return clients.notify(peer, request, options.getHandshakeDeadline()).compose(reply -> reply.getAccepted()
        ? Future.succeededFuture()
        : Future.failedFuture(new VteException(ErrorCode.PROTOCOL_ERROR, "peer " + peer
            + " refused notification " + request.getSequence() + " on topic '" + topic + "'")));
  }

  @Override
  public TransferEngine notificationHandler(Handler<Notification> handler) {
    notifications.handler(handler);
    return this;
  }

  @Override
  public synchronized Future<Void> close() {
    if (closing != null) {
      return closing;
    }
    closed = true;
    handshakeHandler.closing();
    if (submitter != null) {
      submitter.close();
    }
    if (notifications != null) {
      notifications.close();
    }
    if (meterRegistry != null) {
      meters.forEach(meterRegistry::remove);
    }
    Future<Void> f = Future.succeededFuture();
    if (metadata != null) {
      MetadataStore m = metadata;
      String name = segmentName();
      f = f.transform(v -> m.unpublish(name)).transform(v -> m.close());
    }
    if (server != null) {
      f = f.transform(v -> server.close());
    }
    f = f.transform(v -> {
      if (memory != null) {
        memory.clear();
      }
      List<Future<Void>> closes = new ArrayList<>();
      contexts.forEach(c -> closes.add(c.close()));
      return Future.join(closes).<Void>mapEmpty();
    });
    if (clients != null) {
      f = f.transform(v -> clients.close());
    }
    closing = f.transform(v -> {
      if (segments != null) {
        segments.clear();
      }
      if (provider != null) {
        provider.close();
      }
      return Future.<Void>succeededFuture();
    });
    return closing;
  }

  private static <T> Future<T> closedFailure() {
    return Future.failedFuture(new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed"));
  }
}

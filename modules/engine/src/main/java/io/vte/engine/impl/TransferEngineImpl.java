package io.vte.engine.impl;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.AsyncResult;
import io.vertx.core.Closeable;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonObject;
import io.vertx.micrometer.backends.BackendRegistries;
import io.vte.api.EngineDiagnostics;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.Notification;
import io.vte.api.PreparedTransfer;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TaskState;
import io.vte.api.TaskStatus;
import io.vte.api.TransferBatch;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.HandshakeExposure;
import io.vte.engine.ProviderConfig;
import io.vte.engine.impl.notify.NotificationDispatcher;
import io.vte.engine.impl.notify.NotificationSender;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.owner.NanoClock;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.OwnerRouter;
import io.vte.engine.impl.owner.PassiveConnectHandler;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.RailAffinity;
import io.vte.engine.impl.rail.RailSelector;
import io.vte.engine.impl.rail.SharedMemoryRouter;
import io.vte.engine.impl.segment.DescriptorPublisher;
import io.vte.engine.impl.segment.DeviceMemory;
import io.vte.engine.impl.segment.LocalDescriptorBuilder;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.SegmentCache;
import io.vte.engine.impl.shm.HostIdentity;
import io.vte.engine.impl.shm.SharedMemoryFile;
import io.vte.engine.impl.shm.SharedMemoryLookup;
import io.vte.engine.impl.shm.SharedMemoryRail;
import io.vte.engine.impl.submit.BatchIdTable;
import io.vte.engine.impl.submit.Slicer;
import io.vte.engine.impl.submit.TransferSubmitter;
import io.vte.engine.impl.submit.TransferTracker;
import io.vte.handshake.ConnectionFaults;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.HandshakeServer;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.MetadataStores;
import io.vte.metadata.StartDeadline;
import io.vte.verbs.Gid;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The engine: wires the verbs provider, the owner layer (one {@link LocalContext} per device), the
 * handshake service and client, the metadata store and the data path ({@link TransferSubmitter})
 * behind the public {@link TransferEngine} API. {@link #open} builds them, in order, into one
 * {@link EngineParts} and releases what it opened when a step fails; {@link #close} releases
 * everything through {@link EngineParts#close}.
 */
public final class TransferEngineImpl implements TransferEngine {

  /** This host, user and process, as same-host peers prove them (read once: /proc files). */
  private static final HostIdentity HOST = HostIdentity.current();

  /** Copier threads of the shared-memory rail (started at its first slice). */
  static final int SHARED_MEMORY_COPIERS =
      Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));

  /** Where {@link #allocate} creates its files. */
  private static final Path SHARED_MEMORY_DIRECTORY =
      Path.of(System.getProperty("vte.shm.dir", "/dev/shm"));

  private final Vertx vertx;
  private final EngineOptions options;
  private final EngineHandshakeHandler handshakeHandler = new EngineHandshakeHandler();
  private final EngineCounters counters = new EngineCounters();
  private final BatchIdTable batchIds = new BatchIdTable();

  /** Set once by {@link #open}, before the first publish; null until then and when open failed. */
  private volatile EngineParts parts;

  private volatile boolean closed;
  private Future<Void> closing;

  /**
   * Closes the engine when its Vert.x instance closes: Vert.x runs its close hooks first, while its
   * event loops and worker pools still run, and undeploys verticles after them, so the engine
   * releases its owners, servers, NIC threads and memory in its own order.
   */
  private final Closeable closeHook = completion -> close().onComplete(completion);

  private TransferEngineImpl(Vertx vertx, EngineOptions options) {
    this.vertx = vertx;
    this.options = options;
  }

  /**
   * Creates and starts an engine.
   *
   * @param vertx the Vert.x instance
   * @param options validated options
   * @return the running engine, or a typed failure after everything opened so far was closed (by
   *     {@link #open})
   */
  public static Future<TransferEngine> start(Vertx vertx, EngineOptions options) {
    Future<EngineOptions> resolved;
    if ("soft".equals(options.getTransport())
        && options.getDevices() != null
        && options.getDevices().isEmpty()) {
      // Listing the host's interfaces reads kernel tables: on a worker, never on the caller's event
      // loop.
      resolved = vertx.executeBlocking(options::withHostDefaults, false);
    } else {
      try {
        resolved = Future.succeededFuture(options.withHostDefaults());
      } catch (VteException e) {
        return Future.failedFuture(e);
      }
    }
    return resolved.compose(
        o -> {
          TransferEngineImpl engine = new TransferEngineImpl(vertx, o);
          return engine
              .open()
              .onSuccess(
                  v -> {
                    ((VertxInternal) vertx).addCloseHook(engine.closeHook);
                    HandshakeExposure.warnIfExposed(engine.serverName(), o.getAuth() != null);
                  })
              .<TransferEngine>map(engine);
        });
  }

  /**
   * Opens the engine's parts in order (the fabric, the metadata store, the data path), sets {@link
   * #parts} and publishes this node's descriptor; when a step fails, releases what the steps before
   * it opened.
   */
  private Future<Void> open() {
    Future<EngineParts.Fabric> fabric;
    try {
      options.validate();
      fabric = openFabric();
    } catch (VerbsException e) {
      return Future.failedFuture(new VteException(ErrorCode.DEVICE_UNAVAILABLE, e.getMessage(), e));
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    return fabric.compose(
        f ->
            vertx
                .executeBlocking(() -> localAffinity(f.contexts()), false)
                // no interface table: no rail is preferred
                .recover(e -> Future.succeededFuture(RailAffinity.NONE))
                .compose(
                    affinity ->
                        startMetadata(f.clients())
                            .transform(started -> openOn(f, affinity, started))));
  }

  /**
   * Wires the data path over an open fabric and a started (or failed) store, then publishes this
   * node's descriptor; a failure releases what was opened.
   */
  private Future<Void> openOn(
      EngineParts.Fabric f, RailAffinity affinity, AsyncResult<StartedMetadata> started) {
    if (started.failed()) {
      return f.close().transform(v -> Future.<Void>failedFuture(started.cause()));
    }
    MetadataStore metadata = started.result().store();
    EngineParts opened;
    try {
      opened = wire(f, metadata, affinity);
    } catch (RuntimeException e) {
      return metadata
          .close()
          .transform(v -> f.close())
          .transform(v -> Future.<Void>failedFuture(e));
    }
    parts = opened;
    String name = segmentName();
    // like the store's start, the first publish waits for a slow backend within the start deadline
    return started
        .result()
        .deadline()
        .retry("first publish of segment '" + name + "'", left -> opened.publisher().published())
        .recover(
            e -> {
              handshakeHandler.closing();
              return opened.close(vertx, name).transform(v -> Future.failedFuture(e));
            });
  }

  /**
   * Creates the provider and the client pool, starts the server and opens one context per device.
   *
   * @return the fabric; a failure after the provider was created closes what was opened
   * @throws VteException INVALID_CONFIGURATION or DEVICE_UNAVAILABLE before anything was opened
   */
  private Future<EngineParts.Fabric> openFabric() {
    VerbsProvider provider = createProvider(options.getTransport(), ProviderConfig.of(options));
    VerbsProvider fallback = null;
    HandshakeClientPool clients;
    try {
      if (!provider.isAvailable()) {
        throw new VteException(
            ErrorCode.DEVICE_UNAVAILABLE,
            "verbs provider '"
                + options.getTransport()
                + "' is unavailable ("
                + provider.unavailabilityCause()
                + "); use transport 'soft' on hosts without RDMA");
      }
      if (!options.getFallbackDevices().isEmpty()) {
        fallback =
            createProvider(ProviderConfig.FALLBACK_TRANSPORT, ProviderConfig.fallbackOf(options));
      }
      clients = HandshakeClientPool.create(vertx, EnginePartOptions.handshakeClient(options));
    } catch (RuntimeException e) {
      provider.close();
      if (fallback != null) {
        fallback.close();
      }
      throw e;
    }
    VerbsProvider fallbackProvider = fallback;
    return HandshakeServer.start(
            vertx, EnginePartOptions.handshakeServer(options), handshakeHandler)
        .transform(
            started -> {
              if (started.failed()) {
                return clients
                    .close()
                    .transform(
                        v -> {
                          provider.close();
                          if (fallbackProvider != null) {
                            fallbackProvider.close();
                          }
                          return Future.failedFuture(started.cause());
                        });
              }
              HandshakeServer server = started.result();
              List<LocalContext> contexts = new ArrayList<>();
              return openContexts(
                      index -> index < options.getDevices().size() ? provider : fallbackProvider,
                      server,
                      clients,
                      ProviderConfig.deviceNames(options),
                      contexts)
                  .transform(
                      ar -> {
                        EngineParts.Fabric fabric =
                            new EngineParts.Fabric(
                                provider, fallbackProvider, clients, server, contexts);
                        return ar.succeeded()
                            ? Future.succeededFuture(fabric)
                            : fabric.close().transform(v -> Future.failedFuture(ar.cause()));
                      });
            });
  }

  /**
   * @param transport the provider's name
   * @param config its options section ({@link ProviderConfig}), read by its field table
   * @return the verbs provider, configured with its devices
   * @throws VteException INVALID_CONFIGURATION naming the devices when the provider refuses them (a
   *     host that does not resolve, a device named twice)
   */
  private VerbsProvider createProvider(String transport, JsonObject config) {
    try {
      return VerbsProviders.create(transport, config);
    } catch (VerbsException | VteException e) {
      if (e instanceof VerbsException v && v.error() != VerbsError.INVALID_ARGUMENT) {
        throw e;
      }
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "engine option "
              + (!transport.equals(options.getTransport())
                  ? "'fallbackDevices' " + options.getFallbackDevices()
                  : options.getIbverbs() != null && "ibverbs".equals(transport)
                      ? "'ibverbs' " + options.getIbverbs().toJson().encode()
                      : "'devices' " + options.getDevices())
              + " is invalid: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Opens a context for each named device not yet in {@code contexts}, in order, adding each as it
   * opens, each with the provider of its device index.
   */
  private Future<Void> openContexts(
      IntFunction<VerbsProvider> provider,
      HandshakeServer server,
      HandshakeClientPool clients,
      List<String> names,
      List<LocalContext> contexts) {
    int index = contexts.size();
    if (index == names.size()) {
      return Future.succeededFuture();
    }
    VerbsContext device;
    try {
      device = provider.apply(index).open(names.get(index));
    } catch (VerbsException e) {
      return Future.failedFuture(
          new VteException(
              ErrorCode.DEVICE_UNAVAILABLE,
              "cannot open device '" + names.get(index) + "': " + e.getMessage(),
              e));
    }
    OwnerConfig config = OwnerConfig.from(options);
    VteException tooLarge = config.aboveLimits(device.queueLimits(), names.get(index));
    if (tooLarge != null) {
      device.close();
      return Future.failedFuture(tooLarge);
    }
    return LocalContext.open(
            vertx, device, config, server.serverName(), clients::connect, NanoClock.SYSTEM)
        .compose(
            ctx -> {
              contexts.add(ctx);
              return openContexts(provider, server, clients, names, contexts);
            });
  }

  /**
   * @param options engine options
   * @param contexts the opened devices
   * @return the slice size: the option, lowered to the largest message every device takes ({@code
   *     max_msg_sz}: 8 MiB on rxe), since one slice is one work request
   */
  static int sliceSize(EngineOptions options, List<LocalContext> contexts) {
    long size = options.getSliceSize();
    for (LocalContext ctx : contexts) {
      size = Math.min(size, ctx.device().queueLimits().maxMessageSize());
    }
    return (int) size;
  }

  /**
   * @param options engine options
   * @return how long a QP takes to give up on a peer that stopped answering: the encoded ACK
   *     timeout times the first try and the QP retries (RC gives up after timeout x (retry_cnt +
   *     1), as rdma_rxe and the fake libibverbs do)
   */
  static Duration qpFailureTime(EngineOptions options) {
    return Duration.ofNanos(
        (options.getQpRetryCount() + 1L)
            * (4096L << OwnerConfig.qpTimeoutExponent(options.getQpTimeout())));
  }

  /** A started metadata store and its start deadline, which the first publish shares. */
  private record StartedMetadata(MetadataStore store, StartDeadline deadline) {}

  /**
   * Creates and starts the metadata store on a worker context of its own, so that its etcd calls,
   * watch callbacks and timers never run on an owner's event loop.
   *
   * @param clients fetches peers' descriptors (p2p)
   * @return the started store, with the metadata start deadline begun before it started; a store
   *     that fails to start is closed
   */
  private Future<StartedMetadata> startMetadata(HandshakeClientPool clients) {
    MetadataOptions mo;
    try {
      mo = EnginePartOptions.metadata(options);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    ContextInternal metadataContext = ((VertxInternal) vertx).createWorkerContext();
    Promise<MetadataStore> created = Promise.promise();
    metadataContext.runOnContext(
        v -> {
          try {
            created.complete(
                MetadataStores.create(vertx, options.getMetadataUri(), mo, clients::getSegment));
          } catch (VteException e) {
            created.fail(e);
          }
        });
    StartDeadline startDeadline = StartDeadline.startingNow(vertx, mo.getStartDeadline());
    return created
        .future()
        .compose(
            store ->
                store
                    .start()
                    .transform(
                        ar ->
                            ar.succeeded()
                                ? Future.succeededFuture(new StartedMetadata(store, startDeadline))
                                : store.close().transform(v -> Future.failedFuture(ar.cause()))));
  }

  /**
   * Which peer devices each local device is wired to: reads the host's interfaces, so on a worker.
   */
  private static RailAffinity localAffinity(List<LocalContext> contexts) {
    List<Gid> gids = new ArrayList<>(contexts.size());
    contexts.forEach(c -> gids.add(c.portAttributes().gid()));
    return RailAffinity.ofLocalGids(gids);
  }

  /**
   * Builds the data path, notifications, meters and diagnostics over an open fabric and a started
   * store.
   */
  private EngineParts wire(
      EngineParts.Fabric fabric, MetadataStore metadata, RailAffinity affinity) {
    List<LocalContext> contexts = fabric.contexts();
    String serverName = fabric.server().serverName();
    List<String> names = new ArrayList<>();
    contexts.forEach(c -> names.add(c.deviceName()));
    MemoryRegistry memory =
        new MemoryRegistry(new ContextMemory(contexts), this::descriptorChanged);
    LocalDescriptorBuilder descriptor =
        new LocalDescriptorBuilder(
            segmentName(serverName),
            serverName,
            options.getTransport(),
            ProviderConfig.transports(options),
            names,
            i -> contexts.get(i).portAttributes(),
            memory);
    descriptor.describeSharedMemory(HOST, options.getAuth() == null);
    DescriptorPublisher publisher =
        new DescriptorPublisher(
            vertx.getOrCreateContext(), descriptor::version, descriptor::build, metadata::publish);
    SharedMemoryRail sharedMemory =
        new SharedMemoryRail(
            HOST,
            options.getRailHoldDown().toNanos(),
            SHARED_MEMORY_COPIERS,
            "vte-shm-copy-" + serverName + "-");
    SharedMemoryLookup sharedMemoryLookup =
        new SharedMemoryLookup(
            HOST, (server, request) -> fabric.clients().getSegment(server, request, null));
    SegmentCache segments =
        new SegmentCache(
            sharedMemoryLookup.around(metadata::lookup),
            sharedMemoryLookup.around(metadata::lookupFresh));
    metadata.setInvalidationHandler(segments::invalidate);
    long holdDown = options.getRailHoldDown().toNanos();
    RailSelector rails =
        new RailSelector(
            names,
            ProviderConfig.transports(options),
            3,
            holdDown,
            Math.max(holdDown, qpFailureTime(options).toNanos()),
            System::nanoTime,
            affinity);
    OwnerRouter owners = new OwnerRouter(contexts);
    rails.preferOwnersOnTheCallingThread(owners::ownerRunsHere);
    rails.preferPollingOwners(owners::ownerPolls);
    TransferSubmitter submitter =
        new TransferSubmitter(
            vertx,
            memory,
            segments,
            new TransferTracker.Services(
                new Slicer(sliceSize(options, contexts)),
                new SharedMemoryRouter(owners, sharedMemory),
                options.getRetryCount(),
                counters,
                segments::refresh,
                rails::railsFor,
                new PeerDeviceStates(segments, rails),
                sharedMemory));
    NotificationDispatcher notifications =
        new NotificationDispatcher(
            vertx.getOrCreateContext(),
            1024,
            options.getHandshakeDeadline().toMillis(),
            NotificationDispatcher.newEpoch());
    NotificationSender sender =
        new NotificationSender(
            vertx, fabric.clients(), serverName, notifications, options.getHandshakeDeadline());
    for (int i = 0; i < contexts.size(); i++) {
      int index = i;
      contexts
          .get(i)
          .addPortListener(
              (device, port, active) -> {
                rails.setLocalPortUp(index, active);
                descriptorChanged();
              });
    }
    handshakeHandler.bind(new PassiveConnectHandler(contexts), descriptor, notifications);
    EngineDiagnostics diagnostics =
        new EngineDiagnosticsImpl(
            serverName,
            segmentName(serverName),
            options.getMetadataUri(),
            metadata,
            contexts,
            rails,
            counters,
            fabric.provider(),
            sharedMemory);
    EngineParts.Meters meters = EngineParts.Meters.NONE;
    MeterRegistry meterRegistry = BackendRegistries.getDefaultNow();
    if (meterRegistry != null) {
      // the segment name: it stays across restarts when configured, where the server name's port
      // may not
      String label = segmentName(serverName);
      List<Meter> list = new ArrayList<>(counters.bindTo(meterRegistry, label));
      list.addAll(OwnerMeters.bind(meterRegistry, label, contexts));
      list.addAll(DeviceMeters.bind(meterRegistry, label, contexts));
      list.addAll(metadataMeters(meterRegistry, label, metadata));
      meters =
          new EngineParts.Meters(
              meterRegistry,
              list,
              RailMeters.start(vertx, meterRegistry, label, diagnostics::rails));
    }
    return new EngineParts(
        fabric,
        metadata,
        memory,
        descriptor,
        publisher,
        segments,
        rails,
        submitter,
        notifications,
        sender,
        meters,
        diagnostics,
        sharedMemory);
  }

  /**
   * @return {@code vte.metadata.degraded} (1 while the backend is unreachable and cached
   *     descriptors are served, else 0) and {@code vte.metadata.degradations} (times the store
   *     turned degraded)
   */
  static List<Meter> metadataMeters(
      MeterRegistry registry, String serverName, MetadataStore store) {
    return List.of(
        Gauge.builder("vte.metadata.degraded", store, m -> m.isDegraded() ? 1 : 0)
            .tag("engine", serverName)
            .description(
                "1 while the metadata backend is unreachable and cached descriptors are served")
            .register(registry),
        FunctionCounter.builder("vte.metadata.degradations", store, MetadataStore::degradedCount)
            .tag("engine", serverName)
            .description("times the metadata store turned degraded")
            .register(registry));
  }

  private void descriptorChanged() {
    EngineParts p = parts;
    if (p != null && !closed) {
      p.descriptor().changed();
      p.publisher().changed();
    }
  }

  /**
   * @return completes with {@code value} once a descriptor with the change just made is in the
   *     metadata store, so a peer reading it finds the change; also when that put failed (the
   *     backend is away: the store keeps the descriptor and publishes it when the backend returns,
   *     and the change itself stands)
   */
  private <T> Future<T> whenPublished(T value) {
    return parts.publisher().published().transform(ar -> Future.succeededFuture(value));
  }

  /** Registers memory on every opened context, by device index. */
  private record ContextMemory(List<LocalContext> contexts) implements DeviceMemory {
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
    return parts.fabric().server().serverName();
  }

  /**
   * @return the logical name this node's segment is published under (default: the server name)
   */
  public String segmentName() {
    return segmentName(serverName());
  }

  private String segmentName(String serverName) {
    return options.getSegmentName() != null ? options.getSegmentName() : serverName;
  }

  /**
   * @return true while the metadata store serves cached descriptors because its backend is
   *     unreachable
   */
  public boolean metadataDegraded() {
    return parts.metadata().isDegraded();
  }

  /**
   * @return the engine's metadata store, started (for diagnostics and tests)
   */
  public MetadataStore metadataStore() {
    return parts.metadata();
  }

  /**
   * @return the engine-layer counters
   */
  public EngineCounters counters() {
    return counters;
  }

  /**
   * @return bytes of slices routed to a rail and not yet ended (0 when nothing is in flight)
   */
  public long railBacklogBytes() {
    return parts.rails().outstandingBytes();
  }

  /**
   * @return the verbs provider (soft verbs: its fault injector drives fault tests)
   */
  public VerbsProvider provider() {
    return parts.fabric().provider();
  }

  /**
   * @return the descriptor as this node publishes it to the metadata store now
   */
  public io.vte.handshake.proto.SegmentDescriptor descriptorForStore() {
    return parts.descriptor().build();
  }

  /**
   * @return the same-host shared-memory rail
   */
  public SharedMemoryRail sharedMemoryRail() {
    return parts.sharedMemory();
  }

  /**
   * @return the local contexts (one per device), for the engine's own tests
   */
  public List<LocalContext> contexts() {
    return parts.fabric().contexts();
  }

  @Override
  public EngineDiagnostics diagnostics() {
    return parts.diagnostics();
  }

  @Override
  public Future<RegisteredBuffer> register(ByteBuffer buffer, String location) {
    if (buffer == null || !buffer.isDirect()) {
      return Future.failedFuture(
          new VteException(
              ErrorCode.INVALID_ARGUMENT,
              "memory must be off-heap: got "
                  + (buffer == null
                      ? "null"
                      : "a heap ByteBuffer of " + buffer.capacity() + " bytes")));
    }
    if (closed) {
      return closedFailure();
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .executeBlocking(() -> memory.register(buffer, location), false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<RegisteredBuffer> register(long address, long length, String location) {
    if (closed) {
      return closedFailure();
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .executeBlocking(() -> memory.register(address, length, location), false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<RegisteredBuffer> allocate(long size, String location) {
    if (closed) {
      return closedFailure();
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .executeBlocking(
            () -> {
              MemoryRegistry.checkLocation(location);
              SharedMemoryFile.removeOrphans(SHARED_MEMORY_DIRECTORY, HOST.uid());
              SharedMemoryFile file = SharedMemoryFile.create(SHARED_MEMORY_DIRECTORY, size, HOST);
              try {
                return memory.register(file, location);
              } catch (RuntimeException e) {
                file.revoke();
                throw e;
              }
            },
            false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<Void> unregister(RegisteredBuffer buffer) {
    if (closed) {
      return closedFailure();
    }
    if (buffer == null) {
      return Future.failedFuture(
          new VteException(ErrorCode.INVALID_ARGUMENT, "the buffer to unregister is null"));
    }
    MemoryRegistry memory = parts.memory();
    return vertx
        .<Void>executeBlocking(
            () -> {
              memory.unregister(buffer);
              return null;
            },
            false)
        .compose(this::whenPublished);
  }

  @Override
  public Future<SegmentHandle> openSegment(String name) {
    if (closed) {
      return closedFailure();
    }
    if (name == null || name.isBlank()) {
      return Future.failedFuture(
          new VteException(ErrorCode.INVALID_ARGUMENT, "segment name is blank: '" + name + "'"));
    }
    return parts.segments().open(name).map(s -> s);
  }

  @Override
  public TransferBatch submit(List<TransferRequest> requests, TransferOptions transferOptions) {
    return parts.submitter().submit(requests, transferOptions);
  }

  /**
   * @return submit records made so far (a request submitted alone runs on a free one when there is)
   */
  int submitRecordsMade() {
    return parts.submitter().submitRecordsMade();
  }

  @Override
  public Future<PreparedTransfer> prepare(
      List<TransferRequest> requests, TransferOptions transferOptions) {
    return parts.submitter().prepare(requests, transferOptions);
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
    TransferSubmitter submitter = parts.submitter();
    return batchIds.submit(
        batchId, requests, r -> submitter.submitTracked(r, new TransferOptions()));
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
    try {
      NotificationSender.check(topic, payload);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    byte[] bytes = payload.getBytes();
    NotificationSender sender = parts.notificationSender();
    return openSegment(segmentOrServer).compose(seg -> sender.send(seg.serverName(), topic, bytes));
  }

  /**
   * @return the faults this engine's handshake server injects into its own connections
   */
  ConnectionFaults controlPlaneFaults() {
    return parts.fabric().server().faults();
  }

  /**
   * @return incoming notifications dropped as duplicates since the engine started
   */
  long notificationDuplicatesDropped() {
    return parts.notifications().duplicatesDropped();
  }

  /**
   * @return notifications this engine sent again after an unanswered attempt
   */
  long notificationsResent() {
    return parts.notificationSender().resent();
  }

  @Override
  public TransferEngine notificationHandler(Handler<Notification> handler) {
    parts.notifications().handler(handler);
    return this;
  }

  @Override
  public synchronized Future<Void> close() {
    if (closing != null) {
      return closing;
    }
    closed = true;
    ((VertxInternal) vertx).removeCloseHook(closeHook);
    handshakeHandler.closing();
    EngineParts p = parts;
    // without parts, open failed and released what it had opened
    closing = p == null ? Future.succeededFuture() : p.close(vertx, segmentName());
    return closing;
  }

  private static <T> Future<T> closedFailure() {
    return Future.failedFuture(new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed"));
  }
}

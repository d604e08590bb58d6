package io.vte.engine.impl;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.micrometer.backends.BackendRegistries;
import io.vte.api.EngineDiagnostics;
import io.vte.api.EngineOptions;
import io.vte.engine.ProviderConfig;
import io.vte.engine.impl.metrics.DeviceMeters;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.metrics.EngineLabel;
import io.vte.engine.impl.metrics.OwnerMeters;
import io.vte.engine.impl.metrics.PortCounterMeters;
import io.vte.engine.impl.metrics.RailMeters;
import io.vte.engine.impl.notify.NotificationDispatcher;
import io.vte.engine.impl.notify.NotificationSender;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.OwnerRouter;
import io.vte.engine.impl.owner.PassiveConnectHandler;
import io.vte.engine.impl.peer.PeerTransports;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.RailAffinity;
import io.vte.engine.impl.rail.RailSelector;
import io.vte.engine.impl.segment.DescriptorPublisher;
import io.vte.engine.impl.segment.DeviceMemory;
import io.vte.engine.impl.segment.LocalDescriptorBuilder;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.SegmentCache;
import io.vte.engine.impl.shm.HostIdentity;
import io.vte.engine.impl.shm.SharedMemoryLookup;
import io.vte.engine.impl.shm.SharedMemoryRail;
import io.vte.engine.impl.submit.Slicer;
import io.vte.engine.impl.submit.TrackerServices;
import io.vte.engine.impl.submit.TransferSubmitter;
import io.vte.metadata.MetadataStore;
import io.vte.verbs.MemoryRegion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the parts of an engine over its open fabric and started metadata store, each complete over
 * the ones before it: registered memory and the descriptor, the same-host rail and the verbs rails
 * (each rail bound to its owner), the data path, notifications, diagnostics and meters.
 */
final class EngineWiring {

  /** This host, user and process, as same-host peers prove them (read once: /proc files). */
  static final HostIdentity HOST = HostIdentity.current();

  /** Copier threads of the shared-memory rail (started at its first slice). */
  static final int SHARED_MEMORY_COPIERS =
      Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));

  private final Vertx vertx;
  private final EngineOptions options;
  private final EngineHandshakeHandler handshakeHandler;
  private final EngineCounters counters = new EngineCounters();

  /**
   * @param vertx the Vert.x instance
   * @param options the engine's options, host defaults filled in
   * @param handshakeHandler bound to the built parts (passive connects, segment queries,
   *     notifications)
   */
  EngineWiring(Vertx vertx, EngineOptions options, EngineHandshakeHandler handshakeHandler) {
    this.vertx = vertx;
    this.options = options;
    this.handshakeHandler = handshakeHandler;
  }

  /**
   * @param options engine options
   * @param serverName the handshake server's name
   * @return the logical name the node's segment is published under (default: the server name)
   */
  static String segmentName(EngineOptions options, String serverName) {
    return options.getSegmentName() != null ? options.getSegmentName() : serverName;
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

  /**
   * Builds the data path, notifications, meters and diagnostics over an open fabric and a started
   * store.
   */
  EngineParts wire(EngineParts.Fabric fabric, MetadataStore metadata, RailAffinity affinity) {
    List<LocalContext> contexts = fabric.contexts();
    String serverName = fabric.server().serverName();
    List<String> names = new ArrayList<>();
    contexts.forEach(c -> names.add(c.deviceName()));
    DescriptorChanges changes = new DescriptorChanges();
    MemoryRegistry memory = new MemoryRegistry(new ContextMemory(contexts), changes);
    LocalDescriptorBuilder descriptor =
        new LocalDescriptorBuilder(
            segmentName(options, serverName),
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
    changes.bind(descriptor, publisher);
    SharedMemoryRail sharedMemory =
        new SharedMemoryRail(
            HOST,
            options.getRailHoldDown().toNanos(),
            SHARED_MEMORY_COPIERS,
            "vte-shm-copy-" + serverName + "-");
    SharedMemoryLookup sharedMemoryLookup =
        new SharedMemoryLookup(
            HOST, (server, request) -> fabric.clients().getSegment(server, request, null));
    PeerTransports peers = PeerTransports.load(vertx);
    SegmentCache segments =
        new SegmentCache(
            peers.around(sharedMemoryLookup.around(metadata::lookup)),
            peers.around(sharedMemoryLookup.around(metadata::lookupFresh)));
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
            affinity,
            new OwnerRouter(contexts)::carrierOf);
    TransferSubmitter submitter =
        new TransferSubmitter(
            vertx,
            memory,
            segments,
            new TrackerServices(
                new Slicer(sliceSize(options, contexts)),
                List.of(sharedMemory, peers, peers.except(rails)),
                options.getRetryCount(),
                counters,
                segments::refresh,
                new PeerDeviceStates(segments, rails)));
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
                changes.run();
              });
    }
    handshakeHandler.bind(new PassiveConnectHandler(contexts), descriptor, notifications);
    MeterRegistry meterRegistry = BackendRegistries.getDefaultNow();
    String label = EngineLabel.base(options.getSegmentName(), serverName, options.getRpcPort());
    Gauge info =
        meterRegistry == null
            ? null
            : EngineLabel.claim(meterRegistry, label, serverName, segmentName(options, serverName));
    if (info != null) {
      label = info.getId().getTag("engine");
    }
    EngineDiagnostics diagnostics =
        new EngineDiagnosticsImpl(
            serverName,
            segmentName(options, serverName),
            label,
            options.getMetadataUri(),
            metadata,
            contexts,
            rails,
            counters,
            fabric.provider(),
            sharedMemory);
    EngineParts.Meters meters = EngineParts.Meters.NONE;
    if (meterRegistry != null) {
      List<Meter> list = new ArrayList<>(List.of(info));
      list.addAll(counters.bindTo(meterRegistry, label));
      list.addAll(OwnerMeters.bind(meterRegistry, label, contexts));
      list.addAll(DeviceMeters.bind(meterRegistry, label, contexts));
      list.addAll(metadataMeters(meterRegistry, label, metadata));
      meters =
          new EngineParts.Meters(
              meterRegistry,
              list,
              RailMeters.start(vertx, meterRegistry, label, diagnostics::rails),
              PortCounterMeters.start(vertx, meterRegistry, label, contexts));
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
        sharedMemory,
        peers,
        counters);
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

  /**
   * Tells the descriptor and its publisher that registered memory or a port changed. Memory is
   * registered through a {@link MemoryRegistry} the descriptor is built from, so the two are made
   * in that order and this relay is bound once both exist, before the engine is handed out.
   */
  private static final class DescriptorChanges implements Runnable {

    private volatile LocalDescriptorBuilder descriptor;
    private volatile DescriptorPublisher publisher;

    void bind(LocalDescriptorBuilder descriptor, DescriptorPublisher publisher) {
      this.descriptor = descriptor;
      this.publisher = publisher;
    }

    @Override
    public void run() {
      DescriptorPublisher p = publisher;
      if (p != null) {
        descriptor.changed();
        p.changed();
      }
    }
  }
}

package io.vte.engine.impl;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.engine.ProviderConfig;
import io.vte.engine.VertxInternals;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.owner.NanoClock;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.connect.PeerLiveness;
import io.vte.engine.impl.rail.RailAffinity;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.HandshakeServer;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.MetadataStores;
import io.vte.metadata.StartDeadline;
import io.vte.verbs.Gid;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Opens an engine's parts in order, each built complete over the ones before it: the fabric
 * (provider, handshake server and client pool, a {@link LocalContext} per device), the metadata
 * store, then the data path, notifications, meters and diagnostics; and publishes the node's
 * descriptor. A failed step releases what the steps before it opened. Used once, by {@link
 * TransferEngineImpl#start}.
 */
final class EngineOpener {

  private final Vertx vertx;
  private final EngineOptions options;
  private final EngineHandshakeHandler handshakeHandler;

  /** What the engine knows of its peers' processes, shared by every local device's owners. */
  private final PeerLiveness peers = new PeerLiveness(OwnerConfig.PEER_PROBE_AFTER.toNanos());

  /**
   * @param vertx the Vert.x instance
   * @param options the engine's options, host defaults filled in
   * @param handshakeHandler answers the handshake server's calls: bound to the parts once they are
   *     built, told when the engine closes
   */
  EngineOpener(Vertx vertx, EngineOptions options, EngineHandshakeHandler handshakeHandler) {
    this.vertx = vertx;
    this.options = options;
    this.handshakeHandler = handshakeHandler;
  }

  /**
   * Opens the engine's parts in order (the fabric, the metadata store, the data path) and publishes
   * this node's descriptor; when a step fails, releases what the steps before it opened.
   *
   * @return the parts, open and published, or a typed failure after everything opened so far was
   *     closed
   */
  Future<EngineParts> open() {
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
  private Future<EngineParts> openOn(
      EngineParts.Fabric f, RailAffinity affinity, AsyncResult<StartedMetadata> started) {
    if (started.failed()) {
      return f.close().transform(v -> Future.<EngineParts>failedFuture(started.cause()));
    }
    MetadataStore metadata = started.result().store();
    EngineParts opened;
    try {
      opened = new EngineWiring(vertx, options, handshakeHandler).wire(f, metadata, affinity);
    } catch (RuntimeException e) {
      return metadata
          .close()
          .transform(v -> f.close())
          .transform(v -> Future.<EngineParts>failedFuture(e));
    }
    String name = EngineWiring.segmentName(options, f.server().serverName());
    // like the store's start, the first publish waits for a slow backend within the start deadline
    return started
        .result()
        .deadline()
        .retry("first publish of segment '" + name + "'", left -> opened.publisher().published())
        .transform(
            published -> {
              if (published.succeeded()) {
                return Future.succeededFuture(opened);
              }
              handshakeHandler.closing();
              return opened
                  .close(vertx, name)
                  .transform(v -> Future.failedFuture(published.cause()));
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
    VteException tooLarge =
        config.aboveLimits(device.queueLimits(), names.get(index), device.checksPayloadIntegrity());
    if (tooLarge != null) {
      device.close();
      return Future.failedFuture(tooLarge);
    }
    return LocalContext.open(
            vertx, device, config, server.serverName(), clients::connect, NanoClock.SYSTEM, peers)
        .compose(
            ctx -> {
              contexts.add(ctx);
              return openContexts(provider, server, clients, names, contexts);
            });
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
    Context metadataContext = VertxInternals.createWorkerContext(vertx);
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
}

package io.vte.engine.impl;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.EngineDiagnostics;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.metrics.PortCounterMeters;
import io.vte.engine.impl.metrics.RailMeters;
import io.vte.engine.impl.notify.NotificationDispatcher;
import io.vte.engine.impl.notify.NotificationSender;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.peer.PeerTransports;
import io.vte.engine.impl.rail.RailSelector;
import io.vte.engine.impl.segment.DescriptorPublisher;
import io.vte.engine.impl.segment.LocalDescriptorBuilder;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.SegmentCache;
import io.vte.engine.impl.shm.SharedMemoryRail;
import io.vte.engine.impl.submit.TransferSubmitter;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.HandshakeServer;
import io.vte.metadata.MetadataStore;
import io.vte.verbs.VerbsProvider;
import java.util.ArrayList;
import java.util.List;

/**
 * The parts of an open engine, all present, built once by {@link EngineOpener#open()}; {@link
 * #close} releases them in order.
 *
 * @param fabric the verbs provider, the handshake client and server, and the local devices
 * @param metadata the metadata store, started, holding this node's descriptor
 * @param memory registered memory
 * @param descriptor this node's segment descriptor
 * @param publisher puts the descriptor into the metadata store after changes
 * @param segments the peer segments opened so far
 * @param rails rail selection and health
 * @param submitter the data path's front door
 * @param notifications incoming notification ordering
 * @param notificationSender outgoing notifications, in order per peer
 * @param meters the engine's meters and the registry they are in
 * @param diagnostics what the engine shows of itself
 * @param sharedMemory the same-host rail
 * @param peers the transports to peers of other kinds (plug-ins)
 * @param counters the engine-layer counters
 */
record EngineParts(
    Fabric fabric,
    MetadataStore metadata,
    MemoryRegistry memory,
    LocalDescriptorBuilder descriptor,
    DescriptorPublisher publisher,
    SegmentCache segments,
    RailSelector rails,
    TransferSubmitter submitter,
    NotificationDispatcher notifications,
    NotificationSender notificationSender,
    Meters meters,
    EngineDiagnostics diagnostics,
    SharedMemoryRail sharedMemory,
    PeerTransports peers,
    EngineCounters counters) {

  /**
   * Releases everything: fails what is submitted, stops notifications and removes the meters, stops
   * publishing, withdraws the descriptor and closes the metadata store, drops the registrations and
   * cached segments, then closes the fabric.
   *
   * @param vertx runs the release of the registrations on a worker: revoking shared memory waits
   *     for peers' copies in progress (up to 5 s), which must not happen on an event loop
   * @param segmentName the name the descriptor is published under
   * @return completes when everything is released, also when a step failed
   */
  Future<Void> close(Vertx vertx, String segmentName) {
    submitter.close();
    notifications.close();
    meters.remove();
    return sharedMemory
        .close()
        .transform(v -> peers.close())
        .transform(v -> publisher.close())
        .transform(v -> metadata.unpublish(segmentName))
        .transform(v -> metadata.close())
        .transform(v -> vertx.executeBlocking(this::clearRegistrations, false))
        .transform(v -> fabric.close());
  }

  private Void clearRegistrations() {
    memory.clear();
    segments.clear();
    return null;
  }

  /**
   * What opens first: the verbs provider, the handshake client pool and server, and one context per
   * local device (their NIC paths need the server's name).
   *
   * @param provider the verbs provider of {@code devices}
   * @param fallback the soft verbs provider of {@code fallbackDevices}, null when there are none
   * @param clients the handshake client pool
   * @param server the handshake server
   * @param contexts the local contexts, by device index
   */
  record Fabric(
      VerbsProvider provider,
      VerbsProvider fallback,
      HandshakeClientPool clients,
      HandshakeServer server,
      List<LocalContext> contexts) {

    /** Copies the contexts. */
    Fabric {
      contexts = List.copyOf(contexts);
    }

    /**
     * Stops the server, closes every context (each drains its owners), then the client pool and the
     * providers.
     *
     * @return completes when everything is released, also when a step failed
     */
    Future<Void> close() {
      return Future.<Void>succeededFuture()
          .transform(v -> server.close())
          .transform(
              v -> {
                List<Future<Void>> closes = new ArrayList<>();
                contexts.forEach(c -> closes.add(c.close()));
                return Future.join(closes).<Void>mapEmpty();
              })
          .transform(v -> clients.close())
          .transform(
              v -> {
                provider.close();
                if (fallback != null) {
                  fallback.close();
                }
                return Future.<Void>succeededFuture();
              });
    }
  }

  /**
   * Meters registered for the engine.
   *
   * @param registry where they are registered, null when no registry was there
   * @param list the meters
   * @param rails the rails' up gauges, null without a registry
   * @param ports the NIC's port counters, null without a registry or counters
   */
  record Meters(
      MeterRegistry registry, List<Meter> list, RailMeters rails, PortCounterMeters ports) {

    /** No registry, no meters. */
    static final Meters NONE = new Meters(null, List.of(), null, null);

    /** Copies the list. */
    Meters {
      list = List.copyOf(list);
    }

    /** Stops the rails' refresh and removes the meters from their registry. */
    void remove() {
      if (rails != null) {
        rails.close();
      }
      if (ports != null) {
        ports.close();
      }
      if (registry != null) {
        list.forEach(registry::remove);
      }
    }
  }
}

package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.engine.impl.EngineCounters;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.Transport;
import io.vte.engine.impl.segment.PeerSegment;
import java.util.List;
import java.util.function.Function;

/**
 * What a {@link TransferTracker} needs from the engine, shared by all trackers of an engine.
 *
 * @param slicer cuts requests
 * @param transports the ways slices travel, in order of preference (the same-host rail before the
 *     verbs rails): a slice takes the first with a usable route
 * @param retryCount retries per slice on another route
 * @param counters engine counters
 * @param freshSegment asked for the newest descriptor of a segment whose keys the peer refused (the
 *     peer may have restarted or re-registered the buffer): a newer cached one, else one read from
 *     the metadata backend
 * @param peerDevices asked about the peer's devices after a failure implicated one of them
 */
public record TrackerServices(
    Slicer slicer,
    List<Transport> transports,
    int retryCount,
    EngineCounters counters,
    Function<PeerSegment, Future<PeerSegment>> freshSegment,
    PeerDeviceStates peerDevices) {

  /** Copies the transports. */
  public TrackerServices {
    transports = List.copyOf(transports);
  }
}

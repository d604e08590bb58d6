package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.api.Integrity;
import io.vte.api.TransferOptions;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.engine.impl.rail.Transport;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.verbs.WcStatus;
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
 * @param integrity the engine's {@code integrity} option: slices check their bytes end to end
 *     unless a batch says otherwise
 */
public record TrackerServices(
    Slicer slicer,
    List<Transport> transports,
    int retryCount,
    EngineCounters counters,
    Function<PeerSegment, Future<PeerSegment>> freshSegment,
    PeerDeviceStates peerDevices,
    boolean integrity) {

  /** Extra attempts of a slice whose endpoint was retired under it. */
  static final int RETIRED_ALLOWANCE = 8;

  /** Copies the transports. */
  public TrackerServices {
    transports = List.copyOf(transports);
  }

  /** Services of an engine whose {@code integrity} option is {@code none}. */
  public TrackerServices(
      Slicer slicer,
      List<Transport> transports,
      int retryCount,
      EngineCounters counters,
      Function<PeerSegment, Future<PeerSegment>> freshSegment,
      PeerDeviceStates peerDevices) {
    this(slicer, transports, retryCount, counters, freshSegment, peerDevices, false);
  }

  /**
   * @param options a batch's options
   * @return true when its slices check their bytes end to end: its own integrity, else the engine's
   */
  boolean checksIntegrity(TransferOptions options) {
    Integrity own = options.getIntegrity();
    return own == null ? integrity : own == Integrity.CRC32C;
  }

  /**
   * A slice flushed because its endpoint was retired for someone else's failure, or turned back
   * because its rail is down (locally, or the peer refused the handshake with
   * DEVICE_DOWN/SHUTTING_DOWN), did nothing wrong: it gets {@link #RETIRED_ALLOWANCE} extra
   * attempts on top of {@code retryCount} (still bounded; a down rail is held down at once, so each
   * such attempt takes rails out of the choice). A pinned request's slice is not retried.
   *
   * @param status the slice's failure, a {@link SliceStatus}
   * @param pinned the request is pinned to one rail
   * @return how many attempts the slice may have made and still be retried
   */
  int retryBudget(int status, boolean pinned) {
    if (pinned) {
      return 0;
    }
    if (status == WcStatus.INTEGRITY_ERR.code()) {
      return Math.min(1, retryCount); // damaged once: one more rail, then DATA_CORRUPTED
    }
    return status == SliceStatus.ENDPOINT_RETIRED
            || status == SliceStatus.RAIL_DOWN
            || status == SliceStatus.PEER_DEVICE_DOWN
        ? retryCount + RETIRED_ALLOWANCE
        : retryCount;
  }
}

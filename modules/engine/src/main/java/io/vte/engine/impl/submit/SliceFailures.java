package io.vte.engine.impl.submit;

import io.vte.api.ErrorCode;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.verbs.WcStatus;

/** The typed causes a request fails with when a slice failed or found no route. */
final class SliceFailures {

  private SliceFailures() {}

  /**
   * @param local the request's local buffer
   * @param segment the peer segment it goes to
   * @param request the request
   * @param lastFailure why the routes were given up, or null
   * @return NO_RAIL when no failure explains it (ports down, peer devices inactive, no key), else
   *     the failure's own code (e.g. PEER_UNREACHABLE for a dead peer): the routes are paused
   *     because of it
   */
  static VteException noRoute(
      LocalBuffer local, PeerSegment segment, TransferRequest request, VteException lastFailure) {
    String what =
        "no usable rail from "
            + local.deviceCount()
            + " local device(s) to "
            + segment
            + " for remote address 0x"
            + Long.toHexString(request.remoteAddress());
    if (lastFailure == null) {
      return new VteException(ErrorCode.NO_RAIL, what);
    }
    return new VteException(
        lastFailure.code(),
        what + ": the rails are paused after failures, the last: " + lastFailure.getMessage(),
        lastFailure);
  }

  /**
   * @return the typed cause of a slice's failure, naming the request, the slice and its route
   */
  static VteException causeOf(TransferRequest request, Slice slice, int status, Throwable cause) {
    String where =
        request.opcode()
            + " of "
            + slice.length()
            + " B at remote 0x"
            + Long.toHexString(slice.remoteAddress())
            + " via "
            + slice.route()
            + " after "
            + slice.attempts()
            + " attempt(s)";
    if (status == WcStatus.INTEGRITY_ERR.code()) {
      return new VteException(
          ErrorCode.DATA_CORRUPTED,
          "CRC32C mismatch: the bytes that landed are not the bytes sent, in "
              + request.opcode()
              + " of segment '"
              + request.segment().name()
              + "' at remote 0x"
              + Long.toHexString(slice.remoteAddress())
              + " (offset "
              + (slice.remoteAddress() - request.remoteAddress())
              + " of the request, "
              + slice.length()
              + " B) via rail "
              + slice.route()
              + " after "
              + slice.attempts()
              + " attempt(s)",
          cause);
    }
    if (status == WcStatus.REM_ACCESS_ERR.code()) {
      return new VteException(
          ErrorCode.REMOTE_ACCESS_DENIED,
          "peer refused " + where + " (its keys may have changed: open the segment again)",
          cause);
    }
    if (status == SliceStatus.ENGINE_CLOSED) {
      return new VteException(ErrorCode.ENGINE_CLOSED, "engine closed during " + where, cause);
    }
    if ((slice.route().typedFailures()
            || status == SliceStatus.FENCE_FAILED
            || status == SliceStatus.PEER_GONE)
        && cause instanceof VteException) {
      VteException e = (VteException) cause;
      return new VteException(e.code(), where + ": " + e.getMessage(), e);
    }
    if (status == SliceStatus.HANDSHAKE_FAILED) {
      ErrorCode code =
          cause instanceof VteException
              ? ((VteException) cause).code()
              : ErrorCode.PEER_UNREACHABLE;
      return new VteException(
          code,
          "handshake failed for "
              + where
              + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage()),
          cause);
    }
    return new VteException(
        ErrorCode.TRANSFER_FAILED, where + ", last status " + SliceStatus.name(status), cause);
  }
}

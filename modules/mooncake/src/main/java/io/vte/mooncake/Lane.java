package io.vte.mooncake;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * One connection to a Mooncake data listener, carrying one request at a time as Mooncake's protocol
 * requires, and reused for the next one (Mooncake's connection pool keeps such lanes too; by
 * default it opens a connection per request). Every reply byte is checked against the request in
 * flight: a status frame without Mooncake's magic or bytes nobody asked for are PROTOCOL_ERROR, a
 * rejection REMOTE_ACCESS_DENIED, a close mid-request TRANSFER_FAILED; each closes the lane.
 * Confined to the transport's event loop.
 */
final class Lane {

  private final LanePool pool;
  private final NetSocket socket;
  private final FrameAccumulator status = new FrameAccumulator(StatusFrame.BYTES);
  private Slice current;
  private boolean awaitingStatus;
  private boolean payloadSent;
  private boolean acked;
  private int received;
  private boolean closed;

  Lane(LanePool pool, NetSocket socket) {
    this.pool = pool;
    this.socket = socket;
    socket.handler(this::onBytes);
    socket.closeHandler(v -> onClosed());
  }

  /**
   * @return whether it can take a request
   */
  boolean idle() {
    return current == null && !closed;
  }

  /** Sends {@code slice}'s header (and a WRITE's payload, straight from registered memory). */
  void start(Slice slice) {
    current = slice;
    slice.lane = this;
    received = 0;
    payloadSent = false;
    acked = false;
    awaitingStatus = slice.v2;
    socket.write(
        DataHeader.of(slice.write, slice.remoteAddress, slice.length, slice.v2)
            .encodeTo(Buffer.buffer(DataHeader.BYTES)));
    if (slice.write) {
      socket
          .write(OffHeap.view(slice.memory, slice.memoryOffset, slice.length))
          .onComplete(
              sent -> {
                if (current != slice) {
                  return;
                }
                if (sent.failed()) {
                  fail(
                      new VteException(
                          ErrorCode.TRANSFER_FAILED,
                          slice.describe() + ": sending the payload failed: " + sent.cause(),
                          sent.cause()));
                } else {
                  payloadSent = true;
                  if (!slice.v2 || acked) {
                    finish();
                  }
                }
              });
    }
  }

  private void onBytes(Buffer chunk) {
    int pos = 0;
    while (pos < chunk.length() && !closed) {
      Slice s = current;
      if (s == null || (s.write && !awaitingStatus)) {
        fail(
            new VteException(
                ErrorCode.PROTOCOL_ERROR,
                (s == null ? "no request outstanding" : s.describe())
                    + ": the target sent "
                    + (chunk.length() - pos)
                    + " unexpected bytes"));
        return;
      }
      if (awaitingStatus) {
        pos += status.take(chunk, pos);
        if (status.complete()) {
          onStatus(s, status.drain().getLong(0));
        }
      } else {
        int n = Math.min(s.length - received, chunk.length() - pos);
        OffHeap.copy(chunk, pos, s.memory, s.memoryOffset + received, n);
        received += n;
        pos += n;
        if (received == s.length) {
          finish();
        }
      }
    }
  }

  private void onStatus(Slice s, long frame) {
    if (!StatusFrame.valid(frame)) {
      fail(
          new VteException(
              ErrorCode.PROTOCOL_ERROR,
              s.describe()
                  + ": status frame 0x"
                  + Long.toHexString(frame)
                  + " lacks Mooncake's MCTV magic (does the target speak protocol 1?)"));
    } else if (frame != StatusFrame.OK) {
      fail(
          new VteException(
              ErrorCode.REMOTE_ACCESS_DENIED,
              s.describe()
                  + " rejected by the target (status "
                  + StatusFrame.code(frame)
                  + ": range not within its registered buffers)"));
    } else {
      awaitingStatus = false;
      if (s.write) {
        acked = true;
        if (payloadSent) {
          finish();
        }
      }
    }
  }

  private void finish() {
    Slice s = current;
    current = null;
    s.lane = null;
    pool.completed(s);
  }

  private void fail(VteException cause) {
    Slice s = current;
    current = null;
    close();
    if (s != null) {
      s.lane = null;
      pool.failed(s, cause);
    }
  }

  /** Drops the request in flight (its VTE request ended) and the connection with it. */
  void abort() {
    if (current != null) {
      current.lane = null;
      current = null;
    }
    close();
  }

  /** Closes the connection; a request in flight is failed by the close handler. */
  void close() {
    if (!closed) {
      closed = true;
      pool.removed(this);
      socket.close();
    }
  }

  private void onClosed() {
    if (current != null) {
      Slice s = current;
      fail(
          new VteException(
              ErrorCode.TRANSFER_FAILED,
              s.describe()
                  + ": the target closed the connection"
                  + (s.v2 ? "" : " (a protocol-1 target closes it when it refuses a request)")));
    } else {
      close();
    }
  }
}

package io.vte.engine.impl.peer;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Carrier;
import io.vte.engine.impl.rail.Route;
import io.vte.engine.impl.rail.Routes;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.spi.PeerSlice;
import io.vte.engine.spi.PeerTransport;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one route to a peer transport's segment: its {@link Routes}, its {@link Route} and, through
 * the transport, its {@link Carrier}. The transport reports each slice's end with a typed cause,
 * mapped here to a slice status: refusals and protocol errors end the request, other failures are
 * retried (the transport opens a new connection). Thread-safe.
 */
final class PeerRoute implements Routes, Route, Carrier {

  private final PeerTransport transport;
  private final String segmentName;
  private final AtomicLong backlog = new AtomicLong();

  PeerRoute(PeerTransport transport, String segmentName) {
    this.transport = transport;
    this.segmentName = segmentName;
  }

  PeerTransport transport() {
    return transport;
  }

  @Override
  public Route select(int bufferIndex, Route avoid, int length) {
    backlog.addAndGet(length);
    return this;
  }

  @Override
  public Carrier carrier() {
    return this;
  }

  @Override
  public void assign(Slice slice, LocalBuffer local, int bufferIndex) {
    slice.assign(this, null, 0, 0);
  }

  @Override
  public void acquire(int length) {
    backlog.addAndGet(length);
  }

  @Override
  public void release(int length, boolean moved) {
    backlog.addAndGet(-length);
  }

  @Override
  public void onSuccess() {}

  @Override
  public boolean onFailure(int status, VteException cause) {
    return false;
  }

  @Override
  public boolean typedFailures() {
    return true;
  }

  @Override
  public void offer(Slice slice) {
    transport.carry(new Handed(slice, segmentName));
  }

  @Override
  public String toString() {
    return "PeerRoute[" + segmentName + ", " + backlog.get() + " B queued]";
  }

  /**
   * @param cause a peer transport's typed failure
   * @return the slice status for it
   */
  static int statusOf(VteException cause) {
    ErrorCode code = cause.code();
    if (code == ErrorCode.ENGINE_CLOSED) {
      return SliceStatus.ENGINE_CLOSED;
    }
    if (code == ErrorCode.REMOTE_ACCESS_DENIED
        || code == ErrorCode.PROTOCOL_ERROR
        || code == ErrorCode.OUT_OF_RANGE) {
      return WcStatus.REM_INV_REQ_ERR.code();
    }
    return WcStatus.GENERAL_ERR.code();
  }

  /** An engine slice as the peer transport sees it. */
  private record Handed(Slice slice, String segmentName) implements PeerSlice {

    @Override
    public boolean isWrite() {
      return slice.opcode() == WrOpcode.RDMA_WRITE;
    }

    @Override
    public ByteBuffer local() {
      return DirectMemory.wrap(slice.localAddress(), slice.length());
    }

    @Override
    public long remoteAddress() {
      return slice.remoteAddress();
    }

    @Override
    public int length() {
      return slice.length();
    }

    @Override
    public boolean isAbandoned() {
      return slice.callback().isAbandoned();
    }

    @Override
    public void completed() {
      slice.callback().onSliceDone(slice, SliceStatus.OK, null);
    }

    @Override
    public void failed(VteException cause) {
      slice.callback().onSliceDone(slice, statusOf(cause), cause);
    }

    @Override
    public void dropped() {
      slice.callback().onSliceDone(slice, SliceStatus.ABANDONED, null);
    }
  }
}

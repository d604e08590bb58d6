package io.vte.mooncake;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.VteException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * One Mooncake initiator's connection to a {@link MooncakeTarget}'s data listener: reads 24-byte
 * headers, checks each range against the exposed buffers before touching memory, copies a WRITE's
 * payload into place (then acknowledges it under v2), streams a READ's data (after a v2 status
 * frame). Anything else (unknown opcode, range outside every exposed buffer, zero size, a header or
 * payload cut short, a peer silent mid-payload past the stall timeout, a buffer withdrawn under a
 * WRITE) is reported to the refusal handler as a typed {@link VteException} and the connection is
 * closed; v2 peers get a rejection frame first. Runs on the target's event loop.
 */
final class TargetDataSession {

  private final Vertx vertx;
  private final NetSocket socket;
  private final ExposedBuffers exposed;
  private final Handler<VteException> refusals;
  private final long stallNanos;
  private final FrameAccumulator header = new FrameAccumulator(DataHeader.BYTES);

  private RegisteredBuffer writeTarget;
  private ByteBuffer writeMemory;
  private int writeOffset;
  private long writeSize;
  private long writeReceived;
  private boolean writeV2;
  private boolean closed;
  private long lastProgress;
  private long stallTimer = -1;

  TargetDataSession(
      Vertx vertx,
      NetSocket socket,
      ExposedBuffers exposed,
      Handler<VteException> refusals,
      long stallNanos) {
    this.vertx = vertx;
    this.socket = socket;
    this.exposed = exposed;
    this.refusals = refusals;
    this.stallNanos = stallNanos;
  }

  /** Starts serving the connection. */
  void start() {
    socket.handler(this::onBytes);
    socket.closeHandler(v -> onClosed());
    socket.drainHandler(v -> socket.resume());
  }

  private void onBytes(Buffer chunk) {
    lastProgress = System.nanoTime();
    int pos = 0;
    while (pos < chunk.length() && !closed) {
      if (writeTarget != null) {
        pos += writePayload(chunk, pos);
      } else {
        pos += header.take(chunk, pos);
        if (header.complete()) {
          onHeader(DataHeader.decode(header.drain()));
        }
      }
    }
    if (!closed && (header.filled() > 0 || writeTarget != null)) {
      armStallTimer();
    }
  }

  private void onHeader(DataHeader h) {
    if (h.kind() != DataHeader.READ && h.kind() != DataHeader.WRITE) {
      refuse(
          h.v2(),
          new VteException(
              ErrorCode.PROTOCOL_ERROR,
              "unknown Mooncake opcode 0x"
                  + Integer.toHexString(h.opcode())
                  + " (READ 0, WRITE 1)"));
      return;
    }
    RegisteredBuffer target = exposed.find(h.address(), h.size());
    if (target == null) {
      refuse(
          h.v2(),
          new VteException(
              ErrorCode.OUT_OF_RANGE,
              (h.kind() == DataHeader.WRITE ? "WRITE" : "READ")
                  + " of "
                  + Long.toUnsignedString(h.size())
                  + " bytes at 0x"
                  + Long.toHexString(h.address())
                  + " is not within a buffer exposed to Mooncake peers"));
      return;
    }
    int offset = (int) (h.address() - target.address());
    if (h.kind() == DataHeader.WRITE) {
      writeTarget = target;
      writeMemory = target.byteBuffer();
      writeOffset = offset;
      writeSize = h.size();
      writeReceived = 0;
      writeV2 = h.v2();
      return;
    }
    if (h.v2()) {
      socket.write(status(StatusFrame.OK));
    }
    socket.write(OffHeap.view(target.byteBuffer(), offset, (int) h.size()));
    if (socket.writeQueueFull()) {
      socket.pause();
    }
  }

  private int writePayload(Buffer chunk, int pos) {
    if (!exposed.holds(writeTarget)) {
      refuse(
          writeV2,
          new VteException(
              ErrorCode.NOT_REGISTERED,
              "buffer withdrawn during a Mooncake WRITE: "
                  + writeTarget
                  + " after "
                  + writeReceived
                  + " of "
                  + writeSize
                  + " bytes"));
      return 0;
    }
    int n = (int) Math.min(writeSize - writeReceived, chunk.length() - pos);
    OffHeap.copy(chunk, pos, writeMemory, writeOffset + (int) writeReceived, n);
    writeReceived += n;
    if (writeReceived == writeSize) {
      writeTarget = null;
      writeMemory = null;
      if (writeV2) {
        socket.write(status(StatusFrame.OK));
      }
    }
    return n;
  }

  private void armStallTimer() {
    if (stallTimer != -1) {
      return;
    }
    long wait = Math.max(1, lastProgress + stallNanos - System.nanoTime());
    stallTimer =
        vertx.setTimer(
            Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)),
            id -> {
              stallTimer = -1;
              if (closed || (header.filled() == 0 && writeTarget == null)) {
                return;
              }
              if (System.nanoTime() - lastProgress < stallNanos) {
                armStallTimer();
                return;
              }
              refuse(false, new VteException(ErrorCode.TIMED_OUT, "peer went silent " + where()));
            });
  }

  private void onClosed() {
    if (closed) {
      return;
    }
    closed = true;
    cancelStallTimer();
    if (header.filled() > 0 || writeTarget != null) {
      refusals.handle(
          new VteException(ErrorCode.PROTOCOL_ERROR, "peer closed the connection " + where()));
    }
  }

  private String where() {
    return writeTarget != null
        ? "mid-payload: " + writeReceived + " of " + writeSize + " bytes of a WRITE"
        : "mid-header: " + header.filled() + " of " + DataHeader.BYTES + " bytes";
  }

  private void refuse(boolean v2, VteException cause) {
    closed = true;
    cancelStallTimer();
    writeTarget = null;
    refusals.handle(cause);
    if (v2) {
      socket.end(status(StatusFrame.REJECTED));
    } else {
      socket.close();
    }
  }

  private void cancelStallTimer() {
    if (stallTimer != -1) {
      vertx.cancelTimer(stallTimer);
      stallTimer = -1;
    }
  }

  private static Buffer status(long frame) {
    return Buffer.buffer(StatusFrame.BYTES).appendLongLE(frame);
  }
}

package io.vte.mooncake;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.function.Supplier;

/**
 * One connection to a {@link MooncakeTarget}'s handshake listener: one request frame, one reply.
 * Metadata gets the target's descriptor, Notify is handed to the notification handler, Probe is
 * answered; Connection (RDMA endpoint setup) is refused with a {@code reply_msg}. A malformed frame
 * (zero or oversized length, unknown type, bad JSON, trailing bytes), a frame cut short or a peer
 * silent past the stall timeout is reported to the refusal handler and the connection is closed.
 */
final class TargetHandshakeSession {

  /** The {@code reply_msg} of a refused Connection request. */
  static final String RDMA_REFUSAL = "this VTE target serves Mooncake's TCP transport only";

  /** Where a received notification goes. */
  interface Notifications {
    void deliver(String from, String name, String message);
  }

  private final Vertx vertx;
  private final NetSocket socket;
  private final HandshakeFrame.Reader reader;
  private final Supplier<SegmentDescriptor> descriptor;
  private final Notifications notifications;
  private final Handler<VteException> refusals;
  private final long timer;
  private boolean done;

  TargetHandshakeSession(
      Vertx vertx,
      NetSocket socket,
      MooncakeOptions options,
      Supplier<SegmentDescriptor> descriptor,
      Notifications notifications,
      Handler<VteException> refusals) {
    this.vertx = vertx;
    this.socket = socket;
    this.reader = new HandshakeFrame.Reader(options.getHandshakeMaxLength());
    this.descriptor = descriptor;
    this.notifications = notifications;
    this.refusals = refusals;
    this.timer =
        vertx.setTimer(
            options.getStallTimeout().toMillis(),
            id ->
                fail(
                    new VteException(
                        ErrorCode.TIMED_OUT,
                        "no complete handshake frame within "
                            + options.getStallTimeout().toMillis()
                            + " ms ("
                            + reader.received()
                            + " bytes received)")));
  }

  /** Starts serving the connection. */
  void start() {
    socket.handler(this::onBytes);
    socket.closeHandler(
        v -> {
          if (!done) {
            fail(
                new VteException(
                    ErrorCode.PROTOCOL_ERROR,
                    "peer closed the handshake connection mid-frame ("
                        + reader.received()
                        + " bytes received)"));
          }
        });
  }

  private void onBytes(Buffer bytes) {
    if (done) {
      return;
    }
    HandshakeFrame request;
    try {
      request = reader.append(bytes);
    } catch (VteException e) {
      fail(e);
      return;
    }
    if (request == null) {
      return;
    }
    done = true;
    vertx.cancelTimer(timer);
    JsonObject reply =
        switch (request.type()) {
          case METADATA -> descriptor.get().toJson();
          case NOTIFY -> {
            notifications.deliver(
                String.valueOf(socket.remoteAddress()),
                request.body().getValue("name", "").toString(),
                request.body().getValue("notify_msg", "").toString());
            yield new JsonObject().put("name", "").put("notify_msg", "success");
          }
          case PROBE -> new JsonObject().put("status", "success");
          case CONNECTION -> {
            refusals.handle(
                new VteException(
                    ErrorCode.HANDSHAKE_REJECTED,
                    "RDMA Connection request from "
                        + socket.remoteAddress()
                        + " refused: "
                        + RDMA_REFUSAL));
            yield new JsonObject().put("reply_msg", RDMA_REFUSAL);
          }
        };
    socket.end(new HandshakeFrame(request.type(), reply).encode());
  }

  private void fail(VteException cause) {
    if (done) {
      return;
    }
    done = true;
    vertx.cancelTimer(timer);
    refusals.handle(cause);
    socket.close();
  }
}

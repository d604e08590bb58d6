package io.vte.mooncake;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A hand-driven TCP peer for hostile-input tests: sends raw bytes, records what comes back. */
final class RawPeer implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(10);

  private final NetSocket socket;
  private final Buffer received = Buffer.buffer();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  private RawPeer(NetSocket socket) {
    this.socket = socket;
    socket.handler(
        b -> {
          synchronized (received) {
            received.appendBuffer(b);
          }
        });
    socket.closeHandler(v -> closed.complete(null));
  }

  static RawPeer connect(Vertx vertx, int port) {
    return new RawPeer(Await.result(vertx.createNetClient().connect(port, "127.0.0.1"), WAIT));
  }

  /** Sends bytes without waiting: the other side may close before they all leave. */
  RawPeer send(Buffer bytes) {
    socket.write(bytes);
    return this;
  }

  /** Waits until the other side closed the connection, and returns all it sent. */
  Buffer awaitClosed() {
    Await.until("the peer closes the connection", WAIT, closed::isDone);
    return received();
  }

  /** Waits until at least {@code n} bytes arrived. */
  Buffer awaitBytes(int n) {
    Await.until(n + " bytes from the peer", WAIT, () -> received().length() >= n);
    return received();
  }

  Buffer received() {
    synchronized (received) {
      return received.copy();
    }
  }

  boolean isClosed() {
    return closed.isDone();
  }

  @Override
  public void close() {
    socket.close();
  }
}

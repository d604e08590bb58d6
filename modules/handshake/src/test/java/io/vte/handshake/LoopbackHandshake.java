package io.vte.handshake;

import io.vertx.core.Vertx;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A handshake over loopback: a Vert.x instance, a {@link RecordingHandler}, a server on 127.0.0.1
 * and the client pools a test opens. Registered with {@code @RegisterExtension} it starts before
 * each test and closes after it; a test may also {@link #start()} and {@link #close()} one of its
 * own.
 */
final class LoopbackHandshake implements BeforeEachCallback, AfterEachCallback, AutoCloseable {

  /** How long a test waits for a result before it fails. */
  static final Duration WAIT = Duration.ofSeconds(15);

  /** The deadline tests give a call that should be answered. */
  static final Duration DEADLINE = Duration.ofSeconds(5);

  private final HandshakeServerOptions serverOptions;
  private final HandshakeClientOptions poolOptions;
  private final List<HandshakeClientPool> pools = new ArrayList<>();
  private boolean open;
  private Vertx vertx;
  private RecordingHandler handler;
  private HandshakeServer server;
  private HandshakeClientPool pool;

  /**
   * A loopback handshake without a default pool.
   *
   * @param serverOptions the server's options
   */
  LoopbackHandshake(HandshakeServerOptions serverOptions) {
    this(serverOptions, null);
  }

  /**
   * A loopback handshake with a default pool.
   *
   * @param serverOptions the server's options
   * @param poolOptions the default pool's options
   */
  LoopbackHandshake(HandshakeServerOptions serverOptions, HandshakeClientOptions poolOptions) {
    this.serverOptions = serverOptions;
    this.poolOptions = poolOptions;
  }

  /**
   * Starts Vert.x, the server and the default pool, if any.
   *
   * @return this
   */
  LoopbackHandshake start() {
    vertx = Vertx.vertx();
    open = true;
    handler = new RecordingHandler();
    server = Await.result(HandshakeServer.start(vertx, serverOptions, handler), WAIT);
    pool = poolOptions == null ? null : newPool(poolOptions);
    return this;
  }

  /**
   * Opens a pool on this Vert.x that {@link #close()} closes.
   *
   * @param options the pool's options
   * @return the pool
   */
  HandshakeClientPool newPool(HandshakeClientOptions options) {
    HandshakeClientPool created = HandshakeClientPool.create(vertx, options);
    pools.add(created);
    return created;
  }

  /** The Vert.x everything here runs on. */
  Vertx vertx() {
    return vertx;
  }

  /** The server's handler: what reached it, and how it answers. */
  RecordingHandler handler() {
    return handler;
  }

  /** The loopback server. */
  HandshakeServer server() {
    return server;
  }

  /** The server's {@code host:port}. */
  String serverName() {
    return server.serverName();
  }

  /** The default pool; null when built without pool options. */
  HandshakeClientPool pool() {
    return pool;
  }

  /** Closes the pools, the server, then Vert.x; closing again does nothing. */
  @Override
  public void close() {
    if (!open) {
      return;
    }
    open = false;
    for (HandshakeClientPool opened : pools) {
      Await.result(opened.close(), WAIT);
    }
    pools.clear();
    if (server != null) {
      Await.result(server.close(), WAIT);
    }
    Await.result(vertx.close(), WAIT);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close();
  }
}

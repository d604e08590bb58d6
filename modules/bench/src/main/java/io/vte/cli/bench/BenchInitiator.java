package io.vte.cli.bench;

import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.TransferEngine;
import io.vte.cli.common.Blocking;
import java.time.Duration;

/** The initiating engine of a bench and its Vert.x; closing closes both. */
public final class BenchInitiator implements AutoCloseable {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private final Vertx vertx;
  private final TransferEngine engine;

  private BenchInitiator(Vertx vertx, TransferEngine engine) {
    this.vertx = vertx;
    this.engine = engine;
  }

  /**
   * @param options engine options
   * @return the started engine
   * @throws Exception the engine's typed error
   */
  public static BenchInitiator start(EngineOptions options) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      return new BenchInitiator(
          vertx,
          Blocking.await(TransferEngine.create(vertx, options), WAIT, "starting the engine"));
    } catch (Exception e) {
      Blocking.await(vertx.close(), WAIT, "closing Vert.x");
      throw e;
    }
  }

  /**
   * @return the Vert.x instance the load runs on
   */
  public Vertx vertx() {
    return vertx;
  }

  /**
   * @return the engine
   */
  public TransferEngine engine() {
    return engine;
  }

  /** Closes the engine, then Vert.x. */
  @Override
  public void close() {
    try {
      Blocking.awaitClosed(engine.close(), WAIT, "closing the engine");
    } finally {
      Blocking.awaitClosed(vertx.close(), WAIT, "closing Vert.x");
    }
  }
}

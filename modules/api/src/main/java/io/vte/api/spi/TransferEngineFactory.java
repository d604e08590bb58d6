package io.vte.api.spi;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.TransferEngine;

/**
 * Creates the engine implementation; found with {@link java.util.ServiceLoader} by {@link
 * TransferEngine#create}. The engine module provides one, named in its {@code
 * META-INF/services/io.vte.api.spi.TransferEngineFactory}; users call {@code
 * TransferEngine.create(vertx, options)}, never this.
 */
public interface TransferEngineFactory {

  /**
   * @param vertx the Vert.x instance to run on; the engine must close itself when it closes (a
   *     close hook, run before Vert.x stops its event loops), and its {@link
   *     TransferEngine#close()} after that must succeed without doing anything
   * @param options validated options
   * @return the started engine
   */
  Future<TransferEngine> create(Vertx vertx, EngineOptions options);
}

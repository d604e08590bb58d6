package io.vte.engine;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.TransferEngine;
import io.vte.api.spi.TransferEngineFactory;
import io.vte.engine.impl.TransferEngineImpl;

/**
 * The engine module's {@link TransferEngineFactory}, registered for {@link
 * java.util.ServiceLoader}.
 */
public final class TransferEngineFactoryImpl implements TransferEngineFactory {

  /** Creates the factory (ServiceLoader needs a public no-argument constructor). */
  public TransferEngineFactoryImpl() {}

  @Override
  public Future<TransferEngine> create(Vertx vertx, EngineOptions options) {
    return TransferEngineImpl.start(vertx, options);
  }
}

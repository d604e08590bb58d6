package io.vte.vertx;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.micrometer.backends.BackendRegistries;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.TransferEngine;
import io.vte.api.VteException;
import io.vte.engine.VertxInternals;

/**
 * Runs one {@link TransferEngine} and exposes it on the event bus (the {@link EngineBus} contract),
 * so other verticles, with any number of instances, transfer without touching the engine object.
 *
 * <p>Config: the {@link EngineOptions} JSON plus three optional keys of the verticle itself ({@link
 * VerticleOptions}): {@code address} (bus prefix, default {@value EngineBus#DEFAULT_ADDRESS}),
 * {@code httpPort} (serve {@code /metrics}, {@code /health}, {@code /health/live} and {@code
 * /health/ready} there ({@link NodeRouter}); absent or negative: no HTTP server, 0: any free port)
 * and {@code httpHost} (default {@code 127.0.0.1}). Deploy one instance per engine. {@code start()}
 * creates the engine; {@code stop()} closes it (unfinished requests fail with ENGINE_CLOSED) and
 * frees the memory the verticle allocated for bus clients.
 */
public final class TransferEngineVerticle extends VerticleBase {

  /** Config key of the bus address prefix. */
  public static final String ADDRESS = VerticleOptions.ADDRESS.name();

  /** Config key of the HTTP port for metrics and health. */
  public static final String HTTP_PORT = VerticleOptions.HTTP_PORT.name();

  /** Config key of the HTTP host. */
  public static final String HTTP_HOST = VerticleOptions.HTTP_HOST.name();

  private TransferEngine engine;
  private NamedBuffers buffers;
  private EngineBusAdapter adapter;
  private MeterRegistry registry;
  private HttpServer http;
  private volatile boolean open;

  /** Creates the verticle; the engine is created when it is deployed. */
  public TransferEngineVerticle() {}

  @Override
  public Future<?> start() {
    JsonObject conf = config().copy();
    VerticleOptions own;
    EngineOptions options;
    try {
      own = VerticleOptions.takeFrom(conf);
      options = EngineOptions.fromJson(conf);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    MeterRegistry backend = BackendRegistries.getDefaultNow();
    registry = backend != null ? backend : new SimpleMeterRegistry();
    // The engine deploys owner verticles and servers of its own: create it on a context outside
    // this
    // deployment so undeploying the verticle does not tear them down before stop() closes the
    // engine.
    Promise<TransferEngine> created = VertxInternals.promise(context);
    VertxInternals.createEventLoopContext(vertx)
        .runOnContext(v -> TransferEngine.create(vertx, options).onComplete(created));
    return created
        .future()
        .compose(
            e -> {
              engine = e;
              buffers = new NamedBuffers(vertx, e);
              adapter = new EngineBusAdapter(vertx, own.address(), e, buffers, registry);
              adapter.start();
              vertx
                  .eventBus()
                  .<Object>consumer(own.address() + EngineBus.HEALTH, m -> m.reply(health()));
              open = true;
              Integer httpPort = own.httpPort();
              if (httpPort == null || httpPort < 0) {
                return Future.succeededFuture();
              }
              return vertx
                  .createHttpServer()
                  .requestHandler(NodeRouter.create(vertx, this::health))
                  .listen(httpPort, own.httpHost())
                  .recover(
                      err ->
                          Future.failedFuture(
                              new VteException(
                                  ErrorCode.INVALID_CONFIGURATION,
                                  "cannot listen for HTTP on port "
                                      + httpPort
                                      + ": "
                                      + err.getMessage(),
                                  err)))
                  .map(s -> http = s);
            })
        .recover(err -> stop().transform(ignored -> Future.failedFuture(err)));
  }

  @Override
  public Future<?> stop() {
    open = false;
    Future<Void> f = http == null ? Future.succeededFuture() : http.close();
    if (adapter != null) {
      EngineBusAdapter a = adapter;
      f = f.transform(v -> a.stop()).andThen(v -> a.removeMeters(registry));
    }
    if (engine != null) {
      TransferEngine e = engine;
      f = f.transform(v -> e.close());
    }
    if (buffers != null) {
      NamedBuffers b = buffers;
      f = f.andThen(v -> b.freeAll());
    }
    return f;
  }

  /**
   * @return the engine (null before start), for the application embedding this verticle
   */
  public TransferEngine engine() {
    return engine;
  }

  /**
   * @return the bound HTTP port, or -1 when no HTTP server runs
   */
  public int httpPort() {
    return http == null ? -1 : http.actualPort();
  }

  /**
   * @return the current {@link EngineHealth} JSON
   */
  public JsonObject health() {
    return EngineHealth.check(engine, open);
  }
}

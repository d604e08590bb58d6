package io.vte.examples.range;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.vertx.TransferEngineVerticle;
import java.util.concurrent.TimeUnit;

/**
 * Starts the range server: an engine verticle (prefix {@code range}) and the HTTP service on {@code
 * httpPort}. Arguments: {@code [httpPort] [device spec...]}. Then {@code curl
 * 'http://127.0.0.1:PORT/segments/HOST:PORT/bytes?offset=0&length=16'} reads from any VTE node (for
 * example one started with {@code vte serve}, which registers a 1 MiB pool).
 */
public final class RangeServerMain {

  private RangeServerMain() {}

  /**
   * @param args {@code [httpPort] [device spec...]}
   * @throws Exception when it cannot start
   */
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8088;
    JsonArray devices = new JsonArray();
    for (int i = 1; i < args.length; i++) {
      devices.add(args[i]);
    }
    if (devices.isEmpty()) {
      devices.add("range0@127.0.0.1");
    }
    Vertx vertx = Vertx.vertx();
    TransferEngineVerticle engine = new TransferEngineVerticle();
    vertx
        .deployVerticle(
            engine,
            new DeploymentOptions()
                .setConfig(
                    new JsonObject()
                        .put("devices", devices)
                        .put(TransferEngineVerticle.ADDRESS, "range")))
        .compose(
            id ->
                vertx.deployVerticle(
                    new RangeServerVerticle(),
                    new DeploymentOptions()
                        .setConfig(new JsonObject().put("engine", "range").put("httpPort", port))))
        .toCompletionStage()
        .toCompletableFuture()
        .get(1, TimeUnit.MINUTES);
    System.out.printf(
        "range server on http://127.0.0.1:%d/segments/{name}/bytes?offset=&length= (engine %s)%n",
        port, engine.engine().serverName());
  }
}

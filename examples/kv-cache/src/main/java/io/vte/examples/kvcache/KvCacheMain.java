package io.vte.examples.kvcache;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.vertx.TransferEngineVerticle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the example: a decode node and a prefill node (two Vert.x instances, two engines over soft
 * verbs), ships {@code blocks} KV blocks and prints one line per block with its verification and
 * latency. Arguments: {@code [blocks] [blockSize] [WRITE|READ]}; exit code 0 when every block
 * verified, 1 when one did not, 2 for a bad argument (named).
 */
public final class KvCacheMain {

  private KvCacheMain() {}

  /**
   * @param args {@code [blocks] [blockSize] [WRITE|READ]}
   * @throws Exception when the run fails
   */
  public static void main(String[] args) throws Exception {
    int blocks;
    int blockSize;
    String mode = args.length > 2 ? args[2] : "WRITE";
    try {
      blocks = args.length > 0 ? Integer.parseInt(args[0]) : 64;
      blockSize = args.length > 1 ? Integer.parseInt(args[1]) : 256 * 1024;
      check(blocks, blockSize, mode);
    } catch (IllegalArgumentException e) {
      System.err.println("kv-cache: " + e.getMessage());
      System.exit(2);
      return;
    }
    Vertx decodeVertx = Vertx.vertx();
    Vertx prefillVertx = Vertx.vertx();
    List<JsonObject> reports;
    try {
      reports =
          run(decodeVertx, prefillVertx, blocks, blockSize, mode)
              .toCompletionStage()
              .toCompletableFuture()
              .get(5, TimeUnit.MINUTES);
    } finally {
      prefillVertx.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.MINUTES);
      decodeVertx.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.MINUTES);
    }
    long ok = reports.stream().filter(r -> r.getBoolean("ok")).count();
    for (JsonObject r : reports) {
      System.out.printf(
          "block %4d %-8s %8d us%n",
          r.getInteger("block"), r.getBoolean("ok") ? "verified" : "BAD", r.getLong("latencyUs"));
    }
    System.out.printf("%d/%d blocks of %d bytes verified (%s)%n", ok, blocks, blockSize, mode);
    System.exit(ok == blocks ? 0 : 1);
  }

  /**
   * Runs both nodes and returns the decode node's per-block reports; undeploys everything before
   * completing.
   *
   * @param decodeVertx Vert.x of the decode node
   * @param prefillVertx Vert.x of the prefill node
   * @param blocks number of blocks
   * @param blockSize bytes per block
   * @param mode WRITE (prefill pushes) or READ (decode pulls)
   * @return one report {@code {block, ok, latencyUs}} per block, in arrival order; fails with an
   *     IllegalArgumentException naming a bad argument (a mode other than WRITE or READ, a count or
   *     size that is not positive) before anything is deployed
   */
  public static Future<List<JsonObject>> run(
      Vertx decodeVertx, Vertx prefillVertx, int blocks, int blockSize, String mode) {
    try {
      check(blocks, blockSize, mode);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    List<JsonObject> reports = new ArrayList<>();
    Promise<List<JsonObject>> all = Promise.promise();
    decodeVertx
        .eventBus()
        .<JsonObject>consumer(
            DecodeVerticle.REPORTS,
            m -> {
              reports.add(m.body());
              if (reports.size() == blocks) {
                all.tryComplete(reports);
              }
            });
    JsonObject node =
        new JsonObject().put("blocks", blocks).put("blockSize", blockSize).put("mode", mode);
    TransferEngineVerticle decodeEngine = new TransferEngineVerticle();
    List<String> decodeIds = new ArrayList<>();
    List<String> prefillIds = new ArrayList<>();
    Future<List<JsonObject>> result =
        deploy(decodeVertx, decodeEngine, engineConfig("decode"), decodeIds)
            .compose(
                v ->
                    deploy(
                        decodeVertx,
                        DecodeVerticle.class.getName(),
                        node.copy().put("engine", "decode"),
                        decodeIds))
            .compose(
                v ->
                    deploy(
                        prefillVertx,
                        new TransferEngineVerticle(),
                        engineConfig("prefill"),
                        prefillIds))
            .compose(
                v ->
                    deploy(
                        prefillVertx,
                        PrefillVerticle.class.getName(),
                        node.copy()
                            .put("engine", "prefill")
                            .put("decode", decodeEngine.engine().serverName()),
                        prefillIds))
            .compose(v -> all.future());
    // undeploy the engines before the caller closes Vert.x (see TransferEngineVerticle)
    return result.transform(
        ar ->
            undeploy(prefillVertx, prefillIds)
                .transform(v -> undeploy(decodeVertx, decodeIds))
                .transform(
                    v ->
                        ar.succeeded()
                            ? Future.succeededFuture(ar.result())
                            : Future.failedFuture(ar.cause())));
  }

  private static void check(int blocks, int blockSize, String mode) {
    ShipMode.parse(mode);
    if (blocks < 1 || blockSize < 1 || (long) blocks * blockSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          blocks
              + " blocks of "
              + blockSize
              + " bytes: both must be positive, at most 2 GiB in all");
    }
  }

  private static JsonObject engineConfig(String name) {
    return new JsonObject()
        .put("devices", new JsonArray().add(name + "0@127.0.0.1").add(name + "1@127.0.0.1"))
        .put("workersPerContext", 1)
        .put(TransferEngineVerticle.ADDRESS, name);
  }

  private static Future<Void> deploy(
      Vertx vertx, Object verticle, JsonObject config, List<String> ids) {
    DeploymentOptions options = new DeploymentOptions().setConfig(config);
    Future<String> id =
        verticle instanceof String name
            ? vertx.deployVerticle(name, options)
            : vertx.deployVerticle((TransferEngineVerticle) verticle, options);
    return id.andThen(
            ar -> {
              if (ar.succeeded()) {
                ids.add(ar.result());
              }
            })
        .mapEmpty();
  }

  /** Undeploys in reverse order: the engine verticle last, before Vert.x closes. */
  private static Future<Void> undeploy(Vertx vertx, List<String> ids) {
    Future<Void> f = Future.succeededFuture();
    for (int i = ids.size() - 1; i >= 0; i--) {
      String id = ids.get(i);
      f = f.transform(v -> vertx.undeploy(id));
    }
    return f.recover(e -> Future.succeededFuture());
  }
}

package io.vte.examples.kvcache;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.vertx.TransferEngineClient;
import java.time.Duration;

/**
 * The decode node's logic, talking to its engine only through the event bus: registers a pool of
 * {@code blocks × blockSize} bytes, and for every {@code kv.block} notification (WRITE mode: the
 * block is already in the pool; READ mode: pulls it from the prefill node first) verifies the block
 * byte by byte and publishes {@code {block, ok, latencyUs}} on {@value #REPORTS}.
 *
 * <p>Config: {@code engine} (the engine's bus prefix), {@code blocks}, {@code blockSize}.
 */
public final class DecodeVerticle extends VerticleBase {

  /** Where per-block reports are published. */
  public static final String REPORTS = "kv.decode.reports";

  /** Name of the pool buffer. */
  public static final String POOL = "kv-pool";

  /** Created by Vert.x. */
  public DecodeVerticle() {}

  @Override
  public Future<?> start() {
    TransferEngineClient engine =
        new TransferEngineClient(vertx.eventBus(), config().getString("engine"));
    int blocks = config().getInteger("blocks");
    int blockSize = config().getInteger("blockSize");
    engine.notifications(
        n -> {
          if ("kv.block".equals(n.getString("topic"))) {
            onBlock(engine, n.getString("from"), new JsonObject(n.getBuffer("payload")), blockSize);
          }
        });
    return engine.register(POOL, (long) blocks * blockSize, "cpu:0");
  }

  private void onBlock(TransferEngineClient engine, String from, JsonObject block, int blockSize) {
    int index = block.getInteger("block");
    long offset = (long) index * blockSize;
    Future<JsonObject> arrived =
        "READ".equals(block.getString("mode"))
            ? engine.submit(
                new JsonArray()
                    .add(
                        TransferEngineClient.request(
                            "READ", POOL, offset, from, block.getLong("address"), blockSize)),
                Duration.ofSeconds(30))
            : Future.succeededFuture(new JsonObject().put("allCompleted", true));
    arrived
        .compose(
            r ->
                r.getBoolean("allCompleted")
                    ? engine.read(POOL, offset, blockSize)
                    : Future.failedFuture("block " + index + " not transferred: " + r.encode()))
        .onComplete(
            ar -> {
              long latencyUs = KvBlocks.nowMicros() - block.getLong("sentUs");
              boolean ok = ar.succeeded() && ar.result().equals(KvBlocks.content(index, blockSize));
              vertx
                  .eventBus()
                  .publish(
                      REPORTS,
                      new JsonObject()
                          .put("block", index)
                          .put("ok", ok)
                          .put("latencyUs", Math.max(0, latencyUs))
                          .put("error", ar.failed() ? ar.cause().getMessage() : null));
            });
  }
}

package io.vte.examples.kvcache;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.vertx.TransferEngineClient;
import java.time.Duration;

/**
 * The prefill node's logic, through the event bus only: computes KV blocks into its staging buffer
 * and ships each to the decode node, then notifies it ({@code kv.block}, payload {@code {block,
 * mode, address, sentUs}}). WRITE mode writes the block into the decode node's pool; READ mode
 * leaves it in staging for the decode node to pull. Blocks go one after another; {@link #start()}
 * completes when every block was shipped.
 *
 * <p>Config: {@code engine} (bus prefix), {@code decode} (the decode node's segment), {@code
 * blocks}, {@code blockSize}, {@code mode} ({@code WRITE} or {@code READ}).
 */
public final class PrefillVerticle extends VerticleBase {

  private static final String STAGING = "kv-staging";

  /** Created by Vert.x. */
  public PrefillVerticle() {}

  @Override
  public Future<?> start() {
    TransferEngineClient engine =
        new TransferEngineClient(vertx.eventBus(), config().getString("engine"));
    String decode = config().getString("decode");
    int blocks = config().getInteger("blocks");
    int blockSize = config().getInteger("blockSize");
    String mode;
    try {
      mode = ShipMode.parse(config().getString("mode", "WRITE")).name();
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    return engine
        .register(STAGING, (long) blocks * blockSize, "cpu:0")
        .compose(
            staging ->
                engine
                    .openSegment(decode)
                    .compose(
                        seg -> {
                          long pool = poolAddress(seg, (long) blocks * blockSize);
                          Future<Void> chain = Future.succeededFuture();
                          for (int i = 0; i < blocks; i++) {
                            int index = i;
                            long offset = (long) index * blockSize;
                            chain =
                                chain.compose(
                                    v ->
                                        ship(
                                            engine,
                                            decode,
                                            mode,
                                            index,
                                            offset,
                                            blockSize,
                                            pool,
                                            staging.getLong("address") + offset));
                          }
                          return chain;
                        }));
  }

  private static Future<Void> ship(
      TransferEngineClient engine,
      String decode,
      String mode,
      int index,
      long offset,
      int blockSize,
      long pool,
      long stagingAddress) {
    JsonObject note =
        new JsonObject().put("block", index).put("mode", mode).put("address", stagingAddress);
    Future<Void> written = engine.write(STAGING, offset, KvBlocks.content(index, blockSize));
    if ("WRITE".equals(mode)) {
      written =
          written
              .compose(
                  v -> {
                    note.put("sentUs", KvBlocks.nowMicros());
                    return engine.submit(
                        new JsonArray()
                            .add(
                                TransferEngineClient.request(
                                    "WRITE", STAGING, offset, decode, pool + offset, blockSize)),
                        Duration.ofSeconds(30));
                  })
              .compose(
                  r ->
                      r.getBoolean("allCompleted")
                          ? Future.<Void>succeededFuture()
                          : Future.failedFuture("block " + index + " write failed: " + r.encode()));
    } else {
      written = written.andThen(v -> note.put("sentUs", KvBlocks.nowMicros()));
    }
    return written.compose(v -> engine.notify(decode, "kv.block", note.toBuffer()));
  }

  private static long poolAddress(JsonObject segment, long length) {
    for (Object o : segment.getJsonArray("buffers")) {
      JsonObject b = (JsonObject) o;
      if (b.getLong("length") == length) {
        return b.getLong("address");
      }
    }
    throw new IllegalStateException(
        "decode segment " + segment.getString("name") + " has no pool of " + length + " bytes");
  }
}

package io.vte.examples.kvcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs the KV-cache example in both modes: every block arrives once and verifies. */
@ExtendWith(BlockedThreadGuard.class)
class KvCacheExampleTest {

  @ParameterizedTest
  @ValueSource(strings = {"WRITE", "READ"})
  void everyBlockArrivesAndVerifies(String mode) {
    int blocks = 24;
    Vertx decode = Vertx.vertx();
    Vertx prefill = Vertx.vertx();
    List<JsonObject> reports;
    try {
      reports =
          Await.result(
              KvCacheMain.run(decode, prefill, blocks, 64 * 1024, mode), Duration.ofMinutes(2));
    } finally {
      Await.result(prefill.close(), Duration.ofMinutes(1));
      Await.result(decode.close(), Duration.ofMinutes(1));
    }
    assertEquals(blocks, reports.size());
    Set<Integer> seen =
        reports.stream().map(r -> r.getInteger("block")).collect(Collectors.toSet());
    assertEquals(blocks, seen.size(), "each block reported once");
    for (JsonObject r : reports) {
      assertTrue(r.getBoolean("ok"), r.encode());
      assertTrue(r.getLong("latencyUs") >= 0, r.encode());
    }
    long p50 =
        reports.stream()
            .mapToLong(r -> r.getLong("latencyUs"))
            .sorted()
            .skip(blocks / 2)
            .findFirst()
            .orElseThrow();
    System.out.printf(
        "kv-cache %s: %d blocks of 64 KiB verified, median notify latency %d us%n",
        mode, blocks, p50);
  }

  @Test
  void aModeItCannotVerifyIsRefusedByName() {
    Vertx decode = Vertx.vertx();
    Vertx prefill = Vertx.vertx();
    try {
      Throwable e =
          Await.failure(
              KvCacheMain.run(decode, prefill, 16, 64 * 1024, "COPY"), Duration.ofMinutes(1));
      assertTrue(
          e instanceof IllegalArgumentException && e.getMessage().contains("'COPY'"), e.toString());
      Throwable size =
          Await.failure(
              KvCacheMain.run(decode, prefill, 0, 64 * 1024, "WRITE"), Duration.ofMinutes(1));
      assertTrue(size.getMessage().contains("0 blocks"), size.toString());
    } finally {
      Await.result(prefill.close(), Duration.ofMinutes(1));
      Await.result(decode.close(), Duration.ofMinutes(1));
    }
  }
}

package io.vte.examples.kvcache;

import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The deterministic content of KV block {@code index}, so the decode node can verify every byte it
 * got.
 */
public final class KvBlocks {

  private KvBlocks() {}

  /**
   * @return wall-clock microseconds (comparable between processes on one host, unlike nanoTime)
   */
  public static long nowMicros() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }

  /**
   * @param index block index
   * @param size block size in bytes
   * @return the block's bytes
   */
  public static Buffer content(int index, int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (index * 131 + i * 7 + (i >>> 8));
    }
    return Buffer.buffer(bytes);
  }
}

package io.vte.it;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Heap, direct memory and thread counts of a JVM, taken after a GC so that trends mean retained memory.
 *
 * @param heapUsed heap bytes in use after a GC
 * @param directUsed bytes of direct buffers (NIO's pool; native allocations of the suite are not included)
 * @param threads live threads
 */
public record JvmFigures(long heapUsed, long directUsed, int threads) {

  /**
   * @return the figures of this JVM now. A GC finds dead direct buffers, but the Cleaner thread frees their memory
   *     only afterwards: this collects until the direct figure stops falling, so that it means retained memory
   *     (a soak's few hundred closed connections otherwise read as tens of MiB still "in use").
   */
  public static JvmFigures take() {
    long[] direct = {Long.MAX_VALUE};
    Await.until("direct memory to settle after a GC", Duration.ofSeconds(10), () -> {
      System.gc();
      long now = directPoolBytes();
      boolean settled = now >= direct[0];
      direct[0] = Math.min(direct[0], now);
      return settled;
    });
    return new JvmFigures(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), direct[0],
        ManagementFactory.getThreadMXBean().getThreadCount());
  }

  private static long directPoolBytes() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    return 0;
  }

  /** @return the figures as JSON */
  public JsonObject toJson() {
    return new JsonObject().put("heapUsed", heapUsed).put("directUsed", directUsed).put("threads", threads);
  }

  /**
   * @param json what {@link #toJson()} wrote
   * @return the figures
   */
  public static JvmFigures fromJson(JsonObject json) {
    return new JvmFigures(json.getLong("heapUsed"), json.getLong("directUsed"), json.getInteger("threads"));
  }

  @Override
  public String toString() {
    return String.format("heap %d MiB, direct %d MiB, %d threads", heapUsed >> 20, directUsed >> 20, threads);
  }
}

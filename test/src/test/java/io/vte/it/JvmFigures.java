package io.vte.it;

import io.vertx.core.json.JsonObject;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * Heap, direct memory and thread counts of a JVM, taken after a GC so that trends mean retained memory.
 *
 * @param heapUsed heap bytes in use after a GC
 * @param directUsed bytes of direct buffers (NIO's pool; native allocations of the suite are not included)
 * @param threads live threads
 */
public record JvmFigures(long heapUsed, long directUsed, int threads) {

  /** @return the figures of this JVM now */
  public static JvmFigures take() {
    System.gc();
    long direct = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct = pool.getMemoryUsed();
      }
    }
    return new JvmFigures(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), direct,
        ManagementFactory.getThreadMXBean().getThreadCount());
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

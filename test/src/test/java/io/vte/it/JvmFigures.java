package io.vte.it;

import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.vertx.core.impl.buffer.VertxByteBufAllocator;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Heap, direct memory and thread counts of a JVM, taken after a GC so that trends mean retained
 * memory.
 *
 * <p>Direct memory is split in two: Netty's pooled allocator, which Vert.x gives its channels,
 * keeps the chunks it allocated (one set per event loop that wrote, e.g. gRPC replies) for reuse,
 * so its share rises in steps whenever another event loop first serves a burst; the rest
 * (soft-verbs connection buffers, engine batches) is what must stay flat.
 *
 * @param heapUsed heap bytes in use after a GC
 * @param directUsed bytes of direct buffers outside Netty's pool (NIO's pool; native allocations of
 *     the suite are not included)
 * @param nettyPoolDirect direct bytes Netty's pooled allocator holds
 * @param threads live threads per name pattern
 */
public record JvmFigures(
    long heapUsed, long directUsed, long nettyPoolDirect, ThreadCensus threads) {

  /**
   * @return the figures of this JVM now. A GC finds dead direct buffers, but the Cleaner thread
   *     frees their memory only afterwards: this collects until the direct figure stops falling, so
   *     that it means retained memory (a soak's few hundred closed connections otherwise read as
   *     tens of MiB still "in use").
   */
  public static JvmFigures take() {
    long[] direct = {Long.MAX_VALUE};
    Await.until(
        "direct memory to settle after a GC",
        Duration.ofSeconds(10),
        () -> {
          System.gc();
          long now = directPoolBytes();
          boolean settled = now >= direct[0];
          direct[0] = Math.min(direct[0], now);
          return settled;
        });
    long netty = nettyPoolBytes();
    return new JvmFigures(
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(),
        Math.max(0, direct[0] - netty),
        netty,
        ThreadCensus.take());
  }

  private static long nettyPoolBytes() {
    return VertxByteBufAllocator.POOLED_ALLOCATOR instanceof ByteBufAllocatorMetricProvider pool
        ? pool.metric().usedDirectMemory()
        : 0;
  }

  private static long directPoolBytes() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    return 0;
  }

  /**
   * @return the figures as JSON
   */
  public JsonObject toJson() {
    return new JsonObject()
        .put("heapUsed", heapUsed)
        .put("directUsed", directUsed)
        .put("nettyPoolDirect", nettyPoolDirect)
        .put("threads", threads.toJson());
  }

  /**
   * @param json what {@link #toJson()} wrote
   * @return the figures
   */
  public static JvmFigures fromJson(JsonObject json) {
    return new JvmFigures(
        json.getLong("heapUsed"),
        json.getLong("directUsed"),
        json.getLong("nettyPoolDirect"),
        ThreadCensus.fromJson(json.getJsonObject("threads")));
  }

  @Override
  public String toString() {
    return String.format(
        "heap %d MiB, direct %d MiB + Netty pool %d MiB, %d threads",
        heapUsed >> 20, directUsed >> 20, nettyPoolDirect >> 20, threads.total());
  }
}

package io.vte.cli.bench;

import io.vte.verbs.DirectMemory;
import java.time.Duration;

/**
 * The memory-copy baseline: one thread copying blocks of the run's size from one native buffer into
 * another, both as large as the run's region and walked block by block as the run's requests walk
 * it (so the copies touch as much memory, in and out of the caches, as the run does): the ceiling a
 * same-host transfer of that block size is compared with.
 */
public final class MemcpyBench {

  private MemcpyBench() {}

  /**
   * @param duration measured time (after a short warm-up)
   * @param size block size in bytes
   * @param region bytes of each buffer, a multiple of {@code size} (the run's region)
   * @return GiB/s copied
   */
  public static double run(Duration duration, int size, long region) {
    long blocks = Math.max(1, region / size);
    long bytesEach = blocks * size;
    long src = DirectMemory.allocate(bytesEach);
    long dst = DirectMemory.allocate(bytesEach);
    try {
      DirectMemory.fill(src, bytesEach, (byte) 0x5A);
      DirectMemory.fill(dst, bytesEach, (byte) 0);
      long block = 0;
      long warmupEnd = Measure.warmupEnd(duration);
      while (System.nanoTime() < warmupEnd) {
        DirectMemory.copy(src + block * size, dst + block * size, size);
        block = block + 1 == blocks ? 0 : block + 1;
      }
      long start = System.nanoTime();
      long end = start + duration.toNanos();
      long bytes = 0;
      long now;
      do {
        DirectMemory.copy(src + block * size, dst + block * size, size);
        block = block + 1 == blocks ? 0 : block + 1;
        bytes += size;
      } while ((now = System.nanoTime()) < end);
      return Measure.gibPerSecond(bytes, now - start);
    } finally {
      DirectMemory.free(src);
      DirectMemory.free(dst);
    }
  }
}

package io.vte.cli.bench.baseline;

import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.List;

/**
 * The memory-copy baseline: threads copying blocks of the run's size from one native buffer into
 * another, each thread its own share of a region as large as the run's, walked block by block as
 * the run's requests walk it (so the copies touch as much memory, in and out of the caches, as the
 * run does): the ceiling a same-host transfer of that block size is compared with. One thread is
 * what a single copy reaches; as many threads as the same-host rail has copiers is what the rail
 * could reach with its threads.
 */
public final class MemcpyBench {

  private MemcpyBench() {}

  /**
   * What one run measured.
   *
   * @param gibPerSecond bytes copied per second by all threads together, GiB/s
   * @param perThread each thread's GiB/s, in thread order
   */
  public record Result(double gibPerSecond, List<Double> perThread) {}

  /**
   * @param duration measured time (after a short warm-up)
   * @param size block size in bytes, at least 1
   * @param region bytes of the run's region, split between the threads (at least one block each)
   * @param threads copying threads, at least 1
   * @return the copy rate
   * @throws IllegalArgumentException for a size or thread count below 1
   */
  public static Result run(Duration duration, int size, long region, int threads) {
    if (size < 1 || threads < 1) {
      throw new IllegalArgumentException(
          "memcpy size and threads must be >= 1, got " + size + ", " + threads);
    }
    long blocksEach = Math.max(1, region / size / threads);
    List<Double> perThread =
        threads == 1
            ? List.of(copy(duration, size, blocksEach))
            : StreamThreads.run(
                threads,
                "vte-bench-memcpy-",
                "the memcpy baseline",
                i -> copy(duration, size, blocksEach));
    double sum = 0;
    for (double gibs : perThread) {
      sum += gibs;
    }
    return new Result(sum, List.copyOf(perThread));
  }

  /** One thread's copies over its own two buffers of {@code blocks} blocks. */
  private static double copy(Duration duration, int size, long blocks) {
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

package io.vte.it;

import io.vertx.core.json.JsonArray;
import java.util.Arrays;

/**
 * When each completed write of a load run ended (System.nanoTime), and what follows from it:
 * throughput over a window and the time to recover a throughput after a fault. A node process sends
 * them to the test as JSON.
 */
public final class Completions {

  private final int chunk;
  private long[] at = new long[1024];
  private int count;

  /**
   * @param chunk bytes per completed write
   */
  public Completions(int chunk) {
    this.chunk = chunk;
  }

  /**
   * @param nanos when a write completed
   */
  public void add(long nanos) {
    if (count == at.length) {
      at = Arrays.copyOf(at, count * 2);
    }
    at[count++] = nanos;
  }

  /**
   * @return when the first write completed, or -1 if none did
   */
  public long first() {
    return count == 0 ? -1 : at[0];
  }

  /**
   * @param from window start, System.nanoTime
   * @param to window end
   * @return bytes per second of the writes that completed in the window
   */
  public double throughput(long from, long to) {
    long n = 0;
    for (int i = 0; i < count; i++) {
      if (at[i] >= from && at[i] < to) {
        n++;
      }
    }
    return n * (double) chunk / ((to - from) / 1e9);
  }

  /**
   * @param after the last fault, System.nanoTime
   * @param target bytes per second to reach
   * @param window the sliding window measured
   * @param end the end of the run
   * @return nanoseconds from {@code after} to the end of the first window at or above target, or -1
   *     if never
   */
  public long recoveryNanos(long after, double target, long window, long end) {
    for (long t = after; t + window <= end; t += window / 10) {
      if (throughput(t, t + window) >= target) {
        return t + window - after;
      }
    }
    return -1;
  }

  /**
   * @param from first window's start, System.nanoTime
   * @param to no window ends after this
   * @param step window length
   * @return throughput in MiB/s of each window, space-separated, for reports
   */
  public String windowsMiB(long from, long to, long step) {
    StringBuilder sb = new StringBuilder();
    for (long t = from; t + step <= to; t += step) {
      sb.append(sb.length() == 0 ? "" : " ")
          .append(Math.round(throughput(t, t + step) / (1 << 20)));
    }
    return sb.toString();
  }

  /**
   * @param origin subtracted from every time
   * @return the times relative to {@code origin}
   */
  public JsonArray toJson(long origin) {
    JsonArray out = new JsonArray();
    for (int i = 0; i < count; i++) {
      out.add(at[i] - origin);
    }
    return out;
  }

  /**
   * @param times what {@link #toJson} wrote
   * @param chunk bytes per write
   * @return the completions, on the clock of that origin
   */
  public static Completions fromJson(JsonArray times, int chunk) {
    Completions c = new Completions(chunk);
    times.forEach(t -> c.add(((Number) t).longValue()));
    return c;
  }
}

package io.vte.it;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One target's result of a node process's {@code load} command ({@link NodeLoad}), read by the
 * test: the figures of {@link WriteLoad.Result}, with times relative to the start of the run (0 =
 * start).
 */
public final class RemoteLoad implements CheckedWrites {

  private final JsonObject json;
  private final Completions completions;

  private RemoteLoad(JsonObject json) {
    this.json = json;
    this.completions =
        Completions.fromJson(json.getJsonArray("completions"), json.getInteger("chunk"));
  }

  /**
   * @param answer a node's answer to {@code load}
   * @return one result per target, in the order of the command's targets
   */
  public static List<RemoteLoad> of(JsonObject answer) {
    List<RemoteLoad> out = new ArrayList<>();
    answer.getJsonArray("results").forEach(r -> out.add(new RemoteLoad((JsonObject) r)));
    return out;
  }

  /**
   * @param answer a node's answer to {@code load} with a watch named {@code name}
   * @param origin the run's start, System.nanoTime of the node (the first target's {@link
   *     #startNanos()})
   * @param name the watch's name
   * @return samples {@code [nanos since origin, bytes]}, in time order; bytes -1 where the
   *     interface was missing
   */
  public static List<long[]> counterSamples(JsonObject answer, long origin, String name) {
    List<long[]> out = new ArrayList<>();
    JsonArray samples = answer.getJsonObject("watch").getJsonArray(name);
    samples.forEach(
        s -> out.add(new long[] {((JsonArray) s).getLong(0) - origin, ((JsonArray) s).getLong(1)}));
    return out;
  }

  /**
   * @return when the run started on the node's clock, System.nanoTime there
   */
  public long startNanos() {
    return json.getLong("startNanos");
  }

  @Override
  public long transfers() {
    return json.getLong("transfers");
  }

  @Override
  public long failures() {
    return json.getLong("failures");
  }

  @Override
  public long verifiedWrites() {
    return json.getLong("verifiedWrites");
  }

  @Override
  public long lostWrites() {
    return json.getLong("lostWrites");
  }

  @Override
  public String lostDetails() {
    return json.getString("lostDetails");
  }

  /**
   * @return failures without an error code
   */
  public long untyped() {
    return json.getLong("untyped");
  }

  /**
   * @return failures by error code name
   */
  public Map<String, Integer> causes() {
    Map<String, Integer> out = new TreeMap<>();
    json.getJsonObject("causes")
        .forEach(e -> out.put(e.getKey(), ((Number) e.getValue()).intValue()));
    return out;
  }

  /**
   * @return the longest request latency
   */
  public long maxLatencyNanos() {
    return json.getLong("maxLatencyNanos");
  }

  /**
   * @return the median request latency
   */
  public long latencyP50Nanos() {
    return json.getLong("latencyP50Nanos");
  }

  /**
   * @return the 99th percentile of the request latencies
   */
  public long latencyP99Nanos() {
    return json.getLong("latencyP99Nanos");
  }

  /**
   * @return true when the last write of every slot completed
   */
  public boolean lastWritesCompleted() {
    return json.getBoolean("lastWritesCompleted");
  }

  /**
   * @return CRC32C of the sender's source slots after the run
   */
  public long localCrc() {
    return json.getLong("localCrc");
  }

  /**
   * @return the end of the run, nanoseconds after its start
   */
  public long end() {
    return json.getLong("durationNanos");
  }

  /**
   * @param name a fault's name
   * @return when it ran, nanoseconds after the start
   */
  public long faultTime(String name) {
    Long t = json.getJsonObject("faultTimes").getLong(name);
    if (t == null) {
      throw new AssertionError("fault '" + name + "' never ran");
    }
    return t;
  }

  /**
   * @return bytes per second completed over the whole run
   */
  public double throughput() {
    return completions.throughput(0, end());
  }

  /**
   * @param from window start, nanoseconds after the start
   * @param to window end
   * @return bytes per second of the writes that completed in the window
   */
  public double throughput(long from, long to) {
    return completions.throughput(from, to);
  }

  /**
   * @param after a fault's time
   * @param target bytes per second to reach
   * @param window the sliding window measured
   * @return nanoseconds from {@code after} to the end of the first window at or above target, or -1
   *     if never
   */
  public long recoveryNanos(long after, double target, long window) {
    return completions.recoveryNanos(after, target, window, end());
  }

  /**
   * @param from first window's start, nanoseconds after the start
   * @return throughput in MiB/s of each 500 ms window from there to the end, for reports
   */
  public String windowsMiB(long from) {
    return completions.windowsMiB(from, end(), 500_000_000L);
  }

  /**
   * @return failures by cause and by fault in flight, one line
   */
  public String failureSummary() {
    return json.getString("failureSummary");
  }

  /**
   * @return the summary plus the first failure of each cause
   */
  public String failureDetails() {
    return json.getString("failureDetails");
  }

  /**
   * @return the first failure, for messages
   */
  public String firstFailure() {
    return json.getString("firstFailure");
  }
}

package io.vte.engine.impl.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vte.api.ErrorCode;
import io.vte.api.TransferOpcode;
import io.vte.verbs.WcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the engine layer (bytes, slices, retries, stale segment refreshes, batches; requests
 * by opcode, failures by error code, request latency). Thread-safe.
 */
public final class EngineCounters {

  private final LongAdder bytes = new LongAdder();
  private final LongAdder slices = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder staleRefreshes = new LongAdder();
  private final LongAdder batches = new LongAdder();
  private final LongAdder integrityChecked = new LongAdder();
  private final LongAdder integrityCorrupted = new LongAdder();

  private final LongAdder[] requests = adders(TransferOpcode.values().length);
  private final LongAdder[] failures = adders(ErrorCode.values().length);

  /** The latency histogram, once bound to a registry; null before. */
  private volatile Timer latency;

  private static LongAdder[] adders(int n) {
    LongAdder[] out = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      out[i] = new LongAdder();
    }
    return out;
  }

  /**
   * Counts a request that ended.
   *
   * @param opcode its opcode
   * @param nanos its batch's time from submit to settled
   * @param failure the code it failed with, null when it completed
   */
  public void requestEnded(TransferOpcode opcode, long nanos, ErrorCode failure) {
    requests[opcode.ordinal()].increment();
    if (failure != null) {
      failures[failure.ordinal()].increment();
    }
    Timer t = latency;
    if (t != null) {
      t.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Counts a batch refused before anything was sent.
   *
   * @param code its cause's code
   */
  public void requestFailed(ErrorCode code) {
    failures[code.ordinal()].increment();
  }

  /**
   * @param opcode an opcode
   * @return requests of it that ended (completed or not)
   */
  public long requests(TransferOpcode opcode) {
    return requests[opcode.ordinal()].sum();
  }

  /**
   * @param code an error code
   * @return requests that failed with it (batches refused up front count once)
   */
  public long failures(ErrorCode code) {
    return failures[code.ordinal()].sum();
  }

  public void sliceDone(int length) {
    bytes.add(length);
    slices.increment();
  }

  /**
   * Counts a slice that ran with the end-to-end check: checked when it completed or was found
   * damaged, and damaged when its status is {@code INTEGRITY_ERR}.
   *
   * @param status how the slice ended (a {@code SliceStatus})
   */
  public void integrityChecked(int status) {
    if (status == WcStatus.INTEGRITY_ERR.code()) {
      integrityChecked.increment();
      integrityCorrupted.increment();
    } else if (status == 0) {
      integrityChecked.increment();
    }
  }

  /**
   * @return slices whose bytes were checked end to end (CRC32C), sound or not
   */
  public long integrityChecked() {
    return integrityChecked.sum();
  }

  /**
   * @return checked slices whose destination bytes did not match the source's
   */
  public long integrityCorrupted() {
    return integrityCorrupted.sum();
  }

  public void retry() {
    retries.increment();
  }

  public void staleRefresh() {
    staleRefreshes.increment();
  }

  public void batchSubmitted() {
    batches.increment();
  }

  /**
   * @return bytes moved by completed slices
   */
  public long bytes() {
    return bytes.sum();
  }

  /**
   * @return completed slices
   */
  public long slices() {
    return slices.sum();
  }

  /**
   * @return slices resubmitted after a failure
   */
  public long retries() {
    return retries.sum();
  }

  /**
   * @return segment descriptors refreshed because a request did not fit the cached one: its range
   *     was missing, or the peer refused its keys
   */
  public long staleRefreshes() {
    return staleRefreshes.sum();
  }

  /**
   * @return batches submitted
   */
  public long batches() {
    return batches.sum();
  }

  /**
   * Exposes the counters as Micrometer meters named {@code vte.engine.*}.
   *
   * @param registry the registry (e.g. the Vert.x Micrometer backend registry)
   * @param serverName tag value identifying this engine
   * @return the meters, to remove from the registry when the engine closes
   */
  public List<Meter> bindTo(MeterRegistry registry, String serverName) {
    List<Meter> meters = new ArrayList<>(totals(registry, serverName));
    for (TransferOpcode op : TransferOpcode.values()) {
      meters.add(
          FunctionCounter.builder("vte.engine.requests", requests[op.ordinal()], LongAdder::sum)
              .tag("engine", serverName)
              .tag("opcode", op.name())
              .description("requests that ended (completed or not), by opcode")
              .register(registry));
    }
    for (ErrorCode code : ErrorCode.values()) {
      meters.add(
          FunctionCounter.builder(
                  "vte.engine.requests.failed", failures[code.ordinal()], LongAdder::sum)
              .tag("engine", serverName)
              .tag("code", code.name())
              .description("requests that failed, by error code")
              .register(registry));
    }
    Timer timer =
        Timer.builder("vte.engine.request.latency")
            .tag("engine", serverName)
            .publishPercentileHistogram()
            .description("time from submit to the end of a request's batch, on every submit path")
            .register(registry);
    latency = timer;
    meters.add(timer);
    return meters;
  }

  private List<Meter> totals(MeterRegistry registry, String serverName) {
    return List.of(
        bind(
            registry,
            "vte.engine.bytes",
            "bytes",
            "bytes moved by completed requests",
            serverName,
            bytes),
        bind(registry, "vte.engine.slices", null, "slices completed", serverName, slices),
        bind(
            registry,
            "vte.engine.retries",
            null,
            "slices retried on another rail after a failure",
            serverName,
            retries),
        bind(
            registry,
            "vte.engine.segment.stale.refreshes",
            null,
            "peer segment descriptors fetched again because a cached one was stale",
            serverName,
            staleRefreshes),
        bind(registry, "vte.engine.batches", null, "batches submitted", serverName, batches),
        bind(
            registry,
            "vte.engine.integrity.checked",
            null,
            "slices whose bytes were checked end to end (CRC32C of source against destination)",
            serverName,
            integrityChecked),
        bind(
            registry,
            "vte.engine.integrity.corrupted",
            null,
            "checked slices whose destination bytes did not match the source's",
            serverName,
            integrityCorrupted));
  }

  private static Meter bind(
      MeterRegistry registry,
      String name,
      String baseUnit,
      String description,
      String serverName,
      LongAdder adder) {
    return FunctionCounter.builder(name, adder, LongAdder::sum)
        .tag("engine", serverName)
        .baseUnit(baseUnit)
        .description(description)
        .register(registry);
  }
}

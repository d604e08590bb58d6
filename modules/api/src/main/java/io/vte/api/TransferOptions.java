package io.vte.api;

import java.time.Duration;

/**
 * Per-batch options of {@link TransferEngine#submit(java.util.List, TransferOptions)}: {@code
 * engine.submit(requests, new TransferOptions().setDeadline(Duration.ofSeconds(5)))}.
 */
public final class TransferOptions {

  /** Default deadline of a batch. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  private Duration deadline = DEFAULT_DEADLINE;
  private String railLocalDevice;
  private String railRemoteDevice;
  private Integrity integrity;

  /**
   * @return the deadline: requests unfinished this long after submit report TIMED_OUT
   */
  public Duration getDeadline() {
    return deadline;
  }

  /**
   * @param deadline positive duration
   * @return this
   * @throws VteException INVALID_ARGUMENT for a null, zero or negative deadline
   */
  public TransferOptions setDeadline(Duration deadline) {
    if (deadline == null || deadline.isZero() || deadline.isNegative()) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "deadline must be positive, got " + deadline);
    }
    this.deadline = deadline;
    return this;
  }

  /**
   * Pins every request of the batch to one rail, for probes and diagnostics ({@code vte links}):
   * its slices go from local device {@code localDevice} to the peer's device {@code remoteDevice}
   * only, neither over the same-host rail nor over another rail, and are not retried. A request
   * fails instead, with NO_RAIL naming why when the rail cannot carry it (the local port is down,
   * the peer describes its device as down, the remote buffer has no key on it), with
   * INVALID_ARGUMENT when either device does not exist, else with the failure of its one attempt
   * (e.g. TIMED_OUT on a path that drops everything). A rail held down after failures is tried all
   * the same: the pinned request is its probe. Unpinned requests choose among every healthy rail.
   *
   * @param localDevice a device of this engine ({@link DeviceStatus#name()})
   * @param remoteDevice a device of the peer ({@link SegmentDevice#name()})
   * @return this
   * @throws VteException INVALID_ARGUMENT for a null or empty name
   */
  public TransferOptions setRail(String localDevice, String remoteDevice) {
    if (localDevice == null
        || localDevice.isEmpty()
        || remoteDevice == null
        || remoteDevice.isEmpty()) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "a rail needs a local and a remote device name, got '"
              + localDevice
              + "' -> '"
              + remoteDevice
              + "'");
    }
    this.railLocalDevice = localDevice;
    this.railRemoteDevice = remoteDevice;
    return this;
  }

  /**
   * @return the local device of the rail set by {@link #setRail}, null when requests are not pinned
   */
  public String getRailLocalDevice() {
    return railLocalDevice;
  }

  /**
   * @return the peer's device of the rail set by {@link #setRail}, null when requests are not
   *     pinned
   */
  public String getRailRemoteDevice() {
    return railRemoteDevice;
  }

  /**
   * Overrides the engine's {@code integrity} option for the requests of this batch: {@link
   * Integrity#CRC32C} checks each slice's CRC32C (source memory against destination memory) before
   * a request completes, {@link Integrity#NONE} checks nothing.
   *
   * @param integrity the check, or null for the engine's option
   * @return this
   */
  public TransferOptions setIntegrity(Integrity integrity) {
    this.integrity = integrity;
    return this;
  }

  /**
   * @return the check set by {@link #setIntegrity}, or null when the engine's option applies
   */
  public Integrity getIntegrity() {
    return integrity;
  }
}

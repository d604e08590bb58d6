package io.vte.engine.impl;

import io.vte.api.ErrorCode;
import io.vte.api.FaultInjector;
import io.vte.api.RailStatus;
import io.vte.api.VteException;
import io.vte.engine.impl.shm.SharedMemoryRail;
import io.vte.verbs.PayloadFaults;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsFaultInjector;
import java.time.Duration;

/**
 * The public {@link FaultInjector} of an engine whose verbs provider offers fault injection (soft
 * verbs does): the provider's {@link VerbsFaultInjector} (port 1, the port the engine uses), with
 * its errors as typed {@link VteException}s (a fault the provider cannot inject is
 * DEVICE_UNAVAILABLE).
 */
final class SoftVerbsFaults implements FaultInjector {

  private static final int PORT = 1;

  private final VerbsFaultInjector faults;
  private final SharedMemoryRail sameHost;

  /**
   * @param faults the provider's injector
   * @param sameHost the engine's same-host rail, whose copies {@link RailStatus#SAME_HOST_DEVICE}
   *     names
   */
  SoftVerbsFaults(VerbsFaultInjector faults, SharedMemoryRail sameHost) {
    this.faults = faults;
    this.sameHost = sameHost;
  }

  @Override
  public void portDown(String device) {
    run(device, () -> faults.portDown(device, PORT));
  }

  @Override
  public void portUp(String device) {
    run(device, () -> faults.portUp(device, PORT));
  }

  @Override
  public void dropFrames(String device, double fraction, long seed) {
    run(device, () -> faults.dropFrames(device, fraction, seed));
  }

  @Override
  public void delayFrames(String device, double fraction, Duration delay, long seed) {
    if (delay == null) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "frame delay of device '" + device + "' is null");
    }
    run(device, () -> faults.delayFrames(device, fraction, delay.toNanos(), seed));
  }

  @Override
  public void dropOneFrame(String device, long nth) {
    run(device, () -> faults.dropOneFrame(device, nth));
  }

  @Override
  public void corruptFrames(String device, double fraction, long seed) {
    run(device, () -> faults.corruptFrames(device, fraction, seed));
  }

  @Override
  public void corruptLanded(String device, double fraction, long seed) {
    if (!RailStatus.SAME_HOST_DEVICE.equals(device)) {
      run(device, () -> faults.corruptLanded(device, fraction, seed));
    } else if (fraction >= 0 && fraction <= 1) {
      sameHost.corruptLanded(new PayloadFaults(fraction, seed));
    } else {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "a corruption fraction must be 0..1, got " + fraction + " for " + device);
    }
  }

  @Override
  public void clearFrameFaults(String device) {
    if (RailStatus.SAME_HOST_DEVICE.equals(device)) {
      sameHost.corruptLanded(null);
    } else {
      run(device, () -> faults.clearFrameFaults(device));
    }
  }

  @Override
  public void failQp(String device, int qpNumber) {
    run(device, () -> faults.forceQpError(device, qpNumber));
  }

  @Override
  public void killDevice(String device) {
    run(device, () -> faults.killDevice(device));
  }

  private static void run(String device, Runnable fault) {
    try {
      fault.run();
    } catch (VerbsException e) {
      ErrorCode code =
          e.error() == VerbsError.NO_DEVICE || e.error() == VerbsError.INVALID_ARGUMENT
              ? ErrorCode.INVALID_ARGUMENT
              : ErrorCode.DEVICE_UNAVAILABLE;
      throw new VteException(code, "fault on device '" + device + "': " + e.getMessage(), e);
    }
  }
}

package io.vte.engine.impl;

import io.vte.api.ErrorCode;
import io.vte.api.FaultInjector;
import io.vte.api.VteException;
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

  SoftVerbsFaults(VerbsFaultInjector faults) {
    this.faults = faults;
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
  public void clearFrameFaults(String device) {
    run(device, () -> faults.clearFrameFaults(device));
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

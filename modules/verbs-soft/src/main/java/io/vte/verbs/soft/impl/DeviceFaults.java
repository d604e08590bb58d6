package io.vte.verbs.soft.impl;

import io.vte.verbs.AsyncEventType;
import io.vte.verbs.PayloadFaults;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The faults a soft device can be made to suffer (the fault injector's handle on it, {@link
 * SoftDevice#faults()}): port down/up, dropped and delayed frames, a stalled or crashed NIC thread,
 * a dead device, a QP error. Any thread; none of them blocks.
 */
public final class DeviceFaults {

  private final SoftDevice device;

  DeviceFaults(SoftDevice device) {
    this.device = device;
  }

  /**
   * Takes the port down (the fault injector): every connection through it closes, new ones are
   * refused, PORT_ERR is raised. The port stays down until {@link #portUp(int)}, whatever the link
   * does.
   *
   * @param port the port number (1)
   */
  public void portDown(int port) {
    device.requirePort(port);
    device.nic().execute(() -> device.holdPortDown(true));
  }

  /**
   * Lets the port come back (the fault injector): it is ACTIVE again, with PORT_ACTIVE raised, once
   * the kernel link is up too.
   *
   * @param port the port number (1)
   */
  public void portUp(int port) {
    device.requirePort(port);
    device.nic().execute(() -> device.holdPortDown(false));
  }

  /**
   * Drops and delays a fraction of the frames this device sends.
   *
   * @param dropFraction fraction of frames dropped, 0..1
   * @param delayFraction fraction of frames held back, 0..1
   * @param delayNanos how long a held frame (and those behind it on its connection) waits
   * @param seed seed of the generator that picks the frames
   */
  public void setFrameFaults(
      double dropFraction, double delayFraction, long delayNanos, long seed) {
    if (!(dropFraction >= 0 && dropFraction <= 1)
        || !(delayFraction >= 0 && delayFraction <= 1)
        || delayNanos < 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "fault fractions must be 0..1 and the delay >= 0, got drop="
              + dropFraction
              + " delay="
              + delayFraction
              + " delayNanos="
              + delayNanos);
    }
    device.frameFaults().set(dropFraction, delayFraction, delayNanos, seed);
  }

  /**
   * Drops exactly one of the request and response frames this device sends: the {@code nth} from
   * now on.
   *
   * @param nth 1 for the next frame, 2 for the one after, ...
   */
  public void dropOneFrame(long nth) {
    if (nth < 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "the frame to drop is counted from 1, got " + nth);
    }
    device.frameFaults().dropOne(nth);
  }

  /**
   * Flips a bit in a seeded fraction of the payloads this device sends, after their checksum.
   *
   * @param fraction of the payload frames, 0..1
   * @param seed seed of the generator that picks the payloads and bits
   */
  public void corruptFrames(double fraction, long seed) {
    device.frameFaults().corrupt(checkFraction(fraction), seed);
  }

  /**
   * Flips a bit in the destination memory of a seeded fraction of the payloads that land on this
   * device, after the copy and before any check.
   *
   * @param fraction of the landed payloads, 0..1
   * @param seed seed of the generator that picks the payloads and bits
   */
  public void corruptLanded(double fraction, long seed) {
    device.setLandingFaults(new PayloadFaults(checkFraction(fraction), seed));
  }

  private static double checkFraction(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "a corruption fraction must be 0..1, got " + fraction);
    }
    return fraction;
  }

  /** Stops dropping, delaying and corrupting frames and landed payloads. */
  public void clearFrameFaults() {
    device.frameFaults().clear();
    device.setLandingFaults(null);
  }

  /**
   * Holds the device's NIC thread (the fault injector's stalled NIC): it reads no socket and serves
   * no QP until {@link #releaseNic()}, while peers' requests wait unread in its sockets, as behind
   * a wedged NIC. The port stays ACTIVE and the control plane works (QP state changes, close).
   * Never blocks, so an event loop may call it; stalling a stalled NIC adds no second hold.
   *
   * @return completes once the thread is held; fails with {@link VerbsException} {@link
   *     VerbsError#INVALID_STATE} when it is not held within {@link #STALL_TIMEOUT}
   */
  public CompletionStage<Void> stallNic() {
    return device
        .nic()
        .hold()
        .orTimeout(STALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            e ->
                CompletableFuture.failedFuture(
                    new VerbsException(
                        VerbsError.INVALID_STATE,
                        "the NIC thread of "
                            + device.deviceName()
                            + " was not held within "
                            + STALL_TIMEOUT.toSeconds()
                            + " s",
                        e)));
  }

  /** How long {@link #stallNic()} waits for the NIC thread to be held. */
  public static final Duration STALL_TIMEOUT = Duration.ofSeconds(10);

  /** Lets the NIC thread held by {@link #stallNic()} go on; nothing when it is not held. */
  public void releaseNic() {
    device.nic().releaseHold();
  }

  /** Kills the device: port down for good, every QP to ERR (flushing), DEVICE_FATAL raised. */
  public void kill() {
    device.nic().execute(device::die);
  }

  /**
   * Makes the NIC thread fail as an unexpected internal error would (the fault injector): the
   * device dies as after {@link #kill()}, and the thread stays only to flush what is outstanding or
   * posted later.
   */
  public void crashNic() {
    device
        .nic()
        .execute(
            () -> {
              throw new InjectedNicCrash(device.deviceName());
            });
  }

  /** What {@link #crashNic()} throws on the NIC thread: an error no command handler catches. */
  private static final class InjectedNicCrash extends Error {
    InjectedNicCrash(String device) {
      super("injected crash of the NIC thread of " + device);
    }
  }

  /**
   * Forces a QP into ERR as a fatal error would: its work flushes and QP_FATAL is raised.
   *
   * @param qpNum the QP number
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for an unknown QP number
   */
  public void forceQpError(int qpNum) {
    SoftQp qp = device.qp(qpNum);
    if (qp == null) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "no QP " + qpNum + " on " + device.deviceName());
    }
    device
        .nic()
        .execute(
            () -> {
              if (qp.enterError()) {
                device.nic().schedule(qp);
                device.raiseQpEvent(AsyncEventType.QP_FATAL, qpNum);
              }
            });
  }
}

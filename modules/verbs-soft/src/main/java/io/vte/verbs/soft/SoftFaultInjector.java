package io.vte.verbs.soft;

import io.vte.verbs.VerbsFaultInjector;
import io.vte.verbs.soft.impl.DeviceFaults;
import java.util.concurrent.CompletionStage;

/**
 * Injects failures into the open devices of a {@link SoftVerbsProvider}, for tests and the CLI.
 * Every method names the device; an unknown or closed device is a {@code VerbsException}
 * (NO_DEVICE). It offers every fault of {@link VerbsFaultInjector}, and crashes of NIC threads.
 */
public final class SoftFaultInjector implements VerbsFaultInjector {

  private final SoftVerbsProvider provider;

  SoftFaultInjector(SoftVerbsProvider provider) {
    this.provider = provider;
  }

  /**
   * Port down: all traffic through it stops (connections close, new ones are refused), PORT_ERR is
   * raised; outstanding work requests time out as RETRY_EXC_ERR unless the port returns in time.
   *
   * @param device device name
   * @param port port number (1)
   */
  @Override
  public void portDown(String device, int port) {
    provider.openDevice(device).faults().portDown(port);
  }

  /**
   * Port up again: PORT_ACTIVE is raised, QPs reconnect when they have work.
   *
   * @param device device name
   * @param port port number (1)
   */
  @Override
  public void portUp(String device, int port) {
    provider.openDevice(device).faults().portUp(port);
  }

  /**
   * Drops a fraction of the frames the device sends (requests and responses), chosen by a seeded
   * generator; the requester's timeout and go-back-N retransmission recover or fail the work.
   *
   * @param device device name
   * @param fraction 0..1
   * @param seed generator seed
   */
  @Override
  public void dropFrames(String device, double fraction, long seed) {
    provider.openDevice(device).faults().setFrameFaults(fraction, 0, 0, seed);
  }

  /**
   * Delays a fraction of the frames the device sends; a held frame also holds those behind it.
   *
   * @param device device name
   * @param fraction 0..1
   * @param delayNanos how long each picked frame waits
   * @param seed generator seed
   */
  @Override
  public void delayFrames(String device, double fraction, long delayNanos, long seed) {
    provider.openDevice(device).faults().setFrameFaults(0, fraction, delayNanos, seed);
  }

  /**
   * Drops exactly one frame: the {@code nth} request or response frame the device sends from now on
   * (1 = the next one), replacing any drop or delay setting; every other frame goes through. For
   * deterministic tests of what one lost frame does.
   *
   * @param device device name
   * @param nth which frame to drop, counted from 1
   */
  @Override
  public void dropOneFrame(String device, long nth) {
    provider.openDevice(device).faults().dropOneFrame(nth);
  }

  /**
   * Flips one bit in a seeded fraction of the payloads the device sends (WRITE requests, READ
   * responses), after their CRC32C was computed from the source memory.
   *
   * @param device device name
   * @param fraction 0..1
   * @param seed generator seed
   */
  @Override
  public void corruptFrames(String device, double fraction, long seed) {
    provider.openDevice(device).faults().corruptFrames(fraction, seed);
  }

  /**
   * Flips one bit in the destination memory of a seeded fraction of the payloads landing on the
   * device (WRITEs it executes, READ responses it receives), after the copy, before the check.
   *
   * @param device device name
   * @param fraction 0..1
   * @param seed generator seed
   */
  @Override
  public void corruptLanded(String device, double fraction, long seed) {
    provider.openDevice(device).faults().corruptLanded(fraction, seed);
  }

  /**
   * Stops dropping, delaying and corrupting frames of the device.
   *
   * @param device device name
   */
  @Override
  public void clearFrameFaults(String device) {
    provider.openDevice(device).faults().clearFrameFaults();
  }

  /**
   * Kills the device: every QP goes to ERR and flushes, the port goes down, DEVICE_FATAL is raised.
   *
   * @param device device name
   */
  @Override
  public void killDevice(String device) {
    provider.openDevice(device).faults().kill();
  }

  /**
   * Crashes the device's NIC thread, as an unexpected internal error would: the device dies as
   * after {@link #killDevice}, and work outstanding or posted later still completes, flushed.
   *
   * @param device device name
   */
  public void crashNic(String device) {
    provider.openDevice(device).faults().crashNic();
  }

  /**
   * Holds the device's NIC thread, as a wedged NIC: peers' requests wait unread in its sockets and
   * its own QPs make no progress until {@link #releaseNic}, while the port stays ACTIVE and the
   * device's QPs still change state (a QP moved to ERR meanwhile executes none of what waits).
   * Never blocks: an event loop may call it; a thread that may block waits on the stage.
   *
   * @param device device name
   * @return completes once the thread is held (see {@link DeviceFaults#stallNic()})
   */
  public CompletionStage<Void> stallNic(String device) {
    return provider.openDevice(device).faults().stallNic();
  }

  /**
   * Lets the NIC thread held by {@link #stallNic} go on; nothing when it is not held.
   *
   * @param device device name
   */
  public void releaseNic(String device) {
    provider.openDevice(device).faults().releaseNic();
  }

  /**
   * Forces a QP into ERR as a fatal hardware error would, raising QP_FATAL.
   *
   * @param device device name
   * @param qpNum the QP number
   */
  @Override
  public void forceQpError(String device, int qpNum) {
    provider.openDevice(device).faults().forceQpError(qpNum);
  }
}

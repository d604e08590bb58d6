package io.vte.verbs;

/**
 * Fault injection into the open devices of a provider: a capability of the verbs SPI that a
 * provider may offer ({@link VerbsProvider#faultInjector()}), for tests and tools. Soft verbs offer
 * every fault; a provider offering only some throws {@link VerbsError#NOT_SUPPORTED} from the
 * others (the defaults here). Every method names the device; an unknown or closed device is a
 * {@link VerbsException} ({@link VerbsError#NO_DEVICE}).
 */
public interface VerbsFaultInjector {

  /**
   * Port down: traffic through it stops, PORT_ERR is raised, outstanding work fails unless the port
   * returns in time.
   *
   * @param device device name
   * @param port port number (1)
   */
  default void portDown(String device, int port) {
    throw unsupported("port-down");
  }

  /**
   * Port up again: PORT_ACTIVE is raised, QPs reconnect when they have work.
   *
   * @param device device name
   * @param port port number (1)
   */
  default void portUp(String device, int port) {
    throw unsupported("port-up");
  }

  /**
   * Drops a seeded fraction of the frames (packets) the device sends.
   *
   * @param device device name
   * @param fraction 0..1
   * @param seed generator seed
   */
  default void dropFrames(String device, double fraction, long seed) {
    throw unsupported("frame drops");
  }

  /**
   * Delays a seeded fraction of the frames the device sends; a held frame holds those behind it.
   *
   * @param device device name
   * @param fraction 0..1
   * @param delayNanos how long each picked frame waits
   * @param seed generator seed
   */
  default void delayFrames(String device, double fraction, long delayNanos, long seed) {
    throw unsupported("frame delays");
  }

  /**
   * Drops exactly the {@code nth} frame the device sends from now on (1 = the next one).
   *
   * @param device device name
   * @param nth which frame, counted from 1
   */
  default void dropOneFrame(String device, long nth) {
    throw unsupported("one-frame drops");
  }

  /**
   * Flips one bit in the payload of a seeded fraction of the payload frames the device sends (WRITE
   * requests, READ responses), after their checksum was computed from the source memory: bytes
   * damaged on the wire.
   *
   * @param device device name
   * @param fraction 0..1
   * @param seed generator seed
   */
  default void corruptFrames(String device, double fraction, long seed) {
    throw unsupported("wire corruption");
  }

  /**
   * Flips one bit in the destination memory of a seeded fraction of the payloads that land on the
   * device (WRITEs it executes, READ responses it receives), after the copy and before any check:
   * memory damaged after the DMA.
   *
   * @param device device name
   * @param fraction 0..1
   * @param seed generator seed
   */
  default void corruptLanded(String device, double fraction, long seed) {
    throw unsupported("post-copy corruption");
  }

  /**
   * Stops dropping, delaying and corrupting the device's frames and landed payloads.
   *
   * @param device device name
   */
  default void clearFrameFaults(String device) {
    throw unsupported("frame faults");
  }

  /**
   * Kills the device: every QP goes to ERR and flushes, the port goes down, DEVICE_FATAL is raised.
   *
   * @param device device name
   */
  default void killDevice(String device) {
    throw unsupported("device kills");
  }

  /**
   * Forces a QP into ERR as a fatal hardware error would, raising QP_FATAL.
   *
   * @param device device name
   * @param qpNum the QP number
   */
  default void forceQpError(String device, int qpNum) {
    throw unsupported("QP errors");
  }

  private VerbsException unsupported(String fault) {
    return new VerbsException(
        VerbsError.NOT_SUPPORTED, getClass().getSimpleName() + " cannot inject " + fault);
  }
}

package io.vte.api;

import java.time.Duration;

/**
 * Injects faults into the devices of one engine that runs on soft verbs ({@link
 * EngineDiagnostics#faultInjector()}), for fault tests and the CLI's {@code --inject}. Every method
 * names one of the engine's devices and fails with a {@link VteException} INVALID_ARGUMENT naming
 * it when the engine has no such open device. A port going down closes sockets: call these from a
 * thread of your own, not from an event loop.
 */
public interface FaultInjector {

  /**
   * Takes the device's port down: its connections close, new ones are refused, PORT_ERR is raised
   * and work in flight fails unless the port returns in time.
   *
   * @param device the device name
   */
  void portDown(String device);

  /**
   * Brings the device's port up again: PORT_ACTIVE is raised and its QPs reconnect when they have
   * work.
   *
   * @param device the device name
   */
  void portUp(String device);

  /**
   * Drops a seeded random fraction of the frames the device sends; retransmission recovers or fails
   * the work.
   *
   * @param device the device name
   * @param fraction 0..1
   * @param seed the generator's seed
   */
  void dropFrames(String device, double fraction, long seed);

  /**
   * Delays a seeded random fraction of the frames the device sends; a held frame holds those behind
   * it too.
   *
   * @param device the device name
   * @param fraction 0..1
   * @param delay how long each picked frame waits
   * @param seed the generator's seed
   */
  void delayFrames(String device, double fraction, Duration delay, long seed);

  /**
   * Drops exactly the {@code nth} frame the device sends from now on (1 = the next one), replacing
   * any drop or delay setting.
   *
   * @param device the device name
   * @param nth which frame, counted from 1
   */
  void dropOneFrame(String device, long nth);

  /**
   * Flips one bit in a seeded random fraction of the payloads the device sends (WRITE requests,
   * READ responses) after their checksum was computed from the source memory: damage on the wire.
   * With integrity {@code crc32c} the receiver finds it; with {@code none} it lands unnoticed.
   *
   * @param device the device name
   * @param fraction 0..1
   * @param seed the generator's seed
   */
  void corruptFrames(String device, double fraction, long seed);

  /**
   * Flips one bit in the destination memory of a seeded random fraction of the payloads that land
   * through the device (WRITEs it executes, READ responses it receives), after the copy and before
   * any check: memory damaged after the DMA. The device {@link RailStatus#SAME_HOST_DEVICE} means
   * this engine's same-host copies.
   *
   * @param device the device name, or {@link RailStatus#SAME_HOST_DEVICE}
   * @param fraction 0..1
   * @param seed the generator's seed
   */
  void corruptLanded(String device, double fraction, long seed);

  /**
   * Stops dropping, delaying and corrupting the device's frames and landed payloads ({@link
   * RailStatus#SAME_HOST_DEVICE}: the same-host copies).
   *
   * @param device the device name
   */
  void clearFrameFaults(String device);

  /**
   * Forces one QP of the device into the error state as a fatal hardware error would (QP_FATAL);
   * the QP numbers are in {@link DeviceStatus#liveQpNumbers()}.
   *
   * @param device the device name
   * @param qpNumber the QP number
   */
  void failQp(String device, int qpNumber);

  /**
   * Kills the device: every QP goes to the error state and flushes, the port goes down,
   * DEVICE_FATAL is raised.
   *
   * @param device the device name
   */
  void killDevice(String device);
}

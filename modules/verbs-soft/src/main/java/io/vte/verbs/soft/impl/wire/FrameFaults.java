package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.PayloadFaults;
import java.util.SplittableRandom;

/**
 * Injected frame faults of one device: drop or delay a fraction of the frames it sends, decided by
 * a seeded generator so a run is reproducible, or drop exactly the n-th request or response frame
 * it sends; apart from those, flip a bit in a fraction of the payloads it sends ({@link
 * #corruptBit}). Configured from any thread; consulted on the NIC thread.
 */
public final class FrameFaults {

  private record Settings(
      double dropFraction, double delayFraction, long delayNanos, long seed, long dropNth) {}

  private static final Settings NONE = new Settings(0, 0, 0, 0, 0);

  private volatile Settings settings = NONE;

  /** Picks the payloads whose bits flip on the wire; null for none. */
  private volatile PayloadFaults corruption;

  private Settings seen = NONE;
  private SplittableRandom random = new SplittableRandom(0);

  /** Frames asked about since the settings changed, for {@code dropNth}. */
  private long frames;

  /** Sets the fractions (0..1) and the delay; a new seed restarts the sequence. */
  public void set(double dropFraction, double delayFraction, long delayNanos, long seed) {
    settings = new Settings(dropFraction, delayFraction, delayNanos, seed, 0);
  }

  /** Drops the {@code nth} (1 = the next) frame sent from now on, and no other. */
  public void dropOne(long nth) {
    settings = new Settings(0, 0, 0, 0, nth);
  }

  /** Flips one bit in a seeded fraction (0..1) of the payloads sent from now on. */
  public void corrupt(double fraction, long seed) {
    corruption = new PayloadFaults(fraction, seed);
  }

  public void clear() {
    settings = NONE;
    corruption = null;
  }

  /**
   * @return true when frames may be dropped, delayed or corrupted (any thread)
   */
  public boolean active() {
    return settings != NONE || corruption != null;
  }

  /**
   * @param payloadLength bytes of the payload about to be sent
   * @return the bit of it to flip, or -1 to send it as it is (NIC thread)
   */
  public long corruptBit(int payloadLength) {
    PayloadFaults c = corruption;
    return c == null ? -1 : c.pickBit(payloadLength);
  }

  /**
   * @return true when the next frame should be dropped (NIC thread)
   */
  public boolean drop() {
    Settings s = settings;
    SplittableRandom r = sync(s); // also restarts the frame count when the settings changed
    if (s.dropNth > 0) {
      return ++frames == s.dropNth;
    }
    return s.dropFraction > 0 && r.nextDouble() < s.dropFraction;
  }

  /**
   * @return how long to hold the next frame, 0 for not at all (NIC thread)
   */
  public long delayNanos() {
    Settings s = settings;
    return s.delayFraction > 0 && sync(s).nextDouble() < s.delayFraction ? s.delayNanos : 0;
  }

  private SplittableRandom sync(Settings s) {
    if (s != seen) {
      seen = s;
      random = new SplittableRandom(s.seed);
      frames = 0;
    }
    return random;
  }
}

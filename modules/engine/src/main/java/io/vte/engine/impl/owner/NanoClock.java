package io.vte.engine.impl.owner;

/** A monotonic nanosecond clock; tests substitute a fake one to drive deadlines. */
@FunctionalInterface
public interface NanoClock {

  /** The system monotonic clock. */
  NanoClock SYSTEM = System::nanoTime;

  /**
   * @return monotonic time in nanoseconds
   */
  long nanoTime();
}

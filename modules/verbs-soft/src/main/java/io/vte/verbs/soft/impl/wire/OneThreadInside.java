package io.vte.verbs.soft.impl.wire;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A check, meant to run inside {@code assert} (tests), that one thread at a time is inside an
 * object (a connection): {@link #enter} records the thread, re-entry by it is fine, and a second
 * thread entering meanwhile is counted for the whole JVM ({@link #overlaps()}).
 */
public final class OneThreadInside {

  private static final AtomicInteger OVERLAPS = new AtomicInteger();
  private static volatile String firstOverlap;

  private final AtomicReference<Thread> inside = new AtomicReference<>();

  /** How deep the thread inside is (re-entries). */
  private int depth;

  /**
   * @param what the object, named in the description of an overlap
   * @return true, so that it can run inside {@code assert}
   */
  public boolean enter(Object what) {
    Thread t = Thread.currentThread();
    if (inside.get() == t) {
      depth++;
    } else if (inside.compareAndSet(null, t)) {
      depth = 1;
    } else if (OVERLAPS.getAndIncrement() == 0) {
      firstOverlap = what + ": " + t.getName() + " entered while " + inside.get() + " was inside";
    }
    return true;
  }

  /**
   * Pairs with {@link #enter}.
   *
   * @return true
   */
  public boolean leave() {
    if (inside.get() == Thread.currentThread() && --depth == 0) {
      inside.set(null);
    }
    return true;
  }

  /**
   * @return how many times a thread entered while another was inside, since the JVM started
   */
  public static int overlaps() {
    return OVERLAPS.get();
  }

  /**
   * @return the first such entry, described, or null
   */
  public static String firstOverlap() {
    return firstOverlap;
  }
}

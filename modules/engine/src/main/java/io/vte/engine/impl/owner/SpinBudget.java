package io.vte.engine.impl.owner;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many owners may busy-poll at once. A polling owner keeps its event-loop thread running; once
 * more threads poll than the machine has cores to spare, they take the CPU from the NIC and caller
 * threads that move the bytes and answer the completions they wait for, and everything slows down.
 * Owners ask for a token before they poll past their first empty cycles and give it back when they
 * sleep. Thread-safe, lock-free.
 */
final class SpinBudget {

  /**
   * The budget every owner of this JVM shares: half the processors the JVM may use, at least one.
   * It is one for the whole JVM, not per engine, because the engines of a JVM share its cores.
   */
  static final SpinBudget MACHINE =
      new SpinBudget(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));

  private final AtomicInteger free;

  /**
   * @param tokens owners that may poll at once, at least 1
   */
  SpinBudget(int tokens) {
    if (tokens < 1) {
      throw new IllegalArgumentException("a spin budget needs at least 1 token, got " + tokens);
    }
    this.free = new AtomicInteger(tokens);
  }

  /**
   * @return true when the caller got a token (it must {@link #release()} it)
   */
  boolean tryAcquire() {
    int n;
    while ((n = free.get()) > 0) {
      if (free.compareAndSet(n, n - 1)) {
        return true;
      }
    }
    return false;
  }

  /** Gives a token back. */
  void release() {
    free.incrementAndGet();
  }

  /**
   * @return tokens free now
   */
  int free() {
    return free.get();
  }
}

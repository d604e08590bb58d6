package io.vte.verbs;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many threads of one kind may busy-poll at once. A polling thread keeps its core; once more
 * threads poll than the machine has cores to spare, they take the CPU from the threads that move
 * the bytes and answer what the pollers wait for, and everything slows down. A thread asks for a
 * token before it polls past its first empty rounds and gives it back when it sleeps. The engine's
 * owners share one budget, the soft NIC threads another; each is one for the whole JVM, not per
 * engine or device, because they share the JVM's cores. A thread that found no token free marks the
 * budget {@link #isWanted() wanted}, so that a holder polling for a lesser reason (an owner with
 * nothing on the wire, polling for a submission) gives its token up. Thread-safe, lock-free.
 */
public final class SpinBudget {

  /**
   * @return a budget of half the processors the JVM may use, at least one token
   */
  public static SpinBudget halfTheProcessors() {
    return new SpinBudget(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
  }

  private final AtomicInteger free;

  /** A {@link #tryAcquire()} found no token free since the last one that got a token. */
  private volatile boolean wanted;

  /**
   * @param tokens threads that may poll at once, at least 1
   * @throws IllegalArgumentException for fewer than 1
   */
  public SpinBudget(int tokens) {
    if (tokens < 1) {
      throw new IllegalArgumentException("a spin budget needs at least 1 token, got " + tokens);
    }
    this.free = new AtomicInteger(tokens);
  }

  /**
   * @return true when the caller got a token (it must {@link #release()} it); false marks the
   *     budget wanted until a later call gets one
   */
  public boolean tryAcquire() {
    int n;
    while ((n = free.get()) > 0) {
      if (free.compareAndSet(n, n - 1)) {
        if (wanted) {
          wanted = false;
        }
        return true;
      }
    }
    wanted = true;
    return false;
  }

  /**
   * @return true when a thread asked for a token and found none free since the last thread got one
   */
  public boolean isWanted() {
    return wanted;
  }

  /** Gives a token back. */
  public void release() {
    free.incrementAndGet();
  }

  /**
   * @return tokens free now
   */
  public int free() {
    return free.get();
  }
}

package io.vte.testkit;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition or a future with a deadline, never with a bare sleep. For test threads
 * only.
 */
public final class Await {

  private Await() {}

  /**
   * Waits until {@code condition} holds, re-checking with a short park.
   *
   * @param what description used in the failure message
   * @param deadline how long to wait at most
   * @param condition the condition
   * @throws AssertionError when the deadline passes first
   */
  public static void until(String what, Duration deadline, BooleanSupplier condition) {
    long end = System.nanoTime() + deadline.toNanos();
    long park = 100_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("timed out after " + deadline + " waiting for: " + what);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(park);
      park = Math.min(park * 2, 10_000_000);
    }
  }

  /**
   * Waits until {@code value} returns {@code expected}; the failure message shows the last value.
   *
   * @param what description
   * @param deadline how long to wait at most
   * @param expected the expected value
   * @param value supplier of the current value
   * @param <T> value type
   */
  public static <T> void untilEquals(
      String what, Duration deadline, T expected, Supplier<T> value) {
    try {
      until(what, deadline, () -> java.util.Objects.equals(expected, value.get()));
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + " (expected " + expected + ", last " + value.get() + ")");
    }
  }

  /**
   * Waits until {@code value} returns something {@code accepted}, and returns that value, so a test
   * can go on asserting on the very state it waited for; the failure message shows the last value.
   *
   * @param what description
   * @param deadline how long to wait at most
   * @param value supplier of the current value
   * @param accepted what the value must satisfy
   * @param <T> value type
   * @return the first value accepted
   */
  public static <T> T value(
      String what, Duration deadline, Supplier<T> value, java.util.function.Predicate<T> accepted) {
    java.util.concurrent.atomic.AtomicReference<T> last =
        new java.util.concurrent.atomic.AtomicReference<>();
    try {
      until(
          what,
          deadline,
          () -> {
            last.set(value.get());
            return accepted.test(last.get());
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + " (last " + last.get() + ")");
    }
    return last.get();
  }

  /**
   * Waits for a Vert.x future's result.
   *
   * @param future the future
   * @param deadline how long to wait at most
   * @param <T> result type
   * @return the result
   * @throws AssertionError on timeout; the failure is rethrown as is when it is unchecked
   */
  public static <T> T result(Future<T> future, Duration deadline) {
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("future not complete after " + deadline);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new AssertionError("future failed", cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * Waits for a Vert.x future to fail and returns its cause.
   *
   * @param future the future
   * @param deadline how long to wait at most
   * @return the failure
   * @throws AssertionError when it succeeds or times out
   */
  public static Throwable failure(Future<?> future, Duration deadline) {
    try {
      Object r =
          future
              .toCompletionStage()
              .toCompletableFuture()
              .get(deadline.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a failure, got success: " + r);
    } catch (TimeoutException e) {
      throw new AssertionError("future not complete after " + deadline);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}

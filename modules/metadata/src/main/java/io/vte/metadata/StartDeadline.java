package io.vte.metadata;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.function.Function;

/**
 * The deadline of a node's start-up calls to its metadata backend. A start-up call that fails with
 * {@code METADATA_UNAVAILABLE} (the backend is slow, paused or not up yet) is repeated after a
 * short back-off until it succeeds or the deadline passes, so a node starting on a loaded machine
 * or beside a backend that is itself starting does not fail at its first call deadline. Any other
 * failure (refused credentials, a closed store) ends the wait at once.
 */
public final class StartDeadline {

  private static final System.Logger LOG = System.getLogger(StartDeadline.class.getName());
  private static final long FIRST_BACKOFF_MS = 50;
  private static final long MAX_BACKOFF_MS = 1000;

  private final Vertx vertx;
  private final Duration length;
  private final long endNanos;

  private StartDeadline(Vertx vertx, Duration length) {
    this.vertx = vertx;
    this.length = length;
    this.endNanos = System.nanoTime() + length.toNanos();
  }

  /**
   * @param vertx the Vert.x instance whose timers space the attempts
   * @param length how long from now
   * @return a deadline that ends {@code length} from now
   */
  public static StartDeadline startingNow(Vertx vertx, Duration length) {
    return new StartDeadline(vertx, length);
  }

  /**
   * @return the time left, zero once the deadline has passed
   */
  public Duration remaining() {
    return Duration.ofNanos(Math.max(0, endNanos - System.nanoTime()));
  }

  /**
   * Runs {@code attempt} until it succeeds, fails with something other than {@code
   * METADATA_UNAVAILABLE}, or the deadline passes. Back-offs run on Vert.x timers; nothing blocks.
   *
   * @param what the call, for messages (e.g. {@code "etcd start"})
   * @param attempt one try; gets the time left, which it should not outlast
   * @param <T> result type
   * @return the first success; else the last failure, its message saying how many attempts were
   *     made within the deadline
   */
  public <T> Future<T> retry(String what, Function<Duration, Future<T>> attempt) {
    Promise<T> result = Promise.promise();
    attempt(what, attempt, 1, FIRST_BACKOFF_MS, result);
    return result.future();
  }

  private <T> void attempt(
      String what,
      Function<Duration, Future<T>> attempt,
      int n,
      long backoffMs,
      Promise<T> result) {
    Future<T> tried;
    try {
      tried = attempt.apply(remaining());
    } catch (RuntimeException e) {
      tried = Future.failedFuture(e);
    }
    tried.onComplete(
        ar -> {
          if (ar.succeeded()) {
            result.complete(ar.result());
            return;
          }
          Throwable failure = ar.cause();
          long leftMs = remaining().toMillis();
          boolean unavailable =
              failure instanceof VteException v && v.code() == ErrorCode.METADATA_UNAVAILABLE;
          if (!unavailable || leftMs <= 1) {
            result.fail(
                unavailable && n > 1
                    ? new VteException(
                        ErrorCode.METADATA_UNAVAILABLE,
                        withoutCode(failure.getMessage())
                            + " ("
                            + n
                            + " attempts within the start deadline of "
                            + length.toMillis()
                            + " ms)",
                        failure)
                    : failure);
            return;
          }
          // half of what is left at most, so the next attempt still has time to succeed
          long delay = Math.max(1, Math.min(backoffMs, leftMs / 2));
          // DEBUG: the caller reports the outcome once; a line per attempt would bury it
          LOG.log(
              System.Logger.Level.DEBUG,
              "{0}: attempt {1} failed ({2}); trying again in {3} ms, {4} ms left",
              what,
              n,
              failure.getMessage(),
              delay,
              leftMs);
          vertx.setTimer(
              delay,
              id -> attempt(what, attempt, n + 1, Math.min(backoffMs * 2, MAX_BACKOFF_MS), result));
        });
  }

  /**
   * The message of a failure without the {@code "METADATA_UNAVAILABLE: "} prefix its exception
   * adds.
   */
  private static String withoutCode(String message) {
    String prefix = ErrorCode.METADATA_UNAVAILABLE + ": ";
    return message != null && message.startsWith(prefix)
        ? message.substring(prefix.length())
        : message;
  }
}

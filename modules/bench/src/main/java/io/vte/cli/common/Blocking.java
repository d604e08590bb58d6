package io.vte.cli.common;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one place the command line waits for a Future: only from the CLI's main thread (never an
 * event loop), with a deadline, unwrapping the cause so errors stay one clear line.
 */
public final class Blocking {

  private Blocking() {}

  /**
   * @param future what to wait for
   * @param deadline how long at most
   * @param what what is awaited, for the timeout message
   * @param <T> the result type
   * @return the result
   * @throws Exception the future's own failure, or TIMED_OUT naming {@code what}; INTERNAL on a
   *     Vert.x event-loop thread, which must never wait
   */
  public static <T> T await(Future<T> future, Duration deadline, String what) throws Exception {
    refuseEventLoop(what);
    try {
      return future
          .toCompletionStage()
          .toCompletableFuture()
          .get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception c ? c : e;
    } catch (TimeoutException e) {
      throw new VteException(
          ErrorCode.TIMED_OUT, what + " did not finish within " + deadline.toSeconds() + " s");
    }
  }

  /**
   * {@link #await} for a {@code close()}, which must not throw InterruptedException: an interrupt
   * ends the wait with CANCELED and keeps the thread's interrupt status; a checked failure comes
   * back as a VteException.
   *
   * @param future what to wait for
   * @param deadline how long at most
   * @param what what is awaited, for the messages
   * @throws VteException the future's failure (its own when it is one), TIMED_OUT or CANCELED
   *     naming {@code what}
   */
  public static void awaitClosed(Future<?> future, Duration deadline, String what) {
    try {
      await(future, deadline, what);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new VteException(ErrorCode.CANCELED, what + " was interrupted", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new VteException(ErrorCode.INTERNAL, what + " failed: " + e, e);
    }
  }

  /**
   * @return bytes allocated so far by every thread of this JVM, ended threads included (HotSpot
   *     counters), or -1
   */
  public static long allocatedBytes() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    if (!(mx instanceof com.sun.management.ThreadMXBean hs)) {
      return -1;
    }
    // counts the threads that ended too (a sum over live threads would drop their bytes)
    long total = hs.getTotalThreadAllocatedBytes();
    return total < 0 ? -1 : total;
  }

  private static void refuseEventLoop(String what) {
    if (io.vertx.core.Context.isOnEventLoopThread()) {
      throw new VteException(
          ErrorCode.INTERNAL,
          what
              + ": a command waits on its own thread, never on an event loop ("
              + Thread.currentThread().getName()
              + ")");
    }
  }
}

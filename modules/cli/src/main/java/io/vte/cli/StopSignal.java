package io.vte.cli;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * How a long-running command ({@code serve}, {@code bench target}) stops: SIGINT or SIGTERM releases
 * {@link #await()}, the command closes what it opened and exits {@link ExitCodes#OK}. Closing restores the
 * handlers that were there before (so an in-process run leaves the JVM as it found it).
 */
public final class StopSignal implements AutoCloseable {

  private static final Signal TERM = new Signal("TERM");
  private static final Signal INT = new Signal("INT");

  private final CountDownLatch stop = new CountDownLatch(1);
  private final SignalHandler previousTerm;
  private final SignalHandler previousInt;

  private StopSignal() {
    previousTerm = Signal.handle(TERM, s -> stop.countDown());
    previousInt = Signal.handle(INT, s -> stop.countDown());
  }

  /** @return a stop signal listening from now on */
  public static StopSignal install() {
    return new StopSignal();
  }

  /**
   * Waits until SIGINT or SIGTERM arrives.
   *
   * @throws InterruptedException when the waiting thread is interrupted
   */
  public void await() throws InterruptedException {
    stop.await();
  }

  /** Puts back the handlers that were there before. */
  @Override
  public void close() {
    Signal.handle(TERM, previousTerm);
    Signal.handle(INT, previousInt);
  }
}

package io.vte.cli.common;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;

/**
 * How a long-running command stops: SIGINT or SIGTERM releases {@link #await()} and runs the
 * command's callback; {@code serve} and {@code bench target} close what they opened and exit {@link
 * ExitCodes#OK}, a {@code bench initiator} ends its run early, prints the partial report and exits
 * {@link #exitCode()} (130 or 143, as a shell reports a process the signal ended). Closing restores
 * the handlers that were there before (so an in-process run leaves the JVM as it found it). The
 * JDK's {@code sun.misc.Signal} is reached by reflection: javac cannot silence its warning on that
 * API, and the build runs with {@code -Werror}.
 */
public final class StopSignal implements AutoCloseable {

  private static final Class<?> SIGNAL;
  private static final Class<?> HANDLER;
  private static final Method HANDLE;
  private static final Object TERM;
  private static final Object INT;

  static {
    try {
      SIGNAL = Class.forName("sun.misc.Signal");
      HANDLER = Class.forName("sun.misc.SignalHandler");
      HANDLE = SIGNAL.getMethod("handle", SIGNAL, HANDLER);
      TERM = SIGNAL.getConstructor(String.class).newInstance("TERM");
      INT = SIGNAL.getConstructor(String.class).newInstance("INT");
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final CountDownLatch stop = new CountDownLatch(1);
  private final Runnable onStop;
  private final Object previousTerm;
  private final Object previousInt;
  private volatile int exitCode = -1;

  private StopSignal(Runnable onStop) {
    this.onStop = onStop;
    Object release =
        Proxy.newProxyInstance(
            StopSignal.class.getClassLoader(),
            new Class<?>[] {HANDLER},
            (proxy, m, args) -> {
              if (m.getName().equals("handle")) {
                stopped(args[0]);
                return null;
              }
              return switch (m.getName()) {
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "StopSignal handler";
              };
            });
    previousTerm = handle(TERM, release);
    previousInt = handle(INT, release);
  }

  /**
   * {@code Signal.handle(signal, handler)}: installs the handler and returns the one it replaces.
   */
  private static Object handle(Object signal, Object handler) {
    try {
      return HANDLE.invoke(null, signal, handler);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot handle " + signal + ": " + e, e);
    }
  }

  /** Runs on the JDK's signal thread: records the first signal and tells the command. */
  private void stopped(Object signal) {
    if (stop.getCount() == 0) {
      return;
    }
    exitCode = signal.equals(INT) ? ExitCodes.SIGINT : ExitCodes.SIGTERM;
    stop.countDown();
    onStop.run();
  }

  /**
   * @return a stop signal listening from now on
   */
  public static StopSignal install() {
    return new StopSignal(() -> {});
  }

  /**
   * @param onStop runs once, on the JDK's signal thread, when the first SIGINT or SIGTERM arrives
   *     (it must return quickly: e.g. tell a run to end)
   * @return a stop signal listening from now on
   */
  public static StopSignal install(Runnable onStop) {
    return new StopSignal(onStop);
  }

  /**
   * @return {@link ExitCodes#SIGINT} or {@link ExitCodes#SIGTERM} once a signal arrived, else -1
   */
  public int exitCode() {
    return exitCode;
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
    handle(TERM, previousTerm);
    handle(INT, previousInt);
  }
}

package io.vte.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;

/**
 * How a long-running command ({@code serve}, {@code bench target}) stops: SIGINT or SIGTERM
 * releases {@link #await()}, the command closes what it opened and exits {@link ExitCodes#OK}.
 * Closing restores the handlers that were there before (so an in-process run leaves the JVM as it
 * found it). The JDK's {@code sun.misc.Signal} is reached by reflection: javac cannot silence its
 * warning on that API, and the build runs with {@code -Werror}.
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
  private final Object previousTerm;
  private final Object previousInt;

  private StopSignal() {
    Object release =
        Proxy.newProxyInstance(
            StopSignal.class.getClassLoader(),
            new Class<?>[] {HANDLER},
            (proxy, m, args) -> {
              if (m.getName().equals("handle")) {
                stop.countDown();
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

  /**
   * @return a stop signal listening from now on
   */
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
    handle(TERM, previousTerm);
    handle(INT, previousInt);
  }
}

package io.vte.it;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vte.api.EngineOptions;
import io.vte.api.FaultInjector;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Engines of the suite in this JVM, on one Vert.x instance, with their native buffers; {@link
 * #close()} closes the engines, then Vert.x, then frees the memory.
 */
public final class LocalEngines implements AutoCloseable {

  /** Deadline of every control-plane wait of the suite. */
  public static final Duration WAIT = Duration.ofSeconds(60);

  /** Devices per engine, as issue 7 asks. */
  public static final int DEVICES = 4;

  /** Owners per device, as issue 7 asks. */
  public static final int WORKERS = 4;

  private final Vertx vertx = Vertx.vertx(vertxOptions());
  private final List<TransferEngine> engines = new ArrayList<>();
  private final List<Long> allocations = new ArrayList<>();

  /**
   * @return the options of the suite's Vert.x instances, here and in node processes (Vert.x's
   *     defaults; {@link ThreadBounds} takes its pool bounds from them)
   */
  public static VertxOptions vertxOptions() {
    return new VertxOptions();
  }

  /**
   * The options of a suite engine: {@value #DEVICES} soft devices {@code <name>d<i>} on
   * 127.0.0.(firstIp + i).
   *
   * @param name engine name, prefixes the device names
   * @param firstIp last octet of the first device address
   * @param devicePorts TCP port per device, 0 for any; null for all 0
   * @param rpcPort handshake port, 0 for any
   * @return the options
   */
  public static EngineOptions options(String name, int firstIp, int[] devicePorts, int rpcPort) {
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < DEVICES; i++) {
      devices.add(
          name
              + "d"
              + i
              + "@127.0.0."
              + (firstIp + i)
              + ":"
              + (devicePorts == null ? 0 : devicePorts[i]));
    }
    return options(devices, "127.0.0.1", rpcPort);
  }

  /**
   * The options of a suite engine on given devices, with the suite's timeouts and {@value #WORKERS}
   * owners per device.
   *
   * @param devices device specs {@code name@ip[:port]}
   * @param rpcHost the handshake server's bind address, also its server name's host
   * @param rpcPort handshake port, 0 for any
   * @return the options
   */
  public static EngineOptions options(List<String> devices, String rpcHost, int rpcPort) {
    return new EngineOptions()
        .setDevices(devices)
        .setWorkersPerContext(WORKERS)
        .setRpcHost(rpcHost)
        .setRpcPort(rpcPort)
        .setRailHoldDown(Duration.ofMillis(500))
        .setQpTimeout(Duration.ofMillis(100))
        .setQpRetryCount(2)
        .setHandshakeDeadline(Duration.ofSeconds(5));
  }

  /**
   * @return the shared Vert.x instance
   */
  public Vertx vertx() {
    return vertx;
  }

  /**
   * @param options engine options
   * @return a started engine
   */
  public TransferEngine start(EngineOptions options) {
    TransferEngine engine = Await.result(TransferEngine.create(vertx, options), WAIT);
    engines.add(engine);
    return engine;
  }

  /**
   * @param length bytes
   * @return native memory freed by {@link #close()}
   */
  public long allocate(long length) {
    long address = DirectMemory.allocate(length);
    allocations.add(address);
    return address;
  }

  /**
   * @param engine where to register
   * @param length bytes, filled with the pattern of seed 0
   * @return the registered buffer
   */
  public RegisteredBuffer register(TransferEngine engine, int length) {
    long address = allocate(length);
    Pattern.fill(address, length, 0);
    return Await.result(engine.register(address, length, "cpu:0"), WAIT);
  }

  /**
   * @param engine a suite engine
   * @return the fault injector of its soft devices
   */
  public static FaultInjector faults(TransferEngine engine) {
    return engine.diagnostics().faultInjector().orElseThrow();
  }

  @Override
  public void close() {
    Throwable first = null;
    boolean allClosed = true;
    for (TransferEngine e : engines) {
      try {
        closeWithin(e, WAIT);
      } catch (Throwable t) {
        first = first == null ? t : first;
        allClosed = false;
      }
    }
    Await.result(vertx.close(), WAIT);
    if (allClosed) { // an engine stuck in close may still hold regions over this memory
      allocations.forEach(DirectMemory::free);
    }
    if (first != null) {
      throw new AssertionError("an engine did not close cleanly", first);
    }
  }

  /**
   * Closes an engine on a daemon thread: {@code close()} may deregister memory on the calling
   * thread, so a close that never returns fails the test with that thread's stack instead of
   * hanging the suite.
   */
  private static void closeWithin(TransferEngine engine, Duration deadline)
      throws InterruptedException {
    CompletableFuture<Future<Void>> called = new CompletableFuture<>();
    Thread closer =
        new Thread(
            () -> {
              try {
                called.complete(engine.close());
              } catch (Throwable t) {
                called.completeExceptionally(t);
              }
            },
            "engine-closer");
    closer.setDaemon(true);
    closer.start();
    Future<Void> closing;
    try {
      closing = called.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      AssertionError hang =
          new AssertionError(
              "engine close() did not return within "
                  + deadline
                  + " (this stack trace is the closing thread's)");
      hang.setStackTrace(closer.getStackTrace());
      throw hang;
    } catch (ExecutionException e) {
      throw new AssertionError("engine close() threw", e.getCause());
    }
    Await.result(closing, deadline);
  }
}

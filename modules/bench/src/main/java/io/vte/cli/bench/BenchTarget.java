package io.vte.cli.bench;

import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.cli.common.Blocking;
import io.vte.verbs.DirectMemory;
import java.time.Duration;

/**
 * The target side of a bench: its own Vert.x and engine, and one registered buffer filled with the
 * {@link DataPattern#TARGET_SEED} pattern that initiators read from and write into.
 */
public final class BenchTarget implements AutoCloseable {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private final Vertx vertx;
  private final TransferEngine engine;

  /** Native memory this class allocated, 0 when the engine allocated the buffer. */
  private final long memory;

  private final long length;
  private final long address;

  private BenchTarget(Vertx vertx, TransferEngine engine, long memory, long address, long length) {
    this.vertx = vertx;
    this.engine = engine;
    this.memory = memory;
    this.address = address;
    this.length = length;
  }

  /**
   * @return the buffer's native address
   */
  public long address() {
    return address;
  }

  /**
   * Starts the engine and registers the buffer; on failure everything started is closed again.
   *
   * @param options engine options
   * @param bufferBytes the buffer size
   * @return the running target
   * @throws Exception the engine's typed error (e.g. the RPC port in use)
   */
  public static BenchTarget start(EngineOptions options, long bufferBytes) throws Exception {
    return start(options, bufferBytes, false);
  }

  /**
   * Starts the engine and registers the buffer, or has the engine allocate it in shared memory; on
   * failure everything started is closed again.
   *
   * @param options engine options
   * @param bufferBytes the buffer size
   * @param sharedMemory true: the buffer is {@link TransferEngine#allocate}d, so same-host
   *     initiators copy over the same-host rail
   * @return the running target
   * @throws Exception the engine's typed error
   */
  public static BenchTarget start(EngineOptions options, long bufferBytes, boolean sharedMemory)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    TransferEngine engine = null;
    long memory = 0;
    try {
      engine = Blocking.await(TransferEngine.create(vertx, options), WAIT, "starting the engine");
      if (sharedMemory) {
        RegisteredBuffer buffer =
            Blocking.await(engine.allocate(bufferBytes, "cpu:0"), WAIT, "allocating shared memory");
        DataPattern.fill(buffer.address(), bufferBytes, DataPattern.TARGET_SEED);
        return new BenchTarget(vertx, engine, 0, buffer.address(), bufferBytes);
      }
      memory = DirectMemory.allocate(bufferBytes);
      DataPattern.fill(memory, bufferBytes, DataPattern.TARGET_SEED);
      RegisteredBuffer ignored =
          Blocking.await(engine.register(memory, bufferBytes, "cpu:0"), WAIT, "registering memory");
      return new BenchTarget(vertx, engine, memory, memory, bufferBytes);
    } catch (Exception e) {
      if (engine != null) {
        Blocking.await(engine.close(), WAIT, "closing the engine");
      }
      Blocking.await(vertx.close(), WAIT, "closing Vert.x");
      if (memory != 0) {
        DirectMemory.free(memory);
      }
      throw e;
    }
  }

  /**
   * @return the engine
   */
  public TransferEngine engine() {
    return engine;
  }

  /**
   * @return the server (p2p segment) name initiators use
   */
  public String serverName() {
    return engine.serverName();
  }

  /**
   * @return the registered buffer's size
   */
  public long length() {
    return length;
  }

  /** Closes the engine and Vert.x, then frees the buffer. */
  @Override
  public void close() {
    try {
      Blocking.awaitClosed(engine.close(), WAIT, "closing the engine");
      Blocking.awaitClosed(vertx.close(), WAIT, "closing Vert.x");
    } finally {
      if (memory != 0) {
        DirectMemory.free(memory);
      }
    }
  }
}

package io.vte.engine.impl;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.soft.SoftVerbsProvider;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Real engines over soft verbs for end-to-end tests, with fast fills and comparisons of native
 * memory. Closes its engines, then their Vert.x instances, then frees the memory it allocated.
 * {@link FakeIbverbsFixture} starts the same engines over the ibverbs provider and the fake
 * libibverbs.
 */
public class EngineFixture implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(60);

  final List<Vertx> vertxes = new ArrayList<>();
  final List<TransferEngineImpl> engines = new ArrayList<>();
  private final Queue<Long> allocations = new ConcurrentLinkedQueue<>();
  private int next;

  static EngineOptions options(String prefix, int devices, int workers) {
    List<String> specs = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      specs.add(prefix + "d" + i + "@127.0.0.1");
    }
    return new EngineOptions()
        .setDevices(specs)
        .setWorkersPerContext(workers)
        .setRpcHost("127.0.0.1")
        .setRailHoldDown(Duration.ofMillis(500));
  }

  /**
   * @param registry where the meters go
   * @return a new Vert.x instance whose Micrometer backend is {@code registry}: the engines started
   *     while it is open register their meters there
   */
  public static Vertx meteredVertx(MeterRegistry registry) {
    return Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
  }

  /** Starts an engine on its own Vert.x instance, through the public factory. */
  TransferEngineImpl start(int devices, int workers) {
    return start(engineOptions(devices, workers));
  }

  /**
   * @param devices devices of the engine
   * @param workers owner verticles per device
   * @return the options {@link #start(int, int)} starts an engine with: soft devices of its own
   */
  EngineOptions engineOptions(int devices, int workers) {
    return options("e" + (next++), devices, workers);
  }

  TransferEngineImpl start(EngineOptions options) {
    return start(Vertx.vertx(), options);
  }

  /** Starts an engine on {@code vertx}, which is closed with the others after every engine. */
  public TransferEngineImpl start(Vertx vertx, EngineOptions options) {
    if (!vertxes.contains(vertx)) {
      vertxes.add(vertx);
    }
    TransferEngineImpl engine =
        (TransferEngineImpl) Await.result(TransferEngine.create(vertx, options), WAIT);
    engines.add(engine);
    return engine;
  }

  /** Allocates {@code length} bytes of native memory, freed on close; safe from any thread. */
  public long allocate(long length) {
    long address = DirectMemory.allocate(length);
    allocations.add(address);
    return address;
  }

  RegisteredBuffer register(TransferEngine engine, long length, long seed) {
    long address = allocate(length);
    fill(address, length, seed);
    return Await.result(engine.register(address, length, "cpu:0"), WAIT);
  }

  /** Fills with a seeded xorshift sequence, 8 bytes at a time. */
  public static void fill(long address, long length, long seed) {
    long x = seed * 0x9E3779B97F4A7C15L + 1;
    for (long off = 0; off < length; off += Integer.MAX_VALUE & ~7) {
      int n = (int) Math.min(Integer.MAX_VALUE & ~7, length - off);
      ByteBuffer b = DirectMemory.wrap(address + off, n).order(ByteOrder.LITTLE_ENDIAN);
      while (b.remaining() >= 8) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        b.putLong(x);
      }
      while (b.hasRemaining()) {
        b.put((byte) x);
        x >>>= 8;
      }
    }
  }

  /**
   * @return the offset of the first differing byte, or -1 when equal
   */
  public static long mismatch(long a, long b, long length) {
    for (long off = 0; off < length; off += Integer.MAX_VALUE) {
      int n = (int) Math.min(Integer.MAX_VALUE, length - off);
      int m = DirectMemory.wrap(a + off, n).mismatch(DirectMemory.wrap(b + off, n));
      if (m >= 0) {
        return off + m;
      }
    }
    return -1;
  }

  /**
   * Takes port 1 of the engine's {@code device}-th device down, as a link failure does: over soft
   * verbs that engine's device only ({@link FakeIbverbsFixture}: the fake device, for every engine
   * that opened it).
   */
  void portDown(TransferEngineImpl engine, int device) {
    soft(engine).faults().portDown(context(engine, device).deviceName(), 1);
  }

  /**
   * @return true when {@link #portDown} takes the device down for every engine that opened it (the
   *     fake libibverbs), false when each engine's ports are its own (soft verbs)
   */
  boolean portsAreShared() {
    return false;
  }

  /** Brings port 1 of the engine's {@code device}-th device up again. */
  void portUp(TransferEngineImpl engine, int device) {
    soft(engine).faults().portUp(context(engine, device).deviceName(), 1);
  }

  /**
   * Moves QP {@code qpNum} of the engine's {@code device}-th device to ERR (QP-fatal).
   *
   * @return false when the QP was found gone (retired since it was listed); soft verbs: true
   */
  boolean failQp(TransferEngineImpl engine, int device, int qpNum) {
    soft(engine).faults().forceQpError(context(engine, device).deviceName(), qpNum);
    return true;
  }

  /**
   * Fails the first live QP of the engine's {@code device}-th device ({@link #failQp}).
   *
   * @return 1 when a QP was failed, 0 when the device had none live (or they all went first)
   */
  final int failOneQp(TransferEngineImpl engine, int device) {
    for (int qpNum : context(engine, device).liveQpNumbers()) {
      if (failQp(engine, device, qpNum)) {
        return 1;
      }
    }
    return 0;
  }

  /**
   * Holds every request frame the engine's {@code device}-th soft device sends for {@code nanos}
   * (soft verbs only), so that work stays in flight that long.
   */
  void delayFrames(TransferEngineImpl engine, int device, Duration delay) {
    soft(engine)
        .faults()
        .delayFrames(context(engine, device).deviceName(), 1.0, delay.toNanos(), 1);
  }

  /** Ends {@link #delayFrames} on the engine's {@code device}-th soft device. */
  void clearFrameFaults(TransferEngineImpl engine, int device) {
    soft(engine).faults().clearFrameFaults(context(engine, device).deviceName());
  }

  static LocalContext context(TransferEngineImpl engine, int device) {
    return EngineInternals.contexts(engine).get(device);
  }

  private static SoftVerbsProvider soft(TransferEngineImpl engine) {
    return (SoftVerbsProvider) EngineInternals.provider(engine);
  }

  @Override
  public void close() {
    for (TransferEngineImpl e : engines) {
      Await.result(e.close(), WAIT);
    }
    for (Vertx v : vertxes) {
      Await.result(v.close(), WAIT);
    }
    allocations.forEach(DirectMemory::free);
  }
}

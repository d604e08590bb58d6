package io.vte.cli;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.cli.bench.NioStreamBench;
import io.vte.verbs.DirectMemory;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vte bench}: the embedded default end to end. Two engines in this JVM over soft verbs (each with
 * {@code --devices} devices), {@code --depth} WRITEs of {@code --size} bytes kept in flight for
 * {@code --duration} seconds; prints throughput, ops/s, latency p50/p99 and failures; {@code --verify}
 * checks every WRITE landed (a stamp per op, full comparison at the end); {@code --baseline} adds a raw
 * Java NIO loopback stream measured in the same run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Two engines in one JVM over soft verbs: WRITE --size bytes for --duration seconds with",
        "--depth requests in flight; throughput, ops/s, latency p50/p99, failed count."})
public final class BenchCommand implements Callable<Integer> {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Spec
  private CommandSpec spec;

  @Option(names = "--duration", defaultValue = "10", description = "Seconds to measure (default ${DEFAULT-VALUE}).")
  private double duration;

  @Option(names = "--size", defaultValue = "4194304", description = "Bytes per WRITE (default ${DEFAULT-VALUE}).")
  private int size;

  @Option(names = "--depth", defaultValue = "8", description = "WRITEs in flight (default ${DEFAULT-VALUE}).")
  private int depth;

  @Option(names = "--devices", defaultValue = "2", description = "Soft devices per engine (default ${DEFAULT-VALUE}).")
  private int devices;

  @Option(names = "--workers", defaultValue = "2", description = "Owners per device (default ${DEFAULT-VALUE}).")
  private int workers;

  @Option(names = "--slice-size", defaultValue = "65536", description = "Engine slice size in bytes (default ${DEFAULT-VALUE}).")
  private int sliceSize;

  @Option(names = "--verify", description = "Check that every WRITE landed and the data is exact.")
  private boolean verify;

  @Option(names = "--baseline", description = "Also measure raw Java NIO loopback streaming and the ratio.")
  private boolean baseline;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  private boolean json;

  /** Creates the command (picocli instantiates it). */
  public BenchCommand() {}

  @Override
  public Integer call() throws Exception {
    validate();
    Duration measure = Duration.ofNanos((long) (duration * 1e9));
    double baselineGibs = baseline ? NioStreamBench.run(measure, size) : Double.NaN;
    Result r = runEngines(measure);
    print(r, baselineGibs);
    return r.failed == 0 && (!verify || r.verified) ? 0 : 1;
  }

  private void validate() {
    if (!(duration > 0 && duration <= 3600)) {
      throw new ParameterException(spec.commandLine(), "--duration must be > 0 and <= 3600, got " + duration);
    }
    if (size < 1 || size > 64 << 20) {
      throw new ParameterException(spec.commandLine(), "--size must be 1..67108864 bytes, got " + size);
    }
    if (depth < 1 || depth > 256 || (long) depth * size > 512L << 20) {
      throw new ParameterException(spec.commandLine(),
          "--depth must be 1..256 with depth x size <= 512 MiB, got " + depth + " x " + size);
    }
    if (devices < 1 || devices > 8) {
      throw new ParameterException(spec.commandLine(), "--devices must be 1..8, got " + devices);
    }
    if (sliceSize < 4096 || sliceSize > 64 << 20) {
      throw new ParameterException(spec.commandLine(), "--slice-size must be 4096..67108864 bytes, got " + sliceSize);
    }
    if (workers < 1 || workers > 16) {
      throw new ParameterException(spec.commandLine(), "--workers must be 1..16, got " + workers);
    }
  }

  private record Result(long ops, long failed, long bytes, long nanos, Histogram latency, boolean verified,
      String firstFailure, long allocatedBytes) {}

  /** Bytes allocated so far by every live thread of this JVM (HotSpot's per-thread counters). */
  private static long allocatedBytes() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    if (!(mx instanceof com.sun.management.ThreadMXBean)) {
      return -1;
    }
    long sum = 0;
    for (long a : ((com.sun.management.ThreadMXBean) mx).getThreadAllocatedBytes(mx.getAllThreadIds())) {
      sum += Math.max(0, a);
    }
    return sum;
  }

  private EngineOptions options(String prefix) {
    List<String> specs = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      specs.add(prefix + i + "@127.0.0." + (i + 1));
    }
    return new EngineOptions().setDevices(specs).setWorkersPerContext(workers).setSliceSize(sliceSize);
  }

  private Result runEngines(Duration measure) throws Exception {
    Vertx va = Vertx.vertx();
    Vertx vb = Vertx.vertx();
    long region = (long) depth * size;
    long local = DirectMemory.allocate(region);
    long remote = DirectMemory.allocate(region);
    TransferEngine a = null;
    TransferEngine b = null;
    try {
      a = TransferEngine.create(va, options("src")).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      b = TransferEngine.create(vb, options("dst")).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      fillRandom(local, region);
      DirectMemory.fill(remote, region, (byte) 0);
      RegisteredBuffer src = await(a.register(local, region, "cpu:0"));
      await(b.register(remote, region, "cpu:0"));
      SegmentHandle seg = await(a.openSegment(b.serverName()));
      // Warm-up long enough for every rail to connect (a first connect may wait out one QP timeout).
      Driver warm = new Driver(a, src, seg, remote, Duration.ofSeconds(2));
      warm.runOn(va.getOrCreateContext()).get(measure.toMillis() + WAIT.toMillis(), TimeUnit.MILLISECONDS);
      Driver run = new Driver(a, src, seg, remote, measure);
      long allocBefore = allocatedBytes();
      Result r = run.runOn(va.getOrCreateContext()).get(measure.toMillis() + WAIT.toMillis(), TimeUnit.MILLISECONDS);
      long allocated = allocatedBytes() - allocBefore;
      boolean exact = !verify || DirectMemory.wrap(local, (int) region).mismatch(DirectMemory.wrap(remote, (int) region)) < 0;
      return new Result(r.ops, r.failed, r.bytes, r.nanos, r.latency, verify && r.verified && exact, r.firstFailure,
          allocated);
    } finally {
      if (a != null) {
        await(a.close());
      }
      if (b != null) {
        await(b.close());
      }
      await(va.close());
      await(vb.close());
      DirectMemory.free(local);
      DirectMemory.free(remote);
    }
  }

  /** Keeps {@code depth} WRITEs in flight from one Vert.x context until the measurement ends. */
  private final class Driver {
    private final TransferEngine engine;
    private final RegisteredBuffer src;
    private final SegmentHandle seg;
    private final long remote;
    private final long durationNanos;
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    private final CompletableFuture<Result> done = new CompletableFuture<>();
    private long start;
    private long end;
    private long ops;
    private long failed;
    private long stamp;
    private int inFlight;
    private boolean stampsOk = true;
    private String firstFailure;

    Driver(TransferEngine engine, RegisteredBuffer src, SegmentHandle seg, long remote, Duration duration) {
      this.engine = engine;
      this.src = src;
      this.seg = seg;
      this.remote = remote;
      this.durationNanos = duration.toNanos();
    }

    CompletableFuture<Result> runOn(Context context) {
      context.runOnContext(v -> {
        start = System.nanoTime();
        for (int slot = 0; slot < depth; slot++) {
          issue(slot);
        }
      });
      return done;
    }

    private void issue(int slot) {
      long offset = (long) slot * size;
      long mark = ++stamp;
      if (verify && size >= 8) {
        DirectMemory.wrap(src.address() + offset, 8).putLong(0, mark);
      }
      inFlight++;
      long t0 = System.nanoTime();
      engine.submit(List.of(TransferRequest.write(src, offset, seg, remote + offset, size)),
          new TransferOptions().setDeadline(WAIT)).result().onComplete(ar -> completed(slot, mark, t0, ar.succeeded()
              ? ar.result() : null, ar.cause()));
    }

    private void completed(int slot, long mark, long t0, BatchResult result, Throwable cause) {
      long now = System.nanoTime();
      inFlight--;
      ops++;
      latency.recordValue(Math.min(now - t0, latency.getHighestTrackableValue()));
      if (result == null || result.requests().get(0).status() != RequestStatus.COMPLETED) {
        failed++;
        if (firstFailure == null) {
          firstFailure = String.valueOf(result == null ? cause : result.requests().get(0).cause());
        }
      } else if (verify && size >= 8 && DirectMemory.wrap(remote + (long) slot * size, 8).getLong(0) != mark) {
        stampsOk = false;
      }
      if (now - start < durationNanos) {
        issue(slot);
      } else if (inFlight == 0) {
        end = now;
        done.complete(new Result(ops, failed, ops * (long) size - failed * (long) size, end - start, latency,
            stampsOk, firstFailure, 0));
      }
    }
  }

  private void print(Result r, double baselineGibs) {
    double seconds = r.nanos / 1e9;
    double gibs = r.bytes / (double) (1L << 30) / seconds;
    double opsPerSec = r.ops / seconds;
    double p50 = r.latency.getValueAtPercentile(50) / 1000.0;
    double p99 = r.latency.getValueAtPercentile(99) / 1000.0;
    // Per 64 KiB of data moved (the engine's default slice size), whatever the JVM allocated meanwhile.
    double allocPerSlice = r.allocatedBytes < 0 || r.bytes == 0 ? -1 : r.allocatedBytes / (r.bytes / 65536.0);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
          "{\"throughput_gib_s\":%.3f,\"ops\":%d,\"ops_per_s\":%.1f,\"failed\":%d,\"verified\":%s,"
              + "\"latency_us\":{\"p50\":%.1f,\"p99\":%.1f},\"size\":%d,\"depth\":%d,\"devices\":%d,"
              + "\"workers\":%d,\"slice_size\":%d,\"duration_s\":%.3f,\"alloc_bytes_per_64k_slice\":%.1f",
          gibs, r.ops, opsPerSec, r.failed, r.verified, p50, p99, size, depth, devices, workers, sliceSize, seconds,
          allocPerSlice));
      if (baseline) {
        sb.append(String.format(Locale.ROOT, ",\"baseline_gib_s\":%.3f,\"ratio\":%.3f", baselineGibs, gibs / baselineGibs));
      }
      out.println(sb.append('}'));
    } else {
      out.printf(Locale.ROOT, "vte bench: %d x %d B WRITEs in flight, %d soft devices x %d owners per engine, "
          + "%d B slices, %.1f s%n", depth, size, devices, workers, sliceSize, seconds);
      out.printf(Locale.ROOT, "  throughput  %8.3f GiB/s%n", gibs);
      out.printf(Locale.ROOT, "  ops         %8d (%.1f ops/s)%n", r.ops, opsPerSec);
      out.printf(Locale.ROOT, "  latency     p50 %.1f us  p99 %.1f us%n", p50, p99);
      out.printf(Locale.ROOT, "  failed      %8d%s%n", r.failed, r.firstFailure == null ? "" : " (first: " + r.firstFailure + ")");
      out.printf(Locale.ROOT, "  allocation  %8.1f B per 64 KiB slice (whole JVM, all threads)%n", allocPerSlice);
      out.printf(Locale.ROOT, "  verified    %8s%n", verify ? String.valueOf(r.verified) : "not checked (use --verify)");
      if (baseline) {
        out.printf(Locale.ROOT, "  baseline    %8.3f GiB/s (raw Java NIO loopback stream)%n", baselineGibs);
        out.printf(Locale.ROOT, "  ratio       %8.3f (target >= 0.85)%n", gibs / baselineGibs);
      }
    }
    out.flush();
  }

  private static void fillRandom(long address, long length) {
    long x = 0x9E3779B97F4A7C15L;
    java.nio.ByteBuffer b = DirectMemory.wrap(address, (int) length);
    while (b.remaining() >= 8) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      b.putLong(x);
    }
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }
}

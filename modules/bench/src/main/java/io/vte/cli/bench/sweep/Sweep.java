package io.vte.cli.bench.sweep;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.cli.bench.BenchResult;
import io.vte.cli.bench.InitiatorSession;
import io.vte.cli.bench.LoadFlags;
import io.vte.cli.bench.LoadGenerator;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code vte bench --sweep}: one short run per batch size and block size on the same pair of
 * engines (every block size at batch size 1, then at 32, by default), then a table on stdout,
 * {@code sweep.csv} and {@code sweep.png} in the output directory. The depth, then the batch size,
 * shrink for large blocks so the region stays within {@link #REGION} bytes.
 */
public final class Sweep {

  /** The largest region one size may cover (local and remote each). */
  public static final long REGION = 256L << 20;

  /** The default sizes: powers of 4 from 4 KiB to 64 MiB. */
  public static final String DEFAULT_SIZES = "4K,16K,64K,256K,1M,4M,16M,64M";

  /** The default batch sizes: single requests, and 32 per batch. */
  public static final String DEFAULT_BATCHES = "1,32";

  private static final Duration WARMUP_BETWEEN_SIZES = Duration.ofMillis(300);

  private Sweep() {}

  /**
   * @param blockSize bytes per request
   * @param batchSize requests per batch asked for
   * @param load the load flags
   * @return the requests per batch for this size: {@code batchSize}, fewer when one batch per
   *     thread would exceed {@link #REGION}
   */
  public static int batchFor(int blockSize, int batchSize, LoadFlags load) {
    long perRequest = (long) load.threads() * blockSize;
    return (int) Math.max(1, Math.min(batchSize, REGION / perRequest));
  }

  /**
   * @param blockSize bytes per request
   * @param batchSize requests per batch asked for
   * @param load the load flags
   * @return the batches in flight per thread for this size
   */
  public static int depthFor(int blockSize, int batchSize, LoadFlags load) {
    long perDepth = (long) load.threads() * batchFor(blockSize, batchSize, load) * blockSize;
    return (int) Math.max(1, Math.min(load.depth(), REGION / perDepth));
  }

  /**
   * @param sizes the sweep's block sizes
   * @param batches the sweep's batch sizes
   * @param load the load flags
   * @return the largest region any row covers
   */
  public static long region(List<Integer> sizes, List<Integer> batches, LoadFlags load) {
    long max = 1;
    for (int b : batches) {
      for (int s : sizes) {
        max =
            Math.max(
                max,
                (long) depthFor(s, b, load) * load.threads() * batchFor(s, b, load) * (long) s);
      }
    }
    return max;
  }

  /**
   * Runs the sweep and writes its files.
   *
   * @param session the initiator session (covering at least {@link #REGION} or the largest size's
   *     region)
   * @param sizes block sizes
   * @param batches batch sizes: every block size is run at each
   * @param load load flags (operation, threads, depth cap, warm-up, verify)
   * @param perSize measured time per size
   * @param outDir where sweep.csv and sweep.png go (created)
   * @param title the plot title
   * @param progress where progress lines go, or null
   * @return one row per batch size and block size, batch-major
   * @throws Exception when a run or a file write fails
   */
  public static List<SweepRow> run(
      InitiatorSession session,
      List<Integer> sizes,
      List<Integer> batches,
      LoadFlags load,
      Duration perSize,
      Path outDir,
      String title,
      PrintWriter progress)
      throws Exception {
    List<SweepRow> rows = new ArrayList<>();
    for (int batch : batches) {
      for (int size : sizes) {
        LoadGenerator.Plan plan =
            new LoadGenerator.Plan(
                load.opcode(),
                size,
                batchFor(size, batch, load),
                depthFor(size, batch, load),
                load.threads(),
                load.verify(),
                load.prepared(),
                load.callerThreads());
        Duration warm = rows.isEmpty() ? load.warmupTime() : WARMUP_BETWEEN_SIZES;
        BenchResult r = session.measure(plan, warm, perSize, List.of(), null, false);
        rows.add(SweepRow.of(r));
        if (progress != null) {
          progress.printf(
              Locale.ROOT,
              "sweep %s x %d: %.3f GiB/s, %.1f ops/s, p99 %.1f us%n",
              SweepRow.label(size),
              plan.batchSize(),
              r.gibPerSecond(),
              r.opsPerSecond(),
              r.latencyMicros(99));
          progress.flush();
        }
      }
    }
    Files.createDirectories(outDir);
    List<String> csv = new ArrayList<>();
    csv.add(SweepRow.CSV_HEADER);
    rows.forEach(r -> csv.add(r.csv()));
    Files.write(outDir.resolve("sweep.csv"), csv);
    SweepPlot.write(rows, title, outDir.resolve("sweep.png"));
    return rows;
  }

  /**
   * Prints the sweep as a table.
   *
   * @param out where
   * @param rows the rows
   * @param outDir where the files went
   */
  public static void printTable(PrintWriter out, List<SweepRow> rows, Path outDir) {
    out.printf(
        Locale.ROOT,
        "%10s %6s %6s %12s %12s %12s %12s %8s%n",
        "block",
        "batch",
        "depth",
        "GiB/s",
        "ops/s",
        "p50 us",
        "p99 us",
        "failed");
    for (SweepRow r : rows) {
      out.printf(
          Locale.ROOT,
          "%10s %6d %6d %12.3f %12.1f %12.1f %12.1f %8d%n",
          SweepRow.label(r.blockSize()),
          r.batchSize(),
          r.depth(),
          r.gibPerSecond(),
          r.opsPerSecond(),
          r.p50Micros(),
          r.p99Micros(),
          r.failed());
    }
    for (SweepRow r : rows) {
      if (r.stalled()) {
        out.printf(
            Locale.ROOT,
            "STALLED at %s%s: no request completed for %.1f s (a stall is %d s or more)%n",
            SweepRow.label(r.blockSize()),
            r.batchSize() == 1 ? "" : " x " + r.batchSize(),
            r.longestGapNanos() / 1e9,
            BenchResult.STALL_NANOS / 1_000_000_000L);
      }
    }
    out.printf("wrote %s and %s%n", outDir.resolve("sweep.csv"), outDir.resolve("sweep.png"));
    out.flush();
  }

  /**
   * @param rows the rows
   * @param outDir where the files went
   * @return the sweep as one JSON object
   */
  public static JsonObject json(List<SweepRow> rows, Path outDir) {
    JsonArray a = new JsonArray();
    for (SweepRow r : rows) {
      a.add(
          new JsonObject()
              .put("block_size", r.blockSize())
              .put("batch_size", r.batchSize())
              .put("depth", r.depth())
              .put("throughput_gib_s", r.gibPerSecond())
              .put("ops_per_s", r.opsPerSecond())
              .put(
                  "latency_us",
                  new JsonObject().put("p50", r.p50Micros()).put("p99", r.p99Micros()))
              .put("failed", r.failed())
              .put("stalled", r.stalled()));
    }
    return new JsonObject()
        .put("sweep", a)
        .put("csv", outDir.resolve("sweep.csv").toString())
        .put("png", outDir.resolve("sweep.png").toString());
  }
}

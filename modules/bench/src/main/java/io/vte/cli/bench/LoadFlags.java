package io.vte.cli.bench;

import io.vte.api.TransferOpcode;
import io.vte.cli.common.ByteSize;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The load flags of the initiating forms of {@code vte bench}: operation, block and batch size,
 * requests in flight, submitting threads, duration, warm-up, verification and output format.
 */
public final class LoadFlags {

  /** The largest local (and remote) region a run may use. */
  public static final long MAX_REGION = 512L << 20;

  @Option(
      names = "--operation",
      defaultValue = "write",
      description = "read or write, any case (default ${DEFAULT-VALUE}).")
  String operation;

  @Option(
      names = {"--block-size", "--size"},
      defaultValue = "4M",
      converter = ByteSize.IntConverter.class,
      paramLabel = "BYTES",
      description = "Bytes per request, e.g. 4096, 64K, 4M (default ${DEFAULT-VALUE}).")
  int blockSize;

  @Option(
      names = "--batch-size",
      defaultValue = "1",
      description = "Requests per batch (default ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(
      names = "--depth",
      defaultValue = "8",
      description = "Batches in flight per thread (default ${DEFAULT-VALUE}).")
  int depth;

  @Option(
      names = "--threads",
      defaultValue = "1",
      description =
          "Submitting threads, each on its own Vert.x context, or a plain thread with"
              + " --caller-threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--duration",
      defaultValue = "10",
      description = "Seconds to measure (default ${DEFAULT-VALUE}).")
  double duration;

  @Option(
      names = "--warmup",
      defaultValue = "2",
      description =
          "Seconds of warm-up before measuring, so every rail is connected (default ${DEFAULT-VALUE}).")
  double warmup;

  @Option(
      names = "--verify",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Check the data (default on): WRITE reads the target back at the end; READ checks every block.")
  boolean verify;

  @Option(
      names = "--prepared",
      description =
          "Post each in-flight batch as a prepared transfer (TransferEngine.prepare): validated"
              + " once, its records reused at every post.")
  boolean prepared;

  @Option(
      names = "--caller-threads",
      description =
          "Submit from plain Java threads outside Vert.x, each awaiting its oldest batch's result"
              + " before it posts that slot again, instead of from verticles on event loops.")
  boolean callerThreads;

  /**
   * @param base how the engines run ("embedded", "initiator")
   * @return the mode a report names: the base, whether the batches were prepared transfers, and
   *     whether plain caller threads submitted them
   */
  public String mode(String base) {
    return base
        + (prepared ? ", prepared transfers" : "")
        + (callerThreads ? ", caller threads" : "");
  }

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Option(names = "--no-progress", description = "No progress lines on stderr.")
  boolean noProgress;

  /** Creates the flags (picocli fills them). */
  public LoadFlags() {}

  /**
   * Checks every value.
   *
   * @throws IllegalArgumentException naming the flag and the bad value
   */
  public void validate() {
    if (!"read".equalsIgnoreCase(operation) && !"write".equalsIgnoreCase(operation)) {
      throw new IllegalArgumentException(
          "--operation must be read or write, got '" + operation + "'");
    }
    if (!(duration > 0 && duration <= 3600)) {
      throw new IllegalArgumentException("--duration must be > 0 and <= 3600, got " + duration);
    }
    if (!(warmup >= 0 && warmup <= 600)) {
      throw new IllegalArgumentException("--warmup must be 0..600, got " + warmup);
    }
    if (blockSize < 1 || blockSize > 64 << 20) {
      throw new IllegalArgumentException(
          "--block-size must be 1..67108864 bytes, got " + blockSize);
    }
    if (batchSize < 1 || batchSize > 1024) {
      throw new IllegalArgumentException("--batch-size must be 1..1024, got " + batchSize);
    }
    if (depth < 1 || depth > 256) {
      throw new IllegalArgumentException("--depth must be 1..256, got " + depth);
    }
    if (threads < 1 || threads > 16) {
      throw new IllegalArgumentException("--threads must be 1..16, got " + threads);
    }
    if (region() > MAX_REGION) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--threads x --depth x --batch-size x --block-size must be <= 512 MiB, got %d x %d x %d x %d",
              threads,
              depth,
              batchSize,
              blockSize));
    }
  }

  /**
   * @return the load these flags describe
   */
  public LoadGenerator.Plan plan() {
    return new LoadGenerator.Plan(
        opcode(), blockSize, batchSize, depth, threads, verify, prepared, callerThreads);
  }

  /**
   * @return bytes per request
   */
  public int blockSize() {
    return blockSize;
  }

  /**
   * @return true for one JSON object instead of the table
   */
  public boolean json() {
    return json;
  }

  /**
   * @return true unless {@code --no-progress}
   */
  public boolean progress() {
    return !noProgress;
  }

  /**
   * @return the bytes every request slot together covers (local and remote)
   */
  public long region() {
    return (long) threads * depth * batchSize * blockSize;
  }

  /**
   * @return READ or WRITE
   */
  public TransferOpcode opcode() {
    return "read".equalsIgnoreCase(operation) ? TransferOpcode.READ : TransferOpcode.WRITE;
  }

  /**
   * @return the measurement time
   */
  public Duration measure() {
    return Duration.ofNanos((long) (duration * 1e9));
  }

  /**
   * @return the warm-up time
   */
  public Duration warmupTime() {
    return Duration.ofNanos((long) (warmup * 1e9));
  }

  /**
   * @return batches in flight per thread
   */
  public int depth() {
    return depth;
  }

  /**
   * @return submitting threads
   */
  public int threads() {
    return threads;
  }

  /**
   * @return true to check the data
   */
  public boolean verify() {
    return verify;
  }

  /**
   * @return true to post every batch as a prepared transfer
   */
  public boolean prepared() {
    return prepared;
  }

  /**
   * @return true to submit from plain threads instead of verticles
   */
  public boolean callerThreads() {
    return callerThreads;
  }
}

package io.vte.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live progress of a run on stderr: on a terminal one line rewritten in place with {@code \r}
 * twice a second; otherwise a plain line every second. Shows throughput over the last interval,
 * requests, errors, the engines' retried slices and the devices whose port is down; an injected
 * fault step gets a line of its own when it applies.
 */
public final class ProgressLine implements AutoCloseable {

  private final PrintWriter err;
  private final boolean terminal;
  private final LoadGenerator load;
  private final EngineWatch engines;
  private final long retriesAtStart;
  private final long opsAtStart;
  private final long failedAtStart;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "vte-bench-progress");
            t.setDaemon(true);
            return t;
          });
  private final long start = System.nanoTime();
  private long lastBytes;
  private long lastNanos = start;

  /**
   * Starts printing.
   *
   * @param err where to print
   * @param terminal true to rewrite one line in place
   * @param load the counters to show
   * @param engines the engines whose retries and down devices to show
   */
  public ProgressLine(PrintWriter err, boolean terminal, LoadGenerator load, EngineWatch engines) {
    this(err, terminal, load, engines, terminal ? 500 : 1000);
  }

  /**
   * Starts printing every {@code periodMillis} (a test that renders lines itself passes a period
   * longer than it runs).
   */
  ProgressLine(
      PrintWriter err,
      boolean terminal,
      LoadGenerator load,
      EngineWatch engines,
      long periodMillis) {
    this.err = err;
    this.terminal = terminal;
    this.load = load;
    this.engines = engines;
    this.retriesAtStart = engines.retries();
    this.opsAtStart = load.ops();
    this.failedAtStart = load.failed();
    this.lastBytes = load.bytes();
    timer.scheduleAtFixedRate(this::print, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  private synchronized void print() {
    String line = render(System.nanoTime());
    if (terminal) {
      err.print("\r" + line + "   ");
    } else {
      err.println(line);
    }
    err.flush();
  }

  /**
   * @param now the nanosecond clock
   * @return the line for the interval since the last one: its throughput, and the requests, errors
   *     and retries since this progress line started (a warm-up before it is not counted)
   */
  synchronized String render(long now) {
    long bytes = load.bytes();
    double gibs = (bytes - lastBytes) / (double) (1L << 30) / ((now - lastNanos) / 1e9);
    lastBytes = bytes;
    lastNanos = now;
    List<String> down = engines.downDevices();
    return String.format(
        Locale.ROOT,
        "[%5.1f s] %7.3f GiB/s  ops %d  errors %d  retries %d%s",
        (now - start) / 1e9,
        gibs,
        load.ops() - opsAtStart,
        load.failed() - failedAtStart,
        engines.retries() - retriesAtStart,
        down.isEmpty() ? "" : "  down " + String.join(",", down));
  }

  /**
   * Marks an injected fault step as it applies, on a line of its own.
   *
   * @param step the step's log line ({@code port-down:src1@1.000s applied})
   */
  public synchronized void fault(String step) {
    String line =
        String.format(Locale.ROOT, "[%5.1f s] fault %s", (System.nanoTime() - start) / 1e9, step);
    err.println(terminal ? "\r" + line + "\u001b[K" : line);
    err.flush();
  }

  /** Stops printing (and ends the in-place line on a terminal). */
  @Override
  public void close() {
    timer.shutdownNow();
    if (terminal) {
      err.println();
      err.flush();
    }
  }
}

package io.vte.cli.bench.fault;

import io.vte.api.DeviceStatus;
import io.vte.api.FaultInjector;
import io.vte.api.TransferEngine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Plays an {@code --inject} schedule against the soft devices of one engine, on a thread of its own
 * (never on an event loop: a port going down closes sockets). Every step is logged with the time it
 * ran and whether it took effect, for the report.
 */
public final class FaultScheduler implements AutoCloseable {

  private final TransferEngine engine;
  private final FaultInjector faults;
  private final List<FaultStep> steps;
  private final List<String> log = new ArrayList<>();
  private volatile Consumer<String> listener = line -> {};
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "vte-bench-inject");
            t.setDaemon(true);
            return t;
          });

  private FaultScheduler(TransferEngine engine, FaultInjector faults, List<FaultStep> steps) {
    this.engine = engine;
    this.faults = faults;
    this.steps = steps;
  }

  /**
   * Checks that every step names a device of this engine's soft transport.
   *
   * @param engine the engine whose devices take the faults
   * @param steps the schedule (only the steps for this engine's devices are kept)
   * @param deviceNames the engine's device names
   * @return the scheduler, not started
   * @throws IllegalArgumentException when the transport is not soft verbs
   */
  public static FaultScheduler forEngine(
      TransferEngine engine, List<FaultStep> steps, Collection<String> deviceNames) {
    FaultInjector faults =
        engine
            .diagnostics()
            .faultInjector()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "--inject needs the soft transport (soft verbs fault injector)"));
    return new FaultScheduler(
        engine, faults, steps.stream().filter(s -> deviceNames.contains(s.device())).toList());
  }

  /**
   * Checks that every step names one of the known devices.
   *
   * @param steps the schedule
   * @param deviceNames every device name of the run
   * @throws IllegalArgumentException naming the first unknown device
   */
  public static void requireKnownDevices(List<FaultStep> steps, Collection<String> deviceNames) {
    for (FaultStep s : steps) {
      if (!deviceNames.contains(s.device())) {
        throw new IllegalArgumentException(
            "bad --inject step '"
                + s
                + "': no device '"
                + s.device()
                + "' in this run (devices: "
                + String.join(", ", deviceNames)
                + ")");
      }
    }
  }

  /**
   * @param onStep called on the scheduler's thread with each step's log line as it runs
   * @return this
   */
  public FaultScheduler onStep(Consumer<String> onStep) {
    this.listener = onStep;
    return this;
  }

  /**
   * @return the engine whose devices take the faults
   */
  public TransferEngine engine() {
    return engine;
  }

  /** Schedules every step relative to now. */
  public void start() {
    for (FaultStep s : steps) {
      timer.schedule(() -> apply(s), s.atNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Plays every step on the calling thread, in order, each at its time counted from now; returns
   * once the last one ran (a thread that may block: not an event loop).
   *
   * @throws InterruptedException when interrupted while waiting for a step's time
   */
  public void runInOrder() throws InterruptedException {
    long start = System.nanoTime();
    for (FaultStep s : steps) {
      long wait = s.atNanos() - (System.nanoTime() - start);
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      apply(s);
    }
  }

  private void apply(FaultStep s) {
    String outcome;
    try {
      outcome =
          switch (s.kind()) {
            case PORT_DOWN -> {
              faults.portDown(s.device());
              yield "applied";
            }
            case PORT_UP -> {
              faults.portUp(s.device());
              yield "applied";
            }
            case DROP -> {
              faults.dropFrames(s.device(), s.fraction(), 42);
              yield "applied";
            }
            case CLEAR -> {
              faults.clearFrameFaults(s.device());
              yield "applied";
            }
            case QP_FATAL -> {
              List<Integer> qps = liveQps(s.device());
              for (int qp : qps) {
                faults.failQp(s.device(), qp);
              }
              yield "applied to " + qps.size() + " QPs";
            }
          };
    } catch (RuntimeException e) {
      outcome = "failed: " + e.getMessage();
    }
    String line = String.format(Locale.ROOT, "%s %s", s, outcome);
    synchronized (log) {
      log.add(line);
    }
    listener.accept(line);
  }

  /**
   * @return the live QP numbers of a device's endpoints
   */
  private List<Integer> liveQps(String device) {
    List<Integer> out = new ArrayList<>();
    for (DeviceStatus d : engine.diagnostics().devices()) {
      if (d.name().equals(device)) {
        out.addAll(d.liveQpNumbers());
      }
    }
    return out;
  }

  /**
   * @return what ran so far, one line per step ({@code step outcome})
   */
  public List<String> log() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  /** Cancels the steps not yet run and stops the thread. */
  @Override
  public void close() {
    timer.shutdownNow();
  }
}

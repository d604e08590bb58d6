package io.vte.engine.impl.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.verbs.PortCounters;
import io.vte.verbs.PortCounters.Snapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * The NIC's own counters of each device's port, where the provider shows them (ibverbs: the
 * kernel's sysfs): {@code vte.device.port.received.bytes}, {@code
 * vte.device.port.transmitted.bytes} and each driver counter as {@code vte.device.hw.counter} (tag
 * {@code counter}). Reading them may block, so they are read on a worker every {@link #REFRESH_MS}
 * ms and the meters show the last values read; a meter appears once its counter was first read.
 * {@link #close()} stops the reads and removes the meters.
 */
public final class PortCounterMeters {

  /** How often the counters are read again, in milliseconds. */
  static final long REFRESH_MS = 1_000;

  private static final String RECEIVED = "vte.device.port.received.bytes";
  private static final String TRANSMITTED = "vte.device.port.transmitted.bytes";
  private static final String HARDWARE = "vte.device.hw.counter";
  private static final String RECEIVED_HELP =
      "bytes the device's port received as the NIC counts them: every QP and process, headers too";
  private static final String TRANSMITTED_HELP =
      "bytes the device's port sent as the NIC counts them: every QP and process, headers too";
  private static final String HARDWARE_HELP =
      "a counter the NIC's driver keeps for the device's port, by its name (tag counter)";

  private final Vertx vertx;
  private final MeterRegistry registry;
  private final List<Port> ports;
  private final List<Meter> meters = new ArrayList<>();
  private final Set<String> registered = new HashSet<>();
  private final long timer;
  private boolean closed;

  /** One device's port: its counters, its meters' tags and the last values read. */
  private static final class Port {
    final PortCounters counters;
    final Tags tags;
    volatile Snapshot last = new Snapshot(-1, -1, Map.of());

    Port(PortCounters counters, Tags tags) {
      this.counters = counters;
      this.tags = tags;
    }
  }

  private PortCounterMeters(Vertx vertx, MeterRegistry registry, List<Port> ports) {
    this.vertx = vertx;
    this.registry = registry;
    this.ports = ports;
    refresh();
    this.timer = vertx.setPeriodic(REFRESH_MS, id -> refresh());
  }

  /**
   * Starts reading the counters of every device whose provider shows them.
   *
   * @param vertx runs the reads on its workers and their timer
   * @param registry where to register
   * @param engine the engine's label (tag {@code engine})
   * @param contexts the local contexts
   * @return the meters, to close when the engine closes; null when no device shows counters
   */
  public static PortCounterMeters start(
      Vertx vertx, MeterRegistry registry, String engine, List<LocalContext> contexts) {
    List<Port> ports = new ArrayList<>();
    for (LocalContext ctx : contexts) {
      PortCounters counters = ctx.device().portCounters(ctx.config().port());
      if (counters != null) {
        ports.add(new Port(counters, Tags.of("engine", engine, "device", ctx.deviceName())));
      }
    }
    return ports.isEmpty() ? null : new PortCounterMeters(vertx, registry, ports);
  }

  private void refresh() {
    vertx
        .executeBlocking(
            () -> {
              List<Snapshot> read = new ArrayList<>(ports.size());
              ports.forEach(p -> read.add(p.counters.read()));
              return read;
            },
            false)
        .onSuccess(this::show);
  }

  /** Keeps the values read and registers a meter for each counter read for the first time. */
  private synchronized void show(List<Snapshot> read) {
    if (closed) {
      return;
    }
    for (int i = 0; i < ports.size(); i++) {
      Port port = ports.get(i);
      Snapshot now = read.get(i);
      port.last = now;
      if (now.receivedBytes() >= 0) {
        register(port, RECEIVED, port.tags, RECEIVED_HELP, Snapshot::receivedBytes);
      }
      if (now.transmittedBytes() >= 0) {
        register(port, TRANSMITTED, port.tags, TRANSMITTED_HELP, Snapshot::transmittedBytes);
      }
      for (String name : now.hardware().keySet()) {
        register(
            port,
            HARDWARE,
            port.tags.and("counter", name),
            HARDWARE_HELP,
            s -> s.hardware().getOrDefault(name, 0L));
      }
    }
  }

  private void register(
      Port port, String meter, Tags tags, String help, ToLongFunction<Snapshot> value) {
    if (registered.add(meter + tags)) {
      meters.add(
          FunctionCounter.builder(meter, port, p -> value.applyAsLong(p.last))
              .tags(tags)
              .baseUnit(meter.equals(HARDWARE) ? null : "bytes")
              .description(help)
              .register(registry));
    }
  }

  /** Stops the reads and removes every meter. */
  public synchronized void close() {
    closed = true;
    vertx.cancelTimer(timer);
    meters.forEach(registry::remove);
    meters.clear();
  }
}

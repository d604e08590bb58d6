package io.vte.engine.impl.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vte.api.TransferOpcode;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.verbs.PortState;
import io.vte.verbs.ServedCounters;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The meters of each local device: whether its port is up ({@code vte.device.up}) and, where the
 * provider counts it (soft verbs), what it served to peers as the target of their one-sided READs
 * and WRITEs ({@code vte.engine.served.bytes}, {@code vte.engine.served.slices}, by opcode): the
 * serving side of a transfer, which no request of this engine sees.
 */
public final class DeviceMeters {

  private DeviceMeters() {}

  /**
   * @param registry where to register
   * @param engine the engine's label (tag {@code engine})
   * @param contexts the local contexts
   * @return the meters, to remove when the engine closes
   */
  public static List<Meter> bind(
      MeterRegistry registry, String engine, List<LocalContext> contexts) {
    List<Meter> meters = new ArrayList<>();
    for (LocalContext ctx : contexts) {
      Tags tags = Tags.of("engine", engine, "device", ctx.deviceName());
      meters.add(
          Gauge.builder(
                  "vte.device.up", ctx, c -> c.portAttributes().state() == PortState.ACTIVE ? 1 : 0)
              .tags(tags)
              .description("1 while the device's port is active, else 0")
              .register(registry));
      ServedCounters served = ctx.device().servedCounters();
      if (served == null) {
        continue;
      }
      meters.add(
          served(registry, tags, TransferOpcode.READ, served, ServedCounters::readBytes, true));
      meters.add(served(registry, tags, TransferOpcode.READ, served, ServedCounters::reads, false));
      meters.add(
          served(registry, tags, TransferOpcode.WRITE, served, ServedCounters::writeBytes, true));
      meters.add(
          served(registry, tags, TransferOpcode.WRITE, served, ServedCounters::writes, false));
    }
    return meters;
  }

  private static Meter served(
      MeterRegistry registry,
      Tags tags,
      TransferOpcode opcode,
      ServedCounters served,
      ToDoubleFunction<ServedCounters> value,
      boolean bytes) {
    return FunctionCounter.builder(
            bytes ? "vte.engine.served.bytes" : "vte.engine.served.slices", served, value)
        .tags(tags)
        .tag("opcode", opcode.name())
        .baseUnit(bytes ? "bytes" : null)
        .description(
            bytes
                ? "bytes of peers' one-sided operations this device served, by opcode"
                : "peers' one-sided operations (their slices) this device served, by opcode")
        .register(registry);
  }
}

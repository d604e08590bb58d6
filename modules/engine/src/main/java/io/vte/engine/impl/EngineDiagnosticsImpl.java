package io.vte.engine.impl;

import io.vte.api.DeviceStatus;
import io.vte.api.EngineDiagnostics;
import io.vte.api.FaultInjector;
import io.vte.api.MetadataStatus;
import io.vte.api.OwnerStats;
import io.vte.api.PeerDeviceStatus;
import io.vte.api.RailStatus;
import io.vte.api.TransferCounters;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.owner.OwnerMetrics;
import io.vte.engine.impl.push.DevicePush;
import io.vte.engine.impl.rail.RailSelector;
import io.vte.engine.impl.shm.SharedMemoryRail;
import io.vte.metadata.MetadataStore;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.VerbsProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The engine's {@link EngineDiagnostics}: reads only what is thread-safe already (the counters'
 * adders, the rail selector's atomics, the owners' volatile metrics and single-writer recorders,
 * the contexts' concurrent QP maps, the device's port query), so any thread may call it and no
 * owner is stopped or locked.
 */
final class EngineDiagnosticsImpl implements EngineDiagnostics {

  private final String serverName;
  private final String segmentName;
  private final String metricsLabel;
  private final String metadataUri;
  private final MetadataStore metadata;
  private final List<LocalContext> contexts;
  private final RailSelector rails;
  private final EngineCounters counters;
  private final Optional<FaultInjector> faults;
  private final SharedMemoryRail sharedMemory;
  private final DevicePush push;

  /**
   * @param serverName the handshake server name
   * @param segmentName the published segment name
   * @param metricsLabel the {@code engine} label of its meters
   * @param metadataUri the metadata store's URI
   * @param metadata the metadata store
   * @param contexts the local contexts, by device index
   * @param rails the rail selector
   * @param counters the engine counters
   * @param provider the verbs provider (soft verbs: its injector becomes the fault injector)
   * @param sharedMemory the same-host rail
   * @param push the pushed device states, both ways
   */
  EngineDiagnosticsImpl(
      String serverName,
      String segmentName,
      String metricsLabel,
      String metadataUri,
      MetadataStore metadata,
      List<LocalContext> contexts,
      RailSelector rails,
      EngineCounters counters,
      VerbsProvider provider,
      SharedMemoryRail sharedMemory,
      DevicePush push) {
    this.sharedMemory = sharedMemory;
    this.push = push;
    this.serverName = serverName;
    this.segmentName = segmentName;
    this.metricsLabel = metricsLabel;
    this.metadataUri = metadataUri;
    this.metadata = metadata;
    this.contexts = List.copyOf(contexts);
    this.rails = rails;
    this.counters = counters;
    this.faults = provider.faultInjector().map(f -> new SoftVerbsFaults(f, sharedMemory));
  }

  @Override
  public String serverName() {
    return serverName;
  }

  @Override
  public String segmentName() {
    return segmentName;
  }

  @Override
  public String metricsLabel() {
    return metricsLabel;
  }

  @Override
  public MetadataStatus metadata() {
    return new MetadataStatus(metadataUri, metadata.isDegraded(), metadata.degradedCount());
  }

  @Override
  public List<DeviceStatus> devices() {
    List<DeviceStatus> devices = new ArrayList<>(contexts.size());
    for (LocalContext ctx : contexts) {
      devices.add(status(ctx));
    }
    return devices;
  }

  private static DeviceStatus status(LocalContext ctx) {
    List<Integer> qps = ctx.liveQpNumbers();
    try {
      PortAttributes port = ctx.portAttributes();
      return new DeviceStatus(
          ctx.deviceName(),
          ctx.localNicPath(),
          port.port(),
          port.state().name(),
          port.lid(),
          port.gid().toString(),
          qps,
          null);
    } catch (RuntimeException e) {
      return new DeviceStatus(
          ctx.deviceName(),
          ctx.localNicPath(),
          ctx.config().port(),
          DeviceStatus.ERROR,
          0,
          "",
          qps,
          String.valueOf(e.getMessage()));
    }
  }

  @Override
  public List<RailStatus> rails() {
    List<RailStatus> all = rails.snapshot();
    all.addAll(sharedMemory.snapshot());
    return all;
  }

  @Override
  public TransferCounters counters() {
    return new TransferCounters(
        counters.bytes(),
        counters.slices(),
        counters.retries(),
        counters.staleRefreshes(),
        counters.batches());
  }

  @Override
  public PeerDeviceStatus peerDevices() {
    return push.status();
  }

  @Override
  public Map<String, Integer> wireVersions() {
    Map<String, Integer> all = new TreeMap<>();
    for (LocalContext ctx : contexts) {
      for (int i = 0; i < ctx.ownerCount(); i++) {
        all.putAll(ctx.ownerMetrics(i).wireVersions());
      }
    }
    return Collections.unmodifiableMap(all);
  }

  @Override
  public OwnerStats owners() {
    long alive = 0;
    long retired = 0;
    long evicted = 0;
    long active = 0;
    long passive = 0;
    long failed = 0;
    long attempts = 0;
    long retries = 0;
    long backoffNanos = 0;
    long stale = 0;
    long slicesFailed = 0;
    Histogram gaps = null;
    for (LocalContext ctx : contexts) {
      for (int i = 0; i < ctx.ownerCount(); i++) {
        OwnerMetrics m = ctx.ownerMetrics(i);
        alive += m.endpointsAlive();
        retired += m.endpointsRetired();
        evicted += m.endpointsEvicted();
        active += m.handshakesActive();
        passive += m.handshakesPassive();
        failed += m.handshakesFailed();
        attempts += m.handshakeAttempts();
        retries += m.handshakeRetries();
        backoffNanos += m.handshakeBackoffNanos();
        stale += m.staleRepliesDropped();
        slicesFailed += m.slicesFailed();
        Histogram h = m.pollGapHistogram();
        if (gaps == null) {
          gaps = h;
        } else {
          gaps.add(h);
        }
      }
    }
    boolean none = gaps == null || gaps.getTotalCount() == 0;
    return new OwnerStats(
        alive,
        retired,
        evicted,
        active,
        passive,
        failed,
        attempts,
        retries,
        backoffNanos,
        stale,
        slicesFailed,
        none ? 0 : gaps.getValueAtPercentile(99.9),
        none ? 0 : gaps.getMaxValue());
  }

  /**
   * @return a snapshot for people: names, metadata, each device's port, each rail's health and
   *     bytes, the counters and the owners' figures, on one line
   */
  @Override
  public String toString() {
    StringBuilder b =
        new StringBuilder("EngineDiagnostics[server=")
            .append(serverName)
            .append(", segment=")
            .append(segmentName)
            .append(", metadata=")
            .append(metadata())
            .append(", devices=[");
    List<DeviceStatus> devices = devices();
    for (int i = 0; i < devices.size(); i++) {
      DeviceStatus d = devices.get(i);
      b.append(i == 0 ? "" : ", ").append(d.name()).append(' ').append(d.portState());
    }
    b.append("], rails=[");
    List<RailStatus> all = rails();
    for (int i = 0; i < all.size(); i++) {
      RailStatus r = all.get(i);
      b.append(i == 0 ? "" : ", ")
          .append(r.localDevice())
          .append("->")
          .append(r.peerServer())
          .append('@')
          .append(r.peerDevice())
          .append(r.usable() ? " up" : " down")
          .append(" moved ")
          .append(r.movedBytes())
          .append(" B");
    }
    return b.append("], counters=")
        .append(counters())
        .append(", owners=")
        .append(owners())
        .append(", wireVersions=")
        .append(wireVersions())
        .append(']')
        .toString();
  }

  @Override
  public Optional<FaultInjector> faultInjector() {
    return faults;
  }
}

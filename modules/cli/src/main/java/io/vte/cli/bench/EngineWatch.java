package io.vte.cli.bench;

import io.vte.api.TransferEngine;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.verbs.PortState;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the progress line shows of the engines of a run besides its own counters: slices retried (each retry
 * is a failover to another rail or a new attempt on the same one) and the devices whose port is not active.
 * Both come from the engine implementation ({@link TransferEngineImpl#counters()} and the owners' port
 * attributes): the public {@link TransferEngine} API has neither.
 */
public final class EngineWatch {

  private final List<TransferEngineImpl> engines;

  private EngineWatch(List<TransferEngineImpl> engines) {
    this.engines = engines;
  }

  /**
   * @param initiator the initiating engine
   * @param faults the run's fault schedulers (their engines are watched too, e.g. the embedded target)
   * @return a watch over every distinct engine among them that is the VTE implementation
   */
  public static EngineWatch of(TransferEngine initiator, List<FaultScheduler> faults) {
    Set<TransferEngineImpl> engines = new LinkedHashSet<>();
    if (initiator instanceof TransferEngineImpl impl) {
      engines.add(impl);
    }
    faults.forEach(f -> engines.add(f.engine()));
    return new EngineWatch(List.copyOf(engines));
  }

  /** @return slices resubmitted after a failure, over every watched engine, since it started */
  public long retries() {
    long sum = 0;
    for (TransferEngineImpl e : engines) {
      sum += e.counters().retries();
    }
    return sum;
  }

  /** @return the names of the watched devices whose port is not ACTIVE now, in engine and device order */
  public List<String> downDevices() {
    List<String> down = new ArrayList<>();
    for (TransferEngineImpl e : engines) {
      for (LocalContext c : e.contexts()) {
        if (c.portAttributes().state() != PortState.ACTIVE && !down.contains(c.deviceName())) {
          down.add(c.deviceName());
        }
      }
    }
    return down;
  }
}

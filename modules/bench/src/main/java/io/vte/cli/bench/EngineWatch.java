package io.vte.cli.bench;

import io.vte.api.DeviceStatus;
import io.vte.api.TransferEngine;
import io.vte.cli.bench.fault.FaultScheduler;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the progress line shows of the engines of a run besides its own counters: slices retried
 * (each retry is a failover to another rail or a new attempt on the same one) and the devices whose
 * port is not active. Both come from the engines' diagnostics ({@link
 * TransferEngine#diagnostics()}: its counters and devices).
 */
public final class EngineWatch {

  private final List<TransferEngine> engines;

  private EngineWatch(List<TransferEngine> engines) {
    this.engines = engines;
  }

  /**
   * @param initiator the initiating engine
   * @param faults the run's fault schedulers (their engines are watched too, e.g. the embedded
   *     target)
   * @return a watch over every distinct engine among them
   */
  public static EngineWatch of(TransferEngine initiator, List<FaultScheduler> faults) {
    Set<TransferEngine> engines = new LinkedHashSet<>();
    engines.add(initiator);
    faults.forEach(f -> engines.add(f.engine()));
    return new EngineWatch(List.copyOf(engines));
  }

  /**
   * @return slices resubmitted after a failure, over every watched engine, since it started
   */
  public long retries() {
    long sum = 0;
    for (TransferEngine e : engines) {
      sum += e.diagnostics().counters().retries();
    }
    return sum;
  }

  /**
   * @return the names of the watched devices whose port is not ACTIVE now, in engine and device
   *     order
   */
  public List<String> downDevices() {
    List<String> down = new ArrayList<>();
    for (TransferEngine e : engines) {
      for (DeviceStatus d : e.diagnostics().devices()) {
        if (!d.active() && !down.contains(d.name())) {
          down.add(d.name());
        }
      }
    }
    return down;
  }
}

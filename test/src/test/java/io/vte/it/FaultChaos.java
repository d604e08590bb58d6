package io.vte.it;

import io.vte.api.FaultInjector;
import io.vte.api.TransferEngine;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Seeded random faults for the soak: every 1 to 3 s, one port goes down or one device drops 5% of
 * its frames, on either side, for 0.2 to 1.5 s. One fault at a time, so some rail always works.
 * Every inject and heal goes to a {@link FaultLog}, so failures can be attributed to what was
 * happening.
 */
final class FaultChaos {

  private final TransferEngine local;
  private final NodeProcess node;
  private final SplittableRandom random;
  private final FaultLog log;
  private long nextAt;
  private long healAt = -1;
  private Action heal;
  private String healKind;
  private String healDetail;
  private int faults;

  @FunctionalInterface
  private interface Action {
    void run() throws Exception;
  }

  FaultChaos(TransferEngine local, NodeProcess node, SplittableRandom random) {
    this.local = local;
    this.node = node;
    this.random = random;
    long now = System.nanoTime();
    this.log = new FaultLog(now);
    this.nextAt = now + TimeUnit.SECONDS.toNanos(1);
  }

  /** Injects or heals a fault when its time has come. */
  void step(long now) throws Exception {
    if (heal != null && now >= healAt) {
      heal();
      nextAt = now + TimeUnit.MILLISECONDS.toNanos(1000 + random.nextInt(2000));
    } else if (heal == null && now >= nextAt) {
      inject();
      healAt = now + TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(1300));
    }
  }

  private void inject() throws Exception {
    int device = random.nextInt(LocalEngines.DEVICES);
    boolean localSide = random.nextBoolean();
    boolean drop = random.nextInt(3) == 0;
    long seed = random.nextLong();
    FaultInjector injector = LocalEngines.faults(local);
    String name = local.diagnostics().devices().get(device).name();
    String kind = (localSide ? "local " : "node ") + (drop ? "drop 5%" : "port-down");
    if (localSide && drop) {
      injector.dropFrames(name, 0.05, seed);
      heal = () -> injector.clearFrameFaults(name);
    } else if (localSide) {
      injector.portDown(name);
      heal = () -> injector.portUp(name);
    } else if (drop) {
      node.request("fault drop " + device + " 0.05 " + seed, "fault");
      heal = () -> node.request("fault clear " + device, "fault");
    } else {
      node.request("fault port-down " + device, "fault");
      heal = () -> node.request("fault port-up " + device, "fault");
    }
    this.faults++;
    healKind = "heal " + kind;
    healDetail = "dev " + device;
    log.add(kind, healDetail + (drop ? " seed " + seed : ""));
  }

  /** Undoes the active fault, if any. */
  void heal() throws Exception {
    if (heal != null) {
      heal.run();
      heal = null;
      log.add(healKind, healDetail);
    }
  }

  /**
   * @return faults injected so far
   */
  int faults() {
    return faults;
  }

  /**
   * @return the injected and healed steps with their times
   */
  FaultLog log() {
    return log;
  }
}

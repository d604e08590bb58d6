package io.vte.cli.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.Integrity;
import io.vte.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code vte bench --integrity crc32c}: the cost of the end-to-end check, as the throughput of the
 * same load with the check on against off, measured in alternating windows of one run (on, off,
 * off, on, on, off, ...: each round swaps the order, so neither side always follows the other), so
 * a change of load on a shared machine weighs on both sides alike. The ratio is the sum of the
 * checked windows' throughputs over the unchecked ones'.
 */
final class IntegrityCost {

  /** Pairs of windows (one checked, one not). */
  static final int ROUNDS = 4;

  private IntegrityCost() {}

  /**
   * Measures and prints the windows and the ratio.
   *
   * @param session the connected initiator
   * @param load the load flags (plan, warm-up, measured time shared by all windows)
   * @param out where the report goes
   * @return {@link ExitCodes#OK}, or the failing window's exit code
   */
  static int run(InitiatorSession session, LoadFlags load, PrintWriter out) throws Exception {
    Duration window = load.measure().dividedBy(2L * ROUNDS);
    double[] on = new double[ROUNDS];
    double[] off = new double[ROUNDS];
    int exit = ExitCodes.OK;
    for (int r = 0; r < ROUNDS; r++) {
      List<Integrity> order =
          r % 2 == 0
              ? List.of(Integrity.CRC32C, Integrity.NONE)
              : List.of(Integrity.NONE, Integrity.CRC32C);
      for (Integrity mode : order) {
        session.checkIntegrity(mode);
        Duration warmup = r == 0 && mode == order.get(0) ? load.warmupTime() : Duration.ZERO;
        BenchResult w =
            session.measure(load.plan(), warmup, window, 1, () -> {}, List.of(), null, false);
        (mode == Integrity.CRC32C ? on : off)[r] = w.gibPerSecond();
        if (w.exitCode() != ExitCodes.OK) {
          exit = w.exitCode();
        }
      }
    }
    session.checkIntegrity(null);
    double sumOn = 0;
    double sumOff = 0;
    for (int r = 0; r < ROUNDS; r++) {
      sumOn += on[r];
      sumOff += off[r];
    }
    double ratio = sumOff == 0 ? 0 : sumOn / sumOff;
    if (load.json()) {
      out.println(
          new JsonObject()
              .put("opcode", load.opcode().name())
              .put("blockSize", load.blockSize())
              .put("crc32cGibs", new JsonArray(List.of(boxed(on))))
              .put("noneGibs", new JsonArray(List.of(boxed(off))))
              .put("ratio", ratio)
              .encode());
    } else {
      out.printf(
          Locale.ROOT,
          "integrity cost: %s of %d B, %d windows of %d ms each way, alternated%n",
          load.opcode(),
          load.blockSize(),
          ROUNDS,
          window.toMillis());
      for (int r = 0; r < ROUNDS; r++) {
        out.printf(
            Locale.ROOT, "  round %d: crc32c %.3f GiB/s, none %.3f GiB/s%n", r + 1, on[r], off[r]);
      }
      out.printf(Locale.ROOT, "crc32c / none = %.3f%n", ratio);
    }
    out.flush();
    return exit;
  }

  private static Double[] boxed(double[] values) {
    Double[] out = new Double[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }
}

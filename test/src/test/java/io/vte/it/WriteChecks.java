package io.vte.it;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-write checks of a load run: each completed write's region in the receiver is read (its
 * CRC32C) before the slot is written again and compared with the CRC of the pattern that write
 * carried, so a write lost or cut short during a fault is seen even though a later write to the
 * same slot would mask it. Keeps the first few losses with the faults in flight around them.
 * Single-threaded: the load loop records.
 */
final class WriteChecks {

  private static final int KEPT = 5;

  private final FaultLog faults;
  private final List<String> firstLost = new ArrayList<>();
  private long verified;
  private long lost;

  /**
   * @param faults the run's fault steps
   */
  WriteChecks(FaultLog faults) {
    this.faults = faults;
  }

  /**
   * Records one check.
   *
   * @param slot the slot written
   * @param write the write's number (its pattern seed)
   * @param expected CRC32C of the pattern written
   * @param found CRC32C of the receiver's region after the write completed
   * @param submittedAt System.nanoTime of submission
   * @param completedAt System.nanoTime of completion
   */
  void record(int slot, long write, long expected, long found, long submittedAt, long completedAt) {
    if (expected == found) {
      verified++;
      return;
    }
    lost++;
    if (firstLost.size() < KEPT) {
      firstLost.add(
          String.format(
              "slot %d write %d: receiver CRC %08x, written %08x (%s)",
              slot, write, found, expected, faults.describe(submittedAt, completedAt)));
    }
  }

  /**
   * @return completed writes whose bytes were found in the receiver
   */
  long verified() {
    return verified;
  }

  /**
   * @return completed writes whose bytes were not found in the receiver
   */
  long lost() {
    return lost;
  }

  /**
   * @return "none", or the count and the first few losses with their faults
   */
  String details() {
    return lost == 0 ? "none" : lost + " lost, first: " + String.join("; ", firstLost);
  }
}

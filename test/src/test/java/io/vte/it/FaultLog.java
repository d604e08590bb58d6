package io.vte.it;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The last fault steps of a run (inject, heal, flap...) with their times, in a small ring, so a
 * failed transfer can be attributed to what the fault injector was doing while it was in flight.
 * Thread-safe: faults may run on their own thread.
 */
final class FaultLog {

  private static final int CAPACITY = 64;
  private static final int MAX_KINDS = 4;

  /**
   * One step.
   *
   * @param at System.nanoTime when the step had taken effect
   * @param kind what was done, without its parameters (the tally key), e.g. "node port-down"
   * @param detail its parameters, e.g. "dev 2"
   */
  record Step(long at, String kind, String detail) {}

  private final long origin;
  private final Step[] ring = new Step[CAPACITY];
  private long count;

  /**
   * @param origin System.nanoTime that step times in reports are relative to
   */
  FaultLog(long origin) {
    this.origin = origin;
  }

  /**
   * Records a step that has just taken effect.
   *
   * @param kind what was done, e.g. "node port-down"
   * @param detail its parameters
   */
  synchronized void add(String kind, String detail) {
    ring[(int) (count++ % CAPACITY)] = new Step(System.nanoTime(), kind, detail);
  }

  /**
   * @return steps recorded so far, including those that left the ring
   */
  synchronized long steps() {
    return count;
  }

  /**
   * @param from System.nanoTime, e.g. when a transfer was submitted
   * @param to System.nanoTime, e.g. when it failed
   * @return the step in force at {@code from} (if still in the ring) and every step in (from, to],
   *     oldest first
   */
  synchronized List<Step> between(long from, long to) {
    List<Step> out = new ArrayList<>();
    Step before = null;
    for (long i = Math.max(0, count - CAPACITY); i < count; i++) {
      Step s = ring[(int) (i % CAPACITY)];
      if (s.at() <= from) {
        before = s;
      } else if (s.at() <= to) {
        out.add(s);
      }
    }
    if (before != null) {
      out.add(0, before);
    }
    return out;
  }

  /**
   * @param from System.nanoTime a transfer was submitted
   * @param to System.nanoTime it failed
   * @return the distinct kinds of {@link #between} in order ("no fault" if none), the key failures
   *     are tallied by
   */
  String kinds(long from, long to) {
    Set<String> kinds = new LinkedHashSet<>();
    for (Step s : between(from, to)) {
      kinds.add(s.kind());
    }
    if (kinds.isEmpty()) {
      return "no fault";
    }
    List<String> list = new ArrayList<>(kinds);
    String key = String.join(" > ", list.subList(0, Math.min(MAX_KINDS, list.size())));
    return list.size() > MAX_KINDS ? key + " > ..." : key;
  }

  /**
   * @param from System.nanoTime a transfer was submitted
   * @param to System.nanoTime it failed
   * @return the transfer's life and the steps around it, times in seconds from the origin
   */
  String describe(long from, long to) {
    StringBuilder sb =
        new StringBuilder(String.format("in flight +%.3f..+%.3f s, faults:", sec(from), sec(to)));
    List<Step> steps = between(from, to);
    if (steps.isEmpty()) {
      sb.append(" none");
    }
    for (Step s : steps) {
      sb.append(String.format(" [+%.3f %s %s]", sec(s.at()), s.kind(), s.detail()));
    }
    return sb.toString();
  }

  private double sec(long nanos) {
    return (nanos - origin) / 1e9;
  }
}

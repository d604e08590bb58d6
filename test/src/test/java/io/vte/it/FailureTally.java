package io.vte.it;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Failed transfers of a run, tallied by typed cause ({@link ErrorCode} of the {@link VteException},
 * "untyped" otherwise) with the first message and fault context of each cause, and by what the
 * fault injector did while each failed transfer was in flight ({@link FaultLog#kinds}).
 * Single-threaded: the load loop records.
 */
final class FailureTally {

  private static final String UNTYPED = "untyped";

  private static final class Kind {
    int count;
    final String first;

    Kind(String first) {
      this.first = first;
    }
  }

  private final FaultLog faults;
  private final Map<String, Kind> byCause = new LinkedHashMap<>();
  private final Map<String, Integer> byFault = new TreeMap<>();
  private long failures;

  /**
   * @param faults the run's fault steps
   */
  FailureTally(FaultLog faults) {
    this.faults = faults;
  }

  /**
   * Records one failed transfer.
   *
   * @param cause the request's cause or the batch future's failure (may be null)
   * @param status how the request ended, e.g. "TIMED_OUT", or "batch failed"
   * @param submittedAt System.nanoTime of submission
   * @param failedAt System.nanoTime the failure was seen
   */
  void record(Throwable cause, String status, long submittedAt, long failedAt) {
    failures++;
    String key = cause instanceof VteException v && v.code() != null ? v.code().name() : UNTYPED;
    Kind k =
        byCause.computeIfAbsent(
            key,
            x ->
                new Kind(
                    status + " " + cause + " (" + faults.describe(submittedAt, failedAt) + ")"));
    k.count++;
    byFault.merge(faults.kinds(submittedAt, failedAt), 1, Integer::sum);
  }

  /**
   * @return failures recorded
   */
  long failures() {
    return failures;
  }

  /**
   * @return failures by typed cause
   */
  Map<ErrorCode, Integer> causes() {
    Map<ErrorCode, Integer> out = new EnumMap<>(ErrorCode.class);
    byCause.forEach(
        (key, k) -> {
          if (!key.equals(UNTYPED)) {
            out.put(ErrorCode.valueOf(key), k.count);
          }
        });
    return out;
  }

  /**
   * @param code an error code
   * @return the first failure with that code and its fault context, or null
   */
  String example(ErrorCode code) {
    Kind k = byCause.get(code.name());
    return k == null ? null : k.first;
  }

  /**
   * @return failures without a {@link VteException} code
   */
  long untyped() {
    Kind k = byCause.get(UNTYPED);
    return k == null ? 0 : k.count;
  }

  /**
   * @return the first failure of the run with its fault context, or null
   */
  String first() {
    return byCause.isEmpty() ? null : byCause.values().iterator().next().first;
  }

  /**
   * @return one line for the summary: counts by cause and by fault ("no failures" when clean)
   */
  String summary() {
    if (failures == 0) {
      return "no failures";
    }
    StringBuilder sb = new StringBuilder("failures by cause {");
    byCause.forEach((key, k) -> sb.append(key).append('=').append(k.count).append(", "));
    sb.setLength(sb.length() - 2);
    return sb.append("}, by fault in flight ").append(byFault).toString();
  }

  /**
   * @return {@link #summary()} plus the first failure of each cause, for assertion messages and the
   *     report
   */
  String details() {
    if (failures == 0) {
      return summary();
    }
    StringBuilder sb = new StringBuilder(summary()).append("; first of each:");
    byCause.forEach(
        (key, k) -> sb.append(" {").append(key).append(": ").append(k.first).append('}'));
    return sb.toString();
  }
}

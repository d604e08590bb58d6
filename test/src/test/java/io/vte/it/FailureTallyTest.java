package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The soak's failure attribution: tallies by typed cause and by the fault steps in flight, ring
 * bounded.
 */
class FailureTallyTest {

  @Test
  void tallyByCauseKeepsTheFirstMessageAndTheFaultsInFlight() {
    FaultLog log = new FaultLog(System.nanoTime());
    FailureTally tally = new FailureTally(log);
    long beforeAnyFault = System.nanoTime();
    log.add("node port-down", "dev 2");
    long duringDown = System.nanoTime();
    log.add("heal node port-down", "dev 2");
    long afterHeal = System.nanoTime();

    tally.record(
        new VteException(ErrorCode.TRANSFER_FAILED, "first"), "FAILED", beforeAnyFault, afterHeal);
    tally.record(
        new VteException(ErrorCode.TRANSFER_FAILED, "second"), "FAILED", duringDown, afterHeal);
    tally.record(
        new VteException(ErrorCode.TIMED_OUT, "late"), "TIMED_OUT", afterHeal, System.nanoTime());
    tally.record(new IllegalStateException("odd"), "batch failed", beforeAnyFault, beforeAnyFault);

    assertEquals(4, tally.failures());
    assertEquals(Map.of(ErrorCode.TRANSFER_FAILED, 2, ErrorCode.TIMED_OUT, 1), tally.causes());
    assertEquals(1, tally.untyped());
    String first = tally.example(ErrorCode.TRANSFER_FAILED);
    assertTrue(first.contains("first") && !first.contains("second"), first);
    assertTrue(
        first.contains("node port-down dev 2") && first.contains("heal node port-down dev 2"),
        first);
    assertTrue(
        tally.example(ErrorCode.TIMED_OUT).contains("[+"), "the step in force at submit is shown");
    assertEquals(first, tally.first());
    assertNull(tally.example(ErrorCode.NO_RAIL));
    String summary = tally.summary();
    assertTrue(
        summary.contains("TRANSFER_FAILED=2")
            && summary.contains("TIMED_OUT=1")
            && summary.contains("untyped=1"),
        summary);
    assertTrue(summary.contains("node port-down > heal node port-down=2"), summary);
    assertTrue(
        summary.contains("heal node port-down=1") && summary.contains("no fault=1"), summary);
    assertTrue(tally.details().contains("odd"), tally.details());
  }

  @Test
  void aCleanRunSaysSo() {
    FailureTally tally = new FailureTally(new FaultLog(System.nanoTime()));
    assertEquals("no failures", tally.details());
    assertNull(tally.first());
  }

  @Test
  void theRingKeepsOnlyTheLastStepsAndCapsTheKey() {
    long origin = System.nanoTime();
    FaultLog log = new FaultLog(origin);
    for (int i = 0; i < 200; i++) {
      log.add("k" + i, "");
    }
    assertEquals(200, log.steps());
    List<FaultLog.Step> kept = log.between(origin - 1, System.nanoTime());
    assertEquals(64, kept.size());
    assertEquals("k136", kept.get(0).kind());
    assertEquals("k199", kept.get(63).kind());
    assertEquals("k136 > k137 > k138 > k139 > ...", log.kinds(origin - 1, System.nanoTime()));
  }
}

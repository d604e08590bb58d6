package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.PortState;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fake's log stops growing at its limit, as a long data-path run needs (a 30 s port-flap run
 * logged about 1 GB and the test JVM ran out of heap reading it), and what such a run checks comes
 * from counters.
 */
@Tag("fake")
class FakeLogTest {

  /** Each "port 1 of device -1 state=N" line is about 30 bytes: this many pass the 64 MiB limit. */
  private static final int CHANGES = 2_500_000;

  @BeforeEach
  @AfterEach
  void reset() {
    FakeIbverbs.reset();
  }

  @Test
  void pastItsLimitTheLogCountsWhatItDropsAndTheCountersGoOn() {
    FakeIbverbs.setPortState(1, PortState.DOWN.code());
    assertEquals(1, FakeIbverbs.lines("port").size(), "under the limit every call is logged");
    for (int i = 1; i < CHANGES; i++) {
      FakeIbverbs.setPortState(1, (i % 2 == 0 ? PortState.DOWN : PortState.ACTIVE).code());
    }
    assertEquals(CHANGES, FakeIbverbs.count("port_changes"), "every change is counted");
    assertEquals(0, FakeIbverbs.count("qp_fatals"));
    long dropped = FakeIbverbs.count("log_dropped");
    assertTrue(dropped > 0 && dropped < CHANGES, "lines past the limit are dropped: " + dropped);
    assertTrue(FakeIbverbs.log().length() <= 64 << 20, "the log stays within 64 MiB");
    IllegalStateException cut =
        assertThrows(IllegalStateException.class, () -> FakeIbverbs.lines("port"));
    assertTrue(cut.getMessage().contains(dropped + " later lines dropped"), cut.getMessage());
    assertEquals(List.of(), FakeIbverbs.refusals(), "no refusal: the counter answers");

    FakeIbverbs.clearLog();
    assertEquals(0, FakeIbverbs.count("log_dropped"));
    FakeIbverbs.setPortState(1, PortState.ACTIVE.code());
    assertEquals(1, FakeIbverbs.lines("port").size(), "a cleared log takes lines again");
  }
}

package io.vte.cli.bench.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code --inject} schedule parser. */
class FaultStepTest {

  @Test
  void parsesEveryKindWithSecondsAndMillisecondsSortedByTime() {
    List<FaultStep> steps =
        FaultStep.parseAll(
            "port-up:soft1@12s,port-down:soft1@5s,qp-fatal:mlx5_0@1.5s,drop:soft0:0.25@250ms,clear:soft0@3s");
    assertEquals(
        List.of(
            new FaultStep(FaultStep.Kind.DROP, "soft0", 0.25, 250_000_000L),
            new FaultStep(FaultStep.Kind.QP_FATAL, "mlx5_0", 0, 1_500_000_000L),
            new FaultStep(FaultStep.Kind.CLEAR, "soft0", 0, 3_000_000_000L),
            new FaultStep(FaultStep.Kind.PORT_DOWN, "soft1", 0, 5_000_000_000L),
            new FaultStep(FaultStep.Kind.PORT_UP, "soft1", 0, 12_000_000_000L)),
        steps);
  }

  @Test
  void printsTheFormItParses() {
    FaultStep s = FaultStep.parse("drop:soft0:0.5@2s");
    assertEquals("drop:soft0:0.5@2.000s", s.toString());
    assertEquals(s, FaultStep.parse(s.toString()));
  }

  @Test
  void everyBadStepIsNamedWithTheReason() {
    String[][] cases = {
      {"explode:soft0@1s", "unknown kind 'explode'"},
      {"port-down:soft0", "expected KIND:DEVICE"},
      {"port-down:soft0@5", "expected KIND:DEVICE"},
      {"port-down:soft0@5min", "expected KIND:DEVICE"},
      {"port-down@5s", "expected KIND:DEVICE"},
      {"drop:soft0@5s", "drop needs a fraction"},
      {"drop:soft0:1.5@5s", "(0, 1]"},
      {"drop:soft0:0@5s", "(0, 1]"},
      {"port-up:soft0:0.5@5s", "takes no fraction"},
      {"port-up:soft0@4000s", "at most 3600s"},
    };
    for (String[] c : cases) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> FaultStep.parseAll(c[0]), c[0]);
      assertTrue(
          e.getMessage().contains("'" + c[0] + "'") && e.getMessage().contains(c[1]),
          e.getMessage());
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> FaultStep.parseAll("port-down:soft0@1s,,port-up:soft0@2s"));
    assertTrue(e.getMessage().contains("''"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FaultStep.parseAll(" "));
  }

  @Test
  void unknownDevicesAreNamedWithTheDevicesOfTheRun() {
    List<FaultStep> steps = FaultStep.parseAll("port-down:src0@1s,port-down:nic9@2s");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> FaultScheduler.requireKnownDevices(steps, List.of("src0", "dst0")));
    assertTrue(
        e.getMessage().contains("'nic9'") && e.getMessage().contains("src0, dst0"), e.getMessage());
    FaultScheduler.requireKnownDevices(steps.subList(0, 1), List.of("src0"));
  }
}

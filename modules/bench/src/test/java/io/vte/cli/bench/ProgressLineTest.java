package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.TransferOpcode;
import io.vte.cli.common.Blocking;
import io.vte.testkit.BlockedThreadGuard;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The progress line of a run measured in windows ({@code --baseline}: each window is a run of its
 * own): it counts from where it started, not from the warm-up, and across windows its requests only
 * grow and its throughput is never negative.
 */
@ExtendWith(BlockedThreadGuard.class)
class ProgressLineTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Pattern LINE =
      Pattern.compile(
          "\\[ *[0-9.]+ s\\] +(-?[0-9.]+) GiB/s  ops (\\d+)  errors (\\d+)  retries .*");

  @Test
  void countsFromItsStartAndAcrossWindows() throws Exception {
    LoadGenerator.Plan plan =
        new LoadGenerator.Plan(TransferOpcode.WRITE, 16384, 1, 2, 1, false, false, false);
    try (LoopbackBench bench = LoopbackBench.open("pl", plan, false)) {
      LoadGenerator load = bench.session.newLoad(plan);
      BenchResult warmup = Blocking.await(load.run(Duration.ofMillis(100)), WAIT, "the warm-up");
      assertTrue(warmup.ops() > 0, "the warm-up moved something");
      try (ProgressLine line =
          new ProgressLine(
              new PrintWriter(new StringWriter()),
              false,
              load,
              EngineWatch.of(bench.initiator.engine(), List.of()),
              TimeUnit.HOURS.toMillis(1))) {
        // the line's own timer never renders in between: each render below covers one window
        long ops = 0;
        for (int window = 1; window <= 3; window++) {
          BenchResult r = Blocking.await(load.run(Duration.ofMillis(150)), WAIT, "a window");
          assertEquals(0, r.failed(), r.failures().toString());
          ops += r.ops();
          Matcher m = parse(line.render(System.nanoTime()));
          assertEquals(ops, Long.parseLong(m.group(2)), "requests of windows 1.." + window);
          assertEquals(0, Long.parseLong(m.group(3)), "errors");
          assertTrue(Double.parseDouble(m.group(1)) > 0, "window " + window + ": " + m.group());
        }
        Matcher idle = parse(line.render(System.nanoTime()));
        assertEquals(0, Double.parseDouble(idle.group(1)), "nothing moved since: " + idle.group());
        assertEquals(ops, Long.parseLong(idle.group(2)));
      }
    }
  }

  private static Matcher parse(String line) {
    Matcher m = LINE.matcher(line);
    assertTrue(m.matches(), "a progress line: " + line);
    return m;
  }
}

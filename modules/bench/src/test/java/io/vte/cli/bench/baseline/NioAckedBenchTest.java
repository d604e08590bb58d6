package io.vte.cli.bench.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The acknowledged NIO baseline counts whole acknowledged messages and refuses empty shapes. */
class NioAckedBenchTest {

  private static final NioAckedBench.Polling SPIN =
      new NioAckedBench.Polling(Duration.ofNanos(100_000), Duration.ofNanos(50_000));

  @Test
  void thePollingVariantCountsAcknowledgedMessagesToo() {
    NioAckedBench.Result r = NioAckedBench.run(Duration.ofMillis(300), 4096, 2, 8, SPIN);
    assertTrue(r.messages() > 0, "messages were acknowledged: " + r);
    assertTrue(SPIN.blocking() == false && NioAckedBench.Polling.BLOCKING.blocking());
  }

  @Test
  void itCountsAcknowledgedMessagesOverEveryStream() {
    int size = 4096;
    NioAckedBench.Result r =
        NioAckedBench.run(Duration.ofMillis(300), size, 3, 8, NioAckedBench.Polling.BLOCKING);
    assertTrue(r.messages() > 0, "messages were acknowledged: " + r);
    // the rate is the acknowledged bytes over the measured time: 0.3 s per stream, plus at most
    // the round trip that ends it (long on a loaded machine)
    double seconds = r.messages() * (double) size / (r.gibPerSecond() * (1L << 30));
    assertTrue(seconds >= 0.299 && seconds < 1.0, "measured 0.3 s: " + seconds);
  }

  @Test
  void aMessageLargerThanTheSocketBuffersIsAcknowledgedWhole() {
    NioAckedBench.Result r = NioAckedBench.run(Duration.ofMillis(200), 8 << 20, 1, 2, SPIN);
    assertTrue(r.messages() > 0, "8 MiB messages were acknowledged: " + r);
  }

  @Test
  void anEmptyShapeIsRefusedNamingTheValues() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> NioAckedBench.run(Duration.ofMillis(10), 4096, 2, 0, SPIN));
    assertEquals("size, streams and inFlight must be >= 1, got 4096, 2, 0", e.getMessage());
  }
}

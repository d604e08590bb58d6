package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link OwnerConfig} is made from {@link EngineOptions} and has no defaults or ranges of its own
 * for them.
 */
class OwnerConfigTest {

  @Test
  void fromTheDefaultEngineOptionsIsTheDocumentedDefault() {
    // conf/README.md: workersPerContext 2, cqSize 4096, maxOutstandingPerQp 32, handshakeDeadlineMs
    // 5000, maxHandshakesInFlight 16,
    // endpointCacheSize 256, qpTimeoutMs 1000 (ibverbs exponent 18: 4.096 us x 2^18 = 1.07 s),
    // qpRetryCount 7, busyPollMicros 100
    OwnerConfig expected =
        new OwnerConfig(
            2,
            4096,
            32,
            1,
            Duration.ofSeconds(5),
            16,
            256,
            1,
            18,
            7,
            7,
            64,
            256,
            Duration.ofNanos(100_000),
            Duration.ofMillis(1),
            Duration.ofMillis(20),
            Duration.ofSeconds(2),
            Duration.ofMinutes(5),
            Duration.ofMillis(250));
    assertEquals(expected, OwnerConfig.from(new EngineOptions()));
  }

  @Test
  void everyEngineOptionReachesTheOwners() {
    EngineOptions o =
        new EngineOptions()
            .setWorkersPerContext(3)
            .setCqSize(128)
            .setMaxOutstandingPerQp(16)
            .setHandshakeDeadline(Duration.ofMillis(700))
            .setMaxHandshakesInFlight(5)
            .setEndpointCacheSize(9)
            .setQpTimeout(Duration.ofMillis(100))
            .setQpRetryCount(2)
            .setBusyPoll(Duration.ofNanos(7_000))
            .setIdleEndpoint(Duration.ofMillis(1234));
    OwnerConfig c = OwnerConfig.from(o);
    assertEquals(3, c.workersPerContext());
    assertEquals(128, c.cqSize());
    assertEquals(16, c.maxOutstandingPerQp());
    assertEquals(Duration.ofMillis(700), c.handshakeDeadline());
    assertEquals(5, c.maxHandshakesInFlight());
    assertEquals(9, c.endpointStoreCapacity());
    assertEquals(15, c.qpTimeout());
    assertEquals(2, c.qpRetryCount());
    assertEquals(Duration.ofNanos(7_000), c.busyPoll());
    assertEquals(Duration.ofMillis(1234), c.idleEndpoint());
  }

  @Test
  void theEngineOptionsRangesAreTheOwnersRanges() {
    OwnerConfig c = OwnerConfig.from(new EngineOptions());
    assertNamed("workersPerContext", () -> c.withWorkersPerContext(65));
    assertNamed("maxOutstandingPerQp", () -> c.withQueueSizes(64, 0));
    assertNamed(
        "maxOutstandingPerQp",
        () -> OwnerConfig.from(new EngineOptions().setCqSize(64).setMaxOutstandingPerQp(65)));
    assertNamed("cqSize", () -> c.withQueueSizes((1 << 22) + 1, 32));
    assertNamed("handshakeDeadlineMs", () -> c.withHandshakeDeadline(Duration.ZERO));
    assertNamed("endpointCacheSize", () -> c.withEndpointStoreCapacity(0));
    assertNamed("maxHandshakesInFlight", () -> c.withMaxHandshakesInFlight(0));
    assertNamed("maxHandshakesInFlight", () -> c.withMaxHandshakesInFlight(4097));
    assertNamed(
        "idleEndpointMs",
        () -> OwnerConfig.from(new EngineOptions().setIdleEndpoint(Duration.ofMillis(-1))));
    assertNamed(
        "workersPerContext", () -> OwnerConfig.from(new EngineOptions().setWorkersPerContext(0)));
    assertNamed(
        "busyPollMicros",
        () -> OwnerConfig.from(new EngineOptions().setBusyPoll(Duration.ofNanos(-1_000))));
    assertNamed(
        "busyPollMicros",
        () -> OwnerConfig.from(new EngineOptions().setBusyPoll(Duration.ofMillis(1001))));
  }

  private static void assertNamed(String field, Runnable make) {
    VteException e = assertThrows(VteException.class, make::run);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains(field), e.getMessage());
  }
}

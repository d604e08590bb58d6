package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Engine counters are exported through the Vert.x Micrometer backend and removed on close. */
@ExtendWith(BlockedThreadGuard.class)
class EngineMetricsTest {

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void countersAreExportedAndRemovedOnClose() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Vertx vertx = EngineFixture.meteredVertx(registry);
    fx.vertxes.add(vertx);
    TransferEngineImpl a =
        (TransferEngineImpl)
            Await.result(TransferEngine.create(vertx, EngineFixture.options("m", 2, 1)), WAIT);
    fx.engines.add(a);
    String label = a.diagnostics().metricsLabel();
    TransferEngineImpl b = fx.start(2, 1);
    RegisteredBuffer local = fx.register(a, 1 << 20, 1);
    RegisteredBuffer remote = fx.register(b, 1 << 20, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    assertTrue(
        Await.result(
                a.submit(
                        List.of(TransferRequest.write(local, 0, seg, remote.address(), 1 << 20)),
                        new TransferOptions())
                    .result(),
                WAIT)
            .allCompleted());
    FunctionCounter bytes =
        registry.find("vte.engine.bytes").tag("engine", label).functionCounter();
    assertNotNull(bytes, "vte.engine.bytes is registered");
    assertEquals(1 << 20, (long) bytes.count());
    assertEquals(
        16,
        (long) registry.find("vte.engine.slices").tag("engine", label).functionCounter().count());
    double handshakes =
        registry
            .find("vte.owner.handshakes.active")
            .tag("engine", label)
            .functionCounters()
            .stream()
            .mapToDouble(FunctionCounter::count)
            .sum();
    assertTrue(handshakes >= 1, "the first WRITE connected at least one endpoint: " + handshakes);
    double accepted =
        registry.find("vte.owner.slices.accepted").tag("engine", label).functionCounters().stream()
            .mapToDouble(FunctionCounter::count)
            .sum();
    assertEquals(
        16,
        (long) accepted,
        "every slice was taken by an owner once (no retries on a healthy pair)");
    assertNotNull(
        registry.find("vte.owner.handshakes.reasked").tag("engine", label).functionCounter());
    double alive =
        registry.find("vte.owner.endpoints.alive").tag("engine", label).gauges().stream()
            .mapToDouble(io.micrometer.core.instrument.Gauge::value)
            .sum();
    assertTrue(alive >= 1, "endpoints alive: " + alive);
    assertEquals(
        2,
        registry.find("vte.owner.cq.poll.gap.max").tag("engine", label).gauges().size(),
        "one gauge per owner: 2 devices x 1 owner");
    Await.result(a.close(), WAIT);
    assertNull(registry.find("vte.engine.bytes").tag("engine", label).functionCounter());
    assertTrue(registry.find("vte.owner.endpoints.alive").tag("engine", label).gauges().isEmpty());
  }
}

package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.TransferEngine;
import io.vte.engine.impl.metrics.EngineLabel;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code engine} label of the meters survives a restart with an ephemeral handshake port and no
 * segment name (issue 42), and two open engines of one registry never share one.
 */
@ExtendWith(BlockedThreadGuard.class)
class EngineLabelTest {

  private final EngineFixture fx = new EngineFixture();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Vertx vertx = EngineFixture.meteredVertx(registry);

  EngineLabelTest() {
    fx.vertxes.add(vertx);
  }

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void restartWithAnEphemeralPortKeepsTheLabel() {
    EngineOptions options = EngineFixture.options("lbl", 1, 1).setRpcPort(0);
    TransferEngineImpl first = start(options);
    String firstServer = first.serverName();
    Set<String> firstLabels = engineLabels();
    assertEquals(Set.of("127.0.0.1:0"), firstLabels, "host and the configured port 0");
    assertEquals("127.0.0.1:0", first.diagnostics().metricsLabel());
    Await.result(first.close(), WAIT);
    assertTrue(engineLabels().isEmpty(), "closing removed the meters: " + engineLabels());

    TransferEngineImpl second = start(options);
    assertNotEquals(firstServer, second.serverName(), "the bound port is a new one");
    assertEquals(firstLabels, engineLabels(), "the label is the same after the restart");
    assertEquals(
        1,
        registry.find(EngineLabel.INFO).tag("server", second.serverName()).gauges().size(),
        "the info gauge maps the label to the server name now");
  }

  @Test
  void twoOpenEnginesOfOneRegistryKeepDistinctLabels() {
    TransferEngineImpl a = start(EngineFixture.options("twoa", 1, 1));
    TransferEngineImpl b = start(EngineFixture.options("twob", 1, 1));
    assertEquals("127.0.0.1:0", a.diagnostics().metricsLabel());
    assertEquals("127.0.0.1:0#2", b.diagnostics().metricsLabel());
    assertEquals(Set.of("127.0.0.1:0", "127.0.0.1:0#2"), engineLabels());

    Await.result(a.close(), WAIT);
    TransferEngineImpl c = start(EngineFixture.options("twoc", 1, 1));
    assertEquals("127.0.0.1:0", c.diagnostics().metricsLabel(), "the lowest free label");
    assertEquals(Set.of("127.0.0.1:0", "127.0.0.1:0#2"), engineLabels());
  }

  @Test
  void aConfiguredSegmentNameIsTheLabel() {
    TransferEngineImpl e = start(EngineFixture.options("seg", 1, 1).setSegmentName("node-a"));
    assertEquals("node-a", e.diagnostics().metricsLabel());
    assertEquals(Set.of("node-a"), engineLabels());
  }

  private TransferEngineImpl start(EngineOptions options) {
    TransferEngineImpl e =
        (TransferEngineImpl) Await.result(TransferEngine.create(vertx, options), WAIT);
    fx.engines.add(e);
    return e;
  }

  /** The {@code engine} tags of every engine's {@code vte.engine.bytes}. */
  private Set<String> engineLabels() {
    Set<String> labels = new TreeSet<>();
    for (FunctionCounter c : registry.find("vte.engine.bytes").functionCounters()) {
      labels.add(c.getId().getTag("engine"));
    }
    return labels;
  }
}

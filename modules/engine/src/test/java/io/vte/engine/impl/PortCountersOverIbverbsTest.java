package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node on ibverbs shows its NIC's port counters, read from sysfs (here a fake tree the sysfs root
 * property points at, for the fake libibverbs' device): received and sent bytes, the driver's
 * counters by name, refreshed while the engine runs, removed when it closes.
 */
@Tag("fake")
@ExtendWith(BlockedThreadGuard.class)
class PortCountersOverIbverbsTest {

  private static final String ROOT_PROPERTY = "vte.ibv.sysfsRoot";

  @TempDir Path sysfs;

  @Test
  void theKernelsPortCountersAreMetersOfTheDevice() throws IOException {
    Path port = sysfs.resolve("fake_mlx5_0/ports/1");
    write(port.resolve("counters/port_rcv_data"), 100);
    write(port.resolve("counters/port_xmit_data"), 50);
    write(port.resolve("hw_counters/rdma_recvs"), 3);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    System.setProperty(ROOT_PROPERTY, sysfs.toString());
    try (FakeIbverbsFixture fx = new FakeIbverbsFixture()) {
      Vertx vertx = EngineFixture.meteredVertx(registry);
      fx.vertxes.add(vertx);
      TransferEngineImpl e =
          (TransferEngineImpl)
              Await.result(TransferEngine.create(vertx, fx.engineOptions(1, 1)), WAIT);
      fx.engines.add(e);
      String label = e.diagnostics().metricsLabel();

      awaitCount(registry, "vte.device.port.received.bytes", label, null, 400);
      awaitCount(registry, "vte.device.port.transmitted.bytes", label, null, 200);
      awaitCount(registry, "vte.device.hw.counter", label, "rdma_recvs", 3);
      write(port.resolve("counters/port_rcv_data"), 1000);
      awaitCount(registry, "vte.device.port.received.bytes", label, null, 4000);

      Await.result(e.close(), WAIT);
      assertTrue(
          Search.in(registry).name(n -> n.startsWith("vte.device.")).meters().isEmpty(),
          "closing removed the device meters");
    } finally {
      System.clearProperty(ROOT_PROPERTY);
    }
  }

  private static void awaitCount(
      SimpleMeterRegistry registry, String name, String engine, String counter, long expected) {
    Await.untilEquals(
        name + (counter == null ? "" : " " + counter),
        WAIT,
        (double) expected,
        () -> {
          Search search = registry.find(name).tag("engine", engine).tag("device", "fake_mlx5_0");
          FunctionCounter c =
              (counter == null ? search : search.tag("counter", counter)).functionCounter();
          return c == null ? -1.0 : c.count();
        });
  }

  private static void write(Path file, long value) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, value + "\n");
  }
}

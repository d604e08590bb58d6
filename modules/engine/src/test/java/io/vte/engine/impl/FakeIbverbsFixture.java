package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.api.EngineOptions;
import io.vte.verbs.PortState;
import io.vte.verbs.ibv.FakeIbverbs;
import java.time.Duration;
import java.util.List;

/**
 * An {@link EngineFixture} whose engines run over the ibverbs JNI provider and the fake libibverbs
 * (its 4 devices of one RoCE port each, opened by every engine; the fake moves the bytes between
 * their QPs), so that a test class written for soft verbs runs over ibverbs in a subclass that only
 * swaps the fixture. Closing it also checks that no verbs call broke a rule and that nothing the
 * engines opened is left. Only in the fake-ibverbs test execution ({@code @Tag("fake")}).
 */
final class FakeIbverbsFixture extends EngineFixture {

  private static final List<String> DEVICES =
      List.of("fake_mlx5_0", "fake_mlx5_1", "fake_mlx5_2", "fake_mlx5_3");

  /** Resets the fake to its 4 devices. */
  FakeIbverbsFixture() {
    FakeIbverbs.reset();
    FakeIbverbs.setDevices(DEVICES.toArray(new String[0]), 1);
  }

  @Override
  EngineOptions engineOptions(int devices, int workers) {
    return new EngineOptions()
        .setTransport("ibverbs")
        .setDevices(DEVICES.subList(0, devices))
        .setWorkersPerContext(workers)
        .setRpcHost("127.0.0.1")
        .setRailHoldDown(Duration.ofMillis(500));
  }

  /** The fake's port state is the device's: the port goes down for every engine that opened it. */
  @Override
  void portDown(TransferEngineImpl engine, int device) {
    FakeIbverbs.setDevicePortState(device, 1, PortState.DOWN.code());
  }

  @Override
  boolean portsAreShared() {
    return true;
  }

  @Override
  void portUp(TransferEngineImpl engine, int device) {
    FakeIbverbs.setDevicePortState(device, 1, PortState.ACTIVE.code());
  }

  @Override
  boolean failQp(TransferEngineImpl engine, int device, int qpNum) {
    return FakeIbverbs.failQp(qpNum);
  }

  @Override
  public void close() {
    super.close();
    assertEquals(List.of(), FakeIbverbs.refusals(), "no verbs call broke a rule");
    FakeIbverbs.assertNothingLive();
  }
}

package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.EngineOptions;
import io.vte.verbs.ibv.FakeIbverbs;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;

/**
 * {@link EngineEndToEndTest} over the ibverbs JNI provider and the fake libibverbs: both engines
 * open the fake's 4 devices, whose QPs move the bytes and check every verbs call against the
 * kernel's rules.
 */
@Tag("fake")
class EngineEndToEndOverIbverbsTest extends EngineEndToEndTest {

  private static final String[] DEVICES = {
    "fake_mlx5_0", "fake_mlx5_1", "fake_mlx5_2", "fake_mlx5_3"
  };

  @BeforeEach
  void fakeWithFourDevices() {
    FakeIbverbs.reset();
    FakeIbverbs.setDevices(DEVICES, 1);
  }

  @Override
  EngineOptions options(int workers) {
    return new EngineOptions()
        .setTransport("ibverbs")
        .setDevices(List.of(DEVICES))
        .setWorkersPerContext(workers)
        .setRpcHost("127.0.0.1");
  }

  @Override
  @AfterEach
  void close() {
    super.close();
    assertTrue(
        FakeIbverbs.count("bytes_moved") >= 2 * totalBytes(), "the fake's QPs moved the bytes");
    assertEquals(List.of(), FakeIbverbs.refusals(), "no call broke a verbs rule");
    FakeIbverbs.assertNothingLive();
  }
}

package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.ibv.FakeIbverbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;

/**
 * {@link EngineEndToEndTest} over the ibverbs JNI provider and the fake libibverbs: both engines
 * open the fake's 4 devices, whose QPs move the bytes and check every verbs call against the
 * kernel's rules.
 */
@Tag("fake")
class EngineEndToEndOverIbverbsTest extends EngineEndToEndTest {

  @Override
  EngineFixture fixture() {
    return new FakeIbverbsFixture();
  }

  /** Runs before the fixture closes. */
  @AfterEach
  void theFakesQpsMovedTheBytes() {
    assertTrue(
        FakeIbverbs.count("bytes_moved") >= 2 * totalBytes(), "the fake's QPs moved the bytes");
  }
}

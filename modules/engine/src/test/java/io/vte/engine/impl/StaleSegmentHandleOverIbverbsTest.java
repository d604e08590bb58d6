package io.vte.engine.impl;

import org.junit.jupiter.api.Tag;

/**
 * {@link StaleSegmentHandleTest} over the ibverbs JNI provider and the fake libibverbs: a kept
 * handle refreshes itself when the peer registers new buffers, whose rkeys come from the fake.
 */
@Tag("fake")
class StaleSegmentHandleOverIbverbsTest extends StaleSegmentHandleTest {

  @Override
  EngineFixture fixture() {
    return new FakeIbverbsFixture();
  }
}

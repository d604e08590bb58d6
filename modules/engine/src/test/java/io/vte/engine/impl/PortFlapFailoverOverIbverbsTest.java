package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.ibv.FakeIbverbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;

/**
 * {@link PortFlapFailoverTest} over the ibverbs JNI provider and the fake libibverbs: the flaps are
 * the fake's port states (a port of a fake device is down for every engine that opened it; work
 * posted to it ends RETRY_EXC_ERR from the fake), always leaving one device up (one flap schedule
 * for all engines: their ports are the same).
 */
@Tag("fake")
class PortFlapFailoverOverIbverbsTest extends PortFlapFailoverTest {

  @Override
  EngineFixture fixture() {
    return new FakeIbverbsFixture();
  }

  /**
   * Runs after each try's fixture closed: the fake's counters are kept until the next reset (a
   * counter, not the log, which such a run fills past the fake's limit).
   */
  @AfterEach
  void theFlapsWereTheFakesPorts() {
    assertTrue(FakeIbverbs.count("port_changes") > 2, "the fake's ports flapped");
  }
}

package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.ibv.FakeIbverbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;

/**
 * {@link EngineFaultTest} over the ibverbs JNI provider and the fake libibverbs: ports go down
 * through the fake's port state (PORT_ERR, RETRY_EXC_ERR for the work posted to them), QPs fail
 * through its QP-fatal error (the QP in ERR flushes, IBV_EVENT_QP_FATAL).
 */
@Tag("fake")
class EngineFaultOverIbverbsTest extends EngineFaultTest {

  @Override
  EngineFixture fixture() {
    return new FakeIbverbsFixture();
  }

  /** Runs before the fixture closes; counters, since a long run's log may be cut. */
  @AfterEach
  void theFaultsCameFromTheFake() {
    assertTrue(FakeIbverbs.count("qp_fatals") > 0, "the fake failed QPs");
    assertTrue(FakeIbverbs.count("port_changes") >= 2, "the fake took a port down and up");
  }
}

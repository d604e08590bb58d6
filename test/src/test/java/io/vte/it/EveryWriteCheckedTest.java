package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reliability scenarios check every write they issued in the receiver ({@link
 * WriteLoad#checkEveryWrite}), not only the last one of each slot: a write that lost bytes during a
 * run is found although the next write to its slot overwrites the evidence, where comparing the
 * receiver's buffer at the end passes.
 */
@ExtendWith(BlockedThreadGuard.class)
class EveryWriteCheckedTest {

  private static final int SLOTS = FaultScenariosTest.SLOTS;
  private static final int CHUNK = 1 << 20;
  private static final Duration RUN = Duration.ofSeconds(2);
  private static final long CUT_SHORT = 20;

  @Test
  void aWriteThatLostHalfItsBytesIsFoundThoughTheNextWriteToItsSlotMasksIt() throws Exception {
    try (LocalEngines local = new LocalEngines()) {
      TransferEngine target = local.start(LocalEngines.options("recv", 10, null, 0));
      RegisteredBuffer sink = local.register(target, SLOTS * CHUNK);
      TransferEngine sender = local.start(LocalEngines.options("send", 2, null, 0));
      RegisteredBuffer source = local.register(sender, SLOTS * CHUNK);
      SegmentHandle segment =
          Await.result(sender.openSegment(target.serverName()), LocalEngines.WAIT);
      try (CrcServer crcs = CrcServer.start("127.0.0.1", List.of(sink));
          CrcClient receiver = new CrcClient("127.0.0.1:" + crcs.port())) {
        run(sender, source, segment, sink, receiver);
      }
    }
  }

  /** A clean run, a run with one write cut short, a run without checks. */
  private static void run(
      TransferEngine sender,
      RegisteredBuffer source,
      SegmentHandle segment,
      RegisteredBuffer sink,
      CrcClient receiver)
      throws Exception {
    WriteLoad clean =
        new WriteLoad(sender, source, segment, sink.address(), SLOTS, CHUNK, LocalEngines.WAIT)
            .checkEveryWrite(receiver);
    WriteLoad.Result control = clean.run(RUN, List.of());
    assertEquals(0, control.failures(), control.failureDetails());
    control.assertEveryWriteLanded("the control run");
    assertTrue(control.verifiedWrites() > 0, "writes were checked");

    WriteLoad lossy =
        new WriteLoad(sender, source, segment, sink.address(), SLOTS, CHUNK, LocalEngines.WAIT)
            .checkEveryWrite(receiver)
            .truncateWrite(CUT_SHORT);
    WriteLoad.Result r = lossy.run(RUN, List.of());
    assertEquals(0, r.failures(), "the engine completed every write: " + r.failureDetails());
    assertTrue(
        r.transfers() > CUT_SHORT + SLOTS,
        "later writes overwrote the cut-short one's slot: " + r.transfers() + " writes");
    // What the scenarios checked before: the last write of each slot, byte-exact at the end.
    assertTrue(r.lastWritesCompleted());
    assertEquals(
        lossy.localCrc(),
        Pattern.crc(sink.address(), SLOTS * CHUNK),
        "the receiver's buffer at the end hides the loss");
    // What they check now.
    assertEquals(1, r.lostWrites(), r.lostDetails());
    assertTrue(r.lostDetails().contains("write " + CUT_SHORT + ":"), r.lostDetails());
    assertEquals(r.transfers() - 1, r.verifiedWrites(), "every other write was found");
    AssertionError seen =
        assertThrows(AssertionError.class, () -> r.assertEveryWriteLanded("the lossy run"));
    assertTrue(seen.getMessage().contains("write " + CUT_SHORT + ":"), seen.getMessage());

    WriteLoad.Result unchecked =
        new WriteLoad(sender, source, segment, sink.address(), SLOTS, CHUNK, LocalEngines.WAIT)
            .run(Duration.ofMillis(200), List.of());
    assertThrows(
        AssertionError.class,
        () -> unchecked.assertEveryWriteLanded("a run without checks"),
        "a load that checked nothing cannot pass as checked");
  }
}

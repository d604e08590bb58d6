package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.soft.impl.wire.FaultyWire;
import io.vte.verbs.soft.impl.wire.FrameFaults;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import io.vte.verbs.soft.impl.wire.FrameSink;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fault decorator of a connection's frames on its own, over a recording sink and a hand-moved
 * clock: what it drops, what it holds and for how long, what it never touches (HELLO), and that the
 * generator is drawn exactly as often as before the checks moved out of the requester and responder
 * (so a seed picks the same frames).
 */
class FaultyWireTest {

  private static final long DELAY = 5_000_000;

  private final FrameFaults faults = new FrameFaults();
  private final Sink sink = new Sink();
  private final List<Long> wakeUps = new ArrayList<>();
  private long now = 1_000_000_000L;
  private final FaultyWire wire = new FaultyWire(sink, faults, () -> now, wakeUps::add);

  @Test
  void withoutFaultsEveryFrameGoesThroughUnchangedAndPostersMaySend() {
    assertTrue(wire.isQuiet());
    assertTrue(send(FrameHeader.HELLO, 0));
    for (int seq = 1; seq <= 5; seq++) {
      assertTrue(send(FrameHeader.WRITE, seq));
      assertTrue(send(FrameHeader.ACK, seq));
    }
    assertEquals(List.of(0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5), sink.seqs);
    assertEquals(Long.MAX_VALUE, wire.holdUntil());
    assertTrue(wakeUps.isEmpty());
  }

  @Test
  void theNthFrameIsDroppedAndTakenAsSentAndHelloIsNeverCounted() {
    faults.dropOne(3);
    assertFalse(wire.isQuiet(), "a poster must leave frames to the NIC while faults are set");
    assertTrue(send(FrameHeader.HELLO, 0));
    assertTrue(send(FrameHeader.WRITE, 1));
    assertTrue(send(FrameHeader.READ_REQ, 2));
    assertTrue(
        send(FrameHeader.WRITE, 3), "a dropped frame counts as sent: it is lost on the wire");
    assertTrue(send(FrameHeader.READ_RESP, 4));
    assertTrue(send(FrameHeader.NAK, 5));
    assertEquals(List.of(0, 1, 2, 4, 5), sink.seqs);
  }

  @Test
  void aSeedDropsTheSameFramesAsTheGeneratorDrawnOncePerFrame() {
    faults.set(0.3, 0, 0, 77);
    FrameFaults reference = new FrameFaults();
    reference.set(0.3, 0, 0, 77);
    List<Integer> expected = new ArrayList<>();
    for (int seq = 1; seq <= 400; seq++) {
      int op = seq % 3 == 0 ? FrameHeader.ACK : FrameHeader.WRITE;
      assertTrue(send(op, seq));
      if (!reference.drop()) {
        expected.add(seq);
      }
    }
    assertEquals(expected, sink.seqs);
    assertTrue(
        expected.size() > 200 && expected.size() < 360, "kept " + expected.size() + " of 400");
  }

  @Test
  void aDelayedRequestHoldsTheRequestsBehindItUntilItsTimeThenGoesWithoutASecondDelay() {
    assertTrue(send(FrameHeader.WRITE, 1));
    faults.set(0, 1.0, DELAY, 3); // every request is picked
    assertFalse(send(FrameHeader.WRITE, 2), "held");
    assertEquals(List.of(now + DELAY), wakeUps, "a timer call is asked for the end of the hold");
    assertEquals(now + DELAY, wire.holdUntil());
    assertFalse(wire.isQuiet());
    assertFalse(send(FrameHeader.WRITE, 2), "still held");
    assertFalse(send(FrameHeader.READ_REQ, 3), "a request behind it waits too");
    assertTrue(send(FrameHeader.ACK, 9), "responses are never delayed");
    assertEquals(1, wakeUps.size(), "the held frame is not picked again while it waits");

    now += DELAY - 1;
    assertFalse(wire.releaseIfDue(now), "too early");
    assertFalse(send(FrameHeader.WRITE, 2));
    now += 1;
    assertTrue(wire.releaseIfDue(now));
    assertEquals(Long.MAX_VALUE, wire.holdUntil());
    assertFalse(wire.releaseIfDue(now), "one release per hold");

    sink.room = false; // the released frame finds no room: it keeps its pass
    assertFalse(send(FrameHeader.WRITE, 2));
    sink.room = true;
    assertTrue(send(FrameHeader.WRITE, 2), "the frame that waited goes, not delayed a second time");
    assertFalse(send(FrameHeader.READ_REQ, 3), "the next request is picked for a delay again");
    assertEquals(List.of(1, 9, 2), sink.seqs);
    assertEquals(2, wakeUps.size());
  }

  @Test
  void helloGoesThroughAHold() {
    faults.set(0, 1.0, DELAY, 3);
    assertFalse(send(FrameHeader.WRITE, 1));
    assertTrue(send(FrameHeader.HELLO, 0));
    assertEquals(List.of(0), sink.seqs);
  }

  @Test
  void aFullWireIsReportedAndTheFrameIsDrawnForAgainWhenItIsRetried() {
    faults.dropOne(2);
    sink.room = false;
    assertFalse(send(FrameHeader.WRITE, 1), "no room: the sender keeps the frame");
    assertTrue(
        send(FrameHeader.WRITE, 1), "its second attempt is the 2nd frame asked about: dropped");
    sink.room = true;
    assertTrue(send(FrameHeader.WRITE, 2));
    assertEquals(List.of(2), sink.seqs);
  }

  @Test
  void clearedFaultsLetPostersSendAgain() {
    faults.set(0.5, 0.5, DELAY, 1);
    assertFalse(wire.isQuiet());
    faults.clear();
    assertTrue(wire.isQuiet());
    assertTrue(send(FrameHeader.WRITE, 1));
    assertEquals(List.of(1), sink.seqs);
  }

  private boolean send(int opcode, int seq) {
    return wire.append(opcode, 0, 7, seq, 0, 0, 0, 0, 0, 0, null);
  }

  /**
   * Records the sequence numbers of the frames it takes; refuses them while {@link #room} is false.
   */
  private static final class Sink implements FrameSink {
    final List<Integer> seqs = new ArrayList<>();
    boolean room = true;

    @Override
    public boolean append(
        int opcode,
        int status,
        int qpn,
        int seq,
        int rkey,
        long raddr,
        int length,
        int imm,
        long payloadAddress,
        int payloadLength,
        SoftMr region) {
      if (!room) {
        return false;
      }
      seqs.add(seq);
      return true;
    }
  }
}

package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.soft.impl.wire.FrameHeader;
import io.vte.verbs.soft.impl.wire.ResponseQueue;
import org.junit.jupiter.api.Test;

/**
 * ACK folding: only into an unsent ACK of an earlier request, never across a NAK or a READ
 * response.
 */
class ResponseQueueTest {

  @Test
  void consecutiveAcksFoldIntoTheNewestOneAndNothingElseDoes() {
    ResponseQueue q = new ResponseQueue();
    assertFalse(q.foldAck(1), "nothing queued: nothing to fold into");
    q.add(FrameHeader.ACK, 0, 1, 0, 0, null);
    assertTrue(q.foldAck(2));
    assertTrue(q.foldAck(5));
    assertFalse(q.foldAck(5), "the same request again");
    assertFalse(q.foldAck(3), "an earlier request (a duplicate re-acked) never moves an ACK back");
    q.add(FrameHeader.ACK, 0, 3, 0, 0, null);
    q.add(FrameHeader.READ_RESP, 0, 6, 0x1000, 64, null);
    assertFalse(q.foldAck(7), "an ACK must not jump over a READ response");
    q.add(FrameHeader.ACK, 0, 7, 0, 0, null);
    q.add(FrameHeader.NAK, FrameHeader.RNR, 8, 0, 0, null);
    assertFalse(q.foldAck(9), "an ACK must not jump over a NAK");
    // seq wraps around 2^32 like the PSN space
    q.add(FrameHeader.ACK, 0, Integer.MAX_VALUE, 0, 0, null);
    assertTrue(q.foldAck(Integer.MIN_VALUE));

    int[][] expected = {
      {FrameHeader.ACK, 5},
      {FrameHeader.ACK, 3},
      {FrameHeader.READ_RESP, 6},
      {FrameHeader.ACK, 7},
      {FrameHeader.NAK, 8},
      {FrameHeader.ACK, Integer.MIN_VALUE}
    };
    for (int[] e : expected) {
      assertFalse(q.isEmpty());
      assertEquals(e[0], q.headOpcode());
      assertEquals(e[1], q.headSeq());
      q.pop();
    }
    assertTrue(q.isEmpty());
    assertFalse(q.foldAck(10), "a sent ACK (popped) is never changed");
  }
}

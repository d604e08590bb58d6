package io.vte.verbs.soft.impl.requester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SendWindowTest {

  @Test
  void sequenceNumbersFollowTheIndicesAcrossTheIntegerWrap() {
    SendWindow w = new SendWindow();
    w.startAt(5, Integer.MAX_VALUE - 1);
    assertEquals(Integer.MAX_VALUE - 1, w.seqOf(5));
    assertEquals(Integer.MIN_VALUE, w.seqOf(7));
    assertEquals(5, w.sent(), "sending starts at the first index posted at RTS time");
    w.restartAt(5);
    assertEquals(7, w.indexOf(Integer.MIN_VALUE));
    assertEquals(4, w.indexOf(Integer.MAX_VALUE - 2), "an index before the head");
  }

  @Test
  void aRewindResendsFromTheHeadButResponsesUpToTheMostTransmittedStayValid() {
    SendWindow w = new SendWindow();
    w.startAt(0, 100);
    w.sentOne();
    w.sentOne();
    w.sentOne();
    w.ackHead();
    assertFalse(w.drained());
    w.rewind();
    assertEquals(1, w.sent());
    assertTrue(w.drained());
    assertTrue(w.wasTransmitted(2), "sent before the rewind");
    assertFalse(w.wasTransmitted(3));
    w.ackHead();
    assertEquals(2, w.sent(), "answering past what the stream sent moves it along");
  }

  @Test
  void aResetRetiresUpToItsMarkAndForgetsWhatWasInFlight() {
    SendWindow w = new SendWindow();
    w.startAt(0, 0);
    w.sentOne();
    w.sentOne();
    assertTrue(w.restartAt(1));
    assertEquals(1, w.acked());
    assertEquals(1, w.sent());
    assertFalse(w.wasTransmitted(1), "nothing after the mark is in flight any more");
    assertFalse(w.restartAt(1), "the head is already there");
  }
}

package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import org.junit.jupiter.api.Test;

class WireVersionsTest {

  @Test
  void theHighestCommonVersionIsChosenAndNoneInCommonIsZero() {
    WireVersions here = new WireVersions(2, 4);
    assertEquals(2, here.highestCommon(new WireVersions(1, 2)), "an older overlapping range");
    assertEquals(4, here.highestCommon(new WireVersions(3, 9)), "a newer overlapping range");
    assertEquals(3, here.highestCommon(new WireVersions(3, 3)));
    assertEquals(0, here.highestCommon(new WireVersions(1, 1)), "an older disjoint range");
    assertEquals(0, here.highestCommon(new WireVersions(5, 6)), "a newer disjoint range");
  }

  @Test
  void aPeerThatAnnouncesNoRangeSpeaksVersionOneOnly() {
    assertEquals(new WireVersions(1, 1), WireVersions.announced(0, 0));
    assertEquals(1, WireVersions.chosen(0));
    assertEquals(2, WireVersions.chosen(2));
    assertTrue(WireVersions.SPOKEN.holds(WireVersions.LEGACY), "this release still speaks 1");
    assertFalse(WireVersions.SPOKEN.holds(WireVersions.SPOKEN.max() + 1));
  }

  @Test
  void aMalformedRangeIsAnInvalidArgumentNamingBothBounds() {
    VteException e = assertThrows(VteException.class, () -> WireVersions.announced(3, 2));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("min 3, max 2"), e.getMessage());
    assertThrows(VteException.class, () -> WireVersions.announced(0, 2));
    assertThrows(VteException.class, () -> WireVersions.announced(-1, -1));
  }

  @Test
  void theMismatchNamesBothRanges() {
    VteException e = new WireVersions(1, 2).mismatch(new WireVersions(3, 5), "p:1@d0");
    assertEquals(ErrorCode.VERSION_MISMATCH, e.code());
    assertEquals(
        "VERSION_MISMATCH: no common wire version: this node speaks 1..2, p:1@d0 speaks 3..5",
        e.getMessage());
  }
}

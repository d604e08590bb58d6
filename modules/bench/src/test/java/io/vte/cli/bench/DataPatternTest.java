package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.vte.verbs.DirectMemory;
import org.junit.jupiter.api.Test;

/** The pattern a target fills and an initiator checks without a reference copy. */
class DataPatternTest {

  @Test
  void eitherOfTwoPatternsIsAcceptedWordByWordButNothingElse() {
    long a = DirectMemory.allocate(256);
    long src = DirectMemory.allocate(256);
    try {
      DataPattern.fill(a, 256, DataPattern.TARGET_SEED);
      DataPattern.fill(src, 256, DataPattern.SOURCE_SEED);
      DirectMemory.copy(src + 64, a + 64, 64);
      assertEquals(
          64,
          DataPattern.firstMismatch(a, 0, 256, DataPattern.TARGET_SEED),
          "one seed alone stops at 64");
      assertEquals(
          -1,
          DataPattern.firstMismatch(a, 0, 256, DataPattern.TARGET_SEED, DataPattern.SOURCE_SEED));
      DirectMemory.putByte(a + 70, (byte) (DirectMemory.getByte(a + 70) ^ 1));
      assertEquals(
          70,
          DataPattern.firstMismatch(a, 0, 256, DataPattern.TARGET_SEED, DataPattern.SOURCE_SEED));
    } finally {
      DirectMemory.free(a);
      DirectMemory.free(src);
    }
  }

  @Test
  void aFilledRegionMatchesAtEveryOffsetAlignedOrNotAndAFlippedByteIsFound() {
    int length = 4096 + 13;
    long a = DirectMemory.allocate(length);
    try {
      DataPattern.fill(a, length, DataPattern.TARGET_SEED);
      assertEquals(-1, DataPattern.firstMismatch(a, 0, length, DataPattern.TARGET_SEED));
      for (int off : new int[] {1, 7, 8, 13, 1000}) {
        assertEquals(
            -1,
            DataPattern.firstMismatch(a + off, off, length - off, DataPattern.TARGET_SEED),
            "offset " + off);
      }
      assertNotEquals(
          -1,
          DataPattern.firstMismatch(a, 0, length, DataPattern.SOURCE_SEED),
          "another seed differs");
      assertNotEquals(
          -1,
          DataPattern.firstMismatch(a + 8, 0, 64, DataPattern.TARGET_SEED),
          "a shifted block differs");
      for (int at : new int[] {0, 5, 4096, length - 1}) {
        byte saved = DirectMemory.getByte(a + at);
        DirectMemory.putByte(a + at, (byte) ~saved);
        assertEquals(at, DataPattern.firstMismatch(a, 0, length, DataPattern.TARGET_SEED));
        assertEquals(
            at < 3 ? -1 : at - 3,
            DataPattern.firstMismatch(a + 3, 3, length - 3, DataPattern.TARGET_SEED));
        DirectMemory.putByte(a + at, saved);
      }
    } finally {
      DirectMemory.free(a);
    }
  }
}

package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NicPathTest {

  @Test
  void parseAndFormatRoundTrip() {
    NicPath p = NicPath.parse("10.0.0.1:7001@mlx5_0");
    assertEquals("10.0.0.1:7001", p.server());
    assertEquals("mlx5_0", p.device());
    assertEquals("10.0.0.1:7001@mlx5_0", p.toString());
    assertEquals(p, NicPath.of("10.0.0.1:7001", "mlx5_0"));
    assertEquals(p.hashCode(), NicPath.of("10.0.0.1:7001", "mlx5_0").hashCode());
    assertNotEquals(p, NicPath.parse("10.0.0.1:7001@mlx5_1"));
    assertNotEquals(p, NicPath.parse("10.0.0.1:7002@mlx5_0"));
    assertTrue(NicPath.parse("a:1@d0").compareTo(NicPath.parse("b:1@d0")) < 0);
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      value = {
        "hostonly|must be server@device: 'hostonly'",
        "h:1@|must be server@device: 'h:1@'",
        "@soft0|must be server@device: '@soft0'",
        "h:1@a@b|must be server@device: 'h:1@a@b'",
        "'h:1@so ft'|has a control or space character at index 6"
      })
  void badTextIsInvalidArgumentNamingTheValue(String text, String message) {
    VteException e = assertThrows(VteException.class, () -> NicPath.parse(text));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertTrue(e.getMessage().endsWith("NIC path " + NicPath.problem(text)), e.getMessage());
  }

  @Test
  void emptyNullAndTooLongAreRefused() {
    assertEquals("must not be empty", NicPath.problem(""));
    assertEquals("must not be empty", NicPath.problem(null));
    assertTrue(NicPath.problem("h@" + "x".repeat(300)).startsWith("must be <= 256 chars"));
    assertNull(NicPath.problem("h:1@d0"));
    VteException e = assertThrows(VteException.class, () -> NicPath.of("h:1", "a@b"));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("'h:1@a@b'"), e.getMessage());
    VteException n = assertThrows(VteException.class, () -> NicPath.of("h:1", null));
    assertEquals(ErrorCode.INVALID_ARGUMENT, n.code());
  }

  @Test
  void ownerIndexIsFnv1aOfTheTextAndSpreadsFairly() {
    // The reference below against a published FNV-1a 32-bit test vector: "a" -> 0xe40c292c.
    assertEquals(0xe40c292c, fnv("a"));
    assertEquals(fnv("host:1@mlx5_0"), NicPath.parse("host:1@mlx5_0").hashCode());
    assertEquals(
        Math.floorMod(fnv("host:1@mlx5_0"), 7), NicPath.of("host:1", "mlx5_0").ownerIndex(7));
    int[] counts = new int[4];
    for (int i = 0; i < 4000; i++) {
      int owner = NicPath.of("10.0.0." + (i % 250) + ":" + (7000 + i), "d" + (i % 3)).ownerIndex(4);
      counts[owner]++;
    }
    for (int c : counts) {
      assertTrue(c > 700, "owners get a fair share: " + Arrays.toString(counts));
    }
  }

  private static int fnv(String s) {
    int h = 0x811c9dc5;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * 0x01000193;
    }
    return h;
  }
}

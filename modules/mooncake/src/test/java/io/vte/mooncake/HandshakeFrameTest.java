package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import org.junit.jupiter.api.Test;

class HandshakeFrameTest {

  private static Buffer frame(long length, int type, String json) {
    return Buffer.buffer().appendLongLE(length).appendByte((byte) type).appendString(json);
  }

  @Test
  void encodesMooncakesLayoutAndReadsItBackByteByByte() {
    HandshakeFrame f =
        new HandshakeFrame(
            HandshakeFrame.Type.NOTIFY, new JsonObject().put("name", "a").put("notify_msg", "b"));
    Buffer wire = f.encode();
    String json = f.body().encode();
    assertEquals(json.length() + 1L, wire.getLongLE(0), "length counts the type byte");
    assertEquals(2, wire.getByte(8));
    HandshakeFrame.Reader reader = new HandshakeFrame.Reader(1 << 20);
    HandshakeFrame back = null;
    for (int i = 0; i < wire.length(); i++) {
      assertNull(back, "complete before its last byte");
      back = reader.append(wire.getBuffer(i, i + 1));
    }
    assertEquals(f, back);
  }

  @Test
  void zeroLengthIsAProtocolError() {
    assertRefused(frame(0, 1, ""), "length 0");
  }

  @Test
  void oversizedLengthIsRefusedBeforeItsBodyArrives() {
    Buffer head = Buffer.buffer().appendLongLE(-1L);
    VteException e =
        assertThrows(VteException.class, () -> new HandshakeFrame.Reader(1 << 20).append(head));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("18446744073709551615"), e.getMessage());
  }

  @Test
  void unknownTypeIsAProtocolError() {
    assertRefused(frame(3, 9, "{}"), "type 9");
  }

  @Test
  void bodyThatIsNotAJsonObjectIsAProtocolError() {
    assertRefused(frame(5, 1, "[1]x"), "not a JSON object");
  }

  @Test
  void bytesAfterTheFrameAreAProtocolError() {
    assertRefused(frame(3, 3, "{}").appendByte((byte) 0), "after the handshake frame");
  }

  private static void assertRefused(Buffer wire, String expected) {
    VteException e =
        assertThrows(VteException.class, () -> new HandshakeFrame.Reader(1 << 20).append(wire));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}

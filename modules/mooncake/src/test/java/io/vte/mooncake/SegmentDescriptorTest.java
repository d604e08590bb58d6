package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.SegmentBuffer;
import io.vte.api.VteException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SegmentDescriptorTest {

  /** What a Mooncake TCP segment answers a Metadata request with (jsoncpp's FastWriter form). */
  private static final String MOONCAKE =
      "{\"buffers\":[{\"addr\":140233418735632,\"length\":67108864,\"name\":\"cpu:0\"}],"
          + "\"name\":\"127.0.0.1:16023\",\"protocol\":\"tcp\",\"tcp_data_port\":15877,"
          + "\"tcp_proto_version\":2,\"timestamp\":\"2026-12-07 02:30:00.000000\"}";

  @Test
  void readsMooncakesDescriptor() {
    SegmentDescriptor d = SegmentDescriptor.fromJson(new JsonObject(MOONCAKE));
    assertEquals("127.0.0.1:16023", d.name());
    assertEquals(15877, d.tcpDataPort());
    assertEquals(2, d.protocolVersion());
    assertEquals(
        List.of(new SegmentBuffer("cpu:0", 140233418735632L, 67108864L, List.of())), d.buffers());
  }

  @Test
  void aDescriptorWithoutVersionSpeaksProtocolOne() {
    JsonObject json = new JsonObject(MOONCAKE);
    json.remove("tcp_proto_version");
    assertEquals(1, SegmentDescriptor.fromJson(json).protocolVersion());
  }

  @Test
  void writesWhatItReads() {
    SegmentDescriptor d =
        new SegmentDescriptor(
            "h:1", 2, 2, List.of(new SegmentBuffer("cpu:0", 4096, 10, List.of())));
    assertEquals(d, SegmentDescriptor.fromJson(d.toJson()));
  }

  @Test
  void refusesWhatATransferCannotUse() {
    assertRefused(new JsonObject(MOONCAKE).put("protocol", "rdma"), "protocol rdma");
    assertRefused(new JsonObject(MOONCAKE).put("tcp_data_port", 70000), "tcp_data_port 70000");
    assertRefused(new JsonObject(MOONCAKE).put("tcp_data_port", "x"), "wrong JSON type");
    JsonObject zero = new JsonObject(MOONCAKE);
    zero.getJsonArray("buffers").getJsonObject(0).put("length", 0);
    assertRefused(zero, "buffers[0]");
    JsonObject wraps = new JsonObject(MOONCAKE);
    wraps.getJsonArray("buffers").getJsonObject(0).put("addr", -16L);
    assertRefused(wraps, "buffers[0]");
  }

  private static void assertRefused(JsonObject json, String expected) {
    VteException e = assertThrows(VteException.class, () -> SegmentDescriptor.fromJson(json));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}

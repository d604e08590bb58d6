package io.vte.metadata.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DescriptorCodecTest {

  private static final SegmentDescriptor GOOD =
      SegmentDescriptor.newBuilder()
          .setName("seg")
          .setServerName("10.0.0.1:7000")
          .setTransport("soft")
          .setVersion(Long.MAX_VALUE)
          .addDevices(
              DeviceDesc.newBuilder().setName("soft0").setLid(1).setMtu(4096).setActive(true))
          .addBuffers(
              BufferDesc.newBuilder()
                  .setAddress(-1L)
                  .setLength(1 << 20)
                  .addRkeys(0xFFFFFFFF)
                  .setAccess(7))
          .build();

  @Test
  void roundTripKeepsEveryFieldIncludingUnsigned64BitValues() {
    byte[] json = DescriptorCodec.encode(GOOD);
    String text = new String(json, StandardCharsets.UTF_8);
    assertTrue(text.contains("\"serverName\":\"10.0.0.1:7000\""), text);
    assertEquals(GOOD, DescriptorCodec.decode("k", "seg", json));
  }

  @Test
  void unknownFieldsFromNewerNodesAreIgnored() {
    String json = "{\"name\":\"seg\",\"serverName\":\"h:1\",\"futureField\":42}";
    assertEquals(
        "h:1",
        DescriptorCodec.decode("k", "seg", json.getBytes(StandardCharsets.UTF_8)).getServerName());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "not json|not a segment descriptor",
        "[1,2]|not a segment descriptor",
        "{\"name\":7,\"serverName\":[]}|not a segment descriptor",
        "{\"name\":\"seg\",\"version\":\"lots\"}|not a segment descriptor",
        "{}|missing field name",
        "{\"name\":\"seg\"}|missing field server_name",
        "{\"name\":\"other\",\"serverName\":\"h:1\"}|names segment 'other'",
        "{\"name\":\"seg\",\"serverName\":\"h:1\",\"buffers\":[{\"length\":\"0\"}]}|buffer 0 has length 0",
        "{\"name\":\"seg\",\"serverName\":\"h:1\",\"devices\":[{}],\"buffers\":[{\"length\":\"8\"}]}|0 rkeys for 1 devices",
      })
  void badContentIsAProtocolErrorNamingTheSource(String json, String problem) {
    VteException e =
        assertThrows(
            VteException.class,
            () ->
                DescriptorCodec.decode(
                    "/vte/x/segments/seg", "seg", json.getBytes(StandardCharsets.UTF_8)));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("/vte/x/segments/seg"), e.getMessage());
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }

  @Test
  void invalidUtf8IsAProtocolError() {
    VteException e =
        assertThrows(
            VteException.class,
            () ->
                DescriptorCodec.decode(
                    "k", "seg", new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'}));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("not UTF-8"), e.getMessage());
  }
}

package io.vte.mooncake;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.SegmentBuffer;
import io.vte.api.VteException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A Mooncake segment descriptor in its TCP form: {@code {name, protocol:"tcp", tcp_data_port,
 * tcp_proto_version, timestamp, buffers:[{name, addr, length}]}}, as a Metadata handshake reply or
 * the value of the key {@code mooncake/ram/<segment>}.
 *
 * @param name the segment's name (in P2P mode its server name {@code host:rpc_port})
 * @param tcpDataPort the port of the segment's data listener
 * @param protocolVersion the TCP framing the segment speaks: 1, or 2 (acknowledged)
 * @param buffers the segment's buffers: location (Mooncake's buffer name), address, length
 */
public record SegmentDescriptor(
    String name, int tcpDataPort, int protocolVersion, List<SegmentBuffer> buffers) {

  /** Copies the buffer list. */
  public SegmentDescriptor {
    buffers = List.copyOf(buffers);
  }

  /**
   * @return the descriptor as Mooncake's JSON
   */
  public JsonObject toJson() {
    JsonArray list = new JsonArray();
    for (SegmentBuffer b : buffers) {
      list.add(
          new JsonObject()
              .put("name", b.location())
              .put("addr", b.address())
              .put("length", b.length()));
    }
    return new JsonObject()
        .put("name", name)
        .put("protocol", "tcp")
        .put("tcp_data_port", tcpDataPort)
        .put("tcp_proto_version", protocolVersion)
        .put("timestamp", Instant.now().toString())
        .put("buffers", list);
  }

  /**
   * Reads a descriptor a Mooncake node (or store) sent.
   *
   * @throws VteException PROTOCOL_ERROR naming the bad field when it is not a TCP segment
   *     descriptor a transfer can use
   */
  public static SegmentDescriptor fromJson(JsonObject json) {
    try {
      Object protocol = json.getValue("protocol");
      boolean tcp =
          "tcp".equals(protocol)
              || (protocol instanceof JsonArray a && a.getList().contains("tcp"));
      if (!tcp) {
        throw bad("protocol " + protocol + " is not tcp (only Mooncake's TCP transport is spoken)");
      }
      String name = json.getString("name", "");
      long port = number(json, "tcp_data_port", -1);
      if (port < 1 || port > 65535) {
        throw bad("tcp_data_port " + json.getValue("tcp_data_port") + " not in 1..65535");
      }
      long version = number(json, "tcp_proto_version", 1);
      if (version < 1) {
        throw bad("tcp_proto_version " + version + " is below 1");
      }
      JsonArray list = json.getJsonArray("buffers", new JsonArray());
      List<SegmentBuffer> buffers = new ArrayList<>(list.size());
      for (int i = 0; i < list.size(); i++) {
        JsonObject b = list.getJsonObject(i);
        long addr = number(b, "addr", 0);
        long length = number(b, "length", 0);
        String location = b.getString("name", "");
        if (location.isEmpty()
            || addr == 0
            || length <= 0
            || Long.compareUnsigned(addr + length, addr) < 0) {
          throw bad(
              "buffers["
                  + i
                  + "] {name "
                  + location
                  + ", addr "
                  + Long.toUnsignedString(addr)
                  + ", length "
                  + length
                  + "} is not a usable range");
        }
        buffers.add(new SegmentBuffer(location, addr, length, List.of()));
      }
      return new SegmentDescriptor(name, (int) port, (int) Math.min(version, 2), buffers);
    } catch (ClassCastException e) {
      throw bad("a field has the wrong JSON type: " + e.getMessage());
    }
  }

  private static long number(JsonObject json, String key, long absent) {
    Number n = (Number) json.getValue(key);
    return n == null ? absent : n.longValue();
  }

  private static VteException bad(String message) {
    return new VteException(ErrorCode.PROTOCOL_ERROR, "Mooncake segment descriptor: " + message);
  }
}

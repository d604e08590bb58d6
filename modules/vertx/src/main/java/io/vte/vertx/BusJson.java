package io.vte.vertx;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RequestResult;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOpcode;
import io.vte.api.VteException;

/**
 * Reads fields of bus messages with typed errors naming the field, and writes engine results as
 * JSON.
 */
final class BusJson {

  private BusJson() {}

  static String string(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (!(v instanceof String s)) {
      throw bad(field, v, "a string");
    }
    return s;
  }

  static String string(JsonObject json, String field, String fallback) {
    return json.getValue(field) == null ? fallback : string(json, field);
  }

  static long number(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (!(v instanceof Number n) || n.doubleValue() != n.longValue()) {
      throw bad(field, v, "an integer");
    }
    return n.longValue();
  }

  static long number(JsonObject json, String field, long fallback) {
    return json.getValue(field) == null ? fallback : number(json, field);
  }

  static TransferOpcode opcode(JsonObject json) {
    String op = string(json, "opcode");
    try {
      return TransferOpcode.valueOf(op);
    } catch (IllegalArgumentException e) {
      throw bad("opcode", op, "READ or WRITE");
    }
  }

  private static VteException bad(String field, Object value, String expected) {
    return new VteException(
        ErrorCode.INVALID_ARGUMENT,
        "field '" + field + "' = " + value + " is invalid: expected " + expected);
  }

  static JsonObject segment(SegmentHandle s) {
    JsonArray devices = new JsonArray();
    for (SegmentDevice d : s.devices()) {
      devices.add(new JsonObject().put("name", d.name()).put("active", d.active()));
    }
    JsonArray buffers = new JsonArray();
    for (SegmentBuffer b : s.buffers()) {
      buffers.add(
          new JsonObject()
              .put("location", b.location())
              .put("address", b.address())
              .put("length", b.length()));
    }
    return new JsonObject()
        .put("name", s.name())
        .put("serverName", s.serverName())
        .put("version", s.version())
        .put("devices", devices)
        .put("buffers", buffers);
  }

  static JsonObject result(BatchResult r) {
    JsonArray requests = new JsonArray();
    for (RequestResult q : r.requests()) {
      JsonObject j = new JsonObject().put("status", q.status().name()).put("bytes", q.bytes());
      if (q.cause() != null) {
        j.put("code", q.cause().code().name()).put("message", q.cause().getMessage());
      }
      requests.add(j);
    }
    return new JsonObject()
        .put("allCompleted", r.allCompleted())
        .put("bytes", r.bytes())
        .put("requests", requests);
  }
}

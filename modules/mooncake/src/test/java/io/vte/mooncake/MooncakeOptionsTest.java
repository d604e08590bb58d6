package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link MooncakeOptions} on the field tables: one default, one range, one JSON per field. */
class MooncakeOptionsTest {

  @Test
  void theTableHoldsTheDefaultsTheGettersReturn() {
    MooncakeOptions o = new MooncakeOptions();
    assertEquals(o.getLanesPerPeer(), MooncakeOptions.LANES_PER_PEER.defaultValue());
    assertEquals(o.getSliceBytes(), MooncakeOptions.SLICE_BYTES.defaultValue());
    assertEquals(o.getConnectTimeout(), MooncakeOptions.CONNECT_TIMEOUT.defaultValue());
    assertEquals(o.getHost(), MooncakeOptions.FIELDS.defaultOf("host"));
    assertEquals(2, o.getAdvertisedProtocolVersion());
    assertEquals(
        MooncakeOptions.FIELDS.names(), o.toJson().fieldNames(), "every field is in the JSON");
  }

  @Test
  void jsonRoundTripsAndReadsSizesAndMilliseconds() {
    MooncakeOptions o =
        MooncakeOptions.fromJson(
            new JsonObject()
                .put("lanesPerPeer", 2)
                .put("sliceBytes", "256K")
                .put("connectTimeoutMs", 1500)
                .put("forceProtocolV1", true));
    assertEquals(2, o.getLanesPerPeer());
    assertEquals(256 << 10, o.getSliceBytes());
    assertEquals(Duration.ofMillis(1500), o.getConnectTimeout());
    assertTrue(o.isForceProtocolV1());
    MooncakeOptions back = MooncakeOptions.fromJson(o.toJson());
    assertEquals(o.toJson(), back.toJson());
  }

  @Test
  void aBadValueOrAnUnknownKeyIsInvalidConfigurationNamingIt() {
    VteException range =
        assertThrows(VteException.class, () -> new MooncakeOptions().setLanesPerPeer(65));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, range.code());
    assertTrue(
        range.getMessage().contains("lanesPerPeer") && range.getMessage().contains("65"),
        range.getMessage());
    VteException json =
        assertThrows(
            VteException.class,
            () -> MooncakeOptions.fromJson(new JsonObject().put("stallTimeoutMs", 0)));
    assertTrue(json.getMessage().contains("stallTimeoutMs"), json.getMessage());
    VteException unknown =
        assertThrows(
            VteException.class, () -> MooncakeOptions.fromJson(new JsonObject().put("lanes", 2)));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, unknown.code());
    assertTrue(unknown.getMessage().contains("lanes"), unknown.getMessage());
    VteException host =
        assertThrows(VteException.class, () -> new MooncakeOptions().setHost("a:1"));
    assertTrue(host.getMessage().contains("\"a:1\""), host.getMessage());
  }
}

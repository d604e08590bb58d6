package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.InvalidOptionException;
import io.vte.api.VteException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HandshakeOptionsTest {

  private static final String SECRET_B64 =
      Base64.getEncoder()
          .encodeToString("json-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8));

  @Test
  void serverDefaults() {
    HandshakeServerOptions options = new HandshakeServerOptions();
    assertEquals("127.0.0.1", options.getHost());
    assertEquals(0, options.getPort());
    assertNull(options.getAuth());
    assertNull(options.getTls());
    assertEquals(1 << 20, options.getMaxMessageSize());
    assertEquals(Duration.ofSeconds(30), options.getMaxCallDuration());
  }

  @Test
  void serverJsonRoundTripNeverWritesTheSecret() {
    JsonObject json =
        new JsonObject()
            .put("host", "10.0.0.7")
            .put("port", 7100)
            .put("maxMessageSize", 65536)
            .put("maxCallDurationMs", 2000)
            .put("idleTimeoutMs", 9000)
            .put(
                "auth",
                new JsonObject()
                    .put("keyId", "cluster")
                    .put("secretBase64", SECRET_B64)
                    .put("skewMs", 5000))
            .put("tls", new JsonObject().put("keyPath", "/k.pem").put("certPath", "/c.pem"));
    HandshakeServerOptions options = HandshakeServerOptions.fromJson(json);
    assertEquals("10.0.0.7", options.getHost());
    assertEquals(7100, options.getPort());
    assertEquals(65536, options.getMaxMessageSize());
    assertEquals(Duration.ofSeconds(2), options.getMaxCallDuration());
    assertEquals(Duration.ofSeconds(9), options.getIdleTimeout());
    assertEquals("cluster", options.getAuth().keyId());
    assertEquals(Duration.ofSeconds(5), options.getAuth().skew());
    assertEquals("/k.pem", options.getTls().getKeyPath());
    JsonObject written = options.toJson();
    assertFalse(written.encode().contains(SECRET_B64), written.encode());
    assertFalse(written.getJsonObject("auth").containsKey("secretBase64"));
    assertEquals("cluster", written.getJsonObject("auth").getString("keyId"));
    assertEquals(
        json.getJsonObject("tls").getString("certPath"),
        written.getJsonObject("tls").getString("certPath"));
    assertEquals(7100, written.getInteger("port"));
  }

  @Test
  void acceptedKeysAreReadAndOnlyTheirIdsWritten() {
    String other =
        Base64.getEncoder()
            .encodeToString("the-other-secret-0123456789".getBytes(StandardCharsets.UTF_8));
    JsonObject auth =
        new JsonObject()
            .put("keyId", "new")
            .put("secretBase64", SECRET_B64)
            .put(
                "acceptKeys",
                new JsonArray()
                    .add(new JsonObject().put("keyId", "old").put("secretBase64", other)));
    HandshakeClientOptions options =
        HandshakeClientOptions.fromJson(new JsonObject().put("auth", auth));
    assertEquals("new", options.getAuth().keyId());
    assertEquals(Set.of("new", "old"), options.getAuth().acceptedKeyIds());
    JsonObject written = options.toJson().getJsonObject("auth");
    assertEquals(new JsonArray().add("old"), written.getJsonArray("acceptKeyIds"));
    assertFalse(options.toJson().encode().contains(other));
    assertBad(
        () ->
            HandshakeServerOptions.fromJson(
                new JsonObject()
                    .put("auth", auth.copy().put("acceptKeys", new JsonArray().add("old")))),
        "auth option 'acceptKeys[0]' has the wrong type: expected an object, got \"old\"");
    assertBad(
        () ->
            HandshakeServerOptions.fromJson(
                new JsonObject()
                    .put(
                        "auth",
                        auth.copy()
                            .put(
                                "acceptKeys",
                                new JsonArray().add(new JsonObject().put("keyId", "old"))))),
        "auth.acceptKeys[0].secretBase64 is required");
    assertBad(
        () ->
            HandshakeServerOptions.fromJson(
                new JsonObject()
                    .put(
                        "auth",
                        auth.copy()
                            .put(
                                "acceptKeys",
                                new JsonArray()
                                    .add(
                                        new JsonObject()
                                            .put("keyId", "new")
                                            .put("secretBase64", other))))),
        "'new' is given twice");
  }

  @Test
  void clientJsonRoundTrip() {
    HandshakeClientOptions options =
        HandshakeClientOptions.fromJson(
            new JsonObject()
                .put("defaultDeadlineMs", 1500)
                .put("tls", new JsonObject().put("trustPath", "/ca.pem").put("verifyHost", false)));
    assertEquals(Duration.ofMillis(1500), options.getDefaultDeadline());
    assertEquals("/ca.pem", options.getTls().getTrustPath());
    assertFalse(options.getTls().isVerifyHost());
    HandshakeClientOptions again = HandshakeClientOptions.fromJson(options.toJson());
    assertEquals(options.getDefaultDeadline(), again.getDefaultDeadline());
    assertEquals(options.getMaxMessageSize(), again.getMaxMessageSize());
    assertEquals(Duration.ofSeconds(5), new HandshakeClientOptions().getDefaultDeadline());
  }

  @Test
  void badValuesAreConfigurationErrorsNamingTheField() {
    assertBad(
        () -> new HandshakeServerOptions().setPort(70000),
        "handshake server option 'port' = 70000 is invalid");
    assertBad(() -> new HandshakeServerOptions().setHost(""), "'host' = \"\" is invalid");
    assertBad(
        () -> new HandshakeServerOptions().setMaxMessageSize(10),
        "'maxMessageSize' = 10 is invalid: expected 1 KiB..64 MiB");
    assertBad(
        () -> new HandshakeServerOptions().setMaxCallDuration(Duration.ZERO), "maxCallDuration");
    assertBad(
        () -> new HandshakeClientOptions().setDefaultDeadline(Duration.ZERO), "defaultDeadline");
    assertBad(
        () -> HandshakeServerOptions.fromJson(new JsonObject().put("port", "x")),
        "'port' has the wrong type");
    assertBad(
        () -> HandshakeServerOptions.fromJson(new JsonObject().put("maxMessageSize", 10)),
        "'maxMessageSize' = 10 is invalid");
    assertBad(
        () ->
            HandshakeServerOptions.fromJson(
                new JsonObject().put("auth", new JsonObject().put("keyId", "k"))),
        "auth.secretBase64 is required");
    assertBad(
        () ->
            HandshakeServerOptions.fromJson(
                new JsonObject()
                    .put("auth", new JsonObject().put("keyId", "k").put("secretBase64", "!!!"))),
        "not base64");
  }

  private static void assertBad(Runnable change, String message) {
    VteException e = assertThrows(VteException.class, change::run);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void unknownKeysAreRefusedByName() {
    InvalidOptionException server =
        assertThrows(
            InvalidOptionException.class,
            () -> HandshakeServerOptions.fromJson(new JsonObject().put("hots", "10.0.0.7")));
    assertEquals("hots", server.path());
    assertTrue(
        server.getMessage().contains("unknown handshake server option"), server.getMessage());
    InvalidOptionException client =
        assertThrows(
            InvalidOptionException.class,
            () -> HandshakeClientOptions.fromJson(new JsonObject().put("deadlineMs", 5)));
    assertEquals("deadlineMs", client.path());
    InvalidOptionException nested =
        assertThrows(
            InvalidOptionException.class,
            () ->
                HandshakeClientOptions.fromJson(
                    new JsonObject().put("tls", new JsonObject().put("trust", "/ca.pem"))));
    assertEquals("tls.trust", nested.path());
  }

  @Test
  void theClientsDefaultDeadlineIsTheEnginesHandshakeDeadline() {
    assertEquals(
        new EngineOptions().getHandshakeDeadline(),
        new HandshakeClientOptions().getDefaultDeadline());
    assertEquals(
        new HandshakeClientOptions().getMaxMessageSize(),
        new HandshakeServerOptions().getMaxMessageSize());
  }
}

package io.vte.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JSON of {@link EngineOptions} and its nested options: strict types, defaults from the table,
 * round trips.
 */
class EngineOptionsJsonTest {

  /**
   * Every field of the engine options and of every nested options object set, none to its default.
   */
  static EngineOptions fullySet() {
    return new EngineOptions()
        .setTransport("ibverbs")
        .setDevices(List.of("mlx5_0", "mlx5_1"))
        .setFallbackDevices(List.of("tcp0@10.0.0.1"))
        .setWorkersPerContext(3)
        .setSliceSize(8192)
        .setRetryCount(5)
        .setIntegrity("crc32c")
        .setHandshakeDeadline(Duration.ofMillis(1234))
        .setMaxHandshakesInFlight(7)
        .setCqSize(512)
        .setEndpointCacheSize(17)
        .setMaxOutstandingPerQp(64)
        .setRpcHost("127.0.0.3")
        .setRpcPort(9999)
        .setMetadataUri("etcds://10.0.0.1:2379,10.0.0.2:2379")
        .setMetadata(
            new MetadataOptions()
                .setClusterPrefix("/vte/x")
                .setLeaseTtl(Duration.ofSeconds(4))
                .setCallDeadline(Duration.ofMillis(700))
                .setHealthCheckInterval(Duration.ofMillis(300))
                .setStartDeadline(Duration.ofSeconds(9))
                .setEtcdUser("u")
                .setEtcdPassword("p")
                .setTlsTrustPemPath("/ca.pem")
                .setTlsCertPemPath("/c.pem")
                .setTlsKeyPemPath("/k.pem"))
        .setSegmentName("seg-1")
        .setAuth(
            new AuthOptions()
                .setKeyId("k1")
                .setSecretBase64("MDEyMzQ1Njc4OWFiY2RlZg==")
                .setSkew(Duration.ofSeconds(7))
                .setAcceptKeys(
                    List.of(
                        new AuthKey().setKeyId("k0").setSecretBase64("ZmVkY2JhOTg3NjU0MzIxMA=="))))
        .setTls(
            new TlsOptions()
                .setKeyPath("/key.pem")
                .setCertPath("/cert.pem")
                .setTrustPath("/trust.pem")
                .setVerifyHost(false)
                .setRequireClientCert(true))
        .setIbverbs(
            new IbverbsOptions()
                .setGidIndex(3)
                .setGidNetdev("eth2")
                .setGidAddress("10.0.0.1")
                .setGidType("roce-v2")
                .setTrafficClass(106)
                .setServiceLevel(3))
        .setRailHoldDown(Duration.ofMillis(250))
        .setQpTimeout(Duration.ofMillis(40))
        .setQpRetryCount(3)
        .setBusyPoll(Duration.ofNanos(30_000))
        .setNicBusyPoll(Duration.ofNanos(20_000))
        .setIdleConnection(Duration.ofMillis(1500))
        .setIdleEndpoint(Duration.ofMillis(2500));
  }

  @Test
  void roundTripOfAFullySetObjectIsTheIdentity() {
    EngineOptions full = fullySet().validate();
    JsonObject json = full.toJson();
    assertEquals(EngineOptions.KEYS, json.fieldNames(), "every key is written");
    assertEquals(MetadataOptions.FIELDS.names(), json.getJsonObject("metadata").fieldNames());
    assertEquals(AuthOptions.FIELDS.names(), json.getJsonObject("auth").fieldNames());
    assertEquals(TlsOptions.FIELDS.names(), json.getJsonObject("tls").fieldNames());
    assertEquals(IbverbsOptions.FIELDS.names(), json.getJsonObject("ibverbs").fieldNames());
    EngineOptions back = EngineOptions.fromJson(json);
    assertEquals(full, back);
    assertEquals(json, back.toJson());
    assertEquals(json, new EngineOptions(full).toJson(), "the copy constructor copies every field");
    for (String key : EngineOptions.KEYS) {
      Object def = EngineOptions.FIELDS.defaultOf(key);
      assertNotEquals(
          def == null ? null : new EngineOptions().toJson().getValue(key),
          json.getValue(key),
          "the fully set object sets '" + key + "' to something else than its default");
    }
  }

  @Test
  void aCopyIsDeep() {
    EngineOptions full = fullySet();
    EngineOptions copy = new EngineOptions(full);
    copy.getMetadata().setClusterPrefix("/other");
    copy.getAuth().getAcceptKeys().get(0).setKeyId("changed");
    copy.getTls().setVerifyHost(true);
    copy.getDevices().add("mlx5_2");
    assertEquals(fullySet(), full);
  }

  @Test
  void aFractionForAnIntegerIsRejectedNamingFieldAndValue() {
    assertWrongType("workersPerContext", "2.5", new JsonObject().put("workersPerContext", 2.5));
    assertWrongType("qpTimeoutMs", "0.5", new JsonObject().put("qpTimeoutMs", 0.5));
    assertWrongType("busyPollMicros", "2.5", new JsonObject().put("busyPollMicros", 2.5));
    assertWrongType(
        "metadata.leaseTtlMs",
        "3000.5",
        new JsonObject().put("metadata", new JsonObject().put("leaseTtlMs", 3000.5)));
  }

  @Test
  void aStringForANumberIsRejected() {
    assertWrongType("cqSize", "\"4096\"", new JsonObject().put("cqSize", "4096"));
    assertWrongType(
        "handshakeDeadlineMs", "\"5s\"", new JsonObject().put("handshakeDeadlineMs", "5s"));
    assertWrongType(
        "auth.skewMs", "\"1\"", new JsonObject().put("auth", new JsonObject().put("skewMs", "1")));
  }

  @Test
  void aSizeTakesTheSuffixesOfTheCommandLine() {
    assertEquals(
        64 * 1024, EngineOptions.fromJson(new JsonObject().put("sliceSize", "64K")).getSliceSize());
    assertEquals(
        4 << 20, EngineOptions.fromJson(new JsonObject().put("sliceSize", "4MiB")).getSliceSize());
    assertEquals(
        8192, EngineOptions.fromJson(new JsonObject().put("sliceSize", 8192)).getSliceSize());
    assertEquals(
        65536,
        EngineOptions.fromJson(new JsonObject().put("sliceSize", "64k"))
            .toJson()
            .getValue("sliceSize"),
        "written back as a number");
    assertWrongType("sliceSize", "\"64X\"", new JsonObject().put("sliceSize", "64X"));
    assertWrongType("sliceSize", "\"4G\"", new JsonObject().put("sliceSize", "4G"));
    VteException range =
        assertThrows(
            VteException.class,
            () -> EngineOptions.fromJson(new JsonObject().put("sliceSize", "2K")).validate());
    assertTrue(range.getMessage().contains("'sliceSize' = 2048"), range.getMessage());
  }

  @Test
  void aNumberInAStringListIsRejected() {
    assertWrongType("devices[0]", "1", new JsonObject().put("devices", new JsonArray().add(1)));
    assertWrongType(
        "devices[1]", "true", new JsonObject().put("devices", new JsonArray().add("a").add(true)));
    assertWrongType("devices", "\"soft0\"", new JsonObject().put("devices", "soft0"));
  }

  @Test
  void otherMismatchesAreRejected() {
    assertWrongType("transport", "7", new JsonObject().put("transport", 7));
    assertWrongType("workersPerContext", "null", new JsonObject().putNull("workersPerContext"));
    assertWrongType("rpcPort", "4294967296", new JsonObject().put("rpcPort", 4294967296L));
    assertWrongType("tls", "\"on\"", new JsonObject().put("tls", "on"));
    assertWrongType(
        "tls.verifyHost",
        "\"yes\"",
        new JsonObject().put("tls", new JsonObject().put("verifyHost", "yes")));
    assertWrongType(
        "auth.acceptKeys[0]",
        "\"k0\"",
        new JsonObject()
            .put(
                "auth",
                new JsonObject()
                    .put("keyId", "k")
                    .put("secretBase64", "MDEy")
                    .put("acceptKeys", new JsonArray().add("k0"))));
    assertWrongType(
        "auth.acceptKeys",
        "{}",
        new JsonObject()
            .put(
                "auth",
                new JsonObject()
                    .put("keyId", "k")
                    .put("secretBase64", "MDEy")
                    .put("acceptKeys", new JsonObject())));
  }

  @Test
  void aMicrosecondFieldReadsAndWritesMicroseconds() {
    EngineOptions o = EngineOptions.fromJson(new JsonObject().put("busyPollMicros", 250));
    assertEquals(Duration.ofNanos(250_000), o.getBusyPoll());
    assertEquals(250L, o.toJson().getValue("busyPollMicros"));
  }

  @Test
  void aWholeNumberWrittenWithAFractionPartIsThatNumber() {
    assertEquals(
        3,
        EngineOptions.fromJson(new JsonObject().put("workersPerContext", 3.0))
            .getWorkersPerContext());
  }

  @Test
  void unknownKeysOfNestedOptionsAreNamedWithTheirPath() {
    VteException e =
        assertThrows(
            VteException.class,
            () ->
                EngineOptions.fromJson(
                    new JsonObject().put("tls", new JsonObject().put("keyFile", "/k.pem"))));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'tls.keyFile'"), e.getMessage());
    assertTrue(e.getMessage().contains("keyPath"), "lists the known keys: " + e.getMessage());
  }

  @Test
  void nestedRangesAreCheckedByValidate() {
    assertInvalid(
        "auth.keyId", new EngineOptions().setAuth(new AuthOptions().setSecretBase64("MDEy")));
    assertInvalid(
        "auth.secretBase64",
        new EngineOptions()
            .setAuth(new AuthOptions().setKeyId("k").setSecretBase64("not base64!")));
    assertInvalid(
        "auth.acceptKeys[0].keyId",
        new EngineOptions()
            .setAuth(
                new AuthOptions()
                    .setKeyId("k")
                    .setSecretBase64("MDEy")
                    .setAcceptKeys(List.of(new AuthKey().setSecretBase64("MDEy")))));
    assertInvalid("tls.trustPath", new EngineOptions().setTls(new TlsOptions().setTrustPath(" ")));
    assertInvalid(
        "metadata.clusterPrefix",
        new EngineOptions().setMetadata(new MetadataOptions().setClusterPrefix("no-slash")));
    assertInvalid(
        "metadata.startDeadlineMs",
        new EngineOptions()
            .setMetadata(new MetadataOptions().setStartDeadline(Duration.ofMinutes(11))));
  }

  @Test
  void defaultsComeFromTheTable() {
    EngineOptions defaults = new EngineOptions();
    JsonObject json = defaults.toJson();
    for (String key : EngineOptions.KEYS) {
      Object def = EngineOptions.FIELDS.defaultOf(key);
      if (def == null) {
        assertTrue(!json.containsKey(key), key + " is unset by default");
      } else {
        assertEquals(
            def instanceof Duration d
                ? (Object) (key.endsWith("Micros") ? d.toNanos() / 1000 : d.toMillis())
                : def instanceof List<?> l ? new JsonArray(l) : def,
            json.getValue(key),
            key);
      }
    }
    assertEquals(Duration.ofSeconds(10), new MetadataOptions().getLeaseTtl());
    assertEquals(true, new TlsOptions().isVerifyHost());
  }

  private static void assertWrongType(String field, String shownValue, JsonObject json) {
    VteException e = assertThrows(VteException.class, () -> EngineOptions.fromJson(json));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(
        e.getMessage().contains("'" + field + "'"),
        "names the field " + field + ": " + e.getMessage());
    assertTrue(
        e.getMessage().contains("got " + shownValue),
        "shows the value " + shownValue + ": " + e.getMessage());
  }

  private static void assertInvalid(String field, EngineOptions options) {
    VteException e = assertThrows(VteException.class, options::validate);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(
        e.getMessage().contains("'" + field + "'"), "names " + field + ": " + e.getMessage());
  }
}

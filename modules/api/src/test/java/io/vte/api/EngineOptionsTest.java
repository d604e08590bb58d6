package io.vte.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineOptionsTest {

  private static EngineOptions sample() {
    return new EngineOptions()
        .setDevices(List.of("soft0", "soft1"))
        .setWorkersPerContext(4)
        .setSliceSize(128 * 1024)
        .setRetryCount(2)
        .setHandshakeDeadline(Duration.ofMillis(750))
        .setCqSize(64)
        .setEndpointCacheSize(9)
        .setMaxOutstandingPerQp(16)
        .setBusyPoll(Duration.ofNanos(250_000))
        .setRpcHost("127.0.0.2")
        .setRpcPort(4242)
        .setMetadataUri("etcd://127.0.0.1:2379")
        .setMetadata(
            new MetadataOptions()
                .setClusterPrefix("/vte/test")
                .setLeaseTtl(Duration.ofMillis(3000)))
        .setSegmentName("prefill-0")
        .setAuth(new AuthOptions().setKeyId("k1").setSecretBase64("c2VjcmV0LXNlY3JldC0xMjM0"))
        .setRailHoldDown(Duration.ofMillis(1500))
        .setQpTimeout(Duration.ofMillis(300))
        .setQpRetryCount(3)
        .setIbverbs(new IbverbsOptions().setServiceLevel(5));
  }

  @Test
  void jsonRoundTripKeepsEveryField() {
    JsonObject json = sample().toJson();
    assertEquals(
        EngineOptions.KEYS.size() - 1, json.size(), "every key but tls is written: " + json);
    EngineOptions back = EngineOptions.fromJson(json);
    assertEquals(json, back.toJson());
    assertEquals(4, back.getWorkersPerContext());
    assertEquals(Duration.ofMillis(750), back.getHandshakeDeadline());
    assertEquals("k1", back.getAuth().getKeyId());
    assertEquals("prefill-0", back.getSegmentName());
    assertEquals(3000, back.getMetadata().toJson().getInteger("leaseTtlMs"));
  }

  @Test
  void etcdAndEtcdsUrisAreAccepted() {
    sample().setMetadataUri("etcds://10.0.0.1:2379,10.0.0.2:2379").validate();
    sample().setMetadataUri("p2p").validate();
    assertBad("metadataUri", sample().setMetadataUri("etcd://"));
    assertBad("metadataUri", sample().setMetadataUri("zk://127.0.0.1:2181"));
    assertBad("metadataUri", sample().setMetadataUri(null));
  }

  @Test
  void metadataOptionsAreCheckedByKeyAndType() {
    assertBadJson(
        "metadata.leaseTtlMs",
        new JsonObject().put("metadata", new JsonObject().put("leaseTtlMs", "3s")));
    assertBad(
        "metadata.leaseTtlMs",
        sample().setMetadata(new MetadataOptions().setLeaseTtl(Duration.ofMillis(-1))));
    assertBadJson(
        "metadata.callDeadlineMs",
        new JsonObject().put("metadata", new JsonObject().put("callDeadlineMs", 1.5)));
    assertBadJson(
        "metadata.clusterPrefix",
        new JsonObject().put("metadata", new JsonObject().put("clusterPrefix", 7)));
    assertBadJson(
        "metadata.etcdPasswrd",
        new JsonObject().put("metadata", new JsonObject().put("etcdPasswrd", "x")));
    VteException e =
        assertThrows(
            VteException.class,
            () -> EngineOptions.fromJson(sample().toJson().put("metadata", "etcd")));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'metadata'"), e.getMessage());
  }

  @Test
  void ibverbsOptionsAreRangeChecked() {
    EngineOptions o =
        EngineOptions.fromJson(
            sample()
                .toJson()
                .put(
                    "ibverbs",
                    new JsonObject()
                        .put("gidType", "roce-v2")
                        .put("gidNetdev", "eth2")
                        .put("trafficClass", 106)
                        .put("serviceLevel", 3)
                        .put("pkeyIndex", 2)));
    assertEquals(
        "{\"gidIndex\":-1,\"gidNetdev\":\"eth2\",\"gidType\":\"roce-v2\",\"trafficClass\":106,"
            + "\"serviceLevel\":3,\"pkeyIndex\":2,\"readBackVerify\":true}",
        o.getIbverbs().toJson().encode());
    String[][] bad = {
      {"trafficClass", "256"},
      {"serviceLevel", "16"},
      {"gidIndex", "-2"},
      {"gidIndex", "256"},
      {"pkeyIndex", "-1"},
      {"pkeyIndex", "65536"}
    };
    for (String[] b : bad) {
      VteException e =
          assertThrows(
              VteException.class,
              () ->
                  EngineOptions.fromJson(
                      sample()
                          .toJson()
                          .put("ibverbs", new JsonObject().put(b[0], Integer.parseInt(b[1])))));
      assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
      assertTrue(
          e.getMessage().contains("'ibverbs." + b[0] + "'") && e.getMessage().contains(b[1]),
          e.getMessage());
    }
    assertBad("ibverbs.gidType", sample().setIbverbs(new IbverbsOptions().setGidType("v2")));
    assertBad(
        "ibverbs.gidAddress", sample().setIbverbs(new IbverbsOptions().setGidAddress("host")));
    assertBadJson("ibverbs.tc", new JsonObject().put("ibverbs", new JsonObject().put("tc", 1)));
  }

  @Test
  void fallbackDevicesAreSoftSpecsBesideIbverbsOnly() {
    EngineOptions ibv = new EngineOptions().setTransport("ibverbs").setDevices(List.of("mlx5_0"));
    assertEquals(List.of(), ibv.getFallbackDevices());
    ibv.setFallbackDevices(List.of("tcp0@10.0.0.1")).validate();
    assertBad("fallbackDevices", new EngineOptions().setFallbackDevices(List.of("tcp0")));
    assertBad("fallbackDevices", new EngineOptions(ibv).setFallbackDevices(List.of(" ")));
    assertBad("fallbackDevices", new EngineOptions(ibv).setFallbackDevices(null));
    VteException e =
        assertThrows(
            VteException.class,
            () -> new EngineOptions().setFallbackDevices(List.of("tcp9")).validate());
    assertTrue(e.getMessage().contains("tcp9"), e.getMessage());
  }

  @Test
  void segmentNameDefaultsToNullAndRejectsBlanksAndControls() {
    assertEquals(null, new EngineOptions().getSegmentName());
    assertTrue(
        !new EngineOptions().toJson().containsKey("segmentName"), "unset name is not written");
    assertBad("segmentName", sample().setSegmentName(" "));
    assertBad("segmentName", sample().setSegmentName("a b"));
    assertBad("segmentName", sample().setSegmentName("a\u0001"));
    assertBad(
        "segmentName",
        sample().setSegmentName("x".repeat(EngineOptions.MAX_SEGMENT_NAME_LENGTH + 1)));
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    EngineOptions o =
        EngineOptions.fromJson(new JsonObject().put("devices", new JsonArray().add("soft0")));
    assertEquals("soft", o.getTransport());
    assertEquals(2, o.getWorkersPerContext());
    assertEquals(65536, o.getSliceSize());
    assertEquals(4, o.getRetryCount());
    assertEquals(Duration.ofSeconds(5), o.getHandshakeDeadline());
    assertEquals("p2p", o.getMetadataUri());
    assertEquals(Duration.ofSeconds(2), o.getRailHoldDown());
  }

  @Test
  void theDefaultsValidateAndTheHostFillsInDevicesAndTheRpcHost() {
    EngineOptions defaults = new EngineOptions().validate();
    assertEquals(List.of(), defaults.getDevices());
    assertEquals(null, defaults.getRpcHost());
    assertTrue(!defaults.toJson().containsKey("rpcHost"), "an unset rpcHost is not written");
    EngineOptions filled = defaults.withHostDefaults();
    assertEquals(DefaultSoftDevices.forThisHost().specs(), filled.getDevices());
    assertEquals(
        SoftDeviceSpec.parse(filled.getDevices().get(0)).host(),
        filled.getRpcHost(),
        "the handshake service lives on the first device's address");
    assertEquals(List.of(), defaults.getDevices(), "the options filled in are a copy");
    EngineOptions explicit =
        new EngineOptions().setDevices(List.of("a@198.18.0.7", "b@198.18.1.7")).withHostDefaults();
    assertEquals(List.of("a@198.18.0.7", "b@198.18.1.7"), explicit.getDevices());
    assertEquals("198.18.0.7", explicit.getRpcHost());
    assertEquals(
        "10.0.0.1", new EngineOptions().setRpcHost("10.0.0.1").withHostDefaults().getRpcHost());
    assertEquals(
        "127.0.0.1",
        new EngineOptions().setDevices(List.of("plain")).withHostDefaults().getRpcHost());
    assertEquals(
        "127.0.0.1",
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(List.of("mlx5_0"))
            .withHostDefaults()
            .getRpcHost());
  }

  @Test
  void unknownKeysAreNamed() {
    JsonObject json = sample().toJson().put("sliceSzie", 1).put("bogus", true);
    VteException e = assertThrows(VteException.class, () -> EngineOptions.fromJson(json));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("[bogus, sliceSzie]"), e.getMessage());
  }

  @Test
  void wrongTypeNamesTheField() {
    JsonObject json = sample().toJson().put("cqSize", "big");
    VteException e = assertThrows(VteException.class, () -> EngineOptions.fromJson(json));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'cqSize'"), e.getMessage());
  }

  @Test
  void badValuesNameTheField() {
    assertBad("workersPerContext", sample().setWorkersPerContext(0));
    assertBad("devices", sample().setDevices(List.of("soft0", " ")));
    assertBad("devices", sample().setTransport("ibverbs").setDevices(List.of()));
    assertBad("rpcHost", sample().setRpcHost(" "));
    assertBad("transport", sample().setTransport("udp"));
    assertBad("integrity", sample().setIntegrity("md5"));
    assertBad("integrity", sample().setIntegrity("CRC32C"));
    assertBad("sliceSize", sample().setSliceSize(0));
    assertBad("retryCount", sample().setRetryCount(-1));
    assertBad("handshakeDeadlineMs", sample().setHandshakeDeadline(Duration.ZERO));
    assertBad("maxHandshakesInFlight", sample().setMaxHandshakesInFlight(0));
    assertBad("maxHandshakesInFlight", sample().setMaxHandshakesInFlight(4097));
    assertBad("maxOutstandingPerQp", sample().setMaxOutstandingPerQp(65));
    assertBad("rpcPort", sample().setRpcPort(70000));
    assertBad("metadataUri", sample().setMetadataUri("redis://x"));
    assertBad("railHoldDownMs", sample().setRailHoldDown(Duration.ofMillis(-1)));
    assertBad("qpRetryCount", sample().setQpRetryCount(8));
    assertBad("busyPollMicros", sample().setBusyPoll(Duration.ofNanos(-1_000)));
    assertBad("busyPollMicros", sample().setBusyPoll(Duration.ofMillis(1001)));
    assertBad("busyPollMicros", sample().setBusyPoll(null));
    assertBad("nicBusyPollMicros", sample().setNicBusyPoll(Duration.ofNanos(-1_000)));
    assertBad("nicBusyPollMicros", sample().setNicBusyPoll(Duration.ofMillis(1001)));
  }

  private static void assertBad(String field, EngineOptions options) {
    VteException e = assertThrows(VteException.class, options::validate);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'" + field + "'"), e.getMessage());
  }

  /** Reads the sample's JSON with {@code change} merged in. */
  private static void assertBadJson(String field, JsonObject change) {
    VteException e =
        assertThrows(
            VteException.class, () -> EngineOptions.fromJson(sample().toJson().mergeIn(change)));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("'" + field + "'"), e.getMessage());
  }

  @Test
  void integrityIsNoneByDefaultAndReadFromJsonByName() {
    assertEquals("none", new EngineOptions().getIntegrity());
    EngineOptions read = EngineOptions.fromJson(sample().toJson().put("integrity", "crc32c"));
    assertEquals(Integrity.CRC32C, Integrity.parse(read.getIntegrity()));
    assertNull(new TransferOptions().getIntegrity(), "a batch takes the engine's by default");
    assertEquals(Integrity.NONE, new TransferOptions().setIntegrity(Integrity.NONE).getIntegrity());
    VteException e = assertThrows(VteException.class, () -> Integrity.parse("sha1"));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("'sha1'"), e.getMessage());
  }

  @Test
  void transferOptionsRejectNonPositiveDeadline() {
    VteException e =
        assertThrows(VteException.class, () -> new TransferOptions().setDeadline(Duration.ZERO));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
  }

  @Test
  void segmentBufferContainsChecksBoundsWithoutOverflow() {
    SegmentBuffer b = new SegmentBuffer("cpu:0", 1000, 100, List.of(1));
    assertTrue(b.contains(1000, 100));
    assertTrue(b.contains(1099, 1));
    assertTrue(!b.contains(1099, 2));
    assertTrue(!b.contains(999, 1));
    assertTrue(!b.contains(1050, Long.MAX_VALUE));
  }
}

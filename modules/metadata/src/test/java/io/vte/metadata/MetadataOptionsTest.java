package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetadataOptionsTest {

  @Test
  void defaults() {
    MetadataOptions o = new MetadataOptions();
    assertEquals("/vte/default", o.getClusterPrefix());
    assertEquals(Duration.ofSeconds(10), o.getLeaseTtl());
    assertEquals(Duration.ofSeconds(3), o.getCallDeadline());
    assertEquals(Duration.ofSeconds(30), o.getStartDeadline());
    assertNull(o.getEtcdUser());
    assertNull(o.getSegmentFetcher());
  }

  @Test
  void jsonRoundTrip() {
    MetadataOptions o =
        new MetadataOptions()
            .setClusterPrefix("/vte/prod/")
            .setLeaseTtl(Duration.ofSeconds(5))
            .setCallDeadline(Duration.ofMillis(1500))
            .setHealthCheckInterval(Duration.ofMillis(250))
            .setStartDeadline(Duration.ofSeconds(7))
            .setEtcdUser("u")
            .setEtcdPassword("p")
            .setTlsTrustPemPath("/ca.pem")
            .setTlsCertPemPath("/c.pem")
            .setTlsKeyPemPath("/k.pem");
    assertEquals("/vte/prod", o.getClusterPrefix(), "trailing slash dropped");
    JsonObject json = o.toJson();
    assertEquals(5000L, json.getLong("leaseTtlMs"));
    MetadataOptions back = MetadataOptions.fromJson(json);
    assertEquals(json, back.toJson());
    assertEquals(Duration.ofMillis(250), back.getHealthCheckInterval());
    assertEquals(Duration.ofSeconds(7), back.getStartDeadline());
    assertFalse(o.toString().contains("p\""), "no password in toString");
  }

  @Test
  void copyKeepsEverything() {
    MetadataOptions o =
        new MetadataOptions().setClusterPrefix("/a").setSegmentFetcher((s, r, d) -> null);
    MetadataOptions copy = new MetadataOptions(o);
    assertEquals(o.toJson(), copy.toJson());
    assertEquals(o.getSegmentFetcher(), copy.getSegmentFetcher());
  }

  @Test
  void badValuesAreConfigurationErrorsNamingTheField() {
    assertInvalid("clusterPrefix", () -> new MetadataOptions().setClusterPrefix("vte"));
    assertInvalid("clusterPrefix", () -> new MetadataOptions().setClusterPrefix("/"));
    assertInvalid("clusterPrefix", () -> new MetadataOptions().setClusterPrefix("/a//b"));
    assertInvalid("leaseTtl", () -> new MetadataOptions().setLeaseTtl(Duration.ofSeconds(1)));
    assertInvalid("leaseTtl", () -> new MetadataOptions().setLeaseTtl(Duration.ofMillis(2500)));
    assertInvalid("callDeadline", () -> new MetadataOptions().setCallDeadline(Duration.ZERO));
    assertInvalid(
        "healthCheckInterval",
        () -> new MetadataOptions().setHealthCheckInterval(Duration.ofHours(1)));
    assertInvalid(
        "startDeadline", () -> new MetadataOptions().setStartDeadline(Duration.ofMinutes(11)));
    assertInvalid(
        "leaseTtlMs", () -> MetadataOptions.fromJson(new JsonObject().put("leaseTtlMs", "ten")));
    assertInvalid(
        "clusterPrefix", () -> MetadataOptions.fromJson(new JsonObject().put("clusterPrefix", 5)));
  }

  private static void assertInvalid(
      String field, org.junit.jupiter.api.function.Executable action) {
    VteException e = assertThrows(VteException.class, action);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains(field), e.getMessage());
  }
}

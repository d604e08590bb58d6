package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.InvalidOptionException;
import io.vte.api.MetadataOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one {@link MetadataOptions}, as a store made alone resolves it ({@link MetadataStores}). */
class MetadataOptionsTest {

  @Test
  void defaultsOfAStoreMadeAlone() {
    MetadataOptions o = MetadataStores.resolve(new MetadataOptions());
    assertEquals("/vte/default", o.getClusterPrefix());
    assertEquals(Duration.ofSeconds(10), o.getLeaseTtl());
    assertEquals(MetadataStores.DEFAULT_CALL_DEADLINE, o.getCallDeadline());
    assertEquals(Duration.ofSeconds(30), o.getStartDeadline());
    assertNull(o.getEtcdUser());
    assertNull(new MetadataOptions().getCallDeadline(), "unset: the engine's handshake deadline");
  }

  @Test
  void jsonRoundTripAndResolution() {
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
    MetadataOptions resolved = MetadataStores.resolve(o);
    assertEquals("/vte/prod", resolved.getClusterPrefix(), "trailing slash dropped");
    assertEquals("/vte/prod/", o.getClusterPrefix(), "the caller's options are not changed");
    JsonObject json = o.toJson();
    assertEquals(5000L, json.getLong("leaseTtlMs"));
    MetadataOptions back = MetadataOptions.fromJson(json);
    assertEquals(json, back.toJson());
    assertEquals(Duration.ofMillis(250), back.getHealthCheckInterval());
    assertEquals(Duration.ofSeconds(7), back.getStartDeadline());
    assertEquals(o, new MetadataOptions(o), "a copy keeps everything");
    assertFalse(o.toString().contains("p\""), "no password in toString");
  }

  @Test
  void badValuesAreConfigurationErrorsNamingTheField() {
    assertInvalid("clusterPrefix", new MetadataOptions().setClusterPrefix("vte"));
    assertInvalid("clusterPrefix", new MetadataOptions().setClusterPrefix("/"));
    assertInvalid("clusterPrefix", new MetadataOptions().setClusterPrefix("/a//b"));
    assertInvalid("leaseTtlMs", new MetadataOptions().setLeaseTtl(Duration.ofSeconds(1)));
    assertInvalid("leaseTtlMs", new MetadataOptions().setLeaseTtl(Duration.ofMillis(2500)));
    assertInvalid("callDeadlineMs", new MetadataOptions().setCallDeadline(Duration.ZERO));
    assertInvalid(
        "healthCheckIntervalMs", new MetadataOptions().setHealthCheckInterval(Duration.ofHours(1)));
    assertInvalid(
        "startDeadlineMs", new MetadataOptions().setStartDeadline(Duration.ofMinutes(11)));
    InvalidOptionException type =
        assertThrows(
            InvalidOptionException.class,
            () -> MetadataOptions.fromJson(new JsonObject().put("leaseTtlMs", "ten")));
    assertEquals("leaseTtlMs", type.path());
    InvalidOptionException unknown =
        assertThrows(
            InvalidOptionException.class,
            () -> MetadataOptions.fromJson(new JsonObject().put("leaseTtl", 5000)));
    assertEquals("leaseTtl", unknown.path());
  }

  private static void assertInvalid(String field, MetadataOptions options) {
    InvalidOptionException e =
        assertThrows(InvalidOptionException.class, () -> MetadataStores.resolve(options));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertEquals(field, e.path(), e.getMessage());
    assertTrue(e.getMessage().contains(field), e.getMessage());
  }
}

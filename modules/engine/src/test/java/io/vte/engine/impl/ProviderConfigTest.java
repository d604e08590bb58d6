package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.ProviderConfig;
import io.vte.engine.impl.owner.OwnerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderConfigTest {

  @Test
  void softSpecsBecomeProviderDevices() {
    EngineOptions o =
        new EngineOptions().setDevices(List.of("a", "b@127.0.0.2", "c@127.0.0.3:7001"));
    assertEquals(
        Map.of(
            "devices",
            List.of(
                Map.of("name", "a", "host", "127.0.0.1", "port", 0),
                Map.of("name", "b", "host", "127.0.0.2", "port", 0),
                Map.of("name", "c", "host", "127.0.0.3", "port", 7001)),
            "idleConnectionMs",
            60_000L,
            "nicSpinMicros",
            50L),
        ProviderConfig.of(o));
    assertEquals(List.of("a", "b", "c"), ProviderConfig.deviceNames(o));
  }

  @Test
  void theIdleConnectionTimeGoesToTheSoftProvider() {
    EngineOptions o = new EngineOptions().setIdleConnection(Duration.ofMillis(250));
    assertEquals(250L, ProviderConfig.of(o).get("idleConnectionMs"));
    assertEquals(0L, ProviderConfig.of(o.setIdleConnection(Duration.ZERO)).get("idleConnectionMs"));
  }

  @Test
  void theNicBusyPollGoesToTheSoftProvider() {
    assertEquals(50L, ProviderConfig.of(new EngineOptions()).get("nicSpinMicros"), "default");
    EngineOptions o = new EngineOptions().setNicBusyPoll(Duration.ofNanos(20_000));
    assertEquals(20L, ProviderConfig.of(o).get("nicSpinMicros"));
  }

  @Test
  void ibverbsDevicesAreNamesOnly() {
    EngineOptions o = new EngineOptions().setTransport("ibverbs").setDevices(List.of("mlx5_0"));
    assertEquals(Map.of(), ProviderConfig.of(o));
    assertEquals(List.of("mlx5_0"), ProviderConfig.deviceNames(o));
  }

  @Test
  void theEnginesAddressIsTheIbverbsProvidersPreferredGidAddress() {
    EngineOptions o =
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(List.of("mlx5_0"))
            .setRpcHost("198.18.0.7");
    assertEquals(Map.of("preferredAddress", "198.18.0.7"), ProviderConfig.of(o));
  }

  @Test
  void fallbackDevicesAreSoftDevicesAfterTheIbverbsOnes() {
    EngineOptions o =
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(List.of("mlx5_0", "mlx5_1"))
            .setFallbackDevices(List.of("tcp0@127.0.0.2:7001"));
    assertEquals(Map.of(), ProviderConfig.of(o));
    assertEquals(
        Map.of(
            "devices",
            List.of(Map.of("name", "tcp0", "host", "127.0.0.2", "port", 7001)),
            "idleConnectionMs",
            60_000L,
            "nicSpinMicros",
            50L),
        ProviderConfig.fallbackOf(o));
    assertEquals(List.of("mlx5_0", "mlx5_1", "tcp0"), ProviderConfig.deviceNames(o));
    assertEquals(List.of("ibverbs", "ibverbs", "soft"), ProviderConfig.transports(o));
    assertEquals(Map.of(), ProviderConfig.fallbackOf(o.setFallbackDevices(List.of())));
  }

  @Test
  void aFallbackDeviceNamedLikeAnIbverbsOneOrMalformedIsNamed() {
    EngineOptions o =
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(List.of("mlx5_0"))
            .setFallbackDevices(List.of("mlx5_0@127.0.0.1"));
    VteException twice = assertThrows(VteException.class, () -> ProviderConfig.of(o));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, twice.code());
    assertTrue(twice.getMessage().contains("'mlx5_0' twice"), twice.getMessage());
    VteException bad =
        assertThrows(
            VteException.class,
            () -> ProviderConfig.fallbackOf(o.setFallbackDevices(List.of("x@h:port"))));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, bad.code());
    assertTrue(bad.getMessage().contains("'x@h:port'"), bad.getMessage());
  }

  @Test
  void malformedSpecsAreNamed() {
    for (String bad : new String[] {"@127.0.0.1", "x@", "x@h:99999", "x@h:port"}) {
      VteException e =
          assertThrows(
              VteException.class,
              () -> ProviderConfig.of(new EngineOptions().setDevices(List.of(bad))));
      assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
  }

  @Test
  void qpTimeoutIsEncodedAsThePowerOfTwoAbove() {
    assertEquals(
        18, OwnerConfig.qpTimeoutExponent(Duration.ofSeconds(1)), "4.096 us x 2^18 = 1.07 s");
    assertEquals(15, OwnerConfig.qpTimeoutExponent(Duration.ofMillis(100)));
    assertEquals(1, OwnerConfig.qpTimeoutExponent(Duration.ofNanos(1)));
    assertEquals(31, OwnerConfig.qpTimeoutExponent(Duration.ofDays(1)));
  }
}

package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.IbverbsOptions;
import io.vte.api.VteException;
import io.vte.engine.ProviderConfig;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.verbs.soft.SoftVerbsConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProviderConfigTest {

  @Test
  void softSpecsBecomeProviderDevices() {
    EngineOptions o =
        new EngineOptions().setDevices(List.of("a", "b@127.0.0.2", "c@127.0.0.3:7001"));
    SoftVerbsConfig soft = SoftVerbsConfig.fromJson(ProviderConfig.of(o));
    assertEquals(List.of("a", "b@127.0.0.2", "c@127.0.0.3:7001"), soft.getDevices());
    assertEquals(
        List.of("127.0.0.1", "127.0.0.2", "127.0.0.3"),
        soft.devices().stream().map(d -> d.host().getHostAddress()).toList());
    assertEquals(7001, soft.devices().get(2).port());
    assertEquals(List.of("a", "b", "c"), ProviderConfig.deviceNames(o));
  }

  @Test
  void theIdleConnectionTimeGoesToTheSoftProvider() {
    EngineOptions o = new EngineOptions().setIdleConnection(Duration.ofMillis(250));
    assertEquals(250L, SoftVerbsConfig.fromJson(ProviderConfig.of(o)).idleConnectionMs());
    assertEquals(
        0L,
        SoftVerbsConfig.fromJson(ProviderConfig.of(o.setIdleConnection(Duration.ZERO)))
            .idleConnectionMs());
  }

  @Test
  void theNicBusyPollGoesToTheSoftProvider() {
    EngineOptions o = new EngineOptions().setNicBusyPoll(Duration.ofNanos(20_000));
    assertEquals(20, SoftVerbsConfig.fromJson(ProviderConfig.of(o)).nicSpinMicros());
  }

  @Test
  void theSoftProvidersDefaultsAreTheEnginesBuiltEitherWay() {
    SoftVerbsConfig throughEngine =
        SoftVerbsConfig.fromJson(ProviderConfig.of(new EngineOptions()));
    SoftVerbsConfig alone = SoftVerbsConfig.fromJson(new JsonObject());
    assertEquals(throughEngine.getNicSpin(), alone.getNicSpin());
    assertEquals(throughEngine.getIdleConnection(), alone.getIdleConnection());
    assertEquals(new EngineOptions().getNicBusyPoll(), alone.getNicSpin());
    assertEquals(new EngineOptions().getIdleConnection(), alone.getIdleConnection());
    JsonObject section = ProviderConfig.of(new EngineOptions());
    section.remove("devices");
    JsonObject aloneJson = alone.toJson();
    aloneJson.remove("devices");
    assertEquals(aloneJson, section, "every other option at the provider's own default");
  }

  @Test
  void ibverbsDevicesAreNamesOnly() {
    EngineOptions o = new EngineOptions().setTransport("ibverbs").setDevices(List.of("mlx5_0"));
    assertEquals(new JsonObject(), ProviderConfig.of(o));
    assertEquals(List.of("mlx5_0"), ProviderConfig.deviceNames(o));
  }

  @Test
  void theEnginesIbverbsOptionsAndAddressGoToTheIbverbsProvider() {
    EngineOptions o =
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(List.of("mlx5_0"))
            .setRpcHost("198.18.0.7");
    assertEquals(new JsonObject().put("preferredAddress", "198.18.0.7"), ProviderConfig.of(o));
    o.setIbverbs(new IbverbsOptions().setTrafficClass(106));
    assertEquals(
        new IbverbsOptions().setTrafficClass(106).toJson().put("preferredAddress", "198.18.0.7"),
        ProviderConfig.of(o));
  }

  @Test
  void fallbackDevicesAreSoftDevicesAfterTheIbverbsOnes() {
    EngineOptions o =
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(List.of("mlx5_0", "mlx5_1"))
            .setFallbackDevices(List.of("tcp0@127.0.0.2:7001"));
    assertEquals(new JsonObject(), ProviderConfig.of(o));
    assertEquals(
        List.of("tcp0@127.0.0.2:7001"),
        SoftVerbsConfig.fromJson(ProviderConfig.fallbackOf(o)).getDevices());
    assertEquals(List.of("mlx5_0", "mlx5_1", "tcp0"), ProviderConfig.deviceNames(o));
    assertEquals(List.of("ibverbs", "ibverbs", "soft"), ProviderConfig.transports(o));
    assertEquals(new JsonObject(), ProviderConfig.fallbackOf(o.setFallbackDevices(List.of())));
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

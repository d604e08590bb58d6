package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptionFields;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.InvalidOptionException;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DeviceInfo;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The provider's configuration: defaults, typed errors for bad settings, and the documented knobs.
 */
class ConfigTest {

  @Test
  void theProviderIsFoundByNameWithFourDefaultDevices() {
    try (VerbsProvider p = VerbsProviders.create("soft", new JsonObject())) {
      assertTrue(p.isAvailable());
      List<DeviceInfo> devices = p.devices();
      assertEquals(
          List.of("soft0", "soft1", "soft2", "soft3"),
          devices.stream().map(DeviceInfo::name).toList());
      assertEquals(
          "127.0.0.3", devices.get(2).ports().get(0).gid().toInetAddress().getHostAddress());
      VerbsContext c = p.open("soft2");
      assertTrue(c.queryPort(1).lid() > 0, "opened: the LID is the bound TCP port");
      assertEquals(
          VerbsError.BUSY, assertThrows(VerbsException.class, () -> p.open("soft2")).error());
      assertEquals(
          VerbsError.NO_DEVICE, assertThrows(VerbsException.class, () -> p.open("mlx5_0")).error());
    }
  }

  @Test
  void providersShareTheJvmsNicSpinBudgetUnlessGivenTheirOwn() {
    SoftVerbsProvider first = new SoftVerbsProvider(new SoftVerbsConfig());
    SoftVerbsProvider second = new SoftVerbsProvider(new SoftVerbsConfig());
    SoftVerbsProvider own = new SoftVerbsProvider(new SoftVerbsConfig().setNicSpinThreads(1));
    assertSame(first.nicSpinBudget(), second.nicSpinBudget(), "engines share the JVM's cores");
    assertNotSame(first.nicSpinBudget(), own.nicSpinBudget());
    assertEquals(1, own.nicSpinBudget().free());
  }

  @Test
  void badSettingsAreTypedErrorsNamingTheOptionAndTheValue() {
    List<JsonObject> bad =
        List.of(
            new JsonObject().put("colour", "blue"),
            new JsonObject().put("mtu", 1000),
            new JsonObject().put("nicSpinMicros", -1),
            new JsonObject().put("maxMessageBytes", "lots"),
            new JsonObject().put("devices", "soft0"),
            new JsonObject().put("devices", JsonArray.of("a@127.0.0.1:70000")),
            new JsonObject().put("devices", JsonArray.of("a", "a@127.0.0.2")),
            new JsonObject().put("idleConnectionMs", -5),
            new JsonObject().put("nicSpinThreads", -1),
            new JsonObject().put("mtu", "4096"));
    List<String> paths =
        List.of(
            "colour",
            "mtu",
            "nicSpinMicros",
            "maxMessageBytes",
            "devices",
            "devices",
            "devices",
            "idleConnectionMs",
            "nicSpinThreads",
            "mtu");
    List<String> values =
        List.of(
            "colour", "1000", "-1", "lots", "soft0", "70000", "a@127.0.0.2", "-5", "-1", "4096");
    for (int i = 0; i < bad.size(); i++) {
      JsonObject config = bad.get(i);
      InvalidOptionException e =
          assertThrows(
              InvalidOptionException.class,
              () -> VerbsProviders.create("soft", config),
              config.encode());
      assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
      assertEquals(paths.get(i), e.path(), e.getMessage());
      assertTrue(e.getMessage().contains("soft verbs option"), e.getMessage());
      assertTrue(e.getMessage().contains(values.get(i)), e.getMessage());
    }
  }

  @Test
  void typedOptionsAreValidatedOnceWhenTheProviderIsCreated() {
    SoftVerbsConfig options = new SoftVerbsConfig().setMtu(300);
    InvalidOptionException e =
        assertThrows(
            InvalidOptionException.class, () -> new SoftVerbsProviderFactory().create(options));
    assertEquals("mtu", e.path());
    VerbsException host =
        assertThrows(
            VerbsException.class,
            () ->
                new SoftVerbsProviderFactory()
                    .create(new SoftVerbsConfig().setDevices(List.of("h@no-such-host.invalid"))));
    assertEquals(VerbsError.INVALID_ARGUMENT, host.error());
    assertTrue(host.getMessage().contains("no-such-host.invalid"), host.getMessage());
    try (VerbsProvider p =
        new SoftVerbsProviderFactory()
            .create(new SoftVerbsConfig().setDevices(List.of("z@127.0.0.1")))) {
      assertEquals(List.of("z"), p.devices().stream().map(DeviceInfo::name).toList());
    }
  }

  @Test
  void theEngineOptionsTheProviderTakesHaveTheEnginesDefaults() {
    EngineOptions engine = new EngineOptions();
    SoftVerbsConfig fromJson = SoftVerbsConfig.fromJson(new JsonObject());
    assertEquals(engine.getNicBusyPoll(), fromJson.getNicSpin());
    assertEquals(engine.getIdleConnection(), fromJson.getIdleConnection());
    assertEquals(engine.getNicBusyPoll(), new SoftVerbsConfig().getNicSpin());
    assertEquals(
        EngineOptionFields.NIC_BUSY_POLL.range(engine), SoftVerbsConfig.NIC_SPIN.range(null));
  }

  @Test
  void aBusyPollingNicMovesDataCorrectly() {
    try (VerbsProvider p =
        VerbsProviders.create(
            "soft",
            new JsonObject()
                .put("nicSpinMicros", 200)
                .put("devices", JsonArray.of("x@127.0.0.1", "y@127.0.0.1")))) {
      VerbsContext x = p.open("x");
      VerbsContext y = p.open("y");
      CompletionQueue cq = x.createCq(64);
      var pdX = x.allocPd();
      var pdY = y.allocPd();
      QueuePair a = pdX.createQp(new io.vte.verbs.QpInitAttributes(cq, cq, 16, 1, 0));
      CompletionQueue cqY = y.createCq(4);
      QueuePair b = pdY.createQp(new io.vte.verbs.QpInitAttributes(cqY, cqY, 1, 1, 0));
      Fabric.connect(a, x, b, y, Fabric.LOADED);
      ByteBuffer src = ByteBuffer.allocateDirect(1 << 16);
      ByteBuffer dst = ByteBuffer.allocateDirect(1 << 16);
      MemoryRegion ms = pdX.registerMemory(src, AccessFlags.LOCAL_WRITE);
      MemoryRegion md = pdY.registerMemory(dst, AccessFlags.ALL_REMOTE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(1);
      for (int i = 0; i < 200; i++) {
        src.putInt(0, i);
        wr.clear();
        wr.add(
            i,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ms.address(),
            8 + i * 100,
            ms.lkey(),
            md.address(),
            md.rkey());
        assertEquals(PostStatus.OK, a.postSend(wr));
        assertEquals(
            WcStatus.SUCCESS.code(), Fabric.await(cq, 1, Duration.ofSeconds(20)).get(0).status());
        assertEquals(i, dst.getInt(0));
      }
    }
  }
}

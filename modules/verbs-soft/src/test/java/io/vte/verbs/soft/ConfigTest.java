package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The provider's configuration: defaults, typed errors for bad settings, and the documented knobs.
 */
class ConfigTest {

  @Test
  void theProviderIsFoundByNameWithFourDefaultDevices() {
    try (VerbsProvider p = VerbsProviders.create("soft", Map.of())) {
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
    SoftVerbsProvider first = new SoftVerbsProvider(SoftVerbsConfig.from(Map.of()));
    SoftVerbsProvider second = new SoftVerbsProvider(SoftVerbsConfig.from(Map.of()));
    SoftVerbsProvider own =
        new SoftVerbsProvider(SoftVerbsConfig.from(Map.of("nicSpinThreads", 1)));
    assertSame(first.nicSpinBudget(), second.nicSpinBudget(), "engines share the JVM's cores");
    assertNotSame(first.nicSpinBudget(), own.nicSpinBudget());
    assertEquals(1, own.nicSpinBudget().free());
  }

  @Test
  void badSettingsAreTypedErrorsNamingTheValue() {
    List<Map<String, Object>> bad =
        List.of(
            Map.of("colour", "blue"),
            Map.of("mtu", 1000),
            Map.of("nicSpinMicros", -1),
            Map.of("maxMessageBytes", "lots"),
            Map.of("devices", "soft0"),
            Map.of("devices", List.of(Map.of("name", "a", "host", "127.0.0.1", "port", 70000))),
            Map.of("devices", List.of(Map.of("name", "a"), Map.of("name", "a"))),
            Map.of("idleConnectionMs", -5),
            Map.of("nicSpinThreads", -1));
    List<String> named =
        List.of("colour", "1000", "-1", "lots", "soft0", "70000", "'a'", "-5", "nicSpinThreads");
    for (int i = 0; i < bad.size(); i++) {
      Map<String, Object> config = bad.get(i);
      VerbsException e =
          assertThrows(
              VerbsException.class, () -> VerbsProviders.create("soft", config), config.toString());
      assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
      assertTrue(e.getMessage().contains(named.get(i)), e.getMessage());
    }
  }

  @Test
  void aBusyPollingNicMovesDataCorrectly() {
    try (VerbsProvider p =
        VerbsProviders.create(
            "soft",
            Map.of(
                "nicSpinMicros",
                200,
                "devices",
                List.of(
                    Map.of("name", "x", "host", "127.0.0.1", "port", 0),
                    Map.of("name", "y", "host", "127.0.0.1", "port", 0))))) {
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

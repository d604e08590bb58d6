package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.json.JsonObject;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The provider on this host's real libibverbs (or without the shim, where the headers were
 * missing).
 */
class RealLibraryTest {

  private static boolean shimPacked() {
    return RealLibraryTest.class.getClassLoader().getResource(IbvLibrary.RESOURCE) != null;
  }

  @Test
  void factoryIsFoundByName() {
    assertTrue(VerbsProviders.names().contains("ibverbs"), VerbsProviders.names().toString());
    try (VerbsProvider p = VerbsProviders.create("ibverbs", new JsonObject())) {
      assertEquals("ibverbs", p.name());
    }
  }

  @Test
  void hostWithoutRdmaReportsEnosysPlainlyAndNeverCrashes() {
    assumeTrue(shimPacked(), "the shim was not built here (no /usr/include/infiniband/verbs.h)");
    assumeTrue(!Files.exists(Path.of("/sys/class/infiniband")), "this host has RDMA devices");
    try (VerbsProvider p = VerbsProviders.create("ibverbs", new JsonObject())) {
      assertFalse(p.isAvailable());
      Throwable cause = p.unavailabilityCause();
      assertNotNull(cause);
      String msg = cause.getMessage();
      assertTrue(msg.contains("the kernel has no RDMA devices"), msg);
      assertTrue(msg.contains("ibv_get_device_list: ENOSYS"), msg);
      assertTrue(msg.contains("use the 'soft' verbs provider"), msg);
      VerbsException e = assertThrows(VerbsException.class, p::devices);
      assertEquals(VerbsError.NOT_SUPPORTED, e.error());
      assertTrue(e.getMessage().contains("no RDMA devices"), e.getMessage());
      VerbsException open = assertThrows(VerbsException.class, () -> p.open("mlx5_0"));
      assertEquals(VerbsError.NOT_SUPPORTED, open.error());
    }
  }

  @Test
  void missingShimIsReportedWithTheFix() {
    String absent = "META-INF/native/libvte_ibv_absent.so";
    VerbsException missing = IbvLibrary.load(RealLibraryTest.class.getClassLoader(), absent);
    assertNotNull(missing);
    assertEquals(VerbsError.NOT_SUPPORTED, missing.error());
    String msg = missing.getMessage();
    assertTrue(msg.contains(absent + " is not in this jar") && msg.contains("libibverbs-dev"), msg);
    assertTrue(msg.contains("use the 'soft' verbs provider"), msg);
    if (!shimPacked()) {
      try (IbvProvider p = new IbvProvider(new IbvSettings())) {
        assertFalse(p.isAvailable());
        assertTrue(p.unavailabilityCause().getMessage().contains("is not in this jar"));
        assertEquals(
            VerbsError.NOT_SUPPORTED, assertThrows(VerbsException.class, p::devices).error());
      }
    }
  }

  @Test
  void killSwitchDisablesTheProvider() {
    System.setProperty(IbvProvider.DISABLE_PROPERTY, "true");
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      assertFalse(p.isAvailable());
      String msg = p.unavailabilityCause().getMessage();
      assertTrue(msg.contains("disabled by -Dvte.ibverbs.disable=true"), msg);
      VerbsException e = assertThrows(VerbsException.class, () -> p.open("any"));
      assertEquals(VerbsError.NOT_SUPPORTED, e.error());
      assertTrue(e.getMessage().contains("disabled"), e.getMessage());
    } finally {
      System.clearProperty(IbvProvider.DISABLE_PROPERTY);
    }
  }

  @Test
  void loadedShimPassedTheContractCheck() {
    assumeTrue(shimPacked(), "the shim was not built here");
    assertEquals(null, IbvLibrary.failure());
    assertEquals(IbvNative.ABI_VERSION, IbvNative.abiVersion());
    assertEquals(null, IbvLibrary.checkContract(IbvNative.abiVersion(), IbvNative.layout()));
  }
}

package io.vte.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * Provider look-up on a class path that holds no provider (this module's tests have neither soft
 * nor ibverbs).
 */
class VerbsProvidersTest {

  @Test
  void aShippedProviderMissingFromTheClassPathNamesItsArtifact() {
    VerbsException e =
        assertThrows(
            VerbsException.class, () -> VerbsProviders.create("ibverbs", new JsonObject()));
    assertEquals(VerbsError.NOT_SUPPORTED, e.error());
    assertTrue(e.getMessage().contains("io.vte:vte-verbs-ibv"), e.getMessage());
  }

  @Test
  void anUnknownProviderIsNamed() {
    VerbsException e =
        assertThrows(VerbsException.class, () -> VerbsProviders.create("warp", new JsonObject()));
    assertEquals(VerbsError.NOT_SUPPORTED, e.error());
    assertTrue(e.getMessage().contains("'warp'"), e.getMessage());
  }
}

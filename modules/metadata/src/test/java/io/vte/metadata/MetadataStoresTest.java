package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Store look-up on this module's class path, which has no etcd store (it lives in
 * vte-metadata-etcd).
 */
class MetadataStoresTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @ParameterizedTest
  @ValueSource(strings = {"etcd://127.0.0.1:2379", "etcds://etcd.example:2379"})
  void etcdWithoutItsArtifactIsAConfigurationErrorNamingTheArtifact(String uri) {
    VteException e =
        assertThrows(
            VteException.class, () -> MetadataStores.create(vertx, uri, new MetadataOptions()));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains(uri), e.getMessage());
    assertTrue(e.getMessage().contains("io.vte:vte-metadata-etcd"), e.getMessage());
  }
}

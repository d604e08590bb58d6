package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.TlsOptions;
import io.vte.testkit.TestPki;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;

/**
 * The TLS warm-up's in-memory handshake really completes, so the one-time work it stands for is
 * done.
 */
class TlsClassesTest {

  @Test
  void theInMemoryHandshakeWithTheServersOwnKeyAndTrustCompletes() throws Exception {
    try (TestPki pki = TestPki.create("server")) {
      TlsOptions tls =
          new TlsOptions()
              .setKeyPath(pki.key("server").toString())
              .setCertPath(pki.cert("server").toString())
              .setTrustPath(pki.caCert().toString());
      assertTrue(TlsClasses.handshakeInMemory(tls));
    }
  }

  @Test
  void aClientThatDoesNotTrustTheServerFailsTheInMemoryHandshake() throws Exception {
    try (TestPki pki = TestPki.create("server");
        TestPki stranger = TestPki.create("server")) {
      TlsOptions tls =
          new TlsOptions()
              .setKeyPath(pki.key("server").toString())
              .setCertPath(pki.cert("server").toString())
              .setTrustPath(stranger.caCert().toString());
      assertThrows(SSLException.class, () -> TlsClasses.handshakeInMemory(tls));
    }
  }
}

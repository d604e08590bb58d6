package io.vte.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestPkiTest {

  private static X509Certificate read(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void certificatesAreSignedByTheirCaForLoopbackAndCloseDeletesThem() throws Exception {
    Path dir;
    try (TestPki pki = TestPki.create("server", "client");
        TestPki other = TestPki.create("server")) {
      dir = pki.dir();
      X509Certificate ca = read(pki.caCert());
      for (String identity : List.of("server", "client")) {
        X509Certificate cert = read(pki.cert(identity));
        cert.verify(ca.getPublicKey());
        assertEquals("CN=vte-" + identity, cert.getSubjectX500Principal().getName());
        assertTrue(
            cert.getSubjectAlternativeNames().stream()
                .anyMatch(san -> san.get(1).equals("127.0.0.1")));
        assertTrue(
            cert.getExtendedKeyUsage()
                .containsAll(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2")));
        assertTrue(
            Files.readString(pki.key(identity)).startsWith("-----BEGIN PRIVATE KEY-----"),
            "PKCS#8 key");
      }
      X509Certificate stranger = read(other.cert("server"));
      assertThrows(SignatureException.class, () -> stranger.verify(ca.getPublicKey()));
    }
    assertFalse(Files.exists(dir), dir + " deleted on close");
  }
}

package io.vte.metadata.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ClientBuilder;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.metadata.impl.MetadataUri;
import io.vte.testkit.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** How options map onto the jetcd client: credentials, deadlines, TLS files and their errors. */
class EtcdClientsTest {

  private static TestPki certs;

  @BeforeAll
  static void makeCerts() {
    certs = TestPki.create("server", "client");
  }

  @AfterAll
  static void dropCerts() throws Exception {
    certs.close();
  }

  @Test
  void plainUriWithCredentialsAndDeadline() {
    ClientBuilder b =
        EtcdClients.builder(
            MetadataUri.parse("etcd://127.0.0.1:2379,127.0.0.2:2379"),
            new MetadataOptions()
                .setEtcdUser("vte")
                .setEtcdPassword("pw")
                .setCallDeadline(Duration.ofMillis(750)));
    assertEquals("vte", b.user().toString(StandardCharsets.UTF_8));
    assertEquals("pw", b.password().toString(StandardCharsets.UTF_8));
    assertEquals(Duration.ofMillis(750), b.connectTimeout());
    assertTrue(
        b.target().contains("127.0.0.1:2379") && b.target().contains("127.0.0.2:2379"), b.target());
    assertNull(b.sslContext());
  }

  /**
   * jetcd refuses a retry policy whose longest duration is not above its first delay (500 ms by
   * default).
   */
  @Test
  void callDeadlinesDownToOneMillisecondBuildAClient() {
    for (long ms : new long[] {1, 2, 400, 500, 3000}) {
      ClientBuilder b =
          EtcdClients.builder(
              MetadataUri.parse("etcd://127.0.0.1:2379"),
              new MetadataOptions().setCallDeadline(Duration.ofMillis(ms)));
      assertEquals(java.time.temporal.ChronoUnit.MILLIS, b.retryChronoUnit());
      assertTrue(
          b.retryMaxDuration().toMillis() > b.retryDelay(),
          ms + " ms: " + b.retryMaxDuration() + " vs " + b.retryDelay());
    }
  }

  @Test
  void tlsUriWithTrustAndClientCertificateBuildsAnSslContext() {
    ClientBuilder b =
        EtcdClients.builder(
            MetadataUri.parse("etcds://127.0.0.1:2379"),
            new MetadataOptions()
                .setTlsTrustPemPath(certs.caCert().toString())
                .setTlsCertPemPath(certs.cert("client").toString())
                .setTlsKeyPemPath(certs.key("client").toString()));
    assertNotNull(b.sslContext());
    assertTrue(b.sslContext().isClient());
  }

  @Test
  void inconsistentOrUnusableSettingsAreConfigurationErrors() throws Exception {
    MetadataUri tls = MetadataUri.parse("etcds://127.0.0.1:2379");
    assertInvalid(
        "use etcds://",
        () ->
            EtcdClients.builder(
                MetadataUri.parse("etcd://h:1"),
                new MetadataOptions().setTlsTrustPemPath(certs.caCert().toString())));
    assertInvalid(
        "etcdUser and etcdPassword",
        () -> EtcdClients.builder(tls, new MetadataOptions().setEtcdUser("vte")));
    assertInvalid(
        "/nonexistent/ca.pem",
        () ->
            EtcdClients.builder(
                tls, new MetadataOptions().setTlsTrustPemPath("/nonexistent/ca.pem")));
    assertInvalid(
        "tlsCertPemPath and tlsKeyPemPath",
        () ->
            EtcdClients.builder(
                tls, new MetadataOptions().setTlsCertPemPath(certs.cert("client").toString())));
    Path garbage = certs.dir().resolve("garbage.pem");
    Files.writeString(
        garbage, "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
    assertInvalid(
        "not usable PEM",
        () ->
            EtcdClients.builder(tls, new MetadataOptions().setTlsTrustPemPath(garbage.toString())));
  }

  private static void assertInvalid(String problem, Executable action) {
    VteException e = assertThrows(VteException.class, action);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }
}

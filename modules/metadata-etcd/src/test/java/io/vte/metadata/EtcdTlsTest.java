package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import io.vte.testkit.TestPki;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** etcds:// against a real etcd serving TLS with client-certificate authentication. */
@ExtendWith(BlockedThreadGuard.class)
class EtcdTlsTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final TestPki certs = TestPki.create("server", "client");

  @RegisterExtension
  static final EtcdStores stores =
      EtcdStores.onClassEtcd(
          () ->
              EtcdServer.start(
                  new EtcdServer.Tls(
                      certs.caCert(),
                      certs.cert("server"),
                      certs.key("server"),
                      certs.cert("client"),
                      certs.key("client"))));

  @AfterAll
  static void deleteCertificates() throws Exception {
    certs.close();
  }

  private MetadataOptions tls() {
    // A generous deadline: the first TLS handshake is slow on a loaded 2-core machine.
    return new MetadataOptions()
        .setClusterPrefix("/vte/tls")
        .setLeaseTtl(Duration.ofSeconds(3))
        .setCallDeadline(Duration.ofSeconds(10))
        .setTlsTrustPemPath(certs.caCert().toString());
  }

  @Test
  void trustedServerAndClientCertificatePublishAndLookUp() {
    MetadataStore a =
        stores.create(
            tls()
                .setTlsCertPemPath(certs.cert("client").toString())
                .setTlsKeyPemPath(certs.key("client").toString()));
    Await.result(a.start(), WAIT);
    SegmentDescriptor d = Descriptors.sample("secure", "127.0.0.1:7401", 1, 1);
    Await.result(a.publish(d), WAIT);
    assertEquals(d, Await.result(a.lookup("secure"), WAIT));
    Await.result(a.close(), WAIT);
  }

  @Test
  void withoutAClientCertificateTheStoreCannotStart() {
    MetadataStore a =
        stores.create(
            tls().setCallDeadline(Duration.ofSeconds(2)).setStartDeadline(Duration.ofSeconds(3)));
    VteException e = assertInstanceOf(VteException.class, Await.failure(a.start(), WAIT));
    assertEquals(ErrorCode.METADATA_UNAVAILABLE, e.code(), e.getMessage());
    Await.result(a.close(), WAIT);
  }
}

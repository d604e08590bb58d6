package io.vte.handshake;

import static io.vte.handshake.LoopbackHandshake.DEADLINE;
import static io.vte.handshake.LoopbackHandshake.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import io.vte.testkit.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(BlockedThreadGuard.class)
class TlsServiceTest {

  private static final byte[] SECRET =
      "tls-and-auth-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  private static TestPki certs;
  private static TestPki strangerCerts;

  @RegisterExtension final LoopbackHandshake loop = new LoopbackHandshake(tlsServer());

  @BeforeAll
  static void makeCertificates() {
    certs = TestPki.create("server", "client");
    strangerCerts = TestPki.create("server", "client");
  }

  @AfterAll
  static void deleteCertificates() throws Exception {
    certs.close();
    strangerCerts.close();
  }

  private static HandshakeServerOptions tlsServer() {
    return new HandshakeServerOptions()
        .setTls(TlsOptions.server(certs.key("server").toString(), certs.cert("server").toString()));
  }

  private static HandshakeClientOptions trusting(Path trust) {
    return new HandshakeClientOptions().setTls(TlsOptions.client(trust.toString()));
  }

  private static VteException failure(Future<?> call) {
    Throwable failure = Await.failure(call, WAIT);
    assertTrue(failure instanceof VteException, failure::toString);
    return (VteException) failure;
  }

  @Test
  void tlsClientTalksToTlsServer() {
    HandshakeClientPool pool = loop.newPool(trusting(certs.caCert()));
    assertEquals(
        Fixtures.acceptedReply(Fixtures.connectRequest()),
        Await.result(pool.connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT));
    assertEquals(
        "s",
        Await.result(
                pool.getSegment(loop.serverName(), Fixtures.segmentRequest("s"), DEADLINE), WAIT)
            .getName());
    assertTrue(
        Await.result(pool.notify(loop.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT)
            .getAccepted());
    assertEquals(3, loop.handler().received.size());
  }

  @Test
  void plainClientCannotTalkToTlsServer() {
    HandshakeClientPool plain = loop.newPool(new HandshakeClientOptions());
    long start = System.nanoTime();
    VteException e = failure(plain.connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE));
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
    assertTrue(ms < DEADLINE.toMillis(), "failed before the deadline: " + ms + " ms");
    assertTrue(loop.handler().received.isEmpty());
  }

  @Test
  void tlsClientCannotTalkToPlainServer() {
    HandshakeServer plainServer =
        Await.result(
            HandshakeServer.start(loop.vertx(), new HandshakeServerOptions(), loop.handler()),
            WAIT);
    HandshakeClientPool pool = loop.newPool(trusting(certs.caCert()));
    try {
      VteException e =
          failure(pool.connect(plainServer.serverName(), Fixtures.connectRequest(), DEADLINE));
      assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
      assertTrue(loop.handler().received.isEmpty());
    } finally {
      Await.result(plainServer.close(), WAIT);
    }
  }

  @Test
  void serverSignedByAnUntrustedCaIsRefused() {
    HandshakeClientPool pool = loop.newPool(trusting(strangerCerts.caCert()));
    VteException e = failure(pool.connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE));
    assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
    assertTrue(loop.handler().received.isEmpty());
  }

  @Test
  void tlsWithAuth() {
    HandshakeServer secure =
        Await.result(
            HandshakeServer.start(
                loop.vertx(),
                tlsServer().setAuth(HandshakeAuth.sharedSecret("k", SECRET)),
                loop.handler()),
            WAIT);
    HandshakeClientPool signed =
        loop.newPool(trusting(certs.caCert()).setAuth(HandshakeAuth.sharedSecret("k", SECRET)));
    HandshakeClientPool unsigned = loop.newPool(trusting(certs.caCert()));
    try {
      assertEquals(
          "seg",
          Await.result(
                  signed.getSegment(secure.serverName(), Fixtures.segmentRequest("seg"), DEADLINE),
                  WAIT)
              .getName());
      VteException e =
          failure(
              unsigned.getSegment(secure.serverName(), Fixtures.segmentRequest("seg"), DEADLINE));
      assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.getMessage());
      assertEquals(1, loop.handler().received.size());
    } finally {
      Await.result(secure.close(), WAIT);
    }
  }

  private HandshakeServer mutualTlsServer() {
    return Await.result(
        HandshakeServer.start(
            loop.vertx(),
            new HandshakeServerOptions()
                .setTls(
                    TlsOptions.server(
                            certs.key("server").toString(), certs.cert("server").toString())
                        .setTrustPath(certs.caCert().toString())
                        .setRequireClientCert(true)),
            loop.handler()),
        WAIT);
  }

  private static HandshakeClientOptions presenting(TestPki issuer) {
    return new HandshakeClientOptions()
        .setTls(
            TlsOptions.client(certs.caCert().toString())
                .setKeyPath(issuer.key("client").toString())
                .setCertPath(issuer.cert("client").toString()));
  }

  @Test
  void mutualTlsServesAClientWhoseCertificateChainsToItsTrustBundle() {
    HandshakeServer server = mutualTlsServer();
    try {
      HandshakeClientPool pool = loop.newPool(presenting(certs));
      assertEquals(
          "s",
          Await.result(
                  pool.getSegment(server.serverName(), Fixtures.segmentRequest("s"), DEADLINE),
                  WAIT)
              .getName());
      assertEquals(1, loop.handler().received.size());
    } finally {
      Await.result(server.close(), WAIT);
    }
  }

  @Test
  void mutualTlsRefusesClientsWithoutACertificateOrWithAStrangersOne() {
    HandshakeServer server = mutualTlsServer();
    try {
      for (HandshakeClientOptions client :
          new HandshakeClientOptions[] {trusting(certs.caCert()), presenting(strangerCerts)}) {
        HandshakeClientPool pool = loop.newPool(client);
        long start = System.nanoTime();
        VteException e =
            failure(pool.getSegment(server.serverName(), Fixtures.segmentRequest("s"), DEADLINE));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
        assertTrue(ms < DEADLINE.toMillis(), "failed before the deadline: " + ms + " ms");
      }
      assertTrue(
          loop.handler().received.isEmpty(),
          "no call reached the handler: " + loop.handler().received);
    } finally {
      Await.result(server.close(), WAIT);
    }
  }

  @Test
  void incompleteTlsOptionsAreConfigurationErrors() {
    VteException e =
        failure(
            HandshakeServer.start(
                loop.vertx(),
                new HandshakeServerOptions()
                    .setTls(new TlsOptions().setCertPath(certs.cert("server").toString())),
                loop.handler()));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("tls.keyPath"), e.getMessage());
    e =
        assertThrows(
            VteException.class,
            () ->
                HandshakeClientPool.create(
                    loop.vertx(), new HandshakeClientOptions().setTls(new TlsOptions())));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    e =
        failure(
            HandshakeServer.start(
                loop.vertx(),
                new HandshakeServerOptions()
                    .setTls(
                        TlsOptions.server(
                            certs.dir().resolve("missing.key").toString(),
                            certs.cert("server").toString())),
                loop.handler()));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code(), e.getMessage());
    e =
        failure(
            HandshakeServer.start(
                loop.vertx(),
                new HandshakeServerOptions()
                    .setTls(
                        TlsOptions.server(
                                certs.key("server").toString(), certs.cert("server").toString())
                            .setRequireClientCert(true)),
                loop.handler()));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("tls.requireClientCert"), e.getMessage());
    e =
        assertThrows(
            VteException.class,
            () ->
                HandshakeClientPool.create(
                    loop.vertx(),
                    new HandshakeClientOptions()
                        .setTls(
                            TlsOptions.client(certs.caCert().toString())
                                .setKeyPath(certs.key("client").toString()))));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("both tls.keyPath and tls.certPath"), e.getMessage());
  }

  @Test
  void tlsCloseReleasesEverything() {
    loop.close();
    ResourceSnapshot before = ResourceSnapshot.take();
    try (LoopbackHandshake again =
        new LoopbackHandshake(tlsServer(), trusting(certs.caCert())).start()) {
      for (int i = 0; i < 10; i++) {
        Await.result(
            again.pool().notify(again.serverName(), Fixtures.notifyRequest(i + 1), DEADLINE), WAIT);
      }
    }
    ResourceSnapshot.assertNoLeaksSince(before, WAIT);
  }
}

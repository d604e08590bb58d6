package io.vte.handshake;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolConfig.Protocol;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.TlsOptions;
import java.io.File;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * Runs the JDK's and Netty's one-time TLS work once per JVM, on a worker thread, before a TLS
 * handshake server listens: one TLS handshake in memory (with ALPN for HTTP/2) between a server
 * with the engine's own key and certificate and a client that trusts its trust bundle. Without it
 * the first TLS connection of the JVM does that work on an event loop (the default SSL context and
 * cipher suites, the JDK's default trust store, Netty's key-store probe, the key-exchange curves,
 * the first signature and certificate-path check): on a loaded machine seconds there, which blocked
 * the loop (a blocked-thread warning of 3.2 s) and made a peer's first GetSegment over TLS miss its
 * 5 s deadline.
 */
final class TlsClasses {

  /** Handshake steps before giving up: a TLS 1.3 handshake takes a handful. */
  private static final int MAX_STEPS = 64;

  /** ALPN offering HTTP/2, as the handshake's client and server negotiate it. */
  private static final ApplicationProtocolConfig H2 =
      new ApplicationProtocolConfig(
          Protocol.ALPN,
          SelectorFailureBehavior.NO_ADVERTISE,
          SelectedListenerFailureBehavior.ACCEPT,
          "h2");

  private static volatile boolean initialized;

  private TlsClasses() {}

  /**
   * @param vertx the Vert.x instance whose worker pool runs the handshake
   * @param tls the server's TLS options (key and certificate set)
   * @return completes once it ran, also when the handshake failed (the real server reports bad TLS
   *     options); at once after the first time
   */
  static Future<Void> initialize(Vertx vertx, TlsOptions tls) {
    if (initialized) {
      return Future.succeededFuture();
    }
    return vertx
        .executeBlocking(
            () -> {
              try {
                handshakeInMemory(tls);
              } catch (SSLException | RuntimeException e) {
                // not this warm-up's to report: listen() and the first connection fail with the
                // cause
              }
              initialized = true;
              return null;
            },
            false)
        .mapEmpty();
  }

  /**
   * @param tls key, certificate and (optional) trust bundle
   * @return whether both sides finished the handshake
   * @throws SSLException when the handshake fails
   */
  static boolean handshakeInMemory(TlsOptions tls) throws SSLException {
    SslContext server =
        SslContextBuilder.forServer(new File(tls.getCertPath()), new File(tls.getKeyPath()))
            .sslProvider(SslProvider.JDK)
            .applicationProtocolConfig(H2)
            .build();
    // no host name here: the warm-up checks the chain, the real client the name too
    SslContextBuilder clientBuilder =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .endpointIdentificationAlgorithm(null)
            .applicationProtocolConfig(H2);
    if (tls.getTrustPath() != null) {
      clientBuilder.trustManager(new File(tls.getTrustPath()));
    }
    SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
    SSLEngine c = clientBuilder.build().newEngine(ByteBufAllocator.DEFAULT);
    int packet =
        Math.max(c.getSession().getPacketBufferSize(), s.getSession().getPacketBufferSize());
    int app =
        Math.max(
            c.getSession().getApplicationBufferSize(), s.getSession().getApplicationBufferSize());
    ByteBuffer toServer = ByteBuffer.allocate(packet);
    ByteBuffer toClient = ByteBuffer.allocate(packet);
    ByteBuffer plain = ByteBuffer.allocate(app);
    c.beginHandshake();
    s.beginHandshake();
    for (int step = 0; step < MAX_STEPS && !(done(c) && done(s)); step++) {
      send(c, toServer, s, plain);
      send(s, toClient, c, plain);
    }
    return done(c) && done(s) && "h2".equals(c.getApplicationProtocol());
  }

  /** One flight: what {@code from} has to send goes through {@code wire} into {@code to}. */
  private static void send(SSLEngine from, ByteBuffer wire, SSLEngine to, ByteBuffer plain)
      throws SSLException {
    from.wrap(ByteBuffer.allocate(0), wire);
    runTasks(from);
    wire.flip();
    to.unwrap(wire, plain.clear());
    wire.compact();
    runTasks(to);
  }

  private static boolean done(SSLEngine e) {
    HandshakeStatus h = e.getHandshakeStatus();
    return h == HandshakeStatus.NOT_HANDSHAKING || h == HandshakeStatus.FINISHED;
  }

  private static void runTasks(SSLEngine e) {
    for (Runnable task = e.getDelegatedTask(); task != null; task = e.getDelegatedTask()) {
      task.run();
    }
  }
}

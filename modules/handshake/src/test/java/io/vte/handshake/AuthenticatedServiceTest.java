package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.Auth;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The auth matrix over the wire: only correctly signed, fresh, unreplayed calls reach the handler. */
@ExtendWith(BlockedThreadGuard.class)
class AuthenticatedServiceTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration DEADLINE = Duration.ofSeconds(5);
  private static final byte[] SECRET = "cluster-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  private Vertx vertx;
  private RecordingHandler handler;
  private HandshakeServer server;
  private HandshakeClientPool signed;
  private HandshakeClientPool unsigned;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    handler = new RecordingHandler();
    server = Await.result(HandshakeServer.start(vertx,
        new HandshakeServerOptions().setAuth(HandshakeAuth.sharedSecret("cluster", SECRET)), handler), WAIT);
    signed = HandshakeClientPool.create(vertx, new HandshakeClientOptions().setAuth(HandshakeAuth.sharedSecret("cluster", SECRET)));
    unsigned = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
  }

  @AfterEach
  void stop() {
    Await.result(signed.close(), WAIT);
    Await.result(unsigned.close(), WAIT);
    Await.result(server.close(), WAIT);
    Await.result(vertx.close(), WAIT);
  }

  private void assertDenied(Future<?> call, String why) {
    Throwable failure = Await.failure(call, WAIT);
    assertTrue(failure instanceof VteException, failure::toString);
    assertEquals(ErrorCode.PERMISSION_DENIED, ((VteException) failure).code(), failure.getMessage());
    assertTrue(failure.getMessage().contains(why), failure.getMessage());
  }

  @Test
  void signedCallsAreServedAndTheHandlerSeesNoToken() {
    ConnectRequest request = Fixtures.connectRequest();
    assertEquals(Fixtures.acceptedReply(request), Await.result(signed.connect(server.serverName(), request, DEADLINE), WAIT));
    assertEquals("s", Await.result(signed.getSegment(server.serverName(), Fixtures.segmentRequest("s"), DEADLINE), WAIT).getName());
    assertTrue(Await.result(signed.notify(server.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT).getAccepted());
    assertEquals(3, handler.received.size());
    assertEquals(request, handler.received.get(0));
    assertFalse(((GetSegmentRequest) handler.received.get(1)).hasAuth());
    assertFalse(((NotifyRequest) handler.received.get(2)).hasAuth());
  }

  @Test
  void unauthenticatedPeerLearnsNothing() {
    assertDenied(unsigned.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE), "no auth token");
    assertDenied(unsigned.getSegment(server.serverName(), Fixtures.segmentRequest(""), DEADLINE), "no auth token");
    assertDenied(unsigned.notify(server.serverName(), Fixtures.notifyRequest(1), DEADLINE), "no auth token");
    assertTrue(handler.received.isEmpty(), "no call reached the handler, so no segment keys were served");
  }

  @Test
  void authIsCheckedBeforeValidation() {
    assertDenied(unsigned.connect(server.serverName(), ConnectRequest.getDefaultInstance(), DEADLINE), "no auth token");
  }

  @Test
  void wrongSecretOrKeyIsDenied() {
    HandshakeClientPool forger = HandshakeClientPool.create(vertx, new HandshakeClientOptions()
        .setAuth(HandshakeAuth.sharedSecret("cluster", "guessed-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8))));
    HandshakeClientPool otherKey = HandshakeClientPool.create(vertx, new HandshakeClientOptions()
        .setAuth(HandshakeAuth.sharedSecret("other", SECRET)));
    try {
      assertDenied(forger.getSegment(server.serverName(), Fixtures.segmentRequest(""), DEADLINE), "bad mac");
      assertDenied(otherKey.getSegment(server.serverName(), Fixtures.segmentRequest(""), DEADLINE), "unknown key id 'other'");
    } finally {
      Await.result(forger.close(), WAIT);
      Await.result(otherKey.close(), WAIT);
    }
    assertTrue(handler.received.isEmpty());
  }

  @Test
  void staleTokenIsDenied() {
    HandshakeClientPool late = HandshakeClientPool.create(vertx, new HandshakeClientOptions()
        .setAuth(HandshakeAuth.sharedSecret("cluster", SECRET).withClock(() -> System.currentTimeMillis() - 60_000)));
    try {
      assertDenied(late.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE), "stale token");
    } finally {
      Await.result(late.close(), WAIT);
    }
    assertTrue(handler.received.isEmpty());
  }

  @Test
  void replayedTokenIsDenied() {
    HandshakeAuth sniffed = HandshakeAuth.sharedSecret("cluster", SECRET);
    NotifyRequest body = Fixtures.notifyRequest(1);
    NotifyRequest captured = body.toBuilder().setAuth(sniffed.sign("Notify", body)).build();
    assertTrue(Await.result(unsigned.notify(server.serverName(), captured, DEADLINE), WAIT).getAccepted());
    assertDenied(unsigned.notify(server.serverName(), captured, DEADLINE), "replayed nonce");
    assertEquals(1, handler.received.size());
  }

  @Test
  void forgedOrMisdirectedTokenIsDenied() {
    HandshakeAuth sniffed = HandshakeAuth.sharedSecret("cluster", SECRET);
    GetSegmentRequest body = Fixtures.segmentRequest("victim");
    Auth token = sniffed.sign("GetSegment", body);
    byte[] mac = token.getMac().toByteArray();
    mac[0] ^= (byte) 0x80;
    assertDenied(unsigned.getSegment(server.serverName(),
        body.toBuilder().setAuth(token.toBuilder().setMac(ByteString.copyFrom(mac))).build(), DEADLINE), "bad mac");
    assertDenied(unsigned.getSegment(server.serverName(),
        body.toBuilder().setName("other").setAuth(token).build(), DEADLINE), "bad mac");
    ConnectRequest connect = Fixtures.connectRequest();
    assertDenied(unsigned.connect(server.serverName(),
        connect.toBuilder().setAuth(sniffed.sign("Notify", connect)).build(), DEADLINE), "bad mac");
    assertTrue(handler.received.isEmpty());
  }

  @Test
  void serverWithoutAuthIgnoresTokens() {
    HandshakeServer open = Await.result(HandshakeServer.start(vertx, new HandshakeServerOptions(), handler), WAIT);
    try {
      assertTrue(Await.result(signed.notify(open.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT).getAccepted());
      assertFalse(((NotifyRequest) handler.received.get(0)).hasAuth());
    } finally {
      Await.result(open.close(), WAIT);
    }
  }
}

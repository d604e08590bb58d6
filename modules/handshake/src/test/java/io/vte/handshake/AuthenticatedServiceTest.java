package io.vte.handshake;

import static io.vte.handshake.LoopbackHandshake.DEADLINE;
import static io.vte.handshake.LoopbackHandshake.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.Auth;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The auth matrix over the wire: only correctly signed, fresh, unreplayed calls reach the handler.
 */
@ExtendWith(BlockedThreadGuard.class)
class AuthenticatedServiceTest {

  private static final byte[] SECRET =
      "cluster-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  @RegisterExtension
  final LoopbackHandshake loop =
      new LoopbackHandshake(
          new HandshakeServerOptions().setAuth(HandshakeAuth.sharedSecret("cluster", SECRET)));

  private HandshakeClientPool signed;
  private HandshakeClientPool unsigned;

  @BeforeEach
  void openPools() {
    signed =
        loop.newPool(
            new HandshakeClientOptions().setAuth(HandshakeAuth.sharedSecret("cluster", SECRET)));
    unsigned = loop.newPool(new HandshakeClientOptions());
  }

  private void assertDenied(Future<?> call, String why) {
    Throwable failure = Await.failure(call, WAIT);
    assertTrue(failure instanceof VteException, failure::toString);
    assertEquals(
        ErrorCode.PERMISSION_DENIED, ((VteException) failure).code(), failure.getMessage());
    assertTrue(failure.getMessage().contains(why), failure.getMessage());
  }

  @Test
  void signedCallsAreServedAndTheHandlerSeesNoToken() {
    ConnectRequest request = Fixtures.connectRequest();
    assertEquals(
        Fixtures.acceptedReply(request),
        Await.result(signed.connect(loop.serverName(), request, DEADLINE), WAIT));
    assertEquals(
        "s",
        Await.result(
                signed.getSegment(loop.serverName(), Fixtures.segmentRequest("s"), DEADLINE), WAIT)
            .getName());
    assertTrue(
        Await.result(signed.notify(loop.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT)
            .getAccepted());
    assertEquals(3, loop.handler().received.size());
    assertEquals(request, loop.handler().received.get(0));
    assertFalse(((GetSegmentRequest) loop.handler().received.get(1)).hasAuth());
    assertFalse(((NotifyRequest) loop.handler().received.get(2)).hasAuth());
  }

  @Test
  void unauthenticatedPeerLearnsNothing() {
    assertDenied(
        unsigned.connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), "no auth token");
    assertDenied(
        unsigned.getSegment(loop.serverName(), Fixtures.segmentRequest(""), DEADLINE),
        "no auth token");
    assertDenied(
        unsigned.notify(loop.serverName(), Fixtures.notifyRequest(1), DEADLINE), "no auth token");
    assertTrue(
        loop.handler().received.isEmpty(),
        "no call reached the handler, so no segment keys were served");
  }

  @Test
  void authIsCheckedBeforeValidation() {
    assertDenied(
        unsigned.connect(loop.serverName(), ConnectRequest.getDefaultInstance(), DEADLINE),
        "no auth token");
  }

  @Test
  void wrongSecretOrKeyIsDenied() {
    HandshakeClientPool forger =
        HandshakeClientPool.create(
            loop.vertx(),
            new HandshakeClientOptions()
                .setAuth(
                    HandshakeAuth.sharedSecret(
                        "cluster",
                        "guessed-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8))));
    HandshakeClientPool otherKey =
        HandshakeClientPool.create(
            loop.vertx(),
            new HandshakeClientOptions().setAuth(HandshakeAuth.sharedSecret("other", SECRET)));
    try {
      assertDenied(
          forger.getSegment(loop.serverName(), Fixtures.segmentRequest(""), DEADLINE), "bad mac");
      assertDenied(
          otherKey.getSegment(loop.serverName(), Fixtures.segmentRequest(""), DEADLINE),
          "unknown key id 'other'");
    } finally {
      Await.result(forger.close(), WAIT);
      Await.result(otherKey.close(), WAIT);
    }
    assertTrue(loop.handler().received.isEmpty());
  }

  @Test
  void staleTokenIsDenied() {
    HandshakeClientPool late =
        HandshakeClientPool.create(
            loop.vertx(),
            new HandshakeClientOptions()
                .setAuth(
                    HandshakeAuth.sharedSecret("cluster", SECRET)
                        .withClock(() -> System.currentTimeMillis() - 60_000)));
    try {
      assertDenied(
          late.connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), "stale token");
    } finally {
      Await.result(late.close(), WAIT);
    }
    assertTrue(loop.handler().received.isEmpty());
  }

  @Test
  void replayedTokenIsDenied() {
    HandshakeAuth sniffed = HandshakeAuth.sharedSecret("cluster", SECRET);
    NotifyRequest body = Fixtures.notifyRequest(1);
    NotifyRequest captured = body.toBuilder().setAuth(sniffed.sign("Notify", body)).build();
    assertTrue(
        Await.result(unsigned.notify(loop.serverName(), captured, DEADLINE), WAIT).getAccepted());
    assertDenied(unsigned.notify(loop.serverName(), captured, DEADLINE), "replayed nonce");
    assertEquals(1, loop.handler().received.size());
  }

  @Test
  void forgedOrMisdirectedTokenIsDenied() {
    HandshakeAuth sniffed = HandshakeAuth.sharedSecret("cluster", SECRET);
    GetSegmentRequest body = Fixtures.segmentRequest("victim");
    Auth token = sniffed.sign("GetSegment", body);
    byte[] mac = token.getMac().toByteArray();
    mac[0] ^= (byte) 0x80;
    assertDenied(
        unsigned.getSegment(
            loop.serverName(),
            body.toBuilder().setAuth(token.toBuilder().setMac(ByteString.copyFrom(mac))).build(),
            DEADLINE),
        "bad mac");
    assertDenied(
        unsigned.getSegment(
            loop.serverName(), body.toBuilder().setName("other").setAuth(token).build(), DEADLINE),
        "bad mac");
    ConnectRequest connect = Fixtures.connectRequest();
    assertDenied(
        unsigned.connect(
            loop.serverName(),
            connect.toBuilder().setAuth(sniffed.sign("Notify", connect)).build(),
            DEADLINE),
        "bad mac");
    assertTrue(loop.handler().received.isEmpty());
  }

  @Test
  void serverWithoutAuthIgnoresTokens() {
    HandshakeServer open =
        Await.result(
            HandshakeServer.start(loop.vertx(), new HandshakeServerOptions(), loop.handler()),
            WAIT);
    try {
      assertTrue(
          Await.result(signed.notify(open.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT)
              .getAccepted());
      assertFalse(((NotifyRequest) loop.handler().received.get(0)).hasAuth());
    } finally {
      Await.result(open.close(), WAIT);
    }
  }
}

package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.Auth;
import io.vte.handshake.proto.ConnectRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** HandshakeAuth on its own, with a fake clock. */
class HandshakeAuthTest {

  private static final byte[] SECRET =
      "0123456789abcdef-shared-secret".getBytes(StandardCharsets.UTF_8);

  private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
  private final HandshakeAuth auth = HandshakeAuth.sharedSecret("k1", SECRET).withClock(clock::get);
  private final ConnectRequest request = Fixtures.connectRequest();

  private VteException denied(
      HandshakeAuth verifier, String method, ConnectRequest body, Auth token) {
    VteException e = assertThrows(VteException.class, () -> verifier.verify(method, body, token));
    assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
    return e;
  }

  @Test
  void signedRequestVerifiesOnce() {
    Auth token = auth.sign("Connect", request);
    assertEquals("k1", token.getKeyId());
    assertEquals(16, token.getNonce().size());
    assertEquals(32, token.getMac().size());
    assertDoesNotThrow(() -> auth.verify("Connect", request, token));
    assertTrue(denied(auth, "Connect", request, token).getMessage().contains("replayed nonce"));
  }

  @Test
  void missingTokenIsDenied() {
    assertTrue(denied(auth, "Connect", request, null).getMessage().contains("no auth token"));
    assertTrue(
        denied(auth, "Connect", request, Auth.getDefaultInstance())
            .getMessage()
            .contains("no auth token"));
  }

  @Test
  void wrongKeyIdOrSecretIsDenied() {
    HandshakeAuth otherKey = HandshakeAuth.sharedSecret("k2", SECRET).withClock(clock::get);
    assertTrue(
        denied(auth, "Connect", request, otherKey.sign("Connect", request))
            .getMessage()
            .contains("unknown key id 'k2'"));
    HandshakeAuth otherSecret =
        HandshakeAuth.sharedSecret(
                "k1", "another-secret-of-32-bytes-!!!!!".getBytes(StandardCharsets.UTF_8))
            .withClock(clock::get);
    assertTrue(
        denied(auth, "Connect", request, otherSecret.sign("Connect", request))
            .getMessage()
            .contains("bad mac"));
  }

  @Test
  void staleAndFutureTokensAreDenied() {
    HandshakeAuth verifier =
        HandshakeAuth.sharedSecret("k1", SECRET).withClock(() -> clock.get() + 30_001);
    assertTrue(
        denied(verifier, "Connect", request, auth.sign("Connect", request))
            .getMessage()
            .contains("stale token"));
    HandshakeAuth behind =
        HandshakeAuth.sharedSecret("k1", SECRET).withClock(() -> clock.get() - 30_001);
    assertTrue(
        denied(behind, "Connect", request, auth.sign("Connect", request))
            .getMessage()
            .contains("stale token"));
    HandshakeAuth edge =
        HandshakeAuth.sharedSecret("k1", SECRET).withClock(() -> clock.get() + 30_000);
    assertDoesNotThrow(() -> edge.verify("Connect", request, auth.sign("Connect", request)));
  }

  @Test
  void tamperedRequestMethodOrMacIsDenied() {
    Auth token = auth.sign("Connect", request);
    ConnectRequest tampered =
        request.toBuilder().setGeneration(request.getGeneration() + 1).build();
    assertTrue(denied(auth, "Connect", tampered, token).getMessage().contains("bad mac"));
    assertTrue(denied(auth, "GetSegment", request, token).getMessage().contains("bad mac"));
    byte[] mac = token.getMac().toByteArray();
    mac[7] ^= 1;
    assertTrue(
        denied(auth, "Connect", request, token.toBuilder().setMac(ByteString.copyFrom(mac)).build())
            .getMessage()
            .contains("bad mac"));
    Auth moved = token.toBuilder().setTimestampMs(token.getTimestampMs() + 1).build();
    assertTrue(denied(auth, "Connect", request, moved).getMessage().contains("bad mac"));
    assertTrue(
        denied(
                auth,
                "Connect",
                request,
                token.toBuilder().setNonce(ByteString.copyFrom(new byte[15])).build())
            .getMessage()
            .contains("nonce must be 16 bytes: 15"));
    assertTrue(
        denied(auth, "Connect", request, token.toBuilder().setMac(ByteString.EMPTY).build())
            .getMessage()
            .contains("mac must be 32 bytes: 0"));
    assertDoesNotThrow(
        () -> auth.verify("Connect", request, token), "the genuine token still verifies");
  }

  @Test
  void noncesAreUnique() {
    Set<ByteString> nonces = new HashSet<>();
    for (int i = 0; i < 2000; i++) {
      Auth token = auth.sign("Notify", request);
      assertTrue(nonces.add(token.getNonce()));
      auth.verify("Notify", request, token);
    }
  }

  @Test
  void fullReplayCacheFailsClosedThenForgetsStaleNonces() {
    HandshakeAuth small = auth.withReplayCacheSize(3);
    for (int i = 0; i < 3; i++) {
      small.verify("Connect", request, small.sign("Connect", request));
    }
    assertTrue(
        denied(small, "Connect", request, small.sign("Connect", request))
            .getMessage()
            .contains("replay cache full"));
    clock.addAndGet(Duration.ofSeconds(31).toMillis());
    assertDoesNotThrow(
        () -> small.verify("Connect", request, small.sign("Connect", request)),
        "nonces of stale tokens are forgotten");
  }

  @Test
  void badConfigurationIsTyped() {
    VteException e =
        assertThrows(VteException.class, () -> HandshakeAuth.sharedSecret("k", new byte[15]));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(e.getMessage().contains("15 bytes"), e.getMessage());
    assertEquals(
        ErrorCode.INVALID_CONFIGURATION,
        assertThrows(VteException.class, () -> HandshakeAuth.sharedSecret("", SECRET)).code());
    assertEquals(
        ErrorCode.INVALID_CONFIGURATION,
        assertThrows(VteException.class, () -> auth.withSkew(Duration.ZERO)).code());
    assertEquals(
        ErrorCode.INVALID_CONFIGURATION,
        assertThrows(VteException.class, () -> auth.withReplayCacheSize(0)).code());
  }

  @Test
  void keysRotateWithoutAWindowOfDenials() {
    byte[] newSecret = "the-next-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    HandshakeAuth oldSigner = HandshakeAuth.sharedSecret("k1", SECRET).withClock(clock::get);
    HandshakeAuth newSigner = HandshakeAuth.sharedSecret("k2", newSecret).withClock(clock::get);
    // step 1: every node accepts k2 while still signing with k1
    HandshakeAuth step1 = auth.withAcceptedKey("k2", newSecret);
    assertEquals(Set.of("k1", "k2"), step1.acceptedKeyIds());
    assertEquals("k1", step1.sign("Connect", request).getKeyId());
    assertDoesNotThrow(() -> step1.verify("Connect", request, oldSigner.sign("Connect", request)));
    assertDoesNotThrow(() -> step1.verify("Connect", request, newSigner.sign("Connect", request)));
    // step 2: every node signs with k2 and still accepts k1
    HandshakeAuth step2 = newSigner.withAcceptedKey("k1", SECRET);
    assertEquals("k2", step2.sign("Connect", request).getKeyId());
    assertDoesNotThrow(() -> step1.verify("Connect", request, step2.sign("Connect", request)));
    assertDoesNotThrow(() -> step2.verify("Connect", request, step1.sign("Connect", request)));
    // step 3: k1 is gone
    assertTrue(
        denied(newSigner, "Connect", request, oldSigner.sign("Connect", request))
            .getMessage()
            .contains("unknown key id 'k1'"));
    // a token names its key: the right id with another key's secret is still a bad mac
    HandshakeAuth forged = HandshakeAuth.sharedSecret("k2", SECRET).withClock(clock::get);
    assertTrue(
        denied(step1, "Connect", request, forged.sign("Connect", request))
            .getMessage()
            .contains("bad mac"));
  }

  @Test
  void badAcceptedKeysAreConfigurationErrors() {
    VteException twice = assertThrows(VteException.class, () -> auth.withAcceptedKey("k1", SECRET));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, twice.code());
    assertTrue(twice.getMessage().contains("'k1' is given twice"), twice.getMessage());
    VteException shortSecret =
        assertThrows(VteException.class, () -> auth.withAcceptedKey("k2", new byte[3]));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, shortSecret.code());
    assertTrue(
        shortSecret.getMessage().contains("key 'k2'")
            && shortSecret.getMessage().contains("3 bytes"),
        shortSecret.getMessage());
    assertEquals(
        ErrorCode.INVALID_CONFIGURATION,
        assertThrows(VteException.class, () -> auth.withAcceptedKey(null, SECRET)).code());
  }

  @Test
  void acceptedKeysSurviveTheOtherCopies() {
    HandshakeAuth rotated =
        auth.withAcceptedKey("k2", SECRET)
            .withSkew(Duration.ofSeconds(5))
            .withReplayCacheSize(8)
            .withClock(clock::get);
    assertEquals(Set.of("k1", "k2"), rotated.acceptedKeyIds());
  }

  @Test
  void secretIsCopied() {
    byte[] secret = SECRET.clone();
    HandshakeAuth signer = HandshakeAuth.sharedSecret("k1", secret).withClock(clock::get);
    secret[0] ^= 1;
    assertDoesNotThrow(() -> auth.verify("Connect", request, signer.sign("Connect", request)));
  }
}

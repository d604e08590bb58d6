package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.owner.OwnerHarness.Call;
import io.vte.engine.impl.owner.OwnerHarness.Recorder;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.WcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * A refused active handshake is tried again on its owner after a growing, jittered backoff wait
 * (fake clock, fake channel, a fixed jitter), bounded by the attempt count and the deadline.
 */
class HandshakeRetryTest {

  /** nextDouble() of exactly 0.5: each wait is three quarters of its cap. */
  private static final RandomGenerator MIDDLE = () -> Long.MIN_VALUE;

  private static final Duration FIRST = Duration.ofMillis(20);
  private static final Duration MAX = Duration.ofSeconds(1);

  private static OwnerHarness harness(int maxAttempts, Duration deadline) {
    return new OwnerHarness(
        "a:1",
        OwnerHarness.config().withHandshakeDeadline(deadline),
        new HandshakeBackoff(FIRST, MAX, maxAttempts, MIDDLE));
  }

  private static void refuse(Call call) {
    call.reply().fail(new VteException(ErrorCode.PEER_UNREACHABLE, "connection refused b:1"));
  }

  /** The slice failed its handshake with the peer's own failure, PEER_UNREACHABLE. */
  private static void assertFailedUnreachable(Recorder rec, Slice s) {
    assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(s));
    assertEquals(ErrorCode.PEER_UNREACHABLE, ((VteException) rec.causes.get(s)).code());
  }

  @Test
  void aPeerThatRefusesNTimesThenAcceptsIsConnectedAfterNGrowingWaits() {
    int refusals = 4;
    OwnerHarness h = harness(8, Duration.ofSeconds(5));
    Recorder rec = new Recorder();
    List<Slice> slices = h.submit(rec, "b:1", 3);
    h.run();
    Endpoint ep = h.owner.endpoint("b:1@d0");
    List<Long> waits = new ArrayList<>();
    for (int r = 0; r < refusals; r++) {
      assertEquals(r + 1, h.channel.calls.size());
      refuse(h.channel.last());
      h.run();
      assertEquals(EndpointState.CONNECTING, ep.state(), "refusal " + r + " is not a failure");
      long wait = ep.retryAtNanos() - h.clock.now;
      assertTrue(wait > 0, "a wait is scheduled after refusal " + r);
      waits.add(wait);
      // Nothing is sent before the wait is over; the duty cycle sends it once it is.
      h.clock.now += wait - 1;
      h.run();
      assertEquals(r + 1, h.channel.calls.size(), "no retry before the wait is over");
      h.clock.now += 1;
      h.run();
      assertEquals(r + 2, h.channel.calls.size(), "retried once the wait is over");
      assertTrue(
          h.channel.last().request().getGeneration()
              > h.channel.calls.get(r).request().getGeneration(),
          "each retry has a new generation");
    }
    assertEquals(0, rec.completed(), "the slices wait on their endpoint meanwhile");
    Call accepted = h.channel.last();
    accepted.reply().complete(OwnerHarness.acceptAs(accepted.request(), 1));
    h.run();
    assertEquals(EndpointState.CONNECTED, ep.state());
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    for (Slice s : slices) {
      assertEquals(SliceStatus.OK, rec.status.get(s));
    }
    assertEquals(
        List.of(15L, 30L, 60L, 120L),
        waits.stream().map(w -> Duration.ofNanos(w).toMillis()).toList(),
        "3/4 of a cap that doubles from 20 ms");
    OwnerMetrics m = h.owner.metrics();
    assertEquals(refusals, m.handshakeRetries());
    assertEquals(refusals + 1, m.handshakeAttempts());
    assertEquals(waits.stream().mapToLong(Long::longValue).sum(), m.handshakeBackoffNanos());
    assertEquals(1, m.handshakesActive(), "one handshake, several attempts");
    assertEquals(0, m.handshakesFailed());
    assertEquals(0, rec.duplicates);
  }

  @Test
  void afterMaxAttemptsTheSlicesFailWithThePeersFailure() {
    OwnerHarness h = harness(3, Duration.ofSeconds(5));
    Recorder rec = new Recorder();
    Slice s = h.submit(rec, "b:1", 1).get(0);
    h.run();
    for (int attempt = 1; attempt <= 3; attempt++) {
      assertEquals(attempt, h.channel.calls.size());
      refuse(h.channel.last());
      h.run();
      h.clock.advance(MAX);
      h.run();
    }
    assertEquals(3, h.channel.calls.size(), "no fourth attempt");
    assertFailedUnreachable(rec, s);
    assertNull(h.owner.endpoint("b:1@d0"));
    assertTrue(h.device.liveQps().isEmpty());
    assertEquals(2, h.owner.metrics().handshakeRetries());
    assertEquals(1, h.owner.metrics().handshakesFailed());
  }

  @Test
  void aWaitThatWouldEndPastTheDeadlineFailsAtOnce() {
    // 20 ms deadline: the first wait (15 ms) fits, the second (30 ms) would not.
    OwnerHarness h = harness(8, Duration.ofMillis(20));
    Recorder rec = new Recorder();
    Slice s = h.submit(rec, "b:1", 1).get(0);
    h.run();
    refuse(h.channel.last());
    h.run();
    h.clock.advance(Duration.ofMillis(15));
    h.run();
    assertEquals(2, h.channel.calls.size());
    refuse(h.channel.last());
    h.run();
    assertFailedUnreachable(rec, s);
    assertEquals(1, h.owner.metrics().handshakeRetries());
  }

  @Test
  void onlyTransientRefusalsAreRetried() {
    OwnerHarness h = harness(8, Duration.ofSeconds(5));
    Recorder rec = new Recorder();
    Slice timedOut = h.submit(rec, "b:1", 1).get(0);
    h.run();
    h.channel.last().reply().fail(new VteException(ErrorCode.TIMED_OUT, "no reply"));
    h.run();
    assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(timedOut));

    Slice exhausted = h.submit(rec, "c:1", 1).get(0);
    h.run();
    h.channel
        .last()
        .reply()
        .complete(ConnectReply.newBuilder().setStatus(ConnectStatus.RESOURCE_EXHAUSTED).build());
    h.run();
    assertNull(rec.status.get(exhausted), "a peer out of QPs is asked again");
    h.clock.advance(MAX);
    h.run();
    Call again = h.channel.last();
    assertEquals("c:1", again.server());
    again.reply().complete(OwnerHarness.acceptAs(again.request(), 1));
    h.run();
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    assertEquals(SliceStatus.OK, rec.status.get(exhausted));
    assertEquals(1, h.owner.metrics().handshakeRetries());
  }
}

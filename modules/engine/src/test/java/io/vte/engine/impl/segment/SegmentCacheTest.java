package io.vte.engine.impl.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SegmentCacheTest {

  private static final Duration WAIT = Duration.ofSeconds(5);
  private final List<Promise<SegmentDescriptor>> lookups = new ArrayList<>();
  private final List<Promise<SegmentDescriptor>> freshLookups = new ArrayList<>();
  private final SegmentCache cache = new SegmentCache(into(lookups), into(freshLookups));

  /** A lookup that answers when the test completes the promise it adds to {@code calls}. */
  private static Function<String, Future<SegmentDescriptor>> into(
      List<Promise<SegmentDescriptor>> calls) {
    return name -> {
      Promise<SegmentDescriptor> p = Promise.promise();
      calls.add(p);
      return p.future();
    };
  }

  private static SegmentDescriptor d(long version) {
    return SegmentDescriptor.newBuilder()
        .setName("s")
        .setServerName("h:1")
        .setVersion(version)
        .build();
  }

  @Test
  void concurrentOpensShareOneLookupAndTheResultIsCached() {
    Future<PeerSegment> a = cache.open("s");
    Future<PeerSegment> b = cache.open("s");
    assertEquals(1, lookups.size());
    lookups.get(0).complete(d(1));
    assertSame(Await.result(a, WAIT), Await.result(b, WAIT));
    assertSame(Await.result(a, WAIT), Await.result(cache.open("s"), WAIT));
    assertEquals(1, lookups.size());
  }

  @Test
  void failuresAreNotCached() {
    Future<PeerSegment> a = cache.open("s");
    lookups.get(0).fail(new VteException(ErrorCode.SEGMENT_NOT_FOUND, "no s"));
    assertEquals(ErrorCode.SEGMENT_NOT_FOUND, ((VteException) Await.failure(a, WAIT)).code());
    cache.open("s");
    assertEquals(2, lookups.size());
  }

  @Test
  void refreshReplacesOnlyTheStaleSegmentOnce() {
    Future<PeerSegment> first = cache.open("s");
    lookups.get(0).complete(d(1));
    PeerSegment v1 = Await.result(first, WAIT);
    Future<PeerSegment> r1 = cache.refresh(v1);
    Future<PeerSegment> r2 = cache.refresh(v1);
    assertEquals(
        1, freshLookups.size(), "two refreshes of the same stale segment share one lookup");
    assertEquals(1, lookups.size(), "a refresh bypasses the store's cache");
    freshLookups.get(0).complete(d(2));
    PeerSegment v2 = Await.result(r1, WAIT);
    assertSame(v2, Await.result(r2, WAIT));
    assertEquals(2, v2.version());
    assertSame(
        v2,
        Await.result(cache.refresh(v1), WAIT),
        "a refresh of an older segment returns the newer one");
    assertEquals(1, freshLookups.size());
    assertNotSame(v1, v2);
    assertSame(v2, cache.newest(v1), "the newest cached descriptor, by version");
    assertSame(v2, cache.newest(v2));

    Future<PeerSegment> r3 = cache.refresh(v2);
    assertEquals(2, freshLookups.size(), "a refresh of the newest descriptor looks it up again");
    freshLookups.get(1).complete(d(3));
    PeerSegment v3 = Await.result(r3, WAIT);
    assertEquals(3, v3.version());
    assertSame(
        v3, Await.result(cache.refresh(v1), WAIT), "an older handle gets the newest descriptor");
    assertSame(v3, Await.result(cache.open("s"), WAIT), "re-opening returns the newest descriptor");
    assertEquals(1, lookups.size());
    assertEquals(2, freshLookups.size());
    cache.invalidate("s");
    cache.open("s");
    assertEquals(2, lookups.size());
  }

  /**
   * A peer that died makes a refresh fail: the descriptor cached before stays, so a kept handle
   * older than it still resolves against it (a range the peer registered after a restart).
   */
  @Test
  void aFailedRefreshKeepsTheDescriptorCachedBefore() {
    Future<PeerSegment> first = cache.open("s");
    lookups.get(0).complete(d(1));
    PeerSegment v1 = Await.result(first, WAIT);
    Future<PeerSegment> r = cache.refresh(v1);
    freshLookups.get(0).complete(d(2));
    PeerSegment v2 = Await.result(r, WAIT);
    Future<PeerSegment> failed = cache.refresh(v2);
    freshLookups.get(1).fail(new VteException(ErrorCode.PEER_UNREACHABLE, "refused"));
    assertEquals(ErrorCode.PEER_UNREACHABLE, ((VteException) Await.failure(failed, WAIT)).code());
    assertSame(v2, cache.newest(v1), "the last good descriptor stays cached");
    assertSame(v2, Await.result(cache.open("s"), WAIT));
    assertEquals(1, lookups.size());
  }
}

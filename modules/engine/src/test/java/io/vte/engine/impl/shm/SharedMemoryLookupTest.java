package io.vte.engine.impl.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** When a store's descriptor is completed by the owner's own copy, and when it stands. */
class SharedMemoryLookupTest {

  private static final HostIdentity HOST = new HostIdentity("boot-1", 1000, 42);

  private final List<String> asked = new ArrayList<>();

  private SharedMemoryLookup lookup(Function<String, Future<SegmentDescriptor>> owner) {
    return new SharedMemoryLookup(
        HOST,
        (server, request) -> {
          assertEquals(GetSegmentRequest.getDefaultInstance(), request, "the node's own segment");
          asked.add(server);
          return owner.apply(server);
        });
  }

  private static SegmentDescriptor stored(String bootId, int uid, long version) {
    return SegmentDescriptor.newBuilder()
        .setName("store")
        .setServerName("10.0.0.1:7000")
        .setVersion(version)
        .setShmBootId(bootId)
        .setShmUid(uid)
        .build();
  }

  private static SegmentDescriptor own(String name, long version) {
    return SegmentDescriptor.newBuilder().setName(name).setVersion(version).build();
  }

  @Test
  void aDescriptorOfThisHostAndUserIsCompletedByTheOwnersCopy() {
    SegmentDescriptor own = own("store", 5);
    SegmentDescriptor got =
        lookup(s -> Future.succeededFuture(own)).complete(stored("boot-1", 1000, 5)).result();
    assertSame(own, got);
    assertEquals(List.of("10.0.0.1:7000"), asked);
  }

  @Test
  void anotherHostAnotherUserOrNoMarkAskNobody() {
    SharedMemoryLookup l = lookup(s -> Future.succeededFuture(own("store", 9)));
    for (SegmentDescriptor d :
        List.of(stored("boot-2", 1000, 5), stored("boot-1", 1001, 5), stored("", 0, 5))) {
      assertSame(d, l.complete(d).result(), d.toString());
    }
    assertEquals(List.of(), asked);
  }

  @Test
  void theStoresCopyStandsWhenTheOwnerFailsAnswersOlderOrForAnotherSegment() {
    SegmentDescriptor d = stored("boot-1", 1000, 5);
    assertSame(
        d,
        lookup(s -> Future.failedFuture(new VteException(ErrorCode.PERMISSION_DENIED, "no")))
            .complete(d)
            .result());
    assertSame(d, lookup(s -> Future.succeededFuture(own("store", 4))).complete(d).result());
    assertSame(d, lookup(s -> Future.succeededFuture(own("other", 6))).complete(d).result());
  }

  @Test
  void aroundCompletesWhatTheLookupFinds() {
    SegmentDescriptor own = own("store", 6);
    Function<String, Future<SegmentDescriptor>> l =
        lookup(s -> Future.succeededFuture(own))
            .around(name -> Future.succeededFuture(stored("boot-1", 1000, 5)));
    assertSame(own, l.apply("store").result());
  }
}

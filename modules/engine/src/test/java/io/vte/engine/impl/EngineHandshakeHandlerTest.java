package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.VteException;
import io.vte.engine.impl.notify.NotificationDispatcher;
import io.vte.engine.impl.owner.PassiveConnectHandler;
import io.vte.engine.impl.push.DeviceStateFeed;
import io.vte.engine.impl.segment.FakeDeviceMemory;
import io.vte.engine.impl.segment.LocalDescriptorBuilder;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BlockedThreadGuard.class)
class EngineHandshakeHandlerTest {

  private static final Duration WAIT = Duration.ofSeconds(5);
  private final Vertx vertx = Vertx.vertx();
  private final EngineHandshakeHandler handler = new EngineHandshakeHandler();

  @AfterEach
  void close() {
    Await.result(vertx.close(), WAIT);
  }

  private void bind(NotificationDispatcher n) {
    MemoryRegistry memory = new MemoryRegistry(new FakeDeviceMemory(1), () -> {});
    memory.register(0x1000, 64, "cpu:0");
    handler.bind(
        new PassiveConnectHandler(List.of()),
        new LocalDescriptorBuilder(
            "h:1",
            "soft",
            List.of("d0"),
            i ->
                new PortAttributes(
                    1, PortState.ACTIVE, 1024, 1, Gid.ZERO, 0, LinkLayer.values()[0]),
            memory),
        n,
        new DeviceStateFeed(vertx, "h:1", 1, List.of("d0")));
  }

  @Test
  void beforeBindingConnectIsRefusedAndSegmentsAreUnknown() {
    assertEquals(
        ConnectStatus.UNKNOWN_DEVICE,
        Await.result(handler.connect(ConnectRequest.getDefaultInstance()), WAIT).getStatus());
    assertEquals(
        ErrorCode.SEGMENT_NOT_FOUND,
        ((VteException)
                Await.failure(handler.getSegment(GetSegmentRequest.getDefaultInstance()), WAIT))
            .code());
    assertFalse(
        Await.result(handler.notify(NotifyRequest.getDefaultInstance()), WAIT).getAccepted());
  }

  @Test
  void servesItsOwnSegmentByEmptyNameOrServerName() {
    bind(new NotificationDispatcher(vertx.getOrCreateContext(), 16, 1000, 1));
    assertEquals(
        1,
        Await.result(handler.getSegment(GetSegmentRequest.getDefaultInstance()), WAIT)
            .getBuffersCount());
    assertEquals(
        "h:1",
        Await.result(
                handler.getSegment(GetSegmentRequest.newBuilder().setName("h:1").build()), WAIT)
            .getServerName());
    VteException e =
        (VteException)
            Await.failure(
                handler.getSegment(GetSegmentRequest.newBuilder().setName("other").build()), WAIT);
    assertEquals(ErrorCode.SEGMENT_NOT_FOUND, e.code());
    assertTrue(e.getMessage().contains("'other'"));
    assertEquals(
        ConnectStatus.UNKNOWN_DEVICE,
        Await.result(
                handler.connect(ConnectRequest.newBuilder().setPeerNicPath("h:1@nope").build()),
                WAIT)
            .getStatus());
  }

  @Test
  void notificationsAreDispatchedOnceAndRefusedWhenClosing() {
    List<Notification> got = new CopyOnWriteArrayList<>();
    NotificationDispatcher n = new NotificationDispatcher(vertx.getOrCreateContext(), 16, 1000, 1);
    n.handler(got::add);
    bind(n);
    NotifyRequest r =
        NotifyRequest.newBuilder()
            .setFrom("p:2")
            .setTopic("t")
            .setSequence(1)
            .setPayload(ByteString.copyFromUtf8("hi"))
            .build();
    NotifyReply first = Await.result(handler.notify(r), WAIT);
    assertTrue(first.getAccepted());
    assertFalse(first.getDuplicate());
    NotifyReply resent = Await.result(handler.notify(r), WAIT);
    assertTrue(resent.getAccepted(), "a resent copy is answered as received");
    assertTrue(resent.getDuplicate(), "and flagged a duplicate");
    assertFalse(
        Await.result(handler.notify(r.toBuilder().setSequence(2).setSenderEpoch(-1).build()), WAIT)
            .getAccepted(),
        "a dead incarnation's message is refused");
    Await.untilEquals("delivered", WAIT, 1, got::size);
    assertEquals("hi", got.get(0).payload().toString());
    assertEquals(1, n.duplicatesDropped());
    handler.closing();
    assertFalse(
        Await.result(handler.notify(r.toBuilder().setSequence(2).build()), WAIT).getAccepted());
    assertEquals(
        ConnectStatus.SHUTTING_DOWN,
        Await.result(handler.connect(ConnectRequest.getDefaultInstance()), WAIT).getStatus());
  }
}

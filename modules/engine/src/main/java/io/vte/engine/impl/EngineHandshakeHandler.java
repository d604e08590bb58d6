package io.vte.engine.impl;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.VteException;
import io.vte.engine.impl.notify.NotificationDispatcher;
import io.vte.engine.impl.notify.NotificationDispatcher.Arrival;
import io.vte.engine.impl.owner.PassiveConnectHandler;
import io.vte.engine.impl.push.DeviceStateFeed;
import io.vte.engine.impl.segment.LocalDescriptorBuilder;
import io.vte.handshake.HandshakeHandler;
import io.vte.handshake.PushStream;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.WatchDevicesRequest;

/**
 * Answers the engine's handshake service: Connect goes to the owner layer, GetSegment returns this
 * node's descriptor, Notify goes to the notification dispatcher (a duplicate is answered as
 * accepted, flagged {@code duplicate}, so the resending sender stops), WatchDevices streams this
 * node's device states. The server starts before the local devices open (their NIC paths need its
 * server name), so the parts are bound once ready; until then Connect is refused with
 * UNKNOWN_DEVICE, GetSegment with SEGMENT_NOT_FOUND and WatchDevices with UNAVAILABLE (the watcher
 * tries again).
 */
public final class EngineHandshakeHandler implements HandshakeHandler {

  private static final NotifyReply ACCEPTED = NotifyReply.newBuilder().setAccepted(true).build();
  private static final NotifyReply DUPLICATE =
      NotifyReply.newBuilder().setAccepted(true).setDuplicate(true).build();
  private static final NotifyReply REFUSED = NotifyReply.newBuilder().setAccepted(false).build();

  private volatile PassiveConnectHandler passive;
  private volatile LocalDescriptorBuilder descriptor;
  private volatile NotificationDispatcher notifications;
  private volatile DeviceStateFeed devices;
  private volatile boolean closing;

  /**
   * @param passive the owner layer's passive side
   * @param descriptor this node's descriptor
   * @param notifications incoming notification ordering
   * @param devices this node's device states, streamed to watchers
   */
  public void bind(
      PassiveConnectHandler passive,
      LocalDescriptorBuilder descriptor,
      NotificationDispatcher notifications,
      DeviceStateFeed devices) {
    this.devices = devices;
    this.descriptor = descriptor;
    this.notifications = notifications;
    this.passive = passive;
  }

  /** Refuses new connects from now on (engine closing). */
  public void closing() {
    closing = true;
  }

  @Override
  public Future<ConnectReply> connect(ConnectRequest request) {
    PassiveConnectHandler p = passive;
    if (closing || p == null) {
      return Future.succeededFuture(
          ConnectReply.newBuilder()
              .setStatus(closing ? ConnectStatus.SHUTTING_DOWN : ConnectStatus.UNKNOWN_DEVICE)
              .setReason(
                  closing ? "engine is closing" : "engine is starting: no device is open yet")
              .build());
    }
    return p.connect(request);
  }

  @Override
  public Future<SegmentDescriptor> getSegment(GetSegmentRequest request) {
    LocalDescriptorBuilder d = descriptor;
    if (d == null) {
      return Future.failedFuture(
          new VteException(ErrorCode.SEGMENT_NOT_FOUND, "engine is starting"));
    }
    String asked = request.getName();
    // p2p peers ask by server name; others may ask by the logical segment name.
    if (!asked.isEmpty() && !asked.equals(d.segmentName()) && !asked.equals(d.serverName())) {
      return Future.failedFuture(
          new VteException(
              ErrorCode.SEGMENT_NOT_FOUND,
              "this node serves segment '" + d.segmentName() + "', not '" + asked + "'"));
    }
    return Future.succeededFuture(d.buildForPeer());
  }

  @Override
  public Future<NotifyReply> notify(NotifyRequest request) {
    NotificationDispatcher n = notifications;
    if (n == null || closing) {
      return Future.succeededFuture(NotifyReply.newBuilder().setAccepted(false).build());
    }
    Arrival arrival =
        n.accept(
            new Notification(
                request.getFrom(),
                request.getTopic(),
                Buffer.buffer(request.getPayload().toByteArray()),
                request.getSequence()),
            request.getSenderEpoch());
    return Future.succeededFuture(
        arrival == Arrival.ACCEPTED
            ? ACCEPTED
            : arrival == Arrival.DUPLICATE ? DUPLICATE : REFUSED);
  }

  @Override
  public void watchDevices(WatchDevicesRequest request, PushStream<DeviceStates> stream) {
    DeviceStateFeed d = devices;
    if (d == null) {
      stream.fail(new VteException(ErrorCode.METADATA_UNAVAILABLE, "engine is starting"));
      return;
    }
    d.watch(request, stream);
  }
}

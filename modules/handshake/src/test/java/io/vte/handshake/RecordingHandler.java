package io.vte.handshake;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** A handler that records what reaches it and answers with replaceable behaviours. */
final class RecordingHandler implements HandshakeHandler {

  final List<Object> received = new CopyOnWriteArrayList<>();
  final List<Context> contexts = new CopyOnWriteArrayList<>();
  volatile Function<ConnectRequest, Future<ConnectReply>> onConnect =
      r -> Future.succeededFuture(Fixtures.acceptedReply(r));
  volatile Function<GetSegmentRequest, Future<SegmentDescriptor>> onGetSegment =
      r -> Future.succeededFuture(Fixtures.segment(r.getName()));
  volatile Function<NotifyRequest, Future<NotifyReply>> onNotify =
      r -> Future.succeededFuture(NotifyReply.newBuilder().setAccepted(true).build());

  @Override
  public Future<ConnectReply> connect(ConnectRequest request) {
    record(request);
    return onConnect.apply(request);
  }

  @Override
  public Future<SegmentDescriptor> getSegment(GetSegmentRequest request) {
    record(request);
    return onGetSegment.apply(request);
  }

  @Override
  public Future<NotifyReply> notify(NotifyRequest request) {
    record(request);
    return onNotify.apply(request);
  }

  private void record(Object request) {
    received.add(request);
    contexts.add(Vertx.currentContext());
  }
}

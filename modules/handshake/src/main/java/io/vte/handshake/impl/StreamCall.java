package io.vte.handshake.impl;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vte.handshake.PushStream;
import java.util.Set;

/**
 * One server-streaming call on the server: takes one request message, then carries the handler's
 * messages until either side ends it; every step runs on the call's own context. A watcher whose
 * write queue is full is cut off rather than buffered without bound.
 *
 * @param <Req> request type
 * @param <Resp> message type
 */
final class StreamCall<Req, Resp> implements PushStream<Resp>, CallAnswer {

  private final Context context;
  private final GrpcServerRequest<Req, Resp> request;
  private final Set<StreamCall<?, ?>> active;
  private boolean ended;
  private Runnable closeHandler;

  StreamCall(Context context, GrpcServerRequest<Req, Resp> request, Set<StreamCall<?, ?>> active) {
    this.context = context;
    this.request = request;
    this.active = active;
    active.add(this);
  }

  @Override
  public void send(Resp message) {
    onContext(
        () -> {
          if (ended) {
            return;
          }
          if (request.response().writeQueueFull()) {
            fail(GrpcStatus.RESOURCE_EXHAUSTED, "the watcher does not read its stream");
            return;
          }
          try {
            request.response().write(message).onFailure(streamGone -> abandon());
          } catch (IllegalStateException streamGone) {
            abandon();
          }
        });
  }

  @Override
  public void end() {
    onContext(
        () -> {
          if (finish()) {
            write(() -> request.response().end());
          }
        });
  }

  @Override
  public void fail(Throwable failure) {
    failWith(failure);
  }

  @Override
  public void fail(GrpcStatus status, String message) {
    onContext(
        () -> {
          if (finish()) {
            write(() -> request.response().status(status).statusMessage(message).end());
          }
        });
  }

  @Override
  public PushStream<Resp> closeHandler(Runnable handler) {
    onContext(
        () -> {
          if (ended) {
            handler.run();
          } else {
            closeHandler = handler;
          }
        });
    return this;
  }

  /** Gives up without answering: the watcher reset the stream or the server is closing. */
  void abandon() {
    onContext(this::finish);
  }

  private boolean finish() {
    if (ended) {
      return false;
    }
    ended = true;
    active.remove(this);
    Runnable handler = closeHandler;
    closeHandler = null;
    if (handler != null) {
      handler.run();
    }
    return true;
  }

  private void onContext(Runnable step) {
    if (Vertx.currentContext() == context) {
      step.run();
    } else {
      context.runOnContext(v -> step.run());
    }
  }

  private static void write(Runnable answer) {
    try {
      answer.run();
    } catch (IllegalStateException streamGone) {
      // The watcher is gone: nothing to tell it.
    }
  }
}

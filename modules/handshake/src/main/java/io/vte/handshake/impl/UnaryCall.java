package io.vte.handshake.impl;

import com.google.protobuf.MessageLite;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * One unary call on the server: answers it exactly once (reply, handler failure, invalid input or
 * deadline), on the call's own context, and releases its deadline timer.
 *
 * @param <Req> request type
 * @param <Resp> reply type
 */
final class UnaryCall<Req, Resp> implements CallAnswer {

  private final Vertx vertx;
  private final Context context;
  private final GrpcServerRequest<Req, Resp> request;
  private final Set<UnaryCall<?, ?>> active;
  private final int maxReplySize;
  private final AtomicBoolean answered = new AtomicBoolean();
  private final Predicate<String> losesAnswer;
  private final long deadlineTimer;

  UnaryCall(
      Vertx vertx,
      Context context,
      GrpcServerRequest<Req, Resp> request,
      Set<UnaryCall<?, ?>> active,
      int maxReplySize,
      long maxCallMs,
      Predicate<String> losesAnswer) {
    this.vertx = vertx;
    this.losesAnswer = losesAnswer;
    this.maxReplySize = maxReplySize;
    this.context = context;
    this.request = request;
    this.active = active;
    active.add(this);
    long callerMs = request.timeout();
    long timeoutMs = callerMs > 0 ? Math.min(callerMs, maxCallMs) : maxCallMs;
    deadlineTimer =
        vertx.setTimer(
            timeoutMs,
            id ->
                fail(
                    GrpcStatus.DEADLINE_EXCEEDED,
                    "no answer within "
                        + timeoutMs
                        + " ms (caller deadline "
                        + (callerMs > 0 ? callerMs + " ms" : "none")
                        + ")"));
  }

  /** Answers with the handler's outcome, hopping to the call's context when needed. */
  void complete(AsyncResult<Resp> outcome) {
    if (Vertx.currentContext() != context) {
      context.runOnContext(v -> complete(outcome));
      return;
    }
    if (outcome.failed()) {
      failWith(outcome.cause());
    } else if (outcome.result() == null) {
      fail(GrpcStatus.INTERNAL, "the handler returned no reply");
    } else if (outcome.result() instanceof MessageLite reply
        && reply.getSerializedSize() > maxReplySize) {
      fail(
          GrpcStatus.INTERNAL,
          "the handler's reply of "
              + reply.getSerializedSize()
              + " bytes exceeds maxMessageSize "
              + maxReplySize);
    } else if (finish()) {
      if (losesAnswer.test(request.methodName())) {
        request.connection().close();
      } else {
        write(() -> request.response().end(outcome.result()));
      }
    }
  }

  /** Answers with a status and message, unless already answered. */
  @Override
  public void fail(GrpcStatus status, String message) {
    if (Vertx.currentContext() != context) {
      context.runOnContext(v -> fail(status, message));
      return;
    }
    if (finish()) {
      write(() -> request.response().status(status).statusMessage(message).end());
    }
  }

  /** Writes the answer; a stream the caller already reset (e.g. at its deadline) takes none. */
  private static void write(Runnable answer) {
    try {
      answer.run();
    } catch (IllegalStateException streamGone) {
      // The caller is gone: nothing to tell it.
    }
  }

  /** Gives up without answering: the caller reset the stream or the server is closing. */
  void abandon() {
    finish();
  }

  private boolean finish() {
    if (!answered.compareAndSet(false, true)) {
      return false;
    }
    vertx.cancelTimer(deadlineTimer);
    active.remove(this);
    return true;
  }
}

package io.vte.handshake.impl;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.MessageSizeOverflowException;
import io.vertx.grpc.common.WireFormat;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeAuth;
import io.vte.handshake.PushStream;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Turns a handler method into a gRPC call handler that authenticates (when auth is on), then
 * validates, then calls the handler, and answers each call once with a typed status; a
 * server-streaming method gets the same checks on its one request, then a {@link PushStream}.
 */
public final class HandshakeCalls {

  private final Vertx vertx;
  private final HandshakeAuth auth;
  private final int maxMessageSize;
  private final long maxCallMs;
  private static final String IDENTITY = "identity";

  private final Set<UnaryCall<?, ?>> active = ConcurrentHashMap.newKeySet();
  private final Set<StreamCall<?, ?>> streams = ConcurrentHashMap.newKeySet();
  private final Predicate<String> losesAnswer;

  /**
   * @param vertx the server's Vert.x
   * @param auth the auth every request must carry, or null
   * @param maxMessageSize the largest reply sent, in bytes
   * @param maxCallMs the longest a call may stay unanswered, whatever its caller's deadline
   * @param losesAnswer given a method name, true when the answer of this call is to be lost (an
   *     injected fault: the connection is closed instead of answering)
   */
  public HandshakeCalls(
      Vertx vertx,
      HandshakeAuth auth,
      int maxMessageSize,
      long maxCallMs,
      Predicate<String> losesAnswer) {
    this.maxCallMs = maxCallMs;
    this.losesAnswer = losesAnswer;
    this.vertx = vertx;
    this.auth = auth;
    this.maxMessageSize = maxMessageSize;
  }

  /**
   * @param method the gRPC method name (what auth tokens sign)
   * @param prototype the request type's default instance (its descriptor and parser)
   * @param validate throws INVALID_ARGUMENT for a bad request
   * @param handler what answers a good request
   * @param <Req> request type
   * @param <Resp> reply type
   * @return the call handler to bind to the method
   */
  public <Req extends Message, Resp> Handler<GrpcServerRequest<Req, Resp>> unary(
      String method, Req prototype, Consumer<Req> validate, Function<Req, Future<Resp>> handler) {
    return request -> {
      UnaryCall<Req, Resp> call =
          new UnaryCall<>(
              vertx,
              Vertx.currentContext(),
              request,
              active,
              maxMessageSize,
              maxCallMs,
              losesAnswer);
      request.exceptionHandler(failure -> call.abandon());
      request.response().exceptionHandler(failure -> call.abandon());
      request.invalidMessageHandler(
          invalid -> {
            if (invalid instanceof MessageSizeOverflowException overflow) {
              call.fail(
                  GrpcStatus.RESOURCE_EXHAUSTED,
                  method + ": message of " + overflow.messageSize() + " bytes exceeds the limit");
            } else {
              call.fail(
                  GrpcStatus.INVALID_ARGUMENT,
                  method + ": malformed message: " + invalid.getMessage());
            }
          });
      acceptOne(
          method, request, prototype, call, req -> serve(method, req, validate, handler, call));
    };
  }

  /**
   * @param method the gRPC method name (what auth tokens sign)
   * @param prototype the request type's default instance (its descriptor and parser)
   * @param validate throws INVALID_ARGUMENT for a bad request
   * @param handler given a good request, pushes its messages to the stream and ends it when done
   * @param <Req> request type
   * @param <Resp> message type
   * @return the call handler to bind to the server-streaming method
   */
  public <Req extends Message, Resp> Handler<GrpcServerRequest<Req, Resp>> stream(
      String method,
      Req prototype,
      Consumer<Req> validate,
      BiConsumer<Req, PushStream<Resp>> handler) {
    return request -> {
      StreamCall<Req, Resp> call = new StreamCall<>(Vertx.currentContext(), request, streams);
      request.exceptionHandler(failure -> call.abandon());
      // The watcher's reset (it canceled, or its deadline passed) arrives as a gRPC error.
      request.errorHandler(error -> call.abandon());
      request.response().exceptionHandler(failure -> call.abandon());
      request.invalidMessageHandler(
          invalid -> call.fail(GrpcStatus.INVALID_ARGUMENT, method + ": " + invalid.getMessage()));
      acceptOne(
          method,
          request,
          prototype,
          call,
          req -> {
            try {
              handler.accept(checked(method, req, validate), call);
            } catch (VteException e) {
              call.fail(e);
            } catch (RuntimeException e) {
              call.fail(GrpcStatus.INTERNAL, method + ": handler threw " + e);
            }
          });
    };
  }

  /**
   * Takes the one request message of a call, unary or streaming: a call that ends without one, or
   * sends a second, fails INVALID_ARGUMENT; a message that decodes goes to {@code onRequest}.
   */
  private static <Req extends Message> void acceptOne(
      String method,
      GrpcServerRequest<Req, ?> request,
      Req prototype,
      CallAnswer call,
      Consumer<Req> onRequest) {
    @SuppressWarnings("unchecked")
    Parser<Req> parser = (Parser<Req>) prototype.getParserForType();
    boolean[] received = {false};
    request.endHandler(
        v -> {
          if (!received[0]) {
            call.fail(GrpcStatus.INVALID_ARGUMENT, method + ": no request message");
          }
        });
    request.messageHandler(
        message -> {
          if (received[0]) {
            call.fail(GrpcStatus.INVALID_ARGUMENT, method + ": more than one request message");
            return;
          }
          received[0] = true;
          Req decoded = decode(method, message, prototype.getDescriptorForType(), parser, call);
          if (decoded != null) {
            onRequest.accept(decoded);
          }
        });
  }

  /** Decodes a protobuf request ourselves, so every malformed input gets a typed status. */
  private static <Req> Req decode(
      String method, GrpcMessage message, Descriptor type, Parser<Req> parser, CallAnswer call) {
    if (!IDENTITY.equals(message.encoding())) {
      call.fail(
          GrpcStatus.UNIMPLEMENTED,
          method + ": compressed messages are not supported: " + message.encoding());
      return null;
    }
    if (message.format() != WireFormat.PROTOBUF) {
      call.fail(
          GrpcStatus.INVALID_ARGUMENT,
          method + ": only the protobuf wire format is served, not " + message.format());
      return null;
    }
    byte[] bytes = message.payload().getBytes();
    try {
      WireLimits.check(type, bytes);
      return parser.parseFrom(bytes);
    } catch (VteException e) {
      call.fail(GrpcStatus.INVALID_ARGUMENT, method + ": " + e.getMessage());
      return null;
    } catch (InvalidProtocolBufferException e) {
      call.fail(GrpcStatus.INVALID_ARGUMENT, method + ": malformed message: " + e.getMessage());
      return null;
    }
  }

  private <Req extends Message, Resp> void serve(
      String method,
      Req message,
      Consumer<Req> validate,
      Function<Req, Future<Resp>> handler,
      UnaryCall<Req, Resp> call) {
    Future<Resp> reply;
    try {
      reply = handler.apply(checked(method, message, validate));
    } catch (VteException e) {
      call.failWith(e);
      return;
    } catch (RuntimeException e) {
      call.fail(GrpcStatus.INTERNAL, method + ": handler threw " + e);
      return;
    }
    if (reply == null) {
      call.fail(GrpcStatus.INTERNAL, method + ": handler returned no future");
    } else {
      reply.onComplete(call::complete);
    }
  }

  /**
   * @return the request without its token, authenticated (when auth is on) and validated
   * @throws VteException PERMISSION_DENIED or INVALID_ARGUMENT naming why
   */
  private <Req extends Message> Req checked(String method, Req message, Consumer<Req> validate) {
    Req clean = AuthField.cleared(message);
    if (auth != null) {
      auth.verify(method, clean, AuthField.of(message));
    }
    validate.accept(clean);
    return clean;
  }

  /**
   * @return how many calls are waiting for their answer
   */
  public int activeCalls() {
    return active.size();
  }

  /**
   * @return how many server-streaming calls are open
   */
  public int openStreams() {
    return streams.size();
  }

  /**
   * Abandons every unanswered call and cancels its deadline timer, and ends every open stream; used
   * when the server closes.
   */
  public void abandonAll() {
    for (UnaryCall<?, ?> call : new ArrayList<>(active)) {
      call.abandon();
    }
    for (StreamCall<?, ?> call : new ArrayList<>(streams)) {
      call.fail(GrpcStatus.UNAVAILABLE, "the server is closing");
    }
  }
}

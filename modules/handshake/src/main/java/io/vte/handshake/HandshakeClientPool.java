package io.vte.handshake;

import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.ServiceMethod;
import io.vte.api.ErrorCode;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;
import io.vte.handshake.impl.AuthField;
import io.vte.handshake.impl.StatusMapping;
import io.vte.handshake.impl.TlsSetup;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.HandshakeGrpcClient;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.WatchDevicesRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The handshake client of an engine: one shared Vert.x gRPC client (HTTP/2 connections multiplexed
 * per peer) and a cache of parsed peer addresses. Thread-safe.
 *
 * <p>Every call has a deadline (the per-call one, or the options' default). Futures complete on the
 * caller's Vert.x context when called from one. Failures are {@link VteException}s:
 * INVALID_ARGUMENT (bad server name or request), PEER_UNREACHABLE, TIMED_OUT, PERMISSION_DENIED,
 * SEGMENT_NOT_FOUND, PROTOCOL_ERROR (malformed reply), ENGINE_CLOSED (pool closed). A ConnectReply
 * with a reject status is a normal reply.
 */
public final class HandshakeClientPool {

  private static final int MAX_CACHED_ADDRESSES = 4096;
  private static final int IDLE_TIMEOUT_SECONDS = 60;
  private static final int STREAMS_PER_CONNECTION = 100;

  private final Vertx vertx;
  private final HandshakeClientOptions options;
  private final GrpcClient client;
  private final Map<String, SocketAddress> addresses = new ConcurrentHashMap<>();
  private final Set<Promise<?>> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private HandshakeClientPool(Vertx vertx, HandshakeClientOptions options, GrpcClient client) {
    this.vertx = vertx;
    this.options = options;
    this.client = client;
  }

  /**
   * @param vertx the Vert.x instance
   * @param options deadline, auth, TLS trust and limits
   * @return a new pool; close it when done
   * @throws VteException INVALID_CONFIGURATION for TLS options without a trust path or with half a
   *     client certificate
   */
  public static HandshakeClientPool create(Vertx vertx, HandshakeClientOptions options) {
    Objects.requireNonNull(vertx, "vertx");
    Objects.requireNonNull(options, "options");
    HttpClientOptions http =
        new HttpClientOptions()
            .setProtocolVersion(HttpVersion.HTTP_2)
            .setHttp2ClearTextUpgrade(false)
            .setConnectTimeout(
                (int) Math.min(Integer.MAX_VALUE, options.getDefaultDeadline().toMillis()))
            .setIdleTimeout(IDLE_TIMEOUT_SECONDS)
            // Stay under the server's stream limit from the first request on (before its SETTINGS
            // arrive);
            // beyond it, requests wait for a free stream instead of being refused.
            .setHttp2MultiplexingLimit(STREAMS_PER_CONNECTION);
    TlsOptions tls = options.getTls();
    if (tls != null) {
      TlsSetup.applyToClient(tls, http);
    }
    GrpcClientOptions grpc =
        new GrpcClientOptions()
            .setMaxMessageSize(options.getMaxMessageSize())
            .setScheduleDeadlineAutomatically(true);
    return new HandshakeClientPool(vertx, options, GrpcClient.client(vertx, grpc, http));
  }

  /**
   * Sends a Connect request.
   *
   * @param serverName the peer's {@code host:port}
   * @param request the requester's side of the endpoint
   * @param deadline how long to wait, or null for the default
   * @return the peer's reply (possibly a reject status), or a typed failure
   */
  public Future<ConnectReply> connect(
      String serverName, ConnectRequest request, Duration deadline) {
    return call(
        serverName,
        "Connect",
        HandshakeGrpcClient.Connect,
        sign("Connect", request),
        deadline,
        HandshakeValidator::validateReply);
  }

  /**
   * Asks a peer for a segment descriptor.
   *
   * @param serverName the peer's {@code host:port}
   * @param request which segment
   * @param deadline how long to wait, or null for the default
   * @return the descriptor, or a typed failure (SEGMENT_NOT_FOUND when the peer has no such
   *     segment)
   */
  public Future<SegmentDescriptor> getSegment(
      String serverName, GetSegmentRequest request, Duration deadline) {
    return call(
        serverName,
        "GetSegment",
        HandshakeGrpcClient.GetSegment,
        sign("GetSegment", request),
        deadline,
        HandshakeValidator::validateReply);
  }

  /**
   * Sends a notification.
   *
   * @param serverName the peer's {@code host:port}
   * @param request the notification
   * @param deadline how long to wait, or null for the default
   * @return the peer's reply, or a typed failure
   */
  public Future<NotifyReply> notify(String serverName, NotifyRequest request, Duration deadline) {
    return call(
        serverName,
        "Notify",
        HandshakeGrpcClient.Notify,
        sign("Notify", request),
        deadline,
        reply -> {});
  }

  /**
   * Watches a peer's device states (a WatchDevices stream): {@code onStates} gets each validated
   * message in order, on an event loop, and must not block. The stream is taken as dead (TIMED_OUT)
   * when no message arrives within three heartbeat periods (the first one: within the default
   * deadline too); a malformed message ends it with PROTOCOL_ERROR.
   *
   * @param serverName the peer's {@code host:port}
   * @param request the watcher's name and heartbeat period
   * @param onStates what each message goes to
   * @return the subscription; its {@link PushSubscription#ended()} says when and why it ended
   */
  public PushSubscription watchDevices(
      String serverName, WatchDevicesRequest request, Consumer<DeviceStates> onStates) {
    Objects.requireNonNull(onStates, "onStates");
    String what = "WatchDevices to " + serverName;
    DeviceStatesWatch watch =
        new DeviceStatesWatch(
            vertx,
            what,
            request.getHeartbeatMs(),
            options.getDefaultDeadline().toMillis(),
            onStates,
            inFlight,
            failure -> transportFailure(failure, what));
    Runnable send =
        () -> {
          try {
            if (closed) {
              throw new VteException(
                  ErrorCode.ENGINE_CLOSED, what + ": the handshake client is closed");
            }
            watch.start(client, address(serverName), sign("WatchDevices", request));
          } catch (VteException e) {
            watch.fail(e);
          }
        };
    if (Context.isOnVertxThread()) {
      send.run();
    } else {
      vertx.runOnContext(v -> send.run());
    }
    return watch;
  }

  /**
   * Closes the shared client and its connections; calls in flight and later calls fail with
   * ENGINE_CLOSED.
   *
   * @return completes when the connections are closed
   */
  public Future<Void> close() {
    closed = true;
    addresses.clear();
    for (Promise<?> call : inFlight) {
      call.tryFail(
          new VteException(ErrorCode.ENGINE_CLOSED, "the handshake client closed during the call"));
    }
    return client.close();
  }

  /** Signs a request when auth is on; a request sent without auth goes as it is. */
  private <R extends Message> R sign(String method, R request) {
    HandshakeAuth auth = options.getAuth();
    if (auth == null || request == null) {
      return request;
    }
    R clean = AuthField.cleared(request);
    return AuthField.with(clean, auth.sign(method, clean));
  }

  private <Req extends MessageLite, Resp> Future<Resp> call(
      String serverName,
      String method,
      ServiceMethod<Resp, Req> serviceMethod,
      Req request,
      Duration deadline,
      Consumer<Resp> validateReply) {
    Context caller = Vertx.currentContext();
    Promise<Resp> promise = Promise.promise();
    String what = method + " to " + serverName;
    Runnable send =
        () -> {
          try {
            Objects.requireNonNull(request, "request");
            dispatch(
                address(serverName),
                what,
                serviceMethod,
                request,
                deadlineMs(deadline),
                validateReply,
                promise);
          } catch (VteException e) {
            promise.tryFail(e);
          } catch (NullPointerException e) {
            promise.tryFail(
                new VteException(ErrorCode.INVALID_ARGUMENT, what + ": " + e.getMessage()));
          }
        };
    // The call's steps must run on an event loop: driven from another thread, Vert.x 5.0.7 can drop
    // the end of a response that ended before the continuation asked for it
    // (eclipse-vertx/vert.x#6038), and the call would only end at its deadline.
    if (Context.isOnVertxThread()) {
      send.run();
    } else {
      vertx.runOnContext(v -> send.run());
    }
    return onCaller(caller, promise.future());
  }

  private <Req extends MessageLite, Resp> void dispatch(
      SocketAddress address,
      String what,
      ServiceMethod<Resp, Req> serviceMethod,
      Req request,
      long deadlineMs,
      Consumer<Resp> validateReply,
      Promise<Resp> promise) {
    if (closed) {
      throw new VteException(ErrorCode.ENGINE_CLOSED, what + ": the handshake client is closed");
    }
    int size = request.getSerializedSize();
    if (size > options.getMaxMessageSize()) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          what
              + ": request of "
              + size
              + " bytes exceeds maxMessageSize "
              + options.getMaxMessageSize());
    }
    // Our own timer covers connection setup too, which the gRPC deadline does not.
    long timer =
        vertx.setTimer(
            deadlineMs,
            id ->
                promise.tryFail(
                    new VteException(
                        ErrorCode.TIMED_OUT,
                        what + ": no reply within the deadline of " + deadlineMs + " ms")));
    inFlight.add(promise);
    promise
        .future()
        .onComplete(
            done -> {
              vertx.cancelTimer(timer);
              inFlight.remove(promise);
            });
    client
        .request(address, serviceMethod)
        .onComplete(
            requested -> {
              if (requested.failed()) {
                promise.tryFail(transportFailure(requested.cause(), what));
                return;
              }
              GrpcClientRequest<Req, Resp> grpcRequest = requested.result();
              if (promise.future().isComplete()) {
                grpcRequest.cancel();
                return;
              }
              grpcRequest.timeout(deadlineMs, TimeUnit.MILLISECONDS);
              promise
                  .future()
                  .onFailure(
                      failure -> {
                        if (failure instanceof VteException vte
                            && vte.code() == ErrorCode.TIMED_OUT) {
                          grpcRequest.cancel();
                        }
                      });
              grpcRequest.end(request);
              grpcRequest
                  .response()
                  .onComplete(
                      responded -> {
                        if (responded.failed()) {
                          promise.tryFail(transportFailure(responded.cause(), what));
                          return;
                        }
                        GrpcClientResponse<Req, Resp> response = responded.result();
                        response
                            .last()
                            .onComplete(
                                last -> {
                                  if (last.succeeded()) {
                                    accept(last.result(), validateReply, promise, what);
                                  } else if (last.cause() instanceof InvalidStatusException) {
                                    promise.tryFail(
                                        StatusMapping.fromStatus(
                                            response.status(), response.statusMessage(), what));
                                  } else {
                                    promise.tryFail(transportFailure(last.cause(), what));
                                  }
                                });
                      });
            });
  }

  private VteException transportFailure(Throwable failure, String what) {
    if (closed) {
      return new VteException(
          ErrorCode.ENGINE_CLOSED, what + ": the handshake client closed during the call", failure);
    }
    return StatusMapping.fromFailure(failure, what);
  }

  private static <Resp> void accept(
      Resp reply, Consumer<Resp> validateReply, Promise<Resp> promise, String what) {
    if (reply == null) {
      promise.tryFail(
          new VteException(ErrorCode.PROTOCOL_ERROR, what + ": the reply carried no message"));
      return;
    }
    try {
      validateReply.accept(reply);
    } catch (VteException e) {
      promise.tryFail(new VteException(e.code(), what + ": " + e.getMessage()));
      return;
    }
    promise.tryComplete(reply);
  }

  private long deadlineMs(Duration deadline) {
    Duration effective = deadline == null ? options.getDefaultDeadline() : deadline;
    if (effective.isNegative() || effective.isZero()) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "deadline must be positive: " + effective);
    }
    return Math.max(1, effective.toMillis());
  }

  private SocketAddress address(String serverName) {
    SocketAddress cached = serverName == null ? null : addresses.get(serverName);
    if (cached != null) {
      return cached;
    }
    SocketAddress parsed = ServerName.parse(serverName).toSocketAddress();
    if (addresses.size() < MAX_CACHED_ADDRESSES) {
      addresses.put(serverName, parsed);
    }
    return parsed;
  }

  /** Completes the returned future on the caller's context, when the call was made from one. */
  private static <T> Future<T> onCaller(Context caller, Future<T> result) {
    if (caller == null) {
      return result;
    }
    Promise<T> onCaller = Promise.promise();
    result.onComplete(
        outcome -> {
          if (Vertx.currentContext() == caller) {
            onCaller.handle(outcome);
          } else {
            caller.runOnContext(v -> onCaller.handle(outcome));
          }
        });
    return onCaller.future();
  }
}

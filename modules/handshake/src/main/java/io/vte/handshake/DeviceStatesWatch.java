package io.vte.handshake;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.impl.StatusMapping;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.HandshakeGrpcClient;
import io.vte.handshake.proto.WatchDevicesRequest;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One WatchDevices stream of a {@link HandshakeClientPool}, with its silence watchdog: no message
 * within three heartbeat periods (the first: within the default deadline too) ends it TIMED_OUT.
 * Its steps run on an event loop.
 */
final class DeviceStatesWatch implements PushSubscription {

  private final Vertx vertx;
  private final String what;
  private final long silenceMs;
  private final long firstMs;
  private final Consumer<DeviceStates> onStates;
  private final Function<Throwable, VteException> transportFailure;
  private final Promise<Void> ended = Promise.promise();
  private GrpcClientRequest<WatchDevicesRequest, DeviceStates> grpcRequest;
  private long watchdog = -1;

  /**
   * @param vertx runs the watchdog
   * @param what names the call in failures
   * @param heartbeatMs the heartbeat period asked for (0: the default)
   * @param deadlineMs the pool's default deadline
   * @param onStates what each validated message goes to
   * @param inFlight the pool's calls in flight, which its close fails
   * @param transportFailure maps a transport failure to a typed one
   */
  DeviceStatesWatch(
      Vertx vertx,
      String what,
      int heartbeatMs,
      long deadlineMs,
      Consumer<DeviceStates> onStates,
      Set<Promise<?>> inFlight,
      Function<Throwable, VteException> transportFailure) {
    this.vertx = vertx;
    this.what = what;
    this.onStates = onStates;
    this.transportFailure = transportFailure;
    this.silenceMs =
        3L * (heartbeatMs == 0 ? HandshakeValidator.DEFAULT_HEARTBEAT_MS : heartbeatMs);
    this.firstMs = Math.max(silenceMs, deadlineMs);
    inFlight.add(ended);
    ended
        .future()
        .onComplete(
            done -> {
              inFlight.remove(ended);
              vertx.runOnContext(
                  v -> {
                    vertx.cancelTimer(watchdog);
                    if (grpcRequest != null && done.failed()) {
                      grpcRequest.cancel();
                    }
                  });
            });
  }

  /** Starts the call; runs on an event loop. */
  void start(GrpcClient client, SocketAddress address, WatchDevicesRequest request) {
    arm(firstMs);
    client
        .request(address, HandshakeGrpcClient.WatchDevices)
        .onComplete(
            requested -> {
              if (requested.failed()) {
                fail(transportFailure.apply(requested.cause()));
                return;
              }
              grpcRequest = requested.result();
              if (ended.future().isComplete()) {
                grpcRequest.cancel();
                return;
              }
              grpcRequest.end(request);
              grpcRequest
                  .response()
                  .onComplete(
                      responded -> {
                        if (responded.failed()) {
                          fail(transportFailure.apply(responded.cause()));
                        } else {
                          read(responded.result());
                        }
                      });
            });
  }

  private void read(GrpcClientResponse<WatchDevicesRequest, DeviceStates> response) {
    response.handler(
        states -> {
          try {
            HandshakeValidator.validateReply(states);
          } catch (VteException e) {
            fail(new VteException(e.code(), what + ": " + e.getMessage()));
            return;
          }
          if (!ended.future().isComplete()) {
            arm(silenceMs);
            onStates.accept(states);
          }
        });
    response.exceptionHandler(failure -> fail(transportFailure.apply(failure)));
    response.endHandler(
        v -> {
          if (response.status() == null || response.status().code == 0) {
            ended.tryComplete();
          } else {
            fail(StatusMapping.fromStatus(response.status(), response.statusMessage(), what));
          }
        });
  }

  /** (Re)starts the silence watchdog: no message within {@code ms} ends the stream. */
  private void arm(long ms) {
    vertx.cancelTimer(watchdog);
    watchdog =
        vertx.setTimer(
            ms,
            id ->
                fail(
                    new VteException(
                        ErrorCode.TIMED_OUT, what + ": no message within " + ms + " ms")));
  }

  /** Ends the stream with a failure, unless it has ended already. */
  void fail(Throwable failure) {
    ended.tryFail(failure);
  }

  @Override
  public void cancel() {
    fail(new VteException(ErrorCode.ENGINE_CLOSED, what + ": canceled by the watcher"));
  }

  @Override
  public Future<Void> ended() {
    return ended.future();
  }
}

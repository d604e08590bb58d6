package io.vte.handshake;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.server.GrpcProtocol;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.impl.EncodingGuard;
import io.vte.handshake.impl.HandshakeCalls;
import io.vte.handshake.impl.TlsSetup;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.HandshakeGrpcService;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.WatchDevicesRequest;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The handshake service of a node: a Vert.x gRPC server that authenticates (optional), validates
 * and hands each Connect, GetSegment, Notify and WatchDevices call to a {@link HandshakeHandler},
 * over plain HTTP/2 or TLS. The caller's deadline is honoured: a call still unanswered at its
 * deadline (or after the server's maxCallDuration, whichever comes first) gets DEADLINE_EXCEEDED.
 */
public final class HandshakeServer {

  /** Most calls in flight on one connection. */
  private static final int MAX_CONCURRENT_STREAMS = 256;

  /** Largest header block accepted; gRPC needs a few hundred bytes. */
  private static final int MAX_HEADER_BYTES = 8192;

  private final HttpServer httpServer;
  private final HandshakeCalls calls;
  private final String host;
  private final ConnectionFaults faults;

  private HandshakeServer(
      HttpServer httpServer, HandshakeCalls calls, String host, ConnectionFaults faults) {
    this.httpServer = httpServer;
    this.calls = calls;
    this.host = host;
    this.faults = faults;
  }

  /**
   * Starts a server.
   *
   * @param vertx the Vert.x instance
   * @param options where to listen, auth, TLS and limits
   * @param handler what answers validated calls
   * @return the listening server, or an INVALID_CONFIGURATION failure for bad TLS options or an
   *     address that cannot be bound
   */
  public static Future<HandshakeServer> start(
      Vertx vertx, HandshakeServerOptions options, HandshakeHandler handler) {
    Objects.requireNonNull(vertx, "vertx");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(handler, "handler");
    return ProtocolClasses.initialize(vertx)
        .compose(
            v ->
                options.getTls() == null
                    ? Future.<Void>succeededFuture()
                    : TlsClasses.initialize(vertx, options.getTls()))
        .compose(v -> listen(vertx, options, handler));
  }

  private static Future<HandshakeServer> listen(
      Vertx vertx, HandshakeServerOptions options, HandshakeHandler handler) {
    HttpServerOptions http =
        new HttpServerOptions()
            .setHost(options.getHost())
            .setPort(options.getPort())
            .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, options.getIdleTimeout().toMillis()))
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
            .setMaxHeaderSize(MAX_HEADER_BYTES)
            .setInitialSettings(
                new Http2Settings()
                    .setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                    .setMaxHeaderListSize(MAX_HEADER_BYTES));
    try {
      if (options.getTls() != null) {
        TlsSetup.applyToServer(options.getTls(), http);
      }
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    ConnectionFaults faults = new ConnectionFaults();
    HandshakeCalls calls =
        new HandshakeCalls(
            vertx,
            options.getAuth(),
            options.getMaxMessageSize(),
            options.getMaxCallDuration().toMillis(),
            faults::losesAnswer);
    // Plain gRPC over HTTP/2 only: no gRPC-Web and no HTTP/JSON transcoding to attack.
    GrpcServer grpc =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .removeEnabledProtocol(GrpcProtocol.WEB)
                .removeEnabledProtocol(GrpcProtocol.WEB_TEXT)
                .removeEnabledProtocol(GrpcProtocol.TRANSCODING)
                .setMaxMessageSize(options.getMaxMessageSize())
                .setScheduleDeadlineAutomatically(false));
    grpc.callHandler(
        HandshakeGrpcService.Connect,
        calls.unary(
            "Connect",
            ConnectRequest.getDefaultInstance(),
            (ConnectRequest request) -> HandshakeValidator.validate(request),
            handler::connect));
    grpc.callHandler(
        HandshakeGrpcService.GetSegment,
        calls.unary(
            "GetSegment",
            GetSegmentRequest.getDefaultInstance(),
            (GetSegmentRequest request) -> HandshakeValidator.validate(request),
            handler::getSegment));
    grpc.callHandler(
        HandshakeGrpcService.Notify,
        calls.unary(
            "Notify",
            NotifyRequest.getDefaultInstance(),
            (NotifyRequest request) -> HandshakeValidator.validate(request),
            handler::notify));
    grpc.callHandler(
        HandshakeGrpcService.WatchDevices,
        calls.stream(
            "WatchDevices",
            WatchDevicesRequest.getDefaultInstance(),
            (WatchDevicesRequest request) -> HandshakeValidator.validate(request),
            handler::watchDevices));
    HttpServer server =
        vertx.createHttpServer(http).requestHandler(faults.wrap(new EncodingGuard(grpc)));
    String where = options.getHost() + ":" + options.getPort();
    return server
        .listen()
        .recover(
            failure ->
                Future.failedFuture(
                    new VteException(
                        ErrorCode.INVALID_CONFIGURATION,
                        "handshake server cannot listen on " + where + ": " + failure.getMessage(),
                        failure)))
        .map(listening -> new HandshakeServer(listening, calls, options.getHost(), faults));
  }

  /**
   * @return the port the server listens on
   */
  public int port() {
    return httpServer.actualPort();
  }

  /**
   * @return {@code host:port}: where peers reach this server, and the node's p2p segment name
   */
  public String serverName() {
    return new ServerName(host, port()).toString();
  }

  /**
   * @return the faults this server injects into its connections (none until set)
   */
  public ConnectionFaults faults() {
    return faults;
  }

  /**
   * @return how many calls are waiting for the handler's answer
   */
  public int pendingCalls() {
    return calls.activeCalls();
  }

  /**
   * @return how many WatchDevices streams are open
   */
  public int openStreams() {
    return calls.openStreams();
  }

  /**
   * Stops listening, closes connections and drops unanswered calls with their deadline timers.
   *
   * @return completes when everything is released
   */
  public Future<Void> close() {
    calls.abandonAll();
    return httpServer.close();
  }
}

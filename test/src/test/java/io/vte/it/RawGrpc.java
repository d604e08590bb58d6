package io.vte.it;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vte.testkit.OnEventLoop;
import java.nio.file.Path;

/**
 * A hand-made gRPC caller over HTTP/2 for hostile tests: sends arbitrary bytes (framed or not) to
 * any path of a handshake server and reports the HTTP status, the gRPC status and the response
 * body.
 *
 * <p>Each call runs on an event loop of the given Vert.x ({@link OnEventLoop}): started from the
 * JUnit thread, about one call in a thousand never completed (Vert.x 5.0.7 drops the end of a
 * response whose {@code body()} is asked for from another thread after it ended).
 */
public final class RawGrpc implements AutoCloseable {

  /** The gRPC service path prefix of the handshake service. */
  public static final String SERVICE = "/vte.handshake.v1.Handshake/";

  private final Vertx vertx;
  private final HttpClient client;
  private final String host;
  private final int port;

  /**
   * The outcome of one call.
   *
   * @param httpStatus the HTTP status, or -1 when the call failed below HTTP (reset, refused,
   *     timeout)
   * @param grpcStatus the grpc-status trailer (or trailers-only header), or -1 when absent
   * @param message the grpc-message trailer, or null
   * @param body the response body
   * @param failure the transport failure, or null
   */
  public record Outcome(
      int httpStatus, int grpcStatus, String message, Buffer body, Throwable failure) {
    /**
     * @return a short label for tallies
     */
    public String label() {
      if (failure != null) {
        return "transport " + failure.getClass().getSimpleName();
      }
      return httpStatus == 200 ? "grpc " + grpcStatus : "http " + httpStatus;
    }
  }

  /**
   * @param vertx where the client runs
   * @param serverName {@code host:port} of the server
   * @param trustedCa a PEM CA to speak TLS with, or null for plain text
   */
  public RawGrpc(Vertx vertx, String serverName, Path trustedCa) {
    int colon = serverName.lastIndexOf(':');
    this.host = serverName.substring(0, colon);
    this.port = Integer.parseInt(serverName.substring(colon + 1));
    this.vertx = vertx;
    HttpClientOptions o =
        new HttpClientOptions()
            .setProtocolVersion(HttpVersion.HTTP_2)
            .setHttp2ClearTextUpgrade(false)
            .setIdleTimeout(10);
    if (trustedCa != null) {
      o.setSsl(true)
          .setUseAlpn(true)
          .setTrustOptions(new PemTrustOptions().addCertPath(trustedCa.toString()));
    }
    this.client = vertx.createHttpClient(o);
  }

  /**
   * @param message a serialized message
   * @return it with the 5-byte gRPC frame header (uncompressed)
   */
  public static Buffer frame(byte[] message) {
    return Buffer.buffer().appendByte((byte) 0).appendInt(message.length).appendBytes(message);
  }

  /**
   * @param method a method name (Connect, GetSegment, Notify) or any path suffix
   * @param body the exact request body
   * @return the outcome; never a failed future
   */
  public Future<Outcome> call(String method, Buffer body) {
    return call(SERVICE + method, "application/grpc", body);
  }

  /**
   * @param path the request path
   * @param contentType the content type header
   * @param body the exact request body
   * @return the outcome; never a failed future
   */
  public Future<Outcome> call(String path, String contentType, Buffer body) {
    return OnEventLoop.call(vertx, () -> send(path, contentType, body));
  }

  private Future<Outcome> send(String path, String contentType, Buffer body) {
    RequestOptions ro =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost(host)
            .setPort(port)
            .setURI(path)
            .putHeader("content-type", contentType)
            .putHeader("te", "trailers")
            .setIdleTimeout(10_000);
    return client
        .request(ro)
        .compose(req -> req.send(body))
        .compose(
            resp ->
                resp.body()
                    .map(
                        b -> {
                          String s =
                              resp.getTrailer("grpc-status") != null
                                  ? resp.getTrailer("grpc-status")
                                  : resp.getHeader("grpc-status");
                          String m =
                              resp.getTrailer("grpc-message") != null
                                  ? resp.getTrailer("grpc-message")
                                  : resp.getHeader("grpc-message");
                          return new Outcome(
                              resp.statusCode(),
                              s == null ? -1 : Integer.parseInt(s),
                              m == null ? null : QueryStringDecoder.decodeComponent(m),
                              b,
                              null);
                        }))
        .recover(t -> Future.succeededFuture(new Outcome(-1, -1, null, Buffer.buffer(), t)));
  }

  /**
   * @param o an outcome with a framed message body
   * @return the message bytes, or null when the body holds no complete frame
   */
  public static byte[] message(Outcome o) {
    Buffer b = o.body();
    if (b.length() < 5 || b.length() < 5 + b.getInt(1)) {
      return null;
    }
    return b.getBytes(5, 5 + b.getInt(1));
  }

  @Override
  public void close() {
    io.vte.testkit.Await.result(client.close(), LocalEngines.WAIT);
  }
}

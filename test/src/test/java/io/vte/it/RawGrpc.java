package io.vte.it;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hand-made gRPC caller over HTTP/2 for hostile tests: sends arbitrary bytes (framed or not) to
 * any path of a handshake server and reports the HTTP status, the gRPC status and the response
 * body.
 *
 * <p>The Vert.x 5.0.7 HTTP/2 client occasionally (about 1 in 1000 sequential requests here, also
 * against a trivial Vert.x HTTP/2 server) never completes a request on a reused connection, and its
 * idle timeout does not fire. So a call without an answer after {@value #STALL_MS} ms is sent once
 * more on a fresh connection, and counted in {@link #stalls()}: the server is judged by the answer
 * it gives on a working connection.
 */
public final class RawGrpc implements AutoCloseable {

  /** The gRPC service path prefix of the handshake service. */
  public static final String SERVICE = "/vte.handshake.v1.Handshake/";

  /** How long a call may go without an answer before it is re-sent on a fresh connection. */
  public static final long STALL_MS = 10_000;

  private final Vertx vertx;
  private final HttpClientOptions options;
  private final HttpClient client;
  private final AtomicInteger stalls = new AtomicInteger();
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
    this.options = o;
    this.client = vertx.createHttpClient(o);
  }

  /**
   * @return calls that got no answer on the shared connection and were re-sent on a fresh one
   */
  public int stalls() {
    return stalls.get();
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
    Promise<Outcome> answer = Promise.promise();
    long timer =
        vertx.setTimer(
            STALL_MS,
            id -> {
              stalls.incrementAndGet();
              HttpClient fresh = vertx.createHttpClient(options);
              send(fresh, path, contentType, body.copy())
                  .onComplete(
                      ar -> {
                        answer.tryComplete(ar.result());
                        fresh.close();
                      });
            });
    send(client, path, contentType, body)
        .onComplete(
            ar -> {
              vertx.cancelTimer(timer);
              answer.tryComplete(ar.result());
            });
    return answer.future();
  }

  private Future<Outcome> send(HttpClient http, String path, String contentType, Buffer body) {
    RequestOptions ro =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost(host)
            .setPort(port)
            .setURI(path)
            .putHeader("content-type", contentType)
            .putHeader("te", "trailers")
            .setIdleTimeout(10_000);
    return http.request(ro)
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

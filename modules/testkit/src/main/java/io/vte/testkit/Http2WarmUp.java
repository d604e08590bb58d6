package io.vte.testkit;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import java.time.Duration;

/**
 * One plain-text HTTP/2 request between a Vert.x server and client, once per JVM. The first HTTP/2
 * connection of a JVM loads and initializes a few hundred Netty and Vert.x classes and the buffer
 * allocator's first chunks on an event loop; beside a CPU hog that one task took over 6 s and the
 * blocked-thread checker reported it in whichever test happened to connect first. {@link
 * BlockedThreadGuard} runs this before the first guarded test and does not count what the checker
 * reports meanwhile: it is the libraries' cost of first use, not the test's.
 */
final class Http2WarmUp {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static boolean done;

  private Http2WarmUp() {}

  /** Makes the connection unless this JVM already did. */
  static synchronized void once() {
    if (done) {
      return;
    }
    done = true;
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer server =
          Await.result(
              vertx
                  .createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                  .requestHandler(request -> request.response().end("warm"))
                  .listen(),
              WAIT);
      HttpClient client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setProtocolVersion(HttpVersion.HTTP_2)
                  .setHttp2ClearTextUpgrade(false));
      Await.result(
          OnEventLoop.call(
              vertx,
              () ->
                  client
                      .request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/")
                      .compose(request -> request.send())
                      .compose(response -> response.body())),
          WAIT);
      Await.result(client.close(), WAIT);
      Await.result(server.close(), WAIT);
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }
}

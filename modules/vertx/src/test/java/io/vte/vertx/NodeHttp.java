package io.vte.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.OnEventLoop;
import java.time.Duration;

/**
 * One GET answered by a node's HTTP server.
 *
 * @param status the HTTP status
 * @param body the body text
 */
record NodeHttp(int status, String body) {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /**
   * @param vertx the instance whose event loop runs the request (see {@link OnEventLoop})
   * @param http the client
   * @param port the node's HTTP port on 127.0.0.1
   * @param path the path
   * @return the answer
   */
  static NodeHttp get(Vertx vertx, HttpClient http, int port, String path) {
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setPort(port)
            .setHost("127.0.0.1")
            .setURI(path);
    return Await.result(
        OnEventLoop.call(
            vertx,
            () ->
                http.request(request)
                    .compose(req -> req.send())
                    .compose(
                        (HttpClientResponse resp) ->
                            resp.body()
                                .map(body -> new NodeHttp(resp.statusCode(), body.toString())))),
        WAIT);
  }

  /**
   * @return the body as JSON
   */
  JsonObject json() {
    return new JsonObject(body);
  }

  /**
   * @return the status of the named check in a vertx-health-check answer, null when absent
   */
  String check(String id) {
    return json().getJsonArray("checks").stream()
        .map(c -> (JsonObject) c)
        .filter(c -> id.equals(c.getString("id")))
        .map(c -> c.getString("status"))
        .findFirst()
        .orElse(null);
  }
}

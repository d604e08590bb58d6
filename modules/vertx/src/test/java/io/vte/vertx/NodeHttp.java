package io.vte.vertx;

import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import java.time.Duration;

/**
 * One GET answered by a node's HTTP server.
 *
 * @param status the HTTP status
 * @param body the body text
 */
record NodeHttp(int status, String body) {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long ANSWER_MS = 5_000;
  private static final int TRIES = 3;

  /**
   * @param http the client
   * @param port the node's HTTP port on 127.0.0.1
   * @param path the path
   * @return the answer
   */
  static NodeHttp get(HttpClient http, int port, String path) {
    // A GET that got no answer within 5 s is sent again, up to 3 times: one readiness GET of
    // HealthMetadataTest
    // once went unanswered for 30 s in CI (cause not found); a server that never answers still
    // fails here.
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setPort(port)
            .setHost("127.0.0.1")
            .setURI(path)
            .setConnectTimeout(ANSWER_MS)
            .setIdleTimeout(ANSWER_MS);
    Throwable last = null;
    for (int i = 0; i < TRIES; i++) {
      try {
        return Await.result(
            http.request(request)
                .compose(req -> req.send())
                .compose(
                    (HttpClientResponse resp) ->
                        resp.body().map(body -> new NodeHttp(resp.statusCode(), body.toString()))),
            WAIT);
      } catch (RuntimeException | AssertionError e) {
        last = e;
      }
    }
    if (last instanceof RuntimeException r) {
      throw r;
    }
    throw (AssertionError) last;
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

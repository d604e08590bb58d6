package io.vte.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OnEventLoopTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void everyStepOfAnHttpChainRunsOnTheEventLoopAndEveryRequestIsAnswered() {
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer server =
          Await.result(
              vertx
                  .createHttpServer()
                  .requestHandler(r -> r.response().end("reply " + r.path()))
                  .listen(0, "127.0.0.1"),
              WAIT);
      HttpClient http = vertx.createHttpClient();
      List<String> offLoop = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        String path = "/" + i;
        String body =
            Await.result(
                OnEventLoop.call(
                    vertx,
                    () ->
                        step(offLoop, "request " + path)
                            .compose(
                                v ->
                                    http.request(
                                        HttpMethod.GET, server.actualPort(), "127.0.0.1", path))
                            .compose(req -> step(offLoop, "send " + path).compose(v -> req.send()))
                            .compose(
                                resp ->
                                    step(offLoop, "body " + path)
                                        .compose(v -> resp.body())
                                        .map(Object::toString))),
                WAIT);
        assertEquals("reply " + path, body);
      }
      assertTrue(offLoop.isEmpty(), "steps that ran off the event loop: " + offLoop);
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  @Test
  void aChainThatThrowsIsAFailedFuture() {
    Vertx vertx = Vertx.vertx();
    try {
      IllegalStateException thrown = new IllegalStateException("bad chain");
      Future<String> outcome =
          OnEventLoop.call(
              vertx,
              () -> {
                throw thrown;
              });
      Await.until("the outcome settles", WAIT, outcome::isComplete);
      assertEquals(thrown, outcome.cause());
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  private static Future<Void> step(List<String> offLoop, String what) {
    if (!Context.isOnEventLoopThread()) {
      synchronized (offLoop) {
        offLoop.add(what + " on " + Thread.currentThread().getName());
      }
    }
    return Future.succeededFuture();
  }
}

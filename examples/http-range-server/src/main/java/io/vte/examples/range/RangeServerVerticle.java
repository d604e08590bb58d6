package io.vte.examples.range;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.vertx.EngineBus;
import io.vte.vertx.TransferEngineClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An ordinary Vert.x HTTP service that embeds the engine (through its event-bus client) and serves
 * {@code GET /segments/{name}/bytes?offset=&length=[&buffer=]}: the bytes are READ one-sided from
 * the peer segment's registered buffer ({@code buffer}, default 0; {@code offset} relative to its
 * start) into a staging slot, then copied into the response. Errors are one line {@code CODE:
 * message} with 400 (bad parameter), 404 (unknown segment or path), 416 (range outside the buffer),
 * 502 (peer unreachable), 503 (all staging slots busy) or 504 (timed out).
 *
 * <p>Config: {@code engine} (bus prefix of a {@code TransferEngineVerticle}), {@code httpPort} (0 =
 * any), {@code slots} (concurrent reads, default 8). Deploy one instance.
 */
public final class RangeServerVerticle extends VerticleBase {

  /** Largest range served by one request. */
  public static final int MAX_RANGE = 1 << 20;

  private static final Pattern PATH = Pattern.compile("/segments/([^/]+)/bytes");
  private static final String STAGING = "range-staging";

  private final Deque<Integer> freeSlots = new ArrayDeque<>();
  private TransferEngineClient engine;
  private HttpServer server;

  /** Created by Vert.x. */
  public RangeServerVerticle() {}

  @Override
  public Future<?> start() {
    engine = new TransferEngineClient(vertx.eventBus(), config().getString("engine"));
    int slots = config().getInteger("slots", 8);
    for (int i = 0; i < slots; i++) {
      freeSlots.add(i);
    }
    return engine
        .register(STAGING, (long) slots * MAX_RANGE, "cpu:0")
        .compose(
            r ->
                vertx
                    .createHttpServer()
                    .requestHandler(this::handle)
                    .listen(config().getInteger("httpPort", 0), "127.0.0.1"))
        .andThen(ar -> server = ar.result());
  }

  /**
   * @return the bound HTTP port
   */
  public int port() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    Matcher m = PATH.matcher(req.path());
    if (req.method().name().equals("GET") && m.matches()) {
      try {
        serve(
            req,
            m.group(1),
            param(req, "offset", 0, Long.MAX_VALUE, -1),
            (int) param(req, "length", 1, MAX_RANGE, -1),
            (int) param(req, "buffer", 0, Integer.MAX_VALUE, 0));
      } catch (VteException e) {
        fail(req, e);
      }
    } else {
      req.response()
          .setStatusCode(404)
          .end("NOT_FOUND: no route for " + req.method() + " " + req.path() + "\n");
    }
  }

  private void serve(
      HttpServerRequest req, String segment, long offset, int length, int bufferIndex) {
    Integer slot = freeSlots.poll();
    if (slot == null) {
      req.response().setStatusCode(503).end("BUSY: all staging slots are in use, retry\n");
      return;
    }
    long slotOffset = (long) slot * MAX_RANGE;
    engine
        .openSegment(segment)
        .compose(
            seg -> {
              JsonArray buffers = seg.getJsonArray("buffers");
              if (bufferIndex >= buffers.size()) {
                throw new VteException(
                    ErrorCode.OUT_OF_RANGE,
                    "segment "
                        + segment
                        + " has "
                        + buffers.size()
                        + " buffer(s), no buffer "
                        + bufferIndex);
              }
              JsonObject buffer = buffers.getJsonObject(bufferIndex);
              if (offset > buffer.getLong("length") - length) {
                throw new VteException(
                    ErrorCode.OUT_OF_RANGE,
                    "range ["
                        + offset
                        + ", +"
                        + length
                        + ") is outside buffer "
                        + bufferIndex
                        + " of "
                        + segment
                        + " ("
                        + buffer.getLong("length")
                        + " bytes)");
              }
              return engine.submit(
                  new JsonArray()
                      .add(
                          TransferEngineClient.request(
                              "READ",
                              STAGING,
                              slotOffset,
                              segment,
                              buffer.getLong("address") + offset,
                              length)),
                  Duration.ofSeconds(10));
            })
        .compose(
            result -> {
              JsonObject r = result.getJsonArray("requests").getJsonObject(0);
              if (!"COMPLETED".equals(r.getString("status"))) {
                return Future.failedFuture(
                    new VteException(
                        ErrorCode.valueOf(r.getString("code", "TRANSFER_FAILED")),
                        r.getString("message", r.getString("status"))));
              }
              return engine.read(STAGING, slotOffset, length);
            })
        .onComplete(
            ar -> {
              freeSlots.add(slot);
              if (ar.succeeded()) {
                req.response()
                    .putHeader("content-type", "application/octet-stream")
                    .end(ar.result());
              } else {
                fail(req, EngineBus.toException(ar.cause()));
              }
            });
  }

  private static long param(HttpServerRequest req, String name, long min, long max, long fallback) {
    String value = req.getParam(name);
    if (value == null && fallback >= 0) {
      return fallback;
    }
    try {
      long v = Long.parseLong(String.valueOf(value));
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new VteException(
        ErrorCode.INVALID_ARGUMENT,
        "query parameter " + name + "=" + value + " is not an integer in " + min + ".." + max);
  }

  private static void fail(HttpServerRequest req, VteException e) {
    int status =
        switch (e.code()) {
          case INVALID_ARGUMENT -> 400;
          case SEGMENT_NOT_FOUND -> 404;
          case OUT_OF_RANGE -> 416;
          case PEER_UNREACHABLE -> 502;
          case TIMED_OUT -> 504;
          default -> 500;
        };
    req.response().setStatusCode(status).end(e.getMessage().replace('\n', ' ') + "\n");
  }
}

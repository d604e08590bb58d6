package io.vte.vertx;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * Typed event-bus proxy of a {@link TransferEngineVerticle}: each method sends one {@link
 * EngineBus} message and returns its reply; failures are {@link io.vte.api.VteException}s with the
 * verticle's error code. Usable from any verticle or thread.
 */
public final class TransferEngineClient {

  private static final Duration REPLY_MARGIN = Duration.ofSeconds(10);

  private final EventBus bus;
  private final String prefix;

  /**
   * @param bus the event bus
   * @param prefix the verticle's address prefix
   */
  public TransferEngineClient(EventBus bus, String prefix) {
    this.bus = bus;
    this.prefix = prefix;
  }

  /**
   * @param opcode {@code READ} or {@code WRITE}
   * @param local name of a registered local buffer
   * @param localOffset offset in it
   * @param segment peer segment name
   * @param remoteAddress remote address (from {@link #openSegment})
   * @param length bytes
   * @return one request of a {@link #submit} array
   */
  public static JsonObject request(
      String opcode,
      String local,
      long localOffset,
      String segment,
      long remoteAddress,
      long length) {
    return new JsonObject()
        .put("opcode", opcode)
        .put("local", local)
        .put("localOffset", localOffset)
        .put("segment", segment)
        .put("remoteAddress", remoteAddress)
        .put("length", length);
  }

  /**
   * @param name buffer name
   * @param length bytes to allocate off-heap and register
   * @param location location tag
   * @return {@code {name, address, length, location}}
   */
  public Future<JsonObject> register(String name, long length, String location) {
    return send(
        EngineBus.REGISTER,
        new JsonObject().put("name", name).put("length", length).put("location", location),
        Duration.ZERO);
  }

  /**
   * @param name buffer name
   * @return completes when unregistered and freed
   */
  public Future<Void> unregister(String name) {
    return send(EngineBus.UNREGISTER, new JsonObject().put("name", name), Duration.ZERO).mapEmpty();
  }

  /**
   * @param name buffer name
   * @param offset where to copy to
   * @param data bytes (at most 16 MiB)
   * @return completes when copied
   */
  public Future<Void> write(String name, long offset, Buffer data) {
    return send(
            EngineBus.WRITE,
            new JsonObject().put("name", name).put("offset", offset).put("data", data),
            Duration.ZERO)
        .mapEmpty();
  }

  /**
   * @param name buffer name
   * @param offset where to copy from
   * @param length bytes (at most 16 MiB)
   * @return the bytes
   */
  public Future<Buffer> read(String name, long offset, int length) {
    return send(
            EngineBus.READ,
            new JsonObject().put("name", name).put("offset", offset).put("length", length),
            Duration.ZERO)
        .map(j -> j.getBuffer("data"));
  }

  /**
   * @param segment peer segment name
   * @return the segment JSON (see {@link EngineBus})
   */
  public Future<JsonObject> openSegment(String segment) {
    return send(EngineBus.OPEN_SEGMENT, new JsonObject().put("segment", segment), Duration.ZERO);
  }

  /**
   * @param requests requests built with {@link #request}
   * @param deadline transfer deadline
   * @return {@code {allCompleted, bytes, requests:[{status, bytes, code?, message?}]}}
   */
  public Future<JsonObject> submit(JsonArray requests, Duration deadline) {
    return send(
        EngineBus.SUBMIT,
        new JsonObject().put("requests", requests).put("deadlineMs", deadline.toMillis()),
        deadline);
  }

  /**
   * @param target peer segment or server name
   * @param topic topic
   * @param payload at most 64 KiB
   * @return completes when the peer accepted it
   */
  public Future<Void> notify(String target, String topic, Buffer payload) {
    return send(
            EngineBus.NOTIFY,
            new JsonObject().put("target", target).put("topic", topic).put("payload", payload),
            Duration.ZERO)
        .mapEmpty();
  }

  /**
   * @return the engine counters JSON
   */
  public Future<JsonObject> stats() {
    return send(EngineBus.STATS, new JsonObject(), Duration.ZERO);
  }

  /**
   * @return the health JSON
   */
  public Future<JsonObject> health() {
    return send(EngineBus.HEALTH, new JsonObject(), Duration.ZERO);
  }

  /**
   * @param handler receives {@code {from, topic, payload, sequence}} for every incoming
   *     notification
   * @return the consumer (unregister it to stop)
   */
  public MessageConsumer<JsonObject> notifications(Handler<JsonObject> handler) {
    return bus.consumer(prefix + EngineBus.NOTIFICATIONS, m -> handler.handle(m.body()));
  }

  private Future<JsonObject> send(String suffix, JsonObject body, Duration work) {
    DeliveryOptions options =
        new DeliveryOptions().setSendTimeout(work.plus(REPLY_MARGIN).toMillis());
    return bus.<JsonObject>request(prefix + suffix, body, options)
        .transform(
            ar ->
                ar.succeeded()
                    ? Future.succeededFuture(ar.result().body())
                    : Future.failedFuture(EngineBus.toException(ar.cause())));
  }
}

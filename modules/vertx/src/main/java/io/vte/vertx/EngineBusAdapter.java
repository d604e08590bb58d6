package io.vte.vertx;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferCounters;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Adapter between the event bus and one engine: consumes the {@link EngineBus} addresses, calls the
 * engine and replies with JSON or a typed failure; publishes incoming notifications. Runs on the
 * verticle's context.
 */
final class EngineBusAdapter {

  /** Most requests accepted in one submit message. */
  static final int MAX_REQUESTS = 65_536;

  private final Vertx vertx;
  private final String prefix;
  private final TransferEngine engine;
  private final NamedBuffers buffers;
  private final List<MessageConsumer<?>> consumers = new ArrayList<>();
  private final Timer batchLatency;
  private final Counter batchesFailed;

  EngineBusAdapter(
      Vertx vertx,
      String prefix,
      TransferEngine engine,
      NamedBuffers buffers,
      MeterRegistry registry) {
    this.vertx = vertx;
    this.prefix = prefix;
    this.engine = engine;
    this.buffers = buffers;
    this.batchLatency =
        Timer.builder("vte.vertx.batch.latency")
            .description("event-bus batch submit to result")
            .tag("engine", engine.diagnostics().metricsLabel())
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    this.batchesFailed =
        Counter.builder("vte.vertx.batches.failed")
            .description("batches with a request not completed")
            .tag("engine", engine.diagnostics().metricsLabel())
            .register(registry);
  }

  /** Registers every consumer and the notification publisher. */
  void start() {
    EventBus bus = vertx.eventBus();
    String notifications = prefix + EngineBus.NOTIFICATIONS;
    engine.notificationHandler(n -> bus.publish(notifications, notificationJson(n)));
    consume(
        bus,
        EngineBus.REGISTER,
        m ->
            buffers
                .register(
                    BusJson.string(m, "name"),
                    BusJson.number(m, "length"),
                    BusJson.string(m, "location", "cpu:0"))
                .map(
                    b ->
                        new JsonObject()
                            .put("name", m.getString("name"))
                            .put("address", b.address())
                            .put("length", b.length())
                            .put("location", b.location())));
    consume(
        bus,
        EngineBus.UNREGISTER,
        m -> {
          String name = BusJson.string(m, "name");
          return buffers.unregister(name).map(v -> new JsonObject().put("name", name));
        });
    consume(
        bus,
        EngineBus.WRITE,
        m -> {
          String name = BusJson.string(m, "name");
          long offset = BusJson.number(m, "offset");
          Buffer data = binary(m, "data");
          buffers.write(name, offset, data);
          return Future.succeededFuture(
              new JsonObject()
                  .put("name", name)
                  .put("offset", offset)
                  .put("length", data.length()));
        });
    consume(
        bus,
        EngineBus.READ,
        m -> {
          String name = BusJson.string(m, "name");
          long offset = BusJson.number(m, "offset");
          long length = BusJson.number(m, "length");
          if (length < 0 || length > NamedBuffers.MAX_COPY) {
            throw new VteException(
                ErrorCode.INVALID_ARGUMENT,
                "field 'length' = " + length + " is outside 0.." + NamedBuffers.MAX_COPY);
          }
          Buffer data = buffers.read(name, offset, (int) length);
          return Future.succeededFuture(
              new JsonObject().put("name", name).put("offset", offset).put("data", data));
        });
    consume(
        bus,
        EngineBus.OPEN_SEGMENT,
        m -> engine.openSegment(BusJson.string(m, "segment")).map(BusJson::segment));
    consume(bus, EngineBus.SUBMIT, this::submit);
    consume(
        bus,
        EngineBus.NOTIFY,
        m ->
            engine
                .notify(
                    BusJson.string(m, "target"), BusJson.string(m, "topic"), binary(m, "payload"))
                .map(v -> new JsonObject()));
    consume(bus, EngineBus.STATS, m -> Future.succeededFuture(stats()));
  }

  private Future<JsonObject> submit(JsonObject m) {
    Object raw = m.getValue("requests");
    if (!(raw instanceof JsonArray array) || array.isEmpty() || array.size() > MAX_REQUESTS) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "field 'requests' must be an array of 1.."
              + MAX_REQUESTS
              + " requests, got "
              + (raw instanceof JsonArray a ? a.size() + " requests" : String.valueOf(raw)));
    }
    long deadlineMs = BusJson.number(m, "deadlineMs", TransferOptions.DEFAULT_DEADLINE.toMillis());
    if (deadlineMs <= 0) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "field 'deadlineMs' = " + deadlineMs + " must be positive");
    }
    List<JsonObject> parsed = new ArrayList<>(array.size());
    Map<String, Future<SegmentHandle>> segments = new HashMap<>();
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject r)) {
        throw new VteException(
            ErrorCode.INVALID_ARGUMENT,
            "requests[" + i + "] = " + array.getValue(i) + " is not an object");
      }
      parsed.add(r);
      segments.computeIfAbsent(BusJson.string(r, "segment"), engine::openSegment);
    }
    long start = System.nanoTime();
    return Future.all(new ArrayList<>(segments.values()))
        .compose(
            ok -> {
              List<TransferRequest> requests = new ArrayList<>(parsed.size());
              for (JsonObject r : parsed) {
                requests.add(
                    new TransferRequest(
                        BusJson.opcode(r),
                        buffers.get(BusJson.string(r, "local")),
                        BusJson.number(r, "localOffset"),
                        segments.get(r.getString("segment")).result(),
                        BusJson.number(r, "remoteAddress"),
                        BusJson.number(r, "length")));
              }
              return engine
                  .submit(
                      requests, new TransferOptions().setDeadline(Duration.ofMillis(deadlineMs)))
                  .result();
            })
        .map(
            result -> {
              batchLatency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
              if (!result.allCompleted()) {
                batchesFailed.increment();
              }
              return BusJson.result(result);
            });
  }

  private JsonObject stats() {
    JsonObject json =
        new JsonObject()
            .put("serverName", engine.serverName())
            .put("buffers", buffers.size())
            .put("batchesFailed", (long) batchesFailed.count());
    TransferCounters counters = engine.diagnostics().counters();
    return json.put("bytes", counters.bytes())
        .put("slices", counters.slices())
        .put("retries", counters.retries())
        .put("batches", counters.batches());
  }

  private static Buffer binary(JsonObject m, String field) {
    try {
      Buffer b = m.getBuffer(field);
      if (b == null) {
        throw new VteException(
            ErrorCode.INVALID_ARGUMENT, "field '" + field + "' is missing: expected binary data");
      }
      return b;
    } catch (ClassCastException | IllegalArgumentException e) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "field '" + field + "' is not binary data (base64)");
    }
  }

  private static JsonObject notificationJson(Notification n) {
    return new JsonObject()
        .put("from", n.from())
        .put("topic", n.topic())
        .put("payload", n.payload())
        .put("sequence", n.sequence());
  }

  private void consume(
      EventBus bus, String suffix, Function<JsonObject, Future<JsonObject>> handler) {
    consumers.add(
        bus.<Object>consumer(
            prefix + suffix,
            msg -> {
              if (!(msg.body() instanceof JsonObject body)) {
                fail(
                    msg,
                    new VteException(
                        ErrorCode.INVALID_ARGUMENT,
                        "message to "
                            + prefix
                            + suffix
                            + " must be a JsonObject, got "
                            + (msg.body() == null
                                ? "null"
                                : msg.body().getClass().getSimpleName())));
                return;
              }
              Future<JsonObject> reply;
              try {
                reply = handler.apply(body);
              } catch (RuntimeException e) {
                reply = Future.failedFuture(e);
              }
              reply.onComplete(
                  ar -> {
                    if (ar.succeeded()) {
                      msg.reply(ar.result());
                    } else {
                      fail(msg, ar.cause());
                    }
                  });
            }));
  }

  private static void fail(Message<?> msg, Throwable cause) {
    VteException e =
        cause instanceof VteException v
            ? v
            : new VteException(
                ErrorCode.INTERNAL,
                cause.getClass().getSimpleName() + ": " + cause.getMessage(),
                cause);
    msg.fail(EngineBus.failureCode(e.code()), e.getMessage());
  }

  /**
   * @return completes when every consumer is unregistered
   */
  Future<Void> stop() {
    List<Future<Void>> f = new ArrayList<>();
    consumers.forEach(c -> f.add(c.unregister()));
    consumers.clear();
    return Future.join(f).mapEmpty();
  }

  /**
   * @param registry the registry the meters were registered in
   */
  void removeMeters(MeterRegistry registry) {
    registry.remove(batchLatency);
    registry.remove(batchesFailed);
  }
}

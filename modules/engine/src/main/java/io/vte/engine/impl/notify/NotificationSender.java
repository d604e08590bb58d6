package io.vte.engine.impl.notify;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.proto.NotifyRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends this engine's notifications: one in flight per peer, so that they arrive in the order sent
 * (the receiver's {@link NotificationDispatcher} re-orders as a safety net), each numbered by the
 * dispatcher's per-peer sequence and carrying its epoch. Thread-safe.
 *
 * <p>A notification whose answer does not come (the request or the reply lost with a reset
 * connection, an attempt past its share of the deadline) is sent again, the same message with the
 * same epoch and sequence, after a short growing wait, until the deadline: the receiver delivers
 * the first copy and answers the others as duplicates, so each is delivered once. Each attempt gets
 * at most a quarter of the deadline, so a reply lost without a reset still leaves time to resend.
 */
public final class NotificationSender {

  /** Largest notification payload. */
  static final int MAX_PAYLOAD_BYTES = 64 * 1024;

  private static final int ATTEMPTS_PER_DEADLINE = 4;
  private static final long FIRST_RESEND_WAIT_MS = 5;
  private static final long MAX_RESEND_WAIT_MS = 200;

  private final Vertx vertx;
  private final HandshakeClientPool clients;
  private final String serverName;
  private final NotificationDispatcher numbering;
  private final Duration deadline;
  private final Map<String, Future<Void>> tails = new ConcurrentHashMap<>();
  private final LongAdder resent = new LongAdder();

  /**
   * @param vertx schedules the waits before resending
   * @param clients the handshake client pool
   * @param serverName this node's server name, the sender of every notification
   * @param numbering numbers outgoing notifications per peer and knows this engine's epoch
   * @param deadline the deadline of each Notify call
   */
  public NotificationSender(
      Vertx vertx,
      HandshakeClientPool clients,
      String serverName,
      NotificationDispatcher numbering,
      Duration deadline) {
    this.vertx = vertx;
    this.clients = clients;
    this.serverName = serverName;
    this.numbering = numbering;
    this.deadline = deadline;
  }

  /**
   * @param topic the topic
   * @param payload the payload
   * @throws VteException INVALID_ARGUMENT for a null topic, or a payload null or over {@value
   *     #MAX_PAYLOAD_BYTES} bytes
   */
  public static void check(String topic, Buffer payload) {
    if (payload == null || payload.length() > MAX_PAYLOAD_BYTES || topic == null) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "notification topic must be set and payload "
              + "at most "
              + MAX_PAYLOAD_BYTES
              + " bytes, got topic "
              + topic
              + ", payload "
              + (payload == null ? "null" : payload.length() + " bytes"));
    }
  }

  /**
   * Sends a notification after those sent to the same peer before it have ended.
   *
   * @param peer the peer's server name
   * @param topic the topic
   * @param payload the payload, checked by {@link #check}
   * @return completes when the peer accepted it (or answered a resent copy as a duplicate); fails
   *     with PROTOCOL_ERROR when it refused it, with the last attempt's failure (PEER_UNREACHABLE,
   *     TIMED_OUT) when no attempt was answered within the deadline, at once for a failure
   *     resending cannot mend (PERMISSION_DENIED, INVALID_ARGUMENT, ENGINE_CLOSED)
   */
  public Future<Void> send(String peer, String topic, byte[] payload) {
    Promise<Void> sent = Promise.promise();
    tails.compute(
        peer,
        (k, tail) -> {
          Future<Void> previous =
              tail == null
                  ? Future.succeededFuture()
                  : tail.transform(ar -> Future.succeededFuture());
          Future<Void> next = previous.compose(v -> sendNow(peer, topic, payload));
          next.onComplete(sent);
          return next;
        });
    return sent.future();
  }

  /**
   * @return copies sent again after an attempt went unanswered, since the engine started
   */
  public long resent() {
    return resent.sum();
  }

  private Future<Void> sendNow(String peer, String topic, byte[] payload) {
    NotifyRequest request =
        NotifyRequest.newBuilder()
            .setFrom(serverName)
            .setTopic(topic)
            .setPayload(ByteString.copyFrom(payload))
            .setSequence(numbering.nextSequence(peer))
            .setSenderEpoch(numbering.epoch())
            .build();
    Promise<Void> done = Promise.promise();
    attempt(peer, request, System.nanoTime() + deadline.toNanos(), 1, done);
    return done.future();
  }

  private void attempt(
      String peer, NotifyRequest request, long giveUpAtNanos, int attempt, Promise<Void> done) {
    long share = Math.max(1, deadline.toNanos() / ATTEMPTS_PER_DEADLINE);
    long left = Math.max(1, giveUpAtNanos - System.nanoTime());
    clients
        .notify(peer, request, Duration.ofNanos(Math.min(share, left)))
        .onComplete(
            answered -> {
              if (answered.succeeded()) {
                if (answered.result().getAccepted()) {
                  done.complete();
                } else {
                  done.fail(
                      new VteException(
                          ErrorCode.PROTOCOL_ERROR,
                          "peer "
                              + peer
                              + " refused notification "
                              + request.getSequence()
                              + " on topic '"
                              + request.getTopic()
                              + "'"));
                }
                return;
              }
              long waitMs =
                  Math.min(MAX_RESEND_WAIT_MS, FIRST_RESEND_WAIT_MS << Math.min(attempt - 1, 16));
              if (!resendable(answered.cause())
                  || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs) >= giveUpAtNanos) {
                done.fail(answered.cause());
                return;
              }
              resent.increment();
              vertx.setTimer(
                  waitMs, id -> attempt(peer, request, giveUpAtNanos, attempt + 1, done));
            });
  }

  /** A failure another attempt may mend: no answer came, or the connection went. */
  private static boolean resendable(Throwable failure) {
    return failure instanceof VteException vte
        && (vte.code() == ErrorCode.PEER_UNREACHABLE || vte.code() == ErrorCode.TIMED_OUT);
  }
}

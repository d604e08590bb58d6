package io.vte.engine.impl.notify;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.proto.NotifyRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends this engine's notifications: one in flight per peer, so that they arrive in the order sent
 * (the receiver's {@link NotificationDispatcher} re-orders as a safety net), each numbered by the
 * dispatcher's per-peer sequence and carrying its epoch. Thread-safe.
 */
public final class NotificationSender {

  /** Largest notification payload. */
  static final int MAX_PAYLOAD_BYTES = 64 * 1024;

  private final HandshakeClientPool clients;
  private final String serverName;
  private final NotificationDispatcher numbering;
  private final Duration deadline;
  private final Map<String, Future<Void>> tails = new ConcurrentHashMap<>();

  /**
   * @param clients the handshake client pool
   * @param serverName this node's server name, the sender of every notification
   * @param numbering numbers outgoing notifications per peer and knows this engine's epoch
   * @param deadline the deadline of each Notify call
   */
  public NotificationSender(
      HandshakeClientPool clients,
      String serverName,
      NotificationDispatcher numbering,
      Duration deadline) {
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
   * @return completes when the peer accepted it; fails with PROTOCOL_ERROR when it refused it
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

  private Future<Void> sendNow(String peer, String topic, byte[] payload) {
    NotifyRequest request =
        NotifyRequest.newBuilder()
            .setFrom(serverName)
            .setTopic(topic)
            .setPayload(ByteString.copyFrom(payload))
            .setSequence(numbering.nextSequence(peer))
            .setSenderEpoch(numbering.epoch())
            .build();
    return clients
        .notify(peer, request, deadline)
        .compose(
            reply ->
                reply.getAccepted()
                    ? Future.succeededFuture()
                    : Future.failedFuture(
                        new VteException(
                            ErrorCode.PROTOCOL_ERROR,
                            "peer "
                                + peer
                                + " refused notification "
                                + request.getSequence()
                                + " on topic '"
                                + topic
                                + "'")));
  }
}

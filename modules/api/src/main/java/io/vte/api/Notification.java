package io.vte.api;

import io.vertx.core.buffer.Buffer;

/**
 * A small application message from a peer, delivered in order per sender. Given to the handler set
 * with {@link TransferEngine#notificationHandler}: {@code engine.notificationHandler(n ->
 * log(n.from(), n.topic()))}; sent with {@link TransferEngine#notify}.
 *
 * @param from the sender's server name
 * @param topic application-defined name
 * @param payload the bytes (at most 64 KiB)
 * @param sequence the sender's sequence number, from 1
 */
public record Notification(String from, String topic, Buffer payload, long sequence) {}

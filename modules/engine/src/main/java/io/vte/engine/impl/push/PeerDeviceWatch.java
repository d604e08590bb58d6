package io.vte.engine.impl.push;

import io.vertx.core.Vertx;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.PushSubscription;
import io.vte.handshake.proto.WatchDevicesRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches the device states of every peer this engine has rails to (one WatchDevices stream per
 * peer, on the handshake client it already has) and hands each message to {@link PeerDeviceStates}.
 * A stream that breaks (the peer restarted, its connection dropped, a heartbeat never came) is
 * started again after a backoff that doubles from {@link #FIRST_BACKOFF_MS} up to {@link
 * #MAX_BACKOFF_MS} and starts over once a stream has delivered; the new stream's first message is a
 * snapshot, so nothing missed in between is lost. Thread-safe; never blocks.
 */
public final class PeerDeviceWatch {

  /** Wait before the first new attempt after a stream broke, ms. */
  static final long FIRST_BACKOFF_MS = 20;

  /** Longest wait between attempts, ms. */
  static final long MAX_BACKOFF_MS = 2_000;

  private final Vertx vertx;
  private final HandshakeClientPool clients;
  private final String selfName;
  private final int heartbeatMs;
  private final PeerDeviceStates states;
  private final Map<String, Peer> peers = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param vertx runs the backoff timers
   * @param clients the engine's handshake client
   * @param selfName this engine's server name (it does not watch itself)
   * @param heartbeatMs the heartbeat period each peer is asked for
   * @param states where the messages go
   */
  public PeerDeviceWatch(
      Vertx vertx,
      HandshakeClientPool clients,
      String selfName,
      int heartbeatMs,
      PeerDeviceStates states) {
    this.vertx = vertx;
    this.clients = clients;
    this.selfName = selfName;
    this.heartbeatMs = heartbeatMs;
    this.states = states;
  }

  /**
   * Starts watching a peer, unless it is watched already or is this engine.
   *
   * @param serverName the peer's server name
   */
  public void watch(String serverName) {
    if (closed || serverName.equals(selfName)) {
      return;
    }
    Peer fresh = new Peer(serverName);
    if (peers.putIfAbsent(serverName, fresh) == null) {
      fresh.subscribe();
    }
  }

  /** Ends every stream; no new one starts. */
  public void close() {
    closed = true;
    peers.values().forEach(Peer::cancel);
    peers.clear();
  }

  /** The stream to one peer, started again after each break. */
  private final class Peer {

    private final String serverName;
    private long backoffMs = FIRST_BACKOFF_MS;
    private volatile PushSubscription current;
    private volatile long timer = -1;
    private volatile boolean delivered;

    Peer(String serverName) {
      this.serverName = serverName;
    }

    void subscribe() {
      if (closed) {
        return;
      }
      delivered = false;
      PushSubscription s =
          clients.watchDevices(
              serverName,
              WatchDevicesRequest.newBuilder()
                  .setWatcher(selfName)
                  .setHeartbeatMs(heartbeatMs)
                  .build(),
              message -> {
                delivered = true;
                states.onPushed(serverName, message);
              });
      current = s;
      s.ended().onComplete(ar -> broke());
    }

    private void broke() {
      states.onStreamLost(serverName);
      if (closed) {
        return;
      }
      backoffMs = delivered ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoffMs * 2);
      timer = vertx.setTimer(backoffMs, id -> subscribe());
    }

    void cancel() {
      vertx.cancelTimer(timer);
      PushSubscription s = current;
      if (s != null) {
        s.cancel();
      }
    }
  }
}

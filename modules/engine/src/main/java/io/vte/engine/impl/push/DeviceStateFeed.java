package io.vte.engine.impl.push;

import io.vertx.core.Vertx;
import io.vte.handshake.HandshakeValidator;
import io.vte.handshake.PushStream;
import io.vte.handshake.proto.DeviceState;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.WatchDevicesRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This engine's device states, streamed to every watcher (a WatchDevices call): a snapshot when it
 * starts watching, then a message at each port change, device death or shutdown, sent on the
 * change's thread as it happens (the stream hops to its own event loop), and a heartbeat at the
 * period the watcher asked for. Every message carries every device, with this engine's incarnation
 * and a sequence that bumps on each change, so a watcher applies only the newest. Thread-safe:
 * changes are rare and brief, under one lock.
 */
public final class DeviceStateFeed {

  private final Vertx vertx;
  private final String serverName;
  private final long incarnation;
  private final List<String> devices;
  private final boolean[] active;
  private final String[] reason;
  private final Map<PushStream<DeviceStates>, Long> watchers = new HashMap<>();
  private long sequence = 1;
  private boolean shuttingDown;

  /**
   * @param vertx runs the heartbeat timers
   * @param serverName this engine's server name
   * @param incarnation this engine's incarnation (its start time, us)
   * @param devices this engine's device names, by index, all active at first
   */
  public DeviceStateFeed(Vertx vertx, String serverName, long incarnation, List<String> devices) {
    this.vertx = vertx;
    this.serverName = serverName;
    this.incarnation = incarnation;
    this.devices = List.copyOf(devices);
    this.active = new boolean[devices.size()];
    this.reason = new String[devices.size()];
    Arrays.fill(active, true);
  }

  /**
   * A port of a device went down or came back (a dead device: every port down).
   *
   * @param device the device's index
   * @param up the new state
   */
  public synchronized void portChanged(int device, boolean up) {
    if (active[device] == up) {
      return;
    }
    active[device] = up;
    reason[device] = up ? "" : "port down";
    changed();
  }

  /** The engine is closing: every watcher hears it, then its stream ends. */
  public synchronized void shutDown() {
    if (shuttingDown) {
      return;
    }
    shuttingDown = true;
    changed();
    for (PushStream<DeviceStates> stream : new ArrayList<>(watchers.keySet())) {
      stream.end();
    }
  }

  /**
   * Starts streaming to a watcher: the snapshot now, then every change and the heartbeat, until the
   * stream ends.
   *
   * @param request the watcher's request (validated)
   * @param stream the watcher's stream
   */
  public void watch(WatchDevicesRequest request, PushStream<DeviceStates> stream) {
    int heartbeat =
        request.getHeartbeatMs() == 0
            ? HandshakeValidator.DEFAULT_HEARTBEAT_MS
            : request.getHeartbeatMs();
    synchronized (this) {
      stream.send(states(true));
      if (shuttingDown) {
        stream.end();
        return;
      }
      long timer = vertx.setPeriodic(heartbeat, id -> heartbeat(stream));
      watchers.put(stream, timer);
    }
    stream.closeHandler(() -> forget(stream));
  }

  /**
   * @return how many watchers are streamed to now
   */
  public synchronized int watchers() {
    return watchers.size();
  }

  private synchronized void heartbeat(PushStream<DeviceStates> stream) {
    if (watchers.containsKey(stream)) {
      stream.send(states(false));
    }
  }

  private synchronized void forget(PushStream<DeviceStates> stream) {
    Long timer = watchers.remove(stream);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
  }

  private void changed() {
    sequence++;
    DeviceStates states = states(false);
    // A copy: a stream cut off while sending leaves the map at once.
    for (PushStream<DeviceStates> stream : new ArrayList<>(watchers.keySet())) {
      stream.send(states);
    }
  }

  private DeviceStates states(boolean snapshot) {
    DeviceStates.Builder b =
        DeviceStates.newBuilder()
            .setServerName(serverName)
            .setIncarnation(incarnation)
            .setSequence(sequence)
            .setSnapshot(snapshot)
            .setShuttingDown(shuttingDown);
    for (int i = 0; i < devices.size(); i++) {
      b.addDevices(
          DeviceState.newBuilder()
              .setName(devices.get(i))
              .setActive(active[i])
              .setReason(reason[i] == null ? "" : reason[i]));
    }
    return b.build();
  }
}

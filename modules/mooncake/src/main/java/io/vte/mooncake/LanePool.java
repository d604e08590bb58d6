package io.vte.mooncake;

import io.vertx.core.net.NetClient;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The lanes to one Mooncake data listener ({@code host:tcp_data_port}) and the slices waiting for
 * one: up to {@link MooncakeOptions#getLanesPerPeer()} connections, opened as the queue needs them
 * and kept for the next requests. Confined to the transport's event loop.
 */
final class LanePool {

  private final NetClient client;
  private final String host;
  private final int port;
  private final int maxLanes;
  private final ArrayDeque<Slice> queue = new ArrayDeque<>();
  private final List<Lane> lanes = new ArrayList<>();
  private int connecting;

  LanePool(NetClient client, String host, int port, int maxLanes) {
    this.client = client;
    this.host = host;
    this.port = port;
    this.maxLanes = maxLanes;
  }

  String peer() {
    return host + ":" + port;
  }

  void enqueue(Slice slice) {
    queue.add(slice);
    dispatch();
  }

  /** Takes a slice that has not reached a lane off the queue. */
  void dequeue(Slice slice) {
    queue.remove(slice);
  }

  private void dispatch() {
    for (int i = 0; i < lanes.size() && !queue.isEmpty(); i++) {
      Lane lane = lanes.get(i);
      if (lane.idle()) {
        Slice next = queue.poll();
        if (next.owner.abandoned(next)) {
          next.owner.sliceDropped(next);
          i--;
        } else {
          lane.start(next);
        }
      }
    }
    while (queue.size() > connecting && lanes.size() + connecting < maxLanes) {
      connect();
    }
  }

  private void connect() {
    connecting++;
    client
        .connect(port, host)
        .onComplete(
            ar -> {
              connecting--;
              if (ar.succeeded()) {
                lanes.add(new Lane(this, ar.result()));
                dispatch();
              } else if (lanes.isEmpty() && connecting == 0) {
                VteException cause =
                    new VteException(
                        ErrorCode.PEER_UNREACHABLE,
                        "Mooncake data listener " + peer() + ": " + ar.cause().getMessage(),
                        ar.cause());
                while (!queue.isEmpty()) {
                  Slice s = queue.poll();
                  s.owner.sliceFailed(s, cause);
                }
              } else {
                dispatch();
              }
            });
  }

  void completed(Slice slice) {
    slice.owner.sliceDone(slice);
    dispatch();
  }

  void failed(Slice slice, VteException cause) {
    slice.owner.sliceFailed(slice, cause);
    dispatch();
  }

  void removed(Lane lane) {
    lanes.remove(lane);
  }

  /**
   * Closes every lane (a slice in flight fails as its connection closes) and fails the queued
   * slices with {@code cause}.
   */
  void close(VteException cause) {
    while (!queue.isEmpty()) {
      Slice s = queue.poll();
      s.owner.sliceFailed(s, cause);
    }
    for (Lane lane : new ArrayList<>(lanes)) {
      lane.close();
    }
  }
}

package io.vte.mooncake;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestStatus;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.spi.PeerSlice;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The initiator side of Mooncake's TCP transport: opens Mooncake segments (by server name over the
 * P2P handshake, or from Mooncake's etcd keys) and runs VTE {@link TransferRequest}s against them
 * with VTE's semantics (batches, deadlines, cancel, typed results), protocol version 2 with its
 * acknowledgements, version 1 only when the segment advertises nothing newer (or {@link
 * MooncakeOptions#setForceProtocolV1} asks for it). Requests reuse up to {@link
 * MooncakeOptions#getLanesPerPeer()} connections per segment. All I/O runs on one event loop.
 */
public final class MooncakeTransport {

  private final Vertx vertx;
  private final Context context;
  private final MooncakeOptions options;
  private final NetClient client;
  private final HandshakeClient handshakes;
  private final Map<String, LanePool> pools = new HashMap<>();
  private final List<MooncakeBatch> live = new ArrayList<>();
  private volatile boolean closed;

  private MooncakeTransport(Vertx vertx, MooncakeOptions options) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.options = options;
    this.client =
        vertx.createNetClient(
            new NetClientOptions()
                .setTcpNoDelay(true)
                .setConnectTimeout((int) options.getConnectTimeout().toMillis()));
    this.handshakes = new HandshakeClient(vertx, client, options);
  }

  /**
   * @return a transport using {@code options} (its initiator settings)
   */
  public static MooncakeTransport create(Vertx vertx, MooncakeOptions options) {
    return new MooncakeTransport(vertx, options);
  }

  /**
   * Opens a segment by its server name ({@code host:rpc_port}, what a P2P-mode Mooncake node prints
   * and uses as segment name): fetches its descriptor with a Metadata handshake.
   *
   * @return the segment; fails INVALID_ARGUMENT (bad name), PEER_UNREACHABLE, TIMED_OUT or
   *     PROTOCOL_ERROR (not a TCP segment descriptor)
   */
  public Future<MooncakeSegment> openSegment(String serverName) {
    HostPort at;
    try {
      at = HostPort.parse(serverName);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    JsonObject self =
        new JsonObject()
            .put("name", "vte-initiator")
            .put("protocol", "tcp")
            .put("tcp_data_port", 0)
            .put("buffers", new JsonArray());
    return onContext(
        () ->
            handshakes
                .call(
                    at.host(),
                    at.port(),
                    new HandshakeFrame(HandshakeFrame.Type.METADATA, self),
                    options.getConnectTimeout())
                .map(reply -> segment(SegmentDescriptor.fromJson(reply.body()), at)));
  }

  /**
   * Opens a segment published in etcd under Mooncake's keys ({@code mooncake/ram/<segment>} for the
   * descriptor, {@code mooncake/rpc_meta/<segment>} for where it listens).
   *
   * @param etcdEndpoint e.g. {@code http://127.0.0.1:2379}
   * @return the segment; fails SEGMENT_NOT_FOUND, METADATA_UNAVAILABLE or PROTOCOL_ERROR
   */
  public Future<MooncakeSegment> openSegmentFromEtcd(String etcdEndpoint, String segmentName) {
    return onContext(
        () -> {
          MooncakeEtcd etcd = new MooncakeEtcd(vertx, etcdEndpoint);
          return etcd.segment(segmentName)
              .compose(
                  descriptor ->
                      etcd.rpcMeta(segmentName)
                          .map(at -> segment(descriptor, at))
                          .eventually(etcd::close));
        });
  }

  private MooncakeSegment segment(SegmentDescriptor descriptor, HostPort at) {
    int version = options.isForceProtocolV1() ? 1 : descriptor.protocolVersion();
    return new MooncakeSegment(this, descriptor, at, version);
  }

  /**
   * Submits {@code requests}, each on a segment this transport opened. Bad input fails the batch's
   * result before anything is sent: NOT_REGISTERED (local buffer), OUT_OF_RANGE (local range, or a
   * remote range outside the segment's buffers), INVALID_ARGUMENT (a segment from elsewhere),
   * ENGINE_CLOSED.
   */
  public TransferBatch submit(List<TransferRequest> requests, TransferOptions transferOptions) {
    MooncakeBatch batch = new MooncakeBatch(vertx, context, requests.size());
    try {
      if (closed) {
        throw new VteException(ErrorCode.ENGINE_CLOSED, "the Mooncake transport is closed");
      }
      List<TransferRequest> checked = List.copyOf(requests);
      for (TransferRequest r : checked) {
        check(r);
      }
      Duration deadline = transferOptions.getDeadline();
      context.runOnContext(
          v -> {
            if (closed) {
              batch.reject(
                  new VteException(ErrorCode.ENGINE_CLOSED, "the Mooncake transport is closed"));
              return;
            }
            for (int i = 0; i < checked.size(); i++) {
              slice(batch, i, checked.get(i));
            }
            live.add(batch);
            batch.result().onComplete(done -> live.remove(batch));
            batch.start(deadline);
          });
    } catch (VteException | NullPointerException e) {
      batch.reject(e);
    }
    return batch;
  }

  private void check(TransferRequest r) {
    RegisteredBuffer local = r.local();
    if (!(r.segment() instanceof MooncakeSegment s) || s.owner() != this) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "segment " + r.segment() + " was not opened by this Mooncake transport");
    }
    if (!local.isRegistered()) {
      throw new VteException(ErrorCode.NOT_REGISTERED, local + " is not registered");
    }
    if (r.length() < 0
        || r.localOffset() < 0
        || r.localOffset() > local.length() - r.length()
        || r.localOffset() + r.length() > Integer.MAX_VALUE) {
      throw new VteException(
          ErrorCode.OUT_OF_RANGE,
          "local range [" + r.localOffset() + ", +" + r.length() + ") not within " + local);
    }
    if (r.length() > 0 && s.find(r.remoteAddress(), r.length()) == null) {
      throw new VteException(
          ErrorCode.OUT_OF_RANGE,
          "remote range 0x"
              + Long.toHexString(r.remoteAddress())
              + " +"
              + r.length()
              + " not within a buffer of "
              + s);
    }
  }

  private void slice(MooncakeBatch batch, int index, TransferRequest r) {
    MooncakeSegment s = (MooncakeSegment) r.segment();
    LanePool pool = pool(s);
    ByteBuffer memory = r.local().byteBuffer();
    boolean write = r.opcode() == TransferOpcode.WRITE;
    for (long done = 0; done < r.length(); done += options.getSliceBytes()) {
      int n = (int) Math.min(options.getSliceBytes(), r.length() - done);
      batch.add(
          new Slice(
              batch,
              index,
              write,
              memory,
              (int) (r.localOffset() + done),
              r.remoteAddress() + done,
              n,
              s.protocolVersion() >= 2,
              pool),
          r.length());
    }
  }

  private LanePool pool(MooncakeSegment s) {
    return pools.computeIfAbsent(
        s.host() + ":" + s.dataPort(),
        k -> new LanePool(client, s.host(), s.dataPort(), options.getLanesPerPeer()));
  }

  /**
   * Sends one slice an engine cut from a request to {@code segment}, as one Mooncake request on one
   * of the segment's lanes; its end is reported to the slice.
   *
   * @param segment a segment this transport opened
   * @param handed the engine's slice, its remote range checked against the segment by the engine
   */
  public void carry(MooncakeSegment segment, PeerSlice handed) {
    context.runOnContext(
        v -> {
          if (closed) {
            handed.failed(
                new VteException(ErrorCode.ENGINE_CLOSED, "the Mooncake transport is closed"));
            return;
          }
          LanePool pool = pool(segment);
          pool.enqueue(
              new Slice(
                  new HandedSlice(handed),
                  0,
                  handed.isWrite(),
                  handed.local(),
                  0,
                  handed.remoteAddress(),
                  handed.length(),
                  segment.protocolVersion() >= 2,
                  pool));
        });
  }

  /**
   * Sends a Mooncake notification ({@code {name, notify_msg}}) to the segment's handshake listener,
   * which Mooncake's {@code getNotifies} then returns.
   *
   * @return completes once the target acknowledged it
   */
  public Future<Void> notify(MooncakeSegment segment, String name, String message) {
    JsonObject body = new JsonObject().put("name", name).put("notify_msg", message);
    return onContext(
        () ->
            handshakes
                .call(
                    segment.rpc().host(),
                    segment.rpc().port(),
                    new HandshakeFrame(HandshakeFrame.Type.NOTIFY, body),
                    options.getConnectTimeout())
                .mapEmpty());
  }

  /** Closes every lane; unfinished requests end FAILED with ENGINE_CLOSED. */
  public Future<Void> close() {
    closed = true;
    return onContext(
        () -> {
          for (MooncakeBatch b : new ArrayList<>(live)) {
            b.endAll(
                RequestStatus.FAILED,
                new VteException(ErrorCode.ENGINE_CLOSED, "the Mooncake transport closed"));
          }
          VteException cause =
              new VteException(ErrorCode.ENGINE_CLOSED, "the Mooncake transport closed");
          pools.values().forEach(p -> p.close(cause));
          pools.clear();
          return client.close();
        });
  }

  private <T> Future<T> onContext(java.util.function.Supplier<Future<T>> action) {
    Promise<T> promise = Promise.promise();
    context.runOnContext(v -> action.get().onComplete(promise));
    return promise.future();
  }

  /** Reports the end of a {@link Slice} an engine handed over to the engine's slice. */
  private static final class HandedSlice implements Slice.Owner {

    private final PeerSlice handed;

    HandedSlice(PeerSlice handed) {
      this.handed = handed;
    }

    @Override
    public void sliceDone(Slice slice) {
      handed.completed();
    }

    @Override
    public void sliceFailed(Slice slice, VteException cause) {
      handed.failed(cause);
    }

    @Override
    public boolean abandoned(Slice slice) {
      return handed.isAbandoned();
    }

    @Override
    public void sliceDropped(Slice slice) {
      handed.dropped();
    }
  }
}

package io.vte.mooncake.engine;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vte.api.ErrorCode;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.api.VteException;
import io.vte.engine.spi.PeerSlice;
import io.vte.engine.spi.PeerTransport;
import io.vte.mooncake.MooncakeSegment;
import io.vte.mooncake.MooncakeTransport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link MooncakeTransport} behind a VTE engine ({@link MooncakeTransportProvider}): opens {@code
 * mooncake://host:rpc_port} (P2P handshake) and {@code mooncake+etcd://etcd-host:port/segment}
 * (Mooncake's etcd keys, through etcd's HTTP gateway), carries the engine's slices on the segment's
 * lanes and sends Mooncake notifications. Thread-safe.
 */
final class MooncakeEngineTransport implements PeerTransport {

  /** The P2P form of a segment name. */
  static final String P2P = "mooncake://";

  /** The etcd form of a segment name. */
  static final String ETCD = "mooncake+etcd://";

  private final MooncakeTransport transport;
  private final Map<String, MooncakeSegment> segments = new ConcurrentHashMap<>();

  MooncakeEngineTransport(MooncakeTransport transport) {
    this.transport = transport;
  }

  @Override
  public Future<SegmentHandle> open(String segmentName) {
    String lower = segmentName.toLowerCase(Locale.ROOT);
    Future<MooncakeSegment> opened;
    if (lower.startsWith(P2P)) {
      opened = transport.openSegment(segmentName.substring(P2P.length()));
    } else if (lower.startsWith(ETCD)) {
      String rest = segmentName.substring(ETCD.length());
      int slash = rest.indexOf('/');
      if (slash <= 0 || slash == rest.length() - 1) {
        return Future.failedFuture(badName(segmentName));
      }
      opened =
          transport.openSegmentFromEtcd(
              "http://" + rest.substring(0, slash), rest.substring(slash + 1));
    } else {
      return Future.failedFuture(badName(segmentName));
    }
    return opened.map(
        s -> {
          segments.put(segmentName, s);
          return new EngineView(s);
        });
  }

  private static VteException badName(String name) {
    return new VteException(
        ErrorCode.INVALID_ARGUMENT,
        "Mooncake segment name '"
            + name
            + "' is neither "
            + P2P
            + "host:rpc_port nor "
            + ETCD
            + "etcd-host:port/segment");
  }

  @Override
  public void carry(PeerSlice slice) {
    MooncakeSegment segment = segments.get(slice.segmentName());
    if (segment == null) {
      slice.failed(
          new VteException(
              ErrorCode.INVALID_ARGUMENT,
              "segment " + slice.segmentName() + " was not opened by this Mooncake transport"));
      return;
    }
    transport.carry(segment, slice);
  }

  /**
   * Sends Mooncake's notification {@code {name: topic, notify_msg: payload}}; Mooncake carries
   * text, so the payload is read as UTF-8.
   */
  @Override
  public Future<Void> notify(String segmentName, String topic, Buffer payload) {
    MooncakeSegment segment = segments.get(segmentName);
    if (segment == null) {
      return Future.failedFuture(
          new VteException(
              ErrorCode.SEGMENT_NOT_FOUND,
              "segment " + segmentName + " was not opened by this Mooncake transport"));
    }
    return transport.notify(segment, topic, payload.toString(StandardCharsets.UTF_8));
  }

  @Override
  public Future<Void> close() {
    return transport.close();
  }

  /**
   * A Mooncake segment as the engine shows it: its buffers, and one device naming the framing,
   * {@code mooncake-tcp-v2} (acknowledged WRITEs) or {@code mooncake-tcp-v1} (a WRITE completes
   * once its payload left this process: no acknowledgement).
   */
  record EngineView(MooncakeSegment segment) implements SegmentHandle {

    /** The device name prefix; the protocol version follows. */
    static final String DEVICE = "mooncake-tcp-v";

    @Override
    public String name() {
      return segment.name();
    }

    @Override
    public String serverName() {
      return segment.serverName();
    }

    @Override
    public long version() {
      return segment.version();
    }

    @Override
    public List<SegmentDevice> devices() {
      return List.of(new SegmentDevice(DEVICE + segment.protocolVersion(), true));
    }

    @Override
    public List<SegmentBuffer> buffers() {
      return segment.buffers();
    }
  }
}

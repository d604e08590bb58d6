package io.vte.it;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.handshake.HandshakeHandler;
import io.vte.handshake.HandshakeServer;
import io.vte.handshake.HandshakeServerOptions;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.Gid;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A dead peer that still accepts TCP: it serves a plausible segment descriptor (4 devices, one 64
 * MiB buffer) so engines try to connect to it, then accepts every Connect call and never answers
 * it.
 */
public final class SilentPeer implements HandshakeHandler, AutoCloseable {

  /** Address of the silent peer's buffer in its descriptor. */
  public static final long ADDRESS = 0x4000_0000L;

  /** Length of the silent peer's buffer in its descriptor. */
  public static final long LENGTH = 64L << 20;

  private final HandshakeServer server;
  private final AtomicInteger connects = new AtomicInteger();

  private SilentPeer(Vertx vertx) {
    this.server =
        Await.result(
            HandshakeServer.start(
                vertx, new HandshakeServerOptions().setHost("127.0.0.1").setPort(0), this),
            LocalEngines.WAIT);
  }

  /**
   * @param vertx where the server runs
   * @return a listening silent peer
   */
  public static SilentPeer start(Vertx vertx) {
    return new SilentPeer(vertx);
  }

  /**
   * @return its server name, the segment name to open
   */
  public String serverName() {
    return server.serverName();
  }

  /**
   * @return Connect calls received and left unanswered
   */
  public int connects() {
    return connects.get();
  }

  @Override
  public Future<ConnectReply> connect(ConnectRequest request) {
    connects.incrementAndGet();
    return Promise.<ConnectReply>promise().future();
  }

  @Override
  public Future<SegmentDescriptor> getSegment(GetSegmentRequest request) {
    SegmentDescriptor.Builder d =
        SegmentDescriptor.newBuilder()
            .setName(serverName())
            .setServerName(serverName())
            .setTransport("soft")
            .setVersion(1);
    BufferDesc.Builder b =
        BufferDesc.newBuilder()
            .setLocation("cpu:0")
            .setAddress(ADDRESS)
            .setLength(LENGTH)
            .setAccess(AccessFlags.ALL_REMOTE);
    for (int i = 0; i < LocalEngines.DEVICES; i++) {
      d.addDevices(
          DeviceDesc.newBuilder()
              .setName("silentd" + i)
              .setGid(gid(60 + i))
              .setLid(9 + i)
              .setMtu(4096)
              .setActive(true));
      b.addRkeys(100 + i);
    }
    return Future.succeededFuture(d.addBuffers(b).build());
  }

  private static ByteString gid(int lastOctet) {
    try {
      return ByteString.copyFrom(
          Gid.fromInetAddress(InetAddress.getByName("127.0.0." + lastOctet)).toBytes());
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public Future<NotifyReply> notify(NotifyRequest request) {
    return Promise.<NotifyReply>promise().future();
  }

  @Override
  public void close() {
    Await.result(server.close(), LocalEngines.WAIT);
  }
}

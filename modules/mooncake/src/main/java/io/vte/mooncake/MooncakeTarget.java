package io.vte.mooncake;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vte.api.Notification;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentBuffer;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A VTE process seen by Mooncake initiators as a Mooncake segment on the TCP transport: a handshake
 * listener (its server name is {@code host:handshakePort}; Metadata, Notify and Probe requests) and
 * a data listener (READ and WRITE, protocol versions 1 and 2). Only buffers given to {@link
 * #expose} can be read or written, each access bounds-checked before memory is touched; everything
 * else is refused with a typed error reported to {@link #refusalHandler} and the connection closed.
 *
 * <p>Mooncake's protocol carries no key and no authentication: any process that reaches these two
 * ports can read and write every exposed buffer. Bind them to an address only trusted peers reach,
 * and expose only what those peers need.
 */
public final class MooncakeTarget {

  private final Vertx vertx;
  private final Context context;
  private final MooncakeOptions options;
  private final ExposedBuffers exposed = new ExposedBuffers();
  private final AtomicLong notificationSequence = new AtomicLong();
  private final AtomicLong dataConnections = new AtomicLong();
  private NetServer handshakeServer;
  private NetServer dataServer;
  private volatile Handler<Notification> notificationHandler = n -> {};
  private volatile Handler<VteException> refusalHandler = e -> {};

  private MooncakeTarget(Vertx vertx, Context context, MooncakeOptions options) {
    this.vertx = vertx;
    this.context = context;
    this.options = options;
  }

  /**
   * Starts both listeners on {@code options.getHost()}.
   *
   * @return the target once both listen; fails with the bind error
   */
  public static Future<MooncakeTarget> start(Vertx vertx, MooncakeOptions options) {
    Context context = vertx.getOrCreateContext();
    MooncakeTarget target = new MooncakeTarget(vertx, context, options);
    Promise<MooncakeTarget> started = Promise.promise();
    context.runOnContext(v -> target.listen().map(target).onComplete(started));
    return started.future();
  }

  private Future<Void> listen() {
    long stallNanos = options.getStallTimeout().toNanos();
    dataServer =
        vertx
            .createNetServer(new NetServerOptions().setTcpNoDelay(true))
            .connectHandler(
                socket -> {
                  dataConnections.incrementAndGet();
                  new TargetDataSession(vertx, socket, exposed, this::refused, stallNanos).start();
                });
    handshakeServer =
        vertx
            .createNetServer(new NetServerOptions().setTcpNoDelay(true))
            .connectHandler(
                socket ->
                    new TargetHandshakeSession(
                            vertx, socket, options, this::descriptor, this::notified, this::refused)
                        .start());
    return dataServer
        .listen(options.getDataPort(), options.getHost())
        .compose(s -> handshakeServer.listen(options.getHandshakePort(), options.getHost()))
        .<Void>mapEmpty()
        .recover(e -> close().transform(ignored -> Future.failedFuture(e)));
  }

  /**
   * @return the server name Mooncake initiators use as segment name: {@code host:handshakePort}
   */
  public String serverName() {
    return options.getHost() + ":" + handshakeServer.actualPort();
  }

  /**
   * @return the port of the data listener ({@code tcp_data_port})
   */
  public int dataPort() {
    return dataServer.actualPort();
  }

  /**
   * @return data connections accepted so far (lanes are reused: it grows by at most one per lane)
   */
  public long dataConnectionsAccepted() {
    return dataConnections.get();
  }

  /**
   * @return the descriptor a Metadata request gets now: the exposed buffers still registered
   */
  public SegmentDescriptor descriptor() {
    List<SegmentBuffer> buffers = new ArrayList<>();
    for (RegisteredBuffer b : exposed.snapshot()) {
      if (b.isRegistered()) {
        buffers.add(new SegmentBuffer(b.location(), b.address(), b.length(), List.of()));
      }
    }
    return new SegmentDescriptor(
        serverName(), dataPort(), options.getAdvertisedProtocolVersion(), buffers);
  }

  /**
   * Lets Mooncake peers read and write {@code buffer} (whole): it appears in the descriptor under
   * its location as Mooncake's buffer name.
   *
   * @throws VteException NOT_REGISTERED, INVALID_ARGUMENT (longer than 2 GiB - 1) or
   *     OVERLAPPING_REGISTRATION (overlaps a buffer already exposed)
   */
  public MooncakeTarget expose(RegisteredBuffer buffer) {
    exposed.add(buffer);
    return this;
  }

  /**
   * Stops exposing {@code buffer}: requests that start afterwards are refused, and a WRITE under
   * way into it is cut off before its next bytes are copied. Call it before unregistering the
   * buffer.
   *
   * @return whether it was exposed
   */
  public boolean withdraw(RegisteredBuffer buffer) {
    return exposed.remove(buffer);
  }

  /**
   * @param handler receives each Mooncake notification on the target's event loop: {@code from} the
   *     peer's address, {@code topic} Mooncake's {@code name}, {@code payload} its {@code
   *     notify_msg} (UTF-8)
   */
  public MooncakeTarget notificationHandler(Handler<Notification> handler) {
    this.notificationHandler = handler == null ? n -> {} : handler;
    return this;
  }

  /**
   * @param handler receives every refused request or malformed input, as a typed exception (e.g.
   *     OUT_OF_RANGE, PROTOCOL_ERROR, TIMED_OUT, HANDSHAKE_REJECTED), on the target's event loop
   */
  public MooncakeTarget refusalHandler(Handler<VteException> handler) {
    this.refusalHandler = handler == null ? e -> {} : handler;
    return this;
  }

  private void notified(String from, String name, String message) {
    notificationHandler.handle(
        new Notification(
            from, name, Buffer.buffer(message), notificationSequence.incrementAndGet()));
  }

  private void refused(VteException cause) {
    refusalHandler.handle(cause);
  }

  /** Closes both listeners (and with them their connections). */
  public Future<Void> close() {
    Promise<Void> closed = Promise.promise();
    context.runOnContext(
        v -> {
          Future<Void> a = dataServer == null ? Future.succeededFuture() : dataServer.close();
          Future<Void> b =
              handshakeServer == null ? Future.succeededFuture() : handshakeServer.close();
          Future.join(a, b).<Void>mapEmpty().onComplete(closed);
        });
    return closed.future();
  }
}

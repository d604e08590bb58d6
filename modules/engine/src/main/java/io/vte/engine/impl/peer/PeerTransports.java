package io.vte.engine.impl.peer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.ErrorCode;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Routes;
import io.vte.engine.impl.rail.Transport;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.spi.PeerTransport;
import io.vte.engine.spi.PeerTransportProvider;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The engine's transports to peers of other kinds ({@link PeerTransportProvider}s on the class
 * path, none by default): opens the segment names of their schemes ({@code scheme://...}, {@code
 * scheme+variant://...}) through them instead of the metadata store, and is the {@link Transport}
 * of those segments (the verbs rails are not: {@link #except}). A provider's transport starts at
 * the first name of its scheme and closes with the engine. Thread-safe.
 */
public final class PeerTransports implements Transport {

  private final Vertx vertx;
  private final Map<String, PeerTransportProvider> providers;
  private final Map<String, PeerTransport> started = new ConcurrentHashMap<>();
  private final Map<String, PeerRoute> routes = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param vertx the engine's Vert.x instance
   * @param providers the providers, by their scheme
   */
  public PeerTransports(Vertx vertx, List<PeerTransportProvider> providers) {
    this.vertx = vertx;
    Map<String, PeerTransportProvider> byScheme = new ConcurrentHashMap<>();
    providers.forEach(p -> byScheme.putIfAbsent(p.scheme().toLowerCase(Locale.ROOT), p));
    this.providers = byScheme;
  }

  /**
   * @param vertx the engine's Vert.x instance
   * @return the providers found with {@link ServiceLoader}
   */
  public static PeerTransports load(Vertx vertx) {
    List<PeerTransportProvider> found = new ArrayList<>();
    ServiceLoader.load(PeerTransportProvider.class, PeerTransports.class.getClassLoader())
        .forEach(found::add);
    return new PeerTransports(vertx, found);
  }

  /**
   * @param segmentName a segment name
   * @return the scheme of a provider that opens it, or null
   */
  String schemeOf(String segmentName) {
    int end = segmentName.indexOf("://");
    if (end <= 0) {
      return null;
    }
    String scheme = segmentName.substring(0, end).toLowerCase(Locale.ROOT);
    int plus = scheme.indexOf('+');
    String base = plus < 0 ? scheme : scheme.substring(0, plus);
    return providers.containsKey(base) ? base : null;
  }

  /**
   * @param lookup a metadata lookup by segment name
   * @return the same lookup, but names of a provider's scheme opened by its transport
   */
  public Function<String, Future<SegmentDescriptor>> around(
      Function<String, Future<SegmentDescriptor>> lookup) {
    return name -> {
      String scheme = schemeOf(name);
      if (scheme == null) {
        return lookup.apply(name);
      }
      PeerTransport transport;
      try {
        transport = transport(scheme);
      } catch (VteException e) {
        return Future.failedFuture(e);
      }
      return transport.open(name).map(h -> descriptorOf(scheme, name, h));
    };
  }

  private PeerTransport transport(String scheme) {
    if (closed) {
      throw new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed");
    }
    return started.computeIfAbsent(scheme, s -> providers.get(s).start(vertx));
  }

  /** A peer's segment as a descriptor the data path reads: its buffers, no keys. */
  static SegmentDescriptor descriptorOf(String scheme, String name, SegmentHandle handle) {
    SegmentDescriptor.Builder d =
        SegmentDescriptor.newBuilder()
            .setName(name)
            .setServerName(handle.serverName())
            .setTransport(scheme)
            .setVersion(handle.version());
    for (SegmentDevice device : handle.devices()) {
      d.addDevices(DeviceDesc.newBuilder().setName(device.name()).setActive(device.active()));
    }
    for (SegmentBuffer b : handle.buffers()) {
      d.addBuffers(
          BufferDesc.newBuilder()
              .setLocation(b.location())
              .setAddress(b.address())
              .setLength(b.length()));
    }
    return d.build();
  }

  /**
   * @param segment a peer segment
   * @return true when a peer transport opened it
   */
  public boolean owns(PeerSegment segment) {
    return started.containsKey(segment.descriptor().getTransport());
  }

  @Override
  public Routes routesTo(PeerSegment segment, int bufferIndex) {
    PeerTransport transport = started.get(segment.descriptor().getTransport());
    if (transport == null || closed) {
      return null;
    }
    PeerRoute route = routes.get(segment.name());
    if (route == null || route.transport() != transport) {
      route = new PeerRoute(transport, segment.name());
      routes.put(segment.name(), route);
    }
    return route;
  }

  /**
   * @param other another transport (the verbs rails)
   * @return {@code other}, but with no routes to the segments of peer transports
   */
  public Transport except(Transport other) {
    return (segment, bufferIndex) -> owns(segment) ? null : other.routesTo(segment, bufferIndex);
  }

  /**
   * @param segment a segment a peer transport opened ({@link #owns})
   * @param topic the notification's name
   * @param payload its bytes
   * @return completes once the peer took it
   */
  public Future<Void> notify(PeerSegment segment, String topic, Buffer payload) {
    return started.get(segment.descriptor().getTransport()).notify(segment.name(), topic, payload);
  }

  /**
   * Closes every started transport.
   *
   * @return completes when all are closed, also when one failed
   */
  public Future<Void> close() {
    closed = true;
    List<Future<Void>> closes = new ArrayList<>();
    started.values().forEach(t -> closes.add(t.close()));
    routes.clear();
    return Future.join(closes).transform(ar -> Future.succeededFuture());
  }
}

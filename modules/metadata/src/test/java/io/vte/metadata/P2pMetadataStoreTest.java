package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeClientOptions;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.HandshakeHandler;
import io.vte.handshake.HandshakeServer;
import io.vte.handshake.HandshakeServerOptions;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The p2p store against a real handshake server whose GetSegment handler is a stub. */
@ExtendWith(BlockedThreadGuard.class)
class P2pMetadataStoreTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  private Vertx vertx;
  private HandshakeClientPool pool;
  private final List<HandshakeServer> servers = new CopyOnWriteArrayList<>();
  private final List<GetSegmentRequest> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
  }

  @AfterEach
  void tearDown() {
    Await.result(pool.close(), WAIT);
    for (HandshakeServer s : servers) {
      Await.result(s.close(), WAIT);
    }
    Await.result(vertx.close(), WAIT);
  }

  /** A server whose GetSegment answers with {@code segments}; the other calls are not used here. */
  private HandshakeServer server(Function<GetSegmentRequest, Future<SegmentDescriptor>> segments) {
    HandshakeHandler handler =
        new HandshakeHandler() {
          @Override
          public Future<ConnectReply> connect(ConnectRequest request) {
            return Future.failedFuture(new VteException(ErrorCode.INVALID_ARGUMENT, "not used"));
          }

          @Override
          public Future<SegmentDescriptor> getSegment(GetSegmentRequest request) {
            requests.add(request);
            return segments.apply(request);
          }

          @Override
          public Future<NotifyReply> notify(NotifyRequest request) {
            return Future.failedFuture(new VteException(ErrorCode.INVALID_ARGUMENT, "not used"));
          }
        };
    HandshakeServer s =
        Await.result(
            HandshakeServer.start(
                vertx, new HandshakeServerOptions().setHost("127.0.0.1").setPort(0), handler),
            WAIT);
    servers.add(s);
    return s;
  }

  private MetadataStore p2p(Duration deadline) {
    MetadataStore store =
        MetadataStores.create(
            vertx, "p2p", new MetadataOptions().setCallDeadline(deadline), pool::getSegment);
    Await.result(store.start(), WAIT);
    return store;
  }

  private static ErrorCode codeOf(Future<?> f) {
    return assertInstanceOf(VteException.class, Await.failure(f, WAIT)).code();
  }

  @Test
  void lookupAsksThePeerWhoServesWhatItsOwnStorePublished() {
    MetadataStore peerStore = p2p(Duration.ofSeconds(3));
    HandshakeServer peer =
        server(
            req ->
                peerStore
                    .local(req.getName())
                    .map(Future::succeededFuture)
                    .orElseGet(
                        () ->
                            Future.failedFuture(
                                new VteException(ErrorCode.SEGMENT_NOT_FOUND, req.getName()))));
    SegmentDescriptor d = Descriptors.sample(peer.serverName(), peer.serverName(), 4, 2);
    Await.result(peerStore.publish(d), WAIT);

    MetadataStore store = p2p(Duration.ofSeconds(3));
    assertEquals(d, Await.result(store.lookup(peer.serverName()), WAIT));
    assertEquals(peer.serverName(), requests.get(0).getName());
    assertEquals(d, peerStore.local("").orElseThrow(), "empty name means the node's own segment");
    assertFalse(store.isDegraded());
    assertEquals(0, store.degradedCount());

    Await.result(peerStore.unpublish(peer.serverName()), WAIT);
    assertEquals(ErrorCode.SEGMENT_NOT_FOUND, codeOf(store.lookup(peer.serverName())));
  }

  @Test
  void deadPeerIsUnreachable() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    MetadataStore store = p2p(Duration.ofSeconds(3));
    assertEquals(ErrorCode.PEER_UNREACHABLE, codeOf(store.lookup("127.0.0.1:" + closedPort)));
  }

  @Test
  void silentPeerTimesOutWithinTheDeadline() {
    HandshakeServer peer = server(req -> Promise.<SegmentDescriptor>promise().future());
    MetadataStore store = p2p(Duration.ofMillis(500));
    long t0 = System.nanoTime();
    assertEquals(ErrorCode.TIMED_OUT, codeOf(store.lookup(peer.serverName())));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(ms < 5000, "timed out after " + ms + " ms");
  }

  @Test
  void descriptorWithoutServerNameIsAProtocolError() {
    HandshakeServer peer =
        server(
            req ->
                Future.succeededFuture(
                    Descriptors.sample(req.getName(), "127.0.0.1:1", 1, 1).toBuilder()
                        .clearServerName()
                        .build()));
    MetadataStore store = p2p(Duration.ofSeconds(3));
    VteException e =
        assertInstanceOf(VteException.class, Await.failure(store.lookup(peer.serverName()), WAIT));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("server_name"), e.getMessage());
  }

  @Test
  void badNamesAndBadDescriptorsAreInvalidArguments() {
    MetadataStore store = p2p(Duration.ofSeconds(3));
    assertEquals(ErrorCode.INVALID_ARGUMENT, codeOf(store.lookup("")));
    assertEquals(ErrorCode.INVALID_ARGUMENT, codeOf(store.lookup("no-port-here")));
    assertEquals(
        ErrorCode.INVALID_ARGUMENT, codeOf(store.publish(SegmentDescriptor.getDefaultInstance())));
    SegmentDescriptor unevenRkeys =
        Descriptors.sample("a:1", "a:1", 1, 1).toBuilder()
            .setBuffers(
                0,
                Descriptors.sample("a:1", "a:1", 1, 1).getBuffers(0).toBuilder()
                    .clearRkeys()
                    .addRkeys(1))
            .build();
    assertEquals(ErrorCode.INVALID_ARGUMENT, codeOf(store.publish(unevenRkeys)));
  }

  @Test
  void p2pWithoutAFetcherIsAConfigurationError() {
    VteException e =
        assertThrows(
            VteException.class, () -> MetadataStores.create(vertx, "p2p", new MetadataOptions()));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
  }

  @Test
  void closedStoreRefusesWork() {
    MetadataStore store = p2p(Duration.ofSeconds(3));
    Await.result(store.close(), WAIT);
    assertEquals(ErrorCode.ENGINE_CLOSED, codeOf(store.lookup("127.0.0.1:1")));
    assertEquals(
        ErrorCode.ENGINE_CLOSED, codeOf(store.publish(Descriptors.sample("a:1", "a:1", 1, 1))));
  }
}

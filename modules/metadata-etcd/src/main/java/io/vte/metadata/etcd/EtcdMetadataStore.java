package io.vte.metadata.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.options.GetOption;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.MetadataStores;
import io.vte.metadata.StartDeadline;
import io.vte.metadata.impl.DescriptorCache;
import io.vte.metadata.impl.LocalSegments;
import io.vte.metadata.impl.MetadataUri;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Segment descriptors in a real etcd v3 cluster (jetcd).
 *
 * <p>Layout under the cluster prefix: {@code <prefix>/segments/<name>} holds a descriptor as
 * protobuf JSON and {@code <prefix>/nodes/<serverName>} the node's RPC address, both under the
 * node's lease, kept alive while the node lives, so a dead node's entries vanish after the lease
 * TTL. A watch on {@code <prefix>/segments/} keeps the lookup cache current and tells the
 * invalidation handler.
 *
 * <p>All state changes run on the store's own Vert.x context; jetcd's callbacks hop there. Answers
 * hop back to the caller's context. Every etcd call has the call deadline. A periodic probe
 * refreshes the lease (every {@code min(healthCheckInterval, TTL / 3)}; this is the keep-alive, on
 * the store's own timer rather than jetcd's, so jetcd starts no Vert.x instance of its own) and so
 * detects a lost etcd or lease: the store then turns degraded (cached lookups keep working,
 * uncached ones fail fast with {@code METADATA_UNAVAILABLE}); when etcd answers again it re-grants
 * the lease if it expired, re-publishes the local descriptors, re-creates a failed watch from the
 * last seen revision, and clears the degraded state. At start, a slow or unreachable etcd is tried
 * again until the start deadline ({@link MetadataOptions#getStartDeadline()}); only then does the
 * start fail.
 */
public final class EtcdMetadataStore implements MetadataStore {

  private static final System.Logger LOG = System.getLogger(EtcdMetadataStore.class.getName());

  private enum State {
    NEW,
    STARTING,
    RUNNING,
    CLOSED
  }

  private final Vertx vertx;
  private final MetadataUri uri;
  private final MetadataOptions options;
  private final ClientBuilder clientBuilder;
  private final EtcdCalls calls;
  private final String segmentsPrefix;
  private final ByteSequence segmentsPrefixKey;
  private final DescriptorCache cache = new DescriptorCache();
  private final LocalSegments local = new LocalSegments();
  // Segments unpublished while etcd was away: deleted when it returns.
  private final Set<String> pendingDeletes = new LinkedHashSet<>();

  private volatile State state = State.NEW;
  private volatile boolean degraded;
  private volatile long degradedCount;
  private volatile Handler<String> invalidationHandler;
  private final LeasedEntries leased;
  private final SegmentReads reads;
  private final SegmentWatch watch;
  private Client client;
  private long probeTimer = -1;
  private boolean probing;

  /**
   * @param vertx the Vert.x instance whose context the store runs on
   * @param uri an {@code etcd://} or {@code etcds://} URI
   * @param options the options (copied)
   * @throws VteException INVALID_CONFIGURATION for inconsistent credentials or TLS files
   */
  public EtcdMetadataStore(Vertx vertx, MetadataUri uri, MetadataOptions options) {
    this.vertx = vertx;
    Context context = vertx.getOrCreateContext();
    this.uri = uri;
    this.options = MetadataStores.resolve(options);
    this.clientBuilder = EtcdClients.builder(uri, this.options);
    this.calls = new EtcdCalls(context, this.options.getCallDeadline(), uri.toString());
    this.segmentsPrefix = this.options.getClusterPrefix() + "/segments/";
    this.segmentsPrefixKey = ByteSequence.from(segmentsPrefix, StandardCharsets.UTF_8);
    this.leased = new LeasedEntries(calls, this.options, segmentsPrefix, () -> client);
    this.reads =
        new SegmentReads(
            calls, segmentsPrefix, uri.toString(), cache, () -> client, this::enterDegraded);
    this.watch =
        new SegmentWatch(
            context,
            segmentsPrefix,
            cache,
            this::invalidate,
            () -> state == State.RUNNING,
            this::probeNow);
  }

  @Override
  public Future<Void> start() {
    return calls.onContext(
        () -> {
          if (state != State.NEW) {
            return Future.failedFuture(
                new VteException(
                    state == State.CLOSED ? ErrorCode.ENGINE_CLOSED : ErrorCode.INVALID_ARGUMENT,
                    "etcd metadata store for " + uri + " is " + state));
          }
          state = State.STARTING;
          client = clientBuilder.build();
          // A slow or paused etcd is waited for within the start deadline, each attempt within the
          // call deadline.
          StartDeadline deadline = StartDeadline.startingNow(vertx, options.getStartDeadline());
          return deadline
              .retry("etcd start against " + uri.clientEndpoints(), this::startAttempt)
              .compose(
                  revision -> {
                    if (state != State.STARTING) {
                      return Future.failedFuture(closed());
                    }
                    watch.start(client, revision);
                    state = State.RUNNING;
                    scheduleProbe();
                    return Future.<Void>succeededFuture();
                  })
              .recover(
                  failure -> {
                    if (state == State.STARTING) {
                      state = State.CLOSED;
                      releaseClient();
                    }
                    VteException e = calls.map("start", failure);
                    ErrorCode code =
                        e.code() == ErrorCode.PERMISSION_DENIED
                            ? e.code()
                            : ErrorCode.METADATA_UNAVAILABLE;
                    String why =
                        code == ErrorCode.PERMISSION_DENIED
                            ? "refused the credentials"
                            : "unreachable";
                    return Future.failedFuture(
                        new VteException(
                            code,
                            "etcd "
                                + why
                                + " at start, endpoints "
                                + uri.clientEndpoints()
                                + ": "
                                + e.getMessage(),
                            e));
                  });
        });
  }

  /**
   * One try at the start-up calls: reading the prefix first checks the credentials (etcd 3.4 grants
   * leases to anyone) and gives the revision the watch starts after; then the lease. A lease
   * granted by a try that timed out is never used and expires after its TTL.
   *
   * @param left the time left of the start deadline
   * @return the revision of the read
   */
  private Future<Long> startAttempt(Duration left) {
    if (state != State.STARTING) {
      return Future.failedFuture(closed());
    }
    Duration deadline =
        left.compareTo(options.getCallDeadline()) < 0 ? left : options.getCallDeadline();
    Future<Long> readable =
        calls
            .call(
                "get " + segmentsPrefix,
                client
                    .getKVClient()
                    .get(
                        segmentsPrefixKey,
                        GetOption.builder().isPrefix(true).withCountOnly(true).build()),
                deadline)
            .map(r -> r.getHeader().getRevision());
    return readable.compose(
        revision ->
            state != State.STARTING
                ? Future.failedFuture(closed())
                : leased.grant(deadline).map(revision));
  }

  @Override
  public Future<Void> publish(SegmentDescriptor descriptor) {
    VteException invalid = LocalSegments.publishError(descriptor);
    if (invalid != null) {
      return Future.failedFuture(invalid);
    }
    return calls.onContext(
        () -> {
          if (state != State.RUNNING) {
            return Future.failedFuture(notRunning());
          }
          local.put(descriptor);
          pendingDeletes.remove(descriptor.getName());
          if (degraded) {
            return Future.failedFuture(
                new VteException(
                    ErrorCode.METADATA_UNAVAILABLE,
                    "etcd "
                        + uri
                        + " unavailable: segment '"
                        + descriptor.getName()
                        + "' kept and published when it returns"));
          }
          return leased.put(descriptor).onFailure(this::enterDegraded);
        });
  }

  @Override
  public Future<Void> unpublish(String segmentName) {
    try {
      LocalSegments.checkName(segmentName);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    return calls.onContext(
        () -> {
          if (state != State.RUNNING) {
            return Future.failedFuture(notRunning());
          }
          local.remove(segmentName);
          if (degraded) {
            pendingDeletes.add(segmentName);
            return Future.failedFuture(
                new VteException(
                    ErrorCode.METADATA_UNAVAILABLE,
                    "etcd "
                        + uri
                        + " unavailable: segment '"
                        + segmentName
                        + "' is deleted when it returns"));
          }
          return leased
              .delete(segmentName)
              .onFailure(
                  e -> {
                    pendingDeletes.add(segmentName);
                    enterDegraded(e);
                  });
        });
  }

  @Override
  public Future<SegmentDescriptor> lookup(String segmentName) {
    VteException refused = refuseLookup(segmentName);
    if (refused != null) {
      return Future.failedFuture(refused);
    }
    SegmentDescriptor cached = cache.get(segmentName);
    if (cached != null) {
      return Future.succeededFuture(cached);
    }
    if (degraded) {
      return Future.failedFuture(degradedError(segmentName, "is not cached"));
    }
    return calls.onContext(() -> reads.once(segmentName));
  }

  /** Reads the key from etcd even when the watch-fed cache holds the segment. */
  @Override
  public Future<SegmentDescriptor> lookupFresh(String segmentName) {
    VteException refused = refuseLookup(segmentName);
    if (refused != null) {
      return Future.failedFuture(refused);
    }
    if (degraded) {
      return Future.failedFuture(degradedError(segmentName, "cannot be read again"));
    }
    return calls.onContext(() -> reads.read(segmentName));
  }

  /**
   * Holds back the watch's events while {@code hold} is true (the cache then goes stale as a slow
   * watch would leave it) and delivers the held events in order when released. For tests of the
   * stale-descriptor window.
   *
   * @param hold true to hold events, false to deliver the held ones and stop holding
   * @return completes once the store's context applied the change
   */
  public Future<Void> holdWatchEvents(boolean hold) {
    return calls.onContext(
        () -> {
          watch.hold(hold);
          return Future.<Void>succeededFuture();
        });
  }

  /**
   * @return why a lookup of {@code segmentName} cannot be answered at all, or null
   */
  private VteException refuseLookup(String segmentName) {
    try {
      LocalSegments.checkName(segmentName);
    } catch (VteException e) {
      return e;
    }
    return state != State.RUNNING ? notRunning() : null;
  }

  private VteException degradedError(String segmentName, String why) {
    return new VteException(
        ErrorCode.METADATA_UNAVAILABLE,
        "etcd " + uri + " unavailable (degraded) and segment '" + segmentName + "' " + why);
  }

  @Override
  public Optional<SegmentDescriptor> local(String segmentName) {
    return local.get(segmentName);
  }

  @Override
  public void setInvalidationHandler(Handler<String> handler) {
    this.invalidationHandler = handler;
  }

  @Override
  public boolean isDegraded() {
    return degraded;
  }

  @Override
  public long degradedCount() {
    return degradedCount;
  }

  /**
   * Closes the store: stops the probe, the watch and the keep-alive, revokes the lease (so the
   * node's entries vanish at once; best effort within the deadline) and releases the jetcd client.
   */
  @Override
  public Future<Void> close() {
    return calls.onContext(
        () -> {
          State was = state;
          if (was == State.CLOSED) {
            return Future.<Void>succeededFuture();
          }
          state = State.CLOSED;
          if (probeTimer >= 0) {
            vertx.cancelTimer(probeTimer);
          }
          watch.stop();
          Future<Void> revoked = was == State.RUNNING ? leased.revoke() : Future.succeededFuture();
          return revoked.andThen(v -> releaseClient());
        });
  }

  private void invalidate(String name) {
    Handler<String> handler = invalidationHandler;
    if (handler != null) {
      try {
        handler.handle(name);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "invalidation handler failed for " + name, e);
      }
    }
  }

  // ---- health probe and recovery ----

  private void scheduleProbe() {
    if (state == State.RUNNING) {
      long interval =
          Math.min(
              options.getHealthCheckInterval().toMillis(), options.getLeaseTtl().toMillis() / 3);
      probeTimer =
          vertx.setTimer(
              interval,
              id -> {
                probeTimer = -1;
                probe();
              });
    }
  }

  private void probeNow() {
    if (probeTimer >= 0) {
      vertx.cancelTimer(probeTimer);
      probeTimer = -1;
    }
    probe();
  }

  /**
   * The duty cycle of the store's health: refresh the lease (this is the keep-alive); when etcd
   * forgot it, grant a new one and re-publish; after an outage re-publish; re-create a failed
   * watch.
   */
  private void probe() {
    if (state != State.RUNNING || probing) {
      return;
    }
    probing = true;
    leased
        .keepAliveOnce()
        .compose(
            alive -> {
              if (!alive) {
                return leased.renew().compose(v -> republish());
              }
              return degraded ? republish() : Future.<Void>succeededFuture();
            })
        .compose(
            v -> {
              if (watch.lost() && state == State.RUNNING) {
                watch.restart(client);
              }
              return Future.<Void>succeededFuture();
            })
        .onSuccess(v -> leaveDegraded())
        .onFailure(this::enterDegraded)
        .onComplete(
            v -> {
              probing = false;
              if (probeTimer < 0) {
                scheduleProbe();
              }
            });
  }

  private Future<Void> republish() {
    List<Future<Void>> writes = new ArrayList<>();
    for (SegmentDescriptor d : local.all()) {
      writes.add(leased.put(d));
    }
    for (String name : List.copyOf(pendingDeletes)) {
      writes.add(leased.delete(name).onSuccess(v -> pendingDeletes.remove(name)));
    }
    return Future.all(writes).mapEmpty();
  }

  private void enterDegraded(Throwable cause) {
    if (state != State.RUNNING || degraded) {
      return;
    }
    if (cause instanceof VteException e && e.code() != ErrorCode.METADATA_UNAVAILABLE) {
      return;
    }
    degraded = true;
    degradedCount++;
    LOG.log(
        System.Logger.Level.WARNING,
        "etcd metadata store degraded, serving {0} cached descriptors: {1}",
        cache.size(),
        cause.getMessage());
  }

  private void leaveDegraded() {
    if (degraded && state == State.RUNNING) {
      degraded = false;
      LOG.log(
          System.Logger.Level.INFO,
          "etcd metadata store recovered: lease {0}, watch from revision {1}",
          Long.toHexString(leased.id()),
          watch.nextRevision());
    }
  }

  // ---- helpers ----

  private void releaseClient() {
    if (client != null) {
      client.close();
      client = null;
    }
  }

  private VteException notRunning() {
    return state == State.CLOSED
        ? closed()
        : new VteException(
            ErrorCode.METADATA_UNAVAILABLE, "etcd metadata store for " + uri + " is not started");
  }

  private VteException closed() {
    return new VteException(
        ErrorCode.ENGINE_CLOSED, "etcd metadata store for " + uri + " is closed");
  }
}

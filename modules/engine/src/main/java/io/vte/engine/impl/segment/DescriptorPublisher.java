package io.vte.engine.impl.segment;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Puts this node's descriptor into the metadata store after changes, one put at a time and always
 * the newest descriptor: changes made while a put is in flight go out together in the next one, so
 * the backend never ends on an older descriptor than one put before it (two puts in flight at once
 * may land in either order). {@link #published()} tells a caller when what it changed is in the
 * backend, so {@code register} can complete only then.
 *
 * <p>State is confined to one context; {@link #changed()} and {@link #published()} may be called
 * from any thread.
 */
public final class DescriptorPublisher {

  private final Context context;
  private final LongSupplier currentVersion;
  private final Supplier<SegmentDescriptor> build;
  private final Function<SegmentDescriptor, Future<Void>> put;

  // confined to context
  private final List<Waiter> waiting = new ArrayList<>();
  private long publishedVersion;
  private boolean inFlight;
  private long inFlightVersion;
  private boolean closed;
  private Promise<Void> idle;

  /** A caller waiting for a put of a descriptor at least {@code version} new. */
  private record Waiter(long version, Promise<Void> done) {}

  /**
   * @param context where the state lives and puts are started
   * @param currentVersion the version the next descriptor built will have at least
   * @param build builds the newest descriptor (its version read before its contents)
   * @param put puts a descriptor into the metadata store
   */
  public DescriptorPublisher(
      Context context,
      LongSupplier currentVersion,
      Supplier<SegmentDescriptor> build,
      Function<SegmentDescriptor, Future<Void>> put) {
    this.context = context;
    this.currentVersion = currentVersion;
    this.build = build;
    this.put = put;
  }

  /** Makes sure a put of the newest descriptor follows; call after the descriptor changed. */
  public void changed() {
    published();
  }

  /**
   * @return completes when a put of a descriptor at least as new as the current one has ended:
   *     succeeds when it landed, fails with the put's failure (e.g. METADATA_UNAVAILABLE), or
   *     ENGINE_CLOSED when the publisher closed first
   */
  public Future<Void> published() {
    long version = currentVersion.getAsLong();
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          if (closed) {
            done.fail(closedFailure());
          } else if (publishedVersion >= version) {
            done.complete();
          } else {
            waiting.add(new Waiter(version, done));
            if (!inFlight) {
              putNewest();
            }
          }
        });
    return done.future();
  }

  /**
   * Stops publishing: no put starts any more, and waiters the put in flight does not cover fail
   * ENGINE_CLOSED (the others learn its outcome).
   *
   * @return completes when no put is in flight, so a withdrawal of the descriptor that follows is
   *     not overtaken by a put
   */
  public Future<Void> close() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          closed = true;
          for (Iterator<Waiter> it = waiting.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (!inFlight || w.version() > inFlightVersion) {
              it.remove();
              w.done().fail(closedFailure());
            }
          }
          if (inFlight) {
            idle = done;
          } else {
            done.complete();
          }
        });
    return done.future();
  }

  private void putNewest() {
    SegmentDescriptor d = build.get();
    long version = d.getVersion();
    inFlight = true;
    inFlightVersion = version;
    Future<Void> f;
    try {
      f = put.apply(d);
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> context.runOnContext(v -> putEnded(version, ar)));
  }

  private void putEnded(long version, AsyncResult<Void> ar) {
    inFlight = false;
    if (ar.succeeded()) {
      publishedVersion = Math.max(publishedVersion, version);
    }
    for (Iterator<Waiter> it = waiting.iterator(); it.hasNext(); ) {
      Waiter w = it.next();
      if (w.version() <= version) {
        it.remove();
        w.done().handle(ar);
      }
    }
    if (closed) {
      if (idle != null) {
        idle.complete();
        idle = null;
      }
    } else if (!waiting.isEmpty()) {
      putNewest();
    }
  }

  private static VteException closedFailure() {
    return new VteException(ErrorCode.ENGINE_CLOSED, "the engine closed before the publish");
  }
}

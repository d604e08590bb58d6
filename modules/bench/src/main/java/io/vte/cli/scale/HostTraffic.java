package io.vte.cli.scale;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * One host's traffic in a scale run, the same whether the hosts share a JVM ({@link ScaleRun}) or
 * each is a process ({@link ScaleNode}): its first transfer to a peer (open the peer's segment,
 * write once) and its all-to-all window (one batch in flight, requests round-robin over the peers).
 * Host {@code host} writes {@code requestBytes} at offset {@code requestBytes x host} of each
 * peer's first buffer, so no two hosts write the same bytes.
 */
final class HostTraffic {

  private final Vertx vertx;
  private final TransferEngine engine;
  private final RegisteredBuffer local;
  private final int host;
  private final int hosts;
  private final ScaleSettings settings;
  private final Map<String, String> causes = new ConcurrentHashMap<>();
  private final AtomicLong unpublishedLookups = new AtomicLong();

  /**
   * @param vertx for the timer between lookups
   * @param engine this host's engine
   * @param local its registered buffer (the source of every write)
   * @param host its index
   * @param hosts hosts in the run
   * @param settings request size and batch
   */
  HostTraffic(
      Vertx vertx,
      TransferEngine engine,
      RegisteredBuffer local,
      int host,
      int hosts,
      ScaleSettings settings) {
    this.vertx = vertx;
    this.engine = engine;
    this.local = local;
    this.host = host;
    this.hosts = hosts;
    this.settings = settings;
  }

  /**
   * @return the first message of each cause of a failed transfer, by error code
   */
  Map<String, String> failureCauses() {
    return causes;
  }

  private void noteFailure(Throwable t) {
    String code = t instanceof VteException v ? v.code().name() : t.getClass().getSimpleName();
    causes.putIfAbsent(code, String.valueOf(t.getMessage()));
  }

  /**
   * @return lookups that found a peer's segment not yet published, or published without its buffer,
   *     and were asked again
   */
  long unpublishedLookups() {
    return unpublishedLookups.get();
  }

  /**
   * Opens a peer's segment once its descriptor lists the peer's buffer, asking again every 20 ms
   * until the deadline while it is not there yet: a peer that starts later than this host (a
   * staggered start) has no segment until it is up (SEGMENT_NOT_FOUND), and through etcd a
   * registration is published asynchronously, so a descriptor read right after it may be from
   * before it.
   */
  private Future<SegmentHandle> openWithBuffer(String name, long deadline) {
    return engine
        .openSegment(name)
        .transform(
            ar -> {
              boolean notYet =
                  ar.succeeded()
                      ? ar.result().buffers().isEmpty()
                      : ar.cause() instanceof VteException v
                          && v.code() == ErrorCode.SEGMENT_NOT_FOUND;
              if (!notYet || System.nanoTime() - deadline >= 0) {
                return ar.succeeded()
                    ? Future.succeededFuture(ar.result())
                    : Future.failedFuture(ar.cause());
              }
              unpublishedLookups.incrementAndGet();
              return vertx
                  .timer(20, TimeUnit.MILLISECONDS)
                  .compose(t -> openWithBuffer(name, deadline));
            });
  }

  /**
   * Opens peer {@code to}'s segment and writes once to it; gives the time from the open to the
   * write's completion (handshake included) in ns to {@code latency}, failed or not.
   *
   * @param to the peer's index
   * @param segment its segment name
   * @param deadline {@link System#nanoTime()} past which the open stops waiting for the segment and
   *     its buffer
   * @param segs where the opened handle goes, at index {@code to}
   * @param latency takes the first-transfer latency, on an event loop (so it must be thread-safe)
   * @param failed counts a failed open or write
   * @param done counted down once it ended
   */
  void first(
      int to,
      String segment,
      long deadline,
      SegmentHandle[] segs,
      LongConsumer latency,
      AtomicLong failed,
      CountDownLatch done) {
    long t0 = System.nanoTime();
    openWithBuffer(segment, deadline)
        .compose(
            seg -> {
              segs[to] = seg;
              return engine.submit(List.of(write(seg)), options()).result();
            })
        .onComplete(
            ar -> {
              if (ar.failed()) {
                failed.incrementAndGet();
                noteFailure(ar.cause());
              } else if (!ar.result().allCompleted()) {
                failed.incrementAndGet();
                noteFailure(ar.result().requests().get(0).cause());
              }
              latency.accept(System.nanoTime() - t0);
              done.countDown();
            });
  }

  /**
   * All-to-all small batches until {@code end}: one batch in flight, its requests going round-robin
   * to every peer.
   *
   * @param segs the peers' handles by index (this host's own slot unused; null for a peer whose
   *     first open failed, whose requests count as failed without being sent)
   * @param end {@link System#nanoTime()} at which no further batch starts
   * @param bytes adds the bytes moved
   * @param failed adds the requests that did not complete
   * @param done counted down once the last batch ended
   */
  void window(
      SegmentHandle[] segs, long end, AtomicLong bytes, AtomicLong failed, CountDownLatch done) {
    loop(segs, host, end, bytes, failed, done);
  }

  private void loop(
      SegmentHandle[] segs,
      int next,
      long end,
      AtomicLong bytes,
      AtomicLong failed,
      CountDownLatch done) {
    if (System.nanoTime() - end >= 0 || hosts < 2) {
      done.countDown();
      return;
    }
    List<TransferRequest> batch = new ArrayList<>();
    int to = next;
    for (int k = 0; k < settings.batch(); k++) {
      to = (to + 1) % hosts;
      if (to == host) {
        to = (to + 1) % hosts;
      }
      if (segs[to] == null) {
        // its first open failed (counted there): a request to it is failed, not sent
        failed.incrementAndGet();
      } else {
        batch.add(write(segs[to]));
      }
    }
    if (batch.isEmpty()) {
      done.countDown();
      return;
    }
    int last = to;
    Future<BatchResult> f = engine.submit(batch, options()).result();
    f.onComplete(
        ar -> {
          if (ar.succeeded()) {
            bytes.addAndGet(ar.result().bytes());
            for (RequestResult r : ar.result().requests()) {
              if (r.status() != RequestStatus.COMPLETED) {
                failed.incrementAndGet();
                noteFailure(
                    r.cause() != null ? r.cause() : new IllegalStateException(r.status().name()));
              }
            }
          } else {
            failed.addAndGet(batch.size());
            noteFailure(ar.cause());
          }
          loop(segs, last, end, bytes, failed, done);
        });
  }

  private TransferRequest write(SegmentHandle seg) {
    int size = settings.requestBytes();
    return TransferRequest.write(
        local, 0, seg, seg.buffers().get(0).address() + (long) size * host, size);
  }

  private TransferOptions options() {
    return new TransferOptions().setDeadline(settings.requestDeadline());
  }
}

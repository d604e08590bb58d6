package io.vte.engine.impl.submit;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.engine.impl.rail.Carrier;
import io.vte.engine.impl.rail.Rail;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Stands in for the owners as the carrier of every rail: "posts" a slice by copying memory with
 * {@link DirectMemory} on a Vert.x context and reports it back once. Failures are injected per
 * rail; {@link #hold()} queues slices until {@link #release()}, like owners waiting for credits.
 */
final class FakeCarrier implements Carrier {

  private final Context context;
  private final List<Slice> held = new ArrayList<>();

  /** Confined to {@link #context}, like {@link #held}. */
  private boolean holding;

  private volatile Predicate<Rail> failing = r -> false;
  private volatile int failStatus;
  final AtomicInteger routed = new AtomicInteger();
  final AtomicInteger posted = new AtomicInteger();
  final AtomicInteger abandoned = new AtomicInteger();
  final AtomicLong postedAfterMark = new AtomicLong();
  final Map<Rail, AtomicInteger> routedByRail = new ConcurrentHashMap<>();
  final Map<Rail, AtomicInteger> postedByRail = new ConcurrentHashMap<>();
  private volatile boolean marked;

  /** True while a successful slice's completion is being reported (on {@link #context}). */
  private boolean reporting;

  FakeCarrier(Context context) {
    this.context = context;
  }

  /** Fails every slice on a rail matching {@code rails} with {@code status}. */
  void failRails(Predicate<Rail> rails, int status) {
    failStatus = status;
    failing = rails;
  }

  /**
   * Queues slices from now on. Runs on the context, so it is ordered after an earlier {@link
   * #release()} and before the slices of a later submit from the same thread.
   */
  void hold() {
    context.runOnContext(v -> holding = true);
  }

  /** Processes the held slices (abandoned ones are dropped unposted). */
  void release() {
    context.runOnContext(
        v -> {
          holding = false;
          List<Slice> now = new ArrayList<>(held);
          held.clear();
          now.forEach(this::process);
        });
  }

  /**
   * @return the slices held so far, taken out: {@link #release()} will not process them (the caller
   *     reports them itself)
   */
  Future<List<Slice>> takeHeld() {
    Promise<List<Slice>> taken = Promise.promise();
    context.runOnContext(
        v -> {
          taken.complete(new ArrayList<>(held));
          held.clear();
        });
    return taken.future();
  }

  /** Counts posts from now on in {@link #postedAfterMark}. */
  void mark() {
    marked = true;
  }

  @Override
  public void offer(Slice slice) {
    routed.incrementAndGet();
    routedByRail.computeIfAbsent(slice.rail(), r -> new AtomicInteger()).incrementAndGet();
    context.runOnContext(
        v -> {
          if (holding) {
            held.add(slice);
          } else {
            process(slice);
          }
        });
  }

  private void process(Slice slice) {
    if (slice.callback().isAbandoned()) {
      abandoned.incrementAndGet();
      slice.callback().onSliceDone(slice, SliceStatus.ABANDONED, null);
      return;
    }
    if (failing.test(slice.rail())) {
      slice.callback().onSliceDone(slice, failStatus, null);
      return;
    }
    posted.incrementAndGet();
    if (marked) {
      postedAfterMark.incrementAndGet();
    }
    postedByRail.computeIfAbsent(slice.rail(), r -> new AtomicInteger()).incrementAndGet();
    if (slice.opcode() == WrOpcode.RDMA_WRITE) {
      DirectMemory.copy(slice.localAddress(), slice.remoteAddress(), slice.length());
    } else {
      DirectMemory.copy(slice.remoteAddress(), slice.localAddress(), slice.length());
    }
    reporting = true;
    try {
      slice.callback().onSliceDone(slice, SliceStatus.OK, null);
    } finally {
      reporting = false;
    }
  }

  /**
   * @return the context slices are "posted" and completed on
   */
  Context context() {
    return context;
  }

  /**
   * @return true when called from inside the report of a slice's success (on {@link #context})
   */
  boolean reporting() {
    return reporting;
  }
}

package io.vte.engine.impl.owner;

import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine layer's part in owner integration tests: submits slices, retries retryable failures on
 * the next rail (rotating local and remote device), and counts every end so "exactly once" can be
 * checked.
 */
final class Transfer implements SliceCallback {

  private static final int MAX_ATTEMPTS = 40;

  final SoftNode local;
  final SoftNode peer;
  final AtomicInteger submits = new AtomicInteger();
  final AtomicInteger ends = new AtomicInteger();
  final AtomicInteger ok = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  final AtomicInteger closed = new AtomicInteger();
  final AtomicInteger retries = new AtomicInteger();
  final Queue<String> failures = new ConcurrentLinkedQueue<>();
  volatile boolean retry = true;

  Transfer(SoftNode local, SoftNode peer) {
    this.local = local;
    this.peer = peer;
  }

  void submitAll(List<Slice> slices) {
    submits.addAndGet(slices.size());
    local.router().submitAll(slices);
  }

  @Override
  public void onSliceDone(Slice slice, int status, Throwable cause) {
    ends.incrementAndGet();
    if (status == SliceStatus.OK) {
      ok.incrementAndGet();
      return;
    }
    if (status == SliceStatus.ENGINE_CLOSED) {
      closed.incrementAndGet();
      return;
    }
    if (retry && SliceStatus.isRetryable(status) && slice.attempts() < MAX_ATTEMPTS) {
      int a = slice.attempts();
      local.reassign(
          slice,
          peer,
          (slice.rail().localDeviceIndex() + 1) % local.contexts.size(),
          (a / local.contexts.size()) % peer.contexts.size());
      retries.incrementAndGet();
      submits.incrementAndGet();
      local.router().submit(slice);
      return;
    }
    failed.incrementAndGet();
    failures.add(slice + ": " + SliceStatus.name(status) + " " + cause);
  }

  @Override
  public boolean isAbandoned() {
    return false;
  }

  /**
   * @return slices that reached a final state (OK, failed or closed)
   */
  int finished() {
    return ok.get() + failed.get() + closed.get();
  }
}

package io.vte.engine.impl.submit;

import java.util.function.Consumer;

/**
 * The batches of an engine in flight, for close and the deadline sweep. A batch links itself into
 * one of a few intrusive lists (its own {@code prev}/{@code next} fields), so adding and removing
 * one allocates nothing, where a concurrent set allocated a node per batch. The lists are striped
 * by the submitting thread, so submitters on different threads rarely share a lock; a stripe's lock
 * is held only to link, unlink or walk it, never across I/O. Thread-safe.
 */
final class InFlightBatches {

  private final Stripe[] stripes;
  private final int mask;

  InFlightBatches() {
    int n = Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) * 2 - 1);
    stripes = new Stripe[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new Stripe();
    }
    mask = n - 1;
  }

  /** Adds a batch that is in no list (the submitting thread's stripe). */
  void add(BatchTracker batch) {
    stripes[(int) (Thread.currentThread().getId() & mask)].link(batch);
  }

  /** Removes a batch; nothing when it is in no list (never added, or removed already). */
  void remove(BatchTracker batch) {
    Stripe s = batch.inFlightStripe;
    if (s != null) {
      s.unlink(batch);
    }
  }

  /**
   * Runs {@code action} on every batch in flight, under its stripe's lock; the action may remove
   * the batch it is given (settling it does).
   */
  void forEach(Consumer<BatchTracker> action) {
    for (Stripe s : stripes) {
      s.forEach(action);
    }
  }

  /**
   * @return batches in flight now
   */
  int size() {
    int n = 0;
    for (Stripe s : stripes) {
      n += s.count;
    }
    return n;
  }

  /**
   * @return true when no batch is in flight
   */
  boolean isEmpty() {
    for (Stripe s : stripes) {
      if (s.count != 0) {
        return false;
      }
    }
    return true;
  }

  /** One list; its monitor guards the links of the batches in it. */
  static final class Stripe {

    private BatchTracker head;
    private volatile int count;

    synchronized void link(BatchTracker b) {
      if (b.inFlightStripe != null) {
        throw new IllegalStateException("batch is already in flight: " + b);
      }
      b.inFlightStripe = this;
      b.inFlightPrev = null;
      b.inFlightNext = head;
      if (head != null) {
        head.inFlightPrev = b;
      }
      head = b;
      count++;
    }

    synchronized void unlink(BatchTracker b) {
      if (b.inFlightStripe != this) {
        return; // removed by a racing call that held the lock first
      }
      BatchTracker prev = b.inFlightPrev;
      BatchTracker next = b.inFlightNext;
      if (prev == null) {
        head = next;
      } else {
        prev.inFlightNext = next;
      }
      if (next != null) {
        next.inFlightPrev = prev;
      }
      b.inFlightPrev = null;
      b.inFlightNext = null;
      b.inFlightStripe = null;
      count--;
    }

    /** Runs {@code action} on {@code b} under this list's lock, if {@code b} is in this list. */
    synchronized void whileLinked(BatchTracker b, Consumer<BatchTracker> action) {
      if (b.inFlightStripe == this) {
        action.accept(b);
      }
    }

    synchronized void forEach(Consumer<BatchTracker> action) {
      BatchTracker b = head;
      while (b != null) {
        BatchTracker next = b.inFlightNext; // read first: the action may unlink b
        action.accept(b);
        b = next;
      }
    }
  }
}

package io.vte.engine.impl.owner.runtime;

import io.vte.engine.impl.rail.Slice;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The slices other threads hand to one owner: a bounded multi-producer, single-consumer ring with
 * no allocation per slice. A producer claims a sequence with one CAS and publishes the slice with
 * an ordered store; the owner takes slices in sequence order and frees their cells with ordered
 * stores. {@link #offer} returns false when the ring is full and leaves the slice to the caller
 * (nothing is dropped, nothing waits).
 */
public final class SliceQueue {

  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(Slice[].class);
  private static final VarHandle HEAD;

  static {
    try {
      HEAD = MethodHandles.lookup().findVarHandle(SliceQueue.class, "head", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Fewest cells of a ring, whatever the credits. */
  public static final int MIN_CAPACITY = 1024;

  private final Slice[] cells;
  private final int mask;

  /** Next sequence a producer claims. */
  private final AtomicLong tail = new AtomicLong();

  /** Next sequence the owner takes; written by the owner only (ordered stores). */
  @SuppressWarnings("unused") // through HEAD
  private volatile long head;

  /**
   * A producer's last look at {@link #head}: it reads the owner's field only when this says full.
   */
  private volatile long headCache;

  /**
   * @param capacity cells, a power of two
   */
  public SliceQueue(int capacity) {
    if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity " + capacity + " is not a power of two");
    }
    this.cells = new Slice[capacity];
    this.mask = capacity - 1;
  }

  /**
   * The ring for an owner with {@code credits} CQ entries: four cycles' worth of posts, at least
   * {@link #MIN_CAPACITY}, so it fills only when producers outrun the owner by far.
   *
   * @param credits the owner's CQ capacity
   * @return the ring's capacity, a power of two
   */
  public static int capacityFor(int credits) {
    long want = Math.max(MIN_CAPACITY, 4L * credits);
    return (int) Math.min(1 << 30, Long.highestOneBit(want - 1) << 1);
  }

  /**
   * Queues a slice. Any thread.
   *
   * @return false when the ring is full: the slice was not queued and stays the caller's
   */
  public boolean offer(Slice slice) {
    long t;
    do {
      t = tail.get();
      if (t - headCache >= cells.length) {
        long h = (long) HEAD.getAcquire(this);
        headCache = h;
        if (t - h >= cells.length) {
          return false;
        }
      }
    } while (!tail.compareAndSet(t, t + 1));
    CELL.setRelease(cells, (int) t & mask, slice);
    return true;
  }

  /**
   * @return the oldest published slice, or null when none is (one claimed but not yet published is
   *     taken by a later poll). The owner's thread only.
   */
  public Slice poll() {
    long h = (long) HEAD.get(this);
    int i = (int) h & mask;
    Slice slice = (Slice) CELL.getAcquire(cells, i);
    if (slice == null) {
      return null;
    }
    CELL.setRelease(cells, i, null);
    HEAD.setRelease(this, h + 1);
    return slice;
  }

  /**
   * @return the cells
   */
  public int capacity() {
    return cells.length;
  }
}

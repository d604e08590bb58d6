package io.vte.engine.impl.shm;

import io.vertx.core.Context;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Who is copying in a shared-memory buffer, so that its owner's revocation waits for them: a copier
 * holds a shared record lock (fcntl) on its own byte of the file's lock area while it copies, and a
 * read lock of the file's lock in this JVM (record locks do not exclude threads of one process);
 * the owner, after marking the buffer revoked, takes this JVM's write lock and then an exclusive
 * record lock over the whole area. The kernel drops a dead process's record locks, so a peer killed
 * mid-copy never holds a revocation up; no lock touches the mapped memory, so a truncated file
 * cannot fault here. Lock and unlock are system calls with full barriers: a copier that locks after
 * the owner's revocation reads the revoked state, and one that locked before is waited for.
 */
final class CopierLocks {

  private static final Map<String, ReentrantReadWriteLock> IN_THIS_JVM = new ConcurrentHashMap<>();
  private static final AtomicInteger NEXT_HINT = new AtomicInteger();

  /**
   * Which lock bytes a hold of this JVM uses now: record locks of one JVM may not overlap, so two
   * holds never share a byte (a byte per thread would repeat after {@code LOCKS} threads).
   */
  private static final AtomicIntegerArray BYTE_IN_USE =
      new AtomicIntegerArray(SharedMemoryHeader.LOCKS);

  /** Where a copier thread starts looking for a free byte: its own, unless another holds it. */
  private static final ThreadLocal<Integer> HINT =
      ThreadLocal.withInitial(() -> NEXT_HINT.getAndIncrement() % SharedMemoryHeader.LOCKS);

  private CopierLocks() {}

  /** A copier's hold on a buffer; {@link #close} releases it. */
  static final class Hold implements AutoCloseable {
    private final ReentrantReadWriteLock.ReadLock jvm;
    private final int slot;
    private final FileLock record;
    private boolean closed;

    private Hold(ReentrantReadWriteLock.ReadLock jvm, int slot, FileLock record) {
      this.jvm = jvm;
      this.slot = slot;
      this.record = record;
    }

    /**
     * Releases the hold once; a second call does nothing (a copy fault HotSpot delivers late, as an
     * InternalError, can interrupt a first call, after which the copier's loop releases again).
     */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        record.release();
      } catch (IOException e) {
        // the channel closed: its record locks are gone with it
      } finally {
        BYTE_IN_USE.set(slot, 0);
        jvm.unlock();
      }
    }
  }

  /**
   * Takes the calling copier thread's hold on a buffer; blocks only while the owner revokes.
   *
   * @param path the file
   * @param channel the copier's open channel on the file
   * @return the hold, or null when an owner in this JVM is revoking the buffer now
   * @throws IOException when the record lock cannot be taken (the file is gone)
   */
  static Hold copier(String path, FileChannel channel) throws IOException {
    ReentrantReadWriteLock.ReadLock jvm = lockOf(path).readLock();
    jvm.lock();
    int slot = takeSlot();
    try {
      return new Hold(jvm, slot, channel.lock(SharedMemoryHeader.LOCKS_AT + slot, 1, true));
    } catch (OverlappingFileLockException e) {
      // This JVM's owner holds the whole lock area: it marked the buffer revoked first. (Its lock
      // of the path was replaced while this copier waited on the old one.)
      release(jvm, slot);
      return null;
    } catch (IOException | RuntimeException e) {
      release(jvm, slot);
      throw e;
    }
  }

  private static int takeSlot() {
    int hint = HINT.get();
    while (true) {
      for (int i = 0; i < SharedMemoryHeader.LOCKS; i++) {
        int slot = (hint + i) % SharedMemoryHeader.LOCKS;
        if (BYTE_IN_USE.compareAndSet(slot, 0, 1)) {
          return slot;
        }
      }
      // more holds at once than lock bytes: one ends within a copy
      Thread.onSpinWait();
    }
  }

  private static void release(ReentrantReadWriteLock.ReadLock jvm, int slot) {
    BYTE_IN_USE.set(slot, 0);
    jvm.unlock();
  }

  /**
   * Waits until no copier holds the buffer (call after marking it revoked): this JVM's copiers
   * first, then every other process's (fcntl locks cannot be waited on with a deadline, so it
   * re-tries every millisecond). Blocks up to the deadline: call on a worker, never an event loop.
   *
   * @param path the file
   * @param channel the owner's open channel on the file
   * @param deadlineNanos {@link System#nanoTime()} after which to give up
   * @return true when no copier is inside; false at the deadline
   */
  static boolean awaitNoCopier(String path, FileChannel channel, long deadlineNanos)
      throws IOException, InterruptedException {
    if (Context.isOnEventLoopThread()) {
      throw new IllegalStateException(
          "waiting for the copiers of " + path + " blocks: call on a worker, not an event loop");
    }
    ReentrantReadWriteLock.WriteLock jvm = lockOf(path).writeLock();
    if (!jvm.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      return false;
    }
    try {
      while (true) {
        FileLock all;
        try {
          all = channel.tryLock(SharedMemoryHeader.LOCKS_AT, SharedMemoryHeader.LOCKS, false);
        } catch (OverlappingFileLockException e) {
          all = null;
        }
        if (all != null) {
          all.release();
          return true;
        }
        if (System.nanoTime() - deadlineNanos > 0) {
          return false;
        }
        Thread.sleep(1);
      }
    } finally {
      jvm.unlock();
      IN_THIS_JVM.remove(path);
    }
  }

  /**
   * @return this JVM's lock of {@code path}: copiers take its read lock, a revoking owner its write
   *     lock (a test holds that to stall the copiers deterministically)
   */
  static ReentrantReadWriteLock lockOf(String path) {
    return IN_THIS_JVM.computeIfAbsent(path, p -> new ReentrantReadWriteLock());
  }
}

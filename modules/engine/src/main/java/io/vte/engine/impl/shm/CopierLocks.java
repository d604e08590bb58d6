package io.vte.engine.impl.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
  private static final AtomicInteger NEXT_BYTE = new AtomicInteger();

  /** Each copier thread's own lock byte (distinct in this JVM: record locks may not overlap). */
  private static final ThreadLocal<Integer> BYTE =
      ThreadLocal.withInitial(
          () ->
              SharedMemoryHeader.LOCKS_AT + NEXT_BYTE.getAndIncrement() % SharedMemoryHeader.LOCKS);

  private CopierLocks() {}

  /** A copier's hold on a buffer; {@link #close} releases it. */
  static final class Hold implements AutoCloseable {
    private final ReentrantReadWriteLock.ReadLock jvm;
    private final FileLock record;

    private Hold(ReentrantReadWriteLock.ReadLock jvm, FileLock record) {
      this.jvm = jvm;
      this.record = record;
    }

    @Override
    public void close() {
      try {
        record.release();
      } catch (IOException e) {
        // the channel closed: its record locks are gone with it
      } finally {
        jvm.unlock();
      }
    }
  }

  /**
   * Takes the calling copier thread's hold on a buffer; blocks only while the owner revokes.
   *
   * @param path the file
   * @param channel the copier's open channel on the file
   * @return the hold
   * @throws IOException when the record lock cannot be taken (the file is gone)
   */
  static Hold copier(String path, FileChannel channel) throws IOException {
    ReentrantReadWriteLock.ReadLock jvm = lockOf(path).readLock();
    jvm.lock();
    try {
      return new Hold(jvm, channel.lock(BYTE.get(), 1, true));
    } catch (IOException | RuntimeException e) {
      jvm.unlock();
      throw e;
    }
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

  private static ReentrantReadWriteLock lockOf(String path) {
    return IN_THIS_JVM.computeIfAbsent(path, p -> new ReentrantReadWriteLock());
  }
}

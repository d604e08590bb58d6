package io.vte.engine.impl.shm;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CopierLocksTest {

  @TempDir Path dir;

  private FileChannel open(Path file) throws Exception {
    Files.write(file, new byte[SharedMemoryHeader.SIZE]);
    return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }

  @Test
  void aCopierMeetingThisJvmsRevocationGetsNoHoldInsteadOfDying() throws Exception {
    Path file = dir.resolve("revoking");
    try (FileChannel owner = open(file);
        FileChannel copier = FileChannel.open(file, StandardOpenOption.READ)) {
      // what awaitNoCopier holds while it checks, after a copier took the path's old JVM lock
      try (FileLock all =
          owner.lock(SharedMemoryHeader.LOCKS_AT, SharedMemoryHeader.LOCKS, false)) {
        assertNull(CopierLocks.copier(file.toString(), copier), "held: " + all);
      }
      try (CopierLocks.Hold hold = CopierLocks.copier(file.toString(), copier)) {
        assertNotNull(hold, "the copier's read lock and byte were given back");
      }
    }
  }

  @Test
  void twoLiveHoldsNeverShareALockByteAfterManyCopierThreads() throws Exception {
    Path file = dir.resolve("busy");
    try (FileChannel channel = open(file)) {
      String path = file.toString();
      CountDownLatch held = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread first =
          new Thread(
              () -> {
                try (CopierLocks.Hold hold = CopierLocks.copier(path, channel)) {
                  if (hold == null) {
                    throw new AssertionError("the first copier got no hold");
                  }
                  held.countDown();
                  done.await(30, TimeUnit.SECONDS);
                } catch (Throwable t) {
                  failure.set(t);
                  held.countDown();
                }
              });
      first.start();
      held.await(30, TimeUnit.SECONDS);
      // a lock byte per thread would come round to the first thread's byte after LOCKS threads
      for (int i = 0; i < SharedMemoryHeader.LOCKS; i++) {
        CompletableFuture<CopierLocks.Hold> hold = new CompletableFuture<>();
        Thread t =
            new Thread(
                () -> {
                  try {
                    CopierLocks.Hold h = CopierLocks.copier(path, channel);
                    hold.complete(h);
                    if (h != null) {
                      h.close();
                    }
                  } catch (Throwable e) {
                    hold.completeExceptionally(e);
                  }
                });
        t.start();
        assertNotNull(hold.get(30, TimeUnit.SECONDS), "copier thread " + i + " got its hold");
        t.join();
      }
      done.countDown();
      first.join();
      assertNull(failure.get());
    }
  }
}

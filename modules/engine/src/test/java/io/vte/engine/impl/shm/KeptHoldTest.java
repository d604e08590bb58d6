package io.vte.engine.impl.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vte.handshake.proto.SharedMemoryDesc;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copier thread keeps its copier lock between copies into one buffer, so an owner's revocation
 * waits for it; the kept copier sees the revocation at its next copy and lets go, and a released
 * one is not waited for.
 */
class KeptHoldTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int LENGTH = 1 << 20;
  private static final int SLICE = 64 * 1024;

  @TempDir Path dir;

  private final HostIdentity self = HostIdentity.current();
  private final ByteBuffer local = ByteBuffer.allocateDirect(SLICE);
  private final CopyCheck check =
      new CopyCheck(new SharedMemoryRail(self, 1_000_000L, 1, "kept-test-"));
  private final PeerMapping.KeptHold kept = new PeerMapping.KeptHold();

  @Test
  void aKeptLockHoldsARevocationUntilTheNextCopySeesIt() throws Exception {
    SharedMemoryFile file = SharedMemoryFile.create(dir, LENGTH, self);
    PeerMapping mapping = attach(file);
    try {
      for (int i = 0; i < 3; i++) {
        local.put(0, (byte) (i + 1));
        assertEquals(
            PeerMapping.Outcome.OK,
            mapping.copy(false, DirectMemory.address(local), (long) i * SLICE, SLICE, check, kept));
        assertEquals(i + 1, file.byteBuffer().get(i * SLICE), "copy " + i + " landed");
      }
      CompletableFuture<Throwable> revoked = new CompletableFuture<>();
      Thread owner =
          new Thread(
              () -> {
                try {
                  file.revoke();
                  revoked.complete(null);
                } catch (Throwable t) {
                  revoked.complete(t);
                }
              },
              "revoking-owner");
      owner.start();
      Await.until(
          "the owner's revocation waits for the kept copier lock",
          WAIT,
          () -> CopierLocks.lockOf(file.path().toString()).hasQueuedThreads());
      assertEquals(
          PeerMapping.Outcome.REVOKED,
          mapping.copy(false, DirectMemory.address(local), 0, SLICE, check, kept),
          "the kept copier's next copy sees the revocation");
      assertNull(revoked.get(WAIT.toSeconds(), TimeUnit.SECONDS), "the revocation completes");
      owner.join(WAIT.toMillis());
    } finally {
      kept.release();
      mapping.close();
    }
  }

  @Test
  void aReleasedLockIsNotWaitedFor() throws Exception {
    SharedMemoryFile file = SharedMemoryFile.create(dir, LENGTH, self);
    PeerMapping mapping = attach(file);
    try {
      for (int i = 0; i <= PeerMapping.KeptHold.MAX_COPIES; i++) {
        assertEquals(
            PeerMapping.Outcome.OK,
            mapping.copy(true, DirectMemory.address(local), 0, SLICE, check, kept));
      }
      kept.release();
      long start = System.nanoTime();
      file.revoke(); // TIMED_OUT after 5 s if a lock were left behind
      assertTrue(
          System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "no copier was waited for");
    } finally {
      mapping.close();
    }
  }

  @Test
  void aHoldClosedTwiceIsReleasedOnce() throws Exception {
    SharedMemoryFile file = SharedMemoryFile.create(dir, LENGTH, self);
    try (FileChannel channel =
        FileChannel.open(file.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      CopierLocks.Hold hold = CopierLocks.copier(file.path().toString(), channel);
      assertNotNull(hold);
      hold.close();
      // a copy fault HotSpot delivers late can interrupt a first release; the copier releases again
      hold.close();
      long start = System.nanoTime();
      file.revoke();
      assertTrue(
          System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "no copier was waited for");
    }
  }

  private PeerMapping attach(SharedMemoryFile file) {
    SharedMemoryDesc desc =
        SharedMemoryDesc.newBuilder()
            .setPath(file.path().toString())
            .setNonce(ByteString.copyFrom(file.nonce()))
            .setBootId(self.bootId())
            .setUid((int) self.uid())
            .setDataOffset(SharedMemoryFile.DATA_OFFSET)
            .build();
    return PeerMapping.attach(desc, 0, LENGTH, self);
  }
}

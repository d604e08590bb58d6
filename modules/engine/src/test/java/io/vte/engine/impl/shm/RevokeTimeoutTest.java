package io.vte.engine.impl.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.VteException;
import io.vte.engine.impl.EngineFixture;
import io.vte.engine.impl.EngineInternals;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Unregistering shared memory while a copier never finishes: the owner waits its 5 s, then fails
 * TIMED_OUT naming the file, and the buffer is revoked, deregistered and out of the descriptor all
 * the same.
 */
@ExtendWith(BlockedThreadGuard.class)
class RevokeTimeoutTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void unregisterFailsTimedOutAfterFiveSecondsWhileACopierNeverEnds() throws Exception {
    TransferEngineImpl engine =
        fx.start(
            Vertx.vertx(),
            new EngineOptions().setDevices(List.of("rt0@127.0.0.1")).setRpcHost("127.0.0.1"));
    RegisteredBuffer buffer = Await.result(engine.allocate(1 << 20, "cpu:0"), WAIT);
    Path path = ((LocalBuffer) buffer).sharedMemory().path();

    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> copierFailure = new AtomicReference<>();
    AtomicReference<Boolean> openAfterRevoke = new AtomicReference<>();
    Thread copier =
        new Thread(
            () -> {
              try (FileChannel channel =
                  FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                try (CopierLocks.Hold hold = CopierLocks.copier(path.toString(), channel)) {
                  if (hold == null) {
                    throw new AssertionError("the copier got no hold on a live buffer");
                  }
                  held.countDown();
                  release.await(60, TimeUnit.SECONDS);
                }
                openAfterRevoke.set(
                    new SharedMemoryHeader(
                            channel.map(FileChannel.MapMode.READ_ONLY, 0, SharedMemoryHeader.SIZE))
                        .isOpen());
              } catch (Throwable t) {
                copierFailure.set(t);
                held.countDown();
              }
            },
            "stuck-copier");
    copier.start();
    assertTrue(held.await(30, TimeUnit.SECONDS));
    assertNull(copierFailure.get());

    long version = EngineInternals.descriptorForStore(engine).getVersion();
    long start = System.nanoTime();
    Throwable failure = Await.failure(engine.unregister(buffer), WAIT);
    long waited = System.nanoTime() - start;
    release.countDown();
    copier.join(30_000);

    VteException e = (VteException) failure;
    assertEquals(ErrorCode.TIMED_OUT, e.code(), e.toString());
    assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
    assertTrue(
        waited >= SharedMemoryFile.REVOKE_WAIT_NANOS,
        "waited the full 5 s for the copier, not " + waited / 1_000_000 + " ms");
    assertFalse(Files.exists(path), "the file is removed");
    assertFalse(buffer.isRegistered());
    assertTrue(
        EngineInternals.descriptorForStore(engine).getBuffersList().stream()
            .noneMatch(b -> b.getAddress() == buffer.address()),
        "the descriptor no longer lists it");
    assertTrue(
        EngineInternals.descriptorForStore(engine).getVersion() > version,
        "a new version of the descriptor goes out, so peers learn the buffer is gone");
    VteException again = (VteException) Await.failure(engine.unregister(buffer), WAIT);
    assertEquals(ErrorCode.NOT_REGISTERED, again.code());
    assertNull(copierFailure.get(), () -> "copier: " + copierFailure.get());
    assertEquals(
        Boolean.FALSE, openAfterRevoke.get(), "the header says REVOKED to every later copier");
  }
}

package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.AuthOptions;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.proto.BufferDesc;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same-host rail between two engines of one JVM: allocate, byte-exact copies through the rail,
 * revocation, refusal (another user, a removed file) with fallback to the network rails, a
 * truncated file as a typed error, and auth.
 */
@ExtendWith(BlockedThreadGuard.class)
class SharedMemoryRailTest {

  private static final int LENGTH = 8 << 20;
  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  private static Path pathOf(SegmentHandle segment) {
    BufferDesc d = ((PeerSegment) segment).descriptor().getBuffers(0);
    assertTrue(d.hasShm(), "the peer describes its buffer as shared memory: " + d);
    return Path.of(d.getShm().getPath());
  }

  /** An owner with one allocated buffer and a requester with a registered one and the segment. */
  private record Pair(
      TransferEngineImpl owner,
      TransferEngineImpl requester,
      RegisteredBuffer remote,
      RegisteredBuffer local,
      SegmentHandle seg) {}

  private Pair pair(EngineOptions requesterOptions, int length, long seed) {
    TransferEngineImpl owner = fx.start(1, 1);
    TransferEngineImpl requester = fx.start(requesterOptions);
    RegisteredBuffer remote = Await.result(owner.allocate(length, "cpu:0"), WAIT);
    RegisteredBuffer local = fx.register(requester, length, seed);
    SegmentHandle seg = Await.result(requester.openSegment(owner.serverName()), WAIT);
    return new Pair(owner, requester, remote, local, seg);
  }

  private Pair pair(int length, long seed) {
    return pair(EngineFixture.options("req" + seed, 1, 1), length, seed);
  }

  private BatchResult run(TransferEngineImpl engine, TransferRequest request) {
    return Await.result(engine.submit(List.of(request), new TransferOptions()).result(), WAIT);
  }

  @Test
  void allocateMakesAPrivateSharedMemoryFileThatUnregisterRemoves() throws Exception {
    TransferEngineImpl owner = fx.start(1, 1);
    TransferEngineImpl peer = fx.start(1, 1);
    RegisteredBuffer buffer = Await.result(owner.allocate(LENGTH, "cpu:0"), WAIT);
    assertEquals(LENGTH, buffer.length());
    ByteBuffer view = buffer.byteBuffer();
    assertEquals(LENGTH, view.capacity());
    assertEquals(0, view.get(LENGTH - 1), "zero-filled");
    Path file = pathOf(Await.result(peer.openSegment(owner.serverName()), WAIT));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    Await.result(owner.unregister(buffer), WAIT);
    assertFalse(Files.exists(file), "unregister removes " + file);
    assertFalse(buffer.isRegistered());
    view.put(0, (byte) 1); // still mapped here: the application's view never faults
    VteException bad = (VteException) Await.failure(owner.allocate(0, "cpu:0"), WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, bad.code());
  }

  @Test
  void writesAndReadsAtRandomSizesAndOffsetsAreByteExactThroughTheRail() {
    Pair p = pair(LENGTH, 3);
    long expected = fx.allocate(LENGTH);
    Random random = new Random(42);
    long moved = 0;
    for (int i = 0; i < 40; i++) {
      int len = 1 + random.nextInt(random.nextBoolean() ? 4096 : 3 << 20);
      long localOffset = random.nextInt(LENGTH - len + 1);
      long remoteOffset = random.nextInt(LENGTH - len + 1);
      EngineFixture.fill(p.local().address() + localOffset, len, i);
      BatchResult w =
          run(
              p.requester(),
              TransferRequest.write(
                  p.local(), localOffset, p.seg(), p.remote().address() + remoteOffset, len));
      assertTrue(w.allCompleted(), w.toString());
      EngineFixture.fill(expected, len, i);
      assertEquals(
          -1,
          EngineFixture.mismatch(p.remote().address() + remoteOffset, expected, len),
          "WRITE " + i + " of " + len + " B at " + remoteOffset);
      DirectMemory.fill(p.local().address() + localOffset, len, (byte) 0);
      BatchResult r =
          run(
              p.requester(),
              TransferRequest.read(
                  p.local(), localOffset, p.seg(), p.remote().address() + remoteOffset, len));
      assertTrue(r.allCompleted(), r.toString());
      assertEquals(
          -1,
          EngineFixture.mismatch(p.local().address() + localOffset, expected, len),
          "READ " + i + " of " + len + " B at " + remoteOffset);
      moved += 2L * len;
    }
    assertEquals(
        moved,
        EngineInternals.sharedMemoryRail(p.requester()).copiedBytes(),
        "every byte took the same-host rail");
    List<RailStatus> links = p.requester().diagnostics().rails();
    assertTrue(
        links.stream().anyMatch(l -> l.localDevice().equals("shm") && !l.heldDown()),
        "the rail is listed: " + links);
  }

  @Test
  void afterUnregisterNoPeerWritesAndThePeerIsDenied() {
    Pair p = pair(LENGTH, 1);
    ByteBuffer ownerView = p.remote().byteBuffer();
    List<TransferBatch> batches = new ArrayList<>();
    // writes keep coming from another thread while the p.owner() unregisters
    Thread writer =
        new Thread(
            () -> {
              for (int i = 0; i < 400; i++) {
                EngineFixture.fill(p.local().address(), 1 << 20, 100 + i);
                TransferBatch b =
                    p.requester()
                        .submit(
                            List.of(
                                TransferRequest.write(
                                    p.local(), 0, p.seg(), p.remote().address(), LENGTH)),
                            new TransferOptions());
                synchronized (batches) {
                  batches.add(b);
                }
                try {
                  Await.result(b.result(), WAIT);
                } catch (AssertionError e) {
                  return;
                }
              }
            },
            "writer");
    writer.start();
    Await.until(
        "the writer is copying",
        WAIT,
        () -> EngineInternals.sharedMemoryRail(p.requester()).copiedBytes() > LENGTH);
    Await.result(p.owner().unregister(p.remote()), WAIT);
    ByteBuffer snapshot = ByteBuffer.allocateDirect(LENGTH).put(ownerView.duplicate()).flip();
    Await.until("the writer ends", WAIT, () -> !writer.isAlive());
    int denied = 0;
    synchronized (batches) {
      for (TransferBatch b : batches) {
        BatchResult r = Await.result(b.result(), WAIT);
        RequestStatus status = r.requests().get(0).status();
        if (status == RequestStatus.FAILED) {
          assertEquals(
              ErrorCode.REMOTE_ACCESS_DENIED,
              r.requests().get(0).cause().code(),
              r + " rails " + p.requester().diagnostics().rails());
          denied++;
        }
      }
    }
    assertTrue(denied > 0, "the peer was denied after the unregister");
    assertEquals(
        -1, snapshot.mismatch(ownerView.duplicate()), "nothing written after unregister returned");
  }

  @Test
  void aPeerOfAnotherUserIsRefusedTheRailAndUsesTheNetwork() throws Exception {
    Pair p = pair(1 << 20, 5);
    Path file = pathOf(p.seg());
    // what another user's file looks like to this process: not its own
    Files.setAttribute(file, "unix:uid", 4242);
    BatchResult w =
        run(
            p.requester(),
            TransferRequest.write(p.local(), 0, p.seg(), p.remote().address(), 1 << 20));
    assertTrue(w.allCompleted(), "the network rails carried it: " + w);
    assertEquals(0, EngineInternals.sharedMemoryRail(p.requester()).copiedBytes());
    assertEquals(-1, EngineFixture.mismatch(p.local().address(), p.remote().address(), 1 << 20));
    assertRefusedWith(p.requester(), ErrorCode.PERMISSION_DENIED);
  }

  @Test
  void aRemovedFileIsRefusedAndTheNetworkCarriesTheTransfer() throws Exception {
    Pair p = pair(1 << 20, 6);
    Files.delete(pathOf(p.seg()));
    BatchResult r =
        run(
            p.requester(),
            TransferRequest.read(p.local(), 0, p.seg(), p.remote().address(), 1 << 20));
    assertTrue(r.allCompleted(), r.toString());
    assertEquals(0, EngineInternals.sharedMemoryRail(p.requester()).copiedBytes());
    assertRefusedWith(p.requester(), ErrorCode.TRANSFER_FAILED);
  }

  @Test
  void aFileTruncatedUnderTheRailIsATypedErrorNotACrash() throws Exception {
    Pair p = pair(EngineFixture.options("trunc", 1, 1).setRetryCount(0), LENGTH, 7);
    assertTrue(
        run(
                p.requester(),
                TransferRequest.write(p.local(), 0, p.seg(), p.remote().address(), LENGTH))
            .allCompleted());
    try (FileChannel f = FileChannel.open(pathOf(p.seg()), StandardOpenOption.WRITE)) {
      f.truncate(0);
    }
    BatchResult r =
        run(
            p.requester(),
            TransferRequest.read(p.local(), 0, p.seg(), p.remote().address(), LENGTH));
    assertEquals(RequestStatus.FAILED, r.requests().get(0).status(), r.toString());
    VteException cause = r.requests().get(0).cause();
    assertEquals(ErrorCode.TRANSFER_FAILED, cause.code(), cause.toString());
    assertTrue(cause.getMessage().contains("truncated"), cause.getMessage());
  }

  @Test
  void withAuthTheRailIsOfferedOverAuthenticatedCallsOnly() {
    AuthOptions auth = new AuthOptions().setKeyId("k1").setSecretBase64("c2VjcmV0LXNlY3JldC0xMjM0");
    TransferEngineImpl owner = fx.start(EngineFixture.options("auth1", 1, 1).setAuth(auth));
    TransferEngineImpl requester = fx.start(EngineFixture.options("auth2", 1, 1).setAuth(auth));
    TransferEngineImpl stranger = fx.start(1, 1);
    RegisteredBuffer remote = Await.result(owner.allocate(1 << 20, "cpu:0"), WAIT);
    RegisteredBuffer local = fx.register(requester, 1 << 20, 8);
    SegmentHandle seg = Await.result(requester.openSegment(owner.serverName()), WAIT);
    assertTrue(
        run(requester, TransferRequest.write(local, 0, seg, remote.address(), 1 << 20))
            .allCompleted());
    assertEquals(1 << 20, EngineInternals.sharedMemoryRail(requester).copiedBytes());
    Throwable refused = Await.failure(stranger.openSegment(owner.serverName()), WAIT);
    assertNotNull(refused, "a peer without auth learns nothing of the owner's memory");
    assertFalse(
        EngineInternals.descriptorForStore(owner).getBuffers(0).hasShm(),
        "the descriptor published to the store leaves shared memory out");
  }

  /**
   * The rail's last failure; not whether it is still held down: the hold-down (500 ms here) can end
   * while the network rails carry the transfer on a loaded machine.
   */
  private static void assertRefusedWith(TransferEngineImpl engine, ErrorCode code) {
    List<RailStatus> shm = new ArrayList<>();
    engine.diagnostics().rails().stream()
        .filter(l -> l.localDevice().equals("shm"))
        .forEach(shm::add);
    assertEquals(1, shm.size(), shm.toString());
    assertNotNull(shm.get(0).lastFailure(), shm.toString());
    assertEquals(code, shm.get(0).lastFailure().code(), shm.toString());
  }
}

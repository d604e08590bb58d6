package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.proto.BufferDesc;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.DirectMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The same-host rail between two JVMs: byte-exact copies, a peer killed mid-copy. */
@ExtendWith(BlockedThreadGuard.class)
class SharedMemoryTwoProcessTest {

  private static final long LENGTH = (16L << 20) + 4096;
  private final EngineFixture fx = new EngineFixture();
  private PeerProcess peer;

  @AfterEach
  void close() throws Exception {
    fx.close();
    if (peer != null) {
      peer.end();
    }
  }

  private void startPeer(String... args) throws Exception {
    peer = new PeerProcess(SharedMemoryPeerMain.class, args);
  }

  private String expect(String prefix) throws InterruptedException {
    return peer.expect(prefix, WAIT);
  }

  private static BatchResult run(TransferEngineImpl engine, TransferRequest request) {
    return Await.result(engine.submit(List.of(request), new TransferOptions()).result(), WAIT);
  }

  @Test
  void writesAndReadsAtRandomSizesAndOffsetsAreByteExactBetweenTwoJvms() throws Exception {
    startPeer("owner", Long.toString(LENGTH), "11");
    String[] ready = expect("READY").split(" ");
    long remote = Long.parseLong(ready[2]);
    TransferEngineImpl a = fx.start(1, 1);
    RegisteredBuffer local = fx.register(a, LENGTH, 99);
    SegmentHandle seg = Await.result(a.openSegment(ready[1]), WAIT);
    // the peer's memory as this test expects it, kept in step with every WRITE
    long mirror = fx.allocate(LENGTH);
    EngineFixture.fill(mirror, LENGTH, 11);
    long scratch = fx.allocate(LENGTH);
    RegisteredBuffer back = Await.result(a.register(scratch, LENGTH, "cpu:0"), WAIT);
    Random random = new Random(7);
    long moved = 0;
    for (int i = 0; i < 30; i++) {
      int len = 1 + random.nextInt(random.nextBoolean() ? 8192 : 5 << 20);
      int localOffset = random.nextInt((int) LENGTH - len + 1);
      int remoteOffset = random.nextInt((int) LENGTH - len + 1);
      EngineFixture.fill(local.address() + localOffset, len, 1000 + i);
      BatchResult w =
          run(a, TransferRequest.write(local, localOffset, seg, remote + remoteOffset, len));
      assertTrue(w.allCompleted(), w.toString());
      DirectMemory.copy(local.address() + localOffset, mirror + remoteOffset, len);
      int readOffset = random.nextInt((int) LENGTH - len + 1);
      BatchResult r = run(a, TransferRequest.read(back, 0, seg, remote + readOffset, len));
      assertTrue(r.allCompleted(), r.toString());
      assertEquals(
          -1,
          EngineFixture.mismatch(scratch, mirror + readOffset, len),
          "READ " + i + " of " + len + " B at " + readOffset);
      moved += 2L * len;
    }
    peer.send("CRC");
    assertEquals(
        PeerEngineMain.crc(mirror, LENGTH),
        Long.parseLong(expect("CRC").split(" ")[1]),
        "the peer's memory holds exactly what was written");
    assertEquals(
        moved,
        EngineInternals.sharedMemoryRail(a).copiedBytes(),
        "every byte took the same-host rail");
    peer.send("EXIT");
    expect("BYE");
  }

  @Test
  void anOwnerKilledMidCopyIsATypedFailureAndItsFileIsCleanedUp() throws Exception {
    startPeer("owner", Long.toString(LENGTH), "12");
    String[] ready = expect("READY").split(" ");
    long remote = Long.parseLong(ready[2]);
    // A short handshake deadline makes the writes after the kill fail fast; the first GetSegment
    // to the child JVM, still cold, keeps the long metadata deadline.
    TransferEngineImpl a =
        fx.start(
            EngineFixture.options("killed", 1, 1)
                .setHandshakeDeadline(Duration.ofSeconds(2))
                .setMetadata(new MetadataOptions().setCallDeadline(WAIT)));
    RegisteredBuffer local = fx.register(a, LENGTH, 98);
    SegmentHandle seg = Await.result(a.openSegment(ready[1]), WAIT);
    BufferDesc desc = ((PeerSegment) seg).descriptor().getBuffers(0);
    Path file = Path.of(desc.getShm().getPath());
    // The first connect to the cold child may miss the 2 s handshake deadline on a loaded machine:
    // warm up until one write completes.
    Await.until(
        "a warm-up write to the child completes",
        WAIT,
        () -> run(a, TransferRequest.write(local, 0, seg, remote, LENGTH)).allCompleted());
    List<io.vte.api.TransferBatch> batches = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      batches.add(
          a.submit(
              List.of(TransferRequest.write(local, 0, seg, remote, LENGTH)),
              new TransferOptions()));
    }
    peer.process().destroyForcibly();
    assertTrue(peer.process().waitFor(30, TimeUnit.SECONDS));
    // At once: an engine of the other test JVM (surefire runs two) sweeps dead owners' files too.
    assertTrue(Files.exists(file), "a killed owner leaves its file");
    RequestResult failed = null;
    for (int i = 0; i < 100 && failed == null; i++) {
      BatchResult r = run(a, TransferRequest.write(local, 0, seg, remote, LENGTH));
      if (r.requests().get(0).status() == RequestStatus.FAILED) {
        failed = r.requests().get(0);
      }
    }
    assertNotNull(failed, "writes to a dead peer fail");
    assertTrue(
        Set.of(ErrorCode.PEER_UNREACHABLE, ErrorCode.TRANSFER_FAILED)
            .contains(failed.cause().code()),
        failed.toString());
    for (io.vte.api.TransferBatch b : batches) {
      assertNotNull(Await.result(b.result(), WAIT), "every batch in flight at the kill settles");
    }
    RegisteredBuffer mine = Await.result(a.allocate(4096, "cpu:0"), WAIT);
    assertFalse(Files.exists(file), "the next allocate removes a dead process's file");
    Await.result(a.unregister(mine), WAIT);
  }

  @Test
  void aPeerKilledWhileCopyingNeverHoldsUpTheOwnersUnregister() throws Exception {
    TransferEngineImpl owner = fx.start(1, 1);
    RegisteredBuffer buffer = Await.result(owner.allocate(LENGTH, "cpu:0"), WAIT);
    startPeer("writer", owner.serverName(), Long.toString(buffer.address()), Long.toString(LENGTH));
    expect("COPYING");
    peer.process().destroyForcibly();
    assertTrue(peer.process().waitFor(30, TimeUnit.SECONDS));
    long start = System.nanoTime();
    Await.result(owner.unregister(buffer), WAIT);
    assertTrue(
        System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5),
        "a dead copier's lock went with it: no revocation wait");
  }
}

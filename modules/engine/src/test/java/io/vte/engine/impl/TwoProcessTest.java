package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Byte-exact READ and WRITE between engines in two JVM processes over soft verbs. */
@ExtendWith(BlockedThreadGuard.class)
class TwoProcessTest {

  private static final long LENGTH = (64L << 20) + 12345;
  private final EngineFixture fx = new EngineFixture();
  private PeerProcess peer;

  @AfterEach
  void close() throws Exception {
    fx.close();
    if (peer != null) {
      peer.end();
    }
  }

  @Test
  void readAndWriteBetweenTwoProcessesAreByteExact() throws Exception {
    peer = new PeerProcess(PeerEngineMain.class, Long.toString(LENGTH), "7");
    String[] ready = peer.expect("READY", WAIT).split(" ");
    String server = ready[1];
    long remoteAddress = Long.parseLong(ready[2]);
    assertEquals(LENGTH, Long.parseLong(ready[3]));

    TransferEngineImpl a = fx.start(2, 2);
    RegisteredBuffer local = fx.register(a, LENGTH, 99);
    SegmentHandle seg = Await.result(a.openSegment(server), WAIT);
    assertEquals(remoteAddress, seg.buffers().get(0).address());

    BatchResult read =
        Await.result(
            a.submit(
                    List.of(TransferRequest.read(local, 0, seg, remoteAddress, LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(read.allCompleted(), read.toString());
    long expected = fx.allocate(LENGTH);
    EngineFixture.fill(expected, LENGTH, 7);
    assertEquals(
        -1,
        EngineFixture.mismatch(local.address(), expected, LENGTH),
        "READ brought the peer's bytes");

    EngineFixture.fill(local.address(), LENGTH, 8);
    List<TransferRequest> writes = new ArrayList<>();
    long half = LENGTH / 2;
    writes.add(TransferRequest.write(local, 0, seg, remoteAddress, half));
    writes.add(TransferRequest.write(local, half, seg, remoteAddress + half, LENGTH - half));
    BatchResult write = Await.result(a.submit(writes, new TransferOptions()).result(), WAIT);
    assertTrue(write.allCompleted(), write.toString());
    peer.send("CRC");
    assertEquals(
        PeerEngineMain.crc(local.address(), LENGTH),
        Long.parseLong(peer.expect("CRC", WAIT).split(" ")[1]),
        "the peer's memory equals what was written");

    peer.send("EXIT");
    peer.expect("BYE", WAIT);
    assertTrue(peer.process().waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, peer.process().exitValue());
  }
}

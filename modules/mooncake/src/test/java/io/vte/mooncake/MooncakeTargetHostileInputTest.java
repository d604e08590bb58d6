package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hand-made frames against a VTE target's data and handshake listeners: every hostile input is a
 * typed refusal and a closed connection, and no byte outside the exposed buffer changes.
 */
@ExtendWith(BlockedThreadGuard.class)
class MooncakeTargetHostileInputTest {

  private static final int SIZE = 64 * 1024;

  private Vertx vertx;
  private TestMemory memory;
  private MooncakeTarget target;
  private final LinkedBlockingQueue<VteException> refusals = new LinkedBlockingQueue<>();

  @BeforeAll
  static void warmUp() {
    NettyWarmUp.once();
  }

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    memory = new TestMemory(SIZE, "cpu:0");
    memory.fill(1);
    target =
        Await.result(
            MooncakeTarget.start(
                vertx, new MooncakeOptions().setStallTimeout(Duration.ofMillis(300))),
            RawPeer.WAIT);
    target.expose(memory).refusalHandler(refusals::add);
  }

  @AfterEach
  void stop() {
    Await.result(target.close(), RawPeer.WAIT);
    Await.result(vertx.close(), RawPeer.WAIT);
    memory.close();
  }

  private static Buffer header(long size, long address, int opcode) {
    return new DataHeader(size, address, opcode).encodeTo(Buffer.buffer());
  }

  private VteException refusal() throws InterruptedException {
    VteException e = refusals.poll(10, TimeUnit.SECONDS);
    assertNotNull(e, "no refusal reported");
    return e;
  }

  private void assertUntouched() {
    assertTrue(memory.guardsIntact(), "a guard byte outside the exposed buffer changed");
    assertEquals(-1, memory.mismatch(1, 0, SIZE, 0), "the exposed buffer changed");
  }

  @Test
  void writeOneBytePastTheEndIsRejectedUnderV2AndNothingIsWritten() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      Buffer got =
          peer.send(header(SIZE + 1, memory.address(), DataHeader.WRITE | DataHeader.V2_FLAG))
              .send(Buffer.buffer(new byte[SIZE + 1]))
              .awaitClosed();
      assertEquals(StatusFrame.REJECTED, got.getLongLE(0));
    }
    VteException e = refusal();
    assertEquals(ErrorCode.OUT_OF_RANGE, e.code());
    assertTrue(e.getMessage().contains("WRITE of 65537 bytes"), e.getMessage());
    assertUntouched();
  }

  @Test
  void writeBelowTheBufferIsClosedWithoutAReplyUnderV1() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      Buffer got =
          peer.send(header(16, memory.address() - 8, DataHeader.WRITE))
              .send(Buffer.buffer(new byte[16]))
              .awaitClosed();
      assertEquals(0, got.length());
    }
    assertEquals(ErrorCode.OUT_OF_RANGE, refusal().code());
    assertUntouched();
  }

  @Test
  void readThatWrapsAroundTheAddressSpaceIsRejected() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      Buffer got =
          peer.send(header(-1L, memory.address() + 1, DataHeader.READ | DataHeader.V2_FLAG))
              .awaitClosed();
      assertEquals(StatusFrame.REJECTED, got.getLongLE(0));
      assertEquals(8, got.length(), "no data after a rejection");
    }
    assertEquals(ErrorCode.OUT_OF_RANGE, refusal().code());
  }

  @Test
  void addressAtTheTopOfTheAddressSpaceIsRejected() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      peer.send(header(1, -1L, DataHeader.WRITE | DataHeader.V2_FLAG)).awaitClosed();
    }
    VteException e = refusal();
    assertEquals(ErrorCode.OUT_OF_RANGE, e.code());
    assertTrue(e.getMessage().contains("0xffffffffffffffff"), e.getMessage());
    assertUntouched();
  }

  @Test
  void zeroSizeIsRejected() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      peer.send(header(0, memory.address(), DataHeader.WRITE | DataHeader.V2_FLAG)).awaitClosed();
    }
    assertEquals(ErrorCode.OUT_OF_RANGE, refusal().code());
  }

  @Test
  void unknownOpcodeIsAProtocolErrorNotARead() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      Buffer got = peer.send(header(16, memory.address(), 0x85)).awaitClosed();
      assertEquals(StatusFrame.REJECTED, got.getLongLE(0));
      assertEquals(8, got.length(), "Mooncake would have served it as a READ");
    }
    VteException e = refusal();
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("0x85"), e.getMessage());
  }

  @Test
  void truncatedHeaderThenCloseIsReported() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      peer.send(header(16, memory.address(), DataHeader.WRITE).getBuffer(0, 10));
    }
    VteException e = refusal();
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("10 of 24"), e.getMessage());
  }

  @Test
  void peerThatStopsMidPayloadIsCutOffAfterTheStallTimeout() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      Buffer got =
          peer.send(header(1000, memory.address() + 100, DataHeader.WRITE | DataHeader.V2_FLAG))
              .send(Buffer.buffer(new byte[400]))
              .awaitClosed();
      assertEquals(0, got.length(), "no acknowledgement for a payload cut short");
    }
    VteException e = refusal();
    assertEquals(ErrorCode.TIMED_OUT, e.code());
    assertTrue(e.getMessage().contains("400 of 1000"), e.getMessage());
    assertTrue(memory.guardsIntact());
    assertEquals(-1, memory.mismatch(1, 500, SIZE, 500), "bytes past the payload received changed");
  }

  @Test
  void bufferWithdrawnMidWriteStopsTheCopy() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      peer.send(header(2000, memory.address(), DataHeader.WRITE | DataHeader.V2_FLAG))
          .send(Buffer.buffer(new byte[1000]));
      Await.until("the first half lands", RawPeer.WAIT, () -> memory.get(999) == 0);
      target.withdraw(memory);
      peer.send(Buffer.buffer(new byte[1000]));
      assertEquals(StatusFrame.REJECTED, peer.awaitClosed().getLongLE(0));
    }
    assertEquals(ErrorCode.NOT_REGISTERED, refusal().code());
    assertEquals(-1, memory.mismatch(1, 1000, SIZE, 1000), "bytes after the withdrawal changed");
  }

  @Test
  void handshakeWithOversizedLengthIsRefused() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, port())) {
      peer.send(Buffer.buffer().appendLongLE(2L << 20).appendByte((byte) 1)).awaitClosed();
    }
    assertEquals(ErrorCode.PROTOCOL_ERROR, refusal().code());
  }

  @Test
  void handshakeWithUnknownTypeIsRefusedWithoutAReply() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, port())) {
      Buffer got =
          peer.send(Buffer.buffer().appendLongLE(3).appendByte((byte) 7).appendString("{}"))
              .awaitClosed();
      assertEquals(0, got.length());
    }
    assertTrue(refusal().getMessage().contains("unknown handshake frame type 7"));
  }

  @Test
  void truncatedHandshakeFrameIsCutOffAfterTheStallTimeout() throws Exception {
    try (RawPeer peer = RawPeer.connect(vertx, port())) {
      peer.send(Buffer.buffer().appendLongLE(100).appendByte((byte) 1).appendString("{"))
          .awaitClosed();
    }
    assertEquals(ErrorCode.TIMED_OUT, refusal().code());
  }

  @Test
  void rdmaConnectionRequestIsRefusedWithAReplyMessage() throws Exception {
    Buffer request = new HandshakeFrame(HandshakeFrame.Type.CONNECTION, new JsonObject()).encode();
    try (RawPeer peer = RawPeer.connect(vertx, port())) {
      Buffer got = peer.send(request).awaitClosed();
      HandshakeFrame reply = new HandshakeFrame.Reader(1 << 20).append(got);
      assertEquals(HandshakeFrame.Type.CONNECTION, reply.type());
      assertEquals(TargetHandshakeSession.RDMA_REFUSAL, reply.body().getString("reply_msg"));
    }
    assertEquals(ErrorCode.HANDSHAKE_REJECTED, refusal().code());
  }

  @Test
  void metadataRequestGetsTheDescriptorOfExposedBuffersOnly() {
    Buffer request = new HandshakeFrame(HandshakeFrame.Type.METADATA, new JsonObject()).encode();
    try (RawPeer peer = RawPeer.connect(vertx, port())) {
      HandshakeFrame reply =
          new HandshakeFrame.Reader(1 << 20).append(peer.send(request).awaitClosed());
      SegmentDescriptor d = SegmentDescriptor.fromJson(reply.body());
      assertEquals(target.serverName(), d.name());
      assertEquals(target.dataPort(), d.tcpDataPort());
      assertEquals(1, d.buffers().size());
      assertEquals(memory.address(), d.buffers().get(0).address());
      assertEquals(SIZE, d.buffers().get(0).length());
    }
  }

  @Test
  void withdrawnOrUnregisteredBufferIsRefusedAndLeftOutOfTheDescriptor() throws Exception {
    target.withdraw(memory);
    assertRefused(DataHeader.READ);
    assertRefused(DataHeader.WRITE);
    assertEquals(0, descriptor().buffers().size(), "the descriptor lists no withdrawn buffer");

    target.expose(memory);
    memory.unregister(); // unregistered without being withdrawn first
    assertRefused(DataHeader.READ);
    assertRefused(DataHeader.WRITE);
    assertEquals(0, descriptor().buffers().size(), "the descriptor lists no unregistered buffer");
    assertUntouched();
  }

  /** A v2 request for the buffer's first 16 bytes gets a rejection and none of its bytes. */
  private void assertRefused(int opcode) throws InterruptedException {
    try (RawPeer peer = RawPeer.connect(vertx, target.dataPort())) {
      peer.send(header(16, memory.address(), opcode | DataHeader.V2_FLAG));
      if (opcode == DataHeader.WRITE) {
        peer.send(Buffer.buffer(new byte[16]));
      }
      Buffer got = peer.awaitClosed();
      assertEquals(8, got.length(), "a status frame only, no byte of the buffer");
      assertEquals(StatusFrame.REJECTED, got.getLongLE(0));
    }
    assertEquals(ErrorCode.OUT_OF_RANGE, refusal().code());
  }

  private SegmentDescriptor descriptor() {
    Buffer request = new HandshakeFrame(HandshakeFrame.Type.METADATA, new JsonObject()).encode();
    try (RawPeer peer = RawPeer.connect(vertx, port())) {
      HandshakeFrame reply =
          new HandshakeFrame.Reader(1 << 20).append(peer.send(request).awaitClosed());
      return SegmentDescriptor.fromJson(reply.body());
    }
  }

  private int port() {
    return HostPort.parse(target.serverName()).port();
  }
}

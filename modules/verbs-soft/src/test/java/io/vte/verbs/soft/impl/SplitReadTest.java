package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The responder's receive path with the stream cut at chosen offsets: a raw socket plays the
 * requester and sends a run of WRITE frames (a direct-read payload, a copied one, a direct one
 * longer than the receive buffer) in two parts, waiting until the first part has been consumed
 * before it sends the second. Frame headers, payloads and the scattering read that ends a payload
 * must all resume at any cut.
 */
class SplitReadTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final int FAKE_QPN = 0x7777;
  private static final int PSN = 1000;
  private static final int[] PAYLOADS = {3000, 100, 9000};
  private static final int TARGET_BYTES = 64 * 1024;

  @Test
  void framesCutAtEveryOffsetAroundHeadersAndPayloadEndsAllLandAndAreAcked() throws Exception {
    try (RawRequester r = new RawRequester(TARGET_BYTES)) {
      long target = r.target;
      QueuePair qp = r.qp;
      MemoryRegion mr = r.mr;
      OutputStream out = r.out;
      DataInputStream in = r.in;

      int[] frameStart = new int[PAYLOADS.length];
      long[] landing = new long[PAYLOADS.length];
      int length = 0;
      long at = target;
      for (int i = 0; i < PAYLOADS.length; i++) {
        frameStart[i] = length;
        landing[i] = at;
        length += FrameHeader.SIZE + PAYLOADS[i];
        at += PAYLOADS[i] + 64;
      }
      TreeSet<Integer> cuts =
          cutsNear(length, 40, 72, 53, frameStart); // each header and the payload end before it
      cuts.add(length - 1);
      int seq = PSN;
      int round = 0;
      for (int cut : cuts) {
        round++;
        byte pattern = (byte) (1 + round % 250);
        DirectMemory.fill(target, TARGET_BYTES, (byte) 0);
        ByteBuffer stream = ByteBuffer.allocate(length);
        for (int i = 0; i < PAYLOADS.length; i++) {
          FrameHeader.encode(
              stream,
              FrameHeader.WRITE,
              0,
              qp.qpNum(),
              seq + i,
              mr.rkey(),
              landing[i],
              PAYLOADS[i],
              0);
          for (int k = 0; k < PAYLOADS[i]; k++) {
            stream.put((byte) (pattern + i));
          }
        }
        out.write(stream.array(), 0, cut);
        awaitConsumed(cut, frameStart, landing, pattern, in, seq);
        out.write(stream.array(), cut, length - cut);
        awaitAck(in, seq + PAYLOADS.length - 1, "cut " + cut);
        assertLanded(landing, PAYLOADS, pattern, cut);
        seq += PAYLOADS.length;
      }
      assertTrue(round > 300, "only " + round + " cuts");
    }
  }

  /**
   * A BATCH (header, block of frame headers with one small payload inline, then the large payloads
   * back to back) followed by a plain frame, cut at every offset around the block and each payload
   * boundary: the block, the chained payload reads and the way back to plain frames all resume at
   * any cut.
   */
  @Test
  void aBatchCutAtEveryOffsetAroundItsBlockAndPayloadBoundariesLandsWholeAndIsAcked()
      throws Exception {
    int[] sizes = {
      20_000, 100, 17_000, 30_000, 50
    }; // the last one travels as a plain frame after the batch
    int batched = sizes.length - 1;
    try (RawRequester r = new RawRequester(TARGET_BYTES * 2)) {
      long target = r.target;
      QueuePair qp = r.qp;
      MemoryRegion mr = r.mr;
      OutputStream out = r.out;
      DataInputStream in = r.in;

      long[] landing = new long[sizes.length];
      int[] payloadAt = new int[sizes.length]; // offset of each payload in the stream
      long at = target;
      int blockBytes = 0;
      for (int i = 0; i < sizes.length; i++) {
        landing[i] = at;
        at += sizes[i] + 64;
        if (i < batched) {
          blockBytes += FrameHeader.SIZE + (sizes[i] <= 16 * 1024 ? sizes[i] : 0);
        }
      }
      int length = FrameHeader.SIZE + blockBytes;
      int pos = FrameHeader.SIZE;
      for (int i = 0; i < batched; i++) { // inline payloads sit in the block
        pos += FrameHeader.SIZE;
        if (sizes[i] <= 16 * 1024) {
          payloadAt[i] = pos;
          pos += sizes[i];
        }
      }
      for (int i = 0; i < batched; i++) { // large ones follow the block
        if (sizes[i] > 16 * 1024) {
          payloadAt[i] = length;
          length += sizes[i];
        }
      }
      payloadAt[batched] = length + FrameHeader.SIZE;
      length += FrameHeader.SIZE + sizes[batched];

      int[] payloadEdges = new int[2 * sizes.length];
      for (int i = 0; i < sizes.length; i++) {
        payloadEdges[2 * i] = payloadAt[i];
        payloadEdges[2 * i + 1] = payloadAt[i] + sizes[i];
      }
      TreeSet<Integer> cuts = cutsNear(length, 40, 40, 97, payloadEdges);
      for (int c = 1; c < FrameHeader.SIZE + blockBytes + 40; c++) {
        cuts.add(c);
      }
      int seq = PSN;
      int round = 0;
      for (int cut : cuts) {
        round++;
        byte pattern = (byte) (1 + round % 250);
        DirectMemory.fill(target, TARGET_BYTES * 2, (byte) 0);
        ByteBuffer stream = ByteBuffer.allocate(length);
        FrameHeader.encode(stream, FrameHeader.BATCH, 0, 0, 0, 0, 0, blockBytes, 0);
        for (int i = 0; i <= batched; i++) {
          if (i == batched) {
            stream.position(payloadAt[i] - FrameHeader.SIZE);
          }
          FrameHeader.encode(
              stream,
              FrameHeader.WRITE,
              0,
              qp.qpNum(),
              seq + i,
              mr.rkey(),
              landing[i],
              sizes[i],
              0);
          int keep = stream.position();
          for (int k = 0; k < sizes[i]; k++) {
            stream.put(payloadAt[i] + k, (byte) (pattern + i));
          }
          stream.position(keep + (payloadAt[i] == keep ? sizes[i] : 0));
        }
        out.write(stream.array(), 0, cut);
        for (int i = 0; i < sizes.length; i++) { // wait for what the cut lets land, where it shows
          if (cut > payloadAt[i] && cut <= payloadAt[i] + sizes[i] && sizes[i] > 16 * 1024) {
            long last = landing[i] + (cut - payloadAt[i] - 1);
            byte want = (byte) (pattern + i);
            Await.until(
                "byte " + (cut - 1) + " landed",
                DEADLINE,
                () -> DirectMemory.getByte(last) == want);
          }
        }
        out.write(stream.array(), cut, length - cut);
        int last = seq + sizes.length - 1;
        awaitAck(in, last, last, "cut " + cut);
        assertLanded(landing, sizes, pattern, cut);
        seq += sizes.length;
      }
      assertTrue(round > 500, "only " + round + " cuts");
    }
  }

  /**
   * Waits until the responder has consumed the first {@code cut} bytes, where that is observable:
   * inside a payload the byte before the cut has landed; right after a payload its ACK came back.
   * Inside a header nothing shows, so the cut simply stands there while the second part is written.
   */
  /**
   * @return every offset from {@code before} bytes ahead of an edge to {@code after} bytes past it,
   *     and every {@code stride}-th offset from 1, all inside (0, length)
   */
  private static TreeSet<Integer> cutsNear(
      int length, int before, int after, int stride, int... edges) {
    TreeSet<Integer> cuts = new TreeSet<>();
    for (int edge : edges) {
      for (int c = Math.max(1, edge - before); c <= edge + after && c < length; c++) {
        cuts.add(c);
      }
    }
    for (int c = 1; c < length; c += stride) {
      cuts.add(c);
    }
    return cuts;
  }

  private static void awaitConsumed(
      int cut, int[] frameStart, long[] landing, byte pattern, DataInputStream in, int seq)
      throws Exception {
    for (int i = PAYLOADS.length - 1; i >= 0; i--) {
      int payloadAt = frameStart[i] + FrameHeader.SIZE;
      if (cut > payloadAt && cut < payloadAt + PAYLOADS[i]) {
        long last = landing[i] + (cut - payloadAt - 1);
        byte want = (byte) (pattern + i);
        Await.until(
            "byte " + (cut - 1) + " landed", DEADLINE, () -> DirectMemory.getByte(last) == want);
        return;
      }
      if (cut >= payloadAt + PAYLOADS[i]) {
        awaitAck(in, seq + i, "cut " + cut);
        return;
      }
    }
  }

  /** Reads responses until the ACK of {@code seq} (an ACK covers every request before it). */
  private static void awaitAck(DataInputStream in, int seq, String what) throws Exception {
    awaitAck(in, seq, seq, what);
  }

  /** Reads responses until an ACK of {@code seq} or later, up to {@code lastSent}. */
  private static void awaitAck(DataInputStream in, int seq, int lastSent, String what)
      throws Exception {
    byte[] frame = new byte[FrameHeader.SIZE];
    FrameHeader h = new FrameHeader();
    while (true) {
      in.readFully(frame);
      assertTrue(h.decode(ByteBuffer.wrap(frame), 0), what + ": bad magic");
      assertEquals(FrameHeader.ACK, h.opcode, what + ": response " + h.describe());
      assertEquals(FAKE_QPN, h.qpn);
      if (h.seq - seq >= 0) {
        assertTrue(h.seq - lastSent <= 0, what + ": acked " + h.seq + ", beyond what was sent");
        return;
      }
    }
  }

  /**
   * Asserts that frame {@code i} wrote {@code pattern + i} over exactly {@code sizes[i]} bytes at
   * {@code landing[i]} and left the 64 bytes after it zero.
   */
  private static void assertLanded(long[] landing, int[] sizes, byte pattern, int cut) {
    for (int i = 0; i < sizes.length; i++) {
      ByteBuffer landed = DirectMemory.wrap(landing[i], sizes[i] + 64);
      for (int k = 0; k < sizes[i]; k++) {
        assertEquals(
            (byte) (pattern + i), landed.get(k), "cut " + cut + ": frame " + i + " byte " + k);
      }
      for (int k = sizes[i]; k < sizes[i] + 64; k++) {
        assertEquals(
            0, landed.get(k), "cut " + cut + ": frame " + i + " wrote past its end at " + k);
      }
    }
  }

  /**
   * A soft device with one QP in RTR (peer {@code FAKE_QPN}, first PSN {@code PSN}), a remotely
   * writable region over fresh native memory, and a raw socket to its port that has sent the HELLO:
   * the test plays the requester. Closes the socket, the QP, the region, the provider, then frees
   * the memory.
   */
  private static final class RawRequester implements AutoCloseable {
    final long target;
    final SoftVerbsProvider provider;
    final QueuePair qp;
    final MemoryRegion mr;
    final Socket socket;
    final OutputStream out;
    final DataInputStream in;

    RawRequester(int targetBytes) throws Exception {
      target = DirectMemory.allocate(targetBytes);
      provider = (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig());
      try {
        VerbsContext ctx = provider.open("soft0");
        ProtectionDomain pd = ctx.allocPd();
        CompletionQueue cq = ctx.createCq(4);
        qp = pd.createQp(new QpInitAttributes(cq, cq, 4, 4, 0));
        PortAttributes port = ctx.queryPort(1);
        qp.toInit(1, AccessFlags.ALL_REMOTE);
        qp.toRtr(new QpPeer(FAKE_QPN, port.lid(), port.gid(), PSN), 4096);
        mr = pd.registerMemory(target, targetBytes, AccessFlags.ALL_REMOTE);
        socket = new Socket(port.gid().toInetAddress(), port.lid());
        try {
          socket.setTcpNoDelay(true);
          socket.setSoTimeout((int) DEADLINE.toMillis());
          out = socket.getOutputStream();
          in = new DataInputStream(socket.getInputStream());
          ByteBuffer hello = ByteBuffer.allocate(FrameHeader.SIZE);
          FrameHeader.encode(
              hello, FrameHeader.HELLO, 0, qp.qpNum(), 0, FAKE_QPN, FrameHeader.VERSION, 0, 0);
          out.write(hello.array());
        } catch (Exception | Error e) {
          socket.close();
          throw e;
        }
      } catch (Exception | Error e) {
        provider.close(); // the QP and region it may have made go with it
        DirectMemory.free(target);
        throw e;
      }
    }

    @Override
    public void close() throws IOException {
      try {
        socket.close();
        qp.close();
        mr.close();
        provider.close();
      } finally {
        DirectMemory.free(target);
      }
    }
  }
}

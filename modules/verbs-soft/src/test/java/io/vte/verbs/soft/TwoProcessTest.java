package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** WRITE, READ and SEND between this JVM and a second {@code java} process ({@link PeerMain}). */
class TwoProcessTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final int SIZE = 8 << 20;

  @Test
  @Timeout(120) // the peer's stdout is read with blocking reads
  void writeReadAndSendAcrossTwoJvmsThenTimeOutWhenThePeerProcessIsKilled() throws Exception {
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process peer =
        new ProcessBuilder(
                java,
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                PeerMain.class.getName(),
                Integer.toString(SIZE))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (Fabric f = new Fabric(1)) {
      BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream()));
      PrintWriter in = new PrintWriter(peer.getOutputStream(), true);
      String[] ready = expect(out, "READY");
      int peerQpn = Integer.parseInt(ready[1]);
      int peerLid = Integer.parseInt(ready[2]);
      int peerPsn = Integer.parseInt(ready[3]);
      long peerAddr = Long.parseLong(ready[4]);
      int peerRkey = Integer.parseInt(ready[5]);

      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair qp = f.qp(0, cq, 16);
      PortAttributes port = f.ctx(0).queryPort(1);
      qp.toInit(1, AccessFlags.ALL_REMOTE);
      qp.toRtr(
          new QpPeer(
              peerQpn, peerLid, Gid.fromInetAddress(InetAddress.getByName("127.0.0.2")), peerPsn),
          4096);
      qp.toRts(
          new RtsAttributes(900, 18, 3, 7)); // 1 s x 3: a cold peer JVM on a busy machine may stall
      in.println("PEER " + qp.qpNum() + " " + port.lid() + " 127.0.0.1 900");
      expect(out, "CONNECTED");

      ByteBuffer src = ByteBuffer.allocateDirect(SIZE);
      ByteBuffer back = ByteBuffer.allocateDirect(SIZE);
      SplittableRandom rnd = new SplittableRandom(99);
      while (src.hasRemaining()) {
        src.putLong(rnd.nextLong());
      }
      MemoryRegion ms = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
      MemoryRegion mb = f.pd(0).registerMemory(back, AccessFlags.LOCAL_WRITE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(2);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ms.address(),
          SIZE,
          ms.lkey(),
          peerAddr,
          peerRkey);
      wr.add(
          2,
          WrOpcode.RDMA_READ,
          WrFlags.SIGNALED,
          mb.address() + 100,
          5000,
          mb.lkey(),
          peerAddr + 100,
          peerRkey);
      assertEquals(PostStatus.OK, qp.postSend(wr));
      for (Fabric.Wc wc : Fabric.await(cq, 2, DEADLINE)) {
        assertEquals(WcStatus.SUCCESS.code(), wc.status(), wc.toString());
      }
      in.println("CRC 0 " + SIZE);
      assertEquals(
          Long.toString(DataPathTest.crc(src, 0, SIZE)),
          expect(out, "CRC")[1],
          "peer memory matches");
      assertEquals(
          DataPathTest.crc(src, 100, 5000), DataPathTest.crc(back, 100, 5000), "read back matches");

      in.println("RECV 2");
      wr.clear();
      wr.add(3, WrOpcode.SEND, WrFlags.SIGNALED, ms.address(), 300, ms.lkey(), 0, 0);
      wr.add(
          4, WrOpcode.SEND_WITH_IMM, WrFlags.SIGNALED, ms.address(), 4096, ms.lkey(), 0, 0, 31337);
      assertEquals(PostStatus.OK, qp.postSend(wr));
      for (Fabric.Wc wc : Fabric.await(cq, 2, DEADLINE)) {
        assertEquals(WcStatus.SUCCESS.code(), wc.status(), wc.toString());
      }
      assertEquals(List.of("WC", "0", "0", "300", "0"), List.of(expect(out, "WC")));
      assertEquals(List.of("WC", "1", "0", "4096", "31337"), List.of(expect(out, "WC")));

      peer.destroyForcibly();
      assertTrue(peer.waitFor(20, TimeUnit.SECONDS));
      wr.clear();
      wr.add(
          5,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ms.address(),
          64,
          ms.lkey(),
          peerAddr,
          peerRkey);
      assertEquals(PostStatus.OK, qp.postSend(wr));
      assertEquals(WcStatus.RETRY_EXC_ERR.code(), Fabric.await(cq, 1, DEADLINE).get(0).status());
    } finally {
      peer.destroyForcibly();
      peer.waitFor(20, TimeUnit.SECONDS);
    }
  }

  private static String[] expect(BufferedReader out, String word) throws Exception {
    String line = out.readLine();
    if (line == null || !line.startsWith(word)) {
      throw new AssertionError("peer said '" + line + "', expected " + word);
    }
    return line.split(" ");
  }
}

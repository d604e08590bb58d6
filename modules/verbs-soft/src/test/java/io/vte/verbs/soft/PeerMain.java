package io.vte.verbs.soft;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrOpcode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * The far end of {@link TwoProcessTest}, run in its own JVM: one soft device on 127.0.0.2, one QP,
 * one region. Talks over stdin/stdout: prints {@code READY qpn lid psn addr rkey}; reads {@code
 * PEER qpn lid ip psn} (connect), {@code CRC off len} (prints the checksum of its region), {@code
 * RECV n} (posts n receives and prints each completion as {@code WC wrId status byteLen imm}),
 * {@code EXIT}.
 */
public final class PeerMain {

  private PeerMain() {}

  /**
   * @param args region size in bytes
   */
  public static void main(String[] args) throws Exception {
    int size = Integer.parseInt(args[0]);
    SoftVerbsProvider provider =
        (SoftVerbsProvider)
            new SoftVerbsProviderFactory()
                .create(new SoftVerbsConfig().setDevices(List.of("peer0@127.0.0.2")));
    VerbsContext ctx = provider.open("peer0");
    CompletionQueue cq = ctx.createCq(64);
    ProtectionDomain pd = ctx.allocPd();
    QueuePair qp = pd.createQp(new QpInitAttributes(cq, cq, 16, 16, 0));
    ByteBuffer mem = ByteBuffer.allocateDirect(size);
    MemoryRegion mr = pd.registerMemory(mem, AccessFlags.ALL_REMOTE);
    PortAttributes port = ctx.queryPort(1);
    System.out.println(
        "READY " + qp.qpNum() + " " + port.lid() + " 500 " + mr.address() + " " + mr.rkey());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split(" ");
      switch (w[0]) {
        case "PEER":
          qp.toInit(1, AccessFlags.ALL_REMOTE);
          qp.toRtr(
              new QpPeer(
                  Integer.parseInt(w[1]),
                  Integer.parseInt(w[2]),
                  Gid.fromInetAddress(InetAddress.getByName(w[3])),
                  Integer.parseInt(w[4])),
              4096);
          qp.toRts(new RtsAttributes(500, 18, 3, 7));
          System.out.println("CONNECTED");
          break;
        case "CRC":
          System.out.println(
              "CRC " + DataPathTest.crc(mem, Integer.parseInt(w[1]), Integer.parseInt(w[2])));
          break;
        case "RECV":
          int n = Integer.parseInt(w[1]);
          WorkRequestBatch r = WorkRequestBatch.allocate(n);
          for (int i = 0; i < n; i++) {
            r.add(i, WrOpcode.RECV, 0, mr.address() + 4096L * i, 4096, mr.lkey(), 0, 0);
          }
          qp.postRecv(r);
          for (Fabric.Wc wc : Fabric.await(cq, n, Duration.ofSeconds(30))) {
            System.out.println(
                "WC " + wc.wrId() + " " + wc.status() + " " + wc.byteLen() + " " + wc.imm());
          }
          break;
        case "EXIT":
          provider.close();
          return;
        default:
          System.out.println("ERROR unknown command " + line);
      }
      System.out.flush();
    }
    provider.close();
  }
}

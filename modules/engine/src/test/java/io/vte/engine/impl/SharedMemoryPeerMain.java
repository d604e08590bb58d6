package io.vte.engine.impl;

import io.vertx.core.Vertx;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.List;

/**
 * A peer JVM for the shared-memory rail tests. {@code owner LENGTH SEED}: allocates a buffer in
 * shared memory, fills it, prints {@code READY server address length}, answers {@code CRC} and ends
 * at {@code EXIT}. {@code writer SERVER ADDRESS LENGTH}: writes the peer's buffer in a loop over
 * the same-host rail, printing {@code COPYING} once the rail moved bytes.
 */
public final class SharedMemoryPeerMain {

  private SharedMemoryPeerMain() {}

  /**
   * @param args see the class comment
   */
  public static void main(String[] args) throws Exception {
    Duration wait = Duration.ofSeconds(60);
    Vertx vertx = Vertx.vertx();
    TransferEngineImpl engine =
        (TransferEngineImpl)
            Await.result(
                TransferEngine.create(vertx, EngineFixture.options("shmpeer", 1, 1)), wait);
    if (args[0].equals("writer")) {
      long address = Long.parseLong(args[2]);
      long length = Long.parseLong(args[3]);
      long local = DirectMemory.allocate(length);
      RegisteredBuffer buffer = Await.result(engine.register(local, length, "cpu:0"), wait);
      SegmentHandle seg = Await.result(engine.openSegment(args[1]), wait);
      boolean told = false;
      while (true) {
        Await.result(
            engine
                .submit(
                    List.of(TransferRequest.write(buffer, 0, seg, address, length)),
                    new TransferOptions())
                .result(),
            wait);
        if (!told && EngineInternals.sharedMemoryRail(engine).copiedBytes() > 0) {
          System.out.println("COPYING");
          System.out.flush();
          told = true;
        }
      }
    }
    long length = Long.parseLong(args[1]);
    RegisteredBuffer buffer = Await.result(engine.allocate(length, "cpu:0"), wait);
    EngineFixture.fill(buffer.address(), length, Long.parseLong(args[2]));
    System.out.println(
        "READY " + engine.serverName() + " " + buffer.address() + " " + buffer.length());
    System.out.flush();
    PeerEngineMain.answer(buffer.address(), length);
    Await.result(engine.close(), wait);
    Await.result(vertx.close(), wait);
    System.out.println("BYE");
    System.out.flush();
  }
}

package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Byte-exact READ and WRITE between engines in two JVM processes over soft verbs. */
@ExtendWith(BlockedThreadGuard.class)
class TwoProcessTest {

  private static final long LENGTH = (64L << 20) + 12345;
  private final EngineFixture fx = new EngineFixture();
  private Process peer;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  @AfterEach
  void close() throws Exception {
    fx.close();
    if (peer != null) {
      peer.destroy();
      assertTrue(peer.waitFor(30, TimeUnit.SECONDS), "peer process exits");
    }
  }

  @Test
  void readAndWriteBetweenTwoProcessesAreByteExact() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    peer =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                PeerEngineMain.class.getName(),
                Long.toString(LENGTH),
                "7")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                  lines.add(l);
                }
              } catch (Exception ignored) {
                // the process ended
              }
            },
            "peer-stdout");
    reader.setDaemon(true);
    reader.start();
    Writer toPeer = new OutputStreamWriter(peer.getOutputStream(), StandardCharsets.UTF_8);

    String[] ready = expect("READY").split(" ");
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
    toPeer.write("CRC\n");
    toPeer.flush();
    assertEquals(
        PeerEngineMain.crc(local.address(), LENGTH),
        Long.parseLong(expect("CRC").split(" ")[1]),
        "the peer's memory equals what was written");

    toPeer.write("EXIT\n");
    toPeer.flush();
    expect("BYE");
    assertTrue(peer.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, peer.exitValue());
  }

  private String expect(String prefix) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < end) {
      String line = lines.poll(end - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertNotNull(line, "peer said nothing starting with " + prefix);
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new AssertionError("no '" + prefix + "' from the peer within " + WAIT);
  }
}

package io.vte.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.DefaultSoftDevices;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Engines made with {@code new EngineOptions()} and nothing else: soft devices chosen from this host's interfaces
 * ({@link DefaultSoftDevices}), the handshake service on the first device's address; and the README's first
 * library example, which is the method {@link #writeOnce} below, run as printed.
 */
@ExtendWith(BlockedThreadGuard.class)
class DefaultEngineOptionsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Path README = Path.of("../../README.md").toAbsolutePath().normalize();
  private static final Path THIS_SOURCE = Path.of("src/test/java/io/vte/engine/DefaultEngineOptionsTest.java");
  private static final int LENGTH = 1 << 20;

  private final Vertx vertx = Vertx.vertx();
  private TransferEngine peer;

  @AfterEach
  void close() {
    if (peer != null) {
      Await.result(peer.close(), WAIT);
    }
    Await.result(vertx.close(), WAIT);
  }

  // README:library-example:begin
  /** WRITEs {@code length} bytes of a direct buffer to {@code remoteAddress} in a peer's segment, then closes. */
  static Future<BatchResult> writeOnce(Vertx vertx, ByteBuffer directBuffer, String peer, long remoteAddress,
      long length) {
    return TransferEngine.create(vertx, new EngineOptions())           // soft verbs on this host's NICs, p2p metadata
        .compose(engine -> engine.register(directBuffer, "cpu:0")      // off-heap memory, on every device
            .compose(local -> engine.openSegment(peer)                 // the peer's server name, e.g. 10.0.0.2:40001
                .compose(seg -> engine.submit(List.of(TransferRequest.write(local, 0, seg, remoteAddress, length)),
                    new TransferOptions().setDeadline(Duration.ofSeconds(5))).result()))
            .eventually(engine::close));
  }
  // README:library-example:end

  private static ByteBuffer pattern(int seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(LENGTH);
    for (int i = 0; i < LENGTH; i++) {
      b.put(i, (byte) (i * 31 + seed));
    }
    return b;
  }

  @Test
  void twoDefaultEnginesWriteAndReadBetweenEachOther() {
    TransferEngine a = Await.result(TransferEngine.create(vertx, new EngineOptions()), WAIT);
    try {
      peer = Await.result(TransferEngine.create(vertx, new EngineOptions()), WAIT);
      String firstDevice = DefaultSoftDevices.forThisHost().devices().get(0).address();
      assertTrue(peer.serverName().startsWith(firstDevice + ":"), "handshake on " + firstDevice + ": " + peer.serverName());
      ByteBuffer source = pattern(7);
      ByteBuffer target = ByteBuffer.allocateDirect(LENGTH);
      ByteBuffer back = ByteBuffer.allocateDirect(LENGTH);
      RegisteredBuffer src = Await.result(a.register(source, "cpu:0"), WAIT);
      RegisteredBuffer readBack = Await.result(a.register(back, "cpu:0"), WAIT);
      RegisteredBuffer dst = Await.result(peer.register(target, "cpu:0"), WAIT);
      SegmentHandle seg = Await.result(a.openSegment(peer.serverName()), WAIT);
      TransferOptions deadline = new TransferOptions().setDeadline(Duration.ofSeconds(30));
      BatchResult write = Await.result(a.submit(List.of(TransferRequest.write(src, 0, seg, dst.address(), LENGTH)),
          deadline).result(), WAIT);
      assertTrue(write.allCompleted(), write.toString());
      assertEquals(source, target, "the peer's memory holds what was written");
      BatchResult read = Await.result(a.submit(List.of(TransferRequest.read(readBack, 0, seg, dst.address(), LENGTH)),
          deadline).result(), WAIT);
      assertTrue(read.allCompleted(), read.toString());
      assertEquals(source, back, "what was read equals what the peer holds");
    } finally {
      Await.result(a.close(), WAIT);
    }
  }

  @Test
  void theReadmeLibraryExampleRunsAsPrinted() throws IOException {
    assertEquals(exampleInThisSource(), exampleInReadme(), "README.md's first Java block is the method writeOnce here");
    peer = Await.result(TransferEngine.create(vertx, new EngineOptions()), WAIT);
    ByteBuffer target = ByteBuffer.allocateDirect(LENGTH);
    RegisteredBuffer dst = Await.result(peer.register(target, "cpu:0"), WAIT);
    ByteBuffer source = pattern(3);
    BatchResult result = Await.result(writeOnce(vertx, source, peer.serverName(), dst.address(), LENGTH), WAIT);
    assertTrue(result.allCompleted(), result.toString());
    assertEquals(source, target);
  }

  private static String exampleInThisSource() throws IOException {
    String src = Files.readString(THIS_SOURCE);
    String begin = "// README:library-example:begin\n";
    int from = src.indexOf(begin) + begin.length();
    return dedent(src.substring(from, src.indexOf("  // README:library-example:end", from)));
  }

  private static String exampleInReadme() throws IOException {
    Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(README));
    assertTrue(m.find(), "README.md has a java block");
    return m.group(1).lines().map(String::stripTrailing).reduce("", (x, y) -> x + y + "\n");
  }

  private static String dedent(String block) {
    return block.lines().map(l -> l.replaceFirst("^  ", "")).map(String::stripTrailing)
        .reduce("", (x, y) -> x + y + "\n");
  }
}

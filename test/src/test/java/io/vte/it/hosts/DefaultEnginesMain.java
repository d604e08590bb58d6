package io.vte.it.hosts;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.DefaultSoftDevices;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * Engines made with {@code new EngineOptions()} and nothing else, in the JVM this main starts (run
 * inside a namespace host by {@link DefaultEngineOptionsTest}): two of them WRITE and READ 1 MiB
 * between each other, then the README's first library example, the method {@link #writeOnce} below,
 * runs as printed. All of it runs twice: a warm-up round first (this JVM's first gRPC server and
 * client, whose class loading on an event loop takes seconds on a loaded machine and is not what
 * the test is about; its outcome is reported as {@code warmUp}), then {@link #WARM} on stderr, then
 * the round that counts. Prints one JSON line: the host's default device specs, each engine's
 * server name and the device names of its segment, and whether each transfer was complete and
 * byte-exact; exit code 0, or 1 with {@code {"error": ...}}.
 */
public final class DefaultEnginesMain {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int LENGTH = 1 << 20;

  /** The stderr line between the warm-up round and the measured one. */
  static final String WARM = "default-engines: warm";

  private DefaultEnginesMain() {}

  // README:library-example:begin
  /**
   * WRITEs {@code length} bytes of a direct buffer to {@code remoteAddress} in a peer's segment,
   * then closes.
   */
  static Future<BatchResult> writeOnce(
      Vertx vertx, ByteBuffer directBuffer, String peer, long remoteAddress, long length) {
    // soft verbs on this host's NICs, p2p metadata
    return TransferEngine.create(vertx, new EngineOptions())
        .compose(
            engine ->
                write(engine, directBuffer, peer, remoteAddress, length).eventually(engine::close));
  }

  static Future<BatchResult> write(
      TransferEngine engine,
      ByteBuffer directBuffer,
      String peer,
      long remoteAddress,
      long length) {
    // off-heap memory, registered on every device
    Future<RegisteredBuffer> local = engine.register(directBuffer, "cpu:0");
    // the peer's server name, e.g. 10.0.0.2:40001
    Future<SegmentHandle> segment = engine.openSegment(peer);
    return Future.all(local, segment)
        .compose(
            both -> {
              TransferRequest write =
                  TransferRequest.write(local.result(), 0, segment.result(), remoteAddress, length);
              TransferOptions options = new TransferOptions().setDeadline(Duration.ofSeconds(5));
              return engine.submit(List.of(write), options).result();
            });
  }

  // README:library-example:end

  /**
   * @param args none
   */
  public static void main(String[] args) {
    Vertx vertx = Vertx.vertx();
    int exit = 0;
    try {
      JsonObject warmUp;
      try {
        warmUp = run(vertx);
      } catch (RuntimeException e) {
        warmUp = new JsonObject().put("error", String.valueOf(e));
      }
      System.err.println(WARM);
      System.out.println(run(vertx).put("warmUp", warmUp).encode());
    } catch (Throwable t) {
      System.out.println(new JsonObject().put("error", String.valueOf(t)).encode());
      exit = 1;
    } finally {
      Await.result(vertx.close(), WAIT);
    }
    System.exit(exit);
  }

  private static JsonObject run(Vertx vertx) {
    JsonObject out =
        new JsonObject()
            .put("defaultSpecs", new JsonArray(DefaultSoftDevices.forThisHost().specs()));
    TransferEngine a = Await.result(TransferEngine.create(vertx, new EngineOptions()), WAIT);
    TransferEngine peer = null;
    try {
      peer = Await.result(TransferEngine.create(vertx, new EngineOptions()), WAIT);
      out.put("servers", new JsonArray().add(a.serverName()).add(peer.serverName()));
      ByteBuffer source = pattern(7);
      ByteBuffer target = ByteBuffer.allocateDirect(LENGTH);
      ByteBuffer back = ByteBuffer.allocateDirect(LENGTH);
      RegisteredBuffer src = Await.result(a.register(source, "cpu:0"), WAIT);
      RegisteredBuffer readBack = Await.result(a.register(back, "cpu:0"), WAIT);
      RegisteredBuffer dst = Await.result(peer.register(target, "cpu:0"), WAIT);
      SegmentHandle seg = Await.result(a.openSegment(peer.serverName()), WAIT);
      out.put(
          "segmentDevices",
          new JsonArray(seg.devices().stream().map(SegmentDevice::name).toList()));
      TransferOptions deadline = new TransferOptions().setDeadline(Duration.ofSeconds(30));
      BatchResult write =
          Await.result(
              a.submit(List.of(TransferRequest.write(src, 0, seg, dst.address(), LENGTH)), deadline)
                  .result(),
              WAIT);
      out.put("write", write.allCompleted() && source.equals(target));
      BatchResult read =
          Await.result(
              a.submit(
                      List.of(TransferRequest.read(readBack, 0, seg, dst.address(), LENGTH)),
                      deadline)
                  .result(),
              WAIT);
      out.put("read", read.allCompleted() && source.equals(back));
      ByteBuffer example = pattern(3);
      BatchResult once =
          Await.result(writeOnce(vertx, example, peer.serverName(), dst.address(), LENGTH), WAIT);
      out.put("readmeExample", once.allCompleted() && example.equals(target));
      return out;
    } finally {
      if (peer != null) {
        Await.result(peer.close(), WAIT);
      }
      Await.result(a.close(), WAIT);
    }
  }

  private static ByteBuffer pattern(int seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(LENGTH);
    for (int i = 0; i < LENGTH; i++) {
      b.put(i, (byte) (i * 31 + seed));
    }
    return b;
  }
}

package io.vte.examples.direct;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.Notification;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@link TransferEngine} API without the event bus: two engines (a sender and a receiver, each
 * on its own Vert.x instance, over soft verbs on loopback) register memory, the sender opens the
 * receiver's segment, WRITEs a block into it, READs it back into a second buffer, checks it and
 * notifies the receiver, and both close (engine first, then Vert.x). Every call returns a Future;
 * nothing blocks an event loop ({@code main} alone waits for the whole run).
 */
public final class DirectEngineMain {

  private DirectEngineMain() {}

  /**
   * @param args {@code [bytes]}, default 1 MiB
   * @throws Exception when the run fails
   */
  public static void main(String[] args) throws Exception {
    int bytes = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
    Vertx senderVertx = Vertx.vertx();
    Vertx receiverVertx = Vertx.vertx();
    try {
      String report =
          run(senderVertx, receiverVertx, bytes)
              .toCompletionStage()
              .toCompletableFuture()
              .get(2, TimeUnit.MINUTES);
      System.out.println(report);
    } finally {
      senderVertx.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.MINUTES);
      receiverVertx.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.MINUTES);
    }
  }

  /**
   * Runs the example and closes both engines (also when a step failed).
   *
   * @param senderVertx Vert.x of the sending engine
   * @param receiverVertx Vert.x of the receiving engine
   * @param bytes the block's size, 1 to 64 MiB
   * @return one line saying what was written, read back and notified; fails with the first step's
   *     typed error, or an IllegalStateException when the block read back differs
   */
  public static Future<String> run(Vertx senderVertx, Vertx receiverVertx, int bytes) {
    if (bytes < 1 || bytes > 64 << 20) {
      return Future.failedFuture(
          new IllegalArgumentException("bytes " + bytes + " is outside 1..67108864"));
    }
    Future<TransferEngine> receiver = TransferEngine.create(receiverVertx, options("rx"));
    Future<TransferEngine> sender = TransferEngine.create(senderVertx, options("tx"));
    Future<String> run =
        Future.all(receiver, sender)
            .compose(v -> transfer(sender.result(), receiver.result(), bytes));
    return run.transform(
        ar ->
            close(sender)
                .transform(v -> close(receiver))
                .transform(
                    v ->
                        ar.succeeded()
                            ? Future.succeededFuture(ar.result())
                            : Future.failedFuture(ar.cause())));
  }

  private static Future<String> transfer(
      TransferEngine sender, TransferEngine receiver, int bytes) {
    ByteBuffer source = ByteBuffer.allocateDirect(bytes);
    for (int i = 0; i < bytes; i++) {
      source.put(i, (byte) (i * 31 + 7));
    }
    ByteBuffer readBack = ByteBuffer.allocateDirect(bytes);
    ByteBuffer target = ByteBuffer.allocateDirect(bytes);
    Promise<Notification> notified = Promise.promise();
    receiver.notificationHandler(notified::tryComplete);
    Future<RegisteredBuffer> remote = receiver.register(target, "cpu:0");
    Future<RegisteredBuffer> out = sender.register(source, "cpu:0");
    Future<RegisteredBuffer> in = sender.register(readBack, "cpu:0");
    return Future.all(remote, out, in)
        .compose(v -> sender.openSegment(receiver.serverName()))
        .compose(
            segment ->
                submit(
                        sender,
                        TransferRequest.write(
                            out.result(), 0, segment, remote.result().address(), bytes))
                    .compose(
                        v ->
                            submit(
                                sender,
                                TransferRequest.read(
                                    in.result(), 0, segment, remote.result().address(), bytes)))
                    .compose(v -> check(source, target, readBack))
                    .compose(
                        v ->
                            sender.notify(
                                segment.name(), "block.ready", Buffer.buffer("block of " + bytes)))
                    .compose(v -> notified.future())
                    .map(
                        n ->
                            String.format(
                                "wrote %d bytes to %s, read them back equal, notified '%s': %s",
                                bytes, segment.name(), n.topic(), n.payload())));
  }

  private static Future<Void> submit(TransferEngine engine, TransferRequest request) {
    return engine
        .submit(List.of(request), new TransferOptions())
        .result()
        .compose(
            (BatchResult r) ->
                r.allCompleted()
                    ? Future.succeededFuture()
                    : Future.failedFuture(r.requests().get(0).cause()));
  }

  /** The receiver's memory and the block read back both equal what was written. */
  private static Future<Void> check(ByteBuffer source, ByteBuffer target, ByteBuffer readBack) {
    if (source.mismatch(target) >= 0 || source.mismatch(readBack) >= 0) {
      return Future.failedFuture(
          new IllegalStateException(
              "block differs: written vs receiver at byte "
                  + source.mismatch(target)
                  + ", vs read back at byte "
                  + source.mismatch(readBack)));
    }
    return Future.succeededFuture();
  }

  private static EngineOptions options(String name) {
    return new EngineOptions()
        .setDevices(List.of(name + "0@127.0.0.1", name + "1@127.0.0.1"))
        .setWorkersPerContext(1)
        .setRpcHost("127.0.0.1");
  }

  /** Closes an engine that started; one that did not has nothing to close. */
  private static Future<Void> close(Future<TransferEngine> engine) {
    return engine.succeeded() ? engine.result().close() : Future.succeededFuture();
  }
}

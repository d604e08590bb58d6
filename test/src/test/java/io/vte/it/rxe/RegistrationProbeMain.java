package io.vte.it.rxe;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.TransferEngine;
import io.vte.api.VteException;
import io.vte.verbs.DirectMemory;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs in a guest: an engine on {@code rxe0} registers memory the kernel must refuse, and prints
 * one JSON line per case with what the engine answered ({@code case}, {@code outcome} = {@code
 * registered} or {@code failed}, and for a failure its {@code type}, {@code code} and {@code
 * message}): {@code unmapped} (1 MiB at an address no mapping holds), {@code read-only} (1 MiB of a
 * file mapped read-only), and {@code writable} (1 MiB of ordinary memory, which must register).
 */
public final class RegistrationProbeMain {

  /** 1 MiB at 64 TiB - 1 GiB: above every mapping of a JVM's 47-bit user space. */
  static final long UNMAPPED = (1L << 46) - (1L << 30);

  private RegistrationProbeMain() {}

  /**
   * @param args a scratch file path (1 MiB is written there and mapped read-only)
   * @throws Exception when the engine cannot start
   */
  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    Files.write(file, new byte[1 << 20]);
    Vertx vertx = Vertx.vertx();
    TransferEngine engine =
        TransferEngine.create(
                vertx, new EngineOptions().setTransport("ibverbs").setDevices(List.of("rxe0")))
            .toCompletionStage()
            .toCompletableFuture()
            .get(120, TimeUnit.SECONDS);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      MappedByteBuffer readOnly = ch.map(FileChannel.MapMode.READ_ONLY, 0, 1 << 20);
      long writable = DirectMemory.allocate(1 << 20);
      probe(engine, "unmapped", UNMAPPED);
      probe(engine, "read-only", DirectMemory.address(readOnly));
      probe(engine, "writable", writable);
    } finally {
      engine.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      vertx.close();
    }
    System.exit(0);
  }

  private static void probe(TransferEngine engine, String name, long address) throws Exception {
    JsonObject line = new JsonObject().put("case", name).put("address", Long.toHexString(address));
    try {
      engine
          .register(address, 1 << 20, "cpu:0")
          .toCompletionStage()
          .toCompletableFuture()
          .get(60, TimeUnit.SECONDS);
      line.put("outcome", "registered");
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      line.put("outcome", "failed")
          .put("type", c.getClass().getName())
          .put("message", c.getMessage());
      if (c instanceof VteException v) {
        line.put("code", v.code().name());
      }
    }
    System.out.println(line.encode());
  }
}

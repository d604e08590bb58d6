package io.vte.engine.impl;

import io.vertx.core.Vertx;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.CRC32C;

/**
 * A second engine process for {@link TwoProcessTest}: registers {@code <length>} bytes filled with
 * {@code <seed>}, prints {@code READY <server name> <address> <length>}, then answers {@code CRC}
 * with {@code CRC <crc32c of the buffer>} and {@code EXIT} by closing everything.
 */
public final class PeerEngineMain {

  private PeerEngineMain() {}

  /**
   * @param args length and seed
   * @throws Exception on any failure (the parent test sees the process die)
   */
  public static void main(String[] args) throws Exception {
    long length = Long.parseLong(args[0]);
    long seed = Long.parseLong(args[1]);
    Duration wait = Duration.ofSeconds(60);
    Vertx vertx = Vertx.vertx();
    TransferEngine engine =
        Await.result(TransferEngine.create(vertx, EngineFixture.options("peer", 2, 2)), wait);
    long address = DirectMemory.allocate(length);
    EngineFixture.fill(address, length, seed);
    RegisteredBuffer buffer = Await.result(engine.register(address, length, "cpu:0"), wait);
    System.out.println(
        "READY " + engine.serverName() + " " + buffer.address() + " " + buffer.length());
    System.out.flush();
    answer(address, length);
    Await.result(engine.close(), wait);
    Await.result(vertx.close(), wait);
    DirectMemory.free(address);
    System.out.println("BYE");
    System.out.flush();
  }

  /**
   * Answers {@code CRC} lines on stdin with the CRC of the memory until {@code EXIT} or the end of
   * stdin.
   */
  static void answer(long address, long length) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.equals("CRC")) {
        System.out.println("CRC " + crc(address, length));
        System.out.flush();
      } else if (line.equals("EXIT")) {
        break;
      }
    }
  }

  static long crc(long address, long length) {
    CRC32C crc = new CRC32C();
    for (long off = 0; off < length; off += Integer.MAX_VALUE) {
      crc.update(DirectMemory.wrap(address + off, (int) Math.min(Integer.MAX_VALUE, length - off)));
    }
    return crc.getValue();
  }
}

package io.vte.engine.cluster;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * One engine process of a cluster test. Arguments: etcd URI, cluster prefix, logical segment name,
 * slot length, seed, lease TTL in seconds. Registers {@link #SLOTS} slots filled with the seed's
 * sequence and a scratch slot, prints {@code READY <server name>}, then answers one command per
 * stdin line:
 *
 * <ul>
 *   <li>{@code READ <segment> <slot>}: reads the peer's slot (opened by name) into the scratch
 *       slot, prints {@code CRC <crc32c> <peer server name>};
 *   <li>{@code WRITE <segment> <slot> <seed>}: fills the scratch slot with the seed's sequence and
 *       writes it into the peer's slot, prints {@code OK <peer server name>};
 *   <li>{@code CRC <slot>}: prints {@code CRC <crc32c of its own slot>};
 *   <li>{@code EXIT}: closes everything and prints {@code BYE}.
 * </ul>
 *
 * A failed command prints {@code ERR <error code> <message>} ({@code ERR TEST ...} for a failure of
 * this program rather than of the engine, such as a peer without a buffer yet).
 */
public final class ClusterNodeMain {

  /** Slots in each node's published buffer: one per possible writer. */
  static final int SLOTS = 3;

  private static final Duration WAIT = Duration.ofSeconds(30);

  private ClusterNodeMain() {}

  /**
   * @param args etcd URI, cluster prefix, segment name, slot length, seed, lease TTL seconds
   * @throws Exception on a failure outside a command (the parent sees the process die)
   */
  public static void main(String[] args) throws Exception {
    String uri = args[0];
    String prefix = args[1];
    String name = args[2];
    int slot = Integer.parseInt(args[3]);
    long seed = Long.parseLong(args[4]);
    long ttlMs = Long.parseLong(args[5]) * 1000;
    Vertx vertx = Vertx.vertx();
    EngineOptions options =
        new EngineOptions()
            .setDevices(List.of(name + "-d0@127.0.0.1", name + "-d1@127.0.0.1"))
            .setWorkersPerContext(1)
            .setRpcHost("127.0.0.1")
            .setRailHoldDown(Duration.ofMillis(300))
            .setHandshakeDeadline(Duration.ofSeconds(2))
            .setQpTimeout(Duration.ofMillis(200))
            .setQpRetryCount(2)
            .setMetadataUri(uri)
            .setSegmentName(name)
            .setMetadata(
                new MetadataOptions()
                    .setClusterPrefix(prefix)
                    .setLeaseTtl(Duration.ofMillis(ttlMs))
                    .setHealthCheckInterval(Duration.ofMillis(300))
                    .setCallDeadline(Duration.ofMillis(5000)));
    TransferEngine engine = Await.result(TransferEngine.create(vertx, options), WAIT);
    long memory = DirectMemory.allocate((long) slot * (SLOTS + 1));
    ClusterMemory.fill(memory, slot * SLOTS, seed);
    RegisteredBuffer published =
        Await.result(engine.register(memory, (long) slot * SLOTS, "cpu:0"), WAIT);
    RegisteredBuffer scratch =
        Await.result(engine.register(memory + (long) slot * SLOTS, slot, "cpu:0"), WAIT);
    System.out.println("READY " + engine.serverName());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
      String[] cmd = line.split(" ");
      String reply;
      try {
        reply =
            switch (cmd[0]) {
              case "READ" -> {
                SegmentHandle peer =
                    transfer(engine, cmd[1], true, scratch, Integer.parseInt(cmd[2]), slot);
                yield "CRC " + ClusterMemory.crc(scratch.address(), slot) + " " + peer.serverName();
              }
              case "WRITE" -> {
                ClusterMemory.fill(scratch.address(), slot, Long.parseLong(cmd[3]));
                yield "OK "
                    + transfer(engine, cmd[1], false, scratch, Integer.parseInt(cmd[2]), slot)
                        .serverName();
              }
              case "CRC" ->
                  "CRC "
                      + ClusterMemory.crc(
                          published.address() + (long) Integer.parseInt(cmd[1]) * slot, slot);
              default -> "ERR INVALID_ARGUMENT unknown command " + line;
            };
      } catch (VteException e) {
        reply = "ERR " + e.code() + " " + e.getMessage().replace('\n', ' ');
      } catch (RuntimeException e) {
        reply = "ERR TEST " + e;
      }
      System.out.println(reply);
      System.out.flush();
    }
    Await.result(engine.close(), WAIT);
    Await.result(vertx.close(), WAIT);
    DirectMemory.free(memory);
    System.out.println("BYE");
    System.out.flush();
  }

  /** Opens {@code segment} by name and moves one slot between it and the scratch buffer. */
  private static SegmentHandle transfer(
      TransferEngine engine,
      String segment,
      boolean read,
      RegisteredBuffer scratch,
      int slotIndex,
      int slot) {
    SegmentHandle peer = Await.result(engine.openSegment(segment), WAIT);
    if (peer.buffers().isEmpty()) {
      // A node publishes its descriptor at start, before it registers memory.
      throw new IllegalStateException("segment " + segment + " has no buffer yet");
    }
    long remote = peer.buffers().get(0).address() + (long) slotIndex * slot;
    TransferRequest request =
        read
            ? TransferRequest.read(scratch, 0, peer, remote, slot)
            : TransferRequest.write(scratch, 0, peer, remote, slot);
    BatchResult result =
        Await.result(
            engine
                .submit(List.of(request), new TransferOptions().setDeadline(Duration.ofSeconds(10)))
                .result(),
            WAIT);
    for (RequestResult r : result.requests()) {
      if (r.cause() != null) {
        throw r.cause();
      }
    }
    return peer;
  }
}

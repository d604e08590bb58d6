package io.vte.it.rxe;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.Integrity;
import io.vte.api.Notification;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferBatch;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs in a guest as one of two peers of the engine's data-path checks over rxe ({@link
 * RxeHostsTest}); both peers run it at once, each with the other's address:
 *
 * <ol>
 *   <li>each waits until the other has registered its memory, opens its segment, then both meet at
 *       a barrier (a notification each way, which travels on the control plane, not on a QP) and
 *       submit at the same moment: a simultaneous open of the endpoints in both directions;
 *   <li>a batch of {@value #BLOCKS} WRITEs of {@value #BLOCK} bytes into the peer, then a
 *       notification; once the peer's arrives, its bytes must be in this side's region;
 *   <li>a batch of READs of what this side wrote, compared byte by byte;
 *   <li>a batch with a 1 ms deadline (each request COMPLETED or TIMED_OUT, at least one TIMED_OUT)
 *       and a batch cancelled at once (each COMPLETED or CANCELED);
 *   <li>after both, one more WRITE and READ-back: the endpoints still work;
 *   <li>a batch of WRITEs checked end to end ({@link Integrity#CRC32C}): each is read back, so at
 *       least its bytes come back as READ responses (the port's received packets), and it
 *       completes.
 * </ol>
 *
 * Prints one JSON line: {@code ok} and, per step, what was seen (for the opening batch and a later
 * one: the time and what the rxe port counters counted meanwhile, retransmits among them); exits 0
 * when every check held.
 */
public final class DataPathProbeMain {
  static final int BLOCK = 64 << 10;
  static final int BLOCKS = 16;
  private static final int REGION = 2 * BLOCKS * BLOCK;
  private static final Duration STEP = Duration.ofMinutes(3);

  private final String self;
  private final String peer;
  private final List<String> devices;
  private final Vertx vertx;
  private final TransferEngine engine;
  private final EngineOptions options;
  private final Map<String, Object> seen = new TreeMap<>();
  private final Map<String, CompletableFuture<Notification>> notified = new ConcurrentHashMap<>();

  private DataPathProbeMain(
      String self,
      String peer,
      List<String> devices,
      Vertx vertx,
      TransferEngine engine,
      EngineOptions options) {
    this.self = self;
    this.options = options;
    this.peer = peer;
    this.devices = devices;
    this.vertx = vertx;
    this.engine = engine;
    engine.notificationHandler(n -> topic(n.topic()).complete(n));
  }

  private CompletableFuture<Notification> topic(String topic) {
    return notified.computeIfAbsent(topic, t -> new CompletableFuture<>());
  }

  /**
   * @param args this side's rail-0 address, the peer's rail-0 address, the port both serve on and
   *     the devices (e.g. {@code rxe0,rxe1})
   * @throws Exception when the engine cannot start
   */
  public static void main(String[] args) throws Exception {
    String self = args[0];
    String peer = args[1];
    int port = Integer.parseInt(args[2]);
    List<String> devices = List.of(args[3].split(","));
    Vertx vertx = Vertx.vertx();
    EngineOptions options =
        new EngineOptions()
            .setTransport("ibverbs")
            .setDevices(devices)
            .setRpcHost(self)
            .setRpcPort(port)
            // Java under TCG on a loaded machine: a handshake may take tens of seconds
            .setHandshakeDeadline(Duration.ofSeconds(60));
    TransferEngine engine = await(TransferEngine.create(vertx, options));
    boolean ok = false;
    DataPathProbeMain probe =
        new DataPathProbeMain(
            self + ":" + port, peer + ":" + port, devices, vertx, engine, options);
    try {
      ok = probe.run();
    } catch (Throwable t) {
      probe.seen.put("error", String.valueOf(t));
    } finally {
      probe.seen.put("ok", ok);
      System.out.println(new JsonObject(probe.seen).encode());
      await(engine.close());
      await(vertx.close());
    }
    System.exit(ok ? 0 : 1);
  }

  private boolean run() throws Exception {
    RegisteredBuffer region = await(engine.register(ByteBuffer.allocateDirect(REGION), "cpu:0"));
    ByteBuffer source = ByteBuffer.allocateDirect(BLOCKS * BLOCK);
    fill(source, self);
    RegisteredBuffer out = await(engine.register(source, "cpu:0"));
    ByteBuffer back = ByteBuffer.allocateDirect(BLOCKS * BLOCK);
    RegisteredBuffer in = await(engine.register(back, "cpu:0"));
    // Each side's word carries its region's address. The first notification read the peer's
    // descriptor, perhaps before the peer registered the region; a prepared request into it has
    // the engine read it again once (no connection is opened), and the segment is opened after.
    long remote = Long.parseLong(meetWhenUp("registered", Long.toString(region.address())));
    await(
        engine.prepare(
            List.of(TransferRequest.write(out, 0, await(engine.openSegment(peer)), remote, BLOCK)),
            new TransferOptions()));
    SegmentHandle segment = await(engine.openSegment(peer));
    // This side writes the upper half of the peer's region when its name sorts higher.
    long slot = self.compareTo(peer) > 0 ? BLOCKS * (long) BLOCK : 0;
    long peerSlot = BLOCKS * (long) BLOCK - slot;
    barrier("opened");

    Map<String, Long> before = RxeCounters.read(devices);
    long t0 = System.nanoTime();
    BatchResult written =
        submit(segment, out, remote + slot, TransferRequest::write, null, false, null);
    seen.put("write", counts(written));
    seen.put("first_batch_ms", (System.nanoTime() - t0) / 1_000_000); // both endpoints opening
    seen.put("first_batch_counters", RxeCounters.delta(before, RxeCounters.read(devices)));
    barrier("written"); // sent after this side's WRITEs completed: the peer's bytes are here now
    ByteBuffer expected = ByteBuffer.allocateDirect(BLOCKS * BLOCK);
    fill(expected, peer);
    long landedMismatch =
        expected.mismatch(region.byteBuffer().slice((int) peerSlot, BLOCKS * BLOCK));
    seen.put("peer_bytes_mismatch_at", landedMismatch);

    BatchResult read = submit(segment, in, remote + slot, TransferRequest::read, null, false, null);
    seen.put("read", counts(read));
    long readMismatch = source.mismatch(back);
    seen.put("read_back_mismatch_at", readMismatch);

    BatchResult late =
        submit(
            segment, out, remote + slot, TransferRequest::write, Duration.ofMillis(1), false, null);
    seen.put("deadline", counts(late));
    BatchResult cancelled =
        submit(segment, out, remote + slot, TransferRequest::write, null, true, null);
    seen.put("cancel", counts(cancelled));

    Map<String, Long> beforeLater = RxeCounters.read(devices);
    long t1 = System.nanoTime();
    BatchResult again =
        submit(segment, out, remote + slot, TransferRequest::write, null, false, null);
    seen.put("later_batch_ms", (System.nanoTime() - t1) / 1_000_000);
    seen.put("later_batch_counters", RxeCounters.delta(beforeLater, RxeCounters.read(devices)));
    for (int i = 0; i < back.capacity(); i++) {
      back.put(i, (byte) 0);
    }
    BatchResult againRead =
        submit(segment, in, remote + slot, TransferRequest::read, null, false, null);
    seen.put("after", counts(again) + " " + counts(againRead));
    long afterMismatch = source.mismatch(back);
    seen.put("after_mismatch_at", afterMismatch);

    boolean checkedOk = inTurn("checked", () -> checkedWrites(segment, out, remote + slot));
    boolean warmOk = inTurn("warm", () -> newEndpointInAWarmJvm(remote + slot));
    barrier("done"); // the peer may still read this side's region until then

    return written.allCompleted()
        && read.allCompleted()
        && landedMismatch < 0
        && readMismatch < 0
        && only(late, RequestStatus.COMPLETED, RequestStatus.TIMED_OUT)
        && late.requests().stream().anyMatch(r -> r.status() == RequestStatus.TIMED_OUT)
        && only(cancelled, RequestStatus.COMPLETED, RequestStatus.CANCELED)
        && again.allCompleted()
        && againRead.allCompleted()
        && afterMismatch < 0
        && checkedOk
        && warmOk;
  }

  private interface Step {
    boolean run() throws Exception;
  }

  /**
   * Runs {@code step} on each side in turn, the side whose name sorts higher first, so that what
   * one side's rxe ports count is its own traffic.
   *
   * @return what this side's step returned
   */
  private boolean inTurn(String name, Step step) throws Exception {
    boolean first = self.compareTo(peer) > 0;
    if (!first) {
      barrier(name + "-first"); // the peer's step is done
    }
    boolean ok = step.run();
    if (first) {
      barrier(name + "-first");
    }
    barrier(name + "-second");
    return ok;
  }

  /**
   * WRITEs checked end to end: ibverbs reads each one back (READ-back verify), so this side
   * receives the written bytes again as READ responses, at least one packet per 4 KiB (the largest
   * RoCE MTU); an unchecked batch receives only ACKs.
   *
   * @return true when the batch completed and the READ responses were received
   */
  private boolean checkedWrites(SegmentHandle segment, RegisteredBuffer out, long remote)
      throws Exception {
    Map<String, Long> before = RxeCounters.read(devices);
    BatchResult checked =
        submit(segment, out, remote, TransferRequest::write, null, false, Integrity.CRC32C);
    Map<String, Long> counters = RxeCounters.delta(before, RxeCounters.read(devices));
    long received =
        devices.stream().mapToLong(d -> counters.getOrDefault(d + ".rcvd_pkts", 0L)).sum();
    seen.put("checked_write", counts(checked));
    seen.put("checked_write_counters", counters);
    return checked.allCompleted() && received >= (long) BLOCKS * BLOCK / 4096;
  }

  /**
   * A new endpoint's first batch in a warm JVM: a second engine of this process (the next port)
   * opens the peer and WRITEs a batch, whose time includes the handshake and the QPs' first packets
   * as the opening batch's did, but not the JVM's first run of that code (Java under TCG runs cold
   * code many times slower); then a later batch of the same endpoint.
   *
   * @return true when both batches completed
   */
  private boolean newEndpointInAWarmJvm(long remote) throws Exception {
    EngineOptions second = new EngineOptions(options).setRpcPort(options.getRpcPort() + 1);
    TransferEngine fresh = await(TransferEngine.create(vertx, second));
    try {
      DataPathProbeMain probe =
          new DataPathProbeMain(
              options.getRpcHost() + ":" + second.getRpcPort(),
              peer,
              devices,
              vertx,
              fresh,
              second);
      ByteBuffer bytes = ByteBuffer.allocateDirect(BLOCKS * BLOCK);
      fill(bytes, self);
      RegisteredBuffer out = await(fresh.register(bytes, "cpu:0"));
      SegmentHandle segment = await(fresh.openSegment(peer));
      long t0 = System.nanoTime();
      BatchResult first =
          probe.submit(segment, out, remote, TransferRequest::write, null, false, null);
      seen.put("warm_new_endpoint_first_batch_ms", (System.nanoTime() - t0) / 1_000_000);
      long t1 = System.nanoTime();
      BatchResult later =
          probe.submit(segment, out, remote, TransferRequest::write, null, false, null);
      seen.put("warm_new_endpoint_later_batch_ms", (System.nanoTime() - t1) / 1_000_000);
      seen.put("warm_new_endpoint", counts(first) + " " + counts(later));
      return first.allCompleted() && later.allCompleted();
    } finally {
      await(fresh.close());
    }
  }

  private interface Op {
    TransferRequest make(
        RegisteredBuffer local, long localOffset, SegmentHandle segment, long remote, long length);
  }

  /**
   * Submits {@value #BLOCKS} requests of {@value #BLOCK} bytes from {@code local} to {@code
   * remote}, with {@code deadline} (null: {@link #STEP}), cancelled at once when {@code cancel},
   * checked end to end when {@code integrity} says so (null: the engine's default).
   */
  private BatchResult submit(
      SegmentHandle segment,
      RegisteredBuffer local,
      long remote,
      Op op,
      Duration deadline,
      boolean cancel,
      Integrity integrity)
      throws Exception {
    List<TransferRequest> requests = new ArrayList<>();
    for (int i = 0; i < BLOCKS; i++) {
      requests.add(op.make(local, (long) i * BLOCK, segment, remote + (long) i * BLOCK, BLOCK));
    }
    TransferOptions options = new TransferOptions().setDeadline(deadline != null ? deadline : STEP);
    if (integrity != null) {
      options.setIntegrity(integrity);
    }
    TransferBatch batch = engine.submit(requests, options);
    if (cancel) {
      batch.cancel();
    }
    return await(batch.result());
  }

  /**
   * Both peers reach point {@code name} while either may still be starting: each tells the other
   * {@code word} every 200 ms (a notification to an engine not up yet fails, or finds no handler
   * yet) until it has the other's word, then once more, which the other's handler surely receives.
   *
   * @return the other's word
   */
  private String meetWhenUp(String name, String word) throws Exception {
    long end = System.nanoTime() + STEP.toNanos();
    boolean told = false;
    while (true) {
      boolean heard = topic(name).isDone();
      try {
        await(engine.notify(peer, name, Buffer.buffer(word)));
        told = true;
      } catch (Exception e) {
        told = false;
        if (System.nanoTime() > end) {
          throw e;
        }
      }
      if (heard && told) {
        return topic(name).get().payload().toString();
      }
      if (System.nanoTime() > end) {
        throw new IllegalStateException("no word '" + name + "' from " + peer + " within " + STEP);
      }
      Promise<Void> later = Promise.promise();
      vertx.setTimer(200, id -> later.complete());
      await(later.future());
    }
  }

  /** Both peers reach point {@code name}: each tells the other, then awaits the other's word. */
  private void barrier(String name) throws Exception {
    await(engine.notify(peer, name, Buffer.buffer(self)));
    Notification n = topic(name).get(STEP.toSeconds(), TimeUnit.SECONDS);
    seen.put("barrier_" + name, n.payload().toString());
  }

  private static boolean only(BatchResult r, RequestStatus a, RequestStatus b) {
    return r.requests().stream().allMatch(x -> x.status() == a || x.status() == b);
  }

  private static String counts(BatchResult r) {
    Map<String, Integer> byStatus = new TreeMap<>();
    for (RequestResult x : r.requests()) {
      String key = x.status() + (x.cause() == null ? "" : "/" + x.cause().code());
      byStatus.merge(key, 1, Integer::sum);
    }
    return byStatus.toString();
  }

  private static void fill(ByteBuffer b, String seed) {
    int s = seed.hashCode();
    for (int i = 0; i < b.capacity(); i++) {
      b.put(i, (byte) (i * 31 + s + (i >>> 16)));
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(STEP.toSeconds(), TimeUnit.SECONDS);
  }
}

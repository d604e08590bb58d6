package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.RailAffinity;
import io.vte.engine.impl.rail.RailSelector;
import io.vte.engine.impl.segment.FakeDeviceMemory;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.impl.segment.SegmentCache;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The engine data path (registry, segment cache, rail selector, submitter) over a {@link
 * FakeCarrier}, with a fake clock and an in-process "peer" whose buffers are plain native
 * allocations.
 */
final class DataPathHarness implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(20);
  static final String PEER = "127.0.0.1:7000";

  final Vertx vertx = Vertx.vertx();
  final FakeDeviceMemory devices;
  final MemoryRegistry memory;
  final AtomicLong clock = new AtomicLong(1_000_000_000L);
  final RailSelector rails;
  final FakeCarrier carrier;
  final EngineCounters counters = new EngineCounters();
  final Map<String, SegmentDescriptor> published = new ConcurrentHashMap<>();
  final AtomicLong lookups = new AtomicLong();

  /** When set, lookups answer only once it completes (a slow metadata store). */
  volatile Promise<Void> lookupGate;

  final SegmentCache segments;
  final TransferSubmitter submitter;
  private final List<Long> allocations = new ArrayList<>();
  private final List<DeviceDesc> peerDevices = new ArrayList<>();
  private final List<BufferDesc> peerBuffers = new ArrayList<>();
  private long version;

  DataPathHarness(int localDevices, int peerDevices, int sliceSize, int retryCount) {
    devices = new FakeDeviceMemory(localDevices);
    memory = new MemoryRegistry(devices, () -> {});
    List<String> names = new ArrayList<>();
    for (int i = 0; i < localDevices; i++) {
      names.add("local" + i);
    }
    carrier = new FakeCarrier(vertx.getOrCreateContext());
    rails =
        new RailSelector(
            names,
            Collections.nCopies(localDevices, ""),
            3,
            Duration.ofSeconds(2).toNanos(),
            Duration.ofSeconds(2).toNanos(),
            clock::get,
            RailAffinity.NONE,
            rail -> carrier);
    for (int i = 0; i < peerDevices; i++) {
      this.peerDevices.add(
          DeviceDesc.newBuilder().setName("peer" + i).setActive(true).setLid(9000 + i).build());
    }
    // The harness's store has no cache of its own: a fresh lookup is a lookup.
    Function<String, Future<SegmentDescriptor>> lookup =
        name -> {
          lookups.incrementAndGet();
          Promise<Void> gate = lookupGate;
          return (gate == null ? Future.<Void>succeededFuture() : gate.future())
              .compose(
                  v -> {
                    SegmentDescriptor d = published.get(name);
                    return d == null
                        ? Future.failedFuture(
                            new VteException(ErrorCode.SEGMENT_NOT_FOUND, "no segment " + name))
                        : Future.succeededFuture(d);
                  });
        };
    segments = new SegmentCache(lookup, lookup);
    submitter =
        new TransferSubmitter(
            vertx,
            memory,
            segments,
            new TrackerServices(
                new Slicer(sliceSize),
                List.of(rails),
                retryCount,
                counters,
                segments::refresh,
                new PeerDeviceStates(segments, rails, (path, cause) -> {})));
    publish();
  }

  /** Allocates native memory filled with seeded random bytes (freed on close). */
  long allocate(long length, long seed) {
    long address = DirectMemory.allocate(length);
    allocations.add(address);
    fill(address, length, seed);
    return address;
  }

  static void fill(long address, long length, long seed) {
    Random random = new Random(seed);
    for (long i = 0; i < length; i++) {
      DirectMemory.putByte(address + i, (byte) random.nextInt());
    }
  }

  static boolean equal(long a, long b, long length) {
    for (long i = 0; i < length; i++) {
      if (DirectMemory.getByte(a + i) != DirectMemory.getByte(b + i)) {
        return false;
      }
    }
    return true;
  }

  LocalBuffer register(long length, long seed) {
    return memory.register(allocate(length, seed), length, "cpu:0");
  }

  /** Adds a buffer to the peer (published with the next {@link #publish()}). */
  long peerBuffer(long length, long seed) {
    long address = allocate(length, seed);
    BufferDesc.Builder b =
        BufferDesc.newBuilder().setLocation("cpu:0").setAddress(address).setLength(length);
    for (int i = 0; i < peerDevices.size(); i++) {
      b.addRkeys(5000 + i);
    }
    peerBuffers.add(b.build());
    return address;
  }

  /**
   * A registered local buffer, a published peer buffer of the same length, and the opened peer
   * segment.
   */
  record Span(LocalBuffer local, long remote, PeerSegment seg) {

    /**
     * A WRITE of {@code length} bytes from {@code localOffset} to {@code remote + remoteOffset}.
     */
    TransferRequest write(long localOffset, long remoteOffset, long length) {
      return TransferRequest.write(local, localOffset, seg, remote + remoteOffset, length);
    }

    /** A READ of {@code length} bytes from {@code remote + remoteOffset} to {@code localOffset}. */
    TransferRequest read(long localOffset, long remoteOffset, long length) {
      return TransferRequest.read(local, localOffset, seg, remote + remoteOffset, length);
    }
  }

  /**
   * Registers {@code length} bytes locally (seed 1), adds as many to the peer (seed 2), publishes
   * and opens it.
   */
  Span span(long length) {
    LocalBuffer local = register(length, 1);
    long remote = peerBuffer(length, 2);
    publish();
    return new Span(local, remote, open());
  }

  void setPeerDeviceActive(int index, boolean active) {
    peerDevices.set(index, peerDevices.get(index).toBuilder().setActive(active).build());
  }

  void publish() {
    published.put(
        PEER,
        SegmentDescriptor.newBuilder()
            .setName(PEER)
            .setServerName(PEER)
            .setTransport("soft")
            .addAllDevices(peerDevices)
            .addAllBuffers(peerBuffers)
            .setVersion(++version)
            .build());
  }

  PeerSegment open() {
    return Await.result(segments.open(PEER), WAIT);
  }

  TransferBatch submit(List<TransferRequest> requests, Duration deadline) {
    return submitter.submit(requests, new TransferOptions().setDeadline(deadline));
  }

  BatchTracker submitTracked(List<TransferRequest> requests, Duration deadline) {
    return submitter.submitTracked(requests, new TransferOptions().setDeadline(deadline));
  }

  BatchResult run(List<TransferRequest> requests) {
    return Await.result(submit(requests, Duration.ofSeconds(30)).result(), WAIT);
  }

  @Override
  public void close() {
    submitter.close();
    memory.clear();
    Await.result(vertx.close(), WAIT);
    allocations.forEach(DirectMemory::free);
  }
}

package io.vte.engine.impl.owner;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.handshake.HandshakeChannel;
import io.vte.engine.impl.owner.connect.PeerLiveness;
import io.vte.engine.impl.owner.runtime.SliceQueue;
import io.vte.engine.impl.rail.Rail;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.QpInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One owner over fake verbs, a fake handshake channel and a fake clock, driven by calling doWork().
 */
final class OwnerHarness {

  final String server;
  final FakeVerbs.Device device;
  final FakeVerbs.Cq cq;
  final FakeClock clock = new FakeClock();
  final FakeChannel channel = new FakeChannel();
  final OwnerProxy proxy;
  final OwnerDirectory directory = new OwnerDirectory(1);
  final PeerLiveness peers;
  final Owner owner;
  int wakes;

  OwnerHarness(String server, OwnerConfig config) {
    this(server, config, HandshakeBackoff.standard());
  }

  /** An owner whose refused handshakes are retried on {@code backoff}'s schedule. */
  OwnerHarness(String server, OwnerConfig config, HandshakeBackoff backoff) {
    this.server = server;
    this.peers = new PeerLiveness(config.peerProbeAfter().toNanos());
    this.device = new FakeVerbs.Device("d0");
    this.cq = (FakeVerbs.Cq) device.createCq(config.cqSize());
    NicPath local = NicPath.of(server, "d0");
    this.proxy = new OwnerProxy(local, SliceQueue.capacityFor(config.cqSize()));
    proxy.bind(() -> wakes++);
    peers.onGone(proxy::peerGone);
    owner =
        new Owner(
            0,
            config,
            local,
            device,
            device.allocPd(),
            cq,
            channel,
            clock,
            proxy,
            directory,
            backoff,
            peers,
            null);
    directory.add(owner);
  }

  /** An owner at {@code a:1} whose peers accept every connect request. */
  static OwnerHarness accepting(OwnerConfig config) {
    OwnerHarness h = new OwnerHarness("a:1", config);
    h.channel.autoAccept = true;
    return h;
  }

  static OwnerConfig config() {
    return OwnerTestConfig.defaults().withHandshakeDeadline(Duration.ofSeconds(5));
  }

  String localNicPath() {
    return server + "@d0";
  }

  Slice slice(SliceCallback recorder, String peerServer, int index) {
    Slice s =
        new Slice(
            recorder, index, WrOpcode.RDMA_WRITE, 0x1000L + index * 64L, 0x9000L + index * 64L, 64);
    s.assign(new Rail(0, "d0", peerServer, "d0"), 11, 22);
    return s;
  }

  /** Submits {@code n} slices to {@code peerServer}, returning them. */
  List<Slice> submit(Recorder recorder, String peerServer, int n) {
    List<Slice> slices = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Slice s = slice(recorder, peerServer, i);
      slices.add(s);
      proxy.submit(s);
    }
    return slices;
  }

  /** Runs duty cycles until one does nothing; @return total work */
  int run() {
    int total = 0;
    for (int i = 0; i < 100_000; i++) {
      int w = owner.doWork();
      if (w == 0) {
        return total;
      }
      total += w;
    }
    throw new AssertionError("owner never went idle");
  }

  /** A passive connect handled directly on the owner. */
  ConnectReply passive(ConnectRequest request) {
    Promise<ConnectReply> reply = Promise.promise();
    owner.onPassiveConnect(request, reply);
    return reply.future().result();
  }

  /** A monotonic clock the test moves. */
  static final class FakeClock implements NanoClock {
    long now = 1_000_000_000L;

    @Override
    public long nanoTime() {
      return now;
    }

    void advance(Duration d) {
      now += d.toNanos();
    }
  }

  /**
   * A handshake channel whose replies the test controls; auto-accepts when told to. The active
   * side's ready-to-use messages (which need no answer) are kept apart in {@link #readies}.
   */
  static final class FakeChannel implements HandshakeChannel {
    final List<Call> calls = new ArrayList<>();
    final List<ConnectRequest> readies = new ArrayList<>();

    /**
     * The same ready-to-use messages (and probes, which are ready-to-use sent again) with their
     * answers.
     */
    final List<Call> readyCalls = new ArrayList<>();

    /** The disconnects the owner sent (WRITE fences), answered by the test unless confirmed. */
    final List<Call> disconnects = new ArrayList<>();

    boolean autoAccept;

    /** Disconnects are answered DISCONNECTED at once, as a live peer does, unless false. */
    boolean confirmDisconnects = true;

    @Override
    public Future<ConnectReply> connect(
        String serverName, ConnectRequest request, Duration deadline) {
      if (request.getReadyGeneration() != 0) {
        readies.add(request);
        Call call = new Call(serverName, request, Promise.promise());
        readyCalls.add(call);
        return call.reply.future();
      }
      if (request.getDisconnectGeneration() != 0) {
        Call call = new Call(serverName, request, Promise.promise());
        disconnects.add(call);
        if (confirmDisconnects) {
          call.reply.complete(disconnected(request));
        }
        return call.reply.future();
      }
      Call call = new Call(serverName, request, Promise.promise());
      calls.add(call);
      if (autoAccept) {
        call.reply.complete(acceptAs(request, 1));
      }
      return call.reply.future();
    }

    Call last() {
      return calls.get(calls.size() - 1);
    }
  }

  /** One handshake the owner sent. */
  record Call(String server, ConnectRequest request, Promise<ConnectReply> reply) {}

  /** A fake peer's answer to a disconnect: its end is retired. */
  static ConnectReply disconnected(ConnectRequest request) {
    return ConnectReply.newBuilder()
        .setStatus(ConnectStatus.DISCONNECTED)
        .setLocalNicPath(request.getPeerNicPath())
        .build();
  }

  /** An ACCEPTED reply from a fake peer with fake QP numbers. */
  static ConnectReply acceptAs(ConnectRequest request, long generation) {
    ConnectReply.Builder b =
        ConnectReply.newBuilder()
            .setStatus(ConnectStatus.ACCEPTED)
            .setLocalNicPath(request.getPeerNicPath())
            .setGid(ByteString.copyFrom(new Gid(0, 0xffff7f000002L).toBytes()))
            .setLid(7001)
            .setMtu(4096)
            .setGeneration(generation);
    for (int i = 0; i < request.getQpsCount(); i++) {
      b.addQps(QpInfo.newBuilder().setQpNum(5000 + i).setPsn(77 + i));
    }
    return b.build();
  }

  /**
   * Records how each slice ended; counts any second completion. A recorder made by {@link
   * #countingOk()} only counts OK endings, with no lock and no map entry, for runs of many slices:
   * the owner calls it on its event loop, and a lock the test thread holds while descheduled, or a
   * map that grows and rehashes to tens of thousands of entries, would stall the very polls a test
   * measures. A second OK ending then shows as {@link #completed()} above what was submitted.
   */
  static final class Recorder implements SliceCallback {
    final Map<Slice, Integer> status = new IdentityHashMap<>();
    final Map<Slice, Throwable> causes = new IdentityHashMap<>();
    int duplicates;
    boolean abandoned;
    private final boolean countOk;
    private final AtomicInteger ok = new AtomicInteger();

    Recorder() {
      this(false);
    }

    private Recorder(boolean countOk) {
      this.countOk = countOk;
    }

    /**
     * @return a recorder that counts OK endings only and keeps the others per slice
     */
    static Recorder countingOk() {
      return new Recorder(true);
    }

    @Override
    public void onSliceDone(Slice slice, int st, Throwable cause) {
      if (countOk && st == SliceStatus.OK) {
        ok.incrementAndGet();
        return;
      }
      synchronized (this) {
        if (status.containsKey(slice)) {
          duplicates++;
          return;
        }
        status.put(slice, st);
        if (cause != null) {
          causes.put(slice, cause);
        }
      }
    }

    @Override
    public boolean isAbandoned() {
      return abandoned;
    }

    int count(int st) {
      if (countOk && st == SliceStatus.OK) {
        return ok.get();
      }
      int n = 0;
      synchronized (this) {
        for (int v : status.values()) {
          if (v == st) {
            n++;
          }
        }
      }
      return n;
    }

    int completed() {
      synchronized (this) {
        return ok.get() + status.size();
      }
    }
  }
}

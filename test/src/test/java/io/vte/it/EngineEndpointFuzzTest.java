package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.handshake.proto.Auth;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The engine's gRPC endpoint under seeded, reproducible hostile input: malformed and random
 * protobuf messages, lying frames, raw bytes on the TCP port, and absurd field values. Every call
 * ends with a typed status, nothing crashes, no thread or descriptor is left behind, and the engine
 * still transfers afterwards.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class EngineEndpointFuzzTest {

  private static final long SEED = Long.getLong("vte.it.fuzzSeed", 0x7E57_F022L);
  private static final int GRPC_CASES = 3000;
  private static final int TCP_CASES = 300;
  private static final int IN_FLIGHT = 16;
  private static final String[] METHODS = {"Connect", "GetSegment", "Notify"};

  /**
   * OK, INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION,
   * UNIMPLEMENTED.
   */
  private static final List<Integer> TYPED = List.of(0, 3, 5, 7, 8, 9, 12);

  private LocalEngines local;
  private TransferEngine client;
  private TransferEngine target;
  private RegisteredBuffer source;
  private RegisteredBuffer sink;

  @BeforeEach
  void start() {
    local = new LocalEngines();
    client = local.start(LocalEngines.options("fzc", 2, null, 0));
    target = local.start(LocalEngines.options("fzt", 6, null, 0));
    source = local.register(client, 1 << 20);
    sink = local.register(target, 1 << 20);
    assertTransfers("before the fuzz", 1, LocalEngines.WAIT);
  }

  @AfterEach
  void stop() {
    local.close();
  }

  /**
   * A byte-exact 1 MiB write from client to target, retried until {@code patience} passes (cold
   * start on a loaded host).
   */
  private void assertTransfers(String when, long seed, Duration patience) {
    Pattern.fill(source.address(), 1 << 20, seed);
    SegmentHandle seg = Await.result(client.openSegment(target.serverName()), LocalEngines.WAIT);
    long end = System.nanoTime() + patience.toNanos();
    RequestResult r;
    do {
      r =
          Await.result(
                  client
                      .submit(
                          List.of(TransferRequest.write(source, 0, seg, sink.address(), 1 << 20)),
                          new TransferOptions().setDeadline(Duration.ofSeconds(20)))
                      .result(),
                  LocalEngines.WAIT)
              .requests()
              .get(0);
    } while (r.status() != RequestStatus.COMPLETED && System.nanoTime() < end);
    assertEquals(RequestStatus.COMPLETED, r.status(), when + ": the engine transfers: " + r);
    assertEquals(
        Pattern.crc(source.address(), 1 << 20),
        Pattern.crc(sink.address(), 1 << 20),
        when + ": byte-exact");
  }

  @Test
  void fuzzedGrpcAndRawBytesGetTypedStatusesAndLeaveNothingBehind() {
    ResourceSnapshot before = ResourceSnapshot.take();
    long endpointsBefore = EngineStats.of(target).endpointsAlive();
    Map<String, Integer> outcomes = new TreeMap<>();
    List<String> bad = new ArrayList<>();
    Vertx fuzzer = Vertx.vertx();
    try (RawGrpc grpc = new RawGrpc(fuzzer, target.serverName(), null)) {
      SplittableRandom random = new SplittableRandom(SEED);
      run(GRPC_CASES, i -> grpcCase(grpc, random.split(), i), outcomes, bad);
      NetClient tcp = fuzzer.createNetClient(new NetClientOptions().setConnectTimeout(5000));
      run(TCP_CASES, i -> tcpCase(tcp, random.split(), i), outcomes, bad);
    } finally {
      Await.result(fuzzer.close(), LocalEngines.WAIT);
    }
    ReliabilityReport.record(
        new ScenarioFigures(
            "fuzz: gRPC endpoint, seed 0x" + Long.toHexString(SEED),
            GRPC_CASES + TCP_CASES,
            bad.size(),
            Double.NaN,
            Double.NaN,
            Double.NaN,
            outcomes.toString()));
    assertTrue(
        bad.isEmpty(),
        bad.size() + " untyped outcomes, first: " + bad.subList(0, Math.min(5, bad.size())));
    assertTrue(
        outcomes.getOrDefault("grpc 3", 0) > GRPC_CASES / 4,
        "most malformed input is INVALID_ARGUMENT: " + outcomes);
    assertTrue(
        outcomes.getOrDefault("grpc 0", 0) > 0,
        "some fuzzed messages were valid and served: " + outcomes);
    assertTransfers("after the fuzz", 2, Duration.ZERO);
    assertTrue(
        EngineStats.of(target).endpointsAlive() <= endpointsBefore + 1,
        "no endpoints created by fuzzing");
    ResourceSnapshot.assertNoLeaksSince(before, LocalEngines.WAIT);
  }

  /**
   * One fuzz case in flight: what it sent, and its outcome label ("BAD ..." for an untyped one).
   */
  private record Case(String what, Future<String> outcome) {}

  /**
   * Runs cases with a bounded number in flight; a case without an answer within 30 s is a BAD hang.
   */
  private static void run(
      int cases, IntFunction<Case> makeCase, Map<String, Integer> outcomes, List<String> bad) {
    for (int start = 0; start < cases; start += IN_FLIGHT) {
      List<Case> wave = new ArrayList<>();
      for (int i = start; i < Math.min(cases, start + IN_FLIGHT); i++) {
        wave.add(makeCase.apply(i));
      }
      for (Case c : wave) {
        String label;
        try {
          label = c.outcome().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          label = "BAD hang > 30 s: " + c.what();
        } catch (InterruptedException | ExecutionException e) {
          label = "BAD " + c.what() + ": " + e;
        }
        if (label.startsWith("BAD")) {
          bad.add(label);
        } else {
          outcomes.merge(label, 1, Integer::sum);
        }
      }
    }
  }

  private Case grpcCase(RawGrpc grpc, SplittableRandom r, int index) {
    String method = METHODS[r.nextInt(METHODS.length)];
    int kind = r.nextInt(8);
    byte[] valid = validMessage(method, r).toByteArray();
    Buffer body;
    String path = RawGrpc.SERVICE + method;
    String contentType = "application/grpc";
    switch (kind) {
      case 0:
        body = RawGrpc.frame(bytes(r, r.nextInt(2000)));
        break;
      case 1:
        {
          byte[] m = valid.clone();
          for (int k = 1 + r.nextInt(8); k > 0 && m.length > 0; k--) {
            m[r.nextInt(m.length)] ^= (byte) (1 + r.nextInt(255));
          }
          body = RawGrpc.frame(m);
          break;
        }
      case 2:
        body = RawGrpc.frame(java.util.Arrays.copyOf(valid, r.nextInt(valid.length + 1)));
        break;
      case 3:
        {
          Buffer lying = RawGrpc.frame(valid);
          if (r.nextBoolean()) {
            lying.setByte(0, (byte) 1);
          } else {
            lying.setInt(1, r.nextInt(Integer.MAX_VALUE));
          }
          body = lying;
          break;
        }
      case 4:
        body = RawGrpc.frame(randomMessage(method, r).toByteArray());
        break;
      case 5:
        body = Buffer.buffer(bytes(r, r.nextInt(5)));
        break;
      case 6:
        if (r.nextBoolean()) {
          path =
              RawGrpc.SERVICE
                  + new String(bytes(r, 1 + r.nextInt(8)), StandardCharsets.ISO_8859_1)
                      .replaceAll("[^A-Za-z]", "x");
        } else {
          contentType = r.nextBoolean() ? "application/json" : "text/plain";
        }
        body = RawGrpc.frame(valid);
        break;
      default:
        body = RawGrpc.frame(valid);
    }
    String what = "case " + index + " kind " + kind + " " + path + " " + contentType;
    return new Case(what, grpc.call(path, contentType, body).map(o -> classify(o, what)));
  }

  /**
   * A typed status, or an HTTP refusal of a request that is not gRPC at all, is fine; anything else
   * is BAD.
   */
  private static String classify(RawGrpc.Outcome o, String what) {
    if (o.failure() != null) {
      return "BAD " + what + ": " + o.failure();
    }
    if (o.httpStatus() == 200) {
      return TYPED.contains(o.grpcStatus()) ? o.label() : "BAD " + what + ": " + o.label();
    }
    return o.httpStatus() >= 400 && o.httpStatus() < 500
        ? o.label()
        : "BAD " + what + ": " + o.label();
  }

  private Case tcpCase(NetClient tcp, SplittableRandom r, int index) {
    Buffer data = Buffer.buffer();
    if (r.nextBoolean()) {
      data.appendString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    }
    data.appendBytes(bytes(r, r.nextInt(4096)));
    String[] hostPort = target.serverName().split(":");
    return new Case(
        "tcp case " + index + " of " + data.length() + " bytes",
        tcp.connect(Integer.parseInt(hostPort[1]), hostPort[0])
            .compose(socket -> socket.write(data).compose(v -> socket.close()))
            .map("tcp written")
            .otherwise(t -> "tcp refused " + t.getClass().getSimpleName()));
  }

  private MessageLite validMessage(String method, SplittableRandom r) {
    switch (method) {
      case "Connect":
        return ConnectRequest.newBuilder()
            .setLocalNicPath("127.0.0.1:1@fuzz" + r.nextInt(4))
            .setPeerNicPath(
                r.nextBoolean() ? "127.0.0.1:1@nodevice" : target.serverName() + "@nodevice")
            .setGid(ByteString.copyFrom(bytes(r, 16)))
            .setLid(1 + r.nextInt(65535))
            .setMtu(4096)
            .addQps(QpInfo.newBuilder().setQpNum(1 + r.nextInt(1 << 24)).setPsn(r.nextInt(1 << 24)))
            .setGeneration(1 + r.nextInt(1000))
            .build();
      case "GetSegment":
        return GetSegmentRequest.newBuilder()
            .setName(r.nextBoolean() ? "" : target.serverName())
            .build();
      default:
        return NotifyRequest.newBuilder()
            .setFrom("127.0.0.1:1")
            .setTopic("fuzz")
            .setPayload(ByteString.copyFrom(bytes(r, r.nextInt(64))))
            .setSequence(1 + r.nextInt(100))
            .build();
    }
  }

  /** Random values in every field, including absurd ones and foreign auth tokens. */
  private static MessageLite randomMessage(String method, SplittableRandom r) {
    Auth auth =
        r.nextInt(4) == 0
            ? Auth.newBuilder()
                .setKeyId(string(r, 40))
                .setTimestampMs(r.nextLong())
                .setNonce(ByteString.copyFrom(bytes(r, r.nextInt(40))))
                .setMac(ByteString.copyFrom(bytes(r, 32)))
                .build()
            : null;
    switch (method) {
      case "Connect":
        {
          ConnectRequest.Builder b =
              ConnectRequest.newBuilder()
                  .setLocalNicPath(string(r, 300))
                  .setPeerNicPath(string(r, 300))
                  .setGid(ByteString.copyFrom(bytes(r, r.nextInt(40))))
                  .setLid(r.nextInt())
                  .setMtu(r.nextInt())
                  .setGeneration(r.nextLong());
          for (int q = r.nextInt(200); q > 0; q--) {
            b.addQps(QpInfo.newBuilder().setQpNum(r.nextInt()).setPsn(r.nextInt()));
          }
          if (auth != null) {
            b.setAuth(auth);
          }
          return b.build();
        }
      case "GetSegment":
        {
          GetSegmentRequest.Builder b = GetSegmentRequest.newBuilder().setName(string(r, 3000));
          if (auth != null) {
            b.setAuth(auth);
          }
          return b.build();
        }
      default:
        {
          NotifyRequest.Builder b =
              NotifyRequest.newBuilder()
                  .setFrom(string(r, 300))
                  .setTopic(string(r, 3000))
                  .setPayload(ByteString.copyFrom(bytes(r, r.nextInt(100_000))))
                  .setSequence(r.nextLong());
          if (auth != null) {
            b.setAuth(auth);
          }
          return b.build();
        }
    }
  }

  private static byte[] bytes(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  private static String string(SplittableRandom r, int maxLength) {
    StringBuilder sb = new StringBuilder();
    for (int n = r.nextInt(maxLength + 1); n > 0; n--) {
      sb.appendCodePoint(r.nextInt(4) == 0 ? 0x80 + r.nextInt(0xD000) : 0x20 + r.nextInt(0x5F));
    }
    return sb.toString();
  }
}

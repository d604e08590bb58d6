package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.common.GrpcStatus;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.OnEventLoop;
import io.vte.testkit.ResourceSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hostile input against the handshake server: random and mutated protobuf messages as gRPC calls,
 * malformed gRPC framing and headers as HTTP/2 streams, and raw TCP garbage. Every case is derived
 * from {@code seed + case index} ({@code -Dvte.fuzz.seed=...} to replay). The server must answer
 * each call with a typed status, never hang, keep serving valid calls and hold no extra threads or
 * sockets.
 */
@ExtendWith(BlockedThreadGuard.class)
class HandshakeFuzzTest {

  private static final long SEED = Long.getLong("vte.fuzz.seed", 0x5EED_C0FFEEL);
  private static final int GRPC_CASES = 3000;
  private static final int HTTP2_CASES = 600;
  private static final String NO_STREAM = "http2 no stream from the client pool: ";
  private static final int TCP_CASES = 600;
  private static final int BATCH = Integer.getInteger("vte.fuzz.batch", 50);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String SERVICE = "vte.handshake.v1.Handshake/";
  private static final String[] METHODS = {"Connect", "GetSegment", "Notify"};
  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final Set<GrpcStatus> TYPED =
      EnumSet.of(
          GrpcStatus.OK,
          GrpcStatus.INVALID_ARGUMENT,
          GrpcStatus.RESOURCE_EXHAUSTED,
          GrpcStatus.UNIMPLEMENTED,
          GrpcStatus.PERMISSION_DENIED);

  private Vertx serverVertx;
  private Vertx fuzzVertx;
  private RecordingHandler handler;
  private HandshakeServer server;
  private ResourceSnapshot baseline;
  private final Map<String, Integer> outcomes = new TreeMap<>();

  @BeforeEach
  void start() {
    serverVertx = Vertx.vertx();
    handler = new RecordingHandler();
  }

  @AfterEach
  void stop() {
    if (fuzzVertx != null) {
      Await.result(fuzzVertx.close(), WAIT);
    }
    Await.result(server.close(), WAIT);
    Await.result(serverVertx.close(), WAIT);
  }

  private void startServer(HandshakeServerOptions options) {
    server = Await.result(HandshakeServer.start(serverVertx, options, handler), WAIT);
    HandshakeClientPool warmUp =
        HandshakeClientPool.create(serverVertx, new HandshakeClientOptions());
    Await.result(
        warmUp
            .notify(server.serverName(), Fixtures.notifyRequest(1), null)
            .recover(e -> Future.succeededFuture()),
        WAIT);
    Await.result(warmUp.close(), WAIT);
    handler.received.clear();
    baseline = ResourceSnapshot.take();
    fuzzVertx = Vertx.vertx();
  }

  @Test
  void randomAndMutatedMessagesGetTypedStatuses() {
    startServer(new HandshakeServerOptions());
    runGrpcCases(GRPC_CASES);
    afterFuzz();
    assertTrue(
        outcomes.getOrDefault("grpc OK", 0) > 0, "some fuzzed messages were valid: " + outcomes);
    assertTrue(
        outcomes.getOrDefault("grpc INVALID_ARGUMENT", 0) > GRPC_CASES / 4,
        "most were rejected: " + outcomes);
  }

  @Test
  void malformedGrpcFramingAndHeadersNeverHang() {
    startServer(new HandshakeServerOptions());
    HttpClient http =
        fuzzVertx.createHttpClient(
            new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false));
    runBatches(HTTP2_CASES, i -> http2Case(http, new SplittableRandom(SEED + i), i));
    Await.result(http.close(), WAIT);
    afterFuzz();
    int noStream =
        outcomes.entrySet().stream()
            .filter(e -> e.getKey().startsWith(NO_STREAM))
            .mapToInt(Map.Entry::getValue)
            .sum();
    assertTrue(
        noStream <= HTTP2_CASES / 100,
        "the client got no stream in " + noStream + " cases: " + outcomes);
  }

  @Test
  void rawTcpGarbageNeverHurtsTheServer() {
    startServer(new HandshakeServerOptions());
    NetClient tcp = fuzzVertx.createNetClient();
    List<NetSocket> idle = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      NetSocket socket = Await.result(tcp.connect(server.port(), "127.0.0.1"), WAIT);
      Await.result(
          socket.write(Buffer.buffer(PREFACE).slice(0, 1 + i % (PREFACE.length - 1))), WAIT);
      idle.add(socket);
    }
    runBatches(TCP_CASES, i -> tcpCase(tcp, new SplittableRandom(SEED + i)));
    assertServes("while 20 half-open connections idle");
    for (NetSocket socket : idle) {
      Await.result(socket.close(), WAIT);
    }
    Await.result(tcp.close(), WAIT);
    afterFuzz();
  }

  @Test
  void fuzzAgainstAnAuthenticatedServerNeverReachesTheHandler() {
    byte[] secret = "fuzz-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    startServer(new HandshakeServerOptions().setAuth(HandshakeAuth.sharedSecret("k", secret)));
    runGrpcCases(GRPC_CASES / 3);
    assertTrue(
        handler.received.isEmpty(),
        "an unauthenticated fuzzer reached the handler " + handler.received.size() + " times");
    assertEquals(0, outcomes.getOrDefault("grpc OK", 0), outcomes::toString);
    assertTrue(outcomes.getOrDefault("grpc PERMISSION_DENIED", 0) > 0, outcomes::toString);
    afterFuzz();
  }

  private void runGrpcCases(int cases) {
    GrpcClient grpc =
        GrpcClient.client(fuzzVertx, new GrpcClientOptions().setMaxMessageSize(8 << 20));
    SocketAddress address = SocketAddress.inetSocketAddress(server.port(), "127.0.0.1");
    runBatches(cases, i -> grpcCase(grpc, address, new SplittableRandom(SEED + i), i));
    Await.result(grpc.close(), WAIT);
  }

  private void afterFuzz() {
    assertServes("after the fuzz");
    Await.untilEquals("no server call left pending", WAIT, 0, server::pendingCalls);
    Await.result(fuzzVertx.close(), WAIT);
    fuzzVertx = null;
    ResourceSnapshot.assertNoLeaksSince(baseline, WAIT);
    System.out.println("fuzz seed " + SEED + " outcomes " + outcomes);
  }

  private void assertServes(String when) {
    HandshakeClientPool pool = HandshakeClientPool.create(fuzzVertx, new HandshakeClientOptions());
    try {
      Future<?> call =
          pool.getSegment(
              server.serverName(), Fixtures.segmentRequest("alive"), Duration.ofSeconds(5));
      Await.until("server answers " + when, WAIT, call::isComplete);
      if (call.failed() && !call.cause().getMessage().contains("PERMISSION_DENIED")) {
        fail("server stopped serving " + when + ": " + call.cause());
      }
    } finally {
      Await.result(pool.close(), WAIT);
    }
  }

  private void runBatches(int cases, IntFunction<Future<String>> runCase) {
    for (int first = 0; first < cases; first += BATCH) {
      List<Future<String>> batch = new ArrayList<>();
      for (int i = first; i < Math.min(cases, first + BATCH); i++) {
        int index = i;
        batch.add(
            OnEventLoop.call(fuzzVertx, () -> runCase.apply(index))
                .map(outcome -> index + ":" + outcome));
      }
      for (Future<String> result : batch) {
        String outcome = Await.result(result, WAIT);
        String kind = outcome.substring(outcome.indexOf(':') + 1);
        if (kind.startsWith("BAD ")) {
          fail("seed " + SEED + " case " + outcome);
        }
        outcomes.merge(kind, 1, Integer::sum);
      }
    }
  }

  // ---- gRPC calls with fuzzed payloads

  private Future<String> grpcCase(
      GrpcClient grpc, SocketAddress address, SplittableRandom random, int index) {
    boolean unknownMethod = random.nextInt(20) == 0;
    String method =
        unknownMethod ? "Nope" + random.nextInt(3) : METHODS[random.nextInt(METHODS.length)];
    Buffer payload = Buffer.buffer(payload(method, random));
    return grpc.request(address)
        .compose(
            request -> {
              request.fullMethodName(SERVICE + method);
              request.timeout(10, TimeUnit.SECONDS);
              request.end(payload);
              return request
                  .response()
                  .compose(
                      response ->
                          response
                              .end()
                              .transform(ended -> Future.succeededFuture(response.status())));
            })
        .transform(
            done -> {
              if (done.failed()) {
                return Future.succeededFuture(
                    "BAD failure "
                        + done.cause()
                        + " for "
                        + method
                        + " payload "
                        + payload.length()
                        + " bytes");
              }
              GrpcStatus status = done.result();
              if (status == null || !TYPED.contains(status)) {
                return Future.succeededFuture("BAD status " + status + " for " + method);
              }
              return Future.succeededFuture("grpc " + status.name());
            });
  }

  private static byte[] payload(String method, SplittableRandom random) {
    switch (random.nextInt(4)) {
      case 0:
        return randomBytes(random, random.nextInt(2048));
      case 1:
        return mutate(validMessage(method, random).toByteArray(), random);
      case 2:
        return absurdMessage(method, random).toByteArray();
      default:
        return validMessage(method, random).toByteArray();
    }
  }

  private static MessageLite validMessage(String method, SplittableRandom random) {
    switch (method) {
      case "GetSegment":
        return Fixtures.segmentRequest("seg-" + random.nextInt(1000));
      case "Notify":
        return Fixtures.notifyRequest(1 + random.nextInt(1000));
      default:
        return Fixtures.connectRequest().toBuilder()
            .setGeneration(1 + random.nextInt(1000))
            .build();
    }
  }

  private static MessageLite absurdMessage(String method, SplittableRandom random) {
    String huge = "z".repeat(random.nextInt(300_000));
    switch (method) {
      case "GetSegment":
        return GetSegmentRequest.newBuilder().setName(huge).build();
      case "Notify":
        return NotifyRequest.newBuilder()
            .setFrom(huge)
            .setTopic(huge)
            .setPayload(ByteString.copyFrom(randomBytes(random, random.nextInt(200_000))))
            .setSequence(random.nextLong())
            .build();
      default:
        ConnectRequest.Builder connect =
            Fixtures.connectRequest().toBuilder()
                .setLid(random.nextInt())
                .setMtu(random.nextInt())
                .setGeneration(random.nextLong())
                .setGid(ByteString.copyFrom(randomBytes(random, random.nextInt(40))));
        int qps = random.nextInt(4) == 0 ? random.nextInt(150_000) : random.nextInt(20);
        for (int i = 0; i < qps; i++) {
          connect.addQps(QpInfo.newBuilder().setQpNum(random.nextInt()).setPsn(random.nextInt()));
        }
        return connect.setLocalNicPath(random.nextBoolean() ? huge : "a@b").build();
    }
  }

  private static byte[] mutate(byte[] bytes, SplittableRandom random) {
    switch (random.nextInt(4)) {
      case 0:
        for (int flips = 1 + random.nextInt(8); flips > 0 && bytes.length > 0; flips--) {
          bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
        }
        return bytes;
      case 1:
        return java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
      case 2:
        // A length-delimited field claiming far more bytes than follow.
        byte[] claim = {0x12, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f};
        byte[] out = java.util.Arrays.copyOf(bytes, bytes.length + claim.length);
        System.arraycopy(claim, 0, out, bytes.length, claim.length);
        return out;
      default:
        byte[] tail = randomBytes(random, random.nextInt(64));
        byte[] joined = java.util.Arrays.copyOf(bytes, bytes.length + tail.length);
        System.arraycopy(tail, 0, joined, bytes.length, tail.length);
        return joined;
    }
  }

  private static byte[] randomBytes(SplittableRandom random, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
    return bytes;
  }

  // ---- HTTP/2 streams with malformed gRPC framing and headers

  private Future<String> http2Case(HttpClient http, SplittableRandom random, int index) {
    String method = random.nextInt(10) == 0 ? "Nope" : METHODS[random.nextInt(METHODS.length)];
    RequestOptions options =
        new RequestOptions()
            .setMethod(random.nextInt(10) == 0 ? HttpMethod.GET : HttpMethod.POST)
            .setHost("127.0.0.1")
            .setPort(server.port())
            .setURI(
                random.nextInt(15) == 0
                    ? "/" + new String(randomPrintable(random, 20))
                    : "/" + SERVICE + method)
            .setIdleTimeout(10_000)
            .setConnectTimeout(10_000)
            .putHeader(
                "content-type",
                pick(
                    random,
                    "application/grpc",
                    "application/grpc+proto",
                    "application/grpc+json",
                    "application/grpc-web",
                    "text/plain",
                    "application/grpc; garbage"));
    if (random.nextBoolean()) {
      options.putHeader("grpc-encoding", pick(random, "gzip", "identity", "snappy", "zz"));
    }
    if (random.nextBoolean()) {
      options.putHeader(
          "grpc-timeout", pick(random, "1S", "abc", "99999999999H", "-5m", "0n", "10u", ""));
    }
    Buffer body = frames(random);
    // A stream the client's pool never hands out is the client's matter (the server is checked to
    // still serve
    // and to hold no call afterwards); a stream that was sent and got no answer within the idle
    // timeout is BAD.
    return http.request(options)
        .transform(
            obtained ->
                obtained.failed()
                    ? Future.succeededFuture(
                        NO_STREAM + obtained.cause().getClass().getSimpleName())
                    : obtained
                        .result()
                        .send(body)
                        .compose(
                            response ->
                                response
                                    .body()
                                    .map(
                                        b ->
                                            http2Outcome(
                                                response.statusCode(),
                                                response.getTrailer("grpc-status") != null
                                                    ? response.getTrailer("grpc-status")
                                                    : response.getHeader("grpc-status"))))
                        .otherwise(failure -> "http2 " + failure.getClass().getSimpleName())
                        .map(
                            outcome ->
                                outcome.contains("TimeoutException")
                                        || outcome.contains("NoStackTrace")
                                    ? "BAD " + outcome + " case " + index
                                    : outcome));
  }

  /** A 200 must carry a typed gRPC status; anything else is an HTTP-level refusal (e.g. 415). */
  private static String http2Outcome(int httpStatus, String grpcStatus) {
    if (httpStatus != 200) {
      return "http2 HTTP " + httpStatus;
    }
    if (grpcStatus == null) {
      return "BAD http2 200 without grpc-status";
    }
    GrpcStatus status = GrpcStatus.valueOf(Integer.parseInt(grpcStatus));
    return TYPED.contains(status)
        ? "http2 grpc " + status.name()
        : "BAD http2 grpc status " + status.name();
  }

  private static Buffer frames(SplittableRandom random) {
    Buffer body = Buffer.buffer();
    int count = random.nextInt(4);
    for (int f = 0; f < count; f++) {
      byte[] payload =
          random.nextBoolean()
              ? Fixtures.connectRequest().toByteArray()
              : randomBytes(random, random.nextInt(512));
      int flag = pickInt(random, 0, 1, random.nextInt(256));
      long declared =
          pickInt(
              random,
              payload.length,
              payload.length + 1 + random.nextInt(100),
              random.nextInt(Integer.MAX_VALUE),
              0);
      body.appendByte((byte) flag).appendInt((int) declared).appendBytes(payload);
    }
    if (random.nextInt(5) == 0) {
      body.appendBytes(randomBytes(random, random.nextInt(8)));
    }
    return body;
  }

  // ---- raw TCP

  private Future<String> tcpCase(NetClient tcp, SplittableRandom random) {
    Buffer garbage = Buffer.buffer();
    int kind = random.nextInt(3);
    if (kind == 0) {
      garbage.appendBytes(PREFACE);
    } else if (kind == 1) {
      garbage.appendString(
          "POST /" + SERVICE + "Connect HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n");
    }
    garbage.appendBytes(randomBytes(random, random.nextInt(4096)));
    return tcp.connect(server.port(), "127.0.0.1")
        .compose(socket -> socket.write(garbage).transform(written -> socket.close()))
        .map(v -> "tcp kind " + kind)
        .otherwise(failure -> "tcp kind " + kind + " " + failure.getClass().getSimpleName());
  }

  private static String pick(SplittableRandom random, String... values) {
    return values[random.nextInt(values.length)];
  }

  private static int pickInt(SplittableRandom random, int... values) {
    return values[random.nextInt(values.length)];
  }

  private static char[] randomPrintable(SplittableRandom random, int length) {
    char[] chars = new char[1 + random.nextInt(length)];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return chars;
  }
}

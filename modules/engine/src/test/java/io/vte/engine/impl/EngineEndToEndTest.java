package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two engines in one JVM with 4 devices each: byte-exact READ and WRITE; over soft verbs here, over
 * the ibverbs provider and the fake libibverbs in {@link EngineEndToEndOverIbverbsTest}.
 */
@ExtendWith(BlockedThreadGuard.class)
class EngineEndToEndTest {

  private static final long[] SIZES = {1, 4095, 65536, 65537, (1 << 20) + 3, 16L << 20, 256L << 20};
  private final EngineFixture fx = fixture();

  @AfterEach
  void close() {
    fx.close();
  }

  /**
   * @return where the engines run: soft verbs
   */
  EngineFixture fixture() {
    return new EngineFixture();
  }

  @ParameterizedTest(name = "workersPerContext {0}")
  @ValueSource(ints = {1, 2, 4})
  void byteExactWriteAndReadFromOneByteTo256MiB(int workers) {
    TransferEngineImpl a = fx.start(4, workers);
    TransferEngineImpl b = fx.start(4, workers);
    long total = totalBytes();
    RegisteredBuffer local = fx.register(a, total, 1);
    RegisteredBuffer remote = fx.register(b, total, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    assertEquals(4, seg.devices().size());
    assertEquals(1, seg.buffers().size());

    long start = System.nanoTime();
    BatchResult w =
        Await.result(
            a.submit(requests(true, local, seg, remote), new TransferOptions()).result(), WAIT);
    long writeNanos = System.nanoTime() - start;
    assertTrue(w.allCompleted(), w.toString());
    assertEquals(total, w.bytes());
    assertEquals(
        -1,
        EngineFixture.mismatch(local.address(), remote.address(), total),
        "remote == local after WRITE");

    EngineFixture.fill(remote.address(), total, 3);
    start = System.nanoTime();
    BatchResult r =
        Await.result(
            a.submit(requests(false, local, seg, remote), new TransferOptions()).result(), WAIT);
    long readNanos = System.nanoTime() - start;
    assertTrue(r.allCompleted(), r.toString());
    assertEquals(
        -1,
        EngineFixture.mismatch(local.address(), remote.address(), total),
        "local == remote after READ");
    System.out.printf(
        "workers %d: %d MiB WRITE %.2f GiB/s, READ %.2f GiB/s%n",
        workers,
        total >> 20,
        total / (writeNanos / 1e9) / (1L << 30),
        total / (readNanos / 1e9) / (1L << 30));
  }

  /**
   * @return bytes of one batch: the sum of the request sizes
   */
  static long totalBytes() {
    long total = 0;
    for (long s : SIZES) {
      total += s;
    }
    return total;
  }

  private static List<TransferRequest> requests(
      boolean write, RegisteredBuffer local, SegmentHandle seg, RegisteredBuffer remote) {
    List<TransferRequest> list = new ArrayList<>();
    long off = 0;
    for (long s : SIZES) {
      list.add(
          write
              ? TransferRequest.write(local, off, seg, remote.address() + off, s)
              : TransferRequest.read(local, off, seg, remote.address() + off, s));
      off += s;
    }
    return list;
  }

  static Duration deadline() {
    return Duration.ofSeconds(60);
  }
}

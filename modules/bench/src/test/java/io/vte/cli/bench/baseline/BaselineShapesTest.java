package io.vte.cli.bench.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The baselines do what they claim: the ping-pong answers with 8 bytes, the memcpy runs as many
 * threads as asked, and a polled socket spins inside its window and sleeps only after it.
 */
class BaselineShapesTest {

  @Test
  void thePingPongAnswersEachMessageWithEightBytesNotAnEcho() {
    int size = 65536;
    TcpPingPongBench.Result r = TcpPingPongBench.run(Duration.ofMillis(100), size, false);
    long messages = r.sentBytes() / size;
    assertTrue(messages > 0 && r.roundTrips().getTotalCount() > 0, "round trips measured");
    assertEquals(messages * size, r.sentBytes(), "whole messages went out");
    assertEquals(messages * NioAckedBench.ACK_BYTES, r.answeredBytes(), "8 B came back for each");
    TcpPingPongBench.Result busy = TcpPingPongBench.run(Duration.ofMillis(100), 8, true);
    assertEquals(busy.sentBytes(), busy.answeredBytes(), "8 B messages, 8 B answers: " + busy);
    TcpPingPongBench.Result shorterThanOne =
        TcpPingPongBench.run(Duration.ofNanos(1), 4 << 20, false);
    assertTrue(
        shorterThanOne.roundTrips().getTotalCount() >= 1,
        "a window shorter than a round trip still measures one");
  }

  @Test
  void theMemcpyRunsAsManyThreadsAsTheRailHasCopiers() {
    MemcpyBench.Result two = MemcpyBench.run(Duration.ofMillis(100), 65536, 4 << 20, 2);
    assertEquals(2, two.perThread().size(), two.toString());
    assertTrue(two.perThread().stream().allMatch(g -> g > 0), "both threads copied: " + two);
    assertEquals(
        two.perThread().get(0) + two.perThread().get(1), two.gibPerSecond(), 1e-9, two.toString());
    assertEquals(1, MemcpyBench.run(Duration.ofMillis(50), 65536, 1 << 20, 1).perThread().size());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> MemcpyBench.run(Duration.ofMillis(10), 4096, 1 << 20, 0));
    assertEquals("memcpy size and threads must be >= 1, got 4096, 0", e.getMessage());
  }

  @Test
  void aPolledSocketSpinsInsideItsWindowAndSleepsOnlyAfterIt() throws Exception {
    assertEquals(0, readAfterADelay(PolledChannel.ALWAYS), "a socket polled always never sleeps");
    assertTrue(
        readAfterADelay(Duration.ofNanos(1_000)) >= 1,
        "past a 1 us window the reader sleeps in its selector");
  }

  /**
   * @return how often a reader of that spin window slept while its peer wrote 8 bytes 50 ms late
   */
  private static long readAfterADelay(Duration spin) throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel writer = SocketChannel.open(server.getLocalAddress());
          SocketChannel readerSocket = server.accept();
          PolledChannel reader = new PolledChannel(readerSocket, spin)) {
        CompletableFuture<Void> late =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    writer.write(ByteBuffer.allocate(8));
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                },
                CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
        assertTrue(reader.readFully(ByteBuffer.allocate(8)), "the 8 bytes arrived");
        late.get(10, TimeUnit.SECONDS);
        return reader.sleeps();
      }
    }
  }
}

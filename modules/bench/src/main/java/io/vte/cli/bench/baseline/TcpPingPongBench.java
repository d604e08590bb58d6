package io.vte.cli.bench.baseline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The latency baseline: a TCP ping-pong on loopback between two threads, {@code size}-byte messages
 * each answered with an {@link NioAckedBench#ACK_BYTES}-byte acknowledgement, as a one-sided WRITE
 * moves its payload one way and only its completion comes back. Either blocking sockets or
 * non-blocking ones that both sides busy-poll without ever sleeping ({@link PolledChannel#ALWAYS}).
 */
public final class TcpPingPongBench {

  private TcpPingPongBench() {}

  /**
   * What one run measured.
   *
   * @param roundTrips round-trip times of the measured messages, in nanoseconds
   * @param sentBytes bytes the client sent, warm-up included
   * @param answeredBytes bytes the client read back, warm-up included
   */
  public record Result(Histogram roundTrips, long sentBytes, long answeredBytes) {}

  /**
   * @param duration how long to measure (after a warm-up)
   * @param size bytes per message, at least 1; each is answered with {@link
   *     NioAckedBench#ACK_BYTES}
   * @param busyPoll non-blocking sockets spun on by both sides, else blocking sockets
   * @return the round trips and the bytes each way
   */
  public static Result run(Duration duration, int size, boolean busyPoll) {
    if (size < 1) {
      throw new IllegalArgumentException("ping-pong message size must be positive, got " + size);
    }
    Duration spin = busyPoll ? PolledChannel.ALWAYS : Duration.ZERO;
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel clientSocket = SocketChannel.open(server.getLocalAddress());
          SocketChannel peerSocket = server.accept();
          PolledChannel client = new PolledChannel(clientSocket, spin)) {
        PolledChannel peer = new PolledChannel(peerSocket, spin);
        Thread answer = new Thread(() -> answer(peer, size), "vte-bench-pingpong-answer");
        answer.setDaemon(true);
        answer.start();
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        ByteBuffer ack = ByteBuffer.allocateDirect(NioAckedBench.ACK_BYTES);
        Histogram h = new Histogram(3);
        long warmupEnd = Measure.warmupEnd(duration);
        long end = warmupEnd + duration.toNanos();
        long messages = 0;
        long now;
        // at least one measured round trip, however slow: an empty histogram reads as 0 us
        while ((now = System.nanoTime()) < end || h.getTotalCount() == 0) {
          buf.clear();
          client.writeFully(buf);
          ack.clear();
          if (!client.readFully(ack)) {
            throw new IOException("ping-pong peer closed");
          }
          long rtt = System.nanoTime() - now;
          messages++;
          if (now >= warmupEnd) {
            h.recordValue(rtt);
          }
        }
        return new Result(h, messages * size, messages * NioAckedBench.ACK_BYTES);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("TCP ping-pong baseline failed", e);
    }
  }

  /** Reads whole messages and acknowledges each with 8 bytes; ends when the client closes. */
  private static void answer(PolledChannel ch, int size) {
    ByteBuffer buf = ByteBuffer.allocateDirect(size);
    ByteBuffer ack = ByteBuffer.allocateDirect(NioAckedBench.ACK_BYTES);
    try (ch) {
      while (true) {
        buf.clear();
        if (!ch.readFully(buf)) {
          return;
        }
        ack.clear();
        ch.writeFully(ack);
      }
    } catch (IOException e) {
      // the client closed: the run is over
    }
  }
}

package io.vte.cli.bench;

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
 * The latency baseline: a TCP ping-pong of {@code size}-byte messages on loopback between two
 * threads, either blocking sockets or non-blocking ones that both sides busy-poll (a read that
 * returns 0 is tried again at once, as an owner polls its CQ).
 */
public final class TcpPingPongBench {

  private TcpPingPongBench() {}

  /**
   * @param duration how long to measure (after a warm-up)
   * @param size bytes per message, each way
   * @param busyPoll non-blocking sockets spun on by both sides, else blocking sockets
   * @return round-trip times in nanoseconds
   */
  public static Histogram run(Duration duration, int size, boolean busyPoll) {
    if (size < 1) {
      throw new IllegalArgumentException("ping-pong message size must be positive, got " + size);
    }
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
          SocketChannel peer = server.accept()) {
        for (SocketChannel ch : new SocketChannel[] {client, peer}) {
          ch.socket().setTcpNoDelay(true);
          ch.configureBlocking(!busyPoll);
        }
        Thread echo = new Thread(() -> echo(peer, size), "vte-bench-pingpong-echo");
        echo.setDaemon(true);
        echo.start();
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        Histogram h = new Histogram(3);
        long warmupEnd = Measure.warmupEnd(duration);
        long end = warmupEnd + duration.toNanos();
        long now;
        while ((now = System.nanoTime()) < end) {
          buf.clear();
          writeFully(client, buf);
          buf.clear();
          readFully(client, buf);
          long rtt = System.nanoTime() - now;
          if (now >= warmupEnd) {
            h.recordValue(rtt);
          }
        }
        return h;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("TCP ping-pong baseline failed", e);
    }
  }

  private static void writeFully(SocketChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (ch.write(buf) == 0) {
        Thread.onSpinWait();
      }
    }
  }

  private static void readFully(SocketChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      int n = ch.read(buf);
      if (n < 0) {
        throw new IOException("ping-pong peer closed");
      }
      if (n == 0) {
        Thread.onSpinWait();
      }
    }
  }

  private static void echo(SocketChannel ch, int size) {
    ByteBuffer buf = ByteBuffer.allocateDirect(size);
    try {
      while (true) {
        buf.clear();
        readFully(ch, buf);
        buf.flip();
        writeFully(ch, buf);
      }
    } catch (IOException e) {
      // the client closed: the run is over
    }
  }
}

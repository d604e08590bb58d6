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
 * The latency baseline: a 64-byte TCP ping-pong on loopback between two threads, blocking sockets.
 */
public final class TcpPingPongBench {

  private static final int MESSAGE = 64;

  private TcpPingPongBench() {}

  /**
   * @param duration how long to measure (after a warm-up)
   * @return round-trip times in nanoseconds
   */
  public static Histogram run(Duration duration) {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
          SocketChannel peer = server.accept()) {
        client.socket().setTcpNoDelay(true);
        peer.socket().setTcpNoDelay(true);
        Thread echo = new Thread(() -> echo(peer), "vte-bench-pingpong-echo");
        echo.setDaemon(true);
        echo.start();
        ByteBuffer buf = ByteBuffer.allocateDirect(MESSAGE);
        Histogram h = new Histogram(3);
        long warmupEnd = Measure.warmupEnd(duration);
        long end = warmupEnd + duration.toNanos();
        long now;
        while ((now = System.nanoTime()) < end) {
          roundTrip(client, buf);
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

  private static void roundTrip(SocketChannel ch, ByteBuffer buf) throws IOException {
    buf.clear();
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
    while (buf.hasRemaining()) {
      if (ch.read(buf) < 0) {
        throw new IOException("echo side closed");
      }
    }
  }

  private static void echo(SocketChannel ch) {
    ByteBuffer buf = ByteBuffer.allocateDirect(MESSAGE);
    try {
      while (true) {
        buf.clear();
        while (buf.hasRemaining()) {
          if (ch.read(buf) < 0) {
            return;
          }
        }
        buf.flip();
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
      }
    } catch (IOException e) {
      // the client closed: the run is over
    }
  }
}

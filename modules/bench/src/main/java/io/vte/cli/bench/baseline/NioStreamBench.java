package io.vte.cli.bench.baseline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The baseline: raw Java NIO streaming of {@code size}-byte writes between two blocking
 * SocketChannels on loopback, one writer thread and one reader thread, direct buffers. Measured at
 * the reader.
 */
public final class NioStreamBench {

  private NioStreamBench() {}

  /**
   * Streams over {@code streams} connections at once, each with its writer and reader thread: the
   * baseline for an engine that opens that many connections.
   *
   * @param duration how long to measure (after a short warm-up)
   * @param size bytes per write
   * @param streams connections, at least 1
   * @return GiB/s of all streams together
   */
  public static double run(Duration duration, int size, int streams) {
    if (streams <= 1) {
      return run(duration, size);
    }
    double sum = 0;
    for (double gibs :
        StreamThreads.run(
            streams, "vte-bench-nio-reader-", "the NIO baseline", i -> run(duration, size))) {
      sum += gibs;
    }
    return sum;
  }

  /**
   * @param duration how long to measure (after a short warm-up)
   * @param size bytes per write
   * @return GiB/s
   */
  public static double run(Duration duration, int size) {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel out = SocketChannel.open(server.getLocalAddress());
          SocketChannel in = server.accept()) {
        out.socket().setTcpNoDelay(true);
        Thread writer = new Thread(() -> write(out, size), "vte-bench-nio-writer");
        writer.setDaemon(true);
        writer.start();
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        long warmupEnd = Measure.warmupEnd(duration);
        while (System.nanoTime() < warmupEnd) {
          buf.clear();
          in.read(buf);
        }
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long bytes = 0;
        long now;
        while ((now = System.nanoTime()) < end) {
          buf.clear();
          bytes += in.read(buf);
        }
        return Measure.gibPerSecond(bytes, now - start);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("NIO baseline failed", e);
    }
  }

  private static void write(SocketChannel out, int size) {
    ByteBuffer buf = ByteBuffer.allocateDirect(size);
    try {
      while (true) {
        buf.clear();
        while (buf.hasRemaining()) {
          out.write(buf);
        }
      }
    } catch (IOException e) {
      // the reader closed the socket: the run is over
    }
  }
}

package io.vte.cli.bench.baseline;

import io.vte.api.EngineOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;

/**
 * The round-trip baseline of a load: raw Java NIO over loopback, each message of {@code size} bytes
 * acknowledged by its receiver with {@link #ACK_BYTES} bytes, at most {@code window} messages
 * unacknowledged per connection, as a one-sided WRITE completes only once its peer acknowledged it.
 * TCP_NODELAY, direct buffers; per connection a sender thread (which also reads the
 * acknowledgements) and a receiver thread, each waiting for its socket as {@link Polling} says:
 * blocking sockets, or spinning for the engine's busy-poll windows before sleeping. Where {@link
 * NioStreamBench} streams with no bound on the bytes in flight, this one has as many messages in
 * flight as the engine has requests, so their ratio says what the engine costs beyond the round
 * trips its load needs; only the variant that polls as the engine does is like for like.
 */
public final class NioAckedBench {

  /** Bytes of one acknowledgement. */
  static final int ACK_BYTES = 8;

  private NioAckedBench() {}

  /**
   * How both ends of a connection wait for their socket.
   *
   * @param sender the sender's spin window (the engine's owners: {@code busyPollMicros}); zero for
   *     a blocking socket
   * @param receiver the receiver's spin window (the soft NIC threads: {@code nicBusyPollMicros});
   *     zero for a blocking socket
   */
  public record Polling(Duration sender, Duration receiver) {

    /** Both ends block in the kernel. */
    public static final Polling BLOCKING = new Polling(Duration.ZERO, Duration.ZERO);

    /**
     * @param options an engine's options
     * @return its owners' and soft NICs' busy-poll windows
     */
    public static Polling of(EngineOptions options) {
      return new Polling(options.getBusyPoll(), options.getNicBusyPoll());
    }

    /**
     * @return true when neither end spins
     */
    public boolean blocking() {
      return sender.isZero() && receiver.isZero();
    }
  }

  /**
   * What one run measured.
   *
   * @param gibPerSecond acknowledged bytes per second, in GiB/s, of all connections together
   * @param messages messages acknowledged in the measured time
   */
  public record Result(double gibPerSecond, long messages) {}

  /**
   * Runs {@code streams} connections side by side, {@code inFlight} messages in flight over all of
   * them (spread evenly, at least one each).
   *
   * @param duration how long to measure (after a short warm-up)
   * @param size bytes per message, at least 1
   * @param streams connections, at least 1
   * @param inFlight messages unacknowledged at most, over all connections, at least 1
   * @param polling how both ends wait for their sockets
   * @return the rate of acknowledged bytes
   * @throws IllegalArgumentException for a size, stream count or window below 1
   */
  public static Result run(
      Duration duration, int size, int streams, int inFlight, Polling polling) {
    if (size < 1 || streams < 1 || inFlight < 1) {
      throw new IllegalArgumentException(
          "size, streams and inFlight must be >= 1, got "
              + size
              + ", "
              + streams
              + ", "
              + inFlight);
    }
    List<Result> each =
        StreamThreads.run(
            streams,
            "vte-bench-nio-acked-sender-",
            "the acked NIO baseline",
            // the first inFlight % streams connections carry one message more
            i ->
                runOne(
                    duration,
                    size,
                    Math.max(1, inFlight / streams + (i < inFlight % streams ? 1 : 0)),
                    polling));
    double gibs = 0;
    long messages = 0;
    for (Result r : each) {
      gibs += r.gibPerSecond();
      messages += r.messages();
    }
    return new Result(gibs, messages);
  }

  /** One connection with {@code window} messages in flight; measured at the sender. */
  private static Result runOne(Duration duration, int size, int window, Polling polling) {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (SocketChannel outSocket = SocketChannel.open(server.getLocalAddress());
          SocketChannel inSocket = server.accept();
          PolledChannel out = new PolledChannel(outSocket, polling.sender())) {
        PolledChannel in = new PolledChannel(inSocket, polling.receiver());
        Thread receiver = new Thread(() -> receive(in, size), "vte-bench-nio-acked-receiver");
        receiver.setDaemon(true);
        receiver.start();
        ByteBuffer message = ByteBuffer.allocateDirect(size);
        ByteBuffer acks = ByteBuffer.allocateDirect(ACK_BYTES * window);
        resend(out, message, window);
        long warmupEnd = Measure.warmupEnd(duration);
        while (System.nanoTime() < warmupEnd) {
          resend(out, message, readAcks(out, acks));
        }
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long messages = 0;
        long now;
        while ((now = System.nanoTime()) < end) {
          int acked = readAcks(out, acks);
          messages += acked;
          resend(out, message, acked);
        }
        return new Result(Measure.gibPerSecond(messages * size, now - start), messages);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("acked NIO baseline failed", e);
    }
  }

  /**
   * Waits until at least one whole acknowledgement arrived.
   *
   * @return how many whole ones were read (a partial one stays in {@code acks} for the next call)
   */
  private static int readAcks(PolledChannel out, ByteBuffer acks) throws IOException {
    while (acks.position() < ACK_BYTES) {
      if (out.read(acks) < 0) {
        throw new IOException("the receiver closed the connection");
      }
    }
    acks.flip();
    int whole = acks.remaining() / ACK_BYTES;
    acks.position(whole * ACK_BYTES);
    acks.compact();
    return whole;
  }

  private static void resend(PolledChannel out, ByteBuffer message, int count) throws IOException {
    for (int i = 0; i < count; i++) {
      message.clear();
      out.writeFully(message);
    }
  }

  /** Reads whole messages and acknowledges each; ends when the sender closes. */
  private static void receive(PolledChannel in, int size) {
    ByteBuffer message = ByteBuffer.allocateDirect(size);
    ByteBuffer ack = ByteBuffer.allocateDirect(ACK_BYTES);
    try (in) {
      while (true) {
        message.clear();
        if (!in.readFully(message)) {
          return;
        }
        ack.clear();
        in.writeFully(ack);
      }
    } catch (IOException e) {
      // the sender closed the socket: the run is over
    }
  }
}

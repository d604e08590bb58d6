package io.vte.cli.bench.baseline;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * A baseline's socket read and written the way the engine waits for work: with a spin window of
 * zero a blocking socket (a thread that sleeps in the kernel until bytes come); otherwise a
 * non-blocking one that is tried again at once while it moved bytes less than the window ago, and
 * only then waits in a selector, as an owner polls its CQ for {@code busyPollMicros} after it last
 * found work before it sleeps.
 */
final class PolledChannel implements AutoCloseable {

  /** A spin window that never ends: the socket is polled and never waited for. */
  static final Duration ALWAYS = Duration.ofNanos(Long.MAX_VALUE);

  private final SocketChannel channel;
  private final long spinNanos;
  private final Selector selector;
  private final SelectionKey key;
  private long lastProgress = System.nanoTime();
  private long sleeps;

  /**
   * @param channel a connected socket, configured here
   * @param spin the spin window; zero for a blocking socket
   * @throws IOException when the socket cannot be configured
   */
  PolledChannel(SocketChannel channel, Duration spin) throws IOException {
    this.channel = channel;
    this.spinNanos = spin.toNanos();
    channel.socket().setTcpNoDelay(true);
    if (spinNanos == 0) {
      channel.configureBlocking(true);
      selector = null;
      key = null;
    } else {
      channel.configureBlocking(false);
      selector = Selector.open();
      key = channel.register(selector, 0);
    }
  }

  /** Reads until {@code buf} is full; false when the peer closed first. */
  boolean readFully(ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (read(buf) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads at least one byte (or learns the peer closed).
   *
   * @return bytes read, or -1 at the end of the stream
   */
  int read(ByteBuffer buf) throws IOException {
    while (true) {
      int n = channel.read(buf);
      if (n != 0) {
        lastProgress = System.nanoTime();
        return n;
      }
      idle(SelectionKey.OP_READ);
    }
  }

  /** Writes all of {@code buf}. */
  void writeFully(ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (channel.write(buf) > 0) {
        lastProgress = System.nanoTime();
      } else {
        idle(SelectionKey.OP_WRITE);
      }
    }
  }

  /** Nothing moved: spin on inside the window, else sleep until the socket is ready. */
  private void idle(int op) throws IOException {
    if (System.nanoTime() - lastProgress < spinNanos) {
      Thread.onSpinWait();
      return;
    }
    sleeps++;
    try {
      key.interestOps(op);
      selector.select();
      selector.selectedKeys().clear();
      key.interestOps(0);
    } catch (CancelledKeyException e) {
      // the socket was closed under this thread (the run ended): as a closed channel's read fails
      throw new ClosedChannelException();
    }
  }

  /**
   * @return how often this channel stopped spinning and slept in its selector
   */
  long sleeps() {
    return sleeps;
  }

  @Override
  public void close() throws IOException {
    if (selector != null) {
      selector.close();
    }
  }
}

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A learning Ethernet switch for QEMU socket links, so that more than two guests can share a rail.
 *
 * <p>Run as a single-file program: {@code java RailHub.java PORT...}. Each PORT is one rail: a
 * listening socket on 127.0.0.1 that guests join with {@code -netdev socket,connect=127.0.0.1:PORT}.
 * QEMU frames each Ethernet frame on such a stream with its length as a 4-byte big-endian integer.
 * The hub learns which connection each source MAC came from, forwards a unicast frame to the
 * connection that holds its destination and floods broadcast, multicast and unknown destinations
 * to every other connection of the rail. A connection that sends a length out of range is closed;
 * a connection that does not read falls behind and loses frames (a switch's full queue: RC
 * retransmits). Prints {@code listening PORT...} once every port accepts, and {@code joined PORT N}
 * when a connection makes it N on that port's rail.
 */
public final class RailHub {
  private static final int MAX_FRAME = 65_536 + 64;
  private static final int OUT_BYTES = 4 << 20;

  private final Selector selector;
  private final Map<Integer, Rail> rails = new HashMap<>();

  private RailHub(List<Integer> ports) throws IOException {
    selector = Selector.open();
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    for (int port : ports) {
      ServerSocketChannel server = ServerSocketChannel.open();
      server.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress(loopback, port));
      server.configureBlocking(false);
      Rail rail = new Rail(port);
      rails.put(port, rail);
      server.register(selector, SelectionKey.OP_ACCEPT, rail);
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.err.println("usage: java RailHub.java PORT...");
      System.exit(2);
    }
    List<Integer> ports = new ArrayList<>();
    for (String a : args) {
      int p;
      try {
        p = Integer.parseInt(a);
      } catch (NumberFormatException e) {
        p = -1;
      }
      if (p < 1 || p > 65_535) {
        System.err.println("RailHub: port must be 1..65535, not " + a);
        System.exit(2);
      }
      ports.add(p);
    }
    RailHub hub = new RailHub(ports);
    System.out.println("listening " + String.join(" ", args));
    System.out.flush();
    hub.run();
  }

  private void run() throws IOException {
    while (true) {
      selector.select();
      for (SelectionKey key : selector.selectedKeys()) {
        if (!key.isValid()) {
          continue;
        }
        if (key.isAcceptable()) {
          accept(key);
          continue;
        }
        Port port = (Port) key.attachment();
        try {
          if (key.isWritable()) {
            port.flush();
          }
          if (key.isValid() && key.isReadable()) {
            port.read();
          }
        } catch (IOException e) {
          port.close();
        }
      }
      selector.selectedKeys().clear();
    }
  }

  private void accept(SelectionKey key) throws IOException {
    SocketChannel ch = ((ServerSocketChannel) key.channel()).accept();
    if (ch == null) {
      return;
    }
    ch.configureBlocking(false);
    ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
    Rail rail = (Rail) key.attachment();
    Port port = new Port(rail, ch);
    port.key = ch.register(selector, SelectionKey.OP_READ, port);
    rail.ports.add(port);
    System.out.printf("joined %d %d%n", rail.number, rail.ports.size());
    System.out.flush();
  }

  /** One rail: its connected guests and which MAC was last seen on which of them. */
  private static final class Rail {
    final int number;
    final List<Port> ports = new ArrayList<>();
    final Map<Long, Port> macs = new HashMap<>();

    Rail(int number) {
      this.number = number;
    }

    void forward(Port from, ByteBuffer frame) {
      int at = frame.position();
      long src = mac(frame, at + 6);
      if ((frame.get(at + 6) & 1) == 0) {
        macs.put(src, from);
      }
      Port to = (frame.get(at) & 1) == 0 ? macs.get(mac(frame, at)) : null;
      if (to != null) {
        if (to != from) {
          to.send(frame);
        }
        return;
      }
      for (Port p : List.copyOf(ports)) {
        if (p != from) {
          p.send(frame);
        }
      }
    }

    private static long mac(ByteBuffer b, int at) {
      long m = 0;
      for (int i = 0; i < 6; i++) {
        m = (m << 8) | (b.get(at + i) & 0xff);
      }
      return m;
    }
  }

  /** One guest's connection to a rail: frames in, frames out. */
  private final class Port {
    final Rail rail;
    final SocketChannel ch;
    final ByteBuffer in = ByteBuffer.allocateDirect(4 + MAX_FRAME);
    final ByteBuffer out = ByteBuffer.allocateDirect(OUT_BYTES);
    SelectionKey key;

    Port(Rail rail, SocketChannel ch) {
      this.rail = rail;
      this.ch = ch;
    }

    void read() throws IOException {
      if (ch.read(in) < 0) {
        close();
        return;
      }
      in.flip();
      while (in.remaining() >= 4) {
        int len = in.getInt(in.position());
        if (len < 14 || len > MAX_FRAME) {
          System.err.printf(
              "RailHub: rail %d: frame length %d out of 14..%d: connection closed%n",
              rail.number, len, MAX_FRAME);
          close();
          return;
        }
        if (in.remaining() < 4 + len) {
          break;
        }
        ByteBuffer frame = in.slice(in.position() + 4, len);
        rail.forward(this, frame);
        in.position(in.position() + 4 + len);
      }
      in.compact();
    }

    void send(ByteBuffer frame) {
      int len = frame.remaining();
      if (out.remaining() < 4 + len) {
        return;
      }
      out.putInt(len).put(frame.duplicate());
      try {
        flush();
      } catch (IOException e) {
        close();
      }
    }

    void flush() throws IOException {
      out.flip();
      ch.write(out);
      boolean pending = out.hasRemaining();
      out.compact();
      if (key.isValid()) {
        key.interestOps(pending ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
      }
    }

    void close() {
      rail.ports.remove(this);
      rail.macs.values().removeIf(p -> p == this);
      key.cancel();
      try {
        ch.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }
}

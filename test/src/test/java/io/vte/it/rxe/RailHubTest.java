package io.vte.it.rxe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rails' learning switch that lets more than two rxe guests share a rail ({@code
 * test/rxe/RailHub.java}), driven as QEMU drives it: length-prefixed Ethernet frames over TCP.
 */
class RailHubTest {
  private static final byte[] BROADCAST = mac(0xff);

  private Process hub;
  private BufferedReader hubOut;
  private final List<Socket> sockets = new ArrayList<>();
  private int port;

  @BeforeEach
  void start() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    Path source = RxeGuests.script().resolveSibling("RailHub.java");
    hub =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                source.toString(),
                Integer.toString(port))
            .redirectErrorStream(true)
            .start();
    hubOut =
        new BufferedReader(new InputStreamReader(hub.getInputStream(), StandardCharsets.UTF_8));
    String first = hubOut.readLine(); // blocks until the hub prints or ends: it compiles first
    assertEquals("listening " + port, first, "the hub's first line");
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket s : sockets) {
      s.close();
    }
    hub.destroyForcibly();
    assertTrue(hub.waitFor(30, TimeUnit.SECONDS), "the hub ended");
  }

  @Test
  void floodsUnknownAndBroadcastFramesThenForwardsUnicastOnlyToTheLearnedGuest() throws Exception {
    Socket a = join();
    Socket b = join();
    Socket c = join();
    byte[] macA = mac(0xa);
    byte[] macB = mac(0xb);
    byte[] macC = mac(0xc);
    // Until a guest has sent, the hub does not know where it is: a broadcast reaches every other.
    byte[] hello = frame(BROADCAST, macA, 100, 1);
    send(a, hello);
    assertArrayEquals(hello, receive(b));
    assertArrayEquals(hello, receive(c));
    // B answers A: A is learned, so only A gets it; C learns nothing of it.
    byte[] reply = frame(macA, macB, 1500, 2);
    send(b, reply);
    assertArrayEquals(reply, receive(a));
    // C speaks once (broadcast), then A sends to C and to B: each gets only its own frame.
    send(c, frame(BROADCAST, macC, 60, 3));
    receive(a);
    receive(b);
    byte[] toC = frame(macC, macA, 9000, 4);
    byte[] toB = frame(macB, macA, 64, 5);
    send(a, toC);
    send(a, toB);
    assertArrayEquals(toC, receive(c));
    assertArrayEquals(toB, receive(b));
    assertNothingFor(c);
    assertNothingFor(a);
  }

  @Test
  void aGuestSendingAnImpossibleLengthIsCutOffAndTheOthersGoOn() throws Exception {
    Socket a = join();
    Socket b = join();
    Socket bad = join();
    new DataOutputStream(bad.getOutputStream()).writeInt(1 << 20);
    bad.getOutputStream().flush();
    assertEquals(-1, bad.getInputStream().read(), "the hub closes a connection that sent 1 MiB");
    byte[] f = frame(BROADCAST, mac(0xa), 200, 6);
    send(a, f);
    assertArrayEquals(f, receive(b));
  }

  @Test
  void aGuestThatLeavesIsForgottenAndItsMacFloodsAgain() throws Exception {
    Socket a = join();
    Socket b = join();
    send(b, frame(BROADCAST, mac(0xb), 60, 7));
    receive(a);
    b.close();
    Socket b2 = join();
    // B's MAC was learned on the closed connection; a frame to it must reach the new one.
    byte[] toB = frame(mac(0xb), mac(0xa), 128, 8);
    awaitDelivered(a, b2, toB);
  }

  private Socket join() throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(10_000);
    sockets.add(s);
    // The hub serves a connection once it has accepted it; until then a frame would miss it.
    String joined;
    do {
      joined = hubOut.readLine();
      assertTrue(joined != null, "the hub ended");
    } while (!joined.startsWith("joined " + port + " "));
    return s;
  }

  /** The hub learns of a closed connection when it reads its end; resend until it has. */
  private static void awaitDelivered(Socket from, Socket to, byte[] frame) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    to.setSoTimeout(200);
    while (true) {
      send(from, frame);
      try {
        assertArrayEquals(frame, receive(to));
        return;
      } catch (SocketTimeoutException e) {
        assertTrue(System.nanoTime() < deadline, "the frame never reached the rejoined guest");
      }
    }
  }

  private static void assertNothingFor(Socket s) throws IOException {
    s.setSoTimeout(300);
    try {
      byte[] got = receive(s);
      throw new AssertionError("unexpected frame: " + Arrays.toString(Arrays.copyOf(got, 14)));
    } catch (SocketTimeoutException expected) {
      // nothing came
    }
  }

  private static void send(Socket s, byte[] frame) throws IOException {
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    out.writeInt(frame.length);
    out.write(frame);
    out.flush();
  }

  private static byte[] receive(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] f = new byte[in.readInt()];
    in.readFully(f);
    return f;
  }

  private static byte[] frame(byte[] dst, byte[] src, int length, int seed) {
    byte[] f = new byte[length];
    System.arraycopy(dst, 0, f, 0, 6);
    System.arraycopy(src, 0, f, 6, 6);
    for (int i = 12; i < length; i++) {
      f[i] = (byte) (i * 31 + seed);
    }
    return f;
  }

  private static byte[] mac(int last) {
    return last == 0xff
        ? new byte[] {-1, -1, -1, -1, -1, -1}
        : new byte[] {0x52, 0x54, 0, 0x18, 0, (byte) last};
  }
}

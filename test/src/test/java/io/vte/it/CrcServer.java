package io.vte.it;

import io.vte.api.RegisteredBuffer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Answers the CRC32C of regions of a process's buffers over TCP, so that a writer can check the
 * receiver's memory after each write ({@link CrcClient}, {@link WriteLoad}). One question per line,
 * {@code <address> <length>}, one answer per line: the CRC in decimal, or {@code error <message>}
 * for a region outside the buffers. Runs on threads of its own, never on an engine's event loop.
 */
final class CrcServer implements AutoCloseable {

  private final ServerSocket server;
  private final List<RegisteredBuffer> buffers;

  private CrcServer(ServerSocket server, List<RegisteredBuffer> buffers) {
    this.server = server;
    this.buffers = buffers;
  }

  /**
   * @param host the address to listen on
   * @param buffers the buffers that may be asked for, a thread-safe list that may still grow
   * @return a running server on a free port
   * @throws IOException when it cannot listen
   */
  static CrcServer start(String host, List<RegisteredBuffer> buffers) throws IOException {
    CrcServer s = new CrcServer(new ServerSocket(0, 8, InetAddress.getByName(host)), buffers);
    Thread acceptor = new Thread(s::accept, "crc-server");
    acceptor.setDaemon(true);
    acceptor.start();
    return s;
  }

  /**
   * @return the port it listens on
   */
  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        Thread t = new Thread(() -> serve(socket), "crc-server-connection");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket) {
    try (socket;
        BufferedReader in =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))) {
      OutputStream out = socket.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.write((answer(line) + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  private String answer(String line) {
    String[] words = line.trim().split("\\s+");
    try {
      long at = Long.parseLong(words[0]);
      int length = Integer.parseInt(words[1]);
      for (RegisteredBuffer b : buffers) {
        if (length > 0 && at >= b.address() && at + length <= b.address() + b.length()) {
          return Long.toString(Pattern.crc(at, length));
        }
      }
      return "error " + length + " bytes at " + at + " lie outside the buffers";
    } catch (RuntimeException e) {
      return "error bad question '" + line + "': " + e;
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}

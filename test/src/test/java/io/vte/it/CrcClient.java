package io.vte.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Asks a {@link CrcServer} for the CRC32C of the receiver's memory, over one connection made at the
 * first question. Not thread-safe: one writer loop asks.
 */
final class CrcClient implements WriteLoad.RemoteCrc, AutoCloseable {

  private final String host;
  private final int port;
  private Socket socket;
  private BufferedReader in;
  private OutputStream out;

  /**
   * @param hostPort the server's {@code host:port}
   */
  CrcClient(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    this.host = hostPort.substring(0, colon);
    this.port = Integer.parseInt(hostPort.substring(colon + 1));
  }

  @Override
  public long crc(long address, int length) throws IOException {
    if (socket == null) {
      socket = new Socket(host, port);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout((int) LocalEngines.WAIT.toMillis());
      in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
      out = socket.getOutputStream();
    }
    out.write((address + " " + length + "\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    String answer = in.readLine();
    if (answer == null || answer.startsWith("error")) {
      throw new IOException(
          "the receiver's CRC server at " + host + ":" + port + " answered " + answer);
    }
    return Long.parseLong(answer);
  }

  @Override
  public void close() throws IOException {
    if (socket != null) {
      socket.close();
    }
  }
}

package io.vte.handshake;

import io.vertx.core.net.SocketAddress;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * A node's server name {@code host:port} (IPv6 hosts in brackets, {@code [::1]:port}): where its
 * handshake service listens, and the name of its p2p segment.
 *
 * @param host the host name or address, without brackets
 * @param port the TCP port, 1..65535
 */
public record ServerName(String host, int port) {

  /** Longest accepted server name. */
  public static final int MAX_LENGTH = 256;

  /**
   * @param text {@code host:port}
   * @return the parsed name
   * @throws VteException INVALID_ARGUMENT naming the bad value (no port, port out of range, empty
   *     host)
   */
  public static ServerName parse(String text) {
    if (text == null || text.isEmpty()) {
      throw invalid(text, "empty");
    }
    if (text.length() > MAX_LENGTH) {
      throw invalid(text, "longer than " + MAX_LENGTH + " chars");
    }
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw invalid(text, "expected host:port");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]") && host.length() > 2) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw invalid(text, "an IPv6 host must be in brackets");
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c <= ' ' || c == '@' || c == '/' || c == '[' || c == ']' || c >= 0x7f) {
        throw invalid(text, "bad character in host at index " + i);
      }
    }
    int port = 0;
    String digits = text.substring(colon + 1);
    if (digits.length() > 5) {
      throw invalid(text, "port out of range 1..65535");
    }
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c < '0' || c > '9') {
        throw invalid(text, "port is not a number");
      }
      port = port * 10 + (c - '0');
    }
    if (port < 1 || port > 65535) {
      throw invalid(text, "port out of range 1..65535");
    }
    return new ServerName(host, port);
  }

  /**
   * @return the address to dial
   */
  public SocketAddress toSocketAddress() {
    return SocketAddress.inetSocketAddress(port, host);
  }

  /**
   * @return {@code host:port}, IPv6 hosts in brackets
   */
  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  private static VteException invalid(String text, String why) {
    return new VteException(
        ErrorCode.INVALID_ARGUMENT,
        "bad server name '" + HandshakeValidator.abbreviate(text) + "': " + why);
  }
}

package io.vte.mooncake;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * A Mooncake server name {@code host:port}.
 *
 * @param host the host
 * @param port the port
 */
record HostPort(String host, int port) {

  /**
   * @throws VteException INVALID_ARGUMENT naming the value when it is not {@code host:port}
   */
  static HostPort parse(String serverName) {
    int colon = serverName == null ? -1 : serverName.lastIndexOf(':');
    if (colon <= 0) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "Mooncake server name " + serverName + " is not host:port");
    }
    try {
      int port = Integer.parseInt(serverName.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new NumberFormatException("port " + port + " not in 1..65535");
      }
      return new HostPort(serverName.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "Mooncake server name " + serverName + " is not host:port: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}

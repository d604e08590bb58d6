package io.vte.engine;

import java.util.Locale;
import java.util.Optional;

/**
 * Whether a node's handshake service is reachable from other hosts without authentication. That
 * service hands out the node's buffer addresses and remote keys and connects QPs to its registered
 * memory, so whoever reaches it can read and write that memory: on any address but loopback it
 * needs the engine option {@code auth} (docs/security.md). The engine logs the warning at start;
 * {@code vte serve} prints it too.
 */
public final class HandshakeExposure {

  private static final System.Logger LOG = System.getLogger(HandshakeExposure.class.getName());

  private HandshakeExposure() {}

  /**
   * Logs {@link #warning} at WARNING when there is one.
   *
   * @param serverName the handshake service's server name, {@code host:port}
   * @param authenticated whether the engine option {@code auth} is set
   */
  public static void warnIfExposed(String serverName, boolean authenticated) {
    warning(serverName, authenticated).ifPresent(w -> LOG.log(System.Logger.Level.WARNING, w));
  }

  /**
   * @param serverName the handshake service's server name, {@code host:port}
   * @param authenticated whether the engine option {@code auth} is set (calls carry HMAC tokens)
   * @return the warning to give, naming the address and the option that turns auth on; empty when
   *     the service listens on loopback only or authenticates its callers
   */
  public static Optional<String> warning(String serverName, boolean authenticated) {
    if (authenticated || loopback(host(serverName))) {
      return Optional.empty();
    }
    return Optional.of(
        "the handshake service "
            + serverName
            + " listens on a non-loopback address without authentication: any host that reaches"
            + " it learns this node's buffer addresses and keys and can read and write its"
            + " registered memory. Set the engine option 'auth' (a shared secret, the same on every"
            + " node; 'tls' to encrypt too), or 'rpcHost' to 127.0.0.1 for a single host; see"
            + " docs/security.md");
  }

  private static String host(String serverName) {
    int colon = serverName.lastIndexOf(':');
    String host = colon < 0 ? serverName : serverName.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return host.toLowerCase(Locale.ROOT);
  }

  /**
   * Loopback by its literal form, without a name lookup (a host name other than localhost is not).
   */
  private static boolean loopback(String host) {
    return host.equals("localhost")
        || host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}")
        || host.equals("::1")
        || host.equals("0:0:0:0:0:0:0:1");
  }
}

package io.vte.handshake;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * A NIC path, {@code <server>@<device>}: the handshake server a node listens on ({@code host:port})
 * and one of its devices. It names either end of a connection in {@code Connect} and is the key of
 * an endpoint and of the owner that runs it. Immutable; its hash is computed once, at construction,
 * so a path made once per rail costs nothing per slice.
 *
 * <p>The one hash function is FNV-1a over the characters of {@link #toString()}: {@link
 * #hashCode()} and {@link #ownerIndex(int)} both use it, and it is stable across runs and JVMs
 * (unlike identity hashes).
 */
public final class NicPath implements Comparable<NicPath> {

  private static final int FNV_OFFSET = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;

  private final String server;
  private final String device;
  private final String text;
  private final int hash;

  private NicPath(String server, String device, String text) {
    this.server = server;
    this.device = device;
    this.text = text;
    int h = FNV_OFFSET;
    for (int i = 0, n = text.length(); i < n; i++) {
      h = (h ^ text.charAt(i)) * FNV_PRIME;
    }
    this.hash = h;
  }

  /**
   * @param server a handshake server name, {@code host:port}
   * @param device a device name of that server
   * @return their NIC path
   * @throws VteException INVALID_ARGUMENT naming the bad value when the two do not make a valid
   *     path (an empty part, an {@code @} in either, a control or space character, longer than
   *     {@link HandshakeValidator#MAX_NAME_LENGTH} in all)
   */
  public static NicPath of(String server, String device) {
    if (server == null || device == null) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "NIC path needs a server and a device, got server " + server + " and device " + device);
    }
    String text = server + "@" + device;
    String problem = problem(text);
    if (problem != null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "NIC path " + problem);
    }
    return new NicPath(server, device, text);
  }

  /**
   * @param text {@code <server>@<device>}
   * @return the path it names
   * @throws VteException INVALID_ARGUMENT naming the bad value (see {@link #problem(String)})
   */
  public static NicPath parse(String text) {
    String problem = problem(text);
    if (problem != null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "NIC path " + problem);
    }
    int at = text.indexOf('@');
    return new NicPath(text.substring(0, at), text.substring(at + 1), text);
  }

  /**
   * What is wrong with a would-be NIC path, worded to follow the name of the field that holds it.
   *
   * @param text a would-be {@code <server>@<device>}
   * @return null when it is a valid path, else e.g. {@code "must be server@device: 'hostonly'"}
   */
  public static String problem(String text) {
    if (text == null || text.isEmpty()) {
      return "must not be empty";
    }
    if (text.length() > HandshakeValidator.MAX_NAME_LENGTH) {
      return "must be <= "
          + HandshakeValidator.MAX_NAME_LENGTH
          + " chars: '"
          + HandshakeValidator.abbreviate(text)
          + "'";
    }
    int at = text.indexOf('@');
    if (at <= 0 || at == text.length() - 1 || text.indexOf('@', at + 1) >= 0) {
      return "must be server@device: '" + HandshakeValidator.abbreviate(text) + "'";
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        return "has a control or space character at index "
            + i
            + ": '"
            + HandshakeValidator.abbreviate(text)
            + "'";
      }
    }
    return null;
  }

  /**
   * @return the handshake server name, {@code host:port}
   */
  public String server() {
    return server;
  }

  /**
   * @return the device name
   */
  public String device() {
    return device;
  }

  /**
   * Which of {@code owners} owners runs this path's endpoints: the same on every call and every
   * node.
   *
   * @param owners the owner count, at least 1
   * @return an index in {@code [0, owners)}
   */
  public int ownerIndex(int owners) {
    return Math.floorMod(hash, owners);
  }

  /**
   * @return {@code <server>@<device>}
   */
  @Override
  public String toString() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || (o instanceof NicPath other && hash == other.hash && text.equals(other.text));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Orders paths by their text: the order the simultaneous-open rule compares. */
  @Override
  public int compareTo(NicPath other) {
    return text.compareTo(other.text);
  }
}

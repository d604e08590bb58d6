package io.vte.metadata.impl;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed metadata URI: {@code p2p} (also {@code p2p://}, or null/empty for the default) or {@code
 * etcd://host:port[,host:port...]} ({@code etcds://} for TLS). IPv6 hosts go in brackets.
 *
 * @param scheme {@code p2p}, {@code etcd} or {@code etcds}
 * @param hostPorts the etcd members as {@code host:port} (empty for p2p)
 */
public record MetadataUri(String scheme, List<String> hostPorts) {

  /** The p2p scheme. */
  public static final String P2P = "p2p";

  /** The plain-text etcd scheme. */
  public static final String ETCD = "etcd";

  /** The TLS etcd scheme. */
  public static final String ETCDS = "etcds";

  /**
   * @param uri the URI text
   * @return the parsed URI
   * @throws VteException INVALID_CONFIGURATION naming the URI and the problem
   */
  public static MetadataUri parse(String uri) {
    if (uri == null || uri.isBlank() || uri.equals(P2P) || uri.equals(P2P + "://")) {
      return new MetadataUri(P2P, List.of());
    }
    int sep = uri.indexOf("://");
    if (sep <= 0) {
      throw invalid(uri, "expected p2p or etcd://host:port[,host:port...]");
    }
    String scheme = uri.substring(0, sep);
    if (!scheme.equals(ETCD) && !scheme.equals(ETCDS)) {
      throw invalid(uri, "unknown scheme '" + scheme + "' (known: p2p, etcd, etcds)");
    }
    String rest = uri.substring(sep + 3);
    if (rest.endsWith("/")) {
      rest = rest.substring(0, rest.length() - 1);
    }
    if (rest.isEmpty()) {
      throw invalid(uri, "no etcd endpoint");
    }
    List<String> hostPorts = new ArrayList<>();
    for (String member : rest.split(",", -1)) {
      hostPorts.add(member(uri, member));
    }
    return new MetadataUri(scheme, List.copyOf(hostPorts));
  }

  /**
   * @return true for {@code p2p}
   */
  public boolean isP2p() {
    return scheme.equals(P2P);
  }

  /**
   * @return true for {@code etcds}
   */
  public boolean isTls() {
    return scheme.equals(ETCDS);
  }

  /**
   * @return the endpoints as jetcd wants them: {@code http://host:port} or {@code
   *     https://host:port}
   */
  public List<String> clientEndpoints() {
    String http = isTls() ? "https://" : "http://";
    return hostPorts.stream().map(hp -> http + hp).toList();
  }

  @Override
  public String toString() {
    return isP2p() ? P2P : scheme + "://" + String.join(",", hostPorts);
  }

  private static String member(String uri, String member) {
    if (member.isEmpty()) {
      throw invalid(uri, "empty endpoint in the member list");
    }
    int colon = member.lastIndexOf(':');
    if (colon <= 0 || colon == member.length() - 1) {
      throw invalid(uri, "endpoint '" + member + "' is not host:port");
    }
    String host = member.substring(0, colon);
    boolean bracketed = host.startsWith("[") && host.endsWith("]") && host.length() > 2;
    String bare = bracketed ? host.substring(1, host.length() - 1) : host;
    for (int i = 0; i < bare.length(); i++) {
      char c = bare.charAt(i);
      boolean ok =
          Character.isLetterOrDigit(c) && c < 0x80
              || c == '.'
              || c == '-'
              || c == '_'
              || (bracketed && c == ':');
      if (!ok) {
        throw invalid(uri, "bad character '" + c + "' in host of endpoint '" + member + "'");
      }
    }
    String digits = member.substring(colon + 1);
    int port = -1;
    if (digits.length() <= 5 && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      port = Integer.parseInt(digits);
    }
    if (port < 1 || port > 65535) {
      throw invalid(
          uri, "bad port '" + digits + "' in endpoint '" + member + "' (expected 1..65535)");
    }
    return member;
  }

  private static VteException invalid(String uri, String why) {
    return new VteException(ErrorCode.INVALID_CONFIGURATION, "metadata URI '" + uri + "': " + why);
  }
}

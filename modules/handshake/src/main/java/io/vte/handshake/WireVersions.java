package io.vte.handshake;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;

/**
 * A range of control-plane wire versions a node speaks, lowest to highest, as each side of a
 * Connect announces it ({@code wire_version_min}, {@code wire_version_max}). Two nodes use the
 * highest version both ranges hold; when they share none the handshake fails VERSION_MISMATCH
 * naming both ranges.
 *
 * <p>Versions: 1 is every release before the range existed (a peer that sends no range, both fields
 * 0, speaks 1 only); 2 adds the range itself, the reply's chosen {@code wire_version} and the
 * acknowledgement of a resent notification ({@code NotifyReply.duplicate}). Fields a version adds
 * are new proto fields, so a node speaking 2 still serves a peer that speaks 1.
 *
 * @param min the lowest version spoken, at least 1
 * @param max the highest version spoken, at least {@code min}
 */
public record WireVersions(int min, int max) {

  /** The version of a peer that announces no range. */
  public static final int LEGACY = 1;

  /** What this release speaks. */
  public static final WireVersions SPOKEN = new WireVersions(1, 2);

  /**
   * @throws VteException INVALID_ARGUMENT naming both bounds unless {@code 1 <= min <= max}
   */
  public WireVersions {
    String problem = problem(min, max);
    if (problem != null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, problem);
    }
  }

  /**
   * @param min an announced {@code wire_version_min}
   * @param max an announced {@code wire_version_max}
   * @return what is wrong with the announced range, naming both bounds, or null when it is usable
   *     (both 0 is: a peer from before ranges)
   */
  public static String problem(int min, int max) {
    if ((min == 0 && max == 0) || (min >= 1 && max >= min)) {
      return null;
    }
    return "wire version range must satisfy 1 <= min <= max, got min "
        + Integer.toUnsignedString(min)
        + ", max "
        + Integer.toUnsignedString(max);
  }

  /**
   * @param min the announced {@code wire_version_min}
   * @param max the announced {@code wire_version_max}
   * @return the range announced; both 0 (a peer from before ranges) is version 1 only
   * @throws VteException INVALID_ARGUMENT naming both bounds for any other malformed range
   */
  public static WireVersions announced(int min, int max) {
    return min == 0 && max == 0 ? new WireVersions(LEGACY, LEGACY) : new WireVersions(min, max);
  }

  /**
   * @param chosen a reply's {@code wire_version}
   * @return the version it names; 0 (a peer from before ranges) is version 1
   */
  public static int chosen(int chosen) {
    return chosen == 0 ? LEGACY : chosen;
  }

  /**
   * @param version a version
   * @return true when this range holds it
   */
  public boolean holds(int version) {
    return version >= min && version <= max;
  }

  /**
   * @param peer the peer's range
   * @return the highest version both ranges hold, or 0 when they share none
   */
  public int highestCommon(WireVersions peer) {
    int top = Math.min(max, peer.max);
    return top >= Math.max(min, peer.min) ? top : 0;
  }

  /**
   * @param peer the peer's range
   * @param peerName who the peer is, for the message
   * @return the VERSION_MISMATCH failure naming both ranges
   */
  public VteException mismatch(WireVersions peer, String peerName) {
    return new VteException(ErrorCode.VERSION_MISMATCH, mismatchReason(peer, peerName));
  }

  /**
   * @param peer the peer's range
   * @param peerName who the peer is, for the message
   * @return why the handshake cannot go on, naming both ranges (a VERSION_MISMATCH reply's reason)
   */
  public String mismatchReason(WireVersions peer, String peerName) {
    return "no common wire version: this node speaks " + this + ", " + peerName + " speaks " + peer;
  }

  /**
   * @return {@code min..max}
   */
  @Override
  public String toString() {
    return min + ".." + max;
  }
}

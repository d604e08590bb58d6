package io.vte.engine.impl.handshake;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.verbs.GidType;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import java.lang.System.Logger.Level;

/**
 * What both ends of a connection must agree on before their QPs go to RTR: the link layer (RoCE
 * cannot talk to InfiniBand), the GID type (a RoCE v1 GID cannot talk to a RoCE v2 one) and the
 * path MTU (the smaller active MTU; a difference is reported, since a fabric with mixed MTUs is
 * usually misconfigured).
 */
public final class PathAgreement {

  private static final System.Logger LOG = System.getLogger(PathAgreement.class.getName());
  private static final LinkLayer[] LINK_LAYERS = LinkLayer.values();
  private static final int[] VALID_MTUS = {256, 512, 1024, 2048, 4096};

  private PathAgreement() {}

  /**
   * @param local this side's port
   * @param peerLinkLayer the peer port's link layer code (0: not sent by an older peer)
   * @param peerMtu the peer port's active MTU in bytes
   * @param peerPath the peer's NIC path, for messages
   * @return the path MTU both sides use
   * @throws VteException PROTOCOL_ERROR naming both sides on an invalid MTU or a link layer
   *     mismatch
   */
  public static int pathMtu(PortAttributes local, int peerLinkLayer, int peerMtu, String peerPath) {
    if (!validMtu(peerMtu)) {
      throw new VteException(ErrorCode.PROTOCOL_ERROR, "invalid peer mtu " + peerMtu);
    }
    LinkLayer peer =
        peerLinkLayer > 0 && peerLinkLayer < LINK_LAYERS.length
            ? LINK_LAYERS[peerLinkLayer]
            : LinkLayer.UNSPECIFIED;
    if (peer != LinkLayer.UNSPECIFIED
        && local.linkLayer() != LinkLayer.UNSPECIFIED
        && peer != local.linkLayer()) {
      throw new VteException(
          ErrorCode.PROTOCOL_ERROR,
          "link layer mismatch: port "
              + local.port()
              + " here is "
              + local.linkLayer()
              + ", "
              + peerPath
              + " is "
              + peer
              + " (RoCE and InfiniBand ports cannot connect)");
    }
    if (peerMtu != local.activeMtu()) {
      LOG.log(
          Level.WARNING,
          "MTU mismatch with "
              + peerPath
              + ": active MTU "
              + local.activeMtu()
              + " here, "
              + peerMtu
              + " there; using "
              + Math.min(peerMtu, local.activeMtu()));
    }
    return Math.min(peerMtu, local.activeMtu());
  }

  /**
   * @param local this side's port
   * @param peerGidType the peer GID's type code (0: not known, e.g. soft verbs or an older peer)
   * @param peerPath the peer's NIC path, for messages
   * @throws VteException PROTOCOL_ERROR naming both sides when both types are known and differ
   */
  public static void requireSameGidType(PortAttributes local, int peerGidType, String peerPath) {
    GidType peer = GidType.of(peerGidType);
    if (peer != GidType.UNSPECIFIED
        && local.gidType() != GidType.UNSPECIFIED
        && peer != local.gidType()) {
      throw new VteException(
          ErrorCode.PROTOCOL_ERROR,
          "GID type mismatch: port "
              + local.port()
              + " here uses a "
              + local.gidType()
              + " GID (index "
              + local.gidIndex()
              + "), "
              + peerPath
              + " a "
              + peer
              + " one; choose GIDs of one type on both sides (ibverbs gidType or gidIndex)");
    }
  }

  /**
   * @return true for an MTU ibverbs knows
   */
  public static boolean validMtu(int mtu) {
    for (int valid : VALID_MTUS) {
      if (mtu == valid) {
        return true;
      }
    }
    return false;
  }
}
